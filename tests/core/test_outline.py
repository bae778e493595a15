"""The document outline: flat runs, nested side branches, names, the leaf, the cap."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.core.analysis import analyze
from pi_lsp.core.outline import OutlineNode, outline

from .features_sample import LINES, PATH, TEXT

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
