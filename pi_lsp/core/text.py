"""Line index over a document: lines end only at ``\\n``, ``\\r\\n`` or ``\\r``.

U+2028, U+2029, U+0085 and other characters that :meth:`str.splitlines` treats as
line breaks are ordinary characters here, as they are to pi. Columns inside the core
are code-point offsets into a line; :func:`to_units` / :func:`from_units` convert them to
and from the UTF-8, UTF-16 or UTF-32 code units a client negotiated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Encoding = Literal["utf-8", "utf-16", "utf-32"]

_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class SplitText:
    """A document split into lines, each without its terminator.

    ``terminators[i]`` is the terminator after line ``i`` (``""`` for the last line).
    """

    lines: list[str]
    terminators: list[str]

    def join(self) -> str:
        """The whole text (costly on huge documents)."""
        return "".join(a + b for a, b in zip(self.lines, self.terminators, strict=True))


def split_lines(text: str) -> SplitText:
    """Split ``text`` into lines at ``\\n``, ``\\r\\n`` and ``\\r`` only.

    A text ending with a terminator yields a final empty line, so positions just past
    the last newline stay addressable (as in LSP).
    """
    if "\r" not in text:
        lines = text.split("\n")
        terms = ["\n"] * (len(lines) - 1) + [""]
        return SplitText(lines, terms)
    lines = []
    terms = []
    pos = 0
    for m in _BREAK.finditer(text):
        lines.append(text[pos : m.start()])
        terms.append(m.group())
        pos = m.end()
    lines.append(text[pos:])
    terms.append("")
    return SplitText(lines, terms)


def units(s: str, encoding: Encoding) -> int:
    """Length of ``s`` in code units of ``encoding``."""
    if encoding == "utf-32" or s.isascii():
        return len(s)
    if encoding == "utf-16":
        return len(s.encode("utf-16-le", "surrogatepass")) // 2
    return len(s.encode("utf-8", "surrogatepass"))


def to_units(line: str, column: int, encoding: Encoding) -> int:
    """Convert a code-point column in ``line`` to code units of ``encoding``."""
    return units(line[: max(0, column)], encoding)


def from_units(line: str, offset: int, encoding: Encoding) -> int:
    """Convert a code-unit offset in ``line`` to a code-point column (clamped to the line).

    An offset that falls inside a character (the middle of a surrogate pair or of a
    UTF-8 sequence) maps to the start of that character.
    """
    if encoding == "utf-32" or line.isascii():
        return max(0, min(offset, len(line)))
    if units(line, encoding) <= offset:
        return len(line)
    count = 0
    for i, ch in enumerate(line):
        cp = ord(ch)
        if encoding == "utf-16":
            width = 2 if cp > 0xFFFF else 1
        else:
            width = 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4
        if count + width > offset:
            return i
        count += width
    return len(line)


def clamp(lines: list[str], line: int, offset: int, encoding: Encoding) -> tuple[int, int]:
    """A position in code units as ``(line, code-point column)``, clamped into ``lines``.

    Before the first line is the start of the text; past the last line is its end.
    """
    if line < 0:
        return 0, 0
    if line >= len(lines):
        return len(lines) - 1, len(lines[-1])
    return line, from_units(lines[line], offset, encoding)
