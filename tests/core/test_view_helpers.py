"""Folding by turn, inlay hints, rename edits, document links, selection ranges, code lenses
and the tree as JSON, on the hand-written sample session."""

from __future__ import annotations

from itertools import pairwise

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.edits.rename import RenameError, prepare_rename, rename
from pi_lsp.core.text.findings import Span
from pi_lsp.core.text.textedit import TextEdit
from pi_lsp.core.views.doclinks import document_links
from pi_lsp.core.views.folding import Fold, turn_folds
from pi_lsp.core.views.inlay import Hint, link_hints
from pi_lsp.core.views.lens import code_lenses
from pi_lsp.core.views.selection import selection_spans
from pi_lsp.core.views.treedata import tree_json

from .features_sample import LINES, PATH, TEXT
from .pi_sessions import doc, entry, header, user

A = analyze(TEXT, PATH)


def _value(line: int, value: str) -> tuple[int, int]:
    start = LINES[line].index(f'"{value}"')
    return start, start + len(value) + 2


def test_turn_folds() -> None:
    # the branch summary is a child of u1, so it still belongs to u1's turn
    assert turn_folds(A) == [
        Fold(2, 6, "user: hello world"),
        Fold(7, 9, "user: again"),
    ]


def test_turn_ends_at_an_entry_of_another_branch() -> None:
    other = '{"type":"custom","customType":"x","id":"x1","parentId":"m1","timestamp":"t"}'
    a = analyze("\n".join([*LINES[:5], other]))
    assert turn_folds(a) == [Fold(2, 4, "user: hello world")]


def test_inlay_hints() -> None:
    hints = [(h.line, h.column, h.label) for h in link_hints(A, 0, 20)]
    assert hints == [
        (5, _value(5, "u1")[1], "↑ line 3"),  # label targetId
        (6, _value(6, "u1")[1], "↑ line 3"),  # parent is not the previous line
        (6, _value(6, "l1")[1], "↑ line 6"),  # fromId
        (8, LINES[8].rindex('"u2"') + 4, "↑ line 8"),  # firstKeptEntryId
    ]
    assert link_hints(A, 6, 6)[0].tooltip == "parentId → line 3: user: hello world"


def test_inlay_hint_for_a_new_root() -> None:
    reset = LINES[7].replace('"parentId":"b1"', '"parentId":null')
    a = analyze("\n".join([*LINES[:7], reset]))
    hint = link_hints(a, 7, 7)[0]
    assert hint.label == "new root" and hint.column == reset.index("null") + 4


def test_rename_an_entry_id_with_its_references() -> None:
    assert prepare_rename(A, 2, LINES[2].index('"u1"') + 1) == (
        _value(2, "u1")[0] + 1,
        _value(2, "u1")[1] - 1,
        "u1",
    )
    edits = rename(A, 5, LINES[5].index('"u1"') + 2, "first")
    assert edits == [
        TextEdit.replace(2, *_value(2, "u1"), '"first"'),
        TextEdit.replace(3, *_value(3, "u1"), '"first"'),
        TextEdit.replace(5, *_value(5, "u1"), '"first"'),
        TextEdit.replace(6, *_value(6, "u1"), '"first"'),
    ]


def test_rename_a_tool_call() -> None:
    edits = rename(A, 4, LINES[4].index("call_1"), 'c"2')
    assert edits == [
        TextEdit.replace(3, *_value(3, "call_1"), '"c\\"2"'),
        TextEdit.replace(4, *_value(4, "call_1"), '"c\\"2"'),
    ]


@pytest.mark.parametrize(
    ("name", "message"),
    [("a1", "already used on line 4"), ("", "cannot be empty"), ("root", "reserved")],
)
def test_rename_refusals(name: str, message: str) -> None:
    with pytest.raises(RenameError, match=message):
        rename(A, 2, LINES[2].index('"u1"') + 1, name)


def test_nothing_to_rename_off_ids() -> None:
    assert prepare_rename(A, 2, LINES[2].index("hello")) is None
    assert prepare_rename(A, 0, LINES[0].index("parent.jsonl")) is None
    assert rename(A, 2, LINES[2].index("hello"), "x") == []


def test_document_links() -> None:
    (link,) = document_links(A)
    start, end = _value(0, "../parent.jsonl")
    assert link.span == Span(0, start + 1, end - 1)
    assert link.path == "/tmp/pi-lsp-features/parent.jsonl"


def test_selection_ranges_grow_to_the_line() -> None:
    line = LINES[3]
    col = line.index("/src/a.ts") + 2
    spans = selection_spans(A, 3, col)
    path_value = (line.index('"/src/a.ts"'), line.index('"/src/a.ts"') + 11)
    assert spans[0] == (path_value[0] + 1, path_value[1] - 1)
    assert spans[1] == path_value
    assert spans[2] == (line.index('"path"'), path_value[1])
    assert spans[-1] == (0, len(line))
    for inner, outer in pairwise(spans):
        assert outer[0] <= inner[0] and inner[1] <= outer[1] and inner != outer


def test_selection_on_a_broken_line_is_the_line() -> None:
    a = analyze(LINES[0] + '\n{"type":"message", broken')
    assert selection_spans(a, 1, 5) == [(0, len(a.lines[1]))]


def test_code_lenses() -> None:
    lenses = [(lens.line, lens.title) for lens in code_lenses(A)]
    assert lenses == [
        (
            0,
            "9 entries · 1 branch point · 2 leaves · 1 compaction · 18 tokens · $0.3000 · active path $0.0000 · 1 abandoned branch $0.3000",
        ),
        (2, "⑂ branch point: 2 branches (lines 4, 7)"),
        (8, "compaction: keeps from line 8"),
        (9, "◀ leaf: pi resumes here (6 entries on the active path)"),
    ]


def test_tree_json() -> None:
    data = tree_json(A)
    assert data["leafId"] == "s1" and data["roots"] == ["m1"]
    nodes = {n["id"]: n for n in data["nodes"]}
    assert nodes["u1"] == {
        "id": "u1",
        "line": 2,
        "parentId": "m1",
        "type": "message",
        "role": "user",
        "title": "user: hello world",
        "labels": ["start"],
        "isLeaf": False,
        "onActivePath": True,
        "children": ["a1", "b1"],
    }
    assert nodes["s1"]["isLeaf"] and nodes["a1"]["onActivePath"] is False


def test_tree_json_v1_and_duplicates_get_synthetic_ids() -> None:
    header = '{"type":"session","id":"s","timestamp":"t","cwd":"/"}'
    user = (
        '{"type":"message","timestamp":"t","message":{"role":"user","content":"hi","timestamp":1}}'
    )
    data = tree_json(analyze("\n".join([header, user, user])))
    assert [(n["id"], n["parentId"]) for n in data["nodes"]] == [("L1", None), ("L2", "L1")]
    dup = LINES[2].replace('"id":"u1"', '"id":"m1"')
    data = tree_json(analyze("\n".join([LINES[0], LINES[1], dup])))
    assert [n["id"] for n in data["nodes"]] == ["L1", "m1"]


def test_tree_json_hides_usage_entries_as_pi_16_does() -> None:
    usage = (
        '{"type":"usage","id":"%s","parentId":"%s","timestamp":"t","kind":"cache_warm",'
        '"provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0}}'
    )
    text = "\n".join(
        [
            LINES[0],
            LINES[1],  # m1
            usage % ("g1", "m1"),
            LINES[2].replace('"parentId":"m1"', '"parentId":"g1"'),  # u1, under the usage entry
            usage % ("g2", "u1"),  # the leaf
        ]
    )
    data = tree_json(analyze(text))
    nodes = {n["id"]: n for n in data["nodes"]}
    assert list(nodes) == ["m1", "u1"]
    assert nodes["m1"]["children"] == ["u1"] and nodes["u1"]["parentId"] == "m1"
    assert data["leafId"] == "u1" and nodes["u1"]["isLeaf"] and nodes["u1"]["onActivePath"]


_USAGE = (
    '{"type":"usage","id":"%s","parentId":"%s","timestamp":"t","kind":"cache_warm",'
    '"provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0}}'
)


def test_tree_json_a_hidden_leaf_below_hidden_entries_shows_the_entry_above_them() -> None:
    text = "\n".join([LINES[0], LINES[1], _USAGE % ("g1", "m1"), _USAGE % ("g2", "g1")])
    data = tree_json(analyze(text))
    assert [n["id"] for n in data["nodes"]] == ["m1"]
    assert data["leafId"] == "m1" and data["nodes"][0]["isLeaf"]


def test_tree_json_an_entry_on_a_cycle_through_hidden_entries_has_no_parent() -> None:
    """u1's parent is a usage entry whose parent is u1: no shown entry is above u1."""
    text = "\n".join(
        [
            LINES[0],
            LINES[1],
            LINES[2].replace('"parentId":"m1"', '"parentId":"g1"'),  # u1
            _USAGE % ("g1", "u1"),
        ]
    )
    nodes = {n["id"]: n for n in tree_json(analyze(text))["nodes"]}
    assert list(nodes) == ["m1", "u1"]
    assert nodes["u1"]["parentId"] is None and nodes["m1"]["children"] == []


def test_tree_json_a_hidden_leaf_above_a_hidden_cycle_has_no_shown_entry() -> None:
    """The leaf's ancestors are two usage entries naming each other: nothing shown is above."""
    text = "\n".join(
        [LINES[0], LINES[1], _USAGE % ("g1", "g2"), _USAGE % ("g2", "g1"), _USAGE % ("g3", "g1")]
    )
    data = tree_json(analyze(text))
    assert [n["id"] for n in data["nodes"]] == ["m1"]
    assert data["leafId"] is None and not data["nodes"][0]["isLeaf"]


def test_tree_json_only_message_entries_have_a_role() -> None:
    """An entry of another type that happens to carry a ``message`` shows no role."""
    other = (
        '{"type":"custom","id":"c1","parentId":"m1","timestamp":"t","customType":"x",'
        '"message":{"role":"user","content":"hi"}}'
    )
    nodes = {
        n["id"]: n for n in tree_json(analyze("\n".join([LINES[0], LINES[1], other])))["nodes"]
    }
    assert nodes["c1"]["type"] == "custom" and nodes["c1"]["role"] is None


def test_code_lenses_of_a_one_entry_session_use_the_singular() -> None:
    a = analyze(doc(header(), user("u1", None)))
    assert [(lens.line, lens.title) for lens in code_lenses(a)] == [
        (0, "1 entry · 0 branch points · 1 leaf · 0 compactions · 0 tokens · $0.0000"),
        (1, "◀ leaf: pi resumes here (1 entry on the active path)"),
    ]


@pytest.mark.parametrize(
    ("children", "where"), [(8, "3, 4, 5, 6, 7, 8, 9, 10"), (9, "3, 4, 5, 6, 7, 8, 9, 10 …")]
)
def test_a_branch_point_lens_lists_at_most_eight_branches(children: int, where: str) -> None:
    kids = [user(f"k{n}", "u1") for n in range(children)]
    a = analyze(doc(header(), user("u1", None), *kids))
    titles = [lens.title for lens in code_lenses(a) if lens.line == 1]
    assert titles == [f"⑂ branch point: {children} branches (lines {where})"]


def test_compaction_lenses_name_the_first_kept_entry() -> None:
    text = doc(
        header(),
        user("u1", None),
        user("u2", "u1"),
        entry("compaction", "c1", "u2", summary="s", firstKeptEntryId="u1", tokensBefore=5),
        entry("compaction", "c2", "c1", summary="s", firstKeptEntryId="ghost", tokensBefore=5),
        entry("compaction", "c3", "c2", summary="s", firstKeptEntryId="c3", tokensBefore=5),
    )
    lenses = [(lens.line, lens.title) for lens in code_lenses(analyze(text))]
    assert lenses[1:4] == [
        (3, "compaction: keeps from line 2"),  # not its parent's line
        (4, "compaction: keeps nothing before it"),  # the kept entry does not exist
        (5, "compaction: keeps from line 6"),  # retain-none: itself
    ]


def test_a_v1_compaction_lens_follows_its_first_kept_entry_index() -> None:
    v1 = doc(
        header(None),
        user(None, False),
        user(None, False),
        entry("compaction", None, False, summary="s", firstKeptEntryIndex=2, tokensBefore=5),
        user(None, False),
    )
    assert (3, "compaction: keeps from line 3") in [
        (x.line, x.title) for x in code_lenses(analyze(v1))
    ]


def test_inlay_hints_in_a_file_without_a_header_start_on_its_first_line() -> None:
    text = doc(
        entry("label", "l1", "u1", targetId="u1", label="x"),
        user("u1", None),
        user("u2", None),
    )
    a = analyze(text)
    down = [h for h in link_hints(a, 0, 9) if h.line == 0]
    assert down == [
        Hint(0, a.lines[0].index('"u1"') + 4, "↓ line 2", "parentId → line 2: user: hello"),
        Hint(0, a.lines[0].rindex('"u1"') + 4, "↓ line 2", "targetId → line 2: user: hello"),
    ]
    # u1 comes after another entry (the label), so its null parentId is a reset too
    new_root = Hint(
        1, a.lines[1].index("null") + 4, "new root", "parentId is null: a new root (leaf reset)"
    )
    assert [h for h in link_hints(a, 0, 9) if h.line == 1] == [new_root]


def test_a_root_after_a_broken_first_line_is_not_a_reset() -> None:
    # no header and no trailing newline: the only entry before u2 is u1
    a = analyze("{broken\n" + user("u1", None) + "\n" + user("u2", None))
    assert [(h.line, h.label) for h in link_hints(a, 0, 9)] == [(2, "new root")]


def test_blank_lines_do_not_separate_an_entry_from_its_parent() -> None:
    text = doc(header(), user("u1", None), "", user("u2", "u1"), "", user("u3", None))
    assert [(h.line, h.label) for h in link_hints(analyze(text), 0, 9)] == [(5, "new root")]


def test_a_leaf_reset_in_a_v2_file_is_a_new_root() -> None:
    a = analyze(doc(header(2), user("u1", None), user("u2", None)))
    assert [(h.line, h.label) for h in link_hints(a, 0, 9)] == [(2, "new root")]


def test_a_link_to_no_entry_has_no_hint_but_the_next_link_has() -> None:
    a = analyze(doc(header(), user("u1", None), entry("label", "l1", "ghost", targetId="u1")))
    assert [(h.line, h.label, h.tooltip) for h in link_hints(a, 0, 9)] == [
        (2, "↑ line 2", "targetId → line 2: user: hello")
    ]


def test_a_retain_none_compaction_points_at_itself() -> None:
    a = analyze(
        doc(
            header(),
            user("u1", None),
            entry("compaction", "c1", "u1", summary="s", firstKeptEntryId="c1", tokensBefore=1),
        )
    )
    assert [(h.line, h.label) for h in link_hints(a, 0, 9)] == [(2, "↓ line 3")]
