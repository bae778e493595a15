"""The entry tree: roots, children, leaf, active path, cycles and ancestor checks."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries import tree as tree_module
from pi_lsp.core.entries.lines import LineInfo, classify
from pi_lsp.core.entries.tree import Children, LineMap, Tree, build, build_tree, extend

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
    assert {line: t.depth_of(line) for line in t.entries} == {
        1: 0, 2: 1, 3: 2, 4: 3, 5: 2, 6: 3, 7: 0, 8: 1
    }
    assert t.depth_of(0) is None and t.depth_of(9) is None  # no entry there


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
    assert list(t.descendants(2)) == [3, 4, 5, 6]
    assert list(t.descendants(1)) == [2, 3, 4, 5, 6]
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


@pytest.mark.parametrize(
    ("line", "below"), [(3, [4, 5, 7]), (4, [5, 3, 7]), (5, [3, 4, 7]), (6, []), (7, [])]
)
def test_descendants_of_a_cycle_entry_are_the_rest_of_the_cycle_and_what_hangs_off_it(
    line: int, below: list[int]
) -> None:
    assert list(make(CYCLES).descendants(line)) == below


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


# ----------------------------------------------------------------------------- the append path


def _infos(specs: list[tuple[str | None, str | None]]) -> list[LineInfo]:
    """A header, then one entry per ``(id, parentId)`` (None: the key is left out)."""
    out = [classify({"type": "session", "version": 3})]
    for ident, parent in specs:
        obj: dict[str, object] = {"type": "custom"}
        if ident is not None:
            obj["id"] = ident
        obj["parentId"] = parent
        out.append(classify(obj))
    return out


def _reserved(specs: list[tuple[str | None, str | None]]) -> set[str]:
    """Parent ids of the entries that name no entry (the ones a new entry must not take)."""
    ids = {ident for ident, _ in specs}
    return {p for _, p in specs if p is not None and p not in ids}


def _can_extend(
    old: list[tuple[str | None, str | None]], new: list[tuple[str | None, str | None]]
) -> bool:
    """Adding ``new`` to ``old`` changes no earlier entry: fresh string ids, none reserved,
    and every parent already written (or the entry itself, or none at all)."""
    seen = {ident for ident, _ in old}
    reserved = _reserved(old)
    for ident, parent in new:
        if ident is None or ident in seen or ident in reserved:
            return False
        seen.add(ident)
        later = {i for i, _ in new[new.index((ident, parent)) + 1 :]}
        if parent in later and parent not in {i for i, _ in old}:
            return False
    return True


# ids a..e; each entry names a parent among them, itself, none, or one no entry has
_IDS = ["a", "b", "c", "d", "e"]
_PARENTS = [None, "a", "b", "c", "d", "e", "zz"]


def _drawn_sessions() -> list[list[tuple[str | None, str | None]]]:
    out = []
    for n in range(1, 5):
        for parents in itertools.product(_PARENTS, repeat=n):
            out.append(list(zip(_IDS[:n], parents, strict=True)))
    # repeated and missing ids
    out += [
        [("a", None), ("a", None)],
        [("a", None), ("b", "a"), ("a", "b")],
        [("a", None), (None, "a"), ("b", "a")],
        [("a", "zz"), ("zz", None)],
        [("a", None), ("b", "a"), ("zz", "a")],
    ]
    return out


@pytest.mark.parametrize("split", [0, 1, 2, 3])
def test_extending_a_tree_by_appended_entries_gives_the_fresh_tree(split: int) -> None:
    extended = 0
    for specs in _drawn_sessions():
        if split >= len(specs):
            continue
        old_specs, new_specs = specs[:split], specs[split:]
        infos = _infos(specs)
        old = build_tree(infos[: split + 1], "pi", 3)
        grown = extend(old, infos, list(range(split + 1, len(infos))), _reserved(old_specs))
        fresh = build_tree(infos, "pi", 3)
        if not _can_extend(old_specs, new_specs):
            assert grown is None, specs
            continue
        assert grown == fresh, specs
        extended += 1
    assert extended > 100


def test_extending_a_branch_off_the_leaf_path_renumbers_the_tree() -> None:
    # a ─ b ─ c, then d under a (not on the path to the leaf c): a's later children move
    specs: list[tuple[str | None, str | None]] = [("a", None), ("b", "a"), ("c", "b"), ("d", "a")]
    infos = _infos(specs)
    grown = extend(build_tree(infos[:4], "pi", 3), infos, [4], set())
    assert grown is not None
    assert grown.children[1] == [2, 4]
    assert grown.active == [1, 4]
    assert grown.is_ancestor(1, 4) and not grown.is_ancestor(2, 4) and not grown.is_ancestor(4, 3)
    assert grown == build_tree(infos, "pi", 3)


def test_extending_an_empty_tree() -> None:
    infos = _infos([])
    grown = extend(build_tree(infos, "pi", 3), infos, [], set())
    assert grown is not None
    assert grown.leaf is None and grown.active == [] and grown.entries == []


@pytest.mark.parametrize("parent", [5, [], {"id": "a"}, True])
def test_an_appended_entry_whose_parent_id_is_no_string_is_a_root(parent: object) -> None:
    infos = _infos([("a", None)])
    infos.append(classify({"type": "custom", "id": "b", "parentId": parent}))
    grown = extend(build_tree(infos[:2], "pi", 3), infos, [2], set())
    assert grown is not None
    assert grown.roots == [1, 2] and grown.active == [2]
    assert grown == build_tree(infos, "pi", 3)


def test_appending_children_of_the_leaf_keeps_the_tour_numbers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a long chain, then turns appended under its leaf and a new root: no renumbering
    specs: list[tuple[str | None, str | None]] = [("e0", None)]
    specs += [(f"e{n}", f"e{n - 1}") for n in range(1, 2000)]
    new = [("n1", "e1999"), ("n2", "n1"), ("n3", "n1"), ("r", None), ("r1", "r")]
    infos = _infos(specs + new)
    old = build_tree(infos[: len(specs) + 1], "pi", 3)
    fresh = build_tree(infos, "pi", 3)

    def no_renumbering(tree: Tree) -> None:
        raise AssertionError("renumbered the whole tree")

    monkeypatch.setattr(tree_module, "_number", no_renumbering)
    lines = list(range(len(specs) + 1, len(infos)))
    grown = extend(old, infos, lines, set())
    assert grown == fresh
    assert grown.active[-2:] == [len(infos) - 2, len(infos) - 1]


@pytest.mark.parametrize("parent", [5, [], {"id": "a"}])
def test_a_parent_id_that_is_no_string_makes_a_root(parent: object) -> None:
    infos = _infos([("a", None)])
    infos.append(classify({"type": "custom", "id": "b", "parentId": parent}))
    t = build_tree(infos, "pi", 3)
    assert t.roots == [1, 2] and t.parent[2] is None and t.active == [2]


def test_the_active_path_after_an_append_that_leaves_the_old_path() -> None:
    # a ─ b ─ c (leaf), then x under a and y under x: the path runs a, x, y
    specs: list[tuple[str | None, str | None]] = [("a", None), ("b", "a"), ("c", "b")]
    specs += [("x", "a"), ("y", "x"), ("z", None), ("w", "b")]
    infos = _infos(specs)
    for cut in range(1, len(specs)):
        old = build_tree(infos[: cut + 1], "pi", 3)
        grown = extend(old, infos, list(range(cut + 1, len(infos))), set())
        assert grown is not None
        assert grown.active == [1, 2, 7]
        assert grown == build_tree(infos, "pi", 3)


@given(st.dictionaries(st.integers(0, 40), st.one_of(st.none(), st.integers(0, 40)), max_size=30))
def test_a_line_map_answers_as_the_dict_it_stands_for(items: dict[int, int | None]) -> None:
    m: LineMap[int | None] = LineMap(items.items())
    assert m == items and len(m) == len(items) and list(m) == sorted(items)
    for line in (-1, 0, 7, 41, 99, "7", None):
        assert (line in m) == (line in items)
        assert m.get(line, "no") == items.get(line, "no")
    copy = m.copy()
    for line in list(items)[::2]:
        del copy[line]
    assert copy == {k: v for k, v in items.items() if k not in list(items)[::2]}
    assert m == items  # the copy is its own
    with pytest.raises(KeyError):
        m[-1] = 0


@given(st.lists(st.integers(0, 30), max_size=30))
def test_children_are_each_entrys_children_in_line_order(parents: list[int]) -> None:
    """Entry ``n + 31`` is a child of ``parents[n]``: the links give the dict of lists."""
    expected: dict[int, list[int]] = {}
    kids = Children()
    for n, p in enumerate(parents):
        expected.setdefault(p, []).append(n + 31)
        kids.add(p, n + 31)
    entries = sorted({*parents, *range(31, 31 + len(parents))})
    at = [None] * (entries[-1] + 1 if entries else 0)
    for n, p in enumerate(parents):
        at[n + 31] = p
    bulk, roots = Children.of_parents(entries, at)
    for built in (kids, bulk, kids.copy()):
        assert built == expected and len(built) == len(expected)
        assert all(built.get(line, []) == expected.get(line, []) for line in range(-1, 70))
    assert roots == [line for line in entries if at[line] is None]
