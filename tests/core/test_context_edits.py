"""What a context_edit does to its target on its own path, as pi 1.6's projection applies it.

Each case names the edit's line and expects the whole :class:`EditEffect`: the target's
line, the action (omit, replace or none) and, for none, the reason (and the compaction that
summarised the target away). Line 0 is the header unless a case says otherwise.
"""

from __future__ import annotations

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.pi.context import session_context
from pi_lsp.core.pi.context_edits import EditEffect, compactions, effect, newest_compaction

from .pi_sessions import assistant, doc, entry, header, result, user

A, B, C, D, E, F, G, H = (c * 8 for c in "abcdefgh")
CONTENT = {"content": "edited"}


def edit(ident: str, parent: str | None, target: object, replacement: object = None) -> str:
    return entry("context_edit", ident, parent, targetId=target, replacement=replacement)


def compaction(ident: str, parent: str, kept: object) -> str:
    return entry("compaction", ident, parent, summary="s", firstKeptEntryId=kept, tokensBefore=1)


def message(ident: str, parent: str | None, msg: object) -> str:
    return entry("message", ident, parent, message=msg)


def effect_of(text: str, line: int) -> EditEffect | None:
    a = analyze(text)
    found = effect(a, line)
    # the cached compaction lines give the same answer
    assert effect(a, line, compactions(a)) == found
    return found


def test_lines_that_hold_no_context_edit_have_no_effect() -> None:
    text = doc(
        header(),
        user(A, None),
        "{not json",
        entry("context_edit", B, A, targetId=5, replacement=None),  # targetId not a string
        entry("label", C, A, targetId=A, label="x"),
        edit(D, A, A),
    )
    a = analyze(text)
    for line in (0, 1, 2, 3, 4, -1, len(a.infos), len(a.infos) + 3):
        assert effect(a, line) is None, line
    assert effect(a, 5) == EditEffect(5, A, 1, "omit")


def test_an_edit_on_the_first_line_of_a_file_without_header_is_read() -> None:
    text = doc(edit(A, None, A), user(B, A))
    assert effect_of(text, 0) == EditEffect(0, A, 0, "none", "off-path")


def test_an_edit_of_a_missing_entry_does_nothing() -> None:
    text = doc(header(), user(A, None), edit(B, A, "0badf00d", CONTENT))
    assert effect_of(text, 2) == EditEffect(2, "0badf00d", None, "none", "missing")


def test_an_edit_of_itself_a_later_entry_or_another_branch_is_off_its_path() -> None:
    text = doc(
        header(),
        user(A, None),
        edit(B, A, B, CONTENT),  # itself
        edit(C, A, D, CONTENT),  # its own child
        user(D, C),
        user(E, A),
        edit(F, A, E, None),  # a sibling branch
    )
    assert effect_of(text, 2) == EditEffect(2, B, 2, "none", "off-path")
    assert effect_of(text, 3) == EditEffect(3, D, 4, "none", "off-path")
    assert effect_of(text, 6) == EditEffect(6, E, 5, "none", "off-path")


def test_replace_or_omit_the_messages_pi_edits() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A),
        result(C, B, "toolu_1"),
        entry("custom_message", D, C, customType="x", content="c", display=True),
        message(E, D, {"role": "hookMessage", "customType": "x", "content": "h", "timestamp": 1}),
        message(F, E, {"role": "custom", "customType": "x", "content": "h", "timestamp": 1}),
        edit(G, F, A, CONTENT),
        edit(H, G, B, None),
    )
    a = analyze(text)
    for target in range(1, 7):
        edit_line = len(a.lines) - 1
        replaced = text + edit("9" * 8, H, a.tree.id_of[target], CONTENT) + "\n"
        assert effect_of(replaced, edit_line) == EditEffect(
            edit_line, a.tree.id_of[target], target, "replace"
        ), target
    assert effect_of(text, 7) == EditEffect(7, A, 1, "replace")
    assert effect_of(text, 8) == EditEffect(8, B, 2, "omit")


def test_an_edit_without_replacement_replaces_rather_than_omits() -> None:
    text = doc(header(), user(A, None), entry("context_edit", B, A, targetId=A))
    assert effect_of(text, 2) == EditEffect(2, A, 1, "replace")


def test_content_pi_does_not_edit_is_kept_but_can_be_omitted() -> None:
    bash = {"role": "bashExecution", "command": "ls", "output": "", "exitCode": 0, "timestamp": 1}
    targets = [
        message(A, None, bash),
        message(B, A, {"content": "no role", "timestamp": 1}),
        message(C, B, "not an object"),
        entry("branch_summary", D, C, fromId=A, summary="left"),
        entry("branch_summary", E, D, fromId=A, summary=1),
    ]
    for n in range(1, len(targets) + 1):
        ident = "abcdefgh"[n - 1] * 8
        both = doc(
            header(), *targets, edit("1" * 8, E, ident, CONTENT), edit("2" * 8, "1" * 8, ident)
        )
        assert effect_of(both, 6) == EditEffect(6, ident, n, "none", "not-editable"), n
        assert effect_of(both, 7) == EditEffect(7, ident, n, "omit"), n


def test_an_entry_that_adds_no_message_cannot_be_edited() -> None:
    targets = [
        entry("label", A, None, targetId=A, label="x"),
        entry("model_change", B, A, provider="p", modelId="m"),
        entry("branch_summary", C, B, fromId=A, summary=""),
        entry("branch_summary", D, C, fromId=A, summary=0),
        entry("branch_summary", E, D, fromId=A, summary=False),
        entry("branch_summary", F, E, fromId=A, summary=None),
        entry("branch_summary", G, F, fromId=A),
    ]
    for n in range(1, len(targets) + 1):
        ident = "abcdefg"[n - 1] * 8
        for replacement in (None, CONTENT):
            text = doc(header(), *targets, edit("1" * 8, G, ident, replacement))
            assert effect_of(text, 8) == EditEffect(8, ident, n, "none", "no-message"), n


# a path u1 a1 [compaction keeping from `kept`] u2, and the edit at its end (line 5)
def _compacted(kept: object, target: str, replacement: object = CONTENT) -> str:
    return doc(
        header(),
        user(A, None),
        assistant(B, A),
        compaction(C, B, kept),
        user(D, C),
        edit(E, D, target, replacement),
    )


def test_an_edit_of_an_entry_the_compaction_summarised_does_nothing() -> None:
    # kept from a1: u1 is summarised, a1 is kept
    assert effect_of(_compacted(B, A), 5) == EditEffect(5, A, 1, "none", "summarised", 3)
    assert effect_of(_compacted(B, B), 5) == EditEffect(5, B, 2, "replace")
    assert effect_of(_compacted(A, A, None), 5) == EditEffect(5, A, 1, "omit")
    # after the compaction
    assert effect_of(_compacted(B, D), 5) == EditEffect(5, D, 4, "replace")


def test_the_compaction_itself_is_in_the_context_but_not_editable() -> None:
    assert effect_of(_compacted(B, C), 5) == EditEffect(5, C, 3, "none", "not-editable")
    assert effect_of(_compacted(B, C, None), 5) == EditEffect(5, C, 3, "omit")
    checkpoint = doc(
        header(),
        user(A, None),
        entry(
            "compaction",
            C,
            A,
            summary="s",
            firstKeptEntryId=A,
            tokensBefore=1,
            systemMessage={"role": "system", "content": "", "timestamp": 1},
        ),
        edit(E, C, C, CONTENT),
    )
    assert effect_of(checkpoint, 3) == EditEffect(3, C, 2, "none", "not-editable")


def test_without_a_usable_kept_entry_everything_before_the_compaction_is_summarised() -> None:
    # kept id: not a string, naming nothing, the compaction itself (retain none), a later entry
    for kept in (5, ["x"], "0badf00d", C, D):
        assert effect_of(_compacted(kept, B), 5) == EditEffect(5, B, 2, "none", "summarised", 3), (
            kept
        )
        # what follows the compaction is in the context all the same
        assert effect_of(_compacted(kept, D), 5) == EditEffect(5, D, 4, "replace"), kept
    missing = doc(
        header(),
        user(A, None),
        entry("compaction", C, A, summary="s", tokensBefore=1),
        edit(E, C, A, CONTENT),
    )
    assert effect_of(missing, 3) == EditEffect(3, A, 1, "none", "summarised", 2)
    # a kept entry on another branch
    other = doc(
        header(),
        user(A, None),
        user(B, A),
        user(F, None),
        compaction(C, B, F),
        edit(E, C, B, CONTENT),
    )
    assert effect_of(other, 5) == EditEffect(5, B, 2, "none", "summarised", 4)


def test_system_messages_of_the_kept_range_are_summarised() -> None:
    system = {"role": "system", "content": "", "timestamp": 1}
    text = doc(
        header(),
        user(A, None),
        message(B, A, system),
        entry(
            "custom_message", D, B, customType="x", content="c", display=True, message=system
        ),  # not a message entry: not a system message
        compaction(C, D, A),
        edit(E, C, B, None),
        edit(F, E, D, None),
        edit(G, F, A, None),
    )
    assert effect_of(text, 5) == EditEffect(5, B, 2, "none", "summarised", 4)
    assert effect_of(text, 6) == EditEffect(6, D, 3, "omit")
    assert effect_of(text, 7) == EditEffect(7, A, 1, "omit")


def test_system_messages_after_the_compaction_stay() -> None:
    text = doc(
        header(),
        user(A, None),
        compaction(C, A, A),
        message(B, C, {"role": "system", "content": "", "timestamp": 1}),
        edit(E, B, B, None),
    )
    assert effect_of(text, 4) == EditEffect(4, B, 3, "omit")


def test_an_older_compaction_inside_the_kept_range_adds_nothing() -> None:
    text = doc(
        header(),
        user(A, None),
        compaction(C, A, A),  # 2
        user(D, C),
        compaction(E, D, A),  # 4: keeps from u1, so the older compaction is in its range
        edit(F, E, C, None),
        edit(G, F, D, None),
    )
    assert effect_of(text, 5) == EditEffect(5, C, 2, "none", "summarised", 4)
    assert effect_of(text, 6) == EditEffect(6, D, 3, "omit")


def test_only_the_newest_compaction_of_the_edits_path_counts() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A),
        compaction(C, B, B),  # 3: keeps a1
        user(D, C),
        compaction(E, D, D),  # 5: keeps u2
        edit(F, E, B, CONTENT),  # 6: a1 is summarised by the newest
        edit(G, F, C, None),  # 7: the older compaction contributes nothing now
        edit(H, G, D, CONTENT),  # 8: u2 is kept
    )
    assert effect_of(text, 6) == EditEffect(6, B, 2, "none", "summarised", 5)
    assert effect_of(text, 7) == EditEffect(7, C, 3, "none", "summarised", 5)
    assert effect_of(text, 8) == EditEffect(8, D, 4, "replace")
    a = analyze(text)
    assert newest_compaction(a, 4) == 3
    assert newest_compaction(a, 2) is None


def test_the_newest_compaction_is_the_deepest_not_the_last_in_the_file() -> None:
    # the newer compaction (line 1) is written before the older one (line 4) it descends from
    text = doc(
        header(),
        compaction(E, D, D),
        user(A, None),
        assistant(B, A),
        compaction(C, B, B),
        user(D, C),
        edit(F, E, A, CONTENT),
        edit(G, F, D, CONTENT),
    )
    a = analyze(text)
    assert newest_compaction(a, 6) == 1
    assert effect_of(text, 6) == EditEffect(6, A, 2, "none", "summarised", 1)
    assert effect_of(text, 7) == EditEffect(7, D, 5, "replace")


def test_a_compaction_on_another_branch_does_not_summarise() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A),
        compaction(C, B, B),  # a branch of its own
        user(D, A),
        edit(E, D, A, CONTENT),
    )
    assert newest_compaction(analyze(text), 5) is None
    assert effect_of(text, 5) == EditEffect(5, A, 1, "replace")


def test_effect_agrees_with_the_context_pi_builds() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A),
        compaction(C, B, B),
        user(D, C),
        edit(E, D, A, CONTENT),
        edit(F, E, B, CONTENT),
        edit(G, F, D, None),
    )
    a = analyze(text)
    ctx = session_context(a, G)
    for line in (5, 6, 7):
        found = effect(a, line)
        assert found is not None and found.target is not None
        applied = ctx.edits.get(found.target) == line
        assert applied == (found.action != "none"), line
