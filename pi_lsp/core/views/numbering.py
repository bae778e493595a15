"""Line numbers as people read them: 1-based, in the text they are looking at.

A view is computed from an analysis, whose line ``n`` is usually line ``n + 1`` of the
text on screen. A server answering from the analysis of an older text (a snapshot during
a re-analysis) renders its views inside :func:`numbered`, with the map from the
analysis's lines to the text's, so "line 5000" still names the line the reader sees.
Every view writes a line number with :func:`shown`. Views memoised per analysis
(:mod:`pi_lsp.core.entries.memo`) hold no rendered line numbers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar

LineMapper = Callable[[int], int | None]

_mapper: ContextVar[LineMapper | None] = ContextVar("pi_lsp_line_mapper", default=None)


def shown(line: int) -> int:
    """The 1-based number, in the text being read, of the analysis's 0-based ``line``.

    A line edited since the analysis keeps its old number (it has no new one yet).
    """
    mapper = _mapper.get()
    moved = mapper(line) if mapper is not None else None
    return (line if moved is None else moved) + 1


@contextlib.contextmanager
def numbered(mapper: LineMapper | None) -> Iterator[None]:
    """Render line numbers through ``mapper`` (analysis line to text line) in this block."""
    token = _mapper.set(mapper)
    try:
        yield
    finally:
        _mapper.reset(token)
