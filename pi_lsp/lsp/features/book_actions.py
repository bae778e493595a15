"""Book-dialect files in the editor: the "Convert to pi v3 session" quick fix and command.

:func:`book_code_actions` answers part of ``textDocument/codeAction`` (the code action
module calls it: pygls allows one handler per method). The command
``pi-lsp.convert [uri]`` converts an open (or on-disk) book file and applies the result
with ``workspace/applyEdit``; it returns ``{"applied", "sessionId", "losses"}``. Both
replace the whole document (:mod:`pi_lsp.core.edits.book_convert` rewrites every line, once
per analysis).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from pi_lsp.core.checks.document import Snapshot
from pi_lsp.core.edits.book_convert import Conversion, NotBookError, conversion
from pi_lsp.core.text.textedit import replace_text

from .. import commands, proto
from ..server import PiLanguageServer, Source

log = logging.getLogger("pi_lsp")

TITLE = "Convert to pi v3 session"
CODE = "PI105"


def _wants_quickfix(only: Sequence[types.CodeActionKind | str] | None) -> bool:
    if not only:
        return True
    kind = types.CodeActionKind.QuickFix.value
    wanted = (str(getattr(k, "value", k)) for k in only)
    return any(not k or kind == k or kind.startswith(f"{k}.") for k in wanted)


def _edit(
    caps: types.ClientCapabilities, frame: proto.Frame, src: Snapshot | Source, result: Conversion
) -> types.WorkspaceEdit:
    """The workspace edit replacing the whole document by its conversion."""
    edits = frame.text_edits([replace_text(src.analysis.text, result.text)])
    return proto.workspace_edit(caps, src.uri, src.version, edits)


def book_code_actions(
    snap: Snapshot,
    frame: proto.Frame,
    params: types.CodeActionParams,
    caps: types.ClientCapabilities,
) -> list[types.CodeAction]:
    """The quick fix "Convert to pi v3 session" for a book-dialect document.

    Offered for the PI105 diagnostic, or when the requested range touches the header.
    """
    a = snap.analysis
    if a.fmt != "book" or a.header_line is None or not _wants_quickfix(params.context.only):
        return []
    diagnostics = [d for d in params.context.diagnostics if d.code == CODE]
    r = params.range
    if not diagnostics and not r.start.line <= a.header_line <= r.end.line:
        return []
    return [
        types.CodeAction(
            title=TITLE,
            kind=types.CodeActionKind.QuickFix,
            diagnostics=diagnostics or None,
            is_preferred=True,
            edit=_edit(caps, frame, snap, conversion(a)),
        )
    ]


def _uri_argument(args: tuple[Any, ...]) -> Any:
    first = args[0] if args else None
    return first.get("uri") if isinstance(first, dict) else first


async def convert_document(ls: PiLanguageServer, uri: Any) -> dict[str, Any]:
    """Convert the book file at ``uri`` (open, else on disk) and apply it as a workspace edit."""
    src = await ls.source(uri)

    def convert() -> Conversion:
        try:
            return conversion(src.analysis)
        except NotBookError as exc:
            raise JsonRpcInvalidParams(f"{src.uri}: {exc}") from exc

    result = await ls.scheduler.compute(convert)
    frame = proto.Frame(src.analysis.lines, ls.encoding)
    applied = await ls.workspace_apply_edit_async(
        types.ApplyWorkspaceEditParams(
            edit=_edit(ls.client_capabilities, frame, src, result), label=TITLE
        )
    )
    losses = [str(loss) for loss in result.losses]
    for loss in losses:
        log.info("convert %s: not carried over: %s", src.uri, loss)
    if applied.applied and losses:
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Info,
                message=f"Converted to a pi v3 session; {len(losses)} item(s) had no place in "
                "pi's format (listed in the output log).",
            )
        )
    return {"applied": applied.applied, "sessionId": result.session_id, "losses": losses}


def register(server: PiLanguageServer) -> None:
    """Register the ``pi-lsp.convert`` command."""

    @server.command(commands.CONVERT)
    async def convert_command(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
        return await convert_document(ls, _uri_argument(args))
