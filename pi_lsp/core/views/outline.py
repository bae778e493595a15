"""The document outline: the entry tree as nested symbols.

Linear runs stay flat. At a branch point the run continues with the child on the active
path (or the newest child when the active path does not pass there), and every other
child becomes a nested ``branch`` node under the branch point holding its own run. Names
come from entry titles, labels and the session name; the leaf is marked. ``usage``
entries are hidden, as pi 1.6 hides them from its tree (unless one is the leaf). At most
``cap`` entries are listed, followed by a notice node saying how many were left out.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field

from ..entries.model import Analysis
from ..entries.tree import Tree
from .describe import clip, entry_title, kind_label, session_name
from .numbering import shown
from .refs import labels

MAX_NEST = 24
"""Branch groups nest at most this deep; deeper side branches are listed at the top level."""

NAME_LIMIT = 72


@dataclass(slots=True)
class OutlineNode:
    """One symbol: ``kind`` is a role, an entry type, or header/branch/cycle/notice.

    It covers lines ``line`` to ``end_line``; ``line`` is the line to select.
    """

    name: str
    detail: str
    kind: str
    line: int
    end_line: int
    children: list[OutlineNode] = field(default_factory=list)


def _subtree_ends(tree: Tree) -> array[int]:
    """The last line of each entry's subtree, by line (-1 where the Euler tour does not
    reach: see :func:`_end`), in post-order (by ``tout``).

    Only entries reachable from a root are numbered, and their children are too (with an
    earlier ``tout``), so every child's end is known before its parent's.
    """
    tout, numbered = tree.tout, tree.numbered
    post = array("i", [-1]) * tree.clock
    for node in tree.entries:
        if numbered(node):
            post[tout[node]] = node
    ends = array("i", [-1]) * len(tout)
    kids_of = tree.children.get
    for node in post:
        if node >= 0:
            end = node
            for kid in kids_of(node, ()):
                end = max(end, ends[kid])
            ends[node] = end
    return ends


def _end(ends: array[int], line: int) -> int:
    """The last line of ``line``'s subtree (``line`` itself where the tour does not reach)."""
    end = ends[line] if line < len(ends) else -1
    return end if end >= 0 else line


def _entry_node(a: Analysis, line: int, label: str | None, end: int) -> OutlineNode:
    tree = a.tree
    title = entry_title(a, line, NAME_LIMIT)
    name = f"[{clip(label, 30)}] {title}" if label else title
    if line == tree.leaf:
        name += "  ◀ leaf"
    detail = f"line {shown(line)}"
    if line in tree.id_of:
        detail += f" · {clip(tree.id_of[line], 20)}"
    return OutlineNode(name or "(entry)", detail, kind_label(a.infos[line].obj), line, end)


def _header_node(a: Analysis, line: int) -> OutlineNode:
    """The header's node: the session's name (or id), version, entries and leaf (read
    without the totals, which count every entry)."""
    ident = a.header.get("id")
    ident = clip(ident, 80) if isinstance(ident, str) else None
    name = session_name(a) or (f"session {ident}" if ident else "session")
    detail = f"v{a.version} · {len(a.tree.entries)} entries"
    if a.tree.leaf is not None:
        detail += f" · leaf on line {shown(a.tree.leaf)}"
    return OutlineNode(clip(name, NAME_LIMIT), detail, "header", line, line)


def outline(a: Analysis, cap: int) -> list[OutlineNode]:
    """The outline of ``a`` with at most ``cap`` entry nodes (plus a notice when capped)."""
    tree = a.tree
    top: list[OutlineNode] = []
    if a.header_line is not None:
        top.append(_header_node(a, a.header_line))
    ends = _subtree_ends(tree)
    marks = labels(a)
    listed: set[int] = set()
    tasks: list[tuple[list[OutlineNode], int, int]] = [(top, r, 0) for r in reversed(tree.roots)]
    cycle = sorted(tree.cycle)
    if cycle:
        group = OutlineNode("parent cycle", f"{len(cycle)} entries", "cycle", cycle[0], cycle[-1])
        top.append(group)
        tasks[:0] = [(group.children, line, 1) for line in reversed(cycle)]
    while tasks and len(listed) < cap:
        target, line, depth = tasks.pop()
        while line not in listed and len(listed) < cap:
            listed.add(line)
            node = _entry_node(a, line, marks.get(line), line)
            hidden = a.infos[line].obj.get("type") == "usage" and line != tree.leaf
            if not hidden:
                target.append(node)
            kids = [k for k in tree.children.get(line, ()) if k not in tree.cycle]
            if not kids:
                break
            main = next((k for k in kids if k in tree.active_set), kids[-1])
            side = [k for k in kids if k != main]
            if side:
                node.end_line = _end(ends, line)
            pending = []
            for kid in side:
                title = entry_title(a, kid, NAME_LIMIT - 8)
                group = OutlineNode(
                    f"branch: {title}",
                    f"lines {shown(kid)}-{shown(_end(ends, kid))}",
                    "branch",
                    kid,
                    _end(ends, kid),
                )
                if depth >= MAX_NEST:
                    top.append(group)
                else:  # a hidden usage entry's side branches hang where it would have been
                    (target if hidden else node.children).append(group)
                pending.append((group.children, kid, depth + 1))
            tasks.extend(reversed(pending))
            line = main
    left = len(tree.entries) - len(listed)
    if left > 0:
        first = next(line for line in tree.entries if line not in listed)  # listed ⊆ entries
        top.append(
            OutlineNode(
                f"… {left} more entries not shown (outline cap {cap})",
                "raise piLsp.outlineCap to list more",
                "notice",
                first,
                first,
            )
        )
    return top
