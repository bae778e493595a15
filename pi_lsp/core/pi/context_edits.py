"""What a ``context_edit`` entry does to its target, as pi 1.6's projection applies it.

A context edit (pi ≥ 1.0, ``appendContextEdit``) names a ``targetId`` and a
``replacement``: ``null`` omits the target's messages from the model's context,
``{content}`` replaces the content of its user, assistant, tool-result or custom message.
``buildSessionProjection`` applies, for each target, the latest edit among the context
entries of the leaf's path, so an edit only acts on entries of its own path that survive
the newest compaction (the compaction at the head, the kept range without system
messages, and everything after it). :func:`effect` tells, for the path that ends at the
edit itself, what the edit does, or why it does nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from ..entries.lines import Kind
from .loading import js_truthy

if TYPE_CHECKING:
    from ..entries.model import Analysis

Action = Literal["omit", "replace", "none"]
Reason = Literal["", "missing", "off-path", "summarised", "no-message", "not-editable"]

EDITABLE_ROLES = frozenset({"user", "assistant", "toolResult", "custom", "hookMessage"})
"""Message roles whose content a non-null replacement changes (``hookMessage`` migrates to ``custom``)."""


class EditEffect(NamedTuple):
    """What the edit on ``line`` does: ``action`` on the ``target`` line, or why nothing.

    ``compaction`` is the line of the newest compaction on the edit's path when its kept
    range leaves the target out (reason ``"summarised"``).
    """

    line: int
    target_id: str
    target: int | None
    action: Action
    reason: Reason = ""
    compaction: int | None = None


def _messages_of(obj: dict[str, Any]) -> list[Any]:
    """The roles of the messages an entry contributes (``sessionEntryToContextMessages``)."""
    etype = obj.get("type")
    if etype == "message":
        message = obj.get("message")
        return [message.get("role") if isinstance(message, dict) else None]
    if etype == "custom_message":
        return ["custom"]
    if etype == "branch_summary":
        summary = obj.get("summary")
        return ["branchSummary"] if js_truthy(summary) else []
    if etype == "compaction":
        # its checkpoint system message, when it has one, is not editable either
        return ["compactionSummary"]
    return []


def _is_system(obj: dict[str, Any]) -> bool:
    message = obj.get("message")
    return (
        obj.get("type") == "message"
        and isinstance(message, dict)
        and message.get("role") == "system"
    )


def newest_compaction(a: Analysis, line: int, comps: list[int] | None = None) -> int | None:
    """The newest compaction on the path from the root to ``line`` (``line`` included);
    ``comps`` are the compaction lines when the caller has them."""
    best: int | None = None
    tree = a.tree
    for c in compactions(a) if comps is None else comps:
        # an ancestor of ``line`` is numbered (has a depth) unless it is ``line`` itself,
        # and then it is the only candidate
        if tree.is_ancestor(c, line) and (best is None or tree.depth[c] > tree.depth[best]):
            best = c
    return best


def compactions(a: Analysis) -> list[int]:
    """The lines of every compaction entry."""
    return [line for line in a.tree.entries if a.infos[line].type == "compaction"]


def in_context(a: Analysis, target: int, leaf: int, comps: list[int] | None = None) -> bool:
    """True when ``target`` (an ancestor of ``leaf``) is among ``buildContextEntries(leaf)``
    and contributes messages there (an older compaction inside the kept range does not)."""
    tree = a.tree
    c = newest_compaction(a, leaf, comps)
    if c is None or tree.is_ancestor(c, target):
        return True  # no compaction, the compaction itself (the head), or after it
    # before the compaction (a proper ancestor of it): in the kept range or summarised. A
    # kept entry that is the compaction itself, after it or on another branch is no
    # ancestor of the target, so it keeps nothing here.
    if a.infos[target].obj.get("type") == "compaction":
        return False
    kept_id = a.infos[c].obj.get("firstKeptEntryId")
    kept = tree.ids.get(kept_id) if isinstance(kept_id, str) else None
    return (
        kept is not None and tree.is_ancestor(kept, target) and not _is_system(a.infos[target].obj)
    )


def effect(a: Analysis, line: int, comps: list[int] | None = None) -> EditEffect | None:
    """What the ``context_edit`` on ``line`` does on its own path; None for other lines.

    ``comps`` (:func:`compactions`) saves recomputing them when many edits are checked.
    """
    if not 0 <= line < len(a.infos) or a.infos[line].kind is not Kind.ENTRY:
        return None
    obj = a.infos[line].obj
    ref = obj.get("targetId")
    if obj.get("type") != "context_edit" or not isinstance(ref, str):
        return None
    tree = a.tree
    target = tree.ids.get(ref)
    if target is None:
        return EditEffect(line, ref, None, "none", "missing")
    if target == line or not tree.is_ancestor(target, line):
        return EditEffect(line, ref, target, "none", "off-path")
    if not in_context(a, target, line, comps):
        return EditEffect(
            line, ref, target, "none", "summarised", newest_compaction(a, line, comps)
        )
    roles = _messages_of(a.infos[target].obj)
    if not roles:
        return EditEffect(line, ref, target, "none", "no-message")
    if obj.get("replacement", 0) is None:
        return EditEffect(line, ref, target, "omit")
    if not any(isinstance(role, str) and role in EDITABLE_ROLES for role in roles):
        return EditEffect(line, ref, target, "none", "not-editable")
    return EditEffect(line, ref, target, "replace")
