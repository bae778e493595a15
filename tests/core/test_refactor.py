"""Branch, label, name and fork as pi's SessionManager performs them."""

from __future__ import annotations

import datetime
import json
import os
import re
import uuid

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.edits import refactor
from pi_lsp.core.pi.context import session_context
from pi_lsp.core.text import textedit as edits_module
from pi_lsp.core.text.findings import Severity
from pi_lsp.core.text.textedit import apply_edits

from .pi_sessions import SID, assistant, changed_lines, doc, entry, header, user

A, B, C, D, E, F = (c * 8 for c in "abcdef")
NOW = datetime.datetime(2026, 5, 6, 7, 8, 9, 123000, tzinfo=datetime.UTC)
STAMP = "2026-05-06T07:08:09.123Z"

BRANCHED = doc(
    header(),
    user(A, None, "start"),
    assistant(B, A),
    user(C, B, "path one"),
    assistant(D, C),
    user(E, B, "path two"),  # the leaf: a second branch from B
)


def appended(text: str, edits: list[refactor.TextEdit]) -> tuple[str, dict[str, object], str]:
    """Apply an append; check every old line is kept; return the text, object and line."""
    out = apply_edits(text, edits)
    assert out.startswith(text)  # nothing before changes, not even the last newline
    assert changed_lines(text, out[: len(text)]) == set()
    line = out[len(text) :]
    assert line.endswith("\n") and line.count("\n") == 1
    return out, json.loads(line), line[:-1]


def test_branch_appends_a_summary_child_from_the_leaf() -> None:
    a = analyze(BRANCHED)
    out, obj, line = appended(BRANCHED, refactor.branch(a, 3, "tried path one", NOW))
    ident = obj["id"]
    assert isinstance(ident, str) and re.fullmatch(r"[0-9a-f]{8}", ident)
    assert ident not in (A, B, C, D, E)
    assert line == (
        f'{{"type":"branch_summary","id":"{ident}","parentId":"{C}","timestamp":"{STAMP}",'
        f'"fromId":"{E}","summary":"tried path one"}}'
    )
    b = analyze(out)
    assert b.tree.leaf == 6 and b.tree.active == [1, 2, 3, 6]  # pi resumes on the new branch
    assert [m.role for m in session_context(b).messages] == [
        "user",
        "assistant",
        "user",
        "branchSummary",
    ]
    assert not [f for f in b.findings if f.severity <= Severity.WARNING]


def test_branch_from_root_leaf_without_id() -> None:
    text = doc(header(), user(A, None), '{"type":"message","parentId":null}')
    obj = appended(text, refactor.branch(analyze(text), 1, "s"))[1]
    assert obj["fromId"] == "root"


def test_label_set_and_clear() -> None:
    a = analyze(BRANCHED)
    _, obj, line = appended(BRANCHED, refactor.label(a, 1, "start here", NOW))
    assert line == (
        f'{{"type":"label","id":"{obj["id"]}","parentId":"{E}","timestamp":"{STAMP}",'
        f'"targetId":"{A}","label":"start here"}}'
    )
    _, obj, line = appended(BRANCHED, refactor.label(a, 1, None, NOW))
    assert "label" not in obj and obj["targetId"] == A  # pi's undefined label clears it


def test_name_is_trimmed() -> None:
    a = analyze(BRANCHED)
    _, obj, _ = appended(BRANCHED, refactor.name(a, "  Parser fix \n", NOW))
    assert obj["type"] == "session_info" and obj["name"] == "Parser fix" and obj["parentId"] == E
    assert obj["timestamp"] == STAMP


def test_appends_follow_the_file_line_endings() -> None:
    text = BRANCHED.replace("\n", "\r\n")
    out = apply_edits(text, refactor.name(analyze(text), "n"))
    assert (
        out.startswith(text)
        and out.endswith("}\r\n")
        and "\n" not in out[len(text) :].rstrip("\r\n")
    )
    text = BRANCHED[:-1]  # no final newline
    out = apply_edits(text, refactor.name(analyze(text), "n"))
    assert out.startswith(text + "\n") and out.endswith("}\n")


def test_refactorings_need_ids() -> None:
    v1 = doc(header(None), user(None, False))
    with pytest.raises(refactor.RefactorError, match="migrate"):
        refactor.label(analyze(v1), 1, "x")
    with pytest.raises(refactor.RefactorError, match="not an entry"):
        refactor.branch(analyze(BRANCHED), 0, "x")


def test_current_labels_follow_pi_map_order() -> None:
    text = doc(
        header(),
        user(A, None),
        user(B, A),
        entry("label", C, B, targetId=A, label="one"),
        entry("label", D, C, targetId=B, label="two"),
        entry("label", E, D, targetId=A, label="uno"),  # re-set: keeps its place
        entry("label", F, E, targetId=B),  # cleared
        entry("label", "gggggggg", F, targetId=B, label="dos"),  # set again: moves to the end
    )
    labels = refactor.current_labels(analyze(text))
    assert list(labels.items()) == [
        (A, ("uno", "2026-01-02T03:04:05.678Z")),
        (B, ("dos", "2026-01-02T03:04:05.678Z")),
    ]


# --------------------------------------------------------------------------------- fork

LABELLED = doc(
    header(),
    user(A, None, "start"),
    entry("label", B, A, targetId=A, label="first", timestamp="2026-02-02T00:00:00.000Z"),
    assistant(C, B),  # its parent is the label entry
    user(D, C, "more"),
    entry("label", E, D, targetId=C, label="answer"),
    entry("label", F, E, targetId="zzzzzzzz", label="elsewhere"),
)


def test_fork_relinks_around_labels_and_recreates_them() -> None:
    a = analyze(LABELLED, path="/tmp/sessions/x.jsonl")
    result = refactor.fork(a, D, "/tmp/sessions/x.jsonl", NOW)
    lines = result.text.split("\n")
    assert lines[-1] == ""  # every line terminated, as pi writes
    head = json.loads(lines[0])
    assert head == {
        "type": "session",
        "version": 3,
        "id": result.session_id,
        "timestamp": STAMP,
        "cwd": "/home/user/project",
        "parentSession": "/tmp/sessions/x.jsonl",
    }
    assert uuid.UUID(result.session_id).version == 7
    assert uuid.UUID(result.session_id).int >> 80 == int(NOW.timestamp() * 1000)
    assert result.file_name == f"2026-05-06T07-08-09-123Z_{result.session_id}.jsonl"
    src = LABELLED.split("\n")
    # the path without labels: A, C (relinked from the label to A), D, copied byte for byte
    assert lines[1] == src[1]
    assert lines[2] == src[3].replace(f'"parentId":"{B}"', f'"parentId":"{A}"')
    assert lines[3] == src[4]
    labels = [json.loads(x) for x in lines[4:-1]]
    assert [(x["targetId"], x["label"], x["timestamp"]) for x in labels] == [
        (A, "first", "2026-02-02T00:00:00.000Z"),
        (C, "answer", "2026-01-02T03:04:05.678Z"),
    ]
    assert labels[0]["parentId"] == D and labels[1]["parentId"] == labels[0]["id"]
    assert [list(x) for x in labels] == [
        ["type", "id", "parentId", "timestamp", "targetId", "label"]
    ] * 2
    assert (result.entries, result.labels) == (3, 2)
    b = analyze(result.text)
    assert not [f for f in b.findings if f.severity <= Severity.WARNING]
    assert b.tree.active == [1, 2, 3, 4, 5]


def test_fork_at_a_label_entry_stops_before_it() -> None:
    result = refactor.fork(analyze(LABELLED), E, None, NOW)
    lines = result.text.split("\n")
    assert "parentSession" not in json.loads(lines[0])
    assert [json.loads(x)["id"] for x in lines[1:4]] == [A, C, D]


def test_fork_of_a_v1_file_by_line() -> None:
    text = doc(header(None), user(None, False, "a"), assistant(None, False), user(None, False, "b"))
    result = refactor.fork(analyze(text), 2, "rel/x.jsonl", NOW)
    lines = result.text.split("\n")
    assert json.loads(lines[0])["parentSession"] == os.path.abspath("rel/x.jsonl")
    objs = [json.loads(x) for x in lines[1:-1]]
    assert [o["message"]["role"] for o in objs] == ["user", "assistant"]
    assert objs[0]["parentId"] is None and objs[1]["parentId"] == objs[0]["id"]


def test_fork_errors() -> None:
    with pytest.raises(refactor.RefactorError, match="no entry"):
        refactor.fork(analyze(BRANCHED), "nope", None)
    cyclic = doc(header(), user(A, B), user(B, A))
    message = "the entry's parent chain is a cycle; pi would hang on it"
    with pytest.raises(refactor.RefactorError, match=f"^{re.escape(message)}$"):
        refactor.fork(analyze(cyclic), A, None)


def test_fork_path_is_next_to_the_source() -> None:
    result = refactor.fork(analyze(BRANCHED), C, "/data/s/--x--/old.jsonl", NOW)
    assert (
        refactor.fork_path("/data/s/--x--/old.jsonl", result) == f"/data/s/--x--/{result.file_name}"
    )
    assert SID not in result.text.split("\n")[0]


# ------------------------------------------------------------------ refusals and lookups


def test_refusals_name_what_is_wrong() -> None:
    a = analyze(BRANCHED)
    for line in (-1, 0, 7, 99):
        with pytest.raises(refactor.RefactorError, match=f"^line {line + 1} is not an entry$"):
            refactor.entry_id(a, line)
    no_id = doc(header(), user(A, None), '{"type":"message","parentId":null}')
    with pytest.raises(refactor.RefactorError, match=r"^the entry on line 3 has no id$"):
        refactor.label(analyze(no_id), 2, "x")
    with pytest.raises(refactor.RefactorError, match=r"^no entry with id 'nope'$"):
        refactor.line_of(a, "nope")
    v1 = doc(header(None), user(None, False))
    message = "v1 session: entries have no ids yet; migrate it to v3 first"
    with pytest.raises(refactor.RefactorError, match=f"^{re.escape(message)}$"):
        refactor.name(analyze(v1), "x")


@pytest.mark.parametrize(
    "text",
    [
        doc(user(A, None), user(B, A)),  # no header
        doc(
            '{"type":"session_header","version":1,"id":"s1","created_at":"2026-01-01T00:00:00Z"}',
            '{"type":"user_message","id":"m1","parent_id":null,"content":"hi"}',
        ),
    ],
)
def test_refactorings_refuse_a_file_without_a_pi_header(text: str) -> None:
    a = analyze(text)
    refusal = r"^not a pi session file \(no session header\)$"
    with pytest.raises(refactor.RefactorError, match=refusal):
        refactor.branch(a, 1, "s")
    with pytest.raises(refactor.RefactorError, match=refusal):
        refactor.label(a, 1, "x")
    with pytest.raises(refactor.RefactorError, match=refusal):
        refactor.name(a, "x")


def test_v2_files_have_ids_to_refactor() -> None:
    text = doc(header(2), user(A, None), assistant(B, A))
    _, obj, _ = appended(text, refactor.label(analyze(text), 1, "x", NOW))
    assert obj["targetId"] == A and obj["parentId"] == B


def test_leaf_id() -> None:
    assert refactor.leaf_id(analyze(BRANCHED)) == E
    assert refactor.leaf_id(analyze(doc(header()))) is None
    no_id = doc(header(), user(A, None), '{"type":"message","parentId":null}')
    assert refactor.leaf_id(analyze(no_id)) is None
    number = doc(header(), user(A, None), '{"type":"message","id":5,"parentId":null}')
    assert refactor.leaf_id(analyze(number)) is None


def test_an_empty_label_is_written_and_clears() -> None:
    a = analyze(BRANCHED)
    out, _, line = appended(BRANCHED, refactor.label(a, 1, "", NOW))
    assert line.endswith(f'"targetId":"{A}","label":""}}')
    assert refactor.current_labels(analyze(out)) == {}


def test_new_ids_are_not_taken_by_any_line(monkeypatch: pytest.MonkeyPatch) -> None:
    values = iter([bytes.fromhex(A), bytes.fromhex("12345678")])
    monkeypatch.setattr(edits_module.os, "urandom", lambda n: next(values)[:n])
    _, obj, _ = appended(BRANCHED, refactor.name(analyze(BRANCHED), "n", NOW))
    assert obj["id"] == "12345678"


def test_current_labels_skip_other_entries_and_bad_targets() -> None:
    text = doc(
        header(),
        user(A, None),
        entry("label", B, A, targetId=7, label="not a target"),
        entry("label", C, B, targetId=A, label="one"),
        entry("label", E, C, targetId=A, label=0),  # falsy: clears
        entry("session_info", D, E, name="n", targetId=A, label="not a label entry"),
        "[1]",
        entry("label", F, D, targetId=B, label="two"),
    )
    assert refactor.current_labels(analyze(text)) == {B: ("two", "2026-01-02T03:04:05.678Z")}


def test_file_name_replaces_colons_and_dots() -> None:
    assert (
        refactor.file_name("2026-05-06T07:08:09.123Z", "id") == "2026-05-06T07-08-09-123Z_id.jsonl"
    )


# --------------------------------------------------------------------------- fork, more


def test_fork_refuses_a_file_pi_does_not_load() -> None:
    message = "the first line that parses is not a session header"
    with pytest.raises(refactor.RefactorError, match=f"^{re.escape(message)} "):
        refactor.fork(analyze(doc(user(A, None), header())), A, None)


def test_fork_by_line_of_a_v3_file() -> None:
    result = refactor.fork(analyze(BRANCHED), 3, None, NOW)
    ids = [json.loads(x)["id"] for x in result.text.split("\n")[1:-1]]
    assert ids == [A, B, C] and (result.entries, result.labels) == (3, 0)


def test_fork_of_a_v2_file_is_migrated() -> None:
    text = doc(header(2), user(A, None), assistant(B, A))
    result = refactor.fork(analyze(text), B, None, NOW)
    lines = result.text.split("\n")
    assert json.loads(lines[0])["version"] == 3 and lines[1:3] == text.split("\n")[1:3]


def test_fork_relinks_a_compaction_kept_from_a_dropped_label() -> None:
    text = doc(
        header(),
        user(A, None),
        entry("label", B, A, targetId=A, label="x"),
        assistant(C, B),
        entry(
            "compaction", D, C, summary="s", firstKeptEntryId=B, tokensBefore=10
        ),  # kept from the label
        entry("compaction", E, D, summary="t", firstKeptEntryId=E, tokensBefore=10),  # none
        entry("compaction", F, E, summary="u", firstKeptEntryId=C, tokensBefore=10),
    )
    src = text.split("\n")
    result = refactor.fork(analyze(text), F, None, NOW)
    lines = result.text.split("\n")
    assert lines[2] == src[3].replace(f'"parentId":"{B}"', f'"parentId":"{A}"')
    assert lines[3] == src[4].replace(f'"firstKeptEntryId":"{B}"', f'"firstKeptEntryId":"{C}"')
    assert lines[4:6] == src[5:7]  # retain-none (its own id) and a kept entry: unchanged
    assert (result.entries, result.labels) == (5, 1)


def test_fork_relinks_a_root_that_has_a_parent_key() -> None:
    # a first entry whose parentId names nothing becomes the fork's root: null
    text = doc(header(), user(A, "zzzzzzzz"), assistant(B, A))
    result = refactor.fork(analyze(text), B, None, NOW)
    lines = result.text.split("\n")
    assert lines[1] == text.split("\n")[1].replace('"parentId":"zzzzzzzz"', '"parentId":null')
    assert lines[2] == text.split("\n")[2]


def test_fork_writes_a_parent_id_an_entry_lacks() -> None:
    # without parentId pi takes the entry for a root: the fork writes it null
    text = doc(header(), user(A, None), '{"type":"message","id":"bbbbbbbb","message":{}}')
    result = refactor.fork(analyze(text), B, None, NOW)
    assert result.text.split("\n")[1:-1] == [
        '{"type":"message","parentId":null,"id":"bbbbbbbb","message":{}}'
    ]


def test_fork_without_cwd_uses_the_current_directory() -> None:
    head = json.loads(header())
    del head["cwd"]
    text = doc(json.dumps(head, separators=(",", ":")), user(A, None))
    result = refactor.fork(analyze(text), A, None, NOW)
    assert json.loads(result.text.split("\n")[0])["cwd"] == os.getcwd()


def test_fork_without_a_moment_is_stamped_now() -> None:
    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    result = refactor.fork(analyze(BRANCHED), C, None)
    head = json.loads(result.text.split("\n")[0])
    moment = datetime.datetime.strptime(head["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ")
    assert before <= moment.replace(tzinfo=datetime.UTC) <= datetime.datetime.now(datetime.UTC)
    assert result.file_name.endswith(f"_{result.session_id}.jsonl")


def test_entry_id_reads_the_first_line_too() -> None:
    assert refactor.entry_id(analyze(doc(user(A, None), header())), 0) == A


def test_fork_copies_a_parent_id_written_with_an_escape_byte_for_byte() -> None:
    text = doc(
        header(),
        user(A, None),
        user(B, A).replace(f'"parentId":"{A}"', '"parentId":"\\u0061aaaaaaa"'),
    )
    assert '"parentId":"\\u0061aaaaaaa"' in text
    result = refactor.fork(analyze(text), B, None, NOW)
    assert result.text.split("\n")[1:3] == text.split("\n")[1:3]


def test_fork_recreates_path_labels_after_one_off_the_path() -> None:
    text = doc(
        header(),
        user(A, None),
        user(B, A),  # another branch
        entry("label", C, B, targetId=B, label="off the path"),
        user(D, A),
        entry("label", E, D, targetId=D, label="on the path"),
    )
    result = refactor.fork(analyze(text), D, None, NOW)
    labels = [json.loads(x) for x in result.text.split("\n")[3:-1]]
    assert [(x["targetId"], x["label"]) for x in labels] == [(D, "on the path")]
    assert (result.entries, result.labels) == (2, 1)
