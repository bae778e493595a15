"""Snapshots: the newest complete analysis, mapped onto the current text; views freed with it.

:class:`LineMap` is checked against a model that tracks each line as a unique token
through random line edits: a line maps (both ways) exactly when it survived every edit.
:meth:`Document.snapshot` is checked on real edits (incremental and full sync): a line
that maps has the same text in both versions, maps back, and every line outside the
edited region maps. Views (:mod:`pi_lsp.core.entries.memo`) are computed once per analysis, once
across threads, and die with their analysis: nothing process-wide keeps a closed
document alive.
"""

from __future__ import annotations

import gc
import threading
import weakref
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.checks.document import Document, Position
from pi_lsp.core.entries.memo import per_analysis
from pi_lsp.core.entries.model import Options
from pi_lsp.core.text.linemap import LineChange, LineMap
from pi_lsp.core.views import describe, refs

DATA = Path(__file__).resolve().parents[1] / "data"
TEXT = (DATA / "fixed" / "pi420-result-for-call-on-other-branch.jsonl").read_text("utf-8")


@st.composite
def edit_sequences(draw: st.DrawFn) -> tuple[int, list[LineChange]]:
    lines = draw(st.integers(0, 30))
    count = lines
    edits = []
    for _ in range(draw(st.integers(0, 8))):
        first = draw(st.integers(0, count))
        removed = draw(st.integers(0, count - first))
        added = draw(st.integers(0, 5))
        edits.append(LineChange(first, removed, added))
        count += added - removed
    return lines, edits


@settings(max_examples=300, deadline=None)
@given(edit_sequences())
def test_line_map_follows_every_surviving_line(case: tuple[int, list[LineChange]]) -> None:
    lines, edits = case
    model: list[int | None] = list(range(lines))  # old line of each new line, None = written
    line_map = LineMap.identity(lines)
    for edit in edits:
        model[edit.first : edit.first + edit.removed] = [None] * edit.added
        line_map = line_map.then(edit)
    for new, old in enumerate(model):
        assert line_map.to_old(new) == old
    survivors = {old: new for new, old in enumerate(model) if old is not None}
    for old in range(lines):
        assert line_map.to_new(old) == survivors.get(old)
    assert line_map.to_old(len(model)) is None and line_map.to_old(-1) is None


def _fresh(text: str) -> Document:
    doc = Document.open("file:///t/s.jsonl", text, 1, None, Options())
    assert doc.snapshot() is None  # nothing analysed yet: nothing to answer from
    doc.run_analysis()
    return doc


def test_a_line_removal_shifts_every_later_line() -> None:
    doc = _fresh(TEXT)
    before = doc.snapshot()
    assert before is not None and before.current
    doc.apply_change(Position(2, 0), Position(3, 0), "", "utf-16")
    doc.set_version(2)
    snap = doc.snapshot()
    assert snap is not None and not snap.current and snap.version == 2
    assert snap.analysis is before.analysis
    old_lines = before.analysis.lines
    assert [snap.to_analysis(n) for n in range(len(snap.text.lines))] == [
        0,
        1,
        *range(3, len(old_lines)),
    ]
    assert snap.to_text(2) is None
    assert [snap.to_text(n) for n in (0, 1, 3, len(old_lines) - 1)] == [
        0,
        1,
        2,
        len(old_lines) - 2,
    ]
    doc.run_analysis()
    after = doc.snapshot()
    assert after is not None and after.current and after.serial > snap.serial


def test_an_edit_inside_a_line_unmaps_only_that_line() -> None:
    doc = _fresh(TEXT)
    line = 3
    doc.apply_change(Position(line, 5), Position(line, 6), "x\ny", "utf-16")
    snap = doc.snapshot()
    assert snap is not None
    assert snap.to_analysis(line) is None and snap.to_analysis(line + 1) is None
    assert snap.to_analysis(line - 1) == line - 1
    assert snap.to_analysis(line + 2) == line + 1


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 12), st.integers(0, 3), st.sampled_from(["", "\n", "a\nb", "{\r\n"])
        ),
        max_size=6,
    ),
    st.booleans(),
)
def test_mapped_lines_have_the_same_text(
    changes: list[tuple[int, int, str]], full_sync: bool
) -> None:
    doc = _fresh(TEXT)
    first = len(doc.lines)
    for line, span, new in changes:
        last = len(doc.lines) - 1
        start = min(line, last)
        end = min(line + span, last)
        first = min(first, start)
        if full_sync:
            lines = list(doc.lines)
            lines[start : end + 1] = new.split("\n") if new else []
            doc.replace_all("\n".join(lines))
        else:
            doc.apply_change(Position(start, 0), Position(end, 0), new, "utf-16")
    snap = doc.snapshot()
    assert snap is not None
    old = snap.analysis.lines
    for n, text in enumerate(snap.text.lines):
        o = snap.to_analysis(n)
        if o is not None:
            assert old[o] == text
            assert snap.to_text(o) == n
    # every line before the first edited one is kept, where it was
    assert all(snap.to_analysis(n) == n for n in range(min(first, len(snap.text.lines))))


def test_full_sync_keeps_the_lines_equal_at_both_ends() -> None:
    doc = _fresh(TEXT)
    lines = list(doc.lines)
    doc.replace_all("\n".join([*lines[:4], "new", *lines[5:]]))
    snap = doc.snapshot()
    assert snap is not None
    assert [snap.to_analysis(n) for n in range(len(lines))] == [
        *range(4),
        None,
        *range(5, len(lines)),
    ]


class Marker:
    """A view value that can be weakly referenced: alive exactly while its analysis is."""


@per_analysis
def marker(a: object) -> Marker:
    return Marker()


def test_views_are_computed_once_and_die_with_their_analysis() -> None:
    calls: list[int] = []

    @per_analysis
    def view(a: object) -> list[int]:
        calls.append(1)
        return [len(calls)]

    a = analyze(TEXT)
    assert view(a) is view(a) and len(calls) == 1
    assert view(analyze(TEXT)) is not view(a)
    refs.index(a)
    describe.session_totals(a)
    gone = weakref.ref(marker(a))
    assert gone() is marker(a)
    del a
    gc.collect()
    assert gone() is None, "something outside the analysis keeps it (or its views) alive"


def test_threads_asking_for_one_view_compute_it_once() -> None:
    started, release = threading.Event(), threading.Event()
    calls: list[int] = []

    @per_analysis
    def slow(a: object) -> int:
        calls.append(1)
        started.set()
        release.wait(10)
        return len(calls)

    a = analyze(TEXT)
    results: list[int] = []
    threads = [threading.Thread(target=lambda: results.append(slow(a))) for _ in range(3)]
    for t in threads:
        t.start()
    started.wait(10)
    release.set()
    for t in threads:
        t.join()
    assert results == [1, 1, 1] and calls == [1]


def test_a_closed_document_leaves_nothing_behind() -> None:
    doc = _fresh(TEXT)
    doc.apply_change(Position(1, 0), Position(1, 0), " ", "utf-16")
    snap = doc.snapshot()
    assert snap is not None
    refs.index(snap.analysis)
    gone = weakref.ref(marker(snap.analysis))
    del snap, doc
    gc.collect()
    assert gone() is None
