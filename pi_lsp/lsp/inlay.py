"""Inlay hints: the line a link points at (parents only where not the previous entry)."""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.core.inlay import link_hints

from . import lookup
from .safety import isolated
from .server import PiLanguageServer


def register(server: PiLanguageServer) -> None:
    """Register textDocument/inlayHint."""

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    @isolated()
    def inlay_hints(
        ls: PiLanguageServer, params: types.InlayHintParams
    ) -> list[types.InlayHint] | None:
        found = lookup.document(ls, params.text_document.uri)
        if found is None:
            return None
        _, a = found
        hints = link_hints(a, params.range.start.line, params.range.end.line)
        return [
            types.InlayHint(
                position=lookup.span_range(ls, a.lines, h.line, h.column, h.column).start,
                label=h.label,
                tooltip=h.tooltip,
                padding_left=True,
            )
            for h in hints
        ]
