"""An open document (pi_lsp.core.document): what it keeps when opened, its text after changes."""

from __future__ import annotations

from pi_lsp.core.document import Document, Position
from pi_lsp.core.model import Options

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
    assert snap_a.options == options
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
