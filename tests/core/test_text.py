"""The line index: lines end only at \\n, \\r\\n and \\r; columns convert between encodings."""

from __future__ import annotations

import sys

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pi_lsp.core.text.lineindex import (
    Lines,
    from_units,
    has_surrogate,
    pack,
    split_lines,
    to_units,
    units,
    unpack,
    utf8_of,
)

# ----------------------------------------------------------------------------- split_lines


@pytest.mark.parametrize(
    ("text", "lines", "terminators"),
    [
        ("", [""], [""]),
        ("a", ["a"], [""]),
        ("a\n", ["a", ""], ["\n", ""]),
        ("a\nb", ["a", "b"], ["\n", ""]),
        ("a\r\nb\r\n", ["a", "b", ""], ["\r\n", "\r\n", ""]),
        ("a\rb\r", ["a", "b", ""], ["\r", "\r", ""]),
        ("a\n\nb", ["a", "", "b"], ["\n", "\n", ""]),
        ("a\r\rb", ["a", "", "b"], ["\r", "\r", ""]),
        ("a\r\n\r\nb", ["a", "", "b"], ["\r\n", "\r\n", ""]),
        # \n\r is two terminators (a \n, then a lone \r), not one
        ("a\n\rb", ["a", "", "b"], ["\n", "\r", ""]),
        ("a\r\n\rb\nc", ["a", "", "b", "c"], ["\r\n", "\r", "\n", ""]),
        ("\n", ["", ""], ["\n", ""]),
        ("\r", ["", ""], ["\r", ""]),
        ("\r\n", ["", ""], ["\r\n", ""]),
    ],
)
def test_split_lines(text: str, lines: list[str], terminators: list[str]) -> None:
    split = split_lines(text)
    assert split.lines == lines
    assert split.terminators == terminators
    # the text is exactly the lines and their terminators
    assert (
        "".join(line + term for line, term in zip(split.lines, split.terminators, strict=True))
        == text
    )


@pytest.mark.parametrize(
    "ch",
    ["\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"],
    ids=lambda c: f"U+{ord(c):04X}",
)
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_unicode_breaks_are_ordinary_characters(ch: str, newline: str) -> None:
    line = f'{{"text":"one{ch}two"}}'
    text = newline.join([line, line, ""])
    assert len(text.splitlines()) > 2  # str.splitlines would break there
    assert split_lines(text).lines == [line, line, ""]


def test_split_large_text_keeps_every_line() -> None:
    lines = [f'{{"n":{i}}}' for i in range(10_000)]
    for newline in ("\n", "\r\n", "\r"):
        assert split_lines(newline.join(lines)).lines == lines


# ----------------------------------------------------------------------------- Lines

ASTRAL = '{"type":"message","text":"' + "ship it 🚀 " * 40 + '"}'
"""A line with characters above U+FFFF: 4 bytes a character as a str, about 1 in UTF-8."""

TEXTS = {
    "ascii": '{"type":"message"}',
    "empty": "",
    "latin-1": '{"text":"café, naïve"}',
    "bmp": "日本語のテキスト",
    "bmp-in-ascii": '{"text":"one — two"}',
    "astral": ASTRAL,
    "lone-surrogate": '{"text":"\ud800"}' + "\ud800",
    "undecodable-byte": "a\udcffb",  # a byte that was not UTF-8 (surrogateescape)
    "surrogates-of-a-pair": "\ud83d\ude00",  # two lone surrogates, not one 😀
    "line-separator": '{"text":"a\u2028b"}',
}

STORED = {
    "ascii": str,
    "empty": str,
    "latin-1": str,
    "bmp": str,  # 3 bytes a character in UTF-8, 2 in the str
    "bmp-in-ascii": bytes,  # the str takes 2 bytes a character for one dash
    "astral": bytes,
    "lone-surrogate": bytes,
    "undecodable-byte": bytes,
    "surrogates-of-a-pair": str,  # two BMP code points: 2 bytes each in the str, 3 in UTF-8
    "line-separator": bytes,
}


@pytest.mark.parametrize("name", list(TEXTS))
def test_a_line_round_trips_and_is_stored_as_the_smaller_form(name: str) -> None:
    text = TEXTS[name]
    lines = Lines([text, "x", text])
    assert lines[0] == text and lines[2] == text and lines[-1] == text
    assert list(lines) == [text, "x", text]
    assert type(lines.raw(0)) is STORED[name]
    assert unpack(pack(text)) == text and pack(text) == lines.raw(0)
    assert Lines.from_raw(lines.iter_raw()) == lines


# any character but a line break, lone surrogates included
@given(st.lists(st.text(st.characters(exclude_categories=(), exclude_characters="\r\n"))))
def test_lines_hold_any_texts_and_compare_as_their_texts(texts: list[str]) -> None:
    lines = Lines(texts)
    assert list(lines) == texts and lines == texts and len(lines) == len(texts)
    for a in texts[:4]:
        for b in texts[:4]:
            assert (pack(a) == pack(b)) == (a == b)


def test_how_a_line_is_stored_depends_on_its_text_alone() -> None:
    """``sys.getsizeof`` counts the UTF-8 copy a str caches once a C extension asked for
    it (orjson.loads does): the same text must still be stored the same way."""
    for text in ('"' + "é" * 10 + '"', '"' + "— é" * 10 + '"', '"' + "日" * 10 + '"'):
        fresh, cached = "".join(["", text]), text.encode().decode()
        orjson.loads(cached)
        assert sys.getsizeof(cached) > sys.getsizeof(fresh) and pack(cached) == pack(fresh)
        assert Lines([cached]) == Lines([fresh])


def test_astral_lines_are_held_at_about_their_utf8_size() -> None:
    texts = [ASTRAL.replace("ship", f"ship {n}") for n in range(200)]
    lines = Lines(texts)
    utf8 = sum(len(t.encode()) for t in texts)
    held = sum(map(sys.getsizeof, lines.iter_raw()))
    as_str = sum(map(sys.getsizeof, texts))
    assert held < utf8 + 40 * len(texts)  # a bytes object's header, and no more
    assert as_str > 3 * utf8  # what the str would take
    assert sum(map(sys.getsizeof, split_lines("\n".join(texts)).lines.iter_raw())) == held


def test_slices_and_sums_share_the_stored_lines() -> None:
    lines = Lines(["a", ASTRAL, "b", ASTRAL + "!"])
    part = lines[1:3]
    assert isinstance(part, Lines) and part == [ASTRAL, "b"]
    assert part.raw(0) is lines.raw(1)
    assert lines[::2] == ["a", "b"] and lines[-1] == ASTRAL + "!"
    assert lines[5:] == [] and len(lines[:0]) == 0
    joined = lines[:1] + lines[3:]
    assert isinstance(joined, Lines) and joined == ["a", ASTRAL + "!"]
    assert joined.raw(1) is lines.raw(3)
    with pytest.raises(IndexError):
        lines[4]
    with pytest.raises(IndexError):
        lines.raw(-5)


def test_lines_equal_lines_and_lists_of_the_same_texts() -> None:
    lines = Lines(["a", ASTRAL, ""])
    same = split_lines(f"a\n{ASTRAL}\n")
    assert lines == same.lines and hash(lines) == hash(same.lines)
    assert lines == ["a", ASTRAL, ""]
    assert lines != ["a", ASTRAL + " ", ""] and lines != ["a", ASTRAL]
    assert lines != Lines(["a", ASTRAL]) and lines != Lines(["a", ASTRAL + " ", ""])
    assert lines != ("a", ASTRAL, "") and lines != "a"  # only a list of texts, or Lines
    assert Lines() == [] and Lines() == Lines([])


def test_split_lines_stores_each_line_compactly() -> None:
    for newline in ("\n", "\r\n", "\r"):
        split = split_lines(newline.join(["a", ASTRAL, "é"]))
        assert split.lines == ["a", ASTRAL, "é"]
        assert [type(item) for item in split.lines.iter_raw()] == [str, bytes, str]
        assert split.join() == newline.join(["a", ASTRAL, "é"])


# ----------------------------------------------------------------------------- units


LINE = "a😀é日\U0001f680b"  # ASCII, astral, 2-byte, 3-byte, astral, ASCII
EDGES = "\x7f\x80\u07ff\u0800\uffff\U00010000a"  # last and first code points of each width


@pytest.mark.parametrize(
    ("s", "utf8", "utf16", "utf32"),
    [
        ("", 0, 0, 0),
        ("abc", 3, 3, 3),
        ("é", 2, 1, 1),
        ("日", 3, 1, 1),
        ("😀", 4, 2, 1),
        (LINE, 1 + 4 + 2 + 3 + 4 + 1, 1 + 2 + 1 + 1 + 2 + 1, 6),
        ("\u2028", 3, 1, 1),
        ("\udcff", 3, 1, 1),  # a byte that was not UTF-8 (surrogateescape) counts as one unit
    ],
)
def test_units(s: str, utf8: int, utf16: int, utf32: int) -> None:
    assert units(s, "utf-8") == utf8
    assert units(s, "utf-16") == utf16
    assert units(s, "utf-32") == utf32


def test_units_are_whole_numbers() -> None:
    """Positions go to the client as JSON integers (LSP ``uinteger``), never as 2.0."""
    for encoding in ("utf-8", "utf-16", "utf-32"):
        assert type(units(LINE, encoding)) is int  # type: ignore[arg-type]
        assert type(to_units(LINE, 3, encoding)) is int  # type: ignore[arg-type]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
@pytest.mark.parametrize(
    ("line", "column"), [(s, c) for s in (LINE, EDGES) for c in range(len(s) + 1)]
)
def test_to_and_from_units_round_trip(encoding: str, line: str, column: int) -> None:
    codec = {"utf-8": "utf-8", "utf-16": "utf-16-le", "utf-32": "utf-32-le"}[encoding]
    width = {"utf-8": 1, "utf-16": 2, "utf-32": 4}[encoding]
    offset = to_units(line, column, encoding)  # type: ignore[arg-type]
    assert offset == len(line[:column].encode(codec)) // width
    assert from_units(line, offset, encoding) == column  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("encoding", "offset", "column"),
    [
        # inside the surrogate pair of 😀 (UTF-16 units 1-2): the start of that character
        ("utf-16", 2, 1),
        # inside the 4 UTF-8 bytes of 😀 (bytes 1-4)
        ("utf-8", 2, 1),
        ("utf-8", 3, 1),
        ("utf-8", 4, 1),
        # inside é (bytes 5-6) and 日 (bytes 7-9)
        ("utf-8", 6, 2),
        ("utf-8", 8, 3),
        ("utf-8", 9, 3),
    ],
)
def test_from_units_inside_a_character(encoding: str, offset: int, column: int) -> None:
    assert from_units(LINE, offset, encoding) == column  # type: ignore[arg-type]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_clamping(encoding: str) -> None:
    end_units = units(LINE, encoding)  # type: ignore[arg-type]
    assert to_units(LINE, -5, encoding) == 0  # type: ignore[arg-type]
    assert to_units(LINE, 999, encoding) == end_units  # type: ignore[arg-type]
    assert from_units(LINE, -5, encoding) == 0  # type: ignore[arg-type]
    assert from_units(LINE, 999, encoding) == len(LINE)  # type: ignore[arg-type]
    assert from_units(LINE, end_units, encoding) == len(LINE)  # type: ignore[arg-type]
    assert from_units("", 3, encoding) == 0  # type: ignore[arg-type]
    assert to_units("", 3, encoding) == 0  # type: ignore[arg-type]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_ascii_fast_path(encoding: str) -> None:
    line = '{"type":"message"}'
    for col in range(len(line) + 1):
        assert to_units(line, col, encoding) == col  # type: ignore[arg-type]
        assert from_units(line, col, encoding) == col  # type: ignore[arg-type]


def test_same_ends_counts_the_very_objects_at_both_ends() -> None:
    old = Lines(["h", "a", "b", "c", "z"])
    assert Lines.from_raw(old.iter_raw()).same_ends(old) == (5, 0)  # ends never overlap
    edited = old[:2] + Lines(["B"]) + old[3:]
    assert edited.same_ends(old) == (2, 2)
    grown = old[:3] + Lines(["x", "y"]) + old[3:]
    assert grown.same_ends(old) == (3, 2)
    assert old.same_ends(grown) == (3, 2)
    assert (old[:1] + old[4:]).same_ends(old) == (1, 1)
    # an equal text that is another object is no part of either end (an edit keeps objects)
    texts = ["".join(["line ", str(n)]) for n in range(3)]
    again = Lines(["".join(["line ", str(n)]) for n in range(3)])
    assert again == Lines(texts)
    assert again.same_ends(Lines(texts)) == (0, 0)
    assert old.count_raw("a") == 1 and (old + old).count_raw("a") == 2


@given(st.text(alphabet=st.characters(min_codepoint=0xA0, max_codepoint=0xE000)))
def test_has_surrogate_finds_exactly_the_lone_surrogates(text: str) -> None:
    # U+D000-U+D7FF (Hangul) share the lead byte 0xED with the surrogates U+D800-U+DFFF
    data = text.encode("utf-8", "surrogatepass")
    assert has_surrogate(data) == any(0xD800 <= ord(c) <= 0xDFFF for c in text)
    assert (utf8_of(data) is not None) == (not has_surrogate(data))
    assert not has_surrogate("한국어 해".encode())
    assert has_surrogate("한\udc80".encode("utf-8", "surrogatepass"))
