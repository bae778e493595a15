"""Rename an entry id or a tool call id with all its references (prepareRename + rename).

prepareRename reads the snapshot; rename edits, so it is computed on the analysis of the
current text and stamped with its version.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from pi_lsp.core.checks.document import Snapshot
from pi_lsp.core.edits.rename import RenameError, prepare_rename, rename

from .. import proto, requests
from ..server import PiLanguageServer


def register(server: PiLanguageServer) -> None:
    """Register textDocument/prepareRename and textDocument/rename."""

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    async def prepare(
        ls: PiLanguageServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        uri = params.text_document.uri

        def work(snap: Snapshot, frame: proto.Frame) -> types.PrepareRenamePlaceholder | None:
            line, column = requests.at(frame, params.position, uri)
            found = prepare_rename(snap.analysis, line, column)
            if found is None:
                return None
            start, end, name = found
            where = frame.range(line, start, end)
            assert where is not None  # the line maps: requests.at checked it
            return types.PrepareRenamePlaceholder(range=where, placeholder=name)

        return await requests.on_snapshot(ls, uri, work)

    @server.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
    async def do_rename(
        ls: PiLanguageServer, params: types.RenameParams
    ) -> types.WorkspaceEdit | None:
        uri = params.text_document.uri
        caps = ls.client_capabilities

        def work(snap: Snapshot, frame: proto.Frame) -> types.WorkspaceEdit | None:
            line, column = requests.at(frame, params.position, uri)
            try:
                edits = rename(snap.analysis, line, column, params.new_name)
            except RenameError as exc:
                # a refused name reaches the user as an error response
                raise JsonRpcException(
                    message=str(exc), code=types.LSPErrorCodes.RequestFailed
                ) from exc
            if not edits:
                return None
            return proto.workspace_edit(caps, uri, snap.version, frame.text_edits(edits))

        return await requests.on_current(ls, uri, work)
