"""Inlay hints: the line a link points at (parents only where not the previous entry)."""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.core.checks.document import Snapshot
from pi_lsp.core.views.inlay import link_hints

from .. import requests
from ..proto import Frame
from ..server import PiLanguageServer


def register(server: PiLanguageServer) -> None:
    """Register textDocument/inlayHint."""

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    async def inlay_hints(
        ls: PiLanguageServer, params: types.InlayHintParams
    ) -> list[types.InlayHint] | None:
        wanted = params.range

        def work(snap: Snapshot, frame: Frame) -> list[types.InlayHint]:
            lines = frame.lines_within(wanted.start.line, wanted.end.line)
            if lines is None:
                return []
            return [
                types.InlayHint(position=where, label=h.label, tooltip=h.tooltip, padding_left=True)
                for h in link_hints(snap.analysis, *lines)
                if (where := frame.position(h.line, h.column)) is not None
            ]

        return await requests.on_snapshot(ls, params.text_document.uri, work)
