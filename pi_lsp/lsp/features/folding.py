"""Folding ranges by turn (a user message and what follows it on its branch)."""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.core.checks.document import Snapshot
from pi_lsp.core.views.folding import turn_folds

from .. import requests
from ..proto import Frame
from ..server import PiLanguageServer


def register(server: PiLanguageServer) -> None:
    """Register textDocument/foldingRange."""

    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    async def folding_ranges(
        ls: PiLanguageServer, params: types.FoldingRangeParams
    ) -> list[types.FoldingRange] | None:
        text = ls.client_capabilities.text_document
        limit = text.folding_range.range_limit if text and text.folding_range else None

        def work(snap: Snapshot, frame: Frame) -> list[types.FoldingRange]:
            out = []
            for fold in turn_folds(snap.analysis):
                start, end = frame.line(fold.start), frame.line(fold.end)
                if start is None or end is None:
                    continue
                out.append(
                    types.FoldingRange(
                        start_line=start,
                        end_line=end,
                        kind=types.FoldingRangeKind.Region,
                        collapsed_text=fold.title,
                    )
                )
                if limit and len(out) == limit:
                    break
            return out

        return await requests.on_snapshot(ls, params.text_document.uri, work)
