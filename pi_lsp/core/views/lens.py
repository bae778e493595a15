"""Code lenses: session totals on the header, branch points, compactions and the leaf.

Lenses are informational (a title on a line); the protocol layer decides whether they
run a command.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..entries.model import Analysis
from .describe import session_totals
from .hovers import heaviest_text, split_text
from .numbering import shown
from .refs import line_sites, resolve


@dataclass(frozen=True, slots=True)
class Lens:
    """A lens titled ``title`` above ``line``."""

    line: int
    title: str


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else plural or word + 's'}"


def code_lenses(a: Analysis) -> list[Lens]:
    """Every lens of the document, in line order."""
    out: list[Lens] = []
    tree = a.tree
    if a.header_line is not None:
        t = session_totals(a)
        title = (
            f"{_plural(t.entries, 'entry', 'entries')} · {_plural(t.branches, 'branch point')} · "
            f"{_plural(t.leaves, 'leaf', 'leaves')} · {_plural(t.compactions, 'compaction')} · "
            f"{t.usage.total:,} tokens · ${t.usage.cost:.4f}"
        )
        if (split := split_text(t.split, tokens=False)) is not None:
            title += f" · {split}"
        out.append(Lens(a.header_line, title))
        heavy = heaviest_text(a)
        if heavy is not None:
            out.append(Lens(a.header_line, heavy))
    for line in tree.entries:
        kids = tree.children.get(line, [])
        if len(kids) > 1:
            where = ", ".join(str(shown(k)) for k in kids[:8]) + (" …" if len(kids) > 8 else "")
            out.append(Lens(line, f"⑂ branch point: {len(kids)} branches (lines {where})"))
        if a.infos[line].obj.get("type") == "compaction":
            for site in line_sites(a, line):
                if site.field in ("firstKeptEntryId", "firstKeptEntryIndex"):
                    targets = resolve(a, site)
                    kept = (
                        f"keeps from line {shown(targets[0].line)}"
                        if targets and targets[0].line is not None
                        else "keeps nothing before it"
                    )
                    out.append(Lens(line, f"compaction: {kept}"))
        if line == tree.leaf:
            out.append(
                Lens(
                    line,
                    f"◀ leaf: pi resumes here ({_plural(len(tree.active), 'entry', 'entries')} on the active path)",
                )
            )
    return out
