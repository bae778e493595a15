"""Rename an entry id or a tool call id with all its references (prepareRename + rename)."""

from __future__ import annotations

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from pi_lsp.core.rename import LineEdit, RenameError, prepare_rename, rename

from . import lookup
from .safety import isolated
from .server import PiLanguageServer


def _workspace_edit(
    ls: PiLanguageServer, uri: str, version: int | None, lines: list[str], edits: list[LineEdit]
) -> types.WorkspaceEdit:
    text_edits = [
        types.TextEdit(
            range=lookup.span_range(ls, lines, e.line, e.start, e.end), new_text=e.new_text
        )
        for e in edits
    ]
    workspace = ls.client_capabilities.workspace
    supports = workspace.workspace_edit if workspace else None
    if supports and supports.document_changes:
        identifier = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(text_document=identifier, edits=list(text_edits))
            ]
        )
    return types.WorkspaceEdit(changes={uri: text_edits})


def register(server: PiLanguageServer) -> None:
    """Register textDocument/prepareRename and textDocument/rename."""

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    @isolated()
    def prepare(
        ls: PiLanguageServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        where = lookup.at(ls, params.text_document.uri, params.position)
        if where is None:
            return None
        found = prepare_rename(where.analysis, where.line, where.column)
        if found is None:
            return None
        start, end, name = found
        return types.PrepareRenamePlaceholder(
            range=lookup.span_range(ls, where.doc.lines, where.line, start, end), placeholder=name
        )

    @server.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
    def do_rename(ls: PiLanguageServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        result = _compute(ls, params)
        if isinstance(result, RenameError):
            # a refused name reaches the user as an error response
            raise JsonRpcException(message=str(result), code=types.LSPErrorCodes.RequestFailed)
        return result


@isolated()
def _compute(
    ls: PiLanguageServer, params: types.RenameParams
) -> types.WorkspaceEdit | RenameError | None:
    """The rename's edit, or the RenameError that refuses the new name."""
    uri = params.text_document.uri
    where = lookup.at(ls, uri, params.position)
    if where is None:
        return None
    try:
        edits = rename(where.analysis, where.line, where.column, params.new_name)
    except RenameError as exc:
        return exc
    if not edits:
        return None
    return _workspace_edit(ls, uri, where.doc.version, where.doc.lines, edits)
