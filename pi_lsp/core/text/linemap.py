"""Where the lines of an older text went: a map between the lines of two versions.

A document changes by line edits: ``removed`` lines starting at ``first`` are replaced by
``added`` new ones (in the coordinates of the text before that edit). A :class:`LineMap`
folds any number of such edits into the lines that survived all of them, as segments,
so that a request on the newest text can be answered from the analysis of an older one:
an unchanged line maps both ways, a line written (or rewritten) since maps to nothing.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LineChange:
    """``removed`` lines from ``first`` replaced by ``added`` lines."""

    first: int
    removed: int
    added: int


@dataclass(frozen=True, slots=True)
class LineMap:
    """Lines kept from an old text, as ``(new_start, old_start, length)`` runs in order."""

    runs: tuple[tuple[int, int, int], ...]

    @classmethod
    def identity(cls, lines: int) -> LineMap:
        """The map of a text onto itself."""
        return cls(((0, 0, lines),) if lines > 0 else ())

    def then(self, edit: LineChange) -> LineMap:
        """This map followed by ``edit`` (which is in the coordinates of the new text)."""
        end = edit.first + edit.removed
        shift = edit.added - edit.removed
        runs: list[tuple[int, int, int]] = []
        for new, old, length in self.runs:
            if new < edit.first:
                runs.append((new, old, min(length, edit.first - new)))
            tail = max(new, end)
            if tail < new + length:
                runs.append((tail + shift, old + tail - new, new + length - tail))
        return LineMap(tuple(runs))

    def to_old(self, line: int) -> int | None:
        """The old line that ``line`` of the new text is, or None when it was written since."""
        at = bisect.bisect_right(self.runs, (line, math.inf)) - 1
        if at < 0:
            return None
        new, old, length = self.runs[at]
        return old + line - new if line < new + length else None

    def to_new(self, line: int) -> int | None:
        """Where ``line`` of the old text is now, or None when it was edited away."""
        at = bisect.bisect_right(self.runs, line, key=lambda run: run[1]) - 1
        if at < 0:
            return None
        new, old, length = self.runs[at]
        return new + line - old if line < old + length else None
