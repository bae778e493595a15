"""The session doctor's quick fixes (PI421, PI423-PI425): each removes its diagnostic, adds
no error, changes only the lines it must, deletes no entry, and leaves a request that
passes the pairing rule."""

from __future__ import annotations

import json
from typing import Any

from pi_lsp.core import repairs
from pi_lsp.core.analysis import analyze
from pi_lsp.core.context import session_context
from pi_lsp.core.edits import apply_edits
from pi_lsp.core.model import Analysis
from pi_lsp.core.sent import NO_RESULT, pairing_faults, request

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
