"""What each link finding (PI300, PI400-PI403, PI410-PI415, PI420-PI422) tells the user.

One small session per case, written out here; each test reads the whole message (the
sentence a user sees, built from the ids and line numbers of that session), the severity,
the place, the related locations and the ``data`` that code actions and
``pi-lsp check --format json`` pass on.
"""

from __future__ import annotations

import json
from typing import Any

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.text.findings import Finding, Severity

from .pi_sessions import SID, assistant, doc, entry, header, result, user

E, W, N = Severity.ERROR, Severity.WARNING, Severity.INFORMATION
U1, A1, U2, A2, U3 = "1a2b3c4d", "2b3c4d5e", "3c4d5e6f", "4d5e6f70", "5e6f7081"


def drop(line: str, *keys: str) -> str:
    obj = json.loads(line)
    for key in keys:
        del obj[key]
    return json.dumps(obj, separators=(",", ":"))


def only(a: Analysis, code: str) -> Finding:
    (f,) = [f for f in a.findings if f.code == code]
    return f


def text_at(a: Analysis, f: Finding) -> str:
    return a.lines[f.span.line][f.span.start : f.span.end]


def related(a: Analysis, f: Finding) -> list[tuple[int, str, str]]:
    """Each related location: its line, the text there, what it says."""
    return [
        (r.span.line, a.lines[r.span.line][r.span.start : r.span.end], r.message) for r in f.related
    ]


def chat(*lines: str, **head: Any) -> Analysis:
    return analyze(doc(header(**head), *lines))


# ----------------------------------------------------------------------------- PI300


def test_first_entry_without_parent_id() -> None:
    a = chat(drop(user(U1, None), "parentId"), assistant(A1, U1))
    f = only(a, "PI300")
    assert f.message == (
        "entry has no 'parentId'; pi reads a missing parentId as null, so this first entry is "
        "the root, as it would be anyway: nothing is lost"
    )
    assert (f.severity, f.data) == (N, {"missing": ["parentId"]})
    assert (f.span.line, text_at(a, f)) == (1, '"message"')


def test_later_entry_without_parent_id_on_and_off_the_active_path() -> None:
    lines = [user(U1, None), assistant(A1, U1), drop(user(U2, A1), "parentId")]
    on = only(chat(*lines, assistant(A2, U2)), "PI300")
    assert on.message == (
        "entry has no 'parentId'; pi reads a missing parentId as null, so this entry becomes a "
        "root: the 2 entries before it leave the context pi resumes with"
    )
    assert (on.span.line, on.severity) == (3, E)
    off = only(chat(*lines, user(U3, A1)), "PI300")
    assert off.message.endswith("the 2 entries before it leave the context of its branch")
    assert off.severity is W


def test_one_entry_before_is_counted_in_the_singular() -> None:
    f = only(chat(user(U1, None), drop(assistant(A1, U1), "parentId")), "PI300")
    assert f.message.endswith(
        "becomes a root: the 1 entry before it leave the context pi resumes with"
    )


def test_entry_without_id_in_the_middle() -> None:
    a = chat(user(U1, None), drop(assistant(A1, U1), "id"), user(U2, U1))
    f = only(a, "PI300")
    assert f.message == (
        "entry has no 'id'; with no id, no entry can name it as its parent, so pi never reaches "
        "it from the leaf: it is left out of the model's context"
    )
    assert (f.severity, f.data) == (E, {"missing": ["id"]})


def test_last_entry_without_id() -> None:
    f = only(chat(user(U1, None), drop(assistant(A1, U1), "id")), "PI300")
    assert f.message == (
        "entry has no 'id'; pi resumes on it as the last entry, but with no id it leaves pi no "
        "leaf id, so pi writes the next entry without a parentId: after the next turn "
        "everything before it drops out of the context"
    )
    assert f.severity is E


def test_last_entry_without_id_and_parent_id() -> None:
    f = only(chat(user(U1, None), drop(assistant(A1, U1), "id", "parentId")), "PI300")
    assert f.message == (
        "entry has no 'id' and 'parentId'; pi reads a missing parentId as null, so this entry "
        "becomes a root: the 1 entry before it leave the context pi resumes with; with no id it "
        "also leaves pi no leaf id, so pi writes the next entry without a parentId either"
    )
    assert (f.severity, f.data) == (E, {"missing": ["id", "parentId"]})


def test_sole_entry_without_id_and_parent_id_is_an_error() -> None:
    """The missing id outweighs the harmless missing parentId of a first entry."""
    f = only(chat(drop(user(U1, None), "id", "parentId")), "PI300")
    assert f.severity is E
    assert "this first entry is the root" in f.message


# ----------------------------------------------------------------------------- PI400-PI403


def test_duplicate_id() -> None:
    a = chat(user(U1, None), assistant(A1, U1), user(U1, A1), assistant(A2, U1))
    f = only(a, "PI401")
    assert f.message == (
        f"duplicate id '{U1}' (first on line 2); pi's index keeps only the last one (line 4), "
        "so links to this id reach one entry and the other is unreachable"
    )
    assert (f.severity, f.span.line, text_at(a, f), f.data) == (E, 3, f'"{U1}"', {"id": U1})
    assert related(a, f) == [(1, f'"{U1}"', "first entry with this id")]


def test_dangling_parent_of_the_first_and_of_a_later_entry() -> None:
    a = chat(user(U1, "deadbeef"), assistant(A1, U1), user(U2, "0badf00d"))
    first, later = sorted((f for f in a.findings if f.code == "PI400"), key=lambda f: f.span.line)
    assert first.message == (
        "parentId 'deadbeef' names no entry in this file; pi makes this entry a root, and as "
        "the first entry it is the root anyway: nothing is lost"
    )
    assert (first.severity, first.data, text_at(a, first)) == (
        N,
        {"parentId": "deadbeef"},
        '"deadbeef"',
    )
    assert later.message == (
        "parentId '0badf00d' names no entry in this file; pi stops the path here, so the 2 "
        "entries before it drop out of the model's context"
    )
    assert (later.severity, later.data, text_at(a, later)) == (
        E,
        {"parentId": "0badf00d"},
        '"0badf00d"',
    )


def test_dangling_parent_naming_the_header() -> None:
    f = only(chat(user(U1, None), user(U2, SID)), "PI400")
    assert f.message.startswith(
        f"parentId '{SID}' names no entry in this file (it is the session header's id, and the "
        "header is no entry); pi stops the path here, so the 1 entry before it drop out"
    )


def test_parent_cycle_of_one_and_of_two_entries() -> None:
    a = chat(user(U1, None), user(U2, U2))
    f = only(a, "PI402")
    assert f.message == (
        f"parentId cycle: '{U2}' is its own id; pi follows parents forever when it resumes on "
        "this branch (it hangs)"
    )
    assert (f.severity, f.span.line, text_at(a, f), f.data) == (E, 2, f'"{U2}"', {"parentId": U2})
    a = chat(user(U1, None), user(U2, U3), user(U3, U2))
    found = sorted((f for f in a.findings if f.code == "PI402"), key=lambda f: f.span.line)
    assert [f.message.split(";")[0] for f in found] == [
        f"parentId cycle: '{U3}' is an entry that leads back to it",
        f"parentId cycle: '{U2}' is an entry that leads back to it",
    ]
    assert [[(r.span.line, r.message) for r in f.related] for f in found] == [
        [(3, "next entry in the cycle")],
        [(2, "next entry in the cycle")],
    ]
    assert found[0].related[0].span == a.line_span(3)


def test_parent_on_a_later_line() -> None:
    a = chat(user(U1, None), assistant(A1, U2), user(U2, U1))
    f = only(a, "PI403")
    assert f.message == (
        f"parentId '{U2}' names an entry on a later line (4); pi only appends, so a parent "
        "always comes first: this file was edited or reordered"
    )
    assert (f.severity, f.span.line, text_at(a, f)) == (W, 2, f'"{U2}"')
    assert related(a, f) == [(3, f'"{U2}"', "the parent entry")]


# ----------------------------------------------------------------------------- PI410-PI415


def compaction(ident: str, parent: str, kept: object) -> str:
    return entry("compaction", ident, parent, summary="s", firstKeptEntryId=kept, tokensBefore=100)


def test_compaction_keeping_an_entry_that_is_not_there() -> None:
    a = chat(user(U1, None), assistant(A1, U1), compaction(U2, A1, "deadbeef"))
    f = only(a, "PI410")
    assert f.message == (
        "compaction firstKeptEntryId 'deadbeef' names no entry; pi keeps none of the entries "
        "before the compaction, only its summary"
    )
    assert (f.severity, text_at(a, f), f.related) == (W, '"deadbeef"', ())


def test_compaction_keeping_an_entry_of_another_branch() -> None:
    a = chat(user(U1, None), assistant(A1, U1), user(U2, U1), compaction(A2, A1, U2))
    f = only(a, "PI410")
    assert f.message == (
        f"compaction firstKeptEntryId '{U2}' is on another branch, not on this compaction's "
        "path; pi keeps none of the entries before the compaction, only its summary"
    )
    assert (f.severity, text_at(a, f)) == (N, f'"{U2}"')
    assert related(a, f) == [(3, f'"{U2}"', "the entry it names")]


def test_compaction_keeping_an_entry_on_its_path_or_nothing_else() -> None:
    for kept in (U1, A1, None, 7):
        a = chat(user(U1, None), assistant(A1, U1), compaction(U2, A1, kept))
        assert [f.code for f in a.findings if f.code == "PI410"] == [], kept


def test_label_of_no_entry() -> None:
    a = chat(user(U1, None), entry("label", A1, U1, targetId="deadbeef", label="x"))
    f = only(a, "PI411")
    assert (
        f.message
        == "label targetId 'deadbeef' names no entry; pi keeps the label but it shows nowhere"
    )
    assert (f.severity, text_at(a, f)) == (W, '"deadbeef"')
    assert [
        f.code for f in chat(user(U1, None), entry("label", A1, U1, targetId=U1)).findings
    ] == []


def branch_summary(from_id: str) -> str:
    return entry("branch_summary", A1, U1, fromId=from_id, summary="s")


def test_branch_summary_from_no_entry() -> None:
    a = chat(user(U1, None), branch_summary("deadbeef"))
    f = only(a, "PI412")
    assert f.message == (
        "branch_summary fromId 'deadbeef' names no entry (and is not \"root\"); the summary no "
        "longer says which branch it abandoned"
    )
    assert (f.severity, text_at(a, f)) == (W, '"deadbeef"')
    for known in ("root", U1):
        assert [f.code for f in chat(user(U1, None), branch_summary(known)).findings] == []


def test_branch_summary_from_no_entry_in_a_fork() -> None:
    f = only(chat(user(U1, None), branch_summary("deadbeef"), parentSession="/s.jsonl"), "PI412")
    assert f.message == (
        "branch_summary fromId 'deadbeef' names no entry in this file: this session was forked "
        "(parentSession), and the abandoned branch stayed in the original; pi does not read "
        "fromId to build the context, so nothing is lost"
    )
    assert f.severity is N


def edit(ident: str, parent: str, target: str, replacement: object = None) -> str:
    replacement = {"content": "gone"} if replacement is None else replacement
    return entry("context_edit", ident, parent, targetId=target, replacement=replacement)


def test_context_edit_of_no_entry() -> None:
    a = chat(user(U1, None), edit(A1, U1, "deadbeef"))
    f = only(a, "PI414")
    assert f.message == "context_edit targetId 'deadbeef' names no entry; pi ignores the edit"
    assert (f.severity, text_at(a, f), f.data) == (W, '"deadbeef"', {"targetId": "deadbeef"})


def test_context_edit_off_its_path() -> None:
    a = chat(user(U1, None), assistant(A1, U1), user(U2, U1), edit(A2, A1, U2))
    f = only(a, "PI415")
    assert f.message == (
        f"context_edit of '{U2}' (line 4) has no effect: its target is not on this edit's path "
        "(pi applies an edit only to the entries of the branch that holds it), so pi ignores it"
    )
    assert (f.severity, text_at(a, f)) == (W, f'"{U2}"')
    assert f.data == {"targetId": U2, "reason": "off-path"}
    assert related(a, f) == [(3, f'"{U2}"', "the entry it edits")]


def test_context_edit_of_an_entry_the_model_does_not_see() -> None:
    a = chat(user(U1, None), entry("label", A1, U1, targetId=U1), edit(U2, A1, A1))
    f = only(a, "PI415")
    assert f.message.endswith(
        "has no effect: its target adds no message to the context (pi edits only entries the "
        "model sees), so pi ignores it"
    )
    assert (text_at(a, f), f.data["reason"]) == (f'"{A1}"', "no-message")  # type: ignore[index]


def test_context_edit_of_content_pi_does_not_replace() -> None:
    summary = entry("branch_summary", A1, U1, fromId="root", summary="s")
    a = chat(user(U1, None), summary, edit(U2, A1, A1))
    f = only(a, "PI415")
    assert f.message.endswith(
        "has no effect: pi replaces the content of user, assistant, tool-result and custom "
        "messages only; this target keeps its content (only replacement: null would omit it)"
    )
    assert (text_at(a, f), f.data["reason"]) == ('{"content":"gone"}', "not-editable")  # type: ignore[index]


def test_context_edits_that_work_or_come_too_late_are_not_reported() -> None:
    base = [user(U1, None), assistant(A1, U1)]
    assert [f.code for f in chat(*base, edit(U2, A1, U1)).findings] == []
    # the newest compaction summarised the target already: harmless, pi writes such edits
    late = [*base, user(U2, A1), compaction(A2, U2, U2), edit(U3, A2, U1)]
    assert [f.code for f in chat(*late).findings] == []


def v1(*lines: str) -> Analysis:
    return analyze(doc(header(version=None), *lines))


def v1_compaction(index: object) -> str:
    return entry("compaction", None, False, summary="s", firstKeptEntryIndex=index, tokensBefore=1)


def test_v1_index_at_the_header_or_outside_the_file() -> None:
    for index, where in (
        (0, "the session header"),
        (-1, "outside the file"),
        (4, "outside the file"),
    ):
        a = v1(user(None, False), assistant(None, False), v1_compaction(index))
        f = only(a, "PI413")
        assert f.message == (
            f"firstKeptEntryIndex {index} points at {where} (4 entries with the header); on "
            "migration pi drops it and keeps nothing before the compaction"
        )
        assert (f.severity, text_at(a, f), f.related) == (E, str(index), ())


def test_v1_index_at_a_line_that_is_no_entry_or_after_the_compaction() -> None:
    a = v1(user(None, False), "[1]", v1_compaction(2), assistant(None, False))
    f = only(a, "PI413")
    assert f.message == (
        "firstKeptEntryIndex 2 points at a line that is not an entry (line 3); pi keeps "
        "nothing before the compaction"
    )
    assert related(a, f) == [(2, "[1]", "the line it names")]
    a = v1(user(None, False), v1_compaction(3), assistant(None, False))
    f = only(a, "PI413")
    assert f.message == (
        "firstKeptEntryIndex 3 points at an entry after the compaction (line 4); pi keeps "
        "nothing before the compaction"
    )
    assert (f.severity, text_at(a, f)) == (E, "3")
    assert related(a, f)[0][:2] == (3, a.lines[3])


def test_v1_index_in_range_or_not_a_number() -> None:
    for index in (1, 2, True, "1", 1.5, None):
        a = v1(user(None, False), assistant(None, False), v1_compaction(index))
        assert "PI413" not in [f.code for f in a.findings], index


# ----------------------------------------------------------------------------- PI420-PI422


def test_tool_result_without_its_call_on_the_path() -> None:
    calls = [assistant(f"a000000{n}", U1, calls=("t1",)) for n in range(4)]
    a = chat(user(U1, None), *calls, result(U2, U1, "t1"))
    f = only(a, "PI420")
    assert f.message == (
        "toolResult answers toolCallId 't1', but no toolCall with that id is on its path; "
        "providers reject the context pi sends on this branch"
    )
    assert (f.severity, f.span.line, text_at(a, f), f.data) == (E, 6, '"t1"', {"toolCallId": "t1"})
    # the first three calls elsewhere are pointed at
    assert related(a, f) == [
        (n, '"t1"', "a toolCall with this id on another branch") for n in (2, 3, 4)
    ]


def test_tool_result_answered_on_its_path() -> None:
    a = chat(user(U1, None), assistant(A1, U1, calls=("t1",)), result(U2, A1, "t1"))
    assert [f.code for f in a.findings] == []


def test_tool_call_left_without_a_result() -> None:
    a = chat(user(U1, None), assistant(A1, U1, calls=("t1", "t2")), result(U2, A1, "t1"))
    f = only(a, "PI421")
    assert f.message == (
        "toolCall 't2' on the active path has no toolResult after it: the session ends while "
        "the tool was running (pi was stopped); on resume pi sends the model a synthetic 'No "
        "result provided' result instead"
    )
    assert (f.severity, f.span.line, text_at(a, f), f.data) == (W, 2, '"t2"', {"toolCallId": "t2"})


def test_second_result_for_one_call() -> None:
    a = chat(
        user(U1, None),
        assistant(A1, U1, calls=("t1",)),
        result(U2, A1, "t1"),
        result(A2, U2, "t1"),
    )
    f = only(a, "PI422")
    assert f.message == (
        "a second toolResult for toolCallId 't1' on the same path (the first is on line 4); pi "
        "sends both and providers may reject the context"
    )
    assert (f.severity, f.span.line, text_at(a, f)) == (W, 4, '"t1"')
    assert related(a, f) == [(3, '"t1"', "the first toolResult")]


def open_calls(*lines: str) -> list[tuple[int, str]]:
    """The PI421 findings of a session: line and call id."""
    return [(f.span.line, f.data["toolCallId"]) for f in chat(*lines).findings if f.code == "PI421"]  # type: ignore[index]


def test_only_the_last_turn_of_the_active_path_waits_for_results() -> None:
    call = assistant(A1, U1, calls=("t1",))
    # a later user or assistant turn: pi filled in a result for the call before it
    assert open_calls(user(U1, None), call, user(U2, A1)) == []
    assert open_calls(user(U1, None), call, assistant(U2, A1)) == []
    # entries that are no turn do not end it; neither do tool results
    label = entry("label", U2, A1, targetId=U1, label="x")
    assert open_calls(user(U1, None), call, label) == [(2, "t1")]
    two = assistant(A1, U1, calls=("t1", "t2"))
    assert open_calls(user(U1, None), two, result(U2, A1, "t2")) == [(2, "t1")]
    # a first turn with no user message before it
    assert open_calls(assistant(U1, None, calls=("t1",))) == [(1, "t1")]
    # a result before the call, or off the active path, does not answer it
    late = [user(U1, None), result(U2, U1, "t1"), assistant(A1, U2, calls=("t1",))]
    assert open_calls(*late) == [(3, "t1")]
    branch = [user(U1, None), assistant(A1, U1, calls=("t1",)), result(U2, A1, "t1")]
    assert open_calls(*branch, user(U3, U1, "other")) == []  # the call is off the path too
    off = [user(U1, None), assistant(A1, U1, calls=("t1",)), user(U2, A1, "x")]
    assert open_calls(*off, result(U3, U1, "t1"), entry("label", A2, A1, targetId=U1)) == [
        (2, "t1")
    ]


def test_an_aborted_or_failed_turn_leaves_no_call_waiting() -> None:
    for stop in ("aborted", "error"):
        assert open_calls(user(U1, None), assistant(A1, U1, calls=("t1",), stop=stop)) == []
    assert open_calls(user(U1, None), assistant(A1, U1, calls=("t1",), stop="length")) == [
        (2, "t1")
    ]


def findings_of(*lines: str) -> list[tuple[str, int]]:
    return sorted((f.code, f.span.line) for f in chat(*lines).findings)


def test_what_counts_as_a_tool_call_or_a_tool_result() -> None:
    call = json.loads(assistant(A1, U1, calls=("t1",)))
    # only an assistant message entry's toolCall blocks with a string id are calls
    not_a_call = [
        {**call, "type": "custom_message"},
        {**call, "message": {**call["message"], "role": "user"}},
        {**call, "message": {**call["message"], "content": [{"type": "text", "id": "t1"}]}},
    ]
    for obj in not_a_call:
        assert "PI421" not in [c for c, _ in findings_of(user(U1, None), json.dumps(obj))], obj
    res = json.loads(result(U2, A1, "t1"))
    # only a toolResult message entry's string toolCallId answers a call
    for obj in (
        {**res, "type": "custom_message"},
        {**res, "message": {**res["message"], "toolCallId": 5}},
    ):
        got = findings_of(user(U1, None), assistant(A1, U1), json.dumps(obj))
        assert "PI420" not in [c for c, _ in got], obj
    # a message entry whose message is no object holds neither
    broken = json.dumps({**res, "message": 5})
    assert "PI420" not in [c for c, _ in findings_of(user(U1, None), broken)]


def test_results_without_a_call_are_no_second_result() -> None:
    got = findings_of(user(U1, None), result(U2, U1, "t9"), result(A2, U2, "t9"))
    assert [c for c, _ in got if c.startswith("PI42")] == ["PI420", "PI420"]


def test_v1_index_of_the_compaction_itself_keeps_nothing_quietly() -> None:
    a = v1(user(None, False), assistant(None, False), v1_compaction(3))
    assert "PI413" not in [f.code for f in a.findings]


def test_v1_every_compaction_is_checked() -> None:
    a = v1(
        user(None, False),
        v1_compaction(0),
        '{"type":"compaction"}',
        assistant(None, False),
        v1_compaction(9),
    )
    assert sorted(f.span.line for f in a.findings if f.code == "PI413") == [2, 5]


def test_a_session_of_a_header_alone_has_no_link_finding() -> None:
    """No entry: nothing is unlinked (and no last entry to name)."""
    a = analyze(doc(header()))
    assert [f.code for f in a.findings if f.code.startswith(("PI3", "PI4"))] == []
