"""The entry tree: roots, children, leaf, active path, cycles and ancestor checks."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from pi_lsp.core.analysis import analyze
from pi_lsp.core.tree import Tree, build

ROOT = Path(__file__).resolve().parents[2]


def make(parents: dict[int, int | None], ids: dict[int, str] | None = None) -> Tree:
    entries = sorted(parents)
    return build(entries, ids or {line: f"e{line}" for line in entries}, parents)


# a session after a leaf reset and a branch:
#   1 ─ 2 ─ 3 ─ 4
#            └─ 5 ─ 6
#   7 ─ 8            (second root)
BRANCHED = {1: None, 2: 1, 3: 2, 4: 3, 5: 2, 6: 5, 7: None, 8: 7}


def test_roots_children_leaves() -> None:
    t = make(BRANCHED)
    assert t.roots == [1, 7]
    assert t.children == {1: [2], 2: [3, 5], 3: [4], 5: [6], 7: [8]}
    assert t.branch_points == [2]
    assert t.leaves == [4, 6, 8]
    assert t.cycle == set()


def test_leaf_is_the_last_entry_and_the_active_path_runs_to_its_root() -> None:
    t = make(BRANCHED)
    assert t.leaf == 8
    assert t.active == [7, 8]
    assert t.active_set == {7, 8}
    t2 = make({k: v for k, v in BRANCHED.items() if k < 7})
    assert t2.leaf == 6
    assert t2.active == [1, 2, 5, 6]


def test_depths() -> None:
    t = make(BRANCHED)
    assert t.depth == {1: 0, 2: 1, 3: 2, 4: 3, 5: 2, 6: 3, 7: 0, 8: 1}


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (1, 1, True),
        (1, 4, True),
        (2, 6, True),
        (3, 4, True),
        (4, 1, False),
        (3, 5, False),
        (5, 3, False),
        (3, 6, False),
        (1, 8, False),
        (7, 8, True),
        (8, 7, False),
        (99, 1, False),
        (1, 99, False),
        (99, 99, True),
    ],
)
def test_is_ancestor(a: int, b: int, expected: bool) -> None:
    assert make(BRANCHED).is_ancestor(a, b) is expected


def test_path_to_and_descendants() -> None:
    t = make(BRANCHED)
    assert t.path_to(6) == [1, 2, 5, 6]
    assert t.path_to(1) == [1]
    assert sorted(t.descendants(2)) == [3, 4, 5, 6]
    assert list(t.descendants(4)) == []


def test_ids_map_to_the_last_line_that_carries_them() -> None:
    t = make({1: None, 2: 1, 3: None}, {1: "x", 2: "y", 3: "x"})
    assert t.ids == {"x": 3, "y": 2}


def test_empty_tree() -> None:
    t = build([], {}, {})
    assert t.leaf is None
    assert t.active == [] and t.roots == [] and t.leaves == []


# ----------------------------------------------------------------------------- cycles


CYCLES = {1: None, 2: 1, 3: 5, 4: 3, 5: 4, 6: 6, 7: 4}  # 3→5→4→3, 6→6, 7 hangs off the cycle


def test_cycles_are_found() -> None:
    t = make(CYCLES)
    assert t.cycle == {3, 4, 5, 6}
    assert t.roots == [1]


@pytest.mark.parametrize("line", [3, 4, 5, 6, 7])
def test_walks_from_a_cycle_are_bounded(line: int) -> None:
    t = make(CYCLES)
    path = t.path_to(line)
    assert len(path) == len(set(path)) <= 4
    assert path[-1] == line


def test_leaf_in_a_cycle_has_a_bounded_active_path() -> None:
    t = make(CYCLES)
    assert t.leaf == 7
    assert t.active[-1] == 7
    assert set(t.active) <= {3, 4, 5, 7}


@pytest.mark.parametrize(("a", "b"), [(3, 4), (4, 3), (3, 7), (6, 6), (1, 3)])
def test_is_ancestor_inside_a_cycle_never_hangs(a: int, b: int) -> None:
    t = make(CYCLES)
    assert t.is_ancestor(a, b) is (a == b)


@pytest.mark.parametrize("line", [3, 6])
def test_descendants_of_a_cycle_are_bounded(line: int) -> None:
    t = make(CYCLES)
    found = list(itertools.islice(t.descendants(line), 100))
    assert len(found) < 100


def test_long_cycle_is_found_without_recursion() -> None:
    n = 50_000
    t = make({i: (i - 1 if i > 0 else n - 1) for i in range(n)})
    assert len(t.cycle) == n
    assert t.roots == []
    assert len(t.path_to(n - 1)) == n


def test_deep_chain_is_numbered_without_recursion() -> None:
    n = 100_000
    t = make({i: (i - 1 if i > 0 else None) for i in range(n)})
    assert t.depth[n - 1] == n - 1
    assert t.is_ancestor(0, n - 1)
    assert not t.is_ancestor(n - 1, 0)
    assert len(t.active) == n


# ----------------------------------------------------------------------------- from a document


def _line(o: dict[str, object]) -> str:
    return json.dumps(o, separators=(",", ":"))


HEADER = _line({"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"})


def entry(ident: str | None, parent: str | None, **extra: object) -> str:
    o: dict[str, object] = {"type": "custom", "customType": "x", "timestamp": "t"}
    if ident is not None:
        o["id"] = ident
    o["parentId"] = parent
    o.update(extra)
    return _line(o)


def test_tree_from_a_v3_document() -> None:
    lines = [
        HEADER,
        entry("a", None),
        "",
        entry("b", "a"),
        "{broken",
        entry("c", "a"),
        "[1]",
        entry("d", "zz"),  # dangling: a root, as pi stops the path there
        entry("e", "c"),
    ]
    a = analyze("\n".join(lines) + "\n")
    t = a.tree
    assert t.entries == [1, 3, 5, 7, 8]
    assert t.roots == [1, 7]
    assert t.children == {1: [3, 5], 5: [8]}
    assert t.leaf == 8
    assert t.active == [1, 5, 8]
    assert t.id_of == {1: "a", 3: "b", 5: "c", 7: "d", 8: "e"}


def test_tree_from_a_v1_document_is_a_chain_in_file_order() -> None:
    v1 = _line({"type": "session", "id": "s", "timestamp": "t", "cwd": "/"})
    msg = _line({"type": "message", "timestamp": "t", "message": {"role": "user", "content": "x"}})
    a = analyze("\n".join([v1, msg, msg, "", msg]) + "\n")
    t = a.tree
    assert t.entries == [1, 2, 4]
    assert t.roots == [1]
    assert t.active == [1, 2, 4]
    assert t.leaf == 4


def test_duplicate_id_children_follow_the_last() -> None:
    lines = [HEADER, entry("a", None), entry("a", None), entry("b", "a")]
    t = analyze("\n".join(lines) + "\n").tree
    assert t.ids["a"] == 2
    assert t.parent[3] == 2
    assert t.roots == [1, 2]


def test_tree_of_a_real_branched_session() -> None:
    path = ROOT.parent / "shared" / "fixtures" / "pi-v3-branched.jsonl"
    if not path.is_file():
        pytest.skip("../shared/fixtures is absent")
    text = path.read_text(encoding="utf-8")
    entries = [json.loads(line) for line in text.splitlines()[1:]]
    t = analyze(text).tree
    # pi's own view: walk parentId from the last entry
    by_id = {e["id"]: n + 1 for n, e in enumerate(entries)}
    walk, current = [], len(entries)
    while current is not None:
        walk.append(current)
        parent = entries[current - 1]["parentId"]
        current = by_id[parent] if parent is not None else None
    assert t.active == walk[::-1]
    assert t.leaf == len(entries)
    assert len(t.branch_points) >= 1
    assert t.cycle == set()
