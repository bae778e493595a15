"""PI500 graded by pi's loader limits (core/text/limits.py), and the heaviest entries in the
header's hover and code lens."""

from __future__ import annotations

import json

import pytest

from pi_lsp.core.checks import sizes
from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.model import Options
from pi_lsp.core.text import limits
from pi_lsp.core.text.findings import Severity
from pi_lsp.core.text.lineindex import pack
from pi_lsp.core.views.hovers import heaviest_text, hover_at
from pi_lsp.core.views.lens import code_lenses
from pi_lsp.core.views.numbering import numbered

from .pi_sessions import TS, assistant, doc, header, user

A, B, C = (c * 8 for c in "abc")


def image_entry(ident: str, parent: str, size: int, images: int = 1) -> str:
    blocks = [{"type": "image", "data": "A" * size, "mimeType": "image/png"}] * images
    obj = {
        "type": "message",
        "id": ident,
        "parentId": parent,
        "timestamp": TS,
        "message": {"role": "user", "content": blocks, "timestamp": 1},
    }
    return json.dumps(obj, separators=(",", ":"))


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limits scaled down by 2**20: 64 B is slow, 512 B is pi 1.6's line limit."""
    monkeypatch.setattr(limits, "SLOW_LINE", 64 * 1024)
    monkeypatch.setattr(limits, "PI16_MAX_LINE", 512 * 1024)
    monkeypatch.setattr(limits, "PI073_MAX_FILE", 512 * 1024)
    monkeypatch.setattr(limits, "NEAR_FILE", 384 * 1024)


def test_v8_limit_and_pi_limits() -> None:
    assert limits.V8_MAX_STRING == 536_870_888
    assert limits.PI073_MAX_FILE == 536_870_887 and limits.PI16_MAX_LINE == 536_870_888


@pytest.mark.parametrize(
    "size, severity",
    [
        (1000, None),
        (2000, Severity.INFORMATION),
        (64 * 1024, Severity.WARNING),
        (512 * 1024 + 1, Severity.ERROR),
    ],
)
def test_line_grades(small_limits: None, size: int, severity: Severity | None) -> None:
    found = limits.line_size("A" * size, 1024)
    assert (found[0] if found else None) == severity


def test_line_limit_counts_utf16_units(small_limits: None) -> None:
    # 300 K astral characters: 1.2 MB of UTF-8, 600 K UTF-16 units (over), 300 K code points
    found = limits.line_size("😀" * 300_000, 1024)
    assert found is not None and found[0] == Severity.ERROR
    found = limits.line_size("é" * 300_000, 1024)  # 600 KB, 300 K units: slow, loadable
    assert found is not None and found[0] == Severity.WARNING


def test_file_near_pi_073s_limit_warns_on_the_header(small_limits: None) -> None:
    text = doc(
        header(),
        user(A, None),
        image_entry(B, A, 250_000, images=2),
        image_entry(C, B, 100_000),
    )
    a = analyze(text, options=Options(large_line=1024 * 1024))
    found = [f for f in a.findings if f.code == "PI500"]
    assert [(f.span.line, f.severity) for f in found] == [(0, Severity.WARNING)]
    assert "pi 0.73.1 cannot load it" in found[0].message and "pi 1.6" in found[0].message
    assert [r.span.line for r in found[0].related] == [2, 3, 1]
    assert found[0].related[0].message.startswith("line 3: 0.5 MiB (2 images)")


def test_small_file_gets_no_file_warning() -> None:
    a = analyze(doc(header(), user(A, None), assistant(B, A)))
    assert sizes.check(a) == [] and heaviest_text(a) is None


def test_heaviest_entries_follow_the_text_being_read() -> None:
    """Rendered from the analysis of an older text, the hover and lens name the lines
    the reader sees (two lines were inserted above them since)."""
    text = doc(header(), user(A, None), image_entry(B, A, 3000, images=3), image_entry(C, B, 1500))
    a = analyze(text, options=Options(large_line=1000))
    with numbered(lambda line: line + 2 if line > 0 else line):
        summary = heaviest_text(a)
        titles = [lens.title for lens in code_lenses(a) if lens.line == 0]
    moved = "largest entries: line 5: 0.0 MiB (3 images); line 6: 0.0 MiB (1 image)"
    assert summary == moved and moved in titles


def test_heaviest_entries_in_hover_and_lens() -> None:
    text = doc(header(), user(A, None), image_entry(B, A, 3000, images=3), image_entry(C, B, 1500))
    a = analyze(text, options=Options(large_line=1000))
    summary = "largest entries: line 3: 0.0 MiB (3 images); line 4: 0.0 MiB (1 image)"
    assert heaviest_text(a) == summary
    hover = hover_at(a, 0, 0)
    assert hover is not None and hover.markdown.endswith(f"- {summary}")
    assert summary in [lens.title for lens in code_lenses(a) if lens.line == 0]
    plain = analyze(text)
    assert not any(lens.title.startswith("largest") for lens in code_lenses(plain))


# ------------------------------------------------------------------ the line's messages

MIB = limits.MIB


def test_a_line_of_exactly_the_threshold_is_not_reported() -> None:
    assert limits.line_size("A" * 1024, 1024) is None
    found = limits.line_size("A" * 1025, 1024)
    assert found is not None and found[0] == Severity.INFORMATION


def test_large_line_message_names_its_size_and_the_threshold() -> None:
    assert limits.line_size("A" * (3 * MIB // 2), MIB) == (
        Severity.INFORMATION,
        "line is 1.5 MiB (over 1 MiB), usually an embedded image; pi loads it whole into "
        "memory on every resume",
    )


def test_slow_line_message_says_pi_16_takes_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "SLOW_LINE", MIB // 2)
    assert limits.line_size("A" * MIB, MIB // 4) == (
        Severity.WARNING,
        "line is 1.0 MiB (over 0.25 MiB), usually an embedded image; pi 1.6 takes seconds to "
        "read a line this long on every resume (the time grows with the square of its length: "
        "64 MiB took 4 s, 256 MiB a minute) and cannot read one over 512 MiB at all",
    )


def test_line_over_pi_16s_limit_message_says_pi_cannot_load_it(small_limits: None) -> None:
    assert limits.line_size("A" * (512 * 1024 + 1), MIB // 4) == (
        Severity.ERROR,
        "line is 0.5 MiB (over 0.25 MiB), usually an embedded image; pi cannot load this "
        "session: pi 1.6 reads a line into one string and V8 strings end at 524,288 "
        "characters, pi 0.73.1 reads the whole file into one",
    )


def test_a_line_of_exactly_pi_16s_limit_in_utf16_units_loads(small_limits: None) -> None:
    exact = "😀" * (256 * 1024)  # 512 Ki UTF-16 units (the scaled limit), 1 MiB of UTF-8
    found = limits.line_size(exact, 1024)
    assert found is not None and found[0] == Severity.WARNING
    found = limits.line_size(exact + "A", 1024)
    assert found is not None and found[0] == Severity.ERROR


# ------------------------------------------------------------------ the heaviest entries


def test_heaviest_counts_image_blocks_of_messages_and_custom_messages() -> None:
    text_and_image = {
        "type": "message",
        "id": B,
        "parentId": A,
        "timestamp": TS,
        "message": {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image", "data": "A" * 2000, "mimeType": "image/png"},
            ],
            "timestamp": 1,
        },
    }
    custom = {
        "type": "custom_message",
        "id": C,
        "parentId": B,
        "timestamp": TS,
        "customType": "screenshot",
        "content": [{"type": "image", "data": "A" * 3000, "mimeType": "image/png"}] * 2,
        "display": True,
    }
    text = doc(
        header(),
        user(A, None, "x" * 1000),
        json.dumps(text_and_image, separators=(",", ":")),
        json.dumps(custom, separators=(",", ":")),
    )
    top = sizes.heaviest(analyze(text))
    assert [w.describe() for w in top] == [
        "line 4: 0.0 MiB (2 images)",
        "line 3: 0.0 MiB (1 image)",
        "line 2: 0.0 MiB",
    ]


def test_heaviest_are_the_longest_lines_not_the_last_ones() -> None:
    text = doc(
        header(),
        user(A, None),
        image_entry(B, A, 30_000),
        image_entry(C, B, 10_000),
        image_entry("d" * 8, C, 20_000),
        image_entry("e" * 8, "d" * 8, 15_000),
    )
    a = analyze(text, options=Options(large_line=5000))
    assert [w.line for w in sizes.heaviest(a)] == [2, 4, 5]
    assert [w.line for w in sizes.heaviest(analyze(text))] == [2, 4, 5]


def test_no_largest_entries_line_when_no_entry_is_large() -> None:
    # the one large line is not an entry (not JSON): nothing to name
    text = doc(header(), "x" * 3000)
    a = analyze(text, options=Options(large_line=1000))
    assert [(f.code, f.span.line) for f in a.findings if f.code == "PI500"] == [("PI500", 1)]
    assert heaviest_text(a) is None
    hover = hover_at(a, 0, 0)
    assert hover is not None and "largest" not in hover.markdown


# ------------------------------------------------------------------ the file's size

NEAR = 384 * 1024
MAX_FILE = 512 * 1024


def sized_file(total: int) -> str:
    """A session of exactly ``total`` UTF-8 bytes (ASCII, ``\\n`` after every line)."""
    base = doc(header(), user(A, None), image_entry(B, A, 0))
    return doc(header(), user(A, None), image_entry(B, A, total - len(base.encode())))


def file_warnings(text: str) -> list[tuple[int, int, int, str]]:
    a = analyze(text, options=Options(large_line=1024 * 1024))
    return [
        (f.span.line, f.span.start, f.span.end, f.message) for f in a.findings if f.code == "PI500"
    ]


def test_file_warning_from_exactly_near_the_limit(small_limits: None) -> None:
    assert file_warnings(sized_file(NEAR - 1)) == []
    text = sized_file(NEAR)
    start = text.index('"session"')
    assert file_warnings(text) == [
        (
            0,
            start,
            start + len('"session"'),
            "the session is 0.4 MiB: pi 0.73.1 cannot load a session over 524,288 bytes (it "
            "reads the file into one string); pi 1.6 reads it line by line. Heaviest entries: "
            "line 3: 0.4 MiB (1 image); line 2: 0.0 MiB",
        )
    ]


def test_file_of_pi_073s_limit_loads_one_byte_more_does_not(small_limits: None) -> None:
    [(_, _, _, message)] = file_warnings(sized_file(MAX_FILE))
    assert "pi 0.73.1 cannot load a session over 524,288 bytes" in message
    [(_, _, _, message)] = file_warnings(sized_file(MAX_FILE + 1))
    assert message.startswith("the session is 0.5 MiB: pi 0.73.1 cannot load it (it reads")


def test_file_size_counts_bytes_of_two_byte_characters(small_limits: None) -> None:
    # 200 K characters of 'é': fewer characters than the limit, more bytes
    text = doc(header(), user(A, None, "é" * 200_000))
    assert len(text) < NEAR <= len(text.encode())
    assert [w[0] for w in file_warnings(text)] == [0]


def test_file_size_counts_four_byte_characters_and_line_breaks(small_limits: None) -> None:
    # a file of exactly NEAR bytes, most of them in emoji and in blank lines
    breaks = "\n" * 2000
    base = doc(header(), user(A, None, "")) + breaks
    rest = NEAR - len(base.encode())
    text = doc(header(), user(A, None, "😀" * (rest // 4) + "x" * (rest % 4))) + breaks
    assert len(text.encode()) == NEAR
    assert [w[0] for w in file_warnings(text)] == [0]
    assert file_warnings(text[:-1]) == []


def test_no_file_warning_without_a_pi_header(small_limits: None) -> None:
    big = image_entry(B, A, NEAR)
    assert file_warnings(doc(user(A, None), big)) == []
    book = json.dumps(
        {"type": "session_header", "version": 1, "id": "s1", "created_at": TS},
        separators=(",", ":"),
    )
    assert file_warnings(doc(book, big)) == []


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("abc", 3),
        ("é日", 5),
        ("a😀", 5),
        ("한국어", 9),  # 0xED leads their UTF-8 as it leads a surrogate's
        ("x\udc80y", 3),  # an undecodable byte, read as a lone surrogate: one byte
        ("x\ud800y", 5),  # a lone surrogate a client sent: three bytes, never an error
        ("😀\ud83d\udc80", 8),
    ],
)
def test_a_line_counts_its_utf8_bytes_however_it_is_stored(text: str, size: int) -> None:
    assert limits.line_bytes(text) == size
    assert limits.stored_bytes(pack(text)) == size


def test_file_size_counts_lone_surrogates_of_a_document(small_limits: None) -> None:
    # a lone high surrogate (not an undecodable byte) in a file near the limit
    breaks = "\n" * 2000
    base = doc(header(), user(A, None, "\ud800")) + breaks
    rest = NEAR - len(base.encode("utf-8", "surrogatepass"))
    text = doc(header(), user(A, None, "\ud800" + "😀" * (rest // 4) + "x" * (rest % 4))) + breaks
    assert [w[0] for w in file_warnings(text)] == [0]
    assert file_warnings(text[:-1]) == []
