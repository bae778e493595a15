"""Selection ranges inside a line: value, member, enclosing objects, the whole line."""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.core.selection import selection_spans

from . import convert, lookup
from .safety import isolated
from .server import PiLanguageServer


def register(server: PiLanguageServer) -> None:
    """Register textDocument/selectionRange."""

    @server.feature(types.TEXT_DOCUMENT_SELECTION_RANGE)
    @isolated()
    def selection_ranges(
        ls: PiLanguageServer, params: types.SelectionRangeParams
    ) -> list[types.SelectionRange] | None:
        found = lookup.document(ls, params.text_document.uri)
        if found is None:
            return None
        doc, a = found
        out = []
        for position in params.positions:
            line, column = convert.from_position(doc, position, ls.encoding)
            spans = selection_spans(a, line, column) or [(column, column)]
            current: types.SelectionRange | None = None
            for start, end in reversed(spans):
                current = types.SelectionRange(
                    range=lookup.span_range(ls, a.lines, line, start, end), parent=current
                )
            assert current is not None
            out.append(current)
        return out
