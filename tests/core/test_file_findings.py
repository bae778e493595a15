"""What the findings about the file itself say (pi_lsp.core.checks.file_findings): the header's
version, the file name, misplaced headers, lines pi cannot read, as pi 0.73.1 and 1.6 read
them (the version tests follow pi 0.73.1's ``migrateToCurrentVersion``: ``version ?? 1``
compared with ``>= 3``, ``< 2`` and ``< 3`` as JavaScript compares)."""

from __future__ import annotations

import re

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.checks.file_findings import line_findings
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.text.findings import Finding, Severity

from .pi_sessions import SID, assistant, doc, entry, header, js, user

A, B, C = "aaaaaaaa", "bbbbbbbb", "cccccccc"


def one(a: Analysis, code: str) -> Finding:
    (f,) = [f for f in a.findings if f.code == code]
    return f


def span(f: Finding) -> tuple[int, int, int]:
    return f.span.line, f.span.start, f.span.end


def with_version(raw: str) -> Analysis:
    line = header().replace('"version":3', f'"version":{raw}')
    return analyze(doc(line, user(A, None), assistant(B, A)))


# ----------------------------------------------------------------------------- PI102


V3 = "compares it as a number, reads it as v3 and does not migrate"
V2 = "compares it as a number and migrates the file as v2 (renaming hookMessage)"
V1 = "compares it as a number and migrates the file as v1, replacing every id and parent link"
NAN = "cannot compare it with a number and neither migrates nor rejects the file"


@pytest.mark.parametrize(
    ("raw", "pi"),
    [
        ('"3"', V3),
        ('"7"', V3),
        ('" 2 "', V2),
        ('"2.5"', V2),
        ("2.5", V2),
        ('""', V1),
        ("null", V1),
        ("true", V1),
        ("false", V1),
        ("0", V1),
        ("-4", V1),
        ('"abc"', NAN),
        ('{"v":3}', NAN),
        # JavaScript's Number(): arrays as the string they join to, strings by its grammar
        ("[3]", V3),
        ("[[3]]", V3),
        ('[" 3 "]', V3),
        ("[2]", V2),
        ("[]", V1),
        ("[null]", V1),
        ("[true]", NAN),
        ("[1,2]", NAN),
        ('"0x3"', V3),
        ('"0b11"', V3),
        ('"Infinity"', V3),
        ('"-Infinity"', V1),
        ('"1e0"', V1),
        ('"\u00a03"', V3),
        ('"inf"', NAN),
        ('"1_0"', NAN),
        ('"3X"', NAN),
        ('["x3"]', NAN),
        ("[false]", NAN),
        ('[{"a":3}]', NAN),
        ("[[2.0]]", V2),
        ("[[3],1]", NAN),  # an inner array's items, then the outer array's: "3,1"
        ("[[],3]", NAN),  # ",3"
        ('"0x"', NAN),
    ],
)
def test_pi102_says_what_pi_does_with_an_odd_version(raw: str, pi: str) -> None:
    a = with_version(raw)
    f = one(a, "PI102")
    assert f.severity is Severity.ERROR
    assert f.message == f"unsupported session version {raw} (expected an integer 1-3); pi {pi}"
    start = a.lines[0].index(raw, a.lines[0].index('"version":'))
    assert span(f) == (0, start, start + len(raw))


def test_pi102_reads_a_version_nested_thousands_deep_as_javascript_does() -> None:
    # node: [[...[2]...]] 3,000 deep compares as the string "2": not >= 3, not < 2, < 3
    raw = "[" * 3000 + "2" + "]" * 3000
    f = one(with_version(raw), "PI102")
    assert f.message.endswith("pi compares it as a number and migrates the file as v2 (renaming hookMessage)")


def test_pi102_an_object_nested_deep_in_a_version_is_no_number() -> None:
    # String({...}) is "[object Object]": NaN, whatever the object holds and however deep
    raw = "[" + '{"a":' * 3000 + "3" + "}" * 3000 + "]"
    f = one(with_version(raw), "PI102")
    assert f.message.endswith("pi cannot compare it with a number and neither migrates nor rejects the file")


def test_pi102_newer_version_is_a_warning_checked_as_v3() -> None:
    f = one(with_version("12"), "PI102")
    assert f.severity is Severity.WARNING
    assert f.message == (
        "session version 12 is newer than this checker knows (3); pi 0.73 loads it without "
        "migration; checked as v3"
    )
    assert [g.code for g in with_version("3").findings] == []


def test_a_version_below_one_is_unsupported_but_one_is_not() -> None:
    assert one(with_version("0"), "PI102").severity is Severity.ERROR
    v1 = analyze(doc(header(1), user(None, False)))
    assert [f.code for f in v1.findings] == ["PI103"]


# ----------------------------------------------------------------------------- PI103, PI303


def test_pi103_on_a_v1_and_a_v2_file() -> None:
    v1 = analyze(doc(header(None), user(None, False)))
    f = one(v1, "PI103")
    assert f.severity is Severity.WARNING and f.data == {"version": 1}
    assert f.message == (
        "session is v1, not migrated to v3; pi migrates it when it opens the session and "
        "rewrites the whole file with new random ids (quick fix: migrate)"
    )
    start = v1.lines[0].index('"session"')
    assert span(f) == (0, start, start + len('"session"'))  # no version key: on the type
    v2 = analyze(doc(header(2), user(A, None)))
    f = one(v2, "PI103")
    assert f.data == {"version": 2} and "random ids" not in f.message
    assert f.message.startswith("session is v2, not migrated to v3; ")
    start = v2.lines[0].index('"version":2') + len('"version":')
    assert span(f) == (0, start, start + 1)


def test_pi303_counts_the_entries_with_ids_and_points_at_the_first() -> None:
    text = doc(header(1), user(None, False), user(A, False), user(B, None), user(None, False))
    a = analyze(text)
    f = one(a, "PI303")
    assert f.severity is Severity.WARNING and f.data == {"entries": 2}
    assert f.message.startswith("header says v1 but 2 entries carry ids (half-migrated); ")
    version = a.lines[0].index('"version":1') + len('"version":')
    assert span(f) == (0, version, version + 1)
    start = a.lines[2].index(f'"{A}"')
    ((related,),) = [f.related]
    assert (related.span.line, related.span.start, related.span.end) == (2, start, start + 10)
    assert related.message == "first entry with an id"
    assert [g.code for g in analyze(doc(header(1), user(None, False))).findings] == ["PI103"]


def test_pi303_names_a_parent_id_when_the_first_has_no_id() -> None:
    a = analyze(doc(header(1), user(None, A), user(B, None)))
    ((related,),) = [one(a, "PI303").related]
    assert related.message == "first entry with a parentId"


# ----------------------------------------------------------------------------- PI104


def _named(ident: str) -> str:
    return f"/home/u/.pi/agent/sessions/--home-u--/2026-01-02T03-04-05-678Z_{ident}.jsonl"


def test_pi104_a_custom_id_that_differs_in_case() -> None:
    a = analyze(doc(header(id="MySession"), user(A, None)), _named("mysession"))
    f = one(a, "PI104")
    assert f.message == (
        "file name says session 'mysession' but the header id is 'MySession' (they differ only "
        "in letter case); pi names files after the header id and finds sessions by it alone, "
        "case-sensitively, so `pi --session mysession` does not find this file"
    )
    start = a.lines[0].index('"MySession"')
    assert span(f) == (0, start, start + len('"MySession"'))


def test_pi104_a_name_that_is_a_prefix_of_the_id() -> None:
    a = analyze(doc(header(id=SID), user(A, None)), _named(SID[:8]))
    f = one(a, "PI104")
    assert "(they differ" not in f.message
    assert f.message.endswith(f"`pi --session {SID[:8]}` finds this file only as a prefix")


def test_no_pi104_without_a_path_a_string_id_or_a_name_of_pis_form() -> None:
    text = doc(header(id="other"), user(A, None))
    assert "PI104" not in [f.code for f in analyze(text).findings]
    assert "PI104" not in [f.code for f in analyze(text, "/tmp/x/notes.jsonl").findings]
    assert "PI104" not in [f.code for f in analyze(text, _named("other")).findings]


# ----------------------------------------------------------------------------- PI100


def test_pi100_when_no_line_parses() -> None:
    a = analyze("\n  \n{oops\n{more\n")
    f = one(a, "PI100")
    assert span(f) == (2, 0, len("{oops"))
    assert f.message.startswith("no line of this file parses, so there is no session header; ")
    assert "pi 1.6 (since 0.80.3) leaves the session out of /resume" in f.message


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [("", "the file is empty, so there is no session header; ", "(pi 1.6 and 0.73 alike)"),
     ("\n  \n", "the file holds only blank lines, so there is no session header; ",
      "pi 0.73 overwrote it with a new session")],
)
def test_pi100_on_a_file_without_a_line_of_text(text: str, start: str, end: str) -> None:
    # pi leaves both out of /resume: an empty file is no clean session (issue 43, item 4)
    a = analyze(text)
    f = one(a, "PI100")
    assert [g.code for g in a.findings] == ["PI100"] and span(f) == (0, 0, len(text.split("\n")[0]))
    assert f.message.startswith(start) and f.message.endswith(end) and "/resume" in f.message


def test_pi100_when_the_first_line_that_parses_is_no_header() -> None:
    a = analyze(doc("{oops", user(A, None), header(), user(B, A)))
    f = one(a, "PI100")
    assert span(f) == (1, 0, len(a.lines[1]))
    assert f.message.startswith('the first line that parses is not a session header ({"type"')


def test_pi100_on_a_header_id_that_is_no_string() -> None:
    a = analyze(doc(header(id=7), user(A, None)))
    f = one(a, "PI100")
    start = a.lines[0].index('"id":7') + 5
    assert span(f) == (0, start, start + 1)
    assert f.message.startswith("the session header has no string 'id'; ")
    line = js({"type": "session", "version": 3, "timestamp": "t"})
    a = analyze(doc(line, user(A, None)))
    start = line.index('"session"')
    assert span(one(a, "PI100")) == (0, start, start + 9)  # no id: on the type's value


def test_book_headers_need_no_id_version_or_name() -> None:
    line = js({"type": "session_header", "version": 1, "createdAt": "t"})
    a = analyze(doc(line), _named("whatever"))
    assert [f.code for f in a.findings if f.code.startswith("PI1") and f.code != "PI105"] == []


# ----------------------------------------------------------------------------- PI101


def test_pi101_on_a_header_after_other_lines() -> None:
    text = doc("[1]", header(), user(A, None))
    a = analyze(text)
    f = one(a, "PI101")
    start = a.lines[1].index('"session"')
    assert span(f) == (1, start, start + len('"session"'))
    assert f.message == (
        "a session header after other lines; pi reads the first line that parses (line 1) as "
        "the header, and that is no session header"
    )
    ((related,),) = [f.related]
    assert (related.span.line, related.span.start, related.span.end) == (0, 0, 3)
    assert related.message == "the first line"


def test_pi101_on_a_second_header() -> None:
    a = analyze(doc(header(), user(A, None), header(id="x"), user(B, A)))
    f = one(a, "PI101")
    assert f.span.line == 2 and f.severity is Severity.ERROR
    assert f.message == (
        "a second session header inside the file; pi ignores it (only the first header "
        "counts), so the session it was meant to start is merged into this one"
    )
    ((related,),) = [f.related]
    assert (related.span.line, related.span.start, related.span.end) == (0, 0, len(a.lines[0]))
    assert related.message == "the session header"


# ----------------------------------------------------------------------------- PI005, PI001, PI002


def test_pi005_only_between_lines_with_content() -> None:
    a = analyze(doc(header(), "", user(A, None), "  ", "", assistant(B, A), "", " "))
    assert [span(f) for f in a.findings if f.code == "PI005"] == [
        (1, 0, 0),
        (3, 0, 2),
        (4, 0, 0),
    ]
    assert {f.severity for f in a.findings if f.code == "PI005"} == {Severity.INFORMATION}
    assert {f.message for f in a.findings if f.code == "PI005"} == {
        "blank line inside the file; pi skips it"
    }


def test_pi002_only_for_an_object_cut_off_on_the_last_line() -> None:
    cut = assistant(B, A)[:-30]
    a = analyze(doc(header(), user(A, None), cut, "", ""))
    f = one(a, "PI002")
    assert span(f) == (2, 0, len(cut)) and f.severity is Severity.ERROR
    # not last: PI001
    a = analyze(doc(header(), user(A, None), cut, user(C, A)))
    assert [f.code for f in a.findings if f.code in ("PI001", "PI002")] == ["PI001"]
    # the last line, but an array cut off: PI001
    a = analyze(doc(header(), user(A, None), "[1, 2"))
    assert [f.code for f in a.findings if f.code in ("PI001", "PI002")] == ["PI001"]


def test_pi001_span_starts_at_the_error_and_ends_before_trailing_space() -> None:
    a = analyze(doc(header(), user(A, None), '{"a": 1,, "b": 2}  ', user(B, A)))
    f = one(a, "PI001")
    line = a.lines[2]
    assert (f.span.line, f.span.end) == (2, len(line) - 2)
    assert f.span.start == line.index(",,") + 1
    assert f.message.startswith("line is not valid JSON (") and f.message.endswith(
        "); pi skips this line"
    )


def test_pi001_at_the_end_of_a_line_covers_its_last_character() -> None:
    a = analyze(doc(header(), user(A, None), '{"a": ', user(B, A)))
    f = one(a, "PI001")
    assert span(f) == (2, 4, 5)


@pytest.mark.parametrize(("raw", "byte"), [("\udc80", "80"), ("\udcff", "FF")])
def test_pi001_on_invalid_utf8_that_breaks_the_json(raw: str, byte: str) -> None:
    a = analyze(doc(header(), user(A, None), '{"a": ' + raw + "}", user(B, A)))
    f = one(a, "PI001")
    assert span(f) == (2, 6, 8)
    assert f.message == (
        f"invalid UTF-8 (byte 0x{byte}); pi decodes it as U+FFFD and skips the line if that "
        "breaks the JSON"
    )


def test_a_character_next_to_the_invalid_utf8_range_is_ordinary_bad_json() -> None:
    for raw in ("\udc7f", "\udd00"):
        a = analyze(doc(header(), user(A, None), '{"a": ' + raw + "}", user(B, A)))
        assert one(a, "PI001").message.startswith("line is not valid JSON (")


def test_three_whole_entries_glued_are_all_lost() -> None:
    u, b, c = user(A, None), assistant(B, A), user(C, B)
    f = one(analyze(doc(header(), u + b + c)), "PI001")
    assert "3 JSON objects glued together on one line" in f.message
    assert "pi skips it and all entries are lost" in f.message


def test_an_entry_cut_off_with_complete_ones_glued() -> None:
    u, b, c = user(A, None), assistant(B, A), user(C, B)
    f = one(analyze(doc(header(), u[:-20] + b + c)), "PI001")
    assert re.search(r": 1 entry cut off mid-write with 2 complete ones glued after it", f.message)
    assert "all entries are lost" in f.message
    f = one(analyze(doc(header(), u[:-20] + b)), "PI001")
    assert "1 entry cut off mid-write with 1 complete one glued after it" in f.message
    assert "both entries are lost" in f.message


def test_glued_entries_of_a_v2_file() -> None:
    u, b = user(A, None), assistant(B, A)
    f = one(analyze(doc(header(2), u + b)), "PI001")
    assert "when pi migrates this v2 session it rewrites the file without this line" in f.message
    f = one(analyze(doc(header(), u + b)), "PI001")
    assert f.message.endswith(" (they are still in the file: splitting the line restores them)")


def test_lone_unknown_leaf_says_pi_resumes_with_an_empty_context() -> None:
    a = analyze(doc(header(), user(A, None), entry("bookmark", B, None)))
    f = one(a, "PI004")
    assert f.message == (
        "unknown entry type 'bookmark' for this format; pi keeps the line, and as the last "
        "entry with no parent it is where pi resumes: the path from it holds only this entry, "
        "which pi does not send, so pi resumes with an empty context"
    )
    start = a.lines[2].index('"bookmark"')
    assert span(f) == (2, start, start + len('"bookmark"')) and f.severity is Severity.WARNING
    a = analyze(doc(header(), user(A, None), entry("bookmark", B, A)))
    assert "empty context" not in one(a, "PI004").message


def test_a_line_issue_keeps_its_severity_span_and_data() -> None:
    line = user(A, None).replace('"timestamp":1', '"timestamp":"x"')
    a = analyze(doc(header(), line))
    f = one(a, "PI200")
    start = line.index('"x"')
    assert span(f) == (1, start, start + 3) and f.severity is Severity.INFORMATION
    assert f.data == {"path": ["message", "timestamp"]}


def test_cut_off_last_line_without_a_final_newline() -> None:
    cut = assistant(B, A)[:-30]
    a = analyze(doc(header(), user(A, None)) + cut)
    f = one(a, "PI002")
    assert span(f) == (2, 0, len(cut))
    assert f.message == (
        "last line is cut off mid-object (the writer stopped before finishing it); pi skips it, "
        "so this entry is lost; pi 1.6 (since 0.84.4) starts the next entry on a new line, while "
        "older releases appended it to this line and lost it too"
    )
    a = analyze(doc(header(), user(A, None), cut))
    assert one(a, "PI002").message == (
        "last line is cut off mid-object (the writer stopped before finishing it); pi skips it, "
        "so this entry is lost"
    )


def test_two_whole_entries_glued_message() -> None:
    u, b = user(A, None), assistant(B, A)
    f = one(analyze(doc(header(), u + b, user(C, B))), "PI001")
    assert f.message == (
        "line is not valid JSON: 2 JSON objects glued together on one line: pi wrote an entry "
        "without its line break (it crashed mid-write, or the file lacked its final newline) and "
        "appended the next one to it (releases before 0.84.4 did; pi 1.6 adds the missing newline "
        "first); JSON.parse rejects the whole line, so pi skips it and both entries are lost "
        "(they are still in the file: splitting the line restores them)"
    )


def test_space_after_the_last_entry_message() -> None:
    a = analyze(doc(header(), user(A, None) + "\u00a0"))
    f = one(a, "PI001")
    n = len(user(A, None))
    assert span(f) == (1, n, n + 1) and f.severity is Severity.ERROR
    assert f.message == (
        "line is not valid JSON as pi 1.6 reads it: U+00A0 (a no-break space) after the JSON at "
        "the end of the file; pi 1.6 gives each line to JSON.parse as it is, which rejects it, so "
        "pi skips this line and the entry is lost; pi 0.73 trimmed the whole file and read it"
    )


def test_pi100_is_an_error() -> None:
    assert {f.severity for f in analyze("{oops\n").findings if f.code == "PI100"} == {
        Severity.ERROR
    }


def test_version_four_is_newer_and_v2_is_not_migrated() -> None:
    assert one(with_version("4"), "PI102").severity is Severity.WARNING
    v2 = analyze(doc(header(2), user(A, None)))
    assert one(v2, "PI103").message == (
        "session is v2, not migrated to v3; pi migrates it when it opens the session and "
        "rewrites the whole file (quick fix: migrate)"
    )


def test_pi303_message_and_a_parent_id_first() -> None:
    a = analyze(doc(header(1), user(None, A), user(B, None)))
    f = one(a, "PI303")
    assert f.message == (
        "header says v1 but 2 entries carry ids (half-migrated); pi will migrate again and "
        "replace every id and parent link"
    )
    ((related,),) = [f.related]
    start = a.lines[1].index(f'"{A}"')
    assert (related.span.line, related.span.start, related.span.end) == (1, start, start + 10)


def test_javascript_trims_a_byte_order_mark_python_does_not() -> None:
    f = one(with_version('"\ufeff3"'), "PI102")
    assert f.message.endswith("; pi compares it as a number, reads it as v3 and does not migrate")


def test_pi104_full_message_severity_and_uuids_in_other_case() -> None:
    other = "ffffffff" + SID[8:]
    a = analyze(doc(header(), user(A, None)), _named(other))
    f = one(a, "PI104")
    assert f.severity is Severity.HINT
    assert f.message == (
        f"file name says session '{other}' but the header id is '{SID}'; pi names files after "
        "the header id and finds sessions by it alone, case-sensitively, so "
        f"`pi --session {other}` does not find this file"
    )
    for name in (SID.upper(), SID[:4] + SID[4:].upper()):
        assert [g.code for g in analyze(doc(header(), user(A, None)), _named(name)).findings] == []
    upper = analyze(doc(header(id=SID.upper()), user(A, None)), _named(SID))
    assert [g.code for g in upper.findings] == []


def test_pi100_severities() -> None:
    assert one(analyze(doc(user(A, None), header())), "PI100").severity is Severity.ERROR
    assert one(analyze(doc(header(id=7), user(A, None))), "PI100").severity is Severity.ERROR


def test_space_before_the_json_of_a_first_line_that_is_an_entry() -> None:
    a = analyze(doc("\u00a0" + user(A, None), header()))
    (f,) = [g for g in a.findings if g.code == "PI001"]
    assert span(f) == (0, 0, 1)
    assert "U+00A0 (a no-break space) before the JSON at the start of the file" in f.message


def test_a_cut_off_last_line_after_spaces_is_still_pi002() -> None:
    cut = assistant(B, A)[:-30]
    a = analyze(doc(header(), user(A, None), "  " + cut))
    assert span(one(a, "PI002")) == (2, 0, len(cut) + 2)


def test_a_one_character_line_is_marked_on_that_character() -> None:
    a = analyze(doc(header(), user(A, None), "{", user(B, A)))
    f = one(a, "PI001")
    assert span(f) == (2, 0, 1) and f.severity is Severity.ERROR


def test_line_findings_of_the_lines_asked_for_only() -> None:
    a = analyze(doc(header(), "", user(A, None), "{oops", "", user(B, A)))
    all_lines = line_findings(a.text, a.infos, a.header_line, a.version, None)
    assert [(f.code, f.span.line) for f in all_lines] == [("PI005", 1), ("PI001", 3), ("PI005", 4)]
    some = line_findings(a.text, a.infos, a.header_line, a.version, None, only=[3, 4])
    assert [(f.code, f.span.line) for f in some] == [("PI001", 3), ("PI005", 4)]
