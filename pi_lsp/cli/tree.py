"""``pi-lsp tree FILE``: the entry tree as text, laid out like pi's ``/tree`` view.

Linear runs stay flat; where an entry has several children each branch is indented under
``├─``/``└─`` connectors with ``│`` gutters, the branch holding the leaf first (pi's
order). Entries on the active path are marked ``•``, labels shown as ``[label]`` and the
leaf (where pi resumes) as ``← leaf``; every row starts with the entry's line number.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_lsp.core import refactor
from pi_lsp.core.analysis import analyze
from pi_lsp.core.describe import entry_title, object_title
from pi_lsp.core.edits import read_snapshot
from pi_lsp.core.model import Analysis


def add_parser(sub: Any) -> None:
    """Register the ``tree`` subcommand."""
    p = sub.add_parser("tree", help="print the entry tree (branches, labels, leaf)")
    p.add_argument("file", type=Path, metavar="FILE")
    p.set_defaults(run=run)


@dataclass(frozen=True, slots=True)
class _Row:
    line: int
    indent: int
    connector: bool
    last: bool
    gutters: tuple[tuple[int, bool], ...]
    virtual_child: bool


def _rows(a: Analysis) -> list[_Row]:
    """pi's ``flattenTree``: pre-order rows with indents, connectors and gutters."""
    tree = a.tree
    leaf = tree.leaf

    def holds_leaf(node: int) -> bool:
        return leaf is not None and tree.is_ancestor(node, leaf)

    roots = sorted(tree.roots, key=lambda r: not holds_leaf(r))
    many = len(roots) > 1
    none: tuple[tuple[int, bool], ...] = ()
    stack = [
        (root, 1 if many else 0, many, many, n == len(roots) - 1, none, many)
        for n, root in enumerate(roots)
    ][::-1]
    rows: list[_Row] = []
    while stack:
        node, indent, just_branched, connector, last, gutters, virtual = stack.pop()
        rows.append(_Row(node, indent, connector, last, gutters, virtual))
        children = sorted(tree.children.get(node, ()), key=lambda c: not holds_leaf(c))
        several = len(children) > 1
        child_indent = indent + 1 if several or (just_branched and indent > 0) else indent
        display = max(0, indent - 1) if many else indent
        if connector and not virtual:
            gutters = (*gutters, (max(0, display - 1), not last))
        for n in range(len(children) - 1, -1, -1):
            stack.append(
                (
                    children[n],
                    child_indent,
                    several,
                    several,
                    n == len(children) - 1,
                    gutters,
                    False,
                )
            )
    return rows


def _prefix(row: _Row, many_roots: bool) -> str:
    display = max(0, row.indent - 1) if many_roots else row.indent
    connector = row.connector and not row.virtual_child
    at = display - 1 if connector else -1
    gutters = dict(row.gutters)
    chars = []
    for i in range(display * 3):
        level, pos = divmod(i, 3)
        if level in gutters:
            chars.append(("│" if gutters[level] else " ") if pos == 0 else " ")
        elif level == at:
            chars.append(("└" if row.last else "├") if pos == 0 else "─" if pos == 1 else " ")
        else:
            chars.append(" ")
    return "".join(chars)


def render(a: Analysis) -> list[str]:
    """The tree of ``a`` as text lines (header first, then every reachable entry)."""
    out = []
    if a.header_line is not None:
        out.append(f"{a.header_line + 1:>7}  {object_title(a.header)}")
    label_of = {
        a.tree.ids[k]: v
        for k, (v, _) in refactor.current_labels(a).items()
        if k in a.tree.ids and isinstance(v, str)
    }
    many = len(a.tree.roots) > 1
    shown = set()
    for row in _rows(a):
        shown.add(row.line)
        marker = "• " if row.line in a.tree.active_set else ""
        label = f"[{label_of[row.line]}] " if row.line in label_of else ""
        tail = "  ← leaf" if row.line == a.tree.leaf else ""
        text = f"{_prefix(row, many)}{marker}{label}{entry_title(a, row.line)}{tail}"
        out.append(f"{row.line + 1:>7}  {text}")
    for line in a.tree.entries:
        if line not in shown:
            out.append(f"{line + 1:>7}  (in a parent cycle) {entry_title(a, line)}")
    return out


def run(args: argparse.Namespace) -> int:
    """Print the tree of FILE."""
    path: Path = args.file
    try:
        text, _ = read_snapshot(path)
    except OSError as exc:
        print(f"pi-lsp tree: {path}: cannot read: {exc.strerror or exc}", file=sys.stderr)
        return 2
    a = analyze(text, path=str(path))
    sys.stdout.write("".join(line + "\n" for line in render(a)))
    return 0
