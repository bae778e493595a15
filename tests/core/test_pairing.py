"""Does the session resume? PI423-PI425 as :mod:`pi_lsp.core.checks.pairing` reports them: on the
entry that causes each fault, an error for the leaf pi resumes from and a warning for other
leaves, with the words, spans and related places a user reads."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_lsp.core.checks import pairing
from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.text.findings import Severity

from .pi_sessions import assistant, doc, entry, header, result, user

A, B, C, D, E, F, G, H = (c * 8 for c in "abcdefgh")
REJECT = "providers such as Anthropic reject every request built from it, so the session cannot resume"
RESUMED = "the context for the leaf pi resumes from breaks: "
OTHER = "the context for another leaf of this tree breaks: "


def found(text: str) -> list[tuple[Any, ...]]:
    """``(code, severity, line, spanned text, message, related)`` of PI420-PI425; a related
    place is ``(line, spanned text, message)``, with ``"<line>"`` for a whole line."""
    a = analyze(text)

    def spanned(line: int, start: int, end: int) -> str:
        part = a.lines[line][start:end]
        return "<line>" if part == a.lines[line] else part

    return [
        (
            f.code,
            f.severity,
            f.span.line,
            spanned(f.span.line, f.span.start, f.span.end),
            f.message,
            [(r.span.line, spanned(r.span.line, r.span.start, r.span.end), r.message)
             for r in f.related],
        )
        for f in a.findings
        if f.code in ("PI420", "PI422", "PI423", "PI424", "PI425")
    ]


def custom(ident: str, parent: str) -> str:
    return entry("custom_message", ident, parent, customType="x", content="note", display=True)


def compaction(ident: str, parent: str, kept: str, **more: Any) -> str:
    return entry("compaction", ident, parent, summary="s", firstKeptEntryId=kept,
                 tokensBefore=9, **more)


def edit(ident: str, parent: str, target: str, replacement: Any = None) -> str:
    return entry("context_edit", ident, parent, targetId=target, replacement=replacement)


CALL = (2, "<line>", "the assistant turn that holds call 't1'")


def test_compaction_that_summarises_the_call_away() -> None:
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), result(C, B, "t1"),
        assistant(D, C), compaction(E, D, C), user(F, E),
    )
    assert found(text) == [(
        "PI423", Severity.ERROR, 5, f'"{C}"',
        RESUMED + "this compaction's kept range starts after the assistant turn holding tool "
        "call 't1' (line 3) but keeps its result (line 4), so the context pi sends begins with "
        "an orphaned tool result; " + REJECT,
        [(3, '"t1"', "the orphaned tool result"), CALL],
    )]


def test_compaction_off_the_resumed_path_is_pi424() -> None:
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), result(C, B, "t1"),
        assistant(D, C), compaction(E, D, C), user(F, E), user(G, A, "start over"),
    )
    assert found(text) == [(
        "PI424", Severity.WARNING, 5, f'"{C}"',
        "this compaction's kept range starts inside a tool exchange: it keeps the tool result "
        "on line 4 but not the call before it; whenever this is the newest compaction on the "
        "path, the context pi sends holds an orphaned result and " + REJECT,
        [(3, '"t1"', "the first kept tool result"),
         (2, "<line>", "the assistant turn holding its call (summarised away)")],
    )]


def test_context_edit_that_removes_the_call() -> None:
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), result(C, B, "t1"),
        assistant(D, C), edit(E, D, B),
    )
    message = (
        "this context edit removes tool call 't1' (line 3) from the context but not its result "
        "(line 4), which is sent as an orphan; " + REJECT
    )
    related = [(3, '"t1"', "the orphaned tool result"), CALL]
    assert found(text) == [("PI423", Severity.ERROR, 5, f'"{B}"', RESUMED + message, related)]
    # on another leaf: a warning, judged from the request that ends at the edit
    other = text + user(F, A, "elsewhere") + "\n"
    assert found(other) == [("PI423", Severity.WARNING, 5, f'"{B}"', OTHER + message, related)]


def test_dropped_turn_whose_result_is_still_sent() -> None:
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",), stop="error"),
        result(C, B, "t1"), user(D, C, "again"),
    )
    message = (
        "pi-ai drops this failed or aborted assistant turn from the request, but the result of "
        "its tool call 't1' (line 4) is still sent, as an orphan; " + REJECT
    )
    related = [(3, '"t1"', "the orphaned tool result")]
    assert found(text) == [("PI423", Severity.ERROR, 2, '"error"', RESUMED + message, related)]
    aborted = text.replace('"stopReason":"error"', '"stopReason":"aborted"')
    assert [f[:4] for f in found(aborted)] == [("PI423", Severity.ERROR, 2, '"aborted"')]
    elsewhere = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",), stop="error"),
        result(C, B, "t1"), user(D, A, "again"),
    )
    assert found(elsewhere) == [
        ("PI423", Severity.WARNING, 2, '"error"', OTHER + message, related)
    ]


def test_message_between_call_and_result() -> None:
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), user(C, B, "wait"),
        result(D, C, "t1"),
    )
    assert found(text) == [(
        "PI423", Severity.ERROR, 3, '"user"',
        RESUMED + "pi sends this entry as a user message between tool call 't1' (line 3) and its "
        'result (line 5): pi answers the call with "No result provided" here, and the real '
        "result is sent as an orphan; " + REJECT,
        [(4, '"t1"', "the orphaned tool result"), CALL],
    )]
    # a custom message has no role: the finding is on its type
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), custom(C, B),
        result(D, C, "t1"),
    )
    assert [f[:4] for f in found(text)] == [("PI423", Severity.ERROR, 3, '"custom_message"')]


def test_message_between_call_and_result_on_another_branch_is_pi425() -> None:
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), custom(C, B),
        result(D, C, "t1"), assistant(E, D), user(F, A, "no"), assistant(G, F),
    )
    assert found(text) == [(
        "PI425", Severity.WARNING, 3, '"custom_message"',
        "pi sends this entry as a user message between the tool calls of the assistant turn on "
        'line 3 and their results (line 5): pi answers the calls with "No result provided" here '
        "and the real results become orphans, which providers such as Anthropic reject",
        [(2, "<line>", "the assistant turn with the calls"),
         (4, '"t1"', "a result sent as an orphan")],
    )]


def test_result_not_right_after_its_call() -> None:
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), assistant(C, B),
        result(D, C, "t1"),
    )
    assert found(text) == [(
        "PI423", Severity.ERROR, 4, '"t1"',
        RESUMED + "this tool result answers 't1', but no assistant turn with that call comes "
        "right before it in the context pi sends; " + REJECT,
        [CALL],
    )]


def test_faults_another_code_reports_get_no_pi423() -> None:
    # a call nowhere on the path is PI420, a second answer PI422: not PI423 as well
    nowhere = doc(header(), user(A, None), assistant(B, A), result(C, B, "t9"))
    assert [f[0] for f in found(nowhere)] == ["PI420"]
    twice = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), result(C, B, "t1"),
        result(D, C, "t1"),
    )
    assert [f[0] for f in found(twice)] == ["PI422"]


def test_a_dropped_turn_whose_result_an_edit_omits_is_sound() -> None:
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",), stop="error"),
        result(C, B, "t1"), edit(D, C, C), user(E, D, "again"),
    )
    assert found(text) == []


def test_v1_compaction_is_reported_on_its_kept_index() -> None:
    text = doc(
        header(None), user(None, False), assistant(None, False, calls=("t1",)),
        result(None, False, "t1"), assistant(None, False),
        entry("compaction", None, False, summary="s", firstKeptEntryIndex=3, tokensBefore=1),
        user(None, False),
    )
    assert [f[:4] for f in found(text)] == [("PI423", Severity.ERROR, 5, "3")]


def between(interloper: str) -> str:
    """``interloper`` (line 3) between a call and its result, on a branch pi does not resume."""
    return doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), interloper,
        result(D, C, "t1"), user(F, A, "no"),
    )


def bash(**fields: Any) -> str:
    message = {"role": "bashExecution", "command": "ls", "output": "", "exitCode": 0,
               "cancelled": False, "truncated": False, "timestamp": 1, **fields}
    return entry("message", C, B, message=message)


def test_which_entries_pi_sends_as_user_messages() -> None:
    def pi425(interloper: str) -> list[tuple[Any, ...]]:
        return [f[:4] for f in found(between(interloper))]

    summary = entry("branch_summary", C, B, fromId=A, summary="back")
    assert pi425(summary) == [("PI425", Severity.WARNING, 3, '"branch_summary"')]
    for no_summary in ("", None, 0, False):
        assert pi425(entry("branch_summary", C, B, fromId=A, summary=no_summary)) == []
    for truthy in (1, True):  # pi tests the summary for JavaScript truthiness
        assert pi425(entry("branch_summary", C, B, fromId=A, summary=truthy)) == pi425(summary)
    assert pi425(bash()) == [("PI425", Severity.WARNING, 3, '"bashExecution"')]
    for falsy in (False, 0, ""):
        assert pi425(bash(excludeFromContext=falsy)) == pi425(bash())
    assert pi425(bash(excludeFromContext=True)) == []  # a !! command is not sent
    assert pi425(bash(excludeFromContext="yes")) == []
    assert pi425(custom(C, B)) == [("PI425", Severity.WARNING, 3, '"custom_message"')]
    assert pi425(entry("label", C, B, targetId=A, label="x")) == []
    assert pi425(entry("message", C, B, message={"role": "system", "content": "s"})) == []
    # only a message entry's message is sent: another entry's "message" field is not
    assert pi425(entry("custom", C, B, customType="x", message={"role": "user", "content": "x"})) == []


def two_edits_off_the_resumed_path() -> str:
    """Two branches, each a tool exchange whose call an edit removes (lines 5 and 10);
    pi resumes from a third branch (line 11)."""
    return doc(
        header(), user(A, None),
        assistant(B, A, calls=("t1",)), result(C, B, "t1"), assistant(D, C), edit(E, D, B),
        assistant("b2" * 4, A, calls=("t2",)), result("c2" * 4, "b2" * 4, "t2"),
        assistant("d2" * 4, "c2" * 4), user("x2" * 4, "d2" * 4),
        edit("e2" * 4, "x2" * 4, "b2" * 4), user(F, A, "elsewhere"),
    )


def test_edits_off_the_resumed_path_are_judged_newest_first_within_a_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = two_edits_off_the_resumed_path()
    assert [f[:3] for f in found(text)] == [
        ("PI423", Severity.WARNING, 5), ("PI423", Severity.WARNING, 10)
    ]
    # the newer edit's path has 6 entries (root to edit): a budget of 6 is spent on it,
    # one of 7 is not
    monkeypatch.setattr(pairing, "EDIT_BUDGET", 6)
    assert [f[2] for f in found(text)] == [10]
    monkeypatch.setattr(pairing, "EDIT_BUDGET", 7)
    assert [f[2] for f in found(text)] == [5, 10]


def test_an_edit_whose_request_breaks_elsewhere_is_not_blamed() -> None:
    # off the resumed path only the edit itself is judged: the dropped turn before it is
    # reported once, as a candidate, and the edit that omits an unrelated message not at all
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",), stop="error"),
        result(C, B, "t1"), user(D, C, "next"), edit(E, D, D), user(F, A, "elsewhere"),
    )
    assert [f[:4] for f in found(text)] == [("PI423", Severity.WARNING, 2, '"error"')]


def test_no_pairing_findings_for_a_file_pi_does_not_load() -> None:
    body = [user(A, None), assistant(B, A, calls=("t1",)), assistant(C, B), result(D, C, "t1")]
    assert [f[0] for f in found(doc(header(), *body))] == ["PI423"]
    assert found(doc(header(id=7), *body)) == []  # no string id: pi loads nothing
    assert found(doc(*body)) == []  # no header at all


def test_a_parent_cycle_reports_nothing() -> None:
    # pi hangs walking the cycle: there is no request to judge
    text = doc(
        header(), user(A, F), assistant(B, A, calls=("t1",)), assistant(C, B),
        result(F, C, "t1"),
    )
    assert [f[0] for f in found(text) if f[0] != "PI420"] == []


def test_an_appended_session_is_paired_as_a_fresh_one(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    original = pairing.extend

    def counted(*args: Any) -> Any:
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(pairing, "extend", counted)
    steps = [
        [header(), user(A, None), assistant(B, A, calls=("t1",), stop="error"),
         result(C, B, "t1")],
        [user(D, C, "again"), assistant(E, D, calls=("t2",)), custom(F, E)],
        [result(G, F, "t2"), assistant("g2" * 4, A, calls=("t3",)),
         result("g3" * 4, "g2" * 4, "t3"), assistant("g4" * 4, "g3" * 4),
         edit("g5" * 4, "g4" * 4, "g2" * 4), user(H, G, "back on the first branch")],
        [assistant("h2" * 4, H, calls=("t4",)), user("h3" * 4, "h2" * 4, "wait"),
         result("h4" * 4, "h3" * 4, "t4")],
    ]
    text, previous = "", None
    for lines in steps:
        text += doc(*lines)
        a = analyze(text, previous=previous)
        fresh = analyze(text)
        assert a.findings == fresh.findings
        previous = a
    codes = {(f.code, f.span.line) for f in previous.findings if f.code in ("PI423", "PI425")}
    # the dropped turn, the custom message, the edit on the other branch, the "wait"
    assert codes == {("PI423", 2), ("PI423", 6), ("PI423", 11), ("PI423", 14)}
    assert len(calls) == len(steps) - 1


def test_the_call_of_an_orphan_is_the_nearest_one_before_it() -> None:
    # the call id comes again in a later turn: that turn is not the orphan's call
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), user(C, B, "wait"),
        result(D, C, "t1"), assistant(E, D, calls=("t1",)), result(F, E, "t1"),
    )
    assert [f[:4] for f in found(text) if f[0] == "PI423"] == [
        ("PI423", Severity.ERROR, 3, '"user"')
    ]


def test_only_an_assistant_turn_holds_tool_calls() -> None:
    # a user message whose content has a toolCall block holds no call: the call is still
    # the assistant turn's, and the user message between them is the fault
    block = {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {}}
    odd = entry("message", C, B, message={"role": "user", "content": [block], "timestamp": 1})
    text = doc(header(), user(A, None), assistant(B, A, calls=("t1",)), odd, result(D, C, "t1"))
    assert [f[:4] for f in found(text)] == [("PI423", Severity.ERROR, 3, '"user"')]


def test_a_block_with_the_id_that_is_not_a_tool_call_holds_no_call() -> None:
    # the failed turn above the result has a text block with the call's id, not a call:
    # it is not the result's turn, so no PI423 blames it (off the resumed path)
    turn = entry("message", B, A, message={
        "role": "assistant", "content": [{"type": "text", "text": "x", "id": "t1"}],
        "stopReason": "error", "timestamp": 1,
    })
    text = doc(header(), user(A, None), turn, result(C, B, "t1"), user(F, A, "elsewhere"))
    assert [f for f in found(text) if f[0] in ("PI423", "PI425")] == []


def test_a_compaction_without_a_kept_entry_is_reported_on_its_type() -> None:
    # no firstKeptEntryId: pi keeps nothing before the compaction, so the result after it
    # loses its call; the compaction has no kept field to point at
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)),
        entry("compaction", C, B, summary="s", tokensBefore=9), result(D, C, "t1"),
    )
    assert [f[:4] for f in found(text) if f[0] == "PI423"] == [
        ("PI423", Severity.ERROR, 3, '"compaction"')
    ]


def test_the_span_is_the_causes_own_field_whatever_else_the_entry_holds() -> None:
    # a stray targetId on a dropped turn does not make it a context edit's span
    turn = assistant(B, A, calls=("t1",), stop="error").replace(
        '{"type":"message"', '{"type":"message","targetId":"x"', 1
    )
    text = doc(header(), user(A, None), turn, result(C, B, "t1"), user(D, C, "next"))
    assert [f[:4] for f in found(text) if f[0] == "PI423"] == [
        ("PI423", Severity.ERROR, 2, '"error"')
    ]
    # nor a stray stopReason on a tool result a span of a dropped turn
    late = result(D, C, "t1").replace('"isError":false', '"isError":false,"stopReason":"stop"', 1)
    text = doc(header(), user(A, None), assistant(B, A, calls=("t1",)), assistant(C, B), late)
    assert [f[:4] for f in found(text) if f[0] == "PI423"] == [
        ("PI423", Severity.ERROR, 4, '"t1"')
    ]
    # nor a stray toolCallId on a user message between call and result a tool result's span
    wait = user(C, B, "wait").replace('"role":"user"', '"role":"user","toolCallId":"t1"', 1)
    text = doc(header(), user(A, None), assistant(B, A, calls=("t1",)), wait, result(D, C, "t1"))
    assert [f[:4] for f in found(text) if f[0] == "PI423"] == [
        ("PI423", Severity.ERROR, 3, '"user"')
    ]


def test_pi424_for_a_kept_range_starting_before_the_orphan_and_none_for_a_bad_kept_id() -> None:
    # the kept range starts at the user message between call and result (also PI425)
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), user(C, B, "wait"),
        result(D, C, "t1"), assistant(E, D), compaction(F, E, C), user(G, F),
        user(H, A, "start over"),
    )
    assert [f[:3] for f in found(text) if f[0] == "PI424"] == [("PI424", Severity.WARNING, 6)]
    # a kept id that is not a string names no entry: no PI424 (and no crash)
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), result(C, B, "t1"),
        assistant(D, C), compaction(E, D, [C]), user(F, E), user(G, A, "start over"),
    )
    assert [f for f in found(text) if f[0] == "PI424"] == []


def test_a_kept_range_of_the_one_result_before_the_compaction_is_pi424() -> None:
    # the kept range is the result alone, right before the compaction
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), result(C, B, "t1"),
        compaction(E, C, C), user(F, E), user(G, A, "start over"),
    )
    assert [f[:3] for f in found(text) if f[0] == "PI424"] == [("PI424", Severity.WARNING, 4)]


def test_a_kept_block_with_the_calls_id_that_is_not_a_call_does_not_hold_it() -> None:
    # the kept range starts at a turn whose text block carries the id: the call itself
    # was summarised away, so the kept range still starts inside the tool exchange
    turn = entry("message", C, B, message={
        "role": "assistant", "content": [{"type": "text", "text": "x", "id": "t1"}],
        "stopReason": "stop", "timestamp": 1,
    })
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), turn, result(D, C, "t1"),
        assistant(E, D), compaction(F, E, C), user(G, F), user(H, A, "start over"),
    )
    pi424 = [f for f in found(text) if f[0] == "PI424"]
    assert [f[:3] for f in pi424] == [("PI424", Severity.WARNING, 6)]
    assert [r[0] for r in pi424[0][5]] == [4, 2]  # the result, and the turn with the call


def test_a_kept_result_whose_call_is_nowhere_is_pi424_without_a_call_place() -> None:
    text = doc(
        header(), user(A, None), assistant(B, A), result(C, B, "t9"), assistant(D, C),
        compaction(E, D, C), user(F, E), user(G, A, "start over"),
    )
    got = found(text)
    assert [f[:3] for f in got] == [("PI420", Severity.ERROR, 3), ("PI424", Severity.WARNING, 5)]
    assert got[1][5] == [(3, '"t9"', "the first kept tool result")]


def test_a_fault_another_code_reports_does_not_hide_the_next_one() -> None:
    # the first orphan's call is nowhere (PI420); the second's is not right before it
    text = doc(
        header(), user(A, None), assistant(B, A), result(C, B, "t9"),
        assistant(D, C, calls=("t1",)), assistant(E, D), result(F, E, "t1"),
    )
    assert [f[:3] for f in found(text)] == [
        ("PI420", Severity.ERROR, 3), ("PI423", Severity.ERROR, 6)
    ]


def off_path_edit_after_an_interloper(*after: str) -> str:
    """A branch off the resumed path: a custom message between a call and its result
    (PI425), then a context edit that removes a later call (PI423 on the edit)."""
    return doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), custom(C, B),
        result(D, C, "t1"), assistant(E, D, calls=("t2",)), result(F, E, "t2"),
        assistant(G, F), edit(H, G, E), user("i" * 8, A, "elsewhere"), *after,
    )


def test_an_edit_off_the_resumed_path_is_judged_past_other_faults_on_its_path() -> None:
    text = off_path_edit_after_an_interloper()
    assert [f[:3] for f in found(text)] == [
        ("PI425", Severity.WARNING, 3), ("PI423", Severity.WARNING, 8)
    ]
    # an edit on the resumed path, newer than it, does not stop the judging either
    newer = off_path_edit_after_an_interloper(assistant("j" * 8, "i" * 8),
                                              edit("k" * 8, "j" * 8, "i" * 8))
    assert [f[:3] for f in found(newer)] == [
        ("PI425", Severity.WARNING, 3), ("PI423", Severity.WARNING, 8)
    ]


def test_every_candidate_is_reported_past_one_the_resumed_request_reports() -> None:
    text = doc(
        header(), user(A, None), assistant(B, A), result(C, B, "t9"),
        assistant(D, C, calls=("t1",), stop="error"), result(E, D, "t1"),
        # two branches off the resumed path: an aborted turn whose result stays, and a
        # custom message between a call and its result
        assistant(F, A, calls=("t2",), stop="aborted"), result(G, F, "t2"),
        assistant(H, A, calls=("t3",)), custom("i" * 8, H), result("j" * 8, "i" * 8, "t3"),
        user("k" * 8, E, "again"),
    )
    assert [f[:3] for f in found(text)] == [
        ("PI420", Severity.ERROR, 3), ("PI423", Severity.ERROR, 4),
        ("PI423", Severity.WARNING, 6), ("PI425", Severity.WARNING, 9),
    ]


def test_the_interloper_is_the_first_entry_sent_as_a_user_message_after_the_call() -> None:
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1", "t2")), custom(C, B),
        user(D, C, "wait"), result(E, D, "t1"), result(F, E, "t2"), assistant(G, F),
        user(H, A, "elsewhere"),
    )
    got = found(text)
    assert [f[:3] for f in got] == [("PI425", Severity.WARNING, 3)]
    assert got[0][5][1][0] == 5  # the first result walked up from


def test_a_parent_cycle_above_a_result_with_no_assistant_turn_ends_the_walk() -> None:
    text = doc(header(), user(A, B), user(B, A), result(C, A, "t1"), user(D, None, "new"))
    assert [f[0] for f in found(text) if f[0].startswith("PI42")] == ["PI420"]


def test_an_append_grows_the_resumed_context_without_building_it_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = doc(header(), user(A, None), assistant(B, A, calls=("t1",)), result(C, B, "t1"))
    a = analyze(first)

    def unexpected(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("built again")

    with monkeypatch.context() as m:
        m.setattr(pairing.context, "build_context", unexpected)
        m.setattr(pairing.context, "entry_index", unexpected)
        second = first + doc(assistant(D, C), user(E, D, "thanks"))
        grown = analyze(second, previous=a)
    assert grown.findings == analyze(second).findings
    assert grown.link_state is not None and grown.link_state.pairing is not None
    # an appended compaction builds the context again, from the ids it has already
    with monkeypatch.context() as m:
        m.setattr(pairing.context, "entry_index", unexpected)
        third = second + doc(compaction(F, E, D), user(G, F))
        again = analyze(third, previous=grown)
    assert again.findings == analyze(third).findings


def test_only_a_string_or_a_missing_id_names_a_call() -> None:
    def turn(block: dict[str, Any]) -> str:
        return entry("message", B, A, message={
            "role": "assistant", "content": [block], "stopReason": "toolUse", "timestamp": 1,
        })

    answer = json.loads(result(D, C, "t1"))
    del answer["message"]["toolCallId"]
    # a call without an id and a result without one: the result is the fault (not the
    # message between them), and the words say why
    text = doc(header(), user(A, None), turn({"type": "toolCall", "name": "bash"}),
               user(C, B, "wait"), json.dumps(answer))
    assert found(text) == [(
        "PI423", Severity.ERROR, 4, '"message"',
        RESUMED + "this tool result names no tool call (its toolCallId is not a string), so no "
        "assistant turn's call can come before it; " + REJECT, [],
    )]
    # an array id names nothing either (JavaScript compares arrays by identity)
    answer["message"]["toolCallId"] = [1]
    text = doc(header(), user(A, None), turn({"type": "toolCall", "id": [1], "name": "bash"}),
               user(C, B, "wait"), json.dumps(answer))
    assert [f[:4] for f in found(text)] == [("PI423", Severity.ERROR, 4, "[1]")]
    # the same with two results after the turn: each is an orphan, not a second answer
    text = doc(header(), user(A, None), turn({"type": "toolCall", "name": "bash"}),
               json.dumps(answer), json.dumps({**answer, "id": E, "parentId": D}))
    assert [f[:3] for f in found(text)] == [
        ("PI423", Severity.ERROR, 3), ("PI423", Severity.ERROR, 4)
    ]


def test_a_result_below_a_run_another_result_walked_finds_the_same_interloper() -> None:
    # the first result (answering no call of the turn) walks up past the user message; its
    # sibling below the same message finds the turn and the interloper all the same
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1", "t2")), user(C, B, "wait"),
        result(D, C, "zz"), result(E, C, "t2"), user(F, A, "elsewhere"),
    )
    got = found(text)
    assert [f[:3] for f in got] == [("PI425", Severity.WARNING, 3), ("PI420", Severity.ERROR, 4)]
    assert [r[0] for r in got[0][5]] == [2, 5]  # the turn holding the call, and the result


def test_a_call_answered_twice_after_an_edit_that_adds_it() -> None:
    # the tree holds no call 't1' (PI420, no PI422), but the edit's content sends one
    kept = {"content": [{"type": "toolCall", "id": "t1", "name": "bash", "arguments": {}}]}
    text = doc(
        header(), user(A, None), assistant(B, A), edit(C, B, B, kept), result(D, C, "t1"),
        result(E, D, "t1"),
    )
    (pi423,) = [f for f in found(text) if f[0] == "PI423"]
    assert pi423[:4] == ("PI423", Severity.ERROR, 5, '"t1"')
    assert pi423[4] == (
        RESUMED + "tool call 't1' is answered a second time here in the context pi sends; " + REJECT
    )


def test_an_edit_on_the_resumed_path_is_judged_only_by_the_resumed_context() -> None:
    # the first edit would orphan the result, but the newer one on the same path wins; the
    # first is no leaf pi could resume from, so it is not judged as one
    kept = {"content": [{"type": "toolCall", "id": "t1", "name": "bash", "arguments": {}}]}
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), result(C, B, "t1"),
        assistant(D, C), edit(E, D, B), edit(F, E, B, kept), user(G, F, "go on"),
    )
    assert found(text) == []


def test_a_call_id_twice_in_one_turn_and_unanswered_blames_no_line() -> None:
    # pi-ai answers each open call with its own "No result provided", so the second
    # synthetic answer is a duplicate of no line in the file
    text = doc(header(), user(A, None), assistant(B, A, calls=("t1", "t1")), user(C, B, "go on"))
    assert found(text) == []


def test_a_fault_after_a_second_answer_is_still_reported() -> None:
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), result(C, B, "t1"),
        result(D, C, "t1"), assistant(E, D, calls=("t2",)), user(F, E, "wait"),
        result(G, F, "t2"),
    )
    assert [f[:3] for f in found(text)] == [
        ("PI422", Severity.WARNING, 4), ("PI423", Severity.ERROR, 6)
    ]


def test_a_kept_entry_on_another_branch_is_pi410_alone() -> None:
    # the kept result's call is above it, on its own branch: no kept range to judge
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1",)), result(C, B, "t1"),
        user(D, A, "elsewhere"), assistant(E, D), compaction(F, E, C), user(G, F),
    )
    a = analyze(text)
    assert [f.code for f in a.findings if f.code.startswith("PI4")] == ["PI410"]


def test_a_kept_range_from_the_second_result_names_the_turn_two_entries_up() -> None:
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1", "t2")), result(C, B, "t1"),
        result(D, C, "t2"), assistant(E, D), compaction(F, E, D), user(G, F),
        user(H, A, "elsewhere"),
    )
    (got,) = found(text)
    assert got[:3] == ("PI424", Severity.WARNING, 6)
    assert [r[0] for r in got[5]] == [4, 2]  # the kept result, the turn holding its call


def test_each_result_of_a_dropped_turn_of_several_calls_is_matched_by_its_own_id() -> None:
    # a failed turn with two calls: both results are candidates of that turn, a third
    # result naming a call the turn does not hold is not (its id is looked up, not the
    # first call's), and an array id names no call at all
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1", "t2"), stop="error"),
        result(C, B, "t1"), result(D, C, "t2"), result(E, D, "t3"),
    )
    assert [f[:3] for f in found(text)] == [
        ("PI423", Severity.ERROR, 2), ("PI420", Severity.ERROR, 5)
    ]
    state = pairing.check(analyze(text))[1]
    assert state is not None
    assert [(c.finding.span.line, c.unless_blamed, c.unless_active) for c in state.candidates] == [
        (2, 2, 3), (2, 2, 4)
    ]
    odd = json.loads(result(E, D, "t3"))
    odd["message"]["toolCallId"] = ["t1"]
    text = doc(
        header(), user(A, None), assistant(B, A, calls=("t1", "t2"), stop="error"),
        result(C, B, "t1"), json.dumps(odd),
    )
    state = pairing.check(analyze(text))[1]
    assert state is not None
    assert [c.unless_active for c in state.candidates] == [3]


def test_a_compaction_does_not_end_the_search_for_candidates_below_it() -> None:
    """Entries after a compaction in the file are still judged (a PI425 on another leaf)."""
    text = doc(
        header(), user(A, None), compaction(B, A, A), assistant(C, B, calls=("t1",)),
        custom(D, C), result(E, D, "t1"), assistant(F, E), user(G, A, "elsewhere"),
    )
    assert [f[:3] for f in found(text)] == [("PI425", Severity.WARNING, 4)]
