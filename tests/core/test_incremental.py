"""The incremental path: after any sequence of edits, a Document's analysis is a fresh one.

Edits go through :meth:`Document.apply_change` (positions in UTF-16, UTF-8 or UTF-32
code units, ranges spanning lines, text with ``\\r\\n``, lone ``\\r``, U+2028 and emoji,
JSON broken and fixed, header versions, ids and parentIds changed, whole lines swapped
for lines of other sessions). The expected text is kept with plain string slicing, so
the document's own line math is checked too. After every sequence (and at random points
in between, so each analysis builds on the previous one) the findings, their data, the
tree, the line results and the reference index must equal those of :func:`analyze` on
the same text. Also: cancelled and concurrent analyses end in the same result, the last
analysis answers while the same text is re-analysed under new options, and files read
line by line (:func:`read_lines`) give the same lines as the decoded whole.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import pi_lsp.core.text.files as files_module
from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.checks.document import Document, Position
from pi_lsp.core.entries.model import Analysis, Cancelled, Options
from pi_lsp.core.text.files import read_lines, read_text
from pi_lsp.core.text.lineindex import Encoding, from_units, split_lines, units
from pi_lsp.core.views import refs

from .pi_sessions import doc as doc_text
from .pi_sessions import header, hook, js, user

DATA = Path(__file__).resolve().parents[1] / "data"
BASES = [
    DATA / "fixed" / "pi421-call-without-result.jsonl",
    DATA / "broken" / "many-problems.jsonl",
    DATA / "fixed" / "pi420-result-for-call-on-other-branch.jsonl",
    DATA / "broken" / "pi410-first-kept-off-path.jsonl",
    DATA / "broken" / "pi413-v1-index-after-compaction.jsonl",
    DATA / "broken" / "pi303-v1-header-with-ids.jsonl",
    DATA / "broken" / "u2028-raw-separators-before-problem.jsonl",
    DATA / "broken" / "pi402-two-entry-cycle.jsonl",
    DATA / "broken" / "pi403-parent-on-later-line.jsonl",
    DATA / "broken" / "pi422-two-results-for-one-call.jsonl",
    DATA / "book-valid.jsonl",
]
TEXTS = [p.read_bytes().decode("utf-8") for p in BASES]
POOL = sorted({line for text in TEXTS for line in text.split("\n") if line.strip()})

FRAGMENTS = [
    "",
    "\n",
    "\r\n",
    "\r",
    "\u2028",
    "\u2029\u0085",
    "😀",
    "é",
    "{",
    "}",
    '"',
    ",",
    ":",
    "null",
    '"id":"x1",',
    '"parentId":null,',
    '"parentId":"zz",',
    '"version":2,',
    '"version":1,',
    '"version":"3",',
    '{"type":"label","id":"l9","parentId":null,"timestamp":"t","targetId":"nope"}',
    "\n\n",
    "  ",
]


def expected_offset(text: str, line: int, character: int, encoding: Encoding) -> int:
    """A client position as an offset into ``text`` (clamped like the server clamps it)."""
    parts = re.split(r"(\r\n|\r|\n)", text)
    lines, terms = parts[0::2], parts[1::2]
    if line < 0:
        return 0
    if line >= len(lines):
        return len(text)
    base = sum(len(x) + len(t) for x, t in zip(lines[:line], terms, strict=False))
    return base + from_units(lines[line], character, encoding)


def check_same(doc: Document, expected: str) -> Analysis:
    """The document holds ``expected`` and its analysis equals a fresh one."""
    assert doc.source == expected
    got = doc.analysis
    fresh = analyze(expected, doc.path, doc.options)
    assert got.findings == fresh.findings
    assert [f.data for f in got.findings] == [f.data for f in fresh.findings]
    assert got.tree == fresh.tree
    assert (got.fmt, got.version, got.header_line) == (fresh.fmt, fresh.version, fresh.header_line)
    assert [(i.kind, i.value, i.issues) for i in got.infos] == [
        (i.kind, i.value, i.issues) for i in fresh.infos
    ]
    assert got.cache.keys() == fresh.cache.keys()  # no result of a removed line is held
    assert refs.index(got) == refs.index(fresh)  # views memoised across analyses stay right
    return got


@st.composite
def edit(draw: st.DrawFn, text: str, encoding: Encoding) -> tuple[int, int, int, int, str]:
    """A change near the content of ``text``: (start line, start char, end line, end char, new)."""
    lines = re.split(r"\r\n|\r|\n", text)
    sl = draw(st.integers(-1, len(lines)))
    width = len(lines[sl]) if 0 <= sl < len(lines) else 3
    sc = draw(st.integers(0, width * 2 + 2))
    el = draw(st.sampled_from([sl, sl, sl + 1, sl + 2, sl - 1]))
    ec = draw(st.integers(0, width * 2 + 2))
    kind = draw(
        st.sampled_from(["fragment", "fragment", "pool", "digit", "mix", "value", "pad", "pad"])
    )
    values = [(n, m.end()) for n, line in enumerate(lines) for m in re.finditer(r'":"', line)]
    gaps = [(n, m.start()) for n, line in enumerate(lines) for m in re.finditer(r'^|(?<=":)', line)]
    if kind == "pad" and gaps:
        # whitespace between tokens: columns move on one line, no line is added or removed
        # and nothing a link reads changes (related ranges pointing into the line must follow)
        sl, at = draw(st.sampled_from(gaps))
        sc = ec = units(lines[sl][:at], encoding)
        el = sl
        new = draw(st.sampled_from([" ", "  ", "\t", " \t "]))
    elif kind == "value" and values:
        # text at the start of a string value: the JSON stays valid (an id may now dangle)
        sl, at = draw(st.sampled_from(values))
        sc = ec = units(lines[sl][:at], encoding)
        el = sl
        new = draw(st.sampled_from(["a", "7", "😀", "\\u2028", "\u2028", "é"]))
    elif kind == "pool":
        # replace whole lines by a line of some session (ids, parents, tool calls, ...)
        sc, ec = 0, 10**6
        new = draw(st.sampled_from(POOL))
    elif kind == "digit":
        new = str(draw(st.integers(0, 9)))
    elif kind == "mix":
        new = "".join(draw(st.lists(st.sampled_from(FRAGMENTS), max_size=4)))
    else:
        new = draw(st.sampled_from(FRAGMENTS))
    return sl, sc, el, ec, new


@st.composite
def scenario(
    draw: st.DrawFn,
) -> tuple[str, Encoding, list[tuple[tuple[int, int, int, int, str], bool]]]:
    """A base text, an encoding, and edits (each with: analyse after it?)."""
    text = draw(st.sampled_from(TEXTS))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    encoding: Encoding = draw(st.sampled_from(["utf-16", "utf-16", "utf-8", "utf-32"]))
    steps = []
    current = text
    for _ in range(draw(st.integers(1, 8))):
        change = draw(edit(current, encoding))
        sl, sc, el, ec, new = change
        a = expected_offset(current, sl, sc, encoding)
        b = expected_offset(current, el, ec, encoding)
        a, b = min(a, b), max(a, b)
        current = current[:a] + new + current[b:]
        steps.append((change, draw(st.booleans())))
    return text, encoding, steps


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario())
@example(  # the old lone leaf sat in a region that shrank: it was checked past the last line
    (
        TEXTS[2],
        "utf-16",
        [((1, 0, 3, 1, ""), False), ((3, 0, 3, 0, "\u2029\x85"), True), ((1, 0, 3, 0, ""), False)],
    )
)
def test_edits_match_a_fresh_analysis(
    case: tuple[str, Encoding, list[tuple[tuple[int, int, int, int, str], bool]]],
) -> None:
    text, encoding, steps = case
    doc = Document.open("file:///t/s.jsonl", text, 1, "/t/s.jsonl", Options())
    check_same(doc, text)
    expected = text
    for (sl, sc, el, ec, new), analyse_now in steps:
        a = expected_offset(expected, sl, sc, encoding)
        b = expected_offset(expected, el, ec, encoding)
        a, b = min(a, b), max(a, b)
        expected = expected[:a] + new + expected[b:]
        doc.apply_change(Position(sl, sc), Position(el, ec), new, encoding)
        if analyse_now:
            check_same(doc, expected)
    check_same(doc, expected)


_GAP = re.compile(r'^|(?<=":)')
"""Places between tokens where whitespace keeps a line's JSON value (line start, after a key)."""


@pytest.mark.parametrize("path", sorted((DATA / "broken").glob("*.jsonl")), ids=lambda p: p.name)
def test_whitespace_that_only_moves_columns_moves_every_range(path: Path) -> None:
    """Padding a line changes no link, yet every range into that line, related ones too, moves."""
    text = path.read_bytes().decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    for n, line in enumerate(lines):
        for m in _GAP.finditer(line):
            doc = Document.open("file:///t/s.jsonl", text, 1, None, Options())
            before = doc.analysis
            at = m.start()
            doc.apply_change(Position(n, at), Position(n, at), " ", "utf-32")
            padded = [*lines[:n], line[:at] + " " + line[at:], *lines[n + 1 :]]
            after = check_same(doc, "\n".join(padded))
            assert len(after.findings) == len(before.findings)


def test_pi401_first_on_line_follows_an_edit_that_moves_its_id() -> None:
    a, b = "aaaaaaaa", "bbbbbbbb"
    text = doc_text(header(), user(a, None), user(b, a), user(a, b), user("cccccccc", a))
    doc = Document.open("file:///t/s.jsonl", text, 1, None, Options())
    (dup,) = [f for f in doc.analysis.findings if f.code == "PI401"]
    assert (dup.span.line, [r.span.line for r in dup.related]) == (3, [1])
    doc.apply_change(Position(1, 1), Position(1, 1), "  ", "utf-16")  # {  "type":... on line 1
    (moved,) = [f for f in check_same(doc, doc.source).findings if f.code == "PI401"]
    start = doc.lines[1].index(f'"{a}"')
    assert [(r.span.line, r.span.start, r.span.end) for r in moved.related] == [
        (1, start, start + 10)
    ]


def test_pi303_follows_edits_that_keep_the_links_and_those_that_change_them() -> None:
    text = (DATA / "broken" / "pi303-v1-header-with-ids.jsonl").read_bytes().decode()
    doc = Document.open("file:///t/s.jsonl", text, 1, None, Options())
    (pi303,) = [f for f in doc.analysis.findings if f.code == "PI303"]
    assert (pi303.data, pi303.related[0].span.line) == ({"entries": 2}, 1)
    before = doc.analysis
    doc.apply_change(Position(1, 1), Position(1, 1), "  ", "utf-16")  # {  "type":... on line 1
    kept = check_same(doc, doc.source)
    assert kept.link_views is before.link_views  # links kept, and the count kept with them
    (moved,) = [f for f in kept.findings if f.code == "PI303"]
    start = doc.lines[1].index('"1a2b3c4d"')  # the span of its id's value, two columns on
    assert (moved.related[0].span.start, moved.related[0].span.end) == (start, start + 10)
    line, col = _position(doc, '"id":"2b3c4d5e",')
    doc.apply_change(Position(line, col), Position(line, col + len('"id":"2b3c4d5e",')), "", "utf-16")
    (fewer,) = [f for f in check_same(doc, doc.source).findings if f.code == "PI303"]
    assert fewer.data == {"entries": 2}  # line 2 still has its parentId
    line, col = _position(doc, '"parentId":"1a2b3c4d",')
    doc.apply_change(
        Position(line, col), Position(line, col + len('"parentId":"1a2b3c4d",')), "", "utf-16"
    )
    (one,) = [f for f in check_same(doc, doc.source).findings if f.code == "PI303"]
    assert one.data == {"entries": 1}


def _position(doc: Document, needle: str, skip: int = 0) -> tuple[int, int]:
    for n, line in enumerate(doc.lines):
        if needle in line:
            if skip == 0:
                return n, units(line[: line.index(needle)], "utf-16")
            skip -= 1
    raise AssertionError(needle)


def test_link_results_are_reused_for_an_edit_that_changes_no_link() -> None:
    text = (DATA / "fixed" / "pi420-result-for-call-on-other-branch.jsonl").read_bytes().decode()
    doc = Document.open("file:///t/s.jsonl", text, 1, None, Options())
    before = doc.analysis
    line, col = _position(doc, '"timestamp":"', skip=2)
    at = col + len('"timestamp":"') + 1
    doc.apply_change(Position(line, at), Position(line, at + 1), "1", "utf-16")
    after = check_same(doc, doc.source)
    assert after.tree is before.tree
    line, col = _position(doc, '"parentId":"')
    at = col + len('"parentId":"')
    doc.apply_change(Position(line, at), Position(line, at), "x", "utf-16")
    relinked = check_same(doc, doc.source)
    assert relinked.tree is not after.tree
    assert any(f.code == "PI400" for f in relinked.findings)


def test_an_edit_checks_only_the_lines_it_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit inside the file keeps the previous results of every other line without a
    pass over them; one that reaches the last entry, or changes more lines than the
    limit, checks the whole text. Both equal a fresh analysis."""
    import pi_lsp.core.checks.analysis as analysis_module

    text = "\n".join(TEXTS[0].split("\n")[:1] + POOL * 3) + "\n"
    doc = Document.open("file:///t/s.jsonl", text, 1, None, Options())
    doc.analysis  # noqa: B018 - computes it
    whole = analysis_module._LinePass.checked
    passes: list[int] = []

    def counted(self: object, *args: object, **kwargs: object) -> object:
        passes.append(1)
        return whole(self, *args, **kwargs)  # type: ignore[arg-type]

    def change(start: Position, end: Position, new: str) -> int:
        """Apply a change; how many passes over every line its analysis made."""
        doc.apply_change(start, end, new, "utf-16")
        passes.clear()
        monkeypatch.setattr(analysis_module._LinePass, "checked", counted)
        doc.analysis  # noqa: B018
        monkeypatch.setattr(analysis_module._LinePass, "checked", whole)
        check_same(doc, doc.source)
        return len(passes)

    line, col = _position(doc, '"timestamp":"', skip=5)
    at = col + len('"timestamp":"') + 1
    for digit in "1234567890" * 3:  # typing in one line
        assert change(Position(line, at), Position(line, at + 1), digit) == 0
    assert change(Position(line, 10**6), Position(line, 10**6), "\n{}") == 0
    last = len(doc.lines) - 2
    assert change(Position(last, 0), Position(last, 1), "[") == 1
    assert change(Position(3, 0), Position(3 + 70, 0), "") == 1


@pytest.mark.parametrize(
    "name", ["pi421-call-without-result.jsonl", "pi413-v1-index-after-compaction.jsonl"]
)
def test_lines_pi_skips_moving_the_entries_need_no_link_check(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A blank or unparseable line inserted or removed between the entries of a session
    whose links are sound moves every later entry, yet its links stay sound: they are not
    checked again. A line that parses, or a session with a link finding, is checked."""
    import pi_lsp.core.checks.links as links_module

    text = (DATA / "fixed" / name).read_bytes().decode()
    doc = Document.open("file:///t/s.jsonl", text, 1, None, Options())
    assert doc.analysis.link_findings == []
    whole = links_module.check
    checks: list[int] = []

    def counted(a: Analysis) -> object:
        checks.append(1)
        return whole(a)

    def change(start: Position, end: Position, new: str) -> int:
        """Apply a change; how many link checks its analysis made."""
        doc.apply_change(start, end, new, "utf-16")
        checks.clear()
        monkeypatch.setattr(links_module, "check", counted)
        doc.analysis  # noqa: B018
        monkeypatch.setattr(links_module, "check", whole)
        check_same(doc, doc.source)
        return len(checks)

    end_of_2 = Position(2, 10**6)
    assert change(end_of_2, end_of_2, "\n") == 0  # a blank line after the third
    assert change(Position(3, 0), Position(3, 0), "{not json") == 0  # now unparseable
    assert change(Position(3, 0), Position(4, 0), "") == 0  # and gone
    assert change(end_of_2, end_of_2, "\n{}") == 1  # a line pi keeps (PI003)
    assert change(Position(3, 0), Position(4, 0), "") == 1  # removed again
    # a link finding (a parent that names no entry, or v1's index past the compaction)
    if '"parentId":"' in doc.lines[3]:
        at = doc.lines[3].index('"parentId":"') + len('"parentId":"')
        assert change(Position(3, at), Position(3, at), "x") == 1
    else:
        at = doc.lines[3].index('"firstKeptEntryIndex":') + len('"firstKeptEntryIndex":')
        assert change(Position(3, at), Position(3, at + 1), "4") == 1
    assert doc.analysis.link_findings
    assert change(end_of_2, end_of_2, "\n") == 1


def test_a_cancelled_analysis_is_resumed_with_its_finished_lines() -> None:
    text = "\n".join(TEXTS[0].split("\n")[:1] + POOL * 40) + "\n"
    doc = Document.open("file:///t/s.jsonl", text, 1, None, Options())
    calls = 0

    def cancel_at_first_poll() -> bool:
        nonlocal calls
        calls += 1
        return True

    import pi_lsp.core.checks.analysis as analysis_module

    tick, analysis_module._TICK = analysis_module._TICK, 2000
    try:
        assert doc.run_analysis(cancelled=cancel_at_first_poll) is None
        assert calls == 1 and doc.is_stale
        assert isinstance(doc._partial, Cancelled) and doc._partial.partial
        check_same(doc, text)
    finally:
        analysis_module._TICK = tick


def test_changes_while_a_thread_analyses_end_in_the_latest_analysis() -> None:
    text = "\n".join(TEXTS[0].split("\n")[:1] + POOL * 30) + "\n"
    doc = Document.open("file:///t/s.jsonl", text, 1, None, Options())
    expected = text
    stop = threading.Event()

    def worker() -> None:
        while not stop.is_set():
            doc.run_analysis()

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        for n in range(60):
            line = 1 + (n * 7) % (len(doc.lines) - 2)
            doc.apply_change(
                Position(line, 0), Position(line, 0), "\u2028" if n % 2 else "{", "utf-16"
            )
            expected_lines = expected.split("\n")
            expected_lines[line] = ("\u2028" if n % 2 else "{") + expected_lines[line]
            expected = "\n".join(expected_lines)
    finally:
        stop.set()
        thread.join()
    check_same(doc, expected)


def test_the_last_analysis_answers_while_the_same_text_is_reanalysed() -> None:
    text = "\n".join(TEXTS[0].split("\n")[:1] + POOL * 20) + "\n"
    doc = Document.open("file:///t/s.jsonl", text, 1, None, Options())
    before = doc.analysis
    started, release = threading.Event(), threading.Event()

    def hold(done: int, total: int) -> None:
        started.set()
        release.wait(30)

    import pi_lsp.core.checks.analysis as analysis_module

    tick, analysis_module._TICK = analysis_module._TICK, 2000
    try:
        doc.set_options(Options(large_line=100))
        thread = threading.Thread(target=doc.run_analysis, args=(hold,))
        thread.start()
        assert started.wait(30)
        assert doc.analysis is before  # same text, new options still being applied
        release.set()
        thread.join()
    finally:
        analysis_module._TICK = tick
    after = doc.analysis
    assert after is not before and after.options == Options(large_line=100)
    assert any(f.code == "PI500" for f in after.findings)
    check_same(doc, text)


@pytest.mark.parametrize("chunk", [1, 2, 5, files_module._CHUNK])
def test_read_lines_equals_splitting_the_decoded_file(
    tmp_path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the size of the chunks it reads: lines that run over several chunks, a
    chunk that ends at a line feed, a carriage return in a later chunk."""
    monkeypatch.setattr(files_module, "_CHUNK", chunk)
    samples = [
        b"",
        b"\n",
        b"abc",
        b'{"a":"\xe2\x80\xa8"}\n{"b":1}\n',  # raw U+2028 is not a line break
        b"bad \xe2 byte\nnext\n",  # undecodable bytes survive as lone surrogates
        b"\xef\xbb\xbfbom\r\ncrlf\rcr\n",
        "emoji 😀\nCJK 漢字かな\nLatin-1 é\nHangul 한국어\n".encode(),  # bytes, str, str, str
        b"an encoded surrogate \xed\xa0\x80 and \xf0\x9f\x98\x80\n",  # not strict UTF-8
        b"a\nbc\n\nlonger line\nd\r\ne\n",  # the carriage return comes late
        *(p.read_bytes() for p in BASES),
    ]
    for n, data in enumerate(samples):
        path = tmp_path / f"{n}.jsonl"
        path.write_bytes(data)
        assert read_lines(path) == split_lines(read_text(path))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.one_of(
            st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=30),
            st.binary(max_size=12).filter(lambda b: b"\r" not in b and b"\n" not in b),
        ),
        max_size=6,
    ),
    st.integers(1, 40),
)
def test_read_lines_stores_each_line_as_its_decoded_text_would_be(
    tmp_path: Path, pieces: list[str | bytes], chunk: int
) -> None:
    """Lines read from bytes (kept as they are where stored as UTF-8) are the very items
    that splitting the decoded text stores: texts of every width, invalid UTF-8 too, read
    in chunks of any size (a character's bytes may be cut between two)."""
    data = b"\n".join(p.encode("utf-8", "surrogatepass") if isinstance(p, str) else p for p in pieces)
    path = tmp_path / "lines.jsonl"
    path.write_bytes(data)
    whole = files_module._CHUNK
    files_module._CHUNK = chunk
    try:
        read = read_lines(path)
    finally:
        files_module._CHUNK = whole
    split = split_lines(read_text(path))
    assert list(read.lines.iter_raw()) == list(split.lines.iter_raw())
    assert [type(item) for item in read.lines.iter_raw()] == [
        type(item) for item in split.lines.iter_raw()
    ]


# -- the line findings of an edit -----------------------------------------------------------


def _edited(text: str, line: int, old: str, new: str) -> tuple[Document, Analysis, Analysis]:
    """A document of ``text`` analysed, then ``old`` (on ``line``) replaced by ``new``:
    the document, its analysis before and after."""
    document = Document.open("file:///e.jsonl", text, 1, None, Options())
    before = document.analysis
    at = text.split("\n")[line].index(old)
    document.apply_change(Position(line, at), Position(line, at + len(old)), new, "utf-16")
    return document, before, document.analysis


def _findings(a: Analysis) -> list[tuple[object, ...]]:
    return [(f.code, f.severity, f.span, f.message, f.related, f.data) for f in a.findings]


def test_an_edit_keeps_the_line_findings_before_it_and_moves_those_after_it() -> None:
    A, B, C = "a" * 8, "b" * 8, "c" * 8
    text = doc_text(header(3), user(A, None), "{broken", user(B, A), "{also broken", user(C, B))
    line = user(B, A)
    document, before, after = _edited(text, 3, line, line + "\n" + user("d" * 8, B))
    assert _findings(after) == _findings(analyze(document.source))
    old = {f.span.line: f for f in before.line_findings if f.code == "PI001"}
    new = {f.span.line: f for f in after.line_findings if f.code == "PI001"}
    assert old.keys() == {2, 4} and new.keys() == {2, 5}
    assert new[2] is old[2]  # kept as it was, not found again
    assert new[5].span == old[4].span._replace(line=5) and new[5].message == old[4].message


def test_an_edit_that_makes_the_last_entry_a_root_rewords_its_pi004() -> None:
    A, B, C = "a" * 8, "b" * 8, "c" * 8
    mystery = js({"type": "mystery", "id": C, "parentId": B, "timestamp": "t"})
    text = doc_text(header(3), user(A, None), user(B, A), user(A + "x", B), mystery)
    resumes = "as the last entry with no parent it is where pi resumes"
    document, before, after = _edited(text, 2, B, "z" * 8)  # the mystery's parent is gone
    pi004 = [f for f in after.findings if f.code == "PI004"]
    assert [f.span.line for f in pi004] == [4] and resumes in pi004[0].message
    assert not any(resumes in f.message for f in before.findings)
    assert _findings(after) == _findings(analyze(document.source))
    at = document.source.split("\n")[2].index("z" * 8)
    document.apply_change(Position(2, at), Position(2, at + 8), B, "utf-16")  # and back
    assert _findings(document.analysis) == _findings(before)



def test_an_edit_of_a_header_below_a_line_python_strips_away_relates_to_its_new_length() -> None:
    """Python's ``strip`` takes U+001C for whitespace, JavaScript's ``trim`` does not: the
    header is then the second line, and an edit there re-checks it on its own. A second
    header's PI101 relates to the whole header line, so it changes with the header's
    length though its line is not edited."""
    A, B = "a" * 8, "b" * 8
    first = header(3)
    text = doc_text("\x1c", first, user(A, None), header(3), user(B, A))
    ident = first.split('"id":"')[1].split('"')[0]
    document, before, after = _edited(text, 1, ident, "longer-" + ident)
    assert (before.header_line, after.header_line) == (1, 1)
    related = [r.span for f in after.findings if f.code == "PI101" for r in f.related]
    assert related == [(1, 0, len(first) + 7)]
    assert _findings(after) == _findings(analyze(document.source))


def test_a_line_checked_again_under_another_header_keeps_its_result_when_nothing_changes() -> None:
    """A header change checks every line again; a line whose issues and value stay the same
    keeps the very result the last analysis holds (not a second copy), and the analysis
    equals a fresh one; a line whose issues change gets a result of its own. The tree is
    the last one while every entry's id and parent and the way entries link stay."""
    entries = [user(f"u{n}", f"u{n - 1}" if n else None, "hi") for n in range(6)]
    text = doc_text(header(3), *entries, hook("h", "u5"), user("z", "h"))
    doc = Document.open("file:///t/s.jsonl", text, 1, None, Options())
    before = doc.analysis
    line, col = _position(doc, '"version":')
    at = col + len('"version":')
    doc.apply_change(Position(line, at), Position(line, at + 1), "2", "utf-16")
    after = check_same(doc, doc.source)
    assert [after.infos[n] is before.infos[n] for n in range(2, 7)] == [True] * 5
    assert before.infos[7].issues != after.infos[7].issues  # a hookMessage: v3 names no such role
    assert after.infos[7] is not before.infos[7]
    assert after.tree is before.tree  # no entry, id or parent changed: the same tree
    doc.apply_change(Position(line, at), Position(line, at + 1), "1", "utf-16")
    chained = check_same(doc, doc.source)  # v1: a chain in file order, not by parentId
    assert chained.tree is not after.tree and chained.tree.roots == [1]
