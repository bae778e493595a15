"""Selection ranges inside a line: value, member, enclosing objects, the whole line."""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.core.checks.document import Snapshot
from pi_lsp.core.views.selection import selection_spans

from .. import requests
from ..proto import Frame
from ..server import PiLanguageServer


def register(server: PiLanguageServer) -> None:
    """Register textDocument/selectionRange."""

    @server.feature(types.TEXT_DOCUMENT_SELECTION_RANGE)
    async def selection_ranges(
        ls: PiLanguageServer, params: types.SelectionRangeParams
    ) -> list[types.SelectionRange] | None:
        uri = params.text_document.uri

        def work(snap: Snapshot, frame: Frame) -> list[types.SelectionRange]:
            out = []
            for position in params.positions:
                line, column = requests.at(frame, position, uri)
                spans = selection_spans(snap.analysis, line, column) or [(column, column)]
                current: types.SelectionRange | None = None
                for start, end in reversed(spans):
                    where = frame.range(line, start, end)
                    assert where is not None  # the line maps: requests.at checked it
                    current = types.SelectionRange(range=where, parent=current)
                assert current is not None
                out.append(current)
            return out

        return await requests.on_snapshot(ls, uri, work)
