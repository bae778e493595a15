"""Every quick fix: it removes its diagnostic, adds no error, and changes only its lines."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.edits import repairs
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.text.codes import CODES, FIXABLE
from pi_lsp.core.text.findings import Severity
from pi_lsp.core.text.textedit import apply_edits

from .pi_sessions import (
    assistant,
    changed_lines,
    doc,
    entry,
    header,
    hook,
    js,
    result,
    user,
)

A, B, C, D, E = "aaaaaaaa", "bbbbbbbb", "cccccccc", "dddddddd", "eeeeeeee"


def errors(a: Analysis) -> Counter[str]:
    return Counter(f.code for f in a.findings if f.severity == Severity.ERROR)


def apply_fix(
    text: str,
    code: str,
    line: int,
    title: str,
    *,
    replaced: set[int] | frozenset[int] = frozenset(),
    deleted: set[int] | frozenset[int] = frozenset(),
) -> tuple[str, Analysis]:
    """Apply the fix whose title contains ``title``; check the promises of every fix."""
    a = analyze(text)
    before = Counter(f.code for f in a.findings)
    fixes = repairs.fixes(a, code, line)
    chosen = [f for f in fixes if title in f.title]
    assert len(chosen) == 1, [f.title for f in fixes]
    out = apply_edits(a.text, chosen[0].edits())
    b = analyze(out)
    after = Counter(f.code for f in b.findings)
    assert after[code] < before[code], f"{code} still there: {b.findings}"
    new_errors = errors(b) - errors(a)
    assert not new_errors, f"new errors: {[f for f in b.findings if f.code in new_errors]}"
    assert changed_lines(text, out, deleted) == set(replaced)
    return out, b


def offered(text: str, code: str, line: int) -> list[str]:
    return [f.title for f in repairs.fixes(analyze(text), code, line)]


def test_no_fix_for_a_diagnostic_that_is_not_there() -> None:
    assert repairs.fixes(analyze(doc(header(), user(A, None))), "PI400", 1) == []


# ----------------------------------------------------------------------------- PI002, PI005


def test_cut_off_last_line() -> None:
    text = doc(header(), user(A, None)) + '{"type":"message","id":"b'
    out, _ = apply_fix(text, "PI002", 2, "cut-off", deleted={2})
    assert out == doc(header(), user(A, None))


def test_blank_lines_one_or_all() -> None:
    text = doc(header(), "", user(A, None), "  ", user(B, A))
    assert offered(text, "PI005", 1) == [
        "Remove this blank line",
        "Remove all 2 blank lines inside the file",
    ]
    apply_fix(text, "PI005", 3, "this blank", deleted={3})
    _out, b = apply_fix(text, "PI005", 1, "all 2", deleted={1, 3})
    assert "PI005" not in {f.code for f in b.findings}


def test_a_single_blank_line_has_one_fix() -> None:
    text = doc(header(), user(A, None), "", user(B, A))
    assert offered(text, "PI005", 2) == ["Remove this blank line"]


# ---------------------------------------------------------------------------- PI103, PI303


def test_migrate_quick_fix() -> None:
    text = doc(header(None), user(None, False), assistant(None, False))
    _out, b = apply_fix(text, "PI103", 0, "Migrate session v1", replaced={0, 1, 2})
    assert b.version == 3 and not b.findings


def test_half_migrated_offers_keep_ids_and_full_migration() -> None:
    text = doc(header(1), user(A, None), hook(B, A), assistant(C, B))
    assert offered(text, "PI303", 0) == [
        "Set the header version to 3, keeping the existing ids",
        "Migrate session to v3 as pi would (every entry gets a new id)",
    ]
    out, b = apply_fix(text, "PI303", 0, "keeping the existing ids", replaced={0, 2})
    assert [json.loads(x).get("id") for x in out.split("\n")[1:4]] == [A, B, C]
    assert b.version == 3 and not b.findings
    apply_fix(text, "PI303", 0, "every entry gets a new id", replaced={0, 1, 2, 3})


def test_half_migrated_with_broken_ids_only_migrates() -> None:
    text = doc(header(1), user(A, None), user(A, "zzzzzzzz"), user(None, False))
    assert offered(text, "PI303", 0) == [
        "Migrate session to v3 as pi would (every entry gets a new id)"
    ]


@pytest.mark.parametrize(
    "entries",
    [
        pytest.param((user(A, None), user(B, "zzzzzzzz")), id="dangling parentId"),
        pytest.param((user(A, None), user(B, 7)), id="parentId not a string"),
        pytest.param((user(A, None), user(B, A), user(B, A)), id="duplicate id"),
        pytest.param((user(A, None), user(None, A)), id="no id"),
        pytest.param((user(A, None), user(B, False)), id="no parentId"),
        pytest.param((user(A, B), user(B, A)), id="cycle"),
    ],
)
def test_half_migrated_keeps_ids_only_when_they_make_a_sound_tree(entries: tuple[str, ...]) -> None:
    """Keeping the ids of a broken tree would turn PI303 into PI400, PI401 or PI402."""
    migrate_only = ["Migrate session to v3 as pi would (every entry gets a new id)"]
    assert offered(doc(header(1), *entries), "PI303", 0) == migrate_only
    sound = doc(header(1), user(A, None), user(B, A))
    assert offered(sound, "PI303", 0)[0].startswith("Set the header version to 3")


# ----------------------------------------------------------------------------- PI201


def test_pending_turn_removed_with_its_tool_results() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1", "t2"), stop="pending"),
        result(C, B, "t1"),
        result(D, C, "t2"),
        user(E, D, "next"),
    )
    titles = offered(text, "PI201", 2)
    assert titles[0].startswith("Remove the pending assistant turn and its 2 tool results")
    out, b = apply_fix(text, "PI201", 2, "Remove the pending", deleted={2, 3, 4}, replaced={5})
    assert json.loads(out.split("\n")[2])["parentId"] == A  # the user turn moved up
    assert b.tree.active == [1, 2]


def test_pending_turn_marked_aborted() -> None:
    text = doc(header(), user(A, None), assistant(B, A, stop="pending"))
    out, _ = apply_fix(text, "PI201", 2, "aborted", replaced={2})
    assert json.loads(out.split("\n")[2])["message"]["stopReason"] == "aborted"


@pytest.mark.parametrize("index", [3, 2])
def test_pending_turn_in_v1_keeps_the_first_kept_entry(index: int) -> None:
    """The compaction keeps "u2" (index 3) onwards, or the pending turn (index 2) onwards:
    after removing the turn, "u2" is the first kept entry either way. Keeping the old index
    in the first case, or shifting it in the second, would bring back "u1", which the
    summary covers."""
    text = doc(
        header(None),
        user(None, False, "u1"),
        assistant(None, False, stop="pending"),
        user(None, False, "u2"),
        entry("compaction", None, False, summary="S", firstKeptEntryIndex=index, tokensBefore=1),
    )
    replaced = {4} if index == 3 else set()
    out, _ = apply_fix(text, "PI201", 2, "Remove the pending", deleted={2}, replaced=replaced)
    entries = [json.loads(line) for line in out.splitlines()]
    kept = entries[entries[3]["firstKeptEntryIndex"]]
    assert kept["message"]["content"] == "u2"


# ------------------------------------------------------------------------- PI300 - PI302


def test_missing_ids_one_and_all() -> None:
    text = doc(header(), user(A, None), user(None, False, "x"), user(None, False, "y"))
    assert offered(text, "PI300", 2) == [
        "Give this entry a fresh id and the previous entry (line 2) as parent",
        "Give all 2 entries without id a fresh id, each parented to the entry before it",
    ]
    out, _ = apply_fix(text, "PI300", 2, "this entry", replaced={2})
    obj = json.loads(out.split("\n")[2])
    assert obj["parentId"] == A and len(obj["id"]) == 8
    assert out.split("\n")[2].startswith(f'{{"type":"message","id":"{obj["id"]}","parentId":"{A}",')
    out, b = apply_fix(text, "PI300", 2, "Give all", replaced={2, 3})
    x, y = (json.loads(line) for line in out.split("\n")[2:4])
    assert x["parentId"] == A and y["parentId"] == x["id"]
    assert b.tree.active == [1, 2, 3]


def test_missing_parent_only() -> None:
    text = doc(header(), user(A, None), user(B, False))
    out, _ = apply_fix(text, "PI300", 2, "fresh id", replaced={2})
    assert json.loads(out.split("\n")[2]) | {} == {**json.loads(user(B, A))}


def test_hook_message_one_and_all() -> None:
    text = doc(header(), hook(A, None), hook(B, A))
    assert len(offered(text, "PI301", 1)) == 2
    apply_fix(text, "PI301", 2, "Rename role", replaced={2})
    apply_fix(text, "PI301", 1, "all 2", replaced={1, 2})


def test_first_kept_index_convert_or_remove() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A),
        entry("compaction", C, B, summary="S", firstKeptEntryIndex=2, tokensBefore=5),
    )
    assert offered(text, "PI302", 3) == [
        f'Convert to firstKeptEntryId "{B}" (the entry on line 3)',
    ]
    out, _ = apply_fix(text, "PI302", 3, "Convert", replaced={3})
    assert out.split("\n")[3].endswith(f'"summary":"S","firstKeptEntryId":"{B}","tokensBefore":5}}')


def test_first_kept_index_next_to_an_id_is_only_removed() -> None:
    text = doc(
        header(),
        user(A, None),
        entry("compaction", C, A, summary="S", firstKeptEntryId=A, firstKeptEntryIndex=1),
    )
    assert offered(text, "PI302", 2) == ["Remove firstKeptEntryIndex (pi ignores it in v3)"]
    out, _ = apply_fix(text, "PI302", 2, "Remove", replaced={2})
    assert "firstKeptEntryIndex" not in out


# ------------------------------------------------------------------------- PI400 - PI402


def test_dangling_parent_to_previous_or_root() -> None:
    text = doc(header(), user(A, None), user(B, A), user(C, "ghost123"), user(D, C))
    assert offered(text, "PI400", 3) == [
        "Re-parent to the previous entry (line 3)",
        "Make this entry a root (parentId null)",
    ]
    out, b = apply_fix(text, "PI400", 3, "previous", replaced={3})
    assert b.tree.active == [1, 2, 3, 4]
    out, b = apply_fix(text, "PI400", 3, "root", replaced={3})
    assert json.loads(out.split("\n")[3])["parentId"] is None


def test_dangling_parent_never_reparents_into_its_own_subtree() -> None:
    # line 3's child comes first in the file (PI403): it must not become the parent
    text = doc(header(), user(A, None), user(D, C), user(C, "ghost123"))
    titles = offered(text, "PI400", 3)
    assert titles[0] == "Re-parent to the previous entry (line 2)"
    apply_fix(text, "PI400", 3, "previous", replaced={3})


def test_duplicate_id_with_and_without_moving_references() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A),
        user(A, B, "again"),  # duplicate of line 1
        assistant(D, A),  # written after line 3: meant line 3
        entry("label", E, D, targetId=A, label="here"),
    )
    titles = offered(text, "PI401", 3)
    assert titles == [
        "Give this entry a fresh id and re-point the 2 references written after it",
        "Give this entry a fresh id (references keep naming the other entry)",
    ]
    out, b = apply_fix(text, "PI401", 3, "re-point", replaced={3, 4, 5})
    new = json.loads(out.split("\n")[3])["id"]
    assert json.loads(out.split("\n")[4])["parentId"] == new
    assert json.loads(out.split("\n")[5])["targetId"] == new
    assert b.tree.active == [1, 2, 3, 4, 5]  # the tree pi saw is kept
    apply_fix(text, "PI401", 3, "keep naming", replaced={3})


def test_duplicate_id_whose_link_on_the_resumed_path_pi_follows_keeps_it() -> None:
    """Line 4 takes line 1's id, and line 2, written between them, names it: pi follows
    that link to line 4 (the last of the id), so the path pi resumes (from line 5) holds
    line 4's tool exchange. Renaming line 4 would send line 2 to line 1 and drop the exchange: the safe
    fix renames line 1, the entry pi's index does not keep."""
    text = doc(
        header(),
        user(A, "ffffffff"),  # dangling: pi never reached it
        user(D, A, "resumed"),
        assistant(B, None, calls=("t1",)),
        result(A, B, "t1"),
        assistant(E, D),  # the leaf
    )
    a = analyze(text)
    assert a.tree.active == [3, 4, 2, 5]
    (f,) = [f for f in a.findings if f.code == "PI401"]
    offers = {fix.key: fix.safe for fix in repairs.fixes_for(a, f)}
    assert offers == {"fresh-id": False, "fresh-ids-of-shadowed": True}
    objs = fixed(text, "PI401", 4, "fresh-ids-of-shadowed")
    assert objs[1]["id"] not in (A, B, D) and objs[1]["parentId"] == "ffffffff"
    assert [o["id"] for o in objs[2:]] == [D, B, A, E] and objs[2]["parentId"] == A
    assert analyze(doc(*(js(o) for o in objs))).tree.active == [3, 4, 2, 5]


def test_cycle_to_previous_or_root() -> None:
    text = doc(header(), user(A, None), user(B, C), user(C, B))
    assert offered(text, "PI402", 2) == [
        "Re-parent to the previous entry (line 2)",
        "Make this entry a root (parentId null)",
    ]
    _, b = apply_fix(text, "PI402", 2, "previous", replaced={2})
    assert not b.tree.cycle
    apply_fix(text, "PI402", 3, "root", replaced={3})


def test_self_parent_cycle() -> None:
    text = doc(header(), user(A, A))
    assert offered(text, "PI402", 1) == ["Make this entry a root (parentId null)"]
    apply_fix(text, "PI402", 1, "root", replaced={1})


# ----------------------------------------------------------------------------- PI420


def test_orphaned_tool_result_removed_children_reparented() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A),
        result(C, B, "nope"),
        user(D, C),
        user(E, C, "sibling"),
    )
    out, b = apply_fix(text, "PI420", 3, "orphaned", deleted={3}, replaced={4, 5})
    assert [json.loads(x)["parentId"] for x in out.split("\n")[3:5]] == [B, B]
    assert "PI420" not in {f.code for f in b.findings}


def test_orphaned_last_line_without_newline() -> None:
    text = doc(header(), user(A, None)) + result(C, A, "nope")
    out, _ = apply_fix(text, "PI420", 2, "orphaned", deleted={2})
    assert out == doc(header(), user(A, None))


# ----------------------------------------------------------------------------- fix all


def test_fix_all_migrates_or_renames() -> None:
    fix = repairs.fix_all(analyze(doc(header(2), hook(A, None))))
    assert fix is not None and fix.title == "Migrate session v2 to v3"
    a = analyze(doc(header(), hook(A, None), hook(B, A)))
    fix = repairs.fix_all(a)
    assert fix is not None and fix.title == "Rename all 2 hookMessage roles to custom"
    assert not analyze(apply_edits(a.text, fix.edits())).findings
    assert repairs.fix_all(analyze(doc(header(), user(A, None)))) is None


@pytest.mark.parametrize("code", sorted(FIXABLE))
def test_every_fixable_code_has_a_builder(code: str) -> None:
    assert CODES[code].fix in repairs._BUILDERS


def test_every_builder_is_named_by_a_code() -> None:
    assert set(repairs._BUILDERS) == {c.fix for c in CODES.values() if c.fix}


# ------------------------------------------------------------ what each fix promises the client


def described(text: str, code: str, line: int) -> list[tuple[str, str, bool, bool]]:
    """Title, key (the stable name a client resolves the fix by), preferred and safe."""
    return [(f.title, f.key, f.preferred, f.safe) for f in repairs.fixes(analyze(text), code, line)]


def every_fix_is_of(text: str, code: str, line: int) -> None:
    for fix in repairs.fixes(analyze(text), code, line):
        assert fix.code == code


PENDING = (header(), user(A, None))


@pytest.mark.parametrize(
    ("text", "code", "line", "expected"),
    [
        pytest.param(
            doc(header(), user(A, None)) + '{"type":"message","id":"b',
            "PI002",
            2,
            [("Remove the cut-off last line (pi skips it anyway)", "drop-line", True, True)],
            id="PI002",
        ),
        pytest.param(
            doc(header(), "", user(A, None), "  ", user(B, A)),
            "PI005",
            1,
            [
                ("Remove this blank line", "drop-line", True, False),
                ("Remove all 2 blank lines inside the file", "drop-all-blank", False, False),
            ],
            id="PI005",
        ),
        pytest.param(
            doc(header(None), user(None, False), assistant(None, False)),
            "PI103",
            0,
            [("Migrate session v1 to v3 (as pi does on load)", "migrate", True, False)],
            id="PI103",
        ),
        pytest.param(
            doc(header(1), user(A, None), hook(B, A)),
            "PI303",
            0,
            [
                ("Set the header version to 3, keeping the existing ids", "keep-ids", True, False),
                (
                    "Migrate session to v3 as pi would (every entry gets a new id)",
                    "migrate",
                    False,
                    False,
                ),
            ],
            id="PI303",
        ),
        pytest.param(
            doc(*PENDING, assistant(B, A, calls=("t1",), stop="pending"), result(C, B, "t1")),
            "PI201",
            2,
            [
                (
                    "Remove the pending assistant turn and its 1 tool result (its children move "
                    "to its parent)",
                    "drop-turn",
                    True,
                    False,
                ),
                (
                    'Mark the turn as aborted (stopReason "aborted"; pi no longer resends it)',
                    "mark-aborted",
                    False,
                    False,
                ),
            ],
            id="PI201",
        ),
        pytest.param(
            doc(header(), user(None, False, "x"), user(None, False, "y")),
            "PI300",
            1,
            [
                (
                    "Give this entry a fresh id and no parent (a root) as parent",
                    "give-id",
                    True,
                    False,
                ),
                (
                    "Give all 2 entries without id a fresh id, each parented to the entry "
                    "before it",
                    "give-all-ids",
                    False,
                    False,
                ),
            ],
            id="PI300",
        ),
        pytest.param(
            doc(header(), hook(A, None), hook(B, A)),
            "PI301",
            1,
            [
                ("Rename role hookMessage to custom (the v3 name)", "rename-role", True, False),
                ("Rename all 2 hookMessage roles to custom", "rename-all-roles", False, False),
            ],
            id="PI301",
        ),
        pytest.param(
            doc(header(), hook(A, None)),
            "PI301",
            1,
            [("Rename role hookMessage to custom (the v3 name)", "rename-role", True, False)],
            id="PI301 one",
        ),
        pytest.param(
            doc(header(), user(A, None), user(B, False)),
            "PI300",
            2,
            [
                (
                    "Give this entry a fresh id and the previous entry (line 2) as parent",
                    "give-id",
                    True,
                    False,
                )
            ],
            id="PI300 one",
        ),
        pytest.param(
            doc(
                header(),
                user(A, None),
                assistant(B, A),
                entry("compaction", C, B, summary="S", firstKeptEntryIndex=2, tokensBefore=5),
            ),
            "PI302",
            3,
            [
                (
                    f'Convert to firstKeptEntryId "{B}" (the entry on line 3)',
                    "convert-index",
                    True,
                    False,
                )
            ],
            id="PI302 convert",
        ),
        pytest.param(
            doc(
                header(),
                user(A, None),
                entry("compaction", C, A, summary="S", firstKeptEntryId=A, firstKeptEntryIndex=1),
            ),
            "PI302",
            2,
            [("Remove firstKeptEntryIndex (pi ignores it in v3)", "drop-index", True, False)],
            id="PI302 remove",
        ),
        pytest.param(
            doc(header(), user(A, None), user(B, "ghost123"), user(C, A)),
            "PI400",
            2,
            [
                ("Re-parent to the previous entry (line 2)", "reparent", True, True),
                ("Make this entry a root (parentId null)", "make-root", False, False),
            ],
            id="PI400",
        ),
        pytest.param(
            doc(header(), user(B, "ghost123")),
            "PI400",
            1,
            [("Make this entry a root (parentId null)", "make-root", True, True)],
            id="PI400 first entry",
        ),
        pytest.param(
            doc(header(), user(A, None), user(A, A, "again"), user(D, A)),
            "PI401",
            2,
            [
                (
                    "Give this entry a fresh id and re-point the 1 reference written after it",
                    "fresh-id-and-references",
                    True,
                    True,
                ),
                (
                    "Give this entry a fresh id (references keep naming the other entry)",
                    "fresh-id",
                    False,
                    False,
                ),
            ],
            id="PI401",
        ),
        pytest.param(
            doc(header(), user(A, None), user(A, A, "again")),
            "PI401",
            2,
            [
                (
                    "Give this entry a fresh id (references keep naming the other entry)",
                    "fresh-id",
                    True,
                    True,
                )
            ],
            id="PI401 no reference",
        ),
        pytest.param(
            doc(header(), user(A, None), user(B, C), user(C, B)),
            "PI402",
            2,
            [
                ("Re-parent to the previous entry (line 2)", "reparent", True, True),
                ("Make this entry a root (parentId null)", "make-root", False, False),
            ],
            id="PI402",
        ),
        pytest.param(
            doc(header(), user(A, None), assistant(B, A), result(C, B, "nope")),
            "PI420",
            3,
            [
                (
                    "Remove the orphaned toolResult (its children move to its parent)",
                    "drop-result",
                    True,
                    False,
                )
            ],
            id="PI420",
        ),
    ],
)
def test_fixes_offered_with_their_key_preference_and_safety(
    text: str, code: str, line: int, expected: list[tuple[str, str, bool, bool]]
) -> None:
    """What a client shows (title, preferred), resolves by (key), and what ``check --fix``
    applies on its own (safe: nothing but a cut-off fragment is deleted)."""
    assert described(text, code, line) == expected
    every_fix_is_of(text, code, line)


def test_pending_turn_titles_count_its_results() -> None:
    none = doc(*PENDING, assistant(B, A, stop="pending"))
    assert offered(none, "PI201", 2)[0] == (
        "Remove the pending assistant turn (its children move to its parent)"
    )
    two = doc(
        *PENDING,
        assistant(B, A, calls=("t1", "t2"), stop="pending"),
        result(C, B, "t1"),
        result(D, C, "t2"),
    )
    assert offered(two, "PI201", 2)[0].startswith(
        "Remove the pending assistant turn and its 2 tool results ("
    )


def test_fix_all_is_reported_under_its_code_and_edits_the_file() -> None:
    """``check --fix --migrate`` reports the fix-all under its code."""
    a = analyze(doc(header(2), hook(A, None)))
    fix = repairs.fix_all(a)
    assert fix is not None and (fix.code, fix.key) == ("PI103", "migrate")
    assert analyze(apply_edits(a.text, fix.edits())).version == 3
    a = analyze(doc(header(), hook(A, None), hook(B, A)))
    fix = repairs.fix_all(a)
    assert fix is not None and (fix.code, fix.key) == ("PI301", "rename-all-roles")


def test_fixes_for_a_finding_without_fixes_is_empty() -> None:
    a = analyze(doc(header(), user(A, None), "not json"))
    assert [(f.code, f.span.line) for f in a.findings] == [("PI001", 2)]
    assert repairs.fixes_for(a, a.findings[0]) == []


def test_missing_id_parent_is_the_entry_before_not_after() -> None:
    text = doc(header(), user(A, None), user(None, False), user(C, A))
    assert offered(text, "PI300", 2)[0] == (
        "Give this entry a fresh id and the previous entry (line 2) as parent"
    )


def test_reparent_skips_an_entry_whose_id_a_later_duplicate_takes() -> None:
    """pi resolves a duplicated id to its last entry: a link written with line 2's id
    would point at line 5, so the previous entry that can be named is line 1; or, first
    (issue 43), line 2 itself once line 5 is renumbered in the same edit."""
    text = doc(header(), user(A, None), user(B, A), user(C, "ghost123"), user(B, A, "dup"))
    assert offered(text, "PI400", 3)[:2] == [
        "Re-parent to the previous entry (line 3), giving line 5, which takes its id, a fresh id",
        "Re-parent to the previous entry (line 2)",
    ]
    _, b = apply_fix(text, "PI400", 3, "previous entry (line 2)", replaced={3})
    assert b.tree.parent[3] == 1
    _, b = apply_fix(text, "PI400", 3, "giving line 5", replaced={3, 4})
    assert b.tree.parent[3] == 2 and b.infos[4].obj["id"] != B


def test_a_tool_call_block_outside_an_assistant_turn_answers_nothing() -> None:
    """Only an assistant turn holds tool calls (pi-ai pairs results with those alone): a
    ``toolCall`` block with the same id in a user message above does not keep the pending
    turn's result answered, so the result goes with the turn."""
    above = json.loads(user(A, None))
    above["message"]["content"] = [{"type": "toolCall", "id": "t1", "name": "x", "arguments": {}}]
    text = doc(
        header(),
        json.dumps(above),
        assistant(B, A, calls=("t1",), stop="pending"),
        result(C, B, "t1"),
    )
    assert offered(text, "PI201", 2)[0].startswith(
        "Remove the pending assistant turn and its 1 tool result ("
    )


def test_pending_turn_in_a_cycle_still_takes_its_result() -> None:
    """The turn (line 2) and line 3 are each other's parent; the result of its call,
    written first, hangs below line 3: the walk down from the turn comes round to the
    turn before it reaches the result, and must go on."""
    text = doc(
        header(),
        result(C, D, "t1"),
        assistant(B, D, calls=("t1",), stop="pending"),
        user(D, B),
    )
    assert offered(text, "PI201", 2)[0].startswith(
        "Remove the pending assistant turn and its 1 tool result ("
    )


def test_pending_turn_in_v2_moves_its_child_up() -> None:
    """v2 entries link by id as v3 ones do: the child is re-parented, not left dangling."""
    text = doc(header(2), user(A, None), assistant(B, A, stop="pending"), user(C, B, "next"))
    out, _ = apply_fix(text, "PI201", 2, "Remove the pending", deleted={2}, replaced={3})
    assert json.loads(out.split("\n")[2])["parentId"] == A


def test_removed_entry_in_a_cycle_of_its_own_leaves_its_child_a_root() -> None:
    """The orphaned result is its own parent: no ancestor survives it."""
    text = doc(header(), user(A, None), assistant(B, A), result(C, C, "nope"), user(D, C))
    out, _ = apply_fix(text, "PI420", 3, "orphaned", deleted={3}, replaced={4})
    assert json.loads(out.split("\n")[3])["parentId"] is None


def test_v1_removal_shifts_only_the_integer_indexes_of_compactions() -> None:
    """A firstKeptEntryIndex outside a compaction, or one that is no integer, means nothing
    to pi and is left as it is; the compactions after such one are still shifted."""
    text = doc(
        header(None),
        user(None, False, "u1"),
        assistant(None, False, stop="pending"),
        user(None, False, "u2"),
        entry("custom", None, False, customType="x", firstKeptEntryIndex=3),
        entry("compaction", None, False, summary="S", tokensBefore=1),
        entry("compaction", None, False, summary="T", firstKeptEntryIndex=3, tokensBefore=1),
    )
    out, _ = apply_fix(text, "PI201", 2, "Remove the pending", deleted={2}, replaced={6})
    assert json.loads(out.split("\n")[5])["firstKeptEntryIndex"] == 2


def test_no_migration_offered_for_a_file_pi_refuses() -> None:
    """The header's id is no string (PI100): pi does not load, so does not migrate, it."""
    a = analyze(doc(header(2, id=5), user(A, None)))
    assert {"PI100", "PI103"} <= {f.code for f in a.findings}
    assert repairs.fixes(a, "PI103", 0) == []
    assert repairs.fix_all(a) is None


def test_pending_turn_takes_only_the_results_of_its_own_calls() -> None:
    """Only a toolResult answering one of the turn's toolCall blocks (with a string id)
    goes with it: not a result naming a call by a number, nor one answering a block of
    another type that carries an id."""
    turn = json.loads(assistant(B, A, calls=("t1",), stop="pending"))
    turn["message"]["content"] += [
        "stray",
        {"type": "toolCall", "id": 7},
        {"type": "text", "id": "t2"},
    ]
    odd = json.loads(result(D, C, "t1"))
    odd["message"]["toolCallId"] = 7
    text = doc(*PENDING, js(turn), result(C, B, "t1"), js(odd), result(E, D, "t2"))
    assert offered(text, "PI201", 2)[0].startswith(
        "Remove the pending assistant turn and its 1 tool result ("
    )
    out, _ = apply_fix(text, "PI201", 2, "Remove the pending", deleted={2, 3}, replaced={4})
    assert json.loads(out.split("\n")[2])["parentId"] == A


def test_pending_turn_leaves_a_result_an_earlier_call_answers() -> None:
    """The result below the turn names "t1", which an earlier turn on its path also
    called: it stays, answering that call."""
    text = doc(
        *PENDING,
        assistant(B, A, calls=("t1",)),
        result(C, B, "t1"),
        assistant(D, C, calls=("t1",), stop="pending"),
        result(E, D, "t1"),
    )
    assert offered(text, "PI201", 4)[0] == (
        "Remove the pending assistant turn (its children move to its parent)"
    )


def compaction_at(index: Any) -> str:
    return entry("compaction", C, B, summary="S", firstKeptEntryIndex=index, tokensBefore=5)


TWICE = compaction_at(2).replace('"tokensBefore"', '"firstKeptEntryIndex":2,"tokensBefore"')


@pytest.mark.parametrize(
    ("text", "converted"),
    [
        pytest.param(
            doc(header(), user(A, None), assistant(B, A), compaction_at(1)), (A, 2), id="1"
        ),
        pytest.param(
            doc(header(), user(A, None), assistant(B, A), compaction_at(3)), (C, 4), id="last"
        ),
        pytest.param(
            doc(header(), "", user(A, None), assistant(B, A), compaction_at(2)),
            (B, 4),
            id="pi's index skips a blank line",
        ),
        pytest.param(
            doc(header(), user(A, None), assistant(B, A), compaction_at(0)), None, id="header"
        ),
        pytest.param(
            doc(header(), user(A, None), assistant(B, A), compaction_at(4)), None, id="past the end"
        ),
        pytest.param(
            doc(user(A, None), header(), assistant(B, A), compaction_at(0)),
            None,
            id="index 0 is the header's even after an entry",
        ),
        pytest.param(
            doc(header(), user(A, None), assistant(B, A), compaction_at(-1)), None, id="-1"
        ),
        pytest.param(
            doc(header(), user(A, None), assistant(B, A), compaction_at(True)), None, id="true"
        ),
        pytest.param(
            doc(header(), user(A, None), assistant(B, A), compaction_at("2")), None, id="string"
        ),
        pytest.param(
            doc(header(), user(A, None), assistant(B, A), TWICE), None, id="written twice"
        ),
        pytest.param(
            doc(header(), user(A, None), '{"x":1}', assistant(B, A), compaction_at(2)),
            None,
            id="a line that is no entry",
        ),
        pytest.param(
            doc(header(), user(A, None), user(None, A), assistant(B, A), compaction_at(2)),
            None,
            id="an entry without id",
        ),
    ],
)
def test_first_kept_index_converted_only_when_it_names_an_entry_by_id(
    text: str, converted: tuple[str, int] | None
) -> None:
    """pi's v1 index counts parsed lines (the header is 0); the conversion is offered only
    for an integer index of an entry that has an id, written once on the line."""
    a = analyze(text)
    line = next(f.span.line for f in a.findings if f.code == "PI302")
    titles = offered(text, "PI302", line)
    if converted is None:
        assert titles == []
        return
    ident, shown = converted
    assert titles == [f'Convert to firstKeptEntryId "{ident}" (the entry on line {shown})']
    out, _ = apply_fix(text, "PI302", line, "Convert", replaced={line})
    assert json.loads(out.split("\n")[line])["firstKeptEntryId"] == ident


def fixed(text: str, code: str, line: int, key: str) -> list[dict[str, Any]]:
    a = analyze(text)
    fix = next(f for f in repairs.fixes(a, code, line) if f.key == key)
    return [json.loads(x) for x in apply_edits(a.text, fix.edits()).splitlines()]


def test_duplicate_id_references_re_pointed_up_to_the_next_duplicate() -> None:
    """A reference written after the entry names it until the id is written again (line 6);
    only the members that name entries count (a custom entry's targetId does not)."""
    text = doc(
        header(),
        user(A, None),
        assistant(B, A),
        user(A, B, "again"),
        entry("branch_summary", D, A, fromId=A, summary="s"),
        entry("custom", E, D, customType="x", targetId=A),
        user(A, E, "third"),
        entry("label", C, A, targetId=A, label="l"),
    )
    assert offered(text, "PI401", 3)[0] == (
        "Give this entry a fresh id and re-point the 2 references written after it"
    )
    objs = fixed(text, "PI401", 3, "fresh-id-and-references")
    new = objs[3]["id"]
    assert new not in (A, B, C, D, E)
    assert (objs[4]["parentId"], objs[4]["fromId"]) == (new, new)
    assert objs[5]["targetId"] == A
    assert (objs[6]["id"], objs[7]["parentId"], objs[7]["targetId"]) == (A, A, A)
    objs = fixed(text, "PI401", 3, "fresh-id")
    assert objs[3]["id"] != A and (objs[4]["parentId"], objs[4]["fromId"]) == (A, A)


@pytest.mark.parametrize("key", ["fresh-id-and-references", "fresh-id"])
def test_duplicate_id_of_a_compaction_that_keeps_nothing_renames_its_own_reference(
    key: str,
) -> None:
    """A compaction that keeps nothing names itself as its first kept entry: that name
    follows the new id; its parentId, written before it, keeps naming line 1."""
    text = doc(
        header(),
        user(A, None),
        entry("compaction", A, A, summary="S", firstKeptEntryId=A, tokensBefore=1),
        user(D, A),
    )
    objs = fixed(text, "PI401", 2, key)
    new = objs[2]["id"]
    assert new != A and (objs[2]["firstKeptEntryId"], objs[2]["parentId"]) == (new, A)
    assert objs[3]["parentId"] == (new if key == "fresh-id-and-references" else A)


def test_cycle_never_reparents_onto_another_cycle() -> None:
    """Lines 2 and 3 are a cycle, lines 4 and 5 another: line 3 does not reach line 5,
    yet as its parent it would leave line 5 on a cycle."""
    text = doc(header(), user(A, None), user(B, C), user(C, B), user(D, E), user(E, D))
    assert offered(text, "PI402", 5)[0] == "Re-parent to the previous entry (line 2)"
    _, b = apply_fix(text, "PI402", 5, "previous", replaced={5})
    assert b.tree.cycle == {2, 3}


def test_give_all_ids_never_names_a_parent_by_an_id_that_is_no_string() -> None:
    """Line 2's id is a number: it gets a parent, keeps its id, and cannot be named as the
    parent of line 3 (pi links by string ids), which goes to line 1."""
    numbered = json.loads(user(B, False))
    numbered["id"] = 5
    text = doc(header(), user(A, None), js(numbered), user(None, False), "", user(None, False))
    assert offered(text, "PI300", 2)[1].startswith("Give all 3 entries without id")
    a = analyze(text)
    fix = next(f for f in repairs.fixes(a, "PI300", 2) if f.key == "give-all-ids")
    objs = [json.loads(x) for x in apply_edits(a.text, fix.edits()).splitlines() if x]
    assert [o.get("id") for o in objs[1:3]] == [A, 5]
    assert [o["parentId"] for o in objs[1:]] == [None, A, A, objs[3]["id"]]
    assert len({objs[3]["id"], objs[4]["id"], A}) == 3


def kept_result_without_call(*more: str) -> str:
    """A compaction (line 5) keeping the tool result on line 3 but not its call."""
    return doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        result(C, B, "t1"),
        assistant(D, C),
        entry("compaction", E, D, summary="sum", firstKeptEntryId=C, tokensBefore=9),
        user("ffffffff", E),
        *more,
    )


def reminder(ident: str, parent: str) -> str:
    return entry("custom_message", ident, parent, customType="r", content="x", display=True)


def edit_of_b(*more: str) -> str:
    """A context edit (line 5) dropping the tool calls of line 2's turn."""
    return doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("t1",)),
        result(C, B, "t1"),
        assistant(D, C),
        entry("context_edit", E, D, targetId=B, replacement=None),
        *more,
    )


@pytest.mark.parametrize(
    ("text", "code", "line", "expected"),
    [
        pytest.param(
            kept_result_without_call(),
            "PI423",
            5,
            [
                (
                    "Keep from the assistant turn that holds the tool call (line 3)",
                    "keep-from-call",
                    True,
                    True,
                )
            ],
            id="PI423 compaction",
        ),
        pytest.param(
            kept_result_without_call(user("gggggggg", A, "start over")),
            "PI424",
            5,
            [
                (
                    "Keep from the assistant turn that holds the tool call (line 3)",
                    "keep-from-call",
                    True,
                    True,
                )
            ],
            id="PI424 compaction",
        ),
        pytest.param(
            doc(
                header(),
                user(A, None),
                assistant(B, A, calls=("t1",)),
                reminder(C, B),
                result(D, C, "t1"),
            ),
            "PI423",
            3,
            [
                (
                    "Move this message after the tool results of line 3 (it and the entries "
                    "after them are re-parented; nothing is deleted)",
                    "move-after-results",
                    True,
                    True,
                )
            ],
            id="PI423 interloper",
        ),
        pytest.param(
            edit_of_b(),
            "PI423",
            5,
            [
                (
                    "Omit the tool results of the edited turn too (append context edits "
                    "omitting line 4)",
                    "omit-results",
                    True,
                    True,
                ),
                (
                    "Narrow the edit: keep the tool calls of the turn it edits",
                    "narrow-edit",
                    False,
                    False,
                ),
            ],
            id="PI423 context edit",
        ),
        pytest.param(
            edit_of_b(user("ffffffff", A, "elsewhere")),
            "PI423",
            5,
            [
                (
                    "Narrow the edit: keep the tool calls of the turn it edits",
                    "narrow-edit",
                    True,
                    True,
                )
            ],
            id="PI423 context edit off the resumed path",
        ),
        pytest.param(
            doc(
                header(),
                user(A, None),
                assistant(B, A, calls=("t1",), stop="aborted"),
                result(C, B, "t1"),
                user(D, C, "again"),
            ),
            "PI423",
            2,
            [
                (
                    "Omit the results of this dropped turn too (append context edits omitting "
                    "line 4)",
                    "omit-results",
                    True,
                    True,
                )
            ],
            id="PI423 dropped turn",
        ),
        pytest.param(
            doc(
                header(),
                user(A, None),
                assistant(B, A, calls=("t1", "t2"), stop="aborted"),
                result(C, B, "t1"),
                result(D, C, "t2"),
                user(E, D, "again"),
            ),
            "PI423",
            2,
            [
                (
                    "Omit the results of this dropped turn too (append context edits omitting "
                    "line 4, line 5)",
                    "omit-results",
                    True,
                    True,
                )
            ],
            id="PI423 dropped turn with two results",
        ),
        pytest.param(
            doc(header(), user(A, None), assistant(B, A, calls=("t1",))),
            "PI421",
            2,
            [
                (
                    'Answer the call with the result pi would send ("No result provided")',
                    "answer-calls",
                    True,
                    True,
                )
            ],
            id="PI421 one call",
        ),
        pytest.param(
            doc(header(), user(A, None), assistant(B, A, calls=("t1", "t2"))),
            "PI421",
            2,
            [
                (
                    "Answer the unanswered calls of this turn with the result pi would send "
                    '("No result provided")',
                    "answer-calls",
                    True,
                    True,
                )
            ],
            id="PI421 two calls",
        ),
    ],
)
def test_doctor_fixes_offered_with_their_key_preference_and_safety(
    text: str, code: str, line: int, expected: list[tuple[str, str, bool, bool]]
) -> None:
    """As above, for what stops a session from resuming (PI421, PI423-PI425)."""
    assert described(text, code, line) == expected
    every_fix_is_of(text, code, line)


def test_interloper_with_a_stray_message_member_is_moved_not_taken_for_a_turn() -> None:
    """A custom message between a call and its result that happens to carry a
    ``message`` member shaped like an assistant turn is still a custom message to pi
    (only ``message`` entries hold messages): the fix moves it after the results; it
    does not treat it as a dropped assistant turn whose results should be omitted."""
    stray = entry(
        "custom_message",
        C,
        B,
        customType="r",
        content="x",
        display=True,
        message={"role": "assistant", "content": [], "stopReason": "aborted"},
    )
    text = doc(header(), user(A, None), assistant(B, A, calls=("t1",)), stray, result(D, C, "t1"))
    assert [key for _, key, _, _ in described(text, "PI423", 3)] == ["move-after-results"]


def test_keep_ids_writes_a_missing_version_after_the_type() -> None:
    """A v1 header without version gets it where pi writes it: right after "type"."""
    text = doc(header(None), user(A, None), user(B, A))
    out, b = apply_fix(text, "PI303", 0, "keeping the existing ids", replaced={0})
    assert out.split("\n")[0] == header(3)
    assert b.version == 3 and not b.findings


def test_pending_turn_below_an_entry_that_is_no_message() -> None:
    """The result's path starts with a thinking-level change, which holds no calls."""
    text = doc(
        header(),
        entry("thinking_level_change", A, None, thinkingLevel="high"),
        assistant(B, A, calls=("t1",), stop="pending"),
        result(C, B, "t1"),
    )
    assert offered(text, "PI201", 2)[0].startswith(
        "Remove the pending assistant turn and its 1 tool result ("
    )


def test_give_ids_keeps_a_parent_it_has_and_chains_to_an_id_it_has() -> None:
    """Line 3 has a parent (line 1, not the entry before it): it keeps it. Line 2 lacks
    only its parent; line 4, lacking both, is parented to line 3's new id, line 5 (only
    its parent missing) to line 4's, and line 6 to line 5's own id."""
    text = doc(
        header(),
        user(A, None),
        user(B, False),
        user(None, A),
        user(None, False),
        user(D, False),
        user(None, False),
    )
    a = analyze(text)
    fix = next(f for f in repairs.fixes(a, "PI300", 2) if f.key == "give-all-ids")
    objs = [json.loads(x) for x in apply_edits(a.text, fix.edits()).splitlines()]
    ids = [o["id"] for o in objs[1:]]
    assert ids[0:2] == [A, B] and ids[4] == D and len(set(ids)) == 6
    assert [o["parentId"] for o in objs[1:]] == [None, A, A, ids[2], ids[3], D]


def test_first_entry_without_id_becomes_a_root() -> None:
    """No entry comes before line 1, whatever the last line (no newline after it) holds."""
    text = doc(header(), user(None, False)) + user(B, None)
    assert offered(text, "PI300", 1)[0] == (
        "Give this entry a fresh id and no parent (a root) as parent"
    )
    out, _ = apply_fix(text, "PI300", 1, "this entry", replaced={1})
    assert json.loads(out.split("\n")[1])["parentId"] is None


def test_cycle_never_reparents_below_itself() -> None:
    """Line 2 hangs below the cycle of lines 3 and 4 (written before them): as line 3's
    parent it would close the cycle again."""
    text = doc(header(), user(A, None), user(E, B), user(B, C), user(C, B))
    assert offered(text, "PI402", 3)[0] == "Re-parent to the previous entry (line 2)"
    _, b = apply_fix(text, "PI402", 3, "previous", replaced={3})
    assert not b.tree.cycle
