"""Folding by turn: a user message and the entries after it on its branch.

A turn starts at a user message and extends over the following lines while they are
entries below it in the tree; it ends before the next user message, or before the first
entry that belongs to another branch (a branch summary, a jump back to an earlier entry).
Lines that are not entries (blank, broken) inside a turn are folded with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..entries.lines import Kind
from ..entries.model import Analysis
from .describe import entry_title


@dataclass(frozen=True, slots=True)
class Fold:
    """Lines ``start``..``end`` fold into ``title``."""

    start: int
    end: int
    title: str


def turn_folds(a: Analysis) -> list[Fold]:
    """One fold per turn that spans more than one line, in file order."""
    out: list[Fold] = []
    start: int | None = None
    last: int  # set when a turn opens, read only while one is open

    def close() -> None:
        if start is not None and last > start:
            out.append(Fold(start, last, entry_title(a, start)))

    for line, info in enumerate(a.infos):
        if info.kind is not Kind.ENTRY:
            continue
        if info.type == "message" and info.role == "user":  # the line's facts: no parse
            close()
            start, last = line, line
        elif start is not None and a.tree.is_ancestor(start, line):
            last = line
        else:
            close()
            start = None
    close()
    return out
