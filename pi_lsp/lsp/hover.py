"""Hover: entry summaries, link target previews, schema descriptions of keys, header totals."""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.core.hovers import hover_at

from . import lookup
from .safety import isolated
from .server import PiLanguageServer


def _markup_kind(ls: PiLanguageServer) -> types.MarkupKind:
    text = ls.client_capabilities.text_document
    formats = text.hover.content_format if text and text.hover else None
    if formats and types.MarkupKind.Markdown not in formats:
        return types.MarkupKind.PlainText
    return types.MarkupKind.Markdown


def register(server: PiLanguageServer) -> None:
    """Register textDocument/hover."""

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @isolated()
    def hover(ls: PiLanguageServer, params: types.HoverParams) -> types.Hover | None:
        where = lookup.at(ls, params.text_document.uri, params.position)
        if where is None:
            return None
        found = hover_at(where.analysis, where.line, where.column)
        if found is None:
            return None
        return types.Hover(
            contents=types.MarkupContent(kind=_markup_kind(ls), value=found.markdown),
            range=lookup.span_range(ls, where.doc.lines, found.line, *found.span),
        )
