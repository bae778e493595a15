"""Rename an entry id or a tool call id together with every link that names it.

Edits replace whole JSON string values (quotes included) and touch nothing else on the
line. Entry renames follow resolution: the entry under the cursor and the links that
resolve to it; tool call renames change every toolCall block and toolResult with the id.
"""

from __future__ import annotations

from ..entries.model import Analysis
from ..text.jsontext import dumps
from ..text.textedit import TextEdit
from ..views.refs import ID_FIELDS, Subject, index, references_to, span_of, subject_at, tool_sites


class RenameError(ValueError):
    """The new name cannot be used; the message says why."""


def _renamable(a: Analysis, line: int, column: int) -> tuple[Subject, str] | None:
    subject = subject_at(a, line, column)
    if subject is None or (subject.site is None and not subject.declaration):
        return None
    if subject.tool_id is not None:  # only a tool call subject has one
        return subject, subject.tool_id
    if subject.line is None:  # a session file
        return None
    if subject.site is not None and subject.site.field not in ID_FIELDS:
        return None  # firstKeptEntryIndex, or a book link
    # an entry's own id, or a link that resolved by id: the line has that id
    return subject, a.tree.id_of[subject.line]


def prepare_rename(a: Analysis, line: int, column: int) -> tuple[int, int, str] | None:
    """The span inside the quotes under the cursor and the current name, if renamable."""
    found = _renamable(a, line, column)
    if found is None:
        return None
    subject, name = found
    start, end = subject.span
    return start + 1, end - 1, name


def rename(a: Analysis, line: int, column: int, new_name: str) -> list[TextEdit]:
    """The edits that rename the id under the cursor to ``new_name`` (empty if not renamable)."""
    found = _renamable(a, line, column)
    if found is None:
        return []
    subject, old = found
    if new_name == old:
        return []
    if not new_name:
        raise RenameError("an id cannot be empty")
    text = dumps(new_name)
    spans: list[tuple[int, tuple[str | int, ...]]]
    if subject.kind == "tool":
        calls, results = tool_sites(a, old)
        taken = index(a).calls.get(new_name)
        if taken:
            raise RenameError(f"tool call id '{new_name}' is already used on line {taken[0][0] + 1}")
        spans = [(n, ("message", "content", b, "id")) for n, b in calls]
        spans += [(site.line, site.path) for site in results]
    else:
        target = subject.line
        assert target is not None
        if new_name in a.tree.ids:
            other = a.tree.ids[new_name]
            raise RenameError(f"id '{new_name}' is already used on line {other + 1}")
        if new_name == "root":
            raise RenameError('"root" is reserved: branch_summary fromId "root" means no entry')
        spans = [(target, ("id",))]
        spans += [(s.line, s.path) for s in references_to(a, target) if s.field in ID_FIELDS]
    edits = set()
    for n, path in spans:
        span = span_of(a, n, path)
        edits.add(TextEdit.replace(n, span.start, span.end, text))
    return sorted(edits, key=lambda e: (e.start, e.end))
