"""Line index over a document: lines end only at ``\\n``, ``\\r\\n`` or ``\\r``.

U+2028, U+2029, U+0085 and other characters that :meth:`str.splitlines` treats as
line breaks are ordinary characters here, as they are to pi. Columns inside the core
are code-point offsets into a line; :func:`to_units` / :func:`from_units` convert them to
and from the UTF-8, UTF-16 or UTF-32 code units a client negotiated.

A document's lines are held compactly (:class:`Lines`): CPython stores a ``str`` at 4
bytes per character once it holds one character above U+FFFF (an emoji), so such a line
is kept as its UTF-8 bytes, and decoded when it is read.
"""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Literal, NamedTuple, overload

Encoding = Literal["utf-8", "utf-16", "utf-32"]

_BREAK = re.compile(r"\r\n|\r|\n")

Stored = str | bytes
"""A line as :class:`Lines` holds it: the ``str``, or its UTF-8 bytes (:func:`pack`)."""

_ASTRAL = (b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")
"""The bytes that start the UTF-8 of a character above U+FFFF."""


def pack(text: str, utf8: bytes | None = None) -> Stored:
    """``text`` as :class:`Lines` stores it: its UTF-8 bytes when they take less memory
    than the ``str``, else the ``str``.

    CPython stores a ``str`` at 1, 2 or 4 bytes a character, by its widest character. At 1
    (ASCII, Latin-1) UTF-8 is never shorter; at 4 (a character above U+FFFF, an emoji) it
    is never longer; at 2 it is kept when shorter. The choice depends on the text alone
    (not on ``sys.getsizeof``, which counts a UTF-8 copy a ``str`` may cache), so two lines
    are equal exactly when their stored items are. Lone surrogates survive
    (``surrogatepass``). ``utf8`` is the text's UTF-8 when the caller has it (the bytes it
    was strictly decoded from): then it is kept as it is, not made again.
    """
    if text.isascii() or _latin1(text):
        return text
    data = utf8 if utf8 is not None else text.encode("utf-8", "surrogatepass")
    if len(data) < 2 * len(text) or any(lead in data for lead in _ASTRAL):
        return data
    return text


def _latin1(text: str) -> bool:
    """Whether every character of ``text`` is below U+0100."""
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


def unpack(item: Stored) -> str:
    """The text of a stored line (see :func:`pack`)."""
    return item if isinstance(item, str) else item.decode("utf-8", "surrogatepass")


_SURROGATE = re.compile(rb"\xed[\xa0-\xbf]")
"""How the ``surrogatepass`` UTF-8 of a lone surrogate (U+D800-U+DFFF) starts; ``0xED``
followed by ``0x80``-``0x9F`` is a character U+D000-U+D7FF (many Hangul syllables)."""


def utf8_of(item: Stored) -> bytes | None:
    """The UTF-8 of a stored line when it is stored as bytes holding no lone surrogate,
    else None: such bytes are the line's UTF-8 as ``str.encode`` gives it, with no need to
    decode or encode it again."""
    return item if isinstance(item, bytes) and not has_surrogate(item) else None


def plain(item: Stored) -> Stored:
    """A stored line as orjson and the line checks read it: the stored item itself, but a
    line stored as UTF-8 with a lone surrogate, which is decoded (see :func:`utf8_of`)."""
    return item if isinstance(item, str) or not has_surrogate(item) else unpack(item)


def has_surrogate(data: bytes) -> bool:
    """Whether ``data``, stored UTF-8 (``surrogatepass``), holds a lone surrogate."""
    return b"\xed" in data and _SURROGATE.search(data) is not None


def identical_ends(a: list[Any], b: list[Any]) -> tuple[int, int]:
    """How many items at the start, and then at the end, of ``a`` are the very objects of
    ``b`` (C-level passes). The two counts never overlap in the shorter of the two."""
    n = min(len(a), len(b))
    head = next(itertools.compress(itertools.count(), map(operator.is_not, a, b)), n)
    tail = next(
        itertools.compress(itertools.count(), map(operator.is_not, reversed(a), reversed(b))),
        n,
    )
    return head, min(tail, n - head)


class Lines(Sequence[str]):
    """A document's lines, each stored as :func:`pack` makes it; never changed once made.

    Reading a line (``lines[i]``, iteration) gives its ``str``, decoded from bytes if need
    be; a slice or a sum of two is a ``Lines`` of the same stored items. Code that must not
    decode every line works on the stored items: :meth:`raw`, :meth:`iter_raw` and
    :meth:`from_raw`. Lines equal another ``Lines`` when their stored items are equal, and
    a ``list`` of texts when they hold those texts.
    """

    __slots__ = ("_items",)

    _items: list[Stored]

    def __init__(self, texts: Iterable[str] = ()) -> None:
        # most lines are ASCII: tested here, without a call of pack for each
        self._items = [text if text.isascii() else pack(text) for text in texts]

    @classmethod
    def from_raw(cls, items: Iterable[Stored]) -> Lines:
        """Lines of stored items, as :meth:`raw` gives them (kept as they are, never packed
        again)."""
        return cls._of(list(items))

    @classmethod
    def _of(cls, items: list[Stored]) -> Lines:
        lines = cls.__new__(cls)
        lines._items = items
        return lines

    def raw(self, index: int) -> Stored:
        """The stored item of line ``index`` (not decoded)."""
        return self._items[index]

    def iter_raw(self) -> Iterator[Stored]:
        """The stored items, in order (not decoded)."""
        return iter(self._items)

    def same_ends(self, other: Lines) -> tuple[int, int]:
        """:func:`identical_ends` of the stored items (a document's edit keeps the objects
        it does not touch)."""
        return identical_ends(self._items, other._items)

    def count_raw(self, item: Stored) -> int:
        """How many lines are stored as ``item`` (equal, not decoded)."""
        return self._items.count(item)

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Lines: ...

    def __getitem__(self, index: int | slice) -> str | Lines:
        if isinstance(index, slice):
            return Lines._of(self._items[index])
        return unpack(self._items[index])

    def __iter__(self) -> Iterator[str]:
        return map(unpack, self._items)

    def __add__(self, other: Lines) -> Lines:
        return Lines._of(self._items + other._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Lines):
            return self._items == other._items
        if isinstance(other, list):
            return len(self._items) == len(other) and all(
                a == b for a, b in zip(self, other, strict=True)
            )
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self._items))

    def __repr__(self) -> str:
        return f"Lines({list(self)!r})"


class SplitText(NamedTuple):
    """A document split into lines, each without its terminator.

    ``terminators[i]`` is the terminator after line ``i`` (``""`` for the last line).
    """

    lines: Lines
    terminators: list[str]

    @classmethod
    def at_feeds(cls, lines: Lines) -> SplitText:
        """``lines`` as a text split at line feeds only (each ends with one but the last)."""
        return cls(lines, ["\n"] * (len(lines) - 1) + [""])

    def join(self) -> str:
        """The whole text (costly on huge documents)."""
        return "".join(a + b for a, b in zip(self.lines, self.terminators, strict=True))


def split_lines(text: str) -> SplitText:
    """Split ``text`` into lines at ``\\n``, ``\\r\\n`` and ``\\r`` only.

    A text ending with a terminator yields a final empty line, so positions just past
    the last newline stay addressable (as in LSP).
    """
    if "\r" not in text:
        # each line is stored as it is cut out, not all cut first: the lines of a text with
        # an emoji would all be 4 bytes a character until stored
        lines = Lines(text.split("\n") if text.isascii() else _cut_lines(text))
        return SplitText.at_feeds(lines)
    texts = []
    terms = []
    pos = 0
    for m in _BREAK.finditer(text):
        texts.append(text[pos : m.start()])
        terms.append(m.group())
        pos = m.end()
    texts.append(text[pos:])
    terms.append("")
    return SplitText(Lines(texts), terms)


def _cut_lines(text: str) -> Iterator[str]:
    """The lines of a text without ``\r``, one at a time."""
    pos = 0
    while (end := text.find("\n", pos)) >= 0:
        yield text[pos:end]
        pos = end + 1
    yield text[pos:]


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


def clamp(lines: Sequence[str], line: int, offset: int, encoding: Encoding) -> tuple[int, int]:
    """A position in code units as ``(line, code-point column)``, clamped into ``lines``.

    Before the first line is the start of the text; past the last line is its end.
    """
    if line < 0:
        return 0, 0
    if line >= len(lines):
        return len(lines) - 1, len(lines[-1])
    return line, from_units(lines[line], offset, encoding)
