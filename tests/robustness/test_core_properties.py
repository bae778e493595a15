"""Property-based tests of the core on hostile text (in process, fast).

- ``analyze`` never raises, and every finding's span lies inside the document;
- re-analysing an edited text with the previous analysis gives exactly what a fresh
  analysis gives (the incremental caches never leak stale results);
- incremental ``Document.apply_change`` gives the same text as applying the change to
  the whole string with an independent implementation of the line math, and the same
  findings (related ranges included) as a fresh analysis of that text; edits include
  whitespace that only moves columns on a line, so ranges into an untouched-looking line
  must follow, edits across a line break (a ``\r\n`` pair deleted, replaced or split)
  and edits at the end of a document without a final newline;
- ``locate`` finds the value ``JSON.parse`` would keep (last duplicate key).
"""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.checks.document import Document, Position
from pi_lsp.core.entries.model import Options
from pi_lsp.core.text.jsonl import locate

from . import hostile, invariants
from .settings import bounded

_SEED_LINES = sorted(
    {line for text in hostile.seed_texts().values() for line in text.decode().split("\n") if line}
)
_HOSTILE_LINES = [
    "",
    "   ",
    "{",
    '{"type":"message","id":"u0000001","parentId":"u0000001"}',
    '{"type":"message","id":"u0000001","parentId":null,"id":"dup"}',
    '{"type":"session","version":3,"id":"second"}',
    '{"type":"label","id":"l9","parentId":"u0000001","targetId":"ghost"}',
    '{"type":"message","message":{"role":"assistant","stopReason":"pending"}}',
    '{"a":NaN}',
    '{"a":"\\ud800"}',
    '{"a":1e400}',
    "[" * 1500 + "]" * 1500,
    "\ufeff{}",
    '{"x":"\u2028\u2029\u0085🚀"}',
    "\x00",
    '"just a string"',
    "null",
]
_PIECES = [
    "\n",
    "\r\n",
    "\r",
    "\u2028",
    "🚀",
    "é",
    '"',
    "{",
    "}",
    ",",
    ":",
    "\\",
    "\ufeff",
    "\x00",
    "a",
]
_TERMINATORS = ["\n", "\n", "\n", "\r\n", "\r"]


@st.composite
def session_texts(draw: st.DrawFn) -> str:
    """A pi-like session: seed lines, hostile lines, copies of earlier lines, random splices."""
    pool = _SEED_LINES + _HOSTILE_LINES
    lines = draw(st.lists(st.sampled_from(pool), min_size=0, max_size=14))
    out = []
    for line in lines:
        if line and draw(st.integers(0, 5)) == 0:
            cut = draw(st.integers(0, len(line)))
            line = line[:cut] + draw(st.sampled_from(_PIECES)) + line[cut:]
        out.append(line + draw(st.sampled_from(_TERMINATORS)))
        if draw(st.integers(0, 4)) == 0:  # a copy: duplicate ids, findings related to another line
            out.append(draw(st.sampled_from(out)))
    if out and draw(st.booleans()):
        out[-1] = out[-1].rstrip("\r\n")
    return "".join(out)


def _fingerprint(a: object) -> list[tuple[object, ...]]:
    return [
        (f.code, int(f.severity), f.span, f.message, tuple(f.related))
        for f in a.findings  # type: ignore[attr-defined]
    ]


def _check_spans(text: str, a: object) -> None:
    lines = invariants.split(text)
    for f in a.findings:  # type: ignore[attr-defined]
        spans = [f.span, *(r.span for r in f.related if getattr(r, "path", None) is None)]
        for span in spans:
            assert 0 <= span.line < len(lines), (f.code, span, len(lines))
            assert 0 <= span.start <= span.end <= len(lines[span.line]), (f.code, span)


@bounded()
@given(session_texts())
def test_analyze_never_raises_and_spans_are_inside(text: str) -> None:
    a = analyze(text)
    _check_spans(text, a)


@bounded()
@given(session_texts(), session_texts())
def test_incremental_analysis_equals_fresh(old: str, new: str) -> None:
    previous = analyze(old)
    assert _fingerprint(analyze(new, previous=previous)) == _fingerprint(analyze(new))


@bounded()
@given(session_texts(), st.data())
def test_incremental_analysis_after_small_edit(text: str, data: st.DataObject) -> None:
    """An edit of one line (the common case) re-analysed from the previous analysis."""
    lines = text.split("\n")
    i = data.draw(st.integers(0, len(lines) - 1))
    piece = data.draw(st.sampled_from([*_PIECES, "", " ", "\t", "ghost", '"u0000001"', "null"]))
    at = data.draw(st.integers(0, len(lines[i])))
    cut = data.draw(st.integers(0, 3))
    if piece.isspace() and data.draw(st.booleans()):
        # between two tokens: the line's value (and so every link) stays, its columns move
        gaps = [m.start() for m in re.finditer(r'^|(?<=":)', lines[i])]
        at, cut = data.draw(st.sampled_from(gaps)), 0
    lines[i] = lines[i][:at] + piece + lines[i][at + cut :]
    edited = "\n".join(lines)
    previous = analyze(text)
    assert _fingerprint(analyze(edited, previous=previous)) == _fingerprint(analyze(edited))


@bounded()
@given(session_texts(), st.sampled_from([" ", "\t", "  "]))
@pytest.mark.slow
def test_incremental_analysis_after_whitespace_that_only_moves_columns(text: str, pad: str) -> None:
    """Padding one line between tokens keeps every value and link, yet every range into
    that line (related ones of findings on other lines too) moves: each line in turn."""
    lines = text.split("\n")
    previous = analyze(text)
    for i, line in enumerate(lines):
        for at in {m.start() for m in re.finditer(r'^|(?<=":)', line)}:
            edited = "\n".join([*lines[:i], line[:at] + pad + line[at:], *lines[i + 1 :]])
            fresh = _fingerprint(analyze(edited))
            assert _fingerprint(analyze(edited, previous=previous)) == fresh, (i, at)


# -- incremental document changes ------------------------------------------------------


def _reference_offset(text: str, line: int, units: int, encoding: str) -> int:
    """Absolute code-point offset of an LSP position, clamped as the server documents it:
    past the last line means the end of the document, past a line's end means its end,
    inside a character means its start."""
    lines = invariants.split(text)
    starts = []
    pos = 0
    for m in re.finditer(r"[^\r\n]*(\r\n|\r|\n|$)", text):
        starts.append(pos)
        pos = m.end()
        if len(starts) == len(lines):
            break
    if line < 0:
        return 0
    if line >= len(lines):
        return len(text)
    s = lines[line]
    count = 0
    for i, ch in enumerate(s):
        width = invariants.unit_len(ch, encoding)
        if count + width > units:
            return starts[line] + i
        count += width
    return starts[line] + len(s)


_EDIT_TEXT = st.sampled_from(
    ["", "\n", "\r", "\r\n", "\n\r", "x", "🚀", "\u2028", "é", '{"a":1}\n', "\r\r\n", "\\"]
) | st.sampled_from([" ", "\t "])  # whitespace: columns move, no line is added


@st.composite
def _edit_range(draw: st.DrawFn, lines: list[str], encoding: str) -> list[tuple[int, int]]:
    """Two LSP positions: anywhere, or a shape that random positions rarely hit.

    The shapes: both ends on one line (columns move, no line is added or removed); at the
    start of a line (where a ``\n`` joins the ``\r`` ending the line before); exactly
    across one line break, so a ``\r\n`` pair is deleted, replaced or split by what is
    inserted; and at the very end of the document (which may end without a newline).
    """
    last = len(lines) - 1
    width = [invariants.unit_len(line, encoding) for line in lines]
    shape = draw(
        st.sampled_from(["any", "any", "one-line", "line-start", "across-break", "end-of-file"])
    )
    if shape == "line-start":  # after a lone "\r", an inserted "\n" joins it into one break
        line = draw(st.integers(0, last))
        return [(line, 0), (line, draw(st.integers(0, min(width[line], 1))))]
    if shape == "one-line":
        line = draw(st.integers(0, last))
        return [(line, draw(st.integers(0, width[line]))) for _ in range(2)]
    if shape == "across-break" and last > 0:
        line = draw(st.integers(0, last - 1))
        return [(line, width[line]), (line + 1, draw(st.integers(0, min(width[line + 1], 2))))]
    if shape == "end-of-file":
        end = (last, width[last])
        return [end, draw(st.sampled_from([end, (last, 0), (last + 1, 0)]))]
    pos = []
    for _ in range(2):
        line = draw(st.integers(0, len(lines)))
        length = width[line] if line < len(lines) else 3
        pos.append((line, draw(st.integers(0, length + 2))))
    return pos


@bounded(120)
@given(session_texts(), st.data(), st.sampled_from(["utf-8", "utf-16", "utf-32"]))
def test_document_changes_match_whole_text_edits(
    text: str, data: st.DataObject, encoding: str
) -> None:
    doc = Document.open("file:///x.jsonl", text, 1, None, Options())
    assert _fingerprint(doc.analysis) == _fingerprint(analyze(text))  # later ones reuse it
    current = text
    for _ in range(data.draw(st.integers(1, 6))):
        lines = invariants.split(current)
        pos = data.draw(_edit_range(lines, encoding))
        new = data.draw(_EDIT_TEXT)
        a = _reference_offset(current, *pos[0], encoding)
        b = _reference_offset(current, *pos[1], encoding)
        a, b = min(a, b), max(a, b)
        expected = current[:a] + new + current[b:]
        doc.apply_change(Position(*pos[0]), Position(*pos[1]), new, encoding)  # type: ignore[arg-type]
        current = expected
        assert doc.source == expected
        assert doc.lines == invariants.split(expected)
        if data.draw(st.booleans()):
            assert _fingerprint(doc.analysis) == _fingerprint(analyze(expected))
    assert _fingerprint(doc.analysis) == _fingerprint(analyze(current))


# -- spans inside a line -----------------------------------------------------------------

_KEYS = st.sampled_from(["id", "type", "a", "é", "\u2028", 'k\\"', "🚀", "parentId", ""])
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.text(max_size=6),
    st.sampled_from(["\ud800", "]}", '"', "\\"]),
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.lists(st.tuples(_KEYS, inner), max_size=4),
    max_leaves=12,
)


def _render(value: object, rng: random.Random) -> str:
    """JSON text with random whitespace and duplicate keys as lists of pairs."""
    ws = lambda: rng.choice(["", "", " ", "\t", "\r\n "])  # noqa: E731
    if isinstance(value, list) and value and all(isinstance(x, tuple) for x in value):
        members = [f"{ws()}{json.dumps(k)}{ws()}:{ws()}{_render(v, rng)}{ws()}" for k, v in value]
        return "{" + ",".join(members) + "}"
    if isinstance(value, list):
        return "[" + ",".join(ws() + _render(v, rng) + ws() for v in value) + "]"
    return json.dumps(value, ensure_ascii=rng.random() < 0.5)


def _paths(value: object, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    out = [prefix]
    if isinstance(value, list) and value and all(isinstance(x, tuple) for x in value):
        last = {k: v for k, v in value}  # JSON.parse keeps the last duplicate
        for k, v in last.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


def _plain(value: object) -> object:
    if isinstance(value, list) and value and all(isinstance(x, tuple) for x in value):
        return {k: _plain(v) for k, v in value}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _at(value: object, path: tuple[str | int, ...]) -> object:
    for item in path:
        value = value[item]  # type: ignore[index]
    return value


@bounded(150)
@given(st.lists(st.tuples(_KEYS, _JSON), min_size=1, max_size=5), st.randoms(use_true_random=False))
def test_locate_finds_the_value_json_parse_keeps(members: list, rng: random.Random) -> None:
    text = _render(members, rng)
    plain = _plain(members)
    for path in _paths(members):
        loc = locate(text, path)
        assert loc.depth == len(path), (text, path)
        start, end = loc.value
        assert json.loads(text[start:end]) == _at(plain, path), (text, path, text[start:end])


# Regression: a header version nested ~1000+ deep made analyze() raise RecursionError
# (quoting it in the PI102 message), so check crashed and the server published nothing.
@pytest.mark.parametrize("nest", ["[" * 1000 + "]" * 1000, '{"a":' * 3000 + "1" + "}" * 3000])
def test_deeply_nested_header_version_does_not_crash(nest: str) -> None:
    text = '{"type":"session","version":' + nest + ',"id":"x","timestamp":"t","cwd":"/"}\n'
    a = analyze(text)
    assert "PI102" in {f.code for f in a.findings}
