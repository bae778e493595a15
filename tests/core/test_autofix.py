"""``autofix.repair``: the whole-file repairs of ``check --fix``, and the rounds of safe fixes."""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.edits import autofix, doctor, repairs
from pi_lsp.core.text.findings import Severity
from pi_lsp.core.text.textedit import TextEdit, delete_lines

from .pi_sessions import SID, TS, assistant, doc, entry, header, hook, js, result, user

A, B, C, D, E = (c * 8 for c in "abcde")
NAME = f"2026-01-02T03-04-05-678Z_{SID}.jsonl"
FOLDER = "/home/u/.pi/agent/sessions/--home-user-project--"
PATH = f"{FOLDER}/{NAME}"
FIXTURES = Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures"


def objs(text: str) -> list[Any]:
    return [json.loads(line) for line in text.split("\n") if line.strip()]


def errors(text: str) -> list[tuple[str, int]]:
    a = analyze(text, path=PATH)
    return [(f.code, f.span.line) for f in a.findings if f.severity <= Severity.WARNING]


# ---------------------------------------------------------------------------- torn lines


def test_torn_line_with_an_appended_entry_is_split() -> None:
    torn = assistant(C, B)[:70]
    text = doc(
        header(), user(A, None), assistant(B, A), torn + user(D, C, "thanks"), assistant(E, D)
    )
    r = autofix.repair(text, PATH)
    assert [(x.line, x.code) for x in r.actions] == [(3, "PI001"), (3, "PI400")]
    out = r.text.split("\n")
    assert out[3] == json.dumps(
        {**json.loads(user(D, C, "thanks")), "parentId": B},
        ensure_ascii=False,
        separators=(",", ":"),
    )
    assert [o["id"] for o in objs(r.text)[1:]] == [A, B, D, E]
    assert errors(r.text) == []


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            '{"type":"message","id":"x","content":[{"type":"text","te' + user(D, C),
            ([user(D, C)], '{"type":"message","id":"x","content":[{"type":"text","te'),
        ),
        (user(A, None) + user(B, A), ([user(A, None), user(B, A)], "")),
        (
            '{"type":"mess{"type":"label","timestamp":"t"}',
            (['{"type":"label","timestamp":"t"}'], '{"type":"mess'),
        ),
        # a content block closing the torn fragment is no entry
        ('{"type":"message","content":[{"type":"text","text":"a"}', None),
        ('{"type":"message","content":[{"type":"toolCall","id":"t","timestamp":1}', None),
        ("garbage", None),
        # spaces and tabs between entries are left out; the fragment is kept as it was cut
        (user(A, None) + " \t " + user(B, A), ([user(A, None), user(B, A)], "")),
        (
            '{"type":"message","model":"GPT-X  ' + user(D, C),
            ([user(D, C)], '{"type":"message","model":"GPT-X'),
        ),
        ('{"type":"mess\u00a0' + user(D, C), ([user(D, C)], '{"type":"mess\u00a0')),
        # a whole entry before the next one, but not a space between them: nothing is cut off,
        # so nothing may be dropped
        (user(A, None) + "\u00a0" + user(B, A), None),
        (user(A, None) + "x" + user(B, A), None),
    ],
)
def test_glued_pieces(line: str, expected: tuple[list[str], str] | None) -> None:
    assert autofix.glued_pieces(line) == expected


def test_entries_glued_without_a_newline_are_split_and_nothing_dropped() -> None:
    text = doc(header(), user(A, None) + assistant(B, A), user(C, B))
    r = autofix.repair(text, PATH)
    assert r.text == doc(header(), user(A, None), assistant(B, A), user(C, B))
    assert errors(r.text) == []


def test_cut_off_last_line_is_dropped_and_nothing_else() -> None:
    text = doc(header(), user(A, None)) + assistant(B, A)[:40]
    r = autofix.repair(text, PATH)
    assert r.text == doc(header(), user(A, None))
    assert [x.code for x in r.actions] == ["PI002"]


def test_missing_final_newline_is_added() -> None:
    text = doc(header(), user(A, None)) + assistant(B, A)
    r = autofix.repair(text, PATH)
    assert r.text == text + "\n" and [x.code for x in r.actions] == [""]


def test_garbage_that_holds_no_entry_is_left_alone() -> None:
    text = doc(header(), user(A, None), "not json at all", assistant(B, A))
    r = autofix.repair(text, PATH)
    assert r.text == text and not r.changed
    assert ("PI001", 2) in errors(r.text)


# ------------------------------------------------------------------------------- headers


def test_missing_header_is_rebuilt_as_pi_writes_it() -> None:
    text = doc(user(A, None), assistant(B, A))
    r = autofix.repair(text, PATH)
    first = r.text.split("\n")[0]
    assert first == (
        '{"type":"session","version":3,"id":"' + SID + '","timestamp":"2026-01-02T03:04:05.678Z",'
        '"cwd":"/home/user/project"}'
    )
    assert r.text.endswith(text) and errors(r.text) == []


def test_header_of_v1_entries_has_no_version_and_v2_hooks_get_version_2() -> None:
    v1 = doc(user(None, False), assistant(None, False))
    assert "version" not in objs(autofix.repair(v1, PATH).text)[0]
    v2 = doc(user(A, None), hook(B, A))
    assert objs(autofix.repair(v2, PATH).text)[0]["version"] == 2


def test_torn_header_is_rebuilt_from_what_is_left() -> None:
    head = header(parentSession="/s/old.jsonl")
    text = doc(head[: head.index('"cwd"')], user(A, None), assistant(B, A))
    r = autofix.repair(text, "/elsewhere/not-pi-named.jsonl")
    assert len(r.skipped) == 1 and "cwd" in r.skipped[0]
    # no cwd survives and the folder does not tell it: nothing is guessed
    assert r.text == text
    cut = head[: head.index('"parentSession"')]
    r = autofix.repair(doc(cut, user(A, None)), "/elsewhere/not-pi-named.jsonl")
    assert objs(r.text)[0] == {
        "type": "session",
        "version": 3,
        "id": SID,
        "timestamp": "2026-01-02T03:04:05.678Z",
        "cwd": "/home/user/project",
    }
    assert [x.line for x in r.actions] == [0] and len(r.text.split("\n")) == 3


def test_header_without_a_string_id_gets_the_file_names() -> None:
    text = doc(header(id=7), user(A, None))
    r = autofix.repair(text, PATH)
    assert objs(r.text)[0]["id"] == SID and errors(r.text) == []


def test_cwd_from_folder() -> None:
    assert autofix.cwd_from_folder(PATH) == "/home/user/project"
    assert autofix.cwd_from_folder("/x/----/a.jsonl") == "/"
    assert autofix.cwd_from_folder("/x/y/a.jsonl") is None


# ------------------------------------------------------------------- links and the doctor


def test_cycle_is_broken_at_the_link_to_a_later_line() -> None:
    text = doc(header(), user(A, D), assistant(B, A), user(C, B), assistant(D, C))
    r = autofix.repair(text, PATH)
    assert [(x.line, x.code) for x in r.actions] == [(1, "PI402")]
    assert objs(r.text)[1]["parentId"] is None and errors(r.text) == []


def test_self_parent_is_broken() -> None:
    text = doc(header(), user(A, None), assistant(B, B))
    r = autofix.repair(text, PATH)
    assert objs(r.text)[2]["parentId"] == A and errors(r.text) == []


def test_fixes_on_the_same_lines_wait_for_the_next_round() -> None:
    # two calls, two PI421 findings on one line: one fix answers both
    text = doc(header(), user(A, None), assistant(B, A, calls=("t1", "t2")))
    r = autofix.repair(text, PATH)
    assert [x.code for x in r.actions] == ["PI421"]
    assert [o["message"]["toolCallId"] for o in objs(r.text)[3:]] == ["t1", "t2"]


def test_migration_only_when_asked() -> None:
    text = doc(header(2), user(A, None), hook(B, A))
    assert not autofix.repair(text, PATH).changed
    r = autofix.repair(text, PATH, migrate=True)
    assert objs(r.text)[0]["version"] == 3 and objs(r.text)[2]["message"]["role"] == "custom"


def test_pending_turn_is_not_removed() -> None:
    text = doc(header(), user(A, None), assistant(B, A, stop="pending"))
    assert not autofix.repair(text, PATH).changed


def test_book_dialect_is_left_alone() -> None:
    text = '{"type":"session_header","version":1,"session_id":"s","created_at":"2026-01-01T00:00:00Z"}\n'
    r = autofix.repair(text, PATH)
    assert r.text == text and r.skipped


def test_a_repair_that_would_lose_an_entry_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    def greedy(a: Any, finding: Any) -> list[repairs.Fix]:
        return [
            repairs.Fix(
                "drop", finding.code, lambda: delete_lines(a.text, [1]), safe=True, key="drop"
            )
        ]

    monkeypatch.setattr(repairs, "fixes_for", greedy)
    text = doc(header(), user(A, None), assistant(B, "nowhere"))
    with pytest.raises(autofix.RepairError):
        autofix.repair(text, PATH)


def test_pi_v3_long_only_its_compactions_change() -> None:
    path = FIXTURES / "pi-v3-long.jsonl"
    if not path.is_file():
        pytest.skip("shared fixtures not found")
    text = path.read_text(encoding="utf-8")
    r = autofix.repair(text, str(path))
    assert [x.code for x in r.actions] == ["PI424"] * 12 + ["PI423"]
    before, after = text.split("\n"), r.text.split("\n")
    changed = [n for n, (x, y) in enumerate(zip(before, after, strict=True)) if x != y]
    assert changed == [x.line for x in r.actions]
    for n in changed:
        old, new = json.loads(before[n]), json.loads(after[n])
        assert old["type"] == "compaction" and {**old, "firstKeptEntryId": None} == {
            **new,
            "firstKeptEntryId": None,
        }
    assert r.analysis.findings == []


def test_crlf_files_keep_their_line_ends() -> None:
    text = doc(user(A, None), assistant(B, A)).replace("\n", "\r\n").rstrip("\r\n")
    r = autofix.repair(text, PATH)
    assert r.text.count("\r\n") == 3 and "\n" not in r.text.replace("\r\n", "")
    assert [x.code for x in r.actions] == ["", "PI100"]


def test_fixes_that_undo_each_other_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    def flip(a: Any, finding: Any) -> list[repairs.Fix]:
        text = a.lines[1]
        new = text.replace("hello", "HELLO") if "hello" in text else text.replace("HELLO", "hello")
        edit = TextEdit.replace(1, 0, len(text), new)
        return [repairs.Fix("flip", finding.code, lambda: [edit], safe=True, key="flip")]

    monkeypatch.setattr(repairs, "fixes_for", flip)
    text = doc(header(), user(A, None), assistant(B, "nowhere"))
    r = autofix.repair(text, PATH)
    assert len(r.actions) == 2 and r.text == text and not r.changed


def test_whitespace_pi_16_rejects_at_the_edges_is_removed() -> None:
    body = doc(header(), user(A, None)) + user(B, A)
    r = autofix.repair("\ufeff" + body + "\u00a0", PATH)
    assert r.text == body + "\n"
    assert [(x.line, x.code) for x in r.actions] == [(0, "PI100"), (2, "PI001"), (2, "")]
    assert errors(r.text) == []


def test_a_good_header_is_left_alone() -> None:
    text = doc(header(id="custom-id"), user(A, None))
    assert not autofix.repair(text, PATH).changed


# ------------------------------------------------- what check --fix reports, and hands back


def repaired(text: str, path: str | None = PATH, **kw: Any) -> autofix.Repaired:
    """``repair``, checking that the analysis it hands back is the repaired file's, at its path."""
    r = autofix.repair(text, path, **kw)
    fresh = analyze(r.text, path=path)
    assert r.analysis.path == path and r.analysis.findings == fresh.findings
    return r


def did(r: autofix.Repaired) -> list[tuple[int, str, str]]:
    return [(x.line, x.code, x.title) for x in r.actions]


OTHER_NAME = f"{FOLDER}/2026-01-02T03-04-05-678Z_another-session.jsonl"  # PI104: not the header id


@pytest.mark.parametrize(
    "text, migrate",
    [
        (doc(header(), user(A, None)), False),  # nothing to do: the analysis of the original
        (doc(header(), user(A, None)) + user(B, A), False),  # the last step: a final newline
        (doc(user(A, None), user(B, A)), False),  # the last step: the header
        (doc(header(2), user(A, None), hook(B, A)), True),  # the last step: the migration
        (doc(header(), user(A, None), user(B, "nowhere")), False),  # the last step: a quick fix
    ],
)
def test_the_analysis_handed_back_is_the_repaired_files_at_its_path(
    text: str, migrate: bool
) -> None:
    r = repaired(text, OTHER_NAME, migrate=migrate)
    # the file name's id differs from the header's (a rebuilt header takes the name's)
    rebuilt = not text.startswith('{"type":"session"')
    assert ("PI104" in [f.code for f in r.analysis.findings]) is not rebuilt
    assert r.changed is (r.text != text)


def test_what_each_whole_file_repair_says_it_did() -> None:
    body = doc(header(), user(A, None)) + user(B, A)
    assert did(repaired("\ufeff" + body + "\u00a0")) == [
        (
            0,
            "PI100",
            "Remove the U+FEFF (a byte-order mark) before the session header "
            "(pi 1.6 gives the line to JSON.parse with it)",
        ),
        (
            2,
            "PI001",
            "Remove the U+00A0 (a no-break space) after the last entry "
            "(pi 1.6 gives the line to JSON.parse with it)",
        ),
        (
            2,
            "",
            "Add the missing final newline (pi 0.73.1 would glue its next entry onto this line)",
        ),
    ]
    torn = assistant(C, B)[:70]
    r = repaired(doc(header(), user(A, None), assistant(B, A), torn + user(D, C), assistant(E, D)))
    assert did(r)[0] == (
        3,
        "PI001",
        "Split 1 entries glued onto one line, dropping the cut-off fragment before them "
        "(70 characters)",
    )
    r = repaired(doc(header(), user(A, None) + assistant(B, A), user(C, B)))
    assert did(r) == [(1, "PI001", "Split 2 entries glued onto one line")]


def test_what_each_header_repair_says_it_did() -> None:
    r = repaired(doc(user(A, None), assistant(B, A)))
    assert did(r) == [
        (
            0,
            "PI100",
            "Insert the missing session header, rebuilt from the file name and the folder name",
        )
    ]
    head = header(parentSession="/s/old.jsonl")
    r = repaired(doc(head[:-1], user(A, None)), f"{FOLDER}/not-pi-named.jsonl")
    assert did(r) == [
        (
            0,
            "PI100",
            "Rebuild the unreadable session header from what is left of it, the file name and "
            "the folder name",
        )
    ]
    r = repaired(doc(header(id=7), user(A, None)))
    assert did(r) == [(0, "PI100", f"Give the session header the id {SID!r} (the file name)")]
    for path in ("/elsewhere/not-pi-named.jsonl", None):
        r = repaired(doc(header(id=7), user(A, None)), path)
        ident = objs(r.text)[0]["id"]
        assert isinstance(ident, str) and ident not in (SID, A)
        assert did(r) == [
            (0, "PI100", f"Give the session header the id {ident!r} (a new session id)")
        ]


def test_a_migration_is_reported_on_the_header_line() -> None:
    for lead in ((), ("",)):
        r = repaired(doc(*lead, header(2), user(A, None), hook(B, A)), migrate=True)
        assert did(r) == [(len(lead), "PI103", "Migrate session v2 to v3")]


def test_a_safe_quick_fix_is_reported_with_its_title() -> None:
    r = repaired(doc(header(), user(A, None), user(B, "nowhere")))
    assert did(r) == [(2, "PI400", "Re-parent to the previous entry (line 2)")]
    assert r.changed is True


def test_the_book_dialect_is_not_repaired_and_says_why() -> None:
    text = '{"type":"session_header","version":1,"session_id":"s","created_at":"2026-01-01T00:00:00Z"}\n'
    r = autofix.repair(text, PATH)
    assert (
        r.actions == [] and r.analysis.fmt == "book" and r.analysis.text.lines == text.split("\n")
    )
    assert r.skipped == ["not a pi session (the book dialect): convert it to pi v3 first"]


# ------------------------------------------------------------------------ the rounds


def test_the_tree_is_mended_in_a_round_before_the_doctor_pairs_calls_on_it() -> None:
    # line 4's re-parenting (PI400) is due before the answers to line 2's calls (PI421):
    # the answers are inserted in the next round, against the mended tree
    label = entry("label", E, C, targetId=B, label="x")
    custom = entry("custom_message", C, B, customType="r", content="x", display=True)
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1", "t2")), custom, user(D, "x"), label
    )
    r = repaired(text)
    assert [(x.line, x.code) for x in r.actions] == [(4, "PI400"), (2, "PI421")]
    out = objs(r.text)
    assert [o["id"] for o in out][5:] == [C, D, E] and out[6]["parentId"] == C


def test_findings_without_a_safe_fix_do_not_hold_back_the_ones_after_them() -> None:
    # PI104 (no safe code) on line 0, PI423 (no fix: the exchanges interleave) on line 8,
    # then a cut-off last line (PI002)
    text = (
        doc(
            header(id="custom-id"),
            user(A, None),
            assistant(B, A, calls=("t1",)),
            assistant(C, B, calls=("t2",)),
            result(D, C, "t2"),
            result(E, D, "t1"),
            assistant("ffffffff", E),
            entry(
                "compaction",
                "gggggggg",
                "ffffffff",
                summary="s",
                firstKeptEntryId=D,
                tokensBefore=9,
            ),
            user("hhhhhhhh", "gggggggg"),
        )
        + user("iiiiiiii", "hhhhhhhh")[:30]
    )
    codes = [f.code for f in analyze(text, path=PATH).findings]
    assert codes == ["PI104", "PI423", "PI002"]
    r = repaired(text)
    assert [(x.line, x.code) for x in r.actions] == [(9, "PI002")]


def test_rounds_go_on_while_the_fixes_change_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    # a fix that capitalises one more letter of line 1's "hello" each round, five rounds
    def shout(a: Any, finding: Any) -> list[repairs.Fix]:
        text = a.lines[1]
        word = json.loads(text)["message"]["content"]
        n = sum(ch.isupper() for ch in word)
        if n == len(word):
            return []
        louder = word[: n + 1].upper() + word[n + 1 :]
        new = text.replace(f'"content":"{word}"', f'"content":"{louder}"')
        edit = TextEdit.replace(1, 0, len(text), new)
        return [repairs.Fix("shout", finding.code, lambda: [edit], safe=True, key="shout")]

    monkeypatch.setattr(repairs, "fixes_for", shout)
    r = autofix.repair(doc(header(), user(A, None), assistant(B, "nowhere")), PATH)
    assert len(r.actions) == 5 and objs(r.text)[1]["message"]["content"] == "HELLO"


def test_fixes_that_come_back_to_an_earlier_text_stop_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # hello -> HELLO -> hellO -> HELLO: the third round gives a text seen after the first
    steps = {"hello": "HELLO", "HELLO": "hellO", "hellO": "HELLO"}

    def turn(a: Any, finding: Any) -> list[repairs.Fix]:
        text = a.lines[1]
        word = next(w for w in steps if f'"content":"{w}"' in text)
        edit = TextEdit.replace(1, 0, len(text), text.replace(f'"{word}"', f'"{steps[word]}"'))
        return [repairs.Fix("turn", finding.code, lambda: [edit], safe=True, key="turn")]

    monkeypatch.setattr(repairs, "fixes_for", turn)
    r = autofix.repair(doc(header(), user(A, None), assistant(B, "nowhere")), PATH)
    assert len(r.actions) == 3 and objs(r.text)[1]["message"]["content"] == "HELLO"


def test_losing_one_entry_of_several_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    def drop_once(a: Any, finding: Any) -> list[repairs.Fix]:
        if B not in a.lines[2]:
            return []
        return [
            repairs.Fix("drop", finding.code, lambda: delete_lines(a.text, [2]), safe=True, key="d")
        ]

    monkeypatch.setattr(repairs, "fixes_for", drop_once)
    text = doc(header(), user(A, None), assistant(B, A), user(C, "nowhere"))
    with pytest.raises(
        autofix.RepairError, match=r"^the repairs would leave 2 entries of 3; nothing written$"
    ):
        autofix.repair(text, PATH)


UNNAMED = f"{FOLDER}/not-pi-named.jsonl"  # the folder tells the cwd, the name nothing


# ---------------------------------------------------------------- headers: when and where


@pytest.mark.parametrize("text", ["garbage\n", doc("garbage", "")])
def test_a_file_without_entries_gets_no_header(text: str) -> None:
    r = repaired(text)
    assert r.text == text and r.actions == [] and r.skipped == []


def test_garbage_before_the_header_is_no_misplaced_header() -> None:
    # the header is the first line that parses: pi reads it (and skips the garbage)
    text = doc("garbage", header(), user(A, None))
    r = repaired(text)
    assert r.text == text and r.skipped == []


def test_a_header_after_an_entry_is_not_moved_and_says_so() -> None:
    text = doc(user(A, None), header(), user(B, A))
    r = repaired(text)
    assert r.text == text and r.actions == []
    assert r.skipped == ["line 2 holds a session header but other lines come before it; not moved"]


def test_garbage_first_line_is_kept_and_the_header_inserted_before_it() -> None:
    text = doc("garbage", user(A, None))
    r = repaired(text)
    assert r.text == doc(header(), "garbage", user(A, None))


def test_no_cwd_anywhere_is_refused_with_the_reason() -> None:
    text = doc(user(A, None), user(B, A))
    for path in (None, "/elsewhere/not-pi-named.jsonl"):
        r = repaired(text, path)
        assert r.text == text and r.actions == []
        assert r.skipped == [
            "no session header, and neither the folder name (pi's --<cwd>--) nor the file "
            "tells the session's cwd; not rebuilt"
        ]


@pytest.mark.parametrize(
    "version, after", [(3, '{"type":"session","version":3,'), (None, '{"type":"session",')]
)
def test_a_header_without_id_gets_one_after_version_or_type(
    version: int | None, after: str
) -> None:
    head = json.loads(header(version))
    del head["id"]
    r = repaired(doc(js(head), user(A, None) if version else user(None, False)))
    assert r.text.split("\n")[0] == after + f'"id":"{SID}",' + js(head)[len(after) :]


# ------------------------------------------------------------- headers: what they hold


def stamped(ident: str, parent: str | None, stamp: str) -> str:
    return js({**json.loads(user(ident, parent)), "timestamp": stamp})


def test_a_rebuilt_header_never_takes_an_entrys_id() -> None:
    r = repaired(doc(user(A, None), user(B, A)), UNNAMED)
    head = objs(r.text)[0]
    assert head["id"] not in (A, B, SID) and head["cwd"] == "/home/user/project"


def test_a_rebuilt_headers_timestamp_is_the_file_names_else_the_first_entrys() -> None:
    text = doc(
        stamped(A, None, "2025-05-05T05:05:05.555Z"), stamped(B, A, "2025-06-06T06:06:06.666Z")
    )
    assert objs(repaired(text).text)[0]["timestamp"] == TS  # the name's
    assert objs(repaired(text, UNNAMED).text)[0]["timestamp"] == "2025-05-05T05:05:05.555Z"


def test_a_rebuilt_header_of_entries_without_timestamps_is_stamped_now() -> None:
    label = entry("label", A, None, targetId="x", label="l")
    obj = json.loads(label)
    del obj["timestamp"]
    before = time.time()
    head = objs(repaired(doc(js(obj)), UNNAMED).text)[0]
    stamp = datetime.fromisoformat(head["timestamp"]).timestamp()
    assert before - 1 <= stamp <= time.time() + 1


def test_a_torn_header_keeps_what_survives_of_it() -> None:
    head = header(2, parentSession="/s/old.jsonl")
    text = doc(head[:-1], stamped(A, None, "2025-05-05T05:05:05.555Z"))
    assert objs(repaired(text, UNNAMED).text)[0] == {
        "type": "session",
        "version": 2,  # the entries would say 3
        "id": SID,
        "timestamp": TS,  # not the entry's
        "cwd": "/home/user/project",
        "parentSession": "/s/old.jsonl",
    }


def test_a_torn_headers_unreadable_member_does_not_hide_the_next() -> None:
    text = doc('{"type":"session","id":"\\q","cwd":"/from/header","version":2,', user(A, None))
    head = objs(repaired(text, "/elsewhere/not-pi-named.jsonl").text)[0]
    assert head["cwd"] == "/from/header" and head["id"] != "\\q"


# ------------------------------------------------------------------- the rounds


def test_a_fix_waits_for_a_round_when_an_earlier_fix_of_it_touched_its_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # three dangling entries (lines 2-4); the fixes of lines 2 and 4 also edit line 1:
    # line 4's waits for the next round, though line 3's (chosen in between) does not clash
    def fixes(a: Any, finding: Any) -> list[repairs.Fix]:
        line = finding.span.line
        edits = doctor.set_parent(a, line, 1)
        first = a.lines[1]
        if line == 2:
            at = first.index('"hello') + 6
            edits.append(TextEdit.insert(1, at, " there"))
        elif line == 4:
            old = json.loads(first)["message"]["content"]
            at = first.index(f'"{old}"') + 1
            edits.append(TextEdit.replace(1, at, at + len(old), old.upper()))
        return [repairs.Fix("fix", finding.code, lambda: edits, safe=True, key="fix")]

    monkeypatch.setattr(repairs, "fixes_for", fixes)
    text = doc(header(), user(A, None), user(B, "x"), user(C, "y"), user(D, "z"))
    r = autofix.repair(text, PATH)
    assert [x.line for x in r.actions] == [2, 3, 4]
    assert objs(r.text)[1]["message"]["content"] == "HELLO THERE"
    assert [o["parentId"] for o in objs(r.text)[2:]] == [A, A, A]


def test_two_results_left_on_a_branch_come_back_one_round_after_the_other() -> None:
    # line 2's calls are answered on lines 3 and 4, but line 5 follows the call: the
    # first round brings back line 3, the next (against the mended tree) line 4
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1", "t2")),
        result(C, B, "t1"),
        result(D, C, "t2"),
        user(E, B, "next"),
        assistant("ffffffff", E),
    )
    r = repaired(text, None)
    title = "Re-parent line 6 to the toolResult on line {}, so pi sends the real result"
    assert did(r) == [
        (2, "PI421", title.format(4) + " (nothing is deleted)"),
        (2, "PI421", title.format(5) + " (nothing is deleted)"),
    ]
    assert r.analysis.tree.active == [1, 2, 3, 4, 5, 6] and not r.analysis.findings
