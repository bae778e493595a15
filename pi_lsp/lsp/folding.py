"""Folding ranges by turn (a user message and what follows it on its branch)."""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.core.folding import turn_folds

from . import lookup
from .safety import isolated
from .server import PiLanguageServer


def register(server: PiLanguageServer) -> None:
    """Register textDocument/foldingRange."""

    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    @isolated()
    def folding_ranges(
        ls: PiLanguageServer, params: types.FoldingRangeParams
    ) -> list[types.FoldingRange] | None:
        found = lookup.document(ls, params.text_document.uri)
        if found is None:
            return None
        _, a = found
        text = ls.client_capabilities.text_document
        limit = text.folding_range.range_limit if text and text.folding_range else None
        folds = turn_folds(a)
        return [
            types.FoldingRange(
                start_line=fold.start,
                end_line=fold.end,
                kind=types.FoldingRangeKind.Region,
                collapsed_text=fold.title,
            )
            for fold in (folds[:limit] if limit else folds)
        ]
