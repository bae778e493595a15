"""``autofix.repair``: the whole-file repairs of ``check --fix``, and the rounds of safe fixes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.core import autofix, repairs
from pi_lsp.core.analysis import analyze
from pi_lsp.core.edits import TextEdit, delete_lines
from pi_lsp.core.findings import Severity

from .pi_sessions import SID, assistant, doc, header, hook, user

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
