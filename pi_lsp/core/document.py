"""An open document: its lines, incremental text changes, and its current analysis.

Changes arrive as (range, text) with positions in the client's code units; they are
applied to the core's own line index (never ``str.splitlines``), replacing only the
lines the change touches. The analysis is recomputed lazily, reusing per-line results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .analysis import Analysis, Options, analyze
from .text import Encoding, SplitText, from_units, split_lines, to_units


@dataclass(frozen=True, slots=True)
class Position:
    """A position in code units of some encoding (as sent by a client)."""

    line: int
    character: int


@dataclass(slots=True)
class Document:
    """Text of one document by lines, with a version and a cached analysis."""

    uri: str
    text: SplitText
    version: int | None = None
    path: str | None = None
    options: Options = field(default_factory=Options)
    _analysis: Analysis | None = None
    _stale: bool = True

    @classmethod
    def open(
        cls, uri: str, text: str, version: int | None, path: str | None, options: Options
    ) -> Document:
        """A document from its full text."""
        return cls(uri, split_lines(text), version, path, options)

    @property
    def lines(self) -> list[str]:
        """The lines of the document, without terminators."""
        return self.text.lines

    @property
    def source(self) -> str:
        """The whole text (joins lines; costly on huge documents)."""
        return "".join(a + b for a, b in zip(self.text.lines, self.text.terminators, strict=True))

    def offset(self, pos: Position, encoding: Encoding) -> tuple[int, int]:
        """A client position as ``(line, code-point column)``, clamped into the document."""
        lines = self.text.lines
        if pos.line < 0:
            return 0, 0
        if pos.line >= len(lines):
            return len(lines) - 1, len(lines[-1])
        return pos.line, from_units(lines[pos.line], pos.character, encoding)

    def position(self, line: int, column: int, encoding: Encoding) -> Position:
        """A ``(line, code-point column)`` as a client position."""
        line = min(max(line, 0), len(self.text.lines) - 1)
        return Position(line, to_units(self.text.lines[line], column, encoding))

    def replace_all(self, text: str, version: int | None) -> None:
        """Replace the whole text (full sync)."""
        self.text = split_lines(text)
        self.version = version
        self._stale = True

    def apply_change(
        self, start: Position, end: Position, new_text: str, encoding: Encoding
    ) -> None:
        """Apply one ranged change; only the touched lines are rebuilt."""
        lines = self.text.lines
        terms = self.text.terminators
        sl, sc = self.offset(start, encoding)
        el, ec = self.offset(end, encoding)
        if (el, ec) < (sl, sc):
            sl, sc, el, ec = el, ec, sl, sc
        touches_cr = "\r" in new_text or terms[el] == "\r" or (sl > 0 and terms[sl - 1] == "\r")
        if touches_cr:
            # a lone CR next to the change may join with a LF: re-split the whole text
            head = "".join(a + b for a, b in zip(lines[:sl], terms[:sl], strict=True))
            tail = "".join(a + b for a, b in zip(lines[el + 1 :], terms[el + 1 :], strict=True))
            middle = lines[sl][:sc] + new_text + lines[el][ec:] + terms[el]
            self.text = split_lines(head + middle + tail)
        else:
            piece = split_lines(lines[sl][:sc] + new_text + lines[el][ec:])
            new_terms = [*piece.terminators[:-1], terms[el]]
            self.text = SplitText(
                lines[:sl] + piece.lines + lines[el + 1 :],
                terms[:sl] + new_terms + terms[el + 1 :],
            )
        self._stale = True

    def set_version(self, version: int | None) -> None:
        """Record the client's version after a batch of changes."""
        self.version = version

    def set_options(self, options: Options) -> None:
        """Change analysis options (re-analyses on next use)."""
        if options != self.options:
            self.options = options
            self._stale = True

    @property
    def analysis(self) -> Analysis:
        """The analysis of the current text (recomputed only when stale)."""
        if self._stale or self._analysis is None:
            self._analysis = analyze(self.text, self.path, self.options, self._analysis)
            self._stale = False
        return self._analysis

    @property
    def is_stale(self) -> bool:
        """True when the text changed since the last analysis."""
        return self._stale or self._analysis is None
