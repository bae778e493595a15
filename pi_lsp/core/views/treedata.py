"""The entry tree as people see it (pi 1.6's ``/tree``), and as plain JSON for the editors.

pi 1.6 hides ``usage`` entries from its tree: a usage entry's children show under its
parent. :func:`visible_tree` does the same over the analysed tree, and :func:`tree_json`
(the ``pi-lsp.tree`` command: VS Code's Session Tree, Neovim's ``:PiLspTree``) and
``pi-lsp tree`` both read it. When the leaf itself is hidden, the nearest shown entry above
it stands for it.

Node ids are entry ids; entries without a usable id (v1 files, entries missing ``id``,
all but the last of duplicated ids) get the synthetic id ``L<line>`` (0-based line).
``parentId`` is the id of the nearest shown ancestor (None for roots).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..entries.memo import per_analysis
from ..entries.model import Analysis
from .describe import entry_title, role_of
from .refs import labels

HIDDEN_TYPES = frozenset({"usage"})
"""Entry types pi 1.6 never shows in its tree."""


@dataclass(slots=True)
class VisibleTree:
    """The tree without hidden entries: shown roots, parents and children (file order)."""

    entries: list[int] = field(default_factory=list)
    roots: list[int] = field(default_factory=list)
    parent: dict[int, int | None] = field(default_factory=dict)
    children: dict[int, list[int]] = field(default_factory=dict)
    leaf: int | None = None


@per_analysis
def visible_tree(a: Analysis) -> VisibleTree:
    """The tree of ``a`` with ``usage`` entries left out and their children lifted up."""
    tree = a.tree
    hidden = {line for line in tree.entries if a.infos[line].type in HIDDEN_TYPES}
    out = VisibleTree(entries=[line for line in tree.entries if line not in hidden])
    # pre-order from each root, carrying the nearest shown ancestor
    stack: list[tuple[int, int | None]] = [(r, None) for r in reversed(tree.roots)]
    reached: set[int] = set()
    while stack:
        node, shown_parent = stack.pop()
        reached.add(node)
        below = shown_parent
        if node not in hidden:
            out.parent[node] = shown_parent
            siblings = (
                out.roots if shown_parent is None else out.children.setdefault(shown_parent, [])
            )
            siblings.append(node)
            below = node
        stack.extend((c, below) for c in reversed(tree.children.get(node, ())))
    for line in out.entries:  # entries on a parent cycle: no root reaches them
        if line not in reached:
            out.parent[line] = _shown_ancestor(a, line, hidden)
    leaf = tree.leaf
    out.leaf = leaf if leaf is None or leaf not in hidden else _shown_ancestor(a, leaf, hidden)
    return out


def _shown_ancestor(a: Analysis, line: int, hidden: set[int]) -> int | None:
    seen = {line}
    current = a.tree.parent.get(line)
    while current is not None and current in hidden and current not in seen:
        seen.add(current)
        current = a.tree.parent.get(current)
    return None if current in seen else current


def node_id(a: Analysis, line: int) -> str:
    """The id of the node for ``line`` (see module docstring)."""
    ident = a.tree.id_of.get(line)
    if ident is not None and a.tree.ids.get(ident) == line:
        return ident
    return f"L{line}"


def tree_json(a: Analysis) -> dict[str, Any]:
    """``{"leafId", "roots", "nodes"}`` describing every shown entry in file order."""
    tree = a.tree
    shown = visible_tree(a)
    marks = labels(a)
    nodes = []
    for line in shown.entries:
        obj = a.infos[line].obj
        parent = shown.parent.get(line)
        nodes.append(
            {
                "id": node_id(a, line),
                "line": line,
                "parentId": node_id(a, parent) if parent is not None else None,
                "type": obj.get("type"),
                "role": role_of(obj) if obj.get("type") == "message" else None,
                "title": entry_title(a, line),
                "labels": [marks[line]] if line in marks else [],
                "isLeaf": line == shown.leaf,
                "onActivePath": line in tree.active_set,
                "children": [node_id(a, c) for c in shown.children.get(line, ())],
            }
        )
    return {
        "leafId": node_id(a, shown.leaf) if shown.leaf is not None else None,
        "roots": [node_id(a, r) for r in shown.roots],
        "nodes": nodes,
    }
