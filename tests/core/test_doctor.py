"""The session doctor's quick fixes (PI421, PI423-PI425): each removes its diagnostic, adds
no error, changes only the lines it must, deletes no entry, and leaves a request that
passes the pairing rule."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.edits import doctor, repairs
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.pi.context import session_context
from pi_lsp.core.pi.sent import NO_RESULT, pairing_faults, request
from pi_lsp.core.text.textedit import apply_edits

from .pi_sessions import assistant, changed_lines, doc, entry, header, js, result, user
from .test_repairs import apply_fix, offered

A, B, C, D, E, F, G, H = (c * 8 for c in "abcdefgh")


def sends_cleanly(a: Analysis, leaf: Any = None) -> bool:
    ctx = session_context(a) if leaf is None else session_context(a, leaf)
    return pairing_faults(request(ctx).messages) == []


def objs(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def custom(ident: str, parent: str, text: str = "Remember the linter.") -> str:
    return entry("custom_message", ident, parent, customType="reminder", content=text, display=True)


def compaction(ident: str, parent: str, kept: str) -> str:
    return entry("compaction", ident, parent, summary="sum", firstKeptEntryId=kept, tokensBefore=9)


# -------------------------------------------------------------------------- kept range


def kept_orphan(*more: str) -> str:
    """A compaction (line 5) that keeps the tool result (line 3) but not its call."""
    return doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        result(C, B, "t1"),
        assistant(D, C),
        compaction(E, D, C),
        user(F, E),
        *more,
    )


def test_compaction_keeps_from_the_turn_holding_the_call() -> None:
    text = kept_orphan()
    out, b = apply_fix(text, "PI423", 5, "Keep from the assistant turn", replaced={5})
    assert objs(out)[5]["firstKeptEntryId"] == B
    assert sends_cleanly(b) and not b.findings


def test_no_kept_range_fix_when_the_exchanges_interleave() -> None:
    # a2's result comes first, then a1's: no start of the kept range pairs them
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        assistant(C, B, calls=("t2",)),
        result(D, C, "t2"),
        result(E, D, "t1"),
        assistant(F, E),
        compaction(G, F, D),
        user(H, G),
    )
    a = analyze(text)
    assert [f.code for f in a.findings if f.span.line == 7] == ["PI423"]
    assert offered(text, "PI423", 7) == []


def test_kept_range_fix_on_a_compaction_off_the_resumed_path() -> None:
    text = kept_orphan(user(G, A, "start over"))
    _, b = apply_fix(text, "PI424", 5, "Keep from", replaced={5})
    assert sends_cleanly(b, F)


# ---------------------------------------------------------------------------- interlopers


def test_interloper_moves_after_the_results() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1", "t2")),
        custom(C, B),
        result(D, C, "t1"),
        result(E, D, "t2"),
        assistant(F, E),
    )
    a = analyze(text)
    assert not sends_cleanly(a)
    fix = [f for f in repairs.fixes(a, "PI423", 3) if f.preferred]
    assert [f.safe for f in fix] == [True]
    out = apply_edits(a.text, fix[0].edits())
    b = analyze(out)
    assert [o.get("id") for o in objs(out)[1:]] == [A, B, D, E, C, F]  # C's line moved
    assert [o.get("parentId") for o in objs(out)[1:]] == [None, A, B, D, E, C]
    assert sends_cleanly(b) and not b.findings
    # the moved line keeps every byte but its parentId
    moved = objs(text)[3]
    moved["parentId"] = E
    assert out.splitlines()[5] == js(moved)


def test_interloper_on_another_branch() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        custom(C, B),
        result(D, C, "t1"),
        assistant(E, D),
        user(F, A, "no, the tests"),
        assistant(G, F),
    )
    a = analyze(text)
    assert ("PI425", 3) in {(f.code, f.span.line) for f in a.findings}
    _, b = apply_fix(text, "PI425", 3, "Move this message", replaced={3, 4, 5}, deleted=set())
    assert sends_cleanly(b, E) and b.tree.leaf == a.tree.leaf


def test_two_interlopers_both_move_in_their_order() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1", "t2")),
        custom(C, B, "first"),
        result(D, C, "t1"),
        user(E, D, "second"),
        result(F, E, "t2"),
    )
    a = analyze(text)
    line = next(f.span.line for f in a.findings if f.code in ("PI423", "PI425"))
    fix = next(f for f in repairs.fixes(a, "PI423", line) if f.preferred)
    out = apply_edits(a.text, fix.edits())
    assert [o.get("id") for o in objs(out)[1:]] == [A, B, D, F, C, E]
    b = analyze(out)
    assert b.tree.leaf == 6 and sends_cleanly(b) and not b.findings


def test_interloper_before_a_last_line_without_newline() -> None:
    text = doc(header(), user(A, None), assistant(B, A, calls=("t1",)), custom(C, B)) + result(
        D, C, "t1"
    )
    a = analyze(text)
    fix = next(f for f in repairs.fixes(a, "PI423", 3) if f.preferred)
    out = apply_edits(a.text, fix.edits())
    assert not out.endswith("\n") and out.count("\n") == text.count("\n")
    assert [o.get("id") for o in objs(out)[1:]] == [A, B, D, C]
    assert sends_cleanly(analyze(out))


def test_no_move_when_a_branch_starts_inside_the_exchange() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        custom(C, B),
        result(D, C, "t1"),
        user(E, C, "a branch from the message"),
        assistant(F, D),
    )
    a = analyze(text)
    line = next(f.span.line for f in a.findings if f.code in ("PI423", "PI425"))
    code = next(f.code for f in a.findings if f.span.line == line)
    assert offered(text, code, line) == []


# -------------------------------------------------------------------------- context edits


def edit(ident: str, parent: str, target: str, replacement: Any = None) -> str:
    return entry("context_edit", ident, parent, targetId=target, replacement=replacement)


def edited(replacement: Any = None, *more: str) -> str:
    """A tool exchange whose assistant turn (line 2) a context edit (line 5) edits."""
    return doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        result(C, B, "t1"),
        assistant(D, C),
        edit(E, D, B, replacement),
        *more,
    )


def test_edit_omitting_a_call_omits_its_results_too() -> None:
    text = edited()
    a = analyze(text)
    titles = offered(text, "PI423", 5)
    assert titles[0].startswith("Omit the tool results of the edited turn too")
    assert titles[1].startswith("Narrow the edit")
    out = apply_edits(a.text, repairs.fixes(a, "PI423", 5)[0].edits())
    assert out.startswith(text)
    added = objs(out)[6:]
    assert [(o["type"], o["parentId"], o["targetId"], o["replacement"]) for o in added] == [
        ("context_edit", E, C, None)
    ]
    assert sends_cleanly(analyze(out))


def test_narrowed_edit_keeps_the_calls() -> None:
    text = edited({"content": "shorter"})
    a = analyze(text)
    fix = next(f for f in repairs.fixes(a, "PI423", 5) if f.title.startswith("Narrow"))
    out = apply_edits(a.text, fix.edits())
    assert changed_lines(text, out) == {5}
    content = objs(out)[5]["replacement"]["content"]
    assert content[0] == {"type": "text", "text": "shorter"}
    assert [b["id"] for b in content[1:]] == ["t1"]
    assert sends_cleanly(analyze(out))


def test_edit_on_another_leaf_is_only_narrowed() -> None:
    text = edited(None, user(F, A, "elsewhere"))
    a = analyze(text)
    found = [f for f in a.findings if f.code == "PI423" and f.span.line == 5]
    assert found and found[0].severity == 2
    fixes = repairs.fixes(a, "PI423", 5)
    assert [(f.title.split(":")[0], f.safe) for f in fixes] == [("Narrow the edit", True)]
    out = apply_edits(a.text, fixes[0].edits())
    assert sends_cleanly(analyze(out), E)


def test_dropped_turn_results_are_omitted() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",), stop="aborted"),
        result(C, B, "t1"),
        user(D, C, "again"),
    )
    a = analyze(text)
    assert not sends_cleanly(a)
    fix = repairs.fixes(a, "PI423", 2)
    assert len(fix) == 1 and fix[0].safe
    out = apply_edits(a.text, fix[0].edits())
    assert out.startswith(text) and objs(out)[5]["targetId"] == C
    assert sends_cleanly(analyze(out))


# --------------------------------------------------------------------------- dangling calls


def test_dangling_calls_get_pi_ais_synthetic_results() -> None:
    text = doc(header(), user(A, None), assistant(B, A, calls=("t1", "t2")), result(C, B, "t1"))
    a = analyze(text)
    fix = next(f for f in repairs.fixes(a, "PI421", 2) if f.preferred)
    out = apply_edits(a.text, fix.edits())
    assert out.startswith(text)
    new = objs(out)[4]
    assert new["parentId"] == C and new["timestamp"].endswith("Z")
    message = new["message"]
    assert message["role"] == "toolResult" and message["toolCallId"] == "t2"
    assert message["content"] == [{"type": "text", "text": NO_RESULT}] and message["isError"]
    b = analyze(out)
    assert not [f for f in b.findings if f.code == "PI421"]
    assert not any(m.synthetic for m in request(session_context(b)).messages)


def test_dangling_call_answered_before_the_message_that_follows() -> None:
    label = entry("label", D, C, targetId=B, label="x")
    text = doc(header(), user(A, None), assistant(B, A, calls=("t1",)), custom(C, B), label)
    a = analyze(text)
    fix = next(f for f in repairs.fixes(a, "PI421", 2) if f.preferred)
    out = apply_edits(a.text, fix.edits())
    new = objs(out)[3]
    assert [o["id"] for o in objs(out)[1:]] == [A, B, new["id"], C, D]
    assert new["parentId"] == B and objs(out)[4]["parentId"] == new["id"]
    b = analyze(out)
    assert not [f for f in b.findings if f.code in ("PI421", "PI423", "PI425")]
    assert not any(m.synthetic for m in request(session_context(b)).messages)


def test_no_answer_when_every_call_is_answered() -> None:
    text = doc(header(), user(A, None), assistant(B, A, calls=("t1",)), result(C, B, "t1"))
    assert offered(text, "PI421", 2) == []


# -------------------------------------------------------- a result on another branch


def branched_result(*more: str) -> str:
    """The user message on line 4 follows the call (line 2), so its result (line 3) is on
    another branch and pi-ai answers the call with "No result provided"."""
    return doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        result(C, B, "t1"),
        user(D, B, "next"),
        assistant(E, D),
        *more,
    )


def test_a_result_on_another_branch_is_reported_with_its_line() -> None:
    a = analyze(branched_result())
    (f,) = [f for f in a.findings if f.code == "PI421"]
    assert f.span.line == 2 and f.data == {"toolCallId": "t1"}
    assert "its result (line 4) is on another branch" in f.message
    assert "pi-ai sends the model a synthetic 'No result provided'" in f.message
    assert [r.span.line for r in f.related] == [3]
    synthetic = [m for m in request(session_context(a)).messages if m.synthetic]
    assert [m.answers for m in synthetic] == ["t1"]  # what pi-ai sends, as the message says


def test_a_result_on_another_branch_comes_back_by_a_re_parent() -> None:
    text = branched_result()
    assert offered(text, "PI421", 2) == [
        "Re-parent line 5 to the toolResult on line 4, so pi sends the real result "
        "(nothing is deleted)"
    ]
    out, b = apply_fix(text, "PI421", 2, "Re-parent line 5", replaced={4})
    assert objs(out)[4]["parentId"] == C
    sent = request(session_context(b)).messages
    assert [(m.role, m.line) for m in sent] == [
        ("user", 1),
        ("assistant", 2),
        ("toolResult", 3),
        ("user", 4),
        ("assistant", 5),
    ]
    assert not b.findings


def test_no_report_for_a_call_pi_does_not_send_or_a_result_pi_sends() -> None:
    # the result's branch is the resumed one: nothing to report
    on_path = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        user(D, B, "a branch"),
        result(C, B, "t1"),
        assistant(E, C),
    )
    assert not [f for f in analyze(on_path).findings if f.code == "PI421"]
    # an aborted turn: pi-ai drops it with its calls
    aborted = branched_result().replace('"stopReason":"toolUse"', '"stopReason":"aborted"')
    assert '"aborted"' in aborted
    assert not [f for f in analyze(aborted).findings if f.code == "PI421"]


def test_no_re_parent_when_a_message_comes_between_or_the_result_is_written_later() -> None:
    # the result hangs below the user message that closes the turn's results: re-parenting
    # the assistant turn to it would leave the result after that message
    late = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        user(D, B, "next"),
        result(C, D, "t1"),
        assistant(E, D),
    )
    a = analyze(late)
    assert [f.related[0].span.line for f in a.findings if f.code == "PI421"] == [4]
    assert offered(late, "PI421", 2) == []
    # the result is written after the entry that would become its child
    later = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        user(D, B, "next"),
        assistant(E, D),
        result(C, B, "t1"),
        entry("label", F, E, targetId=A, label="x"),
    )
    b = analyze(later)
    (f,) = [f for f in b.findings if f.code == "PI421"]
    assert [r.span.line for r in f.related] == [5]
    assert offered(later, "PI421", 2) == []  # and no synthetic answer buries the result


def test_an_answer_for_the_last_turn_leaves_a_call_whose_result_is_on_a_branch() -> None:
    # t1's result is on another branch, t2 has none: only t2 gets pi-ai's answer
    text = doc(
        header(),
        user(A, None),
        user(D, A, "first try"),
        assistant(B, D, calls=("t1", "t2")),
        result(C, B, "t1"),
        custom(E, B),
    )
    a = analyze(text)
    found = {f.data["toolCallId"]: f for f in a.findings if f.code == "PI421" and f.data}
    assert set(found) == {"t1", "t2"} and found["t1"].related and not found["t2"].related
    fix = next(f for f in repairs.fixes_for(a, found["t2"]) if f.preferred)
    out = apply_edits(a.text, fix.edits())
    added = [o for o in objs(out) if o.get("id") not in (A, B, C, D, E) and "parentId" in o]
    assert [o["message"]["toolCallId"] for o in added] == ["t2"]


# ----------------------------------------------------------------------- duplicate ids


def test_duplicate_id_renames_context_edit_and_own_references() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A),
        user(A, B, "second with the same id"),
        edit(C, A, A, {"content": "x"}),
    )
    out, _ = apply_fix(text, "PI401", 3, "re-point", replaced={3, 4})
    fresh = objs(out)[3]["id"]
    assert fresh != A and objs(out)[4]["targetId"] == fresh and objs(out)[4]["parentId"] == fresh


def test_retain_none_compaction_keeps_naming_itself_after_a_rename() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A),
        entry("compaction", A, B, summary="s", firstKeptEntryId=A, tokensBefore=1),
    )
    out, _ = apply_fix(text, "PI401", 3, "fresh id", replaced={3})
    obj = objs(out)[3]
    assert obj["id"] != A and obj["firstKeptEntryId"] == obj["id"]


# ------------------------------------------------------- where the synthetic results go


def test_several_answers_are_chained_with_fresh_ids_and_pi_ais_fields() -> None:
    text = doc(header(), user(A, None), assistant(B, A, calls=("t1", "t2")))
    a = analyze(text)
    taken = {A, B, "0a1b2c3d"}
    before = time.time() * 1000
    edits = doctor.answer_calls(a, 2, taken)
    assert edits is not None
    new = objs(apply_edits(a.text, edits))[3:]
    ids = [o["id"] for o in new]
    assert len(set(ids)) == 2 and all(isinstance(i, str) and i not in (A, B) for i in ids)
    assert [o["parentId"] for o in new] == [B, ids[0]]
    assert [o["message"]["toolCallId"] for o in new] == ["t1", "t2"]
    assert [o["message"]["toolName"] for o in new] == ["bash", "bash"]
    for o in new:
        assert before - 5000 <= o["message"]["timestamp"] <= time.time() * 1000 + 5000


def test_answers_go_after_entries_pi_does_not_send_and_before_a_compaction() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1", "t2")),
        result(C, B, "t1"),
        entry("label", D, C, targetId=B, label="x"),
        compaction(E, D, B),
    )
    a = analyze(text)
    out = objs(apply_edits(a.text, doctor.answer_calls(a, 2, set()) or []))
    new = out[5]
    assert [o["id"] for o in out[1:]] == [A, B, C, D, new["id"], E]
    assert new["parentId"] == D and new["message"]["toolCallId"] == "t2"
    assert out[6]["parentId"] == new["id"]


def test_answers_go_before_the_next_assistant_turn() -> None:
    text = doc(header(), user(A, None), assistant(B, A, calls=("t1",)), assistant(C, B))
    a = analyze(text)
    out = objs(apply_edits(a.text, doctor.answer_calls(a, 2, set()) or []))
    assert [o["id"] for o in out[1:]] == [A, B, out[3]["id"], C]
    assert out[4]["parentId"] == out[3]["id"]


def test_only_tool_call_blocks_are_answered() -> None:
    turn = json.loads(assistant(B, A, calls=("t1",)))
    turn["message"]["content"][:0] = ["stray", {"type": "text", "text": "x", "id": "not-a-call"}]
    a = analyze(doc(header(), user(A, None), js(turn)))
    out = objs(apply_edits(a.text, doctor.answer_calls(a, 2, set()) or []))
    assert [o["message"]["toolCallId"] for o in out[3:]] == ["t1"]


def test_no_answers_for_an_answered_turn_or_one_off_the_resumed_path() -> None:
    answered = doc(header(), user(A, None), assistant(B, A, calls=("t1",)), result(C, B, "t1"))
    assert doctor.answer_calls(analyze(answered), 2, set()) is None
    elsewhere = doc(header(), user(A, None), assistant(B, A, calls=("t1",)), user(C, A, "other"))
    assert doctor.answer_calls(analyze(elsewhere), 2, set()) is None


# ---------------------------------------------------------------- moving interlopers


def moved(text: str, line: int) -> tuple[list[Any], list[Any]]:
    """The preferred fix for the interloper on ``line``: (ids, parents) after it; every
    edit of it changes the text."""
    a = analyze(text)
    code = next(f.code for f in a.findings if f.span.line == line and f.code in ("PI423", "PI425"))
    fix = next(f for f in repairs.fixes(a, code, line) if f.preferred)
    edits = fix.edits()
    assert all(apply_edits(text, [e]) != text for e in edits)
    out = objs(apply_edits(a.text, edits))[1:]
    return [o["id"] for o in out], [o["parentId"] for o in out]


def test_interloper_after_some_of_the_results_moves_after_the_last() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1", "t2")),
        result(D, B, "t1"),
        custom(C, D),
        result(E, C, "t2"),
        assistant(F, E),
    )
    assert moved(text, 4) == ([A, B, D, E, C, F], [None, A, B, D, E, C])


def test_the_message_after_the_last_result_stays_in_place() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        custom(C, B),
        result(D, C, "t1"),
        user(E, D, "next"),
        assistant(F, E),
    )
    assert moved(text, 3) == ([A, B, D, C, E, F], [None, A, B, D, C, E])


def test_two_interlopers_before_a_last_line_without_newline() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        custom(C, B, "one"),
        custom(E, C, "two"),
    ) + result(D, E, "t1")
    a = analyze(text)
    fix = next(f for f in repairs.fixes(a, "PI423", 3) if f.preferred)
    out = apply_edits(a.text, fix.edits())
    assert not out.endswith("\n") and out.count("\n") == text.count("\n")
    assert [o["id"] for o in objs(out)[1:]] == [A, B, D, C, E]


def test_the_gathered_run_stops_at_the_next_assistant_turn() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1", "t2")),
        custom(C, B),
        result(D, C, "t1"),
        assistant(F, D),
        result(G, F, "t2"),
    )
    plan = doctor.reorder_plan(analyze(text), 3)
    assert plan is not None and plan.run == (3, 4) and plan.order == (4, 3)


def test_a_message_that_is_no_tool_result_answers_no_call() -> None:
    system = entry("message", G, D, message={"role": "system", "content": "s", "toolCallId": "t1"})
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        custom(C, B),
        result(D, C, "t1"),
        system,
    )
    plan = doctor.reorder_plan(analyze(text), 3)
    assert plan is not None and plan.run == (3, 4)


def test_the_walk_down_the_exchange_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1", "t2")),
        custom(C, B),
        result(D, C, "t1"),
        result(E, D, "t2"),
    )
    plan = doctor.reorder_plan(analyze(text), 3)
    assert plan is not None and plan.run == (3, 4, 5)
    monkeypatch.setattr(doctor, "WALK_LIMIT", 2)  # the message and one entry after it
    plan = doctor.reorder_plan(analyze(text), 3)
    assert plan is not None and plan.run == (3, 4)


def test_no_plan_without_a_turn_above_or_a_message_to_move() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1", "t2")),
        result(C, B, "t1"),
        result(D, C, "t2"),
    )
    a = analyze(text)
    assert doctor.reorder_plan(a, 1) is None  # nothing above the first message
    assert doctor.reorder_plan(a, 3) is None  # only results between the turn and the last one


def test_no_move_when_the_last_results_id_is_taken_by_a_later_entry() -> None:
    # the moved message's parent would name the later entry
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        custom(C, B),
        result(D, C, "t1"),
        entry("label", D, A, targetId=A, label="same id"),
    )
    a = analyze(text)
    assert doctor.reorder_plan(a, 3) is None
    assert [t for f in a.findings if f.span.line == 3 for t in offered(text, f.code, 3)] == []


# ---------------------------------------------------------------------- kept ranges


def test_no_kept_range_start_for_an_odd_or_sound_compaction() -> None:
    odd = entry("compaction", E, D, summary="s", firstKeptEntryId=[C], tokensBefore=1)
    off_path = compaction(E, D, G)
    sound = compaction(E, D, B)
    for last in (odd, off_path, sound):
        text = doc(
            header(),
            user(A, None),
            assistant(B, A, calls=("t1",)),
            result(C, B, "t1"),
            assistant(D, C),
            user(G, A, "another branch"),
            last,
        )
        assert doctor.kept_range_start(analyze(text), 6) is None


# -------------------------------------------------------------------- context edits


def test_omitting_several_results_appends_a_chain_of_context_edits() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1", "t2")),
        result(C, B, "t1"),
        result(D, C, "t2"),
        assistant(E, D),
        edit(F, E, B),
    )
    a = analyze(text)
    out = apply_edits(a.text, repairs.fixes(a, "PI423", 6)[0].edits())
    added = objs(out)[7:]
    ids = [o["id"] for o in added]
    assert len(set(ids)) == 2 and all(
        isinstance(i, str) and i not in (A, B, C, D, E, F) for i in ids
    )
    assert [(o["parentId"], o["targetId"], o["replacement"]) for o in added] == [
        (F, C, None),
        (ids[0], D, None),
    ]
    assert all(o["timestamp"].endswith("Z") for o in added)
    assert sends_cleanly(analyze(out))
    assert doctor.omit_results(a, [], set()) == []


def test_only_the_results_the_cause_orphans_are_omitted() -> None:
    # an edit (line 5) orphans line 3, a dropped turn (line 6) orphans line 7
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        result(C, B, "t1"),
        assistant(D, C),
        edit(E, D, B),
        assistant(F, E, calls=("t2",), stop="aborted"),
        result(G, F, "t2"),
        user(H, G),
    )
    a = analyze(text)
    assert (doctor.orphaned_by(a, 5), doctor.orphaned_by(a, 6)) == ([3], [7])


def test_context_edits_omit_only_results_on_the_resumed_path_of_a_v3_session() -> None:
    v3 = edited()
    a = analyze(v3)
    assert doctor.can_omit(a, [3])
    assert not doctor.can_omit(a, [])
    other = analyze(edited(None, user(F, A, "elsewhere")))
    assert not doctor.can_omit(other, [3])  # line 3 is off the resumed path
    v2 = analyze(v3.replace('"version":3', '"version":2', 1))
    assert v2.version == 2 and not doctor.can_omit(v2, [3])


def test_no_narrowing_without_a_turn_with_calls_or_with_an_odd_replacement() -> None:
    for target, replacement in ((G, None), ([B], None), (A, None), (B, "text")):
        text = doc(
            header(),
            user(A, None),
            assistant(B, A, calls=("t1",)),
            result(C, B, "t1"),
            assistant(D, C),
            entry("context_edit", E, D, targetId=target, replacement=replacement),
        )
        assert doctor.narrow_edit(analyze(text), 5) is None, (target, replacement)


def test_narrowing_adds_only_the_calls_the_replacement_lacks() -> None:
    held = {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {}}
    replacement = {"content": ["stray", {"type": "text", "text": "short"}, held]}
    turn = json.loads(assistant(B, A, calls=("t1", "t2")))
    turn["message"]["content"][:0] = ["stray", {"type": "text", "text": "x", "id": "not-a-call"}]
    text = doc(
        header(),
        user(A, None),
        js(turn),
        result(C, B, "t1"),
        result(D, C, "t2"),
        assistant(E, D),
        entry("context_edit", F, E, targetId=B, replacement=replacement),
    )
    a = analyze(text)
    out = objs(apply_edits(a.text, doctor.narrow_edit(a, 6) or []))
    content = out[6]["replacement"]["content"]
    assert content[:3] == replacement["content"]
    assert [b["id"] for b in content[3:]] == ["t2"]
