"""Inlay hints for links: the parent's line where it is not the previous entry, and the
line a compaction, label or branch summary points at (tool results are left alone: their
call is almost always a line or two above).

Hints sit right after the link value. A ``parentId`` of null on an entry that is not the
first one is a new root (a leaf reset) and says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..entries.lines import Kind
from ..entries.model import Analysis
from .describe import entry_title
from .numbering import shown
from .refs import TOOL_RESULT_FIELDS, line_sites, resolve, span_of


@dataclass(frozen=True, slots=True)
class Hint:
    """A hint ``label`` at ``(line, column)`` (code points), with a longer ``tooltip``."""

    line: int
    column: int
    label: str
    tooltip: str


def _previous_entry(a: Analysis, line: int) -> int | None:
    for prev in range(line - 1, -1, -1):
        if a.infos[prev].kind is Kind.ENTRY:
            return prev
        if a.infos[prev].kind is Kind.HEADER:
            return None
    return None


def link_hints(a: Analysis, first: int, last: int) -> list[Hint]:
    """The hints on lines ``first``..``last`` (inclusive)."""
    out: list[Hint] = []
    first = max(first, 0)
    last = min(last, len(a.infos) - 1)
    for line in range(first, last + 1):
        info = a.infos[line]
        if info.kind is not Kind.ENTRY:
            continue
        is_root = a.version >= 2 and "parentId" in info.obj and info.obj["parentId"] is None
        if is_root and _previous_entry(a, line) is not None:
            end = span_of(a, line, ("parentId",)).end
            out.append(Hint(line, end, "new root", "parentId is null: a new root (leaf reset)"))
        # (parentSession, the one link without a line, is on the header: not hinted)
        for site in [s for s in line_sites(a, line) if s.field not in TOOL_RESULT_FIELDS]:
            targets = resolve(a, site)
            if not targets or targets[0].line is None:
                continue
            target = targets[0].line
            if site.field == "parentId" and target == _previous_entry(a, line):
                continue
            arrow = "↑" if target < line else "↓"
            end = span_of(a, line, site.path).end
            tooltip = f"{site.field} → line {shown(target)}: {entry_title(a, target)}"
            out.append(Hint(line, end, f"{arrow} line {shown(target)}", tooltip))
    return out
