"""Lines are read as pi 1.6 reads them, and messages say where pi 0.73 read them otherwise.

pi 1.6 (``loadEntriesFromFile``, since 0.78.1) splits the file at ``\\n`` and gives each line
to ``JSON.parse`` as it is; pi 0.73 trimmed the whole file first. Each case here is checked
against the rules, and, where pi 1.6 is installed, against pi 1.6's own loader.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.lines import Kind
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.text.findings import Severity
from tests.core.pi16 import find_pi16, module_url, run
from tests.core.pi_sessions import assistant, header, js, user

HEAD = header()
U1 = user("1a2b3c4d", None)
A1 = assistant("2b3c4d5e", "1a2b3c4d")
U2 = user("3c4d5e6f", "2b3c4d5e", "and now?")


def doc(*lines: str, end: str = "\n") -> str:
    return "\n".join(lines) + end


def codes(a: Analysis) -> list[tuple[str, int]]:
    return [(f.code, f.span.line) for f in a.findings]


def only(a: Analysis, code: str) -> tuple[int, int, int, str, Severity]:
    (f,) = [f for f in a.findings if f.code == code]
    return f.span.line, f.span.start, f.span.end, f.message, f.severity


# ----------------------------------------------------------------------------- file edges


@pytest.mark.parametrize(
    ("space", "name"),
    [
        ("\ufeff", "U+FEFF (a byte-order mark)"),
        ("\u2028", "U+2028 (a line separator)"),
        ("\u00a0 ", "U+00A0 (a no-break space)"),
    ],
)
def test_space_before_the_header_makes_pi16_refuse_the_file(space: str, name: str) -> None:
    a = analyze(space + doc(HEAD, U1, A1, user("3c4d5e6f", "deadbeef")))
    line, start, end, message, severity = only(a, "PI100")
    assert (line, start, end, severity) == (0, 0, len(space), Severity.ERROR)
    assert name in message
    assert re.search(r"pi 1\.6 .*refuses to open the file.*pi 0\.73 trimmed", message)
    # the header is still read, so the rest of the file is analysed
    assert a.header_line == 0 and a.version == 3
    assert ("PI400", 3) in codes(a)


@pytest.mark.parametrize("space", ["\u00a0", "\u2028", "\ufeff"])
@pytest.mark.parametrize("end", ["", "\n", "\n\n"])
def test_space_after_the_last_entry_makes_pi16_skip_it(space: str, end: str) -> None:
    a = analyze(doc(HEAD, U1, A1, U2 + space, end=end))
    line, start, end_col, message, severity = only(a, "PI001")
    assert (line, start, end_col, severity) == (3, len(U2), len(U2) + len(space), Severity.ERROR)
    assert re.search(r"after the JSON at the end of the file.*pi skips this line.*0\.73", message)
    # pi 1.6's view: the entry is gone, the leaf is the entry before it
    assert a.infos[3].kind is Kind.INVALID
    assert a.tree.leaf == 2


def test_whitespace_json_parse_takes_is_no_problem() -> None:
    a = analyze(" \t" + doc(HEAD, U1, A1 + " \t\r"))
    assert codes(a) == []


def test_space_before_an_entry_inside_the_file_is_invalid_in_every_release() -> None:
    a = analyze(doc(HEAD, U1, "\u00a0" + A1, U2))
    line, start, _, message, _ = only(a, "PI001")
    assert (line, start) == (2, 0)
    assert "0.73" not in message  # pi 0.73 skipped it as well


def test_blank_lines_are_skipped_alike() -> None:
    a = analyze(doc("", HEAD, "", U1, " \u00a0\u2028", A1, ""))
    assert codes(a) == [("PI005", 0), ("PI005", 2), ("PI005", 4)]


# ----------------------------------------------------------------------------- torn lines


def test_cut_off_last_line_without_newline_says_what_older_releases_did() -> None:
    a = analyze(doc(HEAD, U1, A1, U2[:-30], end=""))
    _, _, _, message, _ = only(a, "PI002")
    assert re.search(r"pi skips it.*since 0\.84\.4.*older releases appended", message)


def test_cut_off_last_line_with_newline_needs_no_release_note() -> None:
    a = analyze(doc(HEAD, U1, A1, U2[:-30]))
    _, _, _, message, _ = only(a, "PI002")
    assert "0.84.4" not in message


@pytest.mark.parametrize("glue", ["", " "])
def test_two_entries_glued_on_one_line(glue: str) -> None:
    a = analyze(doc(HEAD, U1, A1 + glue + U2, user("4d5e6f70", "3c4d5e6f", "more")))
    line, start, _, message, severity = only(a, "PI001")
    assert (line, start, severity) == (2, len(A1) + len(glue), Severity.ERROR)
    assert re.search(r"2 JSON objects glued together.*pi skips it and both entries are lost", message)
    assert "still in the file" in message
    # both are missing, so the next entry's parent is gone
    assert ("PI400", 3) in codes(a)


def test_an_entry_cut_off_mid_write_with_the_next_glued_to_it() -> None:
    a = analyze(doc(HEAD, U1, A1[:-40] + U2))
    _, _, _, message, _ = only(a, "PI001")
    assert re.search(r"1 entry cut off mid-write with 1 complete one glued after it", message)


def test_glued_entries_in_a_v1_file_are_lost_for_good_on_migration() -> None:
    v1 = [header(None), user(None, False), assistant(None, False), user(None, False, "x")]
    a = analyze(doc(v1[0], v1[1], v1[2] + v1[3]))
    _, _, _, message, _ = only(a, "PI001")
    assert re.search(r"when pi migrates this v1 session it rewrites the file without this line", message)


def test_an_ordinary_syntax_error_is_not_called_glued() -> None:
    broken = A1.replace(',"api"', ',,"api"')
    a = analyze(doc(HEAD, U1, broken))
    _, _, _, message, _ = only(a, "PI001")
    assert "glued" not in message


# ----------------------------------------------------------------------------- PI104


@pytest.mark.parametrize(
    ("file_name", "header_id", "hint"),
    [
        ("2026-12-01T02-19-05-601Z_nightly.run-7.jsonl", "nightly.run-7", False),
        ("2026-12-01T02-19-05-601Z_nightly.run-7.jsonl", "nightly.run-8", True),
        ("2026-12-01T02-19-05-601Z_with_underscores.jsonl", "with_underscores", False),
        ("2026-12-01T02-19-05-601Z_ABCDEF.jsonl", "abcdef", True),
        ("my_session.jsonl", "session", False),  # not pi's form: the name says nothing
        ("session_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl", "other", False),
    ],
)
def test_file_name_session_id(file_name: str, header_id: str, hint: bool) -> None:
    text = doc(js({"type": "session", "version": 3, "id": header_id, "timestamp": "t", "cwd": "/"}), U1)
    a = analyze(text, path=f"/sessions/--p--/{file_name}")
    assert [f.code for f in a.findings] == (["PI104"] if hint else [])


def test_file_name_differing_in_case_says_so() -> None:
    text = doc(js({"type": "session", "version": 3, "id": "abc-def", "timestamp": "t", "cwd": "/"}), U1)
    a = analyze(text, path="/s/2026-12-01T02-19-05-601Z_ABC-DEF.jsonl")
    _, _, _, message, severity = only(a, "PI104")
    assert severity is Severity.HINT
    assert "only in letter case" in message and "`pi --session ABC-DEF` does not find" in message


# ----------------------------------------------------------------------------- pi 1.6 itself


LOADER_CASES = {
    "bom-header": "\ufeff" + doc(HEAD, U1, A1),
    "nbsp-after-last": doc(HEAD, U1, A1 + "\u00a0", end=""),
    "ls-after-last-newline": doc(HEAD, U1, A1 + "\u2028"),
    "nbsp-inside": doc(HEAD, "\u00a0" + U1, A1),
    "blank-lines": doc("", HEAD, " ", U1, "\u2028", A1, ""),
    "torn-last": doc(HEAD, U1, A1[:-20], end=""),
    "glued": doc(HEAD, U1 + A1, U2),
    "crlf": doc(HEAD, U1, A1).replace("\n", "\r\n"),
}


@pytest.mark.parametrize("name", LOADER_CASES)
def test_lines_pi16_keeps_are_the_lines_we_parse(name: str, tmp_path: Path) -> None:
    pi = find_pi16()
    if pi is None:
        pytest.skip("pi 1.6 (@earendil-works/pi-coding-agent) is not installed beside the repo")
    node, modules = pi
    text = LOADER_CASES[name]
    session = tmp_path / "s.jsonl"
    session.write_bytes(text.encode("utf-8"))
    loader = module_url(modules, "pi-coding-agent", "dist/core/session-manager.js")
    script = (
        f"import {{ loadEntriesFromFile }} from {loader};"
        f"console.log(JSON.stringify(loadEntriesFromFile({json.dumps(str(session))})));"
    )
    kept = json.loads(run(node, script))
    a = analyze(text)
    refused = any(f.code == "PI100" and f.severity is Severity.ERROR for f in a.findings)
    ours = [a.infos[i].value for i in range(len(a.infos)) if a.infos[i].parsed]
    assert kept == ([] if refused else ours)
