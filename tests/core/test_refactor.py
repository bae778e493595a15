"""Branch, label, name and fork as pi's SessionManager performs them."""

from __future__ import annotations

import datetime
import json
import os
import re
import uuid

import pytest

from pi_lsp.core import refactor
from pi_lsp.core.analysis import analyze
from pi_lsp.core.context import session_context
from pi_lsp.core.edits import apply_edits
from pi_lsp.core.findings import Severity

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
    with pytest.raises(refactor.RefactorError, match="cycle"):
        refactor.fork(analyze(cyclic), A, None)


def test_fork_path_is_next_to_the_source() -> None:
    result = refactor.fork(analyze(BRANCHED), C, "/data/s/--x--/old.jsonl", NOW)
    assert (
        refactor.fork_path("/data/s/--x--/old.jsonl", result) == f"/data/s/--x--/{result.file_name}"
    )
    assert SID not in result.text.split("\n")[0]
