"""``pi-lsp tree FILE [--width N] [--depth N] [--active]``: the entry tree, as pi's ``/tree``.

Linear runs stay flat; where an entry has several children each branch is indented under
``├─``/``└─`` connectors with ``│`` gutters, the branch holding the leaf first (pi's
order). Entries on the active path are marked ``•``, labels shown as ``[label]`` and the
leaf (where pi resumes) as ``← leaf``; every row starts with the entry's 1-based line
number. ``usage`` entries are hidden, as pi 1.6 hides them (their children show under
their parent).

Every row fits the width (the terminal's, else 200 columns; ``--width 0``: no limit; East
Asian wide characters count two): titles are cut with ``…``, and where branches nest so
deep that their gutters would take more than half the row, the outer levels fold into
``[+N]`` (N levels not drawn). ``--depth N`` leaves out entries nested more than N branch
levels deep (one row says how many); ``--active`` shows only the active path. The work is
linear in the number of entries, whatever the nesting.

A file pi does not open as a session (empty, no header first, ...): the entries it has are
still drawn, the reason (``check``'s PI100) goes to stderr and the exit status is 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, NamedTuple

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.checks.gcpause import gc_paused
from pi_lsp.core.edits import refactor
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.pi.loading import analysis_refusal
from pi_lsp.core.text.files import read_lines
from pi_lsp.core.views.describe import entry_title, object_title
from pi_lsp.core.views.treedata import visible_tree

from ..arguments import whole_number
from ..opening import read_or_say
from ..pipes import quiet_broken_pipe
from ..terminal import columns, counted, fit, output_width

NUMBER = 9
"""Columns of the line-number column (7 digits and two spaces)."""
LEAF = "  ← leaf"
MIN_WIDTH = 40


def add_parser(sub: Any) -> None:
    """Register the ``tree`` subcommand."""
    p = sub.add_parser("tree")
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument(
        "--width",
        type=whole_number(MIN_WIDTH, zero="no limit"),
        default=None,
        metavar="N",
        help="columns per row (default: the terminal's, else 200; 0: no limit)",
    )
    p.add_argument(
        "--depth",
        type=whole_number(0),
        default=None,
        metavar="N",
        help="leave out entries nested more than N branch levels deep",
    )
    p.add_argument("--active", action="store_true", help="only the active path (root → leaf)")
    p.set_defaults(run=run)


class _Gutter(NamedTuple):
    """One ``│`` column of an open branch; a linked list, deepest first, shared by rows."""

    position: int
    show: bool
    outer: _Gutter | None


class _Row(NamedTuple):
    line: int
    display: int
    connector: bool
    last: bool
    gutters: _Gutter | None


def _rows(a: Analysis) -> list[_Row]:
    """pi's ``flattenTree`` over the shown tree: pre-order rows with indents and gutters."""
    shown = visible_tree(a)
    active = a.tree.active_set
    kids = shown.children

    def ordered(nodes: list[int]) -> list[int]:
        if len(nodes) < 2:
            return nodes
        return sorted(nodes, key=lambda n: n not in active)  # the branch to the leaf first

    roots = ordered(shown.roots)
    many = len(roots) > 1
    none: _Gutter | None = None
    stack = [
        (root, 1 if many else 0, many, many, n == len(roots) - 1, none, many)
        for n, root in enumerate(roots)
    ][::-1]
    rows: list[_Row] = []
    new_row = _Row._make
    while stack:
        node, indent, just_branched, connector, last, gutters, virtual = stack.pop()
        display = max(0, indent - 1) if many else indent
        rows.append(new_row((node, display, connector and not virtual, last, gutters)))
        children = ordered(kids.get(node, []))
        several = len(children) > 1
        child_indent = indent + 1 if several or (just_branched and indent > 0) else indent
        if connector and not virtual:
            gutters = _Gutter(max(0, display - 1), not last, gutters)
        end = len(children) - 1
        stack.extend(
            (children[n], child_indent, several, several, n == end, gutters, False)
            for n in range(end, -1, -1)
        )
    return rows


class _Prefixes:
    """Row prefixes (gutters and connector), folded to about ``budget`` columns (0: never).

    Each gutter's text (its cells, the last ``cells`` of them) is built once from its outer
    gutter's, so a row costs the same however deep it is nested.
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.cells = budget // 3 + 1 if budget > 0 else 0
        self.text: dict[int, str] = {}

    def _gutter_text(self, gutter: _Gutter) -> str:
        chain = []
        node: _Gutter | None = gutter
        while node is not None and id(node) not in self.text:
            chain.append(node)
            node = node.outer
        for g in reversed(chain):
            cell = "│  " if g.show else "   "
            outer = g.outer
            if outer is None:
                text = "   " * g.position + cell
            elif outer.position == g.position:  # the deeper gutter wins
                text = self.text[id(outer)][:-3] + cell
            else:
                gap = g.position - outer.position - 1
                text = self.text[id(outer)] + "   " * min(gap, self.cells or gap) + cell
            self.text[id(g)] = text[-3 * self.cells :] if self.cells else text
        return self.text[id(gutter)]

    def __call__(self, row: _Row) -> str:
        levels = row.display
        gutter = row.gutters
        text = "" if gutter is None else self._gutter_text(gutter)
        covered = 0 if gutter is None else gutter.position + 1
        gap = levels - covered
        text += "   " * (min(gap, self.cells) if self.cells else gap)
        if row.connector and levels > 0 and covered < levels:  # a gutter wins over it
            text = text[:-3] + ("└─ " if row.last else "├─ ")
        if self.budget > 0 and levels * 3 > self.budget:
            keep = max(1, (self.budget - 7) // 3)
            return f"[+{levels - keep}] " + text[-3 * keep :]
        return text


def render(
    a: Analysis, width: int = 0, depth: int | None = None, active_only: bool = False
) -> list[str]:
    """The tree of ``a`` as text lines (header first, then every shown entry).

    ``width`` 0 means no limit; see the module docstring for ``depth`` and ``active_only``.
    """
    out = []
    if a.header_line is not None:
        out.append(_fit(f"{a.header_line + 1:>7}  {object_title(a.header)}", width))
    label_of = (
        {
            a.tree.ids[k]: v
            for k, (v, _) in refactor.current_labels(a).items()
            if k in a.tree.ids and isinstance(v, str)
        }
        if any(a.infos[line].type == "label" for line in a.tree.entries)
        else {}
    )
    leaf = visible_tree(a).leaf
    active = a.tree.active_set
    prefixes = _Prefixes((width - NUMBER) // 2 if width else 0)
    shown: set[int] = set()
    deeper = 0
    for row in _rows(a):
        line = row.line
        shown.add(line)
        on_path = line in active
        if active_only and not on_path:
            continue
        if depth is not None and row.display > depth:
            deeper += 1
            continue
        marker = "• " if on_path else ""
        label = f"[{label_of[line]}] " if line in label_of else ""
        tail = LEAF if line == leaf else ""
        prefix = "" if active_only else prefixes(row)  # narrow characters only
        title = entry_title(a, line)
        room = width - NUMBER - len(prefix) - len(marker) - len(tail) if width else 1
        if width:
            room -= columns(label) if label else 0
            title = fit(title, room) if room > 0 else ""
        row_text = f"{line + 1:>7}  {prefix}{marker}{label}{title}{tail}"
        out.append(row_text if room > 0 else fit(row_text, width))
    if deeper and depth is not None:
        nested = counted(deeper, "entry", "entries")
        out.append(f"{'':>7}  … {nested} nested more than {counted(depth, 'branch level')} deep")
    for line in visible_tree(a).entries:
        if line not in shown and not active_only:
            out.append(_fit(f"{line + 1:>7}  (in a parent cycle) {entry_title(a, line)}", width))
    return out


def _fit(text: str, width: int) -> str:
    return fit(text, width) if width else text


def run(args: argparse.Namespace) -> int:
    """Print the tree of FILE."""
    path: Path = args.file
    lines = read_or_say("tree", path, read_lines)
    if lines is None:
        return 2
    # one pause of the collector for the analysis and the rendering (which would otherwise
    # walk every parsed value for cycles it does not hold), ended once the analysis is freed
    with gc_paused():
        a = analyze(lines, path=str(path))
        refused = analysis_refusal(a)  # the other dialect (book) has a tree of its own
        reason = None if refused is None or refused.kind == "book" else refused.reason
        width = args.width if args.width is not None else output_width(sys.stdout)
        rows = render(a, width, args.depth, args.active)
        del a
    if reason is not None:
        print(f"pi-lsp tree: {path}: {reason}", file=sys.stderr)
    try:
        sys.stdout.write("".join(line + "\n" for line in rows))
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_broken_pipe()
    return 0 if reason is None else 1
