"""An open document (pi_lsp.core.checks.document): what it keeps when opened, its text after changes."""

from __future__ import annotations

import threading
import time

import pytest

import pi_lsp.core.checks.analysis as analysis_module
from pi_lsp.core.checks.document import Document, Position
from pi_lsp.core.entries.model import Options
from pi_lsp.core.text.lineindex import split_lines

from .pi_sessions import doc, header, user

HEADER = '{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}'


def test_open_keeps_uri_version_path_and_options() -> None:
    options = Options(large_line=4096)
    doc = Document.open("file:///s.jsonl", HEADER + "\n", 7, "/s.jsonl", options)
    assert (doc.uri, doc.version, doc.path, doc.options) == (
        "file:///s.jsonl",
        7,
        "/s.jsonl",
        options,
    )
    assert doc.lines == [HEADER, ""]
    snap_a = doc.analysis
    assert snap_a.options == options and snap_a.path == "/s.jsonl"
    snap = doc.snapshot()
    assert snap is not None
    assert (snap.uri, snap.version) == ("file:///s.jsonl", 7)


def test_a_ranged_change_inside_a_line() -> None:
    doc = Document.open("u", "abc\ndef\n", 1, None, Options())
    doc.apply_change(Position(1, 1), Position(1, 2), "XY", "utf-16")
    assert doc.source == "abc\ndXYf\n"
    assert doc.lines == ["abc", "dXYf", ""]


def test_a_reversed_range_is_applied_as_its_forward_range() -> None:
    doc = Document.open("u", "abc\ndef\n", 1, None, Options())
    doc.apply_change(Position(1, 2), Position(0, 1), "-", "utf-16")
    assert doc.source == "a-f\n"


def test_a_change_joining_a_cr_and_an_lf_makes_one_line_break() -> None:
    doc = Document.open("u", "a\rb", 1, None, Options())
    doc.apply_change(Position(1, 0), Position(1, 0), "\n", "utf-16")
    assert doc.source == "a\r\nb"
    assert doc.lines == ["a", "b"]
    assert doc.text.terminators == ["\r\n", ""]


def test_a_change_across_lines_ending_with_a_terminator() -> None:
    doc = Document.open("u", "one\ntwo\nthree\n", 1, None, Options())
    doc.apply_change(Position(0, 2), Position(2, 1), "X\nY", "utf-16")
    assert doc.source == "onX\nYhree\n"
    assert doc.lines == ["onX", "Yhree", ""]


def test_emoji_lines_stay_compact_through_a_ranged_edit_and_a_full_replace() -> None:
    """A line with an emoji is held as its UTF-8 bytes (CPython would store the str at 4
    bytes a character); edits keep the lines they do not touch as they were stored, and
    store the lines they make the same way."""
    entries = [user(f"{n:08x}", f"{n - 1:08x}" if n else None, "ship it 🚀 " * 30) for n in range(6)]
    document = Document.open("u", doc(header(), *entries), 1, None, Options())

    def emoji_lines_are_bytes() -> bool:
        return all(
            isinstance(document.lines.raw(n), bytes) == (max(line, default="") > "\uffff")
            for n, line in enumerate(document.lines)
        )

    assert emoji_lines_are_bytes() and document.analysis.findings == []
    before = [document.lines.raw(n) for n in range(len(document.lines))]
    column = entries[2].index("🚀")  # a code point: the UTF-32 column
    document.apply_change(Position(3, column), Position(3, column + 1), "🛸", "utf-32")
    assert document.lines[3] == entries[2].replace("🚀", "🛸", 1)
    assert emoji_lines_are_bytes() and document.analysis.findings == []
    assert all(document.lines.raw(n) is before[n] for n in range(len(before)) if n != 3)
    edited = document.lines.raw(3)
    grown = document.source + doc(user("00000006", "00000005", "more 🌱"))
    document.replace_all(grown)
    assert document.source == grown and emoji_lines_are_bytes()
    assert len(document.lines) == 9 and isinstance(document.lines.raw(7), bytes)
    # an append keeps the lines it extends
    assert document.lines.raw(1) is before[1] and document.lines.raw(3) is edited
    document.replace_all(grown.replace("🚀", "🛸"))
    assert document.source == grown.replace("🚀", "🛸") and emoji_lines_are_bytes()


def test_set_version_is_what_a_snapshot_reports() -> None:
    doc = Document.open("u", HEADER + "\n", 1, None, Options())
    assert doc.analysis.findings == []
    doc.apply_change(Position(1, 0), Position(1, 0), HEADER + "\n", "utf-16")
    doc.set_version(2)
    snap = doc.snapshot()
    assert snap is not None
    assert snap.version == 2
    assert not snap.current
    assert snap.to_analysis(0) == 0
    assert snap.to_text(0) == 0


def test_full_sync_of_an_appended_text_keeps_the_line_objects() -> None:
    doc = Document.open("u", "a\nb\nc", 1, None, Options())
    before = list(doc.lines)
    doc.replace_all("a\nb\ncd\ne\n")
    assert doc.lines == ["a", "b", "cd", "e", ""]
    assert doc.lines[0] is before[0] and doc.lines[1] is before[1]
    assert doc.text.terminators == ["\n", "\n", "\n", "\n", ""]


def test_full_sync_by_lines_keeps_the_line_objects_of_an_appended_text() -> None:
    """Lines split elsewhere (the server's decoder splits a large text) keep the line
    objects of the text they extend, up to a lone \\r that became \\r\\n."""
    doc = Document.open("u", split_lines("a\nb\rc"), 1, None, Options())
    before = list(doc.lines)
    doc.replace_all(split_lines("a\nb\r\ncd\n"))
    assert doc.text == split_lines("a\nb\r\ncd\n")
    assert doc.lines[0] is before[0]
    kept = list(doc.lines)
    doc.replace_all(split_lines("a\nb\r\ncd\nx"))
    assert doc.text == split_lines("a\nb\r\ncd\nx")
    assert all(new is old for new, old in zip(doc.lines[:3], kept[:3], strict=True))
    doc.replace_all(split_lines("a\nB\r\ncd\nx"))
    assert doc.source == "a\nB\r\ncd\nx"


def test_full_sync_of_another_text_replaces_every_line() -> None:
    doc = Document.open("u", "a\nb\n", 1, None, Options())
    doc.replace_all("x\r\ny")
    assert doc.lines == ["x", "y"]
    assert doc.text.terminators == ["\r\n", ""]
    doc.replace_all("x\ny")
    assert doc.source == "x\ny"


def test_full_sync_after_a_lone_cr_resplits_from_before_it() -> None:
    doc = Document.open("u", "a\nb\rc", 1, None, Options())
    doc.replace_all("a\nb\r\nc")
    assert doc.lines == ["a", "b", "c"]
    assert doc.text.terminators == ["\n", "\r\n", ""]


def test_a_change_is_placed_in_the_clients_code_units() -> None:
    doc = Document.open("u", "é€x\né€y", 1, None, Options())
    # UTF-8: é is 2 bytes, € 3; the change replaces the x and the y
    doc.apply_change(Position(0, 5), Position(0, 6), "1", "utf-8")
    doc.apply_change(Position(1, 5), Position(1, 6), "2", "utf-8")
    assert doc.source == "é€1\né€2"


def test_a_snapshot_maps_only_the_edits_since_the_analysis_it_holds() -> None:
    doc = Document.open("u", "a\nb\nc", 1, None, Options())
    first = doc.analysis
    doc.apply_change(Position(0, 0), Position(0, 0), "new\n", "utf-16")
    snap = doc.snapshot()
    assert snap is not None and snap.analysis is first
    assert [snap.to_analysis(n) for n in range(4)] == [None, 0, 1, 2]
    doc.apply_change(Position(0, 0), Position(0, 0), "n2\n", "utf-16")
    snap = doc.snapshot()
    assert snap is not None
    assert [snap.to_analysis(n) for n in range(5)] == [None, None, 0, 1, 2]
    assert snap.to_text(0) == 2
    second = doc.analysis
    doc.apply_change(Position(4, 0), Position(4, 1), "C", "utf-16")
    snap = doc.snapshot()
    assert snap is not None and snap.analysis is second
    assert [snap.to_analysis(n) for n in range(5)] == [0, 1, 2, 3, None]


def test_new_options_make_the_document_stale_until_re_analysed() -> None:
    doc = Document.open("u", HEADER + "\n", 1, None, Options())
    first = doc.analysis
    assert not doc.is_stale
    options = Options(large_line=4096)
    doc.set_options(options)
    assert doc.options == options
    assert doc.is_stale
    again = doc.analysis
    assert again is not first and again.options == options
    assert not doc.is_stale


def test_full_sync_of_an_appended_text_keeps_long_line_objects() -> None:
    # lines of more than one character: a re-split would make new string objects
    doc = Document.open("u", "first line\nsecond line\nthird", 1, None, Options())
    before = list(doc.lines)
    doc.replace_all("first line\nsecond line\nthird line\n")
    assert doc.lines == ["first line", "second line", "third line", ""]
    assert doc.lines[0] is before[0] and doc.lines[1] is before[1]


def test_a_snapshot_after_a_full_sync_maps_the_kept_lines() -> None:
    doc = Document.open("u", "first\nsecond\n", 1, None, Options())
    first = doc.analysis
    # not an append (the first line differs): the whole text is re-split
    doc.replace_all("x\ny\nsecond\n")
    snap = doc.snapshot()
    assert snap is not None and snap.analysis is first
    assert [snap.to_analysis(n) for n in range(4)] == [None, None, 1, 2]
    assert [snap.to_text(n) for n in range(3)] == [None, 2, 3]


def test_a_snapshot_after_an_appending_full_sync_maps_the_kept_lines() -> None:
    doc = Document.open("u", "first\nsecond\nthi", 1, None, Options())
    first = doc.analysis
    # the last line grew: it is edited; the lines before it are kept
    doc.replace_all("first\nsecond\nthird\nfourth\n")
    snap = doc.snapshot()
    assert snap is not None and snap.analysis is first
    assert [snap.to_analysis(n) for n in range(5)] == [0, 1, None, None, None]


def test_a_change_is_placed_in_utf16_code_units() -> None:
    doc = Document.open("u", "é€xyz", 1, None, Options())
    # UTF-16: é and € are one unit each; the change replaces the x
    doc.apply_change(Position(0, 2), Position(0, 3), "1", "utf-16")
    assert doc.source == "é€1yz"


def test_a_change_inside_a_utf8_line_keeps_the_text_after_it() -> None:
    doc = Document.open("u", "é€xyz", 1, None, Options())
    doc.apply_change(Position(0, 5), Position(0, 6), "1", "utf-8")
    assert doc.source == "é€1yz"


def test_a_change_keeps_the_line_objects_of_the_lines_it_does_not_touch() -> None:
    doc = Document.open("u", "first line\nsecond line\nthird line\n", 1, None, Options())
    before = list(doc.lines)
    doc.apply_change(Position(1, 0), Position(1, 6), "2nd", "utf-16")
    assert doc.lines == ["first line", "2nd line", "third line", ""]
    assert doc.lines[0] is before[0] and doc.lines[2] is before[2]


def _long_document() -> Document:
    """A document whose analysis polls ``progress`` / ``cancelled`` several times."""
    entry = '{"type":"custom","customType":"x","id":"%08x","parentId":null,"timestamp":"t"}'
    lines = [HEADER] + [entry % n + " " * 50 for n in range(100)]
    return Document.open("u", "\n".join(lines) + "\n", 1, None, Options())


@pytest.fixture
def small_tick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis_module, "_TICK", 2000)


@pytest.mark.usefixtures("small_tick")
def test_a_change_during_an_analysis_stops_it_and_installs_nothing() -> None:
    doc = _long_document()
    polls = 0

    def edit(done: int, total: int) -> None:
        nonlocal polls
        polls += 1
        if polls == 1:
            doc.apply_change(Position(1, 0), Position(1, 0), " ", "utf-16")

    assert doc.run_analysis(edit) is None
    assert polls == 1  # stopped at the poll after the change
    assert doc.snapshot() is None
    assert doc.analysis.text is doc.text


@pytest.mark.usefixtures("small_tick")
def test_new_options_during_an_analysis_stop_it() -> None:
    doc = _long_document()
    polls = 0

    def reconfigure(done: int, total: int) -> None:
        nonlocal polls
        polls += 1
        if polls == 1:
            doc.set_options(Options(large_line=4096))

    assert doc.run_analysis(reconfigure) is None
    assert polls == 1 and doc.snapshot() is None


@pytest.mark.usefixtures("small_tick")
def test_cancel_stops_a_running_analysis() -> None:
    doc = _long_document()
    polls = 0

    def close(done: int, total: int) -> None:
        nonlocal polls
        polls += 1
        doc.cancel()

    assert doc.run_analysis(close) is None
    assert polls == 1 and doc.snapshot() is None
    doc.cancel()  # nothing running: nothing to stop
    assert doc.run_analysis() is not None


def test_an_analysis_is_run_once_per_text_and_options() -> None:
    options = Options(large_line=4096)
    doc = Document.open("u", HEADER + "\n", 1, None, options)
    first = doc.run_analysis()
    assert first is not None and first.options == options and first.text is doc.text
    assert doc.run_analysis() is first


def test_a_snapshot_holds_the_current_text_and_tells_analyses_apart() -> None:
    doc = Document.open("u", HEADER + "\n", 1, None, Options())
    doc.run_analysis()
    one = doc.snapshot()
    assert one is not None and one.text is doc.text and one.current
    doc.apply_change(Position(1, 0), Position(1, 0), HEADER, "utf-16")
    stale = doc.snapshot()
    assert stale is not None and stale.text is doc.text and not stale.current
    assert stale.serial == one.serial
    doc.run_analysis()
    two = doc.snapshot()
    assert two is not None and two.current and two.serial != one.serial


@pytest.mark.usefixtures("small_tick")
def test_a_second_caller_waits_for_the_running_analysis_of_the_same_text() -> None:
    doc = _long_document()
    started, release = threading.Event(), threading.Event()
    results: dict[str, object] = {}

    def hold(done: int, total: int) -> None:
        started.set()
        release.wait(30)

    first = threading.Thread(target=lambda: results.update(first=doc.run_analysis(hold)))
    first.start()
    assert started.wait(30)
    second = threading.Thread(target=lambda: results.update(second=doc.run_analysis()))
    second.start()
    time.sleep(0.2)
    release.set()
    first.join(30)
    second.join(30)
    assert results["first"] is not None
    assert results["second"] is results["first"]


@pytest.mark.usefixtures("small_tick")
def test_the_callers_cancelled_stops_an_analysis_only_when_it_says_so() -> None:
    doc = _long_document()
    assert doc.run_analysis(cancelled=lambda: True) is None
    assert doc.snapshot() is None
    done = doc.run_analysis(cancelled=lambda: False)
    assert done is not None and done.text is doc.text


@pytest.mark.usefixtures("small_tick")
def test_an_analysis_with_polls_and_no_cancelled_runs_to_the_end() -> None:
    doc = _long_document()
    done = doc.run_analysis()
    assert done is not None and done.text is doc.text


@pytest.mark.usefixtures("small_tick")
def test_a_run_after_a_cancelled_one_checks_only_the_lines_it_did_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doc = _long_document()
    assert doc.run_analysis(cancelled=lambda: True) is None
    checked: list[str] = []
    check = analysis_module.check

    def counting(line: str, *args: object) -> object:
        checked.append(line)
        return check(line, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(analysis_module, "check", counting)
    assert doc.run_analysis() is not None
    # the first run finished some lines before its first poll: they are not checked again
    assert checked and len(checked) < len(doc.lines) - 5
    assert doc.lines[1] not in checked


def test_an_analysis_that_finishes_after_a_change_is_kept_but_not_returned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import pi_lsp.core.checks.document as document_module

    doc = Document.open("u", "a\nb\nc", 1, None, Options())
    assert doc.analysis.text is doc.text
    doc.apply_change(Position(0, 0), Position(0, 0), "x\n", "utf-16")
    analyzed = doc.text
    real = document_module.analyze

    def change_first(*args: object, **kwargs: object) -> object:
        # a change arrives while the (short, never polled) analysis runs
        doc.apply_change(Position(0, 0), Position(0, 0), "y\n", "utf-16")
        assert doc.snapshot() is not None
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(document_module, "analyze", change_first)
    assert doc.run_analysis() is None
    snap = doc.snapshot()
    assert snap is not None and snap.analysis.text is analyzed and not snap.current
    # only the change made since that analysis is mapped
    assert [snap.to_analysis(n) for n in range(5)] == [None, 0, 1, 2, 3]


def test_full_sync_of_a_two_line_text_grown_keeps_its_first_line() -> None:
    doc = Document.open("u", "first line\nsecond", 1, None, Options())
    before = doc.lines[0]
    doc.replace_all("first line\nsecond line\n")
    assert doc.lines == ["first line", "second line", ""]
    assert doc.lines[0] is before


def test_full_sync_after_two_lone_crs_joins_both_with_their_lfs() -> None:
    doc = Document.open("u", "first line\rsecond line\rthird", 1, None, Options())
    doc.replace_all("first line\r\nsecond line\r\nthird")
    assert doc.lines == ["first line", "second line", "third"]
    assert doc.text.terminators == ["\r\n", "\r\n", ""]


def test_full_sync_compares_each_kept_line_where_it_stands() -> None:
    doc = Document.open("u", "same\nsame\nend", 1, None, Options())
    doc.replace_all("same\nother\nend")
    assert doc.lines == ["same", "other", "end"]
    doc = Document.open("u", "\nx\nlast", 1, None, Options())
    doc.replace_all("\nx\r\nlast")
    assert doc.lines == ["", "x", "last"]
    assert doc.text.terminators == ["\n", "\r\n", ""]


def test_a_line_break_typed_at_a_line_end_maps_the_lines_around_it() -> None:
    doc = Document.open("u", "a\nb\nc", 1, None, Options())
    first = doc.analysis
    doc.apply_change(Position(1, 1), Position(1, 1), "\nnew", "utf-16")
    assert doc.lines == ["a", "b", "new", "c"]
    snap = doc.snapshot()
    assert snap is not None and snap.analysis is first
    assert [snap.to_analysis(n) for n in range(4)] == [0, 1, None, 2]
    assert [snap.to_text(n) for n in range(3)] == [0, 1, 3]


def test_full_sync_changing_the_first_line_keeps_the_lines_after_it_mapped() -> None:
    doc = Document.open("u", "p\na\nb\n", 1, None, Options())
    first = doc.analysis
    doc.replace_all("q\na\nb\n")
    snap = doc.snapshot()
    assert snap is not None and snap.analysis is first
    assert [snap.to_analysis(n) for n in range(4)] == [None, 1, 2, 3]


@pytest.mark.usefixtures("small_tick")
def test_two_cancelled_runs_both_spare_their_lines_to_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doc = _long_document()
    runs: list[list[str]] = []
    check = analysis_module.check

    def counting(line: str, *args: object) -> object:
        runs[-1].append(line)
        return check(line, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(analysis_module, "check", counting)
    polls = 0

    def second_poll() -> bool:
        nonlocal polls
        polls += 1
        return polls == 2

    runs.append([])
    assert doc.run_analysis(cancelled=lambda: True) is None
    runs.append([])
    assert doc.run_analysis(cancelled=second_poll) is None
    runs.append([])
    assert doc.run_analysis() is not None
    assert all(runs)
    # every entry is checked once (the header is read anew by each run): the last run
    # checks the lines of neither cancelled run again
    checked = [line for run in runs for line in run if line != HEADER]
    assert len(checked) == len(set(checked))


def test_full_sync_growing_the_line_after_a_lone_cr_re_splits_it() -> None:
    doc = Document.open("u", "first\rsecond", 1, None, Options())
    doc.replace_all("first\rsecond line")
    assert doc.lines == ["first", "second line"]


def test_a_run_after_a_change_checks_only_the_changed_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doc = _long_document()
    assert doc.run_analysis() is not None
    doc.apply_change(Position(5, 0), Position(5, 0), " ", "utf-16")
    checked: list[str] = []
    check = analysis_module.check

    def counting(line: str, *args: object) -> object:
        checked.append(line)
        return check(line, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(analysis_module, "check", counting)
    assert doc.run_analysis() is not None
    assert doc.lines[5] in checked and doc.lines[6] not in checked


def test_full_sync_after_three_lone_crs_maps_only_the_grown_last_line() -> None:
    doc = Document.open("u", "a\rb\rc\rd", 1, None, Options())
    first = doc.analysis
    doc.replace_all("a\rb\rc\rd more")
    assert doc.lines == ["a", "b", "c", "d more"]
    snap = doc.snapshot()
    assert snap is not None and snap.analysis is first
    assert [snap.to_analysis(n) for n in range(4)] == [0, 1, 2, None]


def test_a_replaced_analysis_is_kept_until_taken_or_the_next_run() -> None:
    """:meth:`Document.run_analysis` does not free the analysis it replaces: the caller
    takes it (to free it later); one nobody took is dropped when the next run starts."""
    document = Document.open("u", doc(header(), user("a1", None)), 1, None, Options())
    first = document.analysis
    assert document.take_replaced() == []
    document.apply_change(Position(1, 0), Position(1, 0), " ", "utf-16")
    second = document.analysis
    taken = document.take_replaced()
    assert len(taken) == 1 and taken[0] is first
    assert document.take_replaced() == []
    document.apply_change(Position(1, 0), Position(1, 0), " ", "utf-16")
    third = document.analysis  # replaces the second analysis; nobody takes that
    document.apply_change(Position(1, 0), Position(1, 0), " ", "utf-16")
    assert document.analysis is not third
    left = document.take_replaced()  # the second was dropped when the fourth run started
    assert len(left) == 1 and left[0] is third and second is not third
