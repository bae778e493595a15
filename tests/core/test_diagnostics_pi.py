"""Diagnostics measured against what pi 0.73.1 really does with a file.

pi reads a session with ``content.trim().split("\\n")`` and ``JSON.parse`` per line,
skipping lines that do not parse; the header is the first line that parses; ``byId``
keeps the last entry with an id; the leaf is the last non-header entry. Each test here
was checked against pi's SessionManager (node) while writing it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.text.findings import Severity

from .pi_sessions import SID, assistant, doc, entry, header, result, user

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
CLEAN = DATA / "fixed" / "pi400-dangling-parent.jsonl"
A, B, C = "aaaaaaaa", "bbbbbbbb", "cccccccc"


def clean_lines() -> list[str]:
    return CLEAN.read_text(encoding="utf-8").rstrip("\n").split("\n")


def with_header(line0: str) -> str:
    lines = clean_lines()
    lines[0] = line0
    return "\n".join(lines) + "\n"


def codes(text: str) -> list[tuple[str, int]]:
    return [(f.code, f.span.line) for f in analyze(text).findings]


# ----------------------------------------------------------------------------- header rules


def test_header_is_the_first_line_that_parses() -> None:
    """A broken first line is skipped by pi; the header on line 2 still counts."""
    lines = clean_lines()
    text = "\n".join(['{"type":"session",', *lines]) + "\n"
    assert codes(text) == [("PI001", 0)]


def test_leading_and_trailing_blank_lines() -> None:
    """pi trims the file; blank lines at the end are not 'inside the file'."""
    text = "\n".join(clean_lines()) + "\n\n\n   \n"
    assert codes(text) == []


def test_cut_off_line_in_the_middle_is_pi001_not_pi002() -> None:
    lines = clean_lines()
    lines.insert(2, lines[1][:60])
    assert codes("\n".join(lines) + "\n") == [("PI001", 2)]


def test_three_entries_with_one_id() -> None:
    lines = clean_lines()
    found = codes("\n".join([*lines, lines[3], lines[3]]) + "\n")
    assert found == [("PI401", 4), ("PI401", 5)]


def test_misplaced_header_fixture_reports_pi100() -> None:
    a = analyze((DATA / "broken" / "pi101-header-not-on-first-line.jsonl").read_text("utf-8"))
    assert ("PI100", 0) in [(f.code, f.span.line) for f in a.findings]


def test_misplaced_header_is_pi101() -> None:
    path = DATA / "broken" / "pi101-header-not-on-first-line.jsonl"
    text = path.read_text("utf-8")
    a = analyze(text)
    line = a.lines[1]
    start = line.index('"session"')
    pi101 = [f for f in a.findings if f.code == "PI101"]
    assert [(f.span.line, f.span.start, f.span.end) for f in pi101] == [
        (1, start, start + len('"session"'))
    ]
    assert pi101[0].severity is Severity.ERROR


@pytest.mark.parametrize(("raw", "want"), [("3.0", []), ("3e0", []), ("2.0", [("PI103", 0)])])
def test_integral_number_version_is_that_version(raw: str, want: list[tuple[str, int]]) -> None:
    header = clean_lines()[0].replace('"version":3', f'"version":{raw}')
    assert codes(with_header(header)) == want


@pytest.mark.parametrize(("raw", "shown"), [("null", "null"), ("true", "true"), ('"3"', '"3"')])
def test_pi102_message_quotes_the_json_value(raw: str, shown: str) -> None:
    header = clean_lines()[0].replace('"version":3', f'"version":{raw}')
    (f,) = [f for f in analyze(with_header(header)).findings if f.code == "PI102"]
    assert f"version {shown}" in f.message


@pytest.mark.parametrize("raw", ["0", "-1", "2.5", '"3"', "true", "null", "[3]"])
def test_pi102_error_for_anything_but_an_integer_1_to_3(raw: str) -> None:
    header = clean_lines()[0].replace('"version":3', f'"version":{raw}')
    a = analyze(with_header(header))
    (f,) = [f for f in a.findings if f.code == "PI102"]
    assert f.severity is Severity.ERROR
    start = a.lines[0].index(raw, a.lines[0].index('"version":'))
    assert (f.span.line, f.span.start, f.span.end) == (0, start, start + len(raw))


@pytest.mark.parametrize("raw", ["4", "17"])
def test_pi102_warning_for_a_newer_version(raw: str) -> None:
    header = clean_lines()[0].replace('"version":3', f'"version":{raw}')
    found = [(f.code, f.severity) for f in analyze(with_header(header)).findings]
    assert found == [("PI102", Severity.WARNING)]


# ----------------------------------------------------------------------------- relations


def test_pi420_points_at_the_call_on_the_other_branch() -> None:
    path = DATA / "broken" / "pi420-result-for-call-on-other-branch.jsonl"
    a = analyze(path.read_text("utf-8"))
    (f,) = a.findings
    line = a.lines[2]
    start = line.index('"toolu_01"')
    assert [(r.span.line, r.span.start, r.span.end) for r in f.related] == [
        (2, start, start + len('"toolu_01"'))
    ]


# ----------------------------------------------------------------------------- messages vs pi


@pytest.mark.parametrize("name", ["pi100-first-line-not-a-header", "pi100-header-id-not-a-string"])
def test_pi100_message_says_pi_overwrites_the_file(name: str) -> None:
    a = analyze((DATA / "broken" / f"{name}.jsonl").read_text("utf-8"))
    (f,) = [f for f in a.findings if f.code == "PI100"]
    assert re.search(
        r"overwrit|truncat|replac|rewrit|new session|start\w* (a )?(fresh|new)", f.message
    )


def test_pi101_message_says_pi_skips_the_second_header() -> None:
    a = analyze((DATA / "broken" / "pi101-second-header.jsonl").read_text("utf-8"))
    (f,) = a.findings
    assert "breaks the tree" not in f.message
    assert re.search(r"skip|ignor", f.message)


def test_pi003_message_for_a_null_line_says_pi_crashes() -> None:
    lines = clean_lines()
    lines.insert(3, "null")
    (f,) = [f for f in analyze("\n".join(lines) + "\n").findings if f.code == "PI003"]
    assert re.search(r"crash|throw|cannot (be )?(open|load)|fails", f.message)


def test_pi003_message_for_a_trailing_non_entry_says_pi_resumes_there() -> None:
    lines = clean_lines()
    lines.append(json.dumps({"id": "708192a3", "note": "stray"}))
    (f,) = [f for f in analyze("\n".join(lines) + "\n").findings if f.code == "PI003"]
    assert re.search(r"leaf|resum|context", f.message)


# ----------------------------------------------------------------------------- PI421 scope


def _turns(*extra: str) -> str:
    path = DATA / "broken" / "pi421-call-without-result.jsonl"
    lines = path.read_text("utf-8").rstrip("\n").split("\n")
    return "\n".join([*lines, *extra]) + "\n"


def test_pi421_only_for_the_last_turn() -> None:
    """pi fills in a synthetic result for a call left behind by a later turn: no PI421 there."""
    user = clean_lines()[1].replace('"1a2b3c4d"', '"5e6f7081"', 1)
    user = user.replace('"parentId":null', '"parentId":"3c4d5e6f"')
    assert codes(_turns(user)) == []


def test_pi421_not_for_an_aborted_turn() -> None:
    """pi-ai drops an aborted turn with its calls: nothing waits for a result (no PI421), but
    the result the file holds for one of them is now sent as an orphan (PI423 on the turn)."""
    text = _turns().replace('"stopReason":"toolUse"', '"stopReason":"aborted"')
    assert codes(text) == [("PI423", 2)]


# ----------------------------------------------------------------------------- v2 rules


def test_pi300_and_pi302_in_a_v2_file() -> None:
    """pi migrates a v2 file only to rename hookMessage: an entry without ids stays without,
    and a compaction's ``firstKeptEntryIndex`` is never converted (v1 → v2 only)."""
    text = doc(
        header(2),
        user(A, None),
        entry("model_change", None, False, provider="anthropic", modelId="claude"),
        entry(
            "compaction",
            C,
            A,
            summary="S",
            firstKeptEntryId=A,
            firstKeptEntryIndex=1,
            tokensBefore=9,
        ),
    )
    a = analyze(text)
    found = [(f.code, f.severity, f.span.line) for f in a.findings if f.code != "PI103"]
    assert found == [("PI300", Severity.ERROR, 2), ("PI302", Severity.WARNING, 3)]
    pi300, pi302 = (f for f in a.findings if f.code in ("PI300", "PI302"))
    assert "root" in pi300.message and "v2" in pi302.message
    key = a.lines[3].index('"firstKeptEntryIndex"')
    assert (pi302.span.start, pi302.span.end) == (key, key + len('"firstKeptEntryIndex"'))


# ----------------------------------------------------------------------------- v1 headers


@pytest.mark.parametrize("version", [0, -1])
def test_version_below_one_is_read_as_pi_reads_it(version: int) -> None:
    """pi's ``version < 2`` migrates the file as v1: entries chain in file order, so a
    tool result answers the call before it (checked with pi 0.73.1 and 1.6.0)."""
    text = doc(
        header(version),
        user(None, False),
        assistant(None, False, calls=("t1",)),
        result(None, False, "t1"),
        assistant(None, False, "done"),
    )
    a = analyze(text)
    assert a.version == 1
    assert a.tree.active == [1, 2, 3, 4]
    (pi102,) = [f for f in a.findings if f.code == "PI102"]
    assert "as v1" in pi102.message
    assert not [f for f in a.findings if f.code.startswith(("PI3", "PI4"))]


def test_v1_entries_with_only_a_parent_id_are_half_migrated() -> None:
    text = doc(header(None), user(None, False), user(None, "aaaaaaaa"), user(None, False))
    a = analyze(text)
    (f,) = [f for f in a.findings if f.code == "PI303"]
    assert f.data == {"entries": 1}
    start = a.lines[2].index('"aaaaaaaa"')
    assert [(r.span.line, r.span.start, r.span.end) for r in f.related] == [
        (2, start, start + len('"aaaaaaaa"'))
    ]


# ----------------------------------------------------------------------------- file name


def _named(uuid: str) -> str:
    return f"/home/u/.pi/agent/sessions/--home-u--/2026-01-02T03-04-05-678Z_{uuid}.jsonl"


@pytest.mark.parametrize("uuid", [SID, SID.upper(), SID[:9] + SID[9:].upper()])
def test_file_name_uuid_in_any_case_is_the_header_id(uuid: str) -> None:
    assert [f.code for f in analyze(doc(header(), user(A, None)), _named(uuid)).findings] == []


def test_file_name_uuid_that_differs_is_pi104() -> None:
    other = "ffffffff" + SID[8:]
    (f,) = analyze(doc(header(), user(A, None)), _named(other.upper())).findings
    assert (f.code, f.severity) == ("PI104", Severity.HINT)


# ----------------------------------------------------------------------------- whole lines


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("[1]   ", "[1]"),
        ("  [1]\t ", "[1]"),
        ('"text" ', '"text"'),
        ("42\t", "42"),
        ('{"a":1}  ', '{"a":1}'),
    ],
)
def test_a_whole_line_finding_ends_before_trailing_whitespace(line: str, value: str) -> None:
    a = analyze(doc(header(), user(A, None), line, user(B, A)))
    (f,) = a.findings
    start = line.index(value)
    assert (f.code, f.span.line, f.span.start, f.span.end) == (
        "PI003",
        2,
        start,
        start + len(value),
    )


@pytest.mark.parametrize("pad", ["   ", "\t ", " \t"])
def test_a_finding_on_a_whole_entry_line_ends_before_trailing_whitespace(pad: str) -> None:
    """PI100 on an entry that comes before the header covers the entry, not its padding."""
    first = user(A, None)
    a = analyze(doc("  " + first + pad, header(), user(B, A)))
    (f,) = [f for f in a.findings if f.code == "PI100"]
    assert (f.span.line, f.span.start, f.span.end) == (0, 2, 2 + len(first))
