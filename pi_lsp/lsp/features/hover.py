"""Hover: entry summaries, link target previews, schema descriptions of keys, header totals."""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.core.checks.document import Snapshot
from pi_lsp.core.views.hovers import hover_at

from .. import requests
from ..proto import Frame
from ..server import PiLanguageServer


def _markup_kind(ls: PiLanguageServer) -> types.MarkupKind:
    text = ls.client_capabilities.text_document
    formats = text.hover.content_format if text and text.hover else None
    if formats and types.MarkupKind.Markdown not in formats:
        return types.MarkupKind.PlainText
    return types.MarkupKind.Markdown


def register(server: PiLanguageServer) -> None:
    """Register textDocument/hover."""

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: PiLanguageServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        kind = _markup_kind(ls)

        def work(snap: Snapshot, frame: Frame) -> types.Hover | None:
            line, column = requests.at(frame, params.position, uri)
            found = hover_at(snap.analysis, line, column)
            if found is None:
                return None
            return types.Hover(
                contents=types.MarkupContent(kind=kind, value=found.markdown),
                range=frame.range(found.line, *found.span),
            )

        return await requests.on_snapshot(ls, uri, work)
