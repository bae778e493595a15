"""Book-dialect files in the editor: the "Convert to pi v3 session" quick fix and command.

:func:`book_code_actions` answers part of ``textDocument/codeAction`` (the code action
module calls it: pygls allows one handler per method). The command
``pi-lsp.convert [uri]`` converts an open (or on-disk) book file and applies the result
with ``workspace/applyEdit``; it returns ``{"applied", "sessionId", "losses"}``. Both
replace the whole document (:mod:`pi_lsp.core.book_convert` rewrites every line).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from pi_lsp.core.analysis import Analysis, analyze
from pi_lsp.core.book import CONVERT_COMMAND
from pi_lsp.core.book_convert import Conversion, NotBookError, convert
from pi_lsp.core.files import read_text
from pi_lsp.core.text import Encoding, split_lines, to_units

from .server import PiLanguageServer

log = logging.getLogger("pi_lsp")

TITLE = "Convert to pi v3 session"
CODE = "PI105"

_last: list[tuple[Analysis, Conversion]] = []


def _conversion(a: Analysis, text: str) -> Conversion:
    """Convert ``a``'s document once per analysis (code actions are asked for often)."""
    if _last and _last[0][0] is a:
        return _last[0][1]
    result = convert(text, a.path, a)
    _last[:] = [(a, result)]
    return result


def _whole(lines: list[str], encoding: Encoding) -> types.Range:
    """The range of a whole document."""
    last = len(lines) - 1
    end = types.Position(line=last, character=to_units(lines[last], len(lines[last]), encoding))
    return types.Range(start=types.Position(line=0, character=0), end=end)


def _workspace_edit(
    ls: PiLanguageServer, uri: str, version: int | None, lines: list[str], new_text: str
) -> types.WorkspaceEdit:
    """Replace the whole document: versioned when the client takes document changes."""
    edit = types.TextEdit(range=_whole(lines, ls.encoding), new_text=new_text)
    caps = ls.client_capabilities.workspace
    versioned = bool(caps and caps.workspace_edit and caps.workspace_edit.document_changes)
    if versioned:
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=uri, version=version
                    ),
                    edits=[edit],
                )
            ]
        )
    return types.WorkspaceEdit(changes={uri: [edit]})


def _wants_quickfix(only: Sequence[types.CodeActionKind | str] | None) -> bool:
    if not only:
        return True
    kind = types.CodeActionKind.QuickFix.value
    wanted = (str(getattr(k, "value", k)) for k in only)
    return any(not k or kind == k or kind.startswith(f"{k}.") for k in wanted)


def book_code_actions(
    ls: PiLanguageServer, params: types.CodeActionParams
) -> list[types.CodeAction]:
    """The quick fix "Convert to pi v3 session" for a book-dialect document.

    Offered for the PI105 diagnostic, or when the requested range touches the header.
    """
    doc = ls.document(params.text_document.uri)
    if doc is None or not _wants_quickfix(params.context.only):
        return []
    a = doc.analysis
    if a.fmt != "book" or a.header_line is None:
        return []
    diagnostics = [d for d in params.context.diagnostics if d.code == CODE]
    r = params.range
    if not diagnostics and not r.start.line <= a.header_line <= r.end.line:
        return []
    conversion = _conversion(a, doc.source)
    return [
        types.CodeAction(
            title=TITLE,
            kind=types.CodeActionKind.QuickFix,
            diagnostics=diagnostics or None,
            is_preferred=True,
            edit=_workspace_edit(ls, doc.uri, doc.version, doc.lines, conversion.text),
        )
    ]


def _uri_argument(args: tuple[Any, ...]) -> str:
    first = args[0] if args else None
    if isinstance(first, dict):
        first = first.get("uri")
    if not isinstance(first, str):
        raise JsonRpcInvalidParams.of(ValueError(f"{CONVERT_COMMAND} expects [uri]"))
    return first


async def convert_document(ls: PiLanguageServer, uri: str) -> dict[str, Any]:
    """Convert the book file at ``uri`` and apply it as a workspace edit.

    Uses the open document's text when there is one, else the file on disk.
    """
    doc = ls.document(uri)
    if doc is not None:
        text, a, version, lines = doc.source, doc.analysis, doc.version, doc.lines
    elif uri.startswith("file:") and (path := to_fs_path(uri)) is not None:
        try:
            text = read_text(Path(path))
        except OSError as exc:
            raise JsonRpcInvalidParams.of(ValueError(f"cannot read {path}: {exc}")) from exc
        a, version, lines = analyze(text, path), None, split_lines(text).lines
    else:
        raise JsonRpcInvalidParams.of(ValueError(f"{uri} is not open and not a file"))
    try:
        conversion = convert(text, a.path, a)
    except NotBookError as exc:
        raise JsonRpcInvalidParams.of(ValueError(f"{uri}: {exc}")) from exc
    edit = _workspace_edit(ls, uri, version, lines, conversion.text)
    result = await ls.workspace_apply_edit_async(
        types.ApplyWorkspaceEditParams(edit=edit, label=TITLE)
    )
    losses = [str(loss) for loss in conversion.losses]
    for loss in losses:
        log.info("convert %s: not carried over: %s", uri, loss)
    if result.applied and losses:
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Info,
                message=f"Converted to a pi v3 session; {len(losses)} item(s) had no place in "
                "pi's format (listed in the output log).",
            )
        )
    return {"applied": result.applied, "sessionId": conversion.session_id, "losses": losses}


def register(server: PiLanguageServer) -> None:
    """Register the ``pi-lsp.convert`` command."""

    @server.command(CONVERT_COMMAND)
    async def convert_command(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
        return await convert_document(ls, _uri_argument(args))
