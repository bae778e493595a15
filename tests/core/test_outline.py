"""The document outline: flat runs, nested side branches, names, the leaf, the cap."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.views.outline import OutlineNode, outline

from .features_sample import LINES, PATH, TEXT
from .pi_sessions import doc, entry, header, js, user

A = analyze(TEXT, PATH)
FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"


def _shape(nodes: list[OutlineNode]) -> list[object]:
    return [(n.line, _shape(n.children)) if n.children else n.line for n in nodes]


def _walk(nodes: list[OutlineNode]) -> list[OutlineNode]:
    out: list[OutlineNode] = []
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.children))
    return out


def test_active_path_flat_and_side_branch_nested() -> None:
    nodes = outline(A, 2000)
    # header, m1, u1 (with the side branch a1 -> r1 -> l1 nested), then b1, u2, c1, s1
    assert _shape(nodes) == [0, 1, (2, [(3, [3, 4, 5])]), 6, 7, 8, 9]
    u1 = nodes[2]
    assert (u1.line, u1.end_line) == (2, 9)
    branch = u1.children[0]
    assert (branch.kind, branch.line, branch.end_line) == ("branch", 3, 5)
    assert branch.name == "branch: assistant: reading → read(/src/a.ts)"


def test_names_from_session_name_labels_and_leaf() -> None:
    nodes = outline(A, 2000)
    assert (nodes[0].name, nodes[0].kind) == ("My session", "header")
    assert nodes[0].detail == "v3 · 9 entries · leaf on line 10"
    assert nodes[2].name == "[start] user: hello world"
    assert nodes[2].detail == "line 3 · u1"
    assert nodes[-1].name == 'session name: "My session"  ◀ leaf'
    assert [n.kind for n in nodes[1:]] == [
        "model_change",
        "user",
        "branch_summary",
        "user",
        "compaction",
        "session_info",
    ]


def test_cap_adds_a_notice() -> None:
    nodes = outline(A, 3)
    notice = nodes[-1]
    assert notice.kind == "notice"
    assert notice.name == "… 6 more entries not shown (outline cap 3)"
    listed = [n for n in _walk(nodes) if n.kind not in ("header", "branch", "notice")]
    assert len(listed) == 3


def test_cycles_and_dangling_parents_are_listed() -> None:
    head = LINES[0]
    a_ = '{"type":"custom","customType":"x","id":"a","parentId":"b","timestamp":"t"}'
    b_ = '{"type":"custom","customType":"x","id":"b","parentId":"a","timestamp":"t"}'
    c_ = '{"type":"custom","customType":"x","id":"c","parentId":"a","timestamp":"t"}'
    d_ = '{"type":"custom","customType":"x","id":"d","parentId":"ghost","timestamp":"t"}'
    a = analyze("\n".join([head, a_, b_, c_, d_]))
    nodes = outline(a, 100)
    lines = sorted(n.line for n in _walk(nodes) if n.kind == "custom")
    assert lines == [1, 2, 3, 4]
    assert any(n.kind == "cycle" for n in nodes)


def test_v1_files_are_flat() -> None:
    header = '{"type":"session","id":"s","timestamp":"t","cwd":"/"}'
    user = (
        '{"type":"message","timestamp":"t","message":{"role":"user","content":"hi","timestamp":1}}'
    )
    a = analyze("\n".join([header, user, user, user]))
    assert _shape(outline(a, 100)) == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "name", ["pi-v3-long.jsonl", "pi-v3-branched.jsonl", "real-v1-large.jsonl"]
)
def test_fixtures_list_every_entry_once(name: str) -> None:
    path = FIXTURES / name
    if not path.exists():
        pytest.skip("shared fixtures are absent")
    a = analyze(path.read_text(encoding="utf-8"), str(path))
    nodes = outline(a, 100_000)
    listed = [n.line for n in _walk(nodes) if n.kind not in ("header", "branch", "notice")]
    assert sorted(listed) == a.tree.entries
    for node in _walk(nodes):
        assert node.name and node.line <= node.end_line
        assert "\n" not in node.name and "\u2028" not in node.name
    capped = outline(a, 50)
    assert capped[-1].kind == "notice" or len(a.tree.entries) <= 50


def _custom(ident: str, parent: str | None) -> str:
    return entry("custom", ident, parent, customType="x")


def _nodes(nodes: list[OutlineNode]) -> list[tuple[str, int, int]]:
    return [(n.kind, n.line, n.end_line) for n in _walk(nodes)]


def test_every_node_covers_its_own_lines_and_a_branch_point_its_subtree() -> None:
    nodes = outline(A, 2000)
    assert _nodes(nodes) == [
        ("header", 0, 0),
        ("model_change", 1, 1),
        ("user", 2, 9),  # the branch point: down to the last line of its subtree
        ("branch", 3, 5),
        ("assistant", 3, 3),
        ("toolResult", 4, 4),
        ("label", 5, 5),
        ("branch_summary", 6, 6),
        ("user", 7, 7),
        ("compaction", 8, 8),
        ("session_info", 9, 9),
    ]
    assert nodes[2].children[0].detail == "lines 4-6"


def test_long_titles_labels_ids_and_session_names_are_clipped() -> None:
    long_id = "k" * 30
    text = doc(
        header(),
        entry("session_info", "n1", None, name="ñ" * 100),
        user(long_id, "n1", "é" * 200),
        user("side", long_id, "é" * 200),
        entry("label", "l1", long_id, targetId=long_id, label="ł" * 40),
    )
    nodes = outline(analyze(text), 100)
    assert nodes[0].name == "ñ" * 71 + "…"
    u = nodes[2]
    assert u.name == "[" + "ł" * 29 + "…] user: " + "é" * 65 + "…"
    assert u.detail == "line 3 · " + "k" * 19 + "…"
    assert u.children[0].name == "branch: user: " + "é" * 57 + "…"


def test_the_header_is_named_from_the_session_id_or_just_session() -> None:
    named = '{"type":"session","version":3,"id":"abc","timestamp":"t","cwd":"/"}'
    bare = '{"type":"session","version":3,"timestamp":"t","cwd":"/"}'
    assert outline(analyze(named + "\n"), 10)[0].name == "session abc"
    assert outline(analyze(bare + "\n"), 10)[0].name == "session"
    assert outline(analyze(bare + "\n"), 10)[0].detail == "v3 · 0 entries"


def test_an_entry_without_a_title_is_named_entry() -> None:
    text = doc(header(), entry("", "x1", None), user("x2", "x1"))
    assert outline(analyze(text), 10)[1].name == "(entry)"


def test_a_cycle_is_grouped_with_its_lines_and_what_hangs_off_it() -> None:
    # a <-> b is a cycle; c and d hang off a (not on the cycle, not reachable from a root)
    text = doc(
        header(),
        _custom("a", "b"),
        _custom("b", "a"),
        _custom("c", "a"),
        _custom("d", "a"),
        user("e", None),
    )
    nodes = outline(analyze(text), 100)
    group = next(n for n in nodes if n.kind == "cycle")
    assert (group.name, group.detail, group.line, group.end_line) == (
        "parent cycle",
        "2 entries",
        1,
        2,
    )
    assert _nodes(group.children) == [
        ("custom", 1, 1),  # a branch point off the tree: it covers its own line
        ("branch", 3, 3),
        ("custom", 3, 3),
        ("custom", 4, 4),
        ("custom", 2, 2),
    ]
    assert group.children[0].children[0].detail == "lines 4-4"
    three = doc(header(), _custom("a", "c"), _custom("b", "a"), _custom("c", "b"), user("e", None))
    group = next(n for n in outline(analyze(three), 100) if n.kind == "cycle")
    assert (group.detail, group.line, group.end_line) == ("3 entries", 1, 3)


def test_the_cap_notice_points_at_the_first_entry_left_out() -> None:
    # 9 entries, the active path listed first: l1 (the side branch's end) is left out
    nodes = outline(A, 8)
    notice = nodes[-1]
    assert (notice.name, notice.detail, notice.kind, notice.line, notice.end_line) == (
        "… 1 more entries not shown (outline cap 8)",
        "raise piLsp.outlineCap to list more",
        "notice",
        5,
        5,
    )
    # with a small cap the active path is listed first: the side branch a1 -> r1 -> l1 is left out
    assert outline(A, 3)[-1].line == 3


def _depths(nodes: list[OutlineNode], depth: int = 0) -> dict[int, int]:
    """The nesting depth (branch groups above it) of each branch group, by its line."""
    out: dict[int, int] = {}
    for n in nodes:
        inner = depth + 1 if n.kind == "branch" else depth
        if n.kind == "branch":
            out[n.line] = inner
        out.update(_depths(n.children, inner))
    return out


def test_side_branches_nest_at_most_24_deep_then_go_to_the_top_level() -> None:
    # r has the side branch d1 and the leaf; each d_k has the side branch d_k+1 and x_k
    n = 30
    chain = [_custom("r", None)]
    chain += [_custom(f"d{k}", f"d{k - 1}" if k > 1 else "r") for k in range(1, n + 1)]
    chain += [_custom(f"x{k}", f"d{k}") for k in range(1, n)]
    a = analyze(doc(header(), *chain, user("leaf", "r")))
    nodes = outline(a, 1000)
    depth = _depths(nodes)
    line = {ident: k for k, ident in a.tree.id_of.items()}
    assert [depth[line[f"d{k}"]] for k in range(1, 26)] == [*range(1, 25), 1]
    top = [x.line for x in nodes if x.kind == "branch"]
    assert top == [line[f"d{k}"] for k in range(25, n + 1)]
    assert [depth[line[f"d{k}"]] for k in range(25, n + 1)] == [1] * (n - 24)


def test_side_branches_in_a_cycle_group_nest_one_level_deeper() -> None:
    # the same comb, hanging off an entry of a parent cycle
    n = 30
    chain = [_custom("a", "b"), _custom("b", "a")]
    chain += [_custom(f"d{k}", f"d{k - 1}" if k > 1 else "a") for k in range(1, n + 1)]
    chain += [_custom(f"x{k}", f"d{k}") for k in range(1, n)]
    a = analyze(doc(header(), *chain, user("leaf", None)))
    nodes = outline(a, 1000)
    line = {ident: k for k, ident in a.tree.id_of.items()}
    # d1 continues a's run; d2 is the first side branch, one level inside the cycle group
    depth = _depths(nodes)
    assert [depth[line[f"d{k}"]] for k in range(2, 26)] == [*range(1, 24), 1]
    assert [x.line for x in nodes if x.kind == "branch"] == [
        line[f"d{k}"] for k in range(25, n + 1)
    ]


def test_side_branches_of_a_hidden_usage_entry_hang_where_it_would_be() -> None:
    text = doc(
        header(),
        user("u1", None),
        js({"type": "usage", "id": "g1", "parentId": "u1", "timestamp": "t", "kind": "k"}),
        user("side", "g1"),
        user("main", "g1"),
    )
    nodes = outline(analyze(text), 100)
    assert _shape(nodes) == [0, 1, (3, [3]), 4]
