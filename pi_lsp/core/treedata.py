"""The entry tree as plain JSON, for the ``pi-lsp.tree`` command and the command line.

Node ids are entry ids; entries without a usable id (v1 files, entries missing ``id``,
all but the last of duplicated ids) get the synthetic id ``L<line>`` (0-based line).
``parentId`` is the id of the parent node the tree resolved (None for roots).
"""

from __future__ import annotations

from typing import Any

from .describe import entry_title, role_of
from .model import Analysis
from .refs import labels


def node_id(a: Analysis, line: int) -> str:
    """The id of the node for ``line`` (see module docstring)."""
    ident = a.tree.id_of.get(line)
    if ident is not None and a.tree.ids.get(ident) == line:
        return ident
    return f"L{line}"


def tree_json(a: Analysis) -> dict[str, Any]:
    """``{"leafId", "roots", "nodes"}`` describing every entry of the tree in file order."""
    tree = a.tree
    marks = labels(a)
    nodes = []
    for line in tree.entries:
        obj = a.infos[line].obj
        parent = tree.parent.get(line)
        nodes.append(
            {
                "id": node_id(a, line),
                "line": line,
                "parentId": node_id(a, parent) if parent is not None else None,
                "type": obj.get("type"),
                "role": role_of(obj) if obj.get("type") == "message" else None,
                "title": entry_title(a, line),
                "labels": [marks[line]] if line in marks else [],
                "isLeaf": line == tree.leaf,
                "onActivePath": line in tree.active_set,
                "children": [node_id(a, c) for c in tree.children.get(line, ())],
            }
        )
    return {
        "leafId": node_id(a, tree.leaf) if tree.leaf is not None else None,
        "roots": [node_id(a, r) for r in tree.roots],
        "nodes": nodes,
    }
