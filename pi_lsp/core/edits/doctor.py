"""The session doctor: edits that let a session resume again (PI421, PI423-PI425).

Each function computes minimal text edits for one repair, or returns None when the
repair does not apply here; :mod:`pi_lsp.core.edits.repairs` offers them as quick fixes and
:mod:`pi_lsp.core.edits.autofix` applies them from the command line. None deletes an entry.

- :func:`kept_range_start`: a compaction whose kept range starts inside a tool exchange
  keeps from the assistant turn that holds the call instead (pi's own cut points never
  fall on a tool result).
- :func:`move_after_results`: messages pi sends as user messages between an assistant's
  tool calls and their results are re-parented after the results, and the entries that
  followed the last result follow the moved messages. Their lines move to just after the
  last result, so parents still precede children and pi loads every entry, in the order
  it would have written them.
- :func:`omit_results`: the results of a call that a context edit removed, or that pi-ai
  drops with its aborted turn, are omitted too by appended ``context_edit`` entries
  (``replacement: null``), as pi's ``appendContextEdit`` writes them on the resumed path.
- :func:`narrow_edit`: a context edit on an assistant turn keeps its tool calls.
- :func:`answer_calls`: each unanswered call of a turn gets the result pi-ai would send
  for it (``"No result provided"``, ``isError: true``), written into the session.
- :func:`result_follower`: a call whose result is in the file but on another branch gets
  it back: the entry that follows the result's parent on the active path is re-parented
  to the result.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..checks.pairing import causes_of, first_orphan, message_of, sends_as_user
from ..checks.pairing import tool_calls as pairing_tool_calls  # doctor's own takes a line
from ..entries.model import Analysis
from ..pi import context
from ..pi.loading import UNDEFINED
from ..pi.sent import NO_RESULT, request
from ..text.textedit import (
    TextEdit,
    append_lines,
    apply_edits,
    delete_lines,
    fresh_id,
    iso_timestamp,
    js_stringify,
    line_terminator,
    set_members,
)

WALK_LIMIT = 10_000
"""Entries walked up or down the tree from one entry (bounds pathological files)."""


def set_parent(a: Analysis, line: int, parent: int | None) -> list[TextEdit]:
    """Edits making the entry on ``parent`` (None: no parent) the parent of ``line``."""
    value = "null" if parent is None else js_stringify(a.tree.id_of[parent])
    return set_members(a.lines[line], line, [("parentId", value)], after="type")


def _role(a: Analysis, line: int) -> Any:
    return message_of(a.infos[line].obj).get("role")


def tool_calls(a: Analysis, line: int) -> list[dict[str, Any]]:
    """The ``toolCall`` blocks (with a string id) of the assistant message on ``line``."""
    return pairing_tool_calls(a.infos[line].obj)


def _answers(a: Analysis, line: int) -> Any:
    message = message_of(a.infos[line].obj)
    return message.get("toolCallId") if message.get("role") == "toolResult" else UNDEFINED


def _named(a: Analysis, line: int) -> bool:
    """True when the entry's id names it (no later duplicate shadows it)."""
    ident = a.tree.id_of.get(line)
    return ident is not None and a.tree.ids.get(ident) == line


# -- compaction: keep from the turn that holds the call -----------------------------------


def kept_range_start(a: Analysis, compaction: int) -> int | None:
    """The assistant turn the kept range of ``compaction`` should start at: the one holding
    the call of its first orphaned result; None when the range is sound, or when keeping
    from there would still keep an orphan (the exchanges interleave)."""
    obj = a.infos[compaction].obj
    kept_id = obj.get("firstKeptEntryId")
    kept = a.tree.ids.get(kept_id) if isinstance(kept_id, str) else None
    path = a.tree.path_to(compaction)
    if kept is None or kept not in path:
        return None
    # a retain-none compaction keeps only itself: no result in its range, no fault
    fault = first_orphan(a, path, path.index(kept))
    owner = fault[1] if fault is not None else None
    # the owner is on the compaction's path, so its id names it (no later duplicate)
    if owner is None or first_orphan(a, path, path.index(owner)):
        return None
    return owner


def move_kept_range(a: Analysis, compaction: int, start: int) -> list[TextEdit]:
    """Edits setting ``firstKeptEntryId`` of ``compaction`` to the entry on ``start``."""
    ident = js_stringify(a.tree.id_of[start])
    return set_members(a.lines[compaction], compaction, [("firstKeptEntryId", ident)])


# -- interlopers: results first, then the messages ------------------------------------------


@dataclass(frozen=True, slots=True)
class Reorder:
    """Entries between an assistant turn (``call``) and its last result (``tail``), in
    their order on the path (``run``) and in the order that pairs (``order``); ``moved``
    are the messages that go after the results."""

    call: int
    run: tuple[int, ...]
    order: tuple[int, ...]
    moved: tuple[int, ...]

    @property
    def tail(self) -> int:
        """The last tool result of the run (the moved messages go after it)."""
        return self.run[-1]


def reorder_plan(a: Analysis, line: int) -> Reorder | None:
    """How to move the interloping message on ``line`` after the results it separates
    from their call; None unless the entries from the call to the last result form one
    unbranched run (a branch inside it would change what another branch sends)."""
    tree = a.tree
    up: list[int] = []
    node = tree.parent.get(line)
    while node is not None and _role(a, node) != "assistant" and len(up) < WALK_LIMIT:
        up.append(node)
        node = tree.parent.get(node)
    if node is None or _role(a, node) != "assistant":
        return None
    call = node
    calls = {b["id"] for b in tool_calls(a, call)}
    run = [*reversed(up), line]
    current = line
    while len(run) < WALK_LIMIT:
        kids = tree.children.get(current, [])
        if len(kids) != 1 or kids[0] in tree.cycle or _role(a, kids[0]) == "assistant":
            break
        current = kids[0]
        run.append(current)
    last = max((n for n, e in enumerate(run) if _answers(a, e) in calls), default=-1)
    if last < run.index(line):
        return None
    run = run[: last + 1]
    if any(tree.children.get(e) != [nxt] for e, nxt in itertools.pairwise(run)):
        return None
    moved = tuple(e for e in run if sends_as_user(a.infos[e].obj))  # never a compaction
    if not moved or not all(_named(a, e) for e in run) or max(run) != run[-1]:
        return None
    order = tuple(e for e in run if e not in moved) + moved
    return Reorder(call, tuple(run), order, moved)


def move_after_results(a: Analysis, plan: Reorder) -> list[TextEdit]:
    """Edits applying ``plan``: new parents along the run, the moved lines after the tail,
    and the tail's children re-parented to the last moved message."""
    parents = dict(zip(plan.order, (plan.call, *plan.order[:-1]), strict=True))
    edits: list[TextEdit] = []
    for e in plan.order:
        if e not in plan.moved and a.tree.parent.get(e) != parents[e]:
            edits.extend(set_parent(a, e, parents[e]))
    for child in a.tree.children.get(plan.tail, []):
        edits.extend(set_parent(a, child, plan.order[-1]))
    texts = [apply_edits(a.lines[e], _reparent_line(a, e, parents[e])) for e in plan.moved]
    edits.extend(delete_lines(a.text, plan.moved))
    edits.append(_insert_after(a, plan.tail, texts))
    return edits


def _reparent_line(a: Analysis, line: int, parent: int) -> list[TextEdit]:
    """:func:`set_parent` for the text of ``line`` alone (as line 0)."""
    value = js_stringify(a.tree.id_of[parent])
    return set_members(a.lines[line], 0, [("parentId", value)], after="type")


def _insert_after(a: Analysis, line: int, texts: list[str]) -> TextEdit:
    """An edit inserting ``texts`` as whole lines right after ``line``."""
    term = line_terminator(a.text)
    if a.text.terminators[line]:
        return TextEdit.insert(line + 1, 0, "".join(t + term for t in texts))
    return TextEdit.insert(line, len(a.lines[line]), "".join(term + t for t in texts))


# -- context edits: omit the results too, or keep the calls ---------------------------------


def orphaned_by(a: Analysis, cause: int) -> list[int]:
    """Lines of the tool results that the context pi sends for the resumed leaf holds as
    orphans because of the entry on ``cause`` (a context edit or a dropped turn)."""
    entries = context.entries_of(a)
    ctx = context.build_context(entries)
    return [
        found.result
        for found in causes_of(ctx, request(ctx), dict(entries))
        if found.line == cause and found.kind in ("edit", "dropped") and found.result is not None
    ]


def omit_results(a: Analysis, results: Iterable[int], taken: set[str]) -> list[TextEdit]:
    """Edits appending one ``context_edit`` with ``replacement: null`` per result line,
    each the child of the one before, the first the child of the leaf (as pi appends)."""
    leaf = a.tree.leaf
    parent = a.tree.id_of.get(leaf) if leaf is not None else None
    texts = []
    for line in results:
        ident = fresh_id(taken)
        edit = {
            "type": "context_edit",
            "id": ident,
            "parentId": parent,
            "timestamp": iso_timestamp(),
            "targetId": a.tree.id_of[line],
            "replacement": None,
        }
        texts.append(js_stringify(edit))
        parent = ident
    return [append_lines(a.text, texts)] if texts else []


def can_omit(a: Analysis, results: list[int]) -> bool:
    """True when context edits appended at the end can omit ``results``: a v3 session,
    the results named by their ids and on the path of the leaf pi resumes from."""
    return (
        a.version == 3
        and bool(results)
        and a.tree.leaf is not None
        and _named(a, a.tree.leaf)
        and all(_named(a, r) and r in a.tree.active_set for r in results)
    )


def narrow_edit(a: Analysis, edit: int) -> list[TextEdit] | None:
    """Edits making the context edit on ``edit`` keep the tool calls of its target turn."""
    obj = a.value(edit)
    ref = obj.get("targetId") if isinstance(obj, dict) else None
    target = a.tree.ids.get(ref) if isinstance(ref, str) else None
    if target is None or _role(a, target) != "assistant":
        return None
    full = a.value(target)
    calls = pairing_tool_calls(full) if isinstance(full, dict) else []
    replacement = obj.get("replacement")
    if not calls or (replacement is not None and not isinstance(replacement, dict)):
        return None
    kept = replacement.get("content") if isinstance(replacement, dict) else None
    if isinstance(kept, str):
        kept = [{"type": "text", "text": kept}]
    elif not isinstance(kept, list):
        kept = []
    held = {b.get("id") for b in kept if isinstance(b, dict) and b.get("type") == "toolCall"}
    new = {
        **(replacement or {}),
        "content": [*kept, *(c for c in calls if c["id"] not in held)],
    }
    return set_members(a.lines[edit], edit, [("replacement", js_stringify(new))])


# -- dangling calls: the result pi-ai would send ---------------------------------------------


def answer_calls(
    a: Analysis, line: int, taken: set[str], keep: frozenset[str] = frozenset()
) -> list[TextEdit] | None:
    """Edits answering every call of the assistant turn on ``line`` that has no result on
    the active path with pi-ai's synthetic result, but the calls in ``keep`` (whose real
    result is on another branch); None when every call is answered.

    The results go right after the turn's last result (or the turn, or the entries pi
    does not send that follow it), before the next message pi sends; the entry that
    followed there on the active path becomes the child of the last new result.
    """
    path = a.tree.active
    if line not in a.tree.active_set or not _named(a, line):
        return None
    anchor = line
    answered = set()
    for e in path[path.index(line) + 1 :]:
        obj = a.infos[e].obj
        if _role(a, e) == "toolResult":
            answered.add(message_of(obj).get("toolCallId"))
        elif _ends_results(a, e):
            break
        anchor = e
    missing = [c for c in tool_calls(a, line) if c["id"] not in answered and c["id"] not in keep]
    if not missing or not _named(a, anchor):
        return None
    parent = a.tree.id_of[anchor]
    texts = []
    for call in missing:
        ident = fresh_id(taken)
        message = {
            "role": "toolResult",
            "toolCallId": call["id"],
            "toolName": call.get("name"),
            "content": [{"type": "text", "text": NO_RESULT}],
            "isError": True,
            "timestamp": int(time.time() * 1000),
        }
        entry = {
            "type": "message",
            "id": ident,
            "parentId": parent,
            "timestamp": iso_timestamp(),
            "message": message,
        }
        texts.append(js_stringify(entry))
        parent = ident
    if anchor == a.tree.entries[-1]:
        return [append_lines(a.text, texts)]
    follower = path[path.index(anchor) + 1]
    return [
        _insert_after(a, anchor, texts),
        *set_members(a.lines[follower], follower, [("parentId", js_stringify(parent))]),
    ]


def _ends_results(a: Analysis, line: int) -> bool:
    """True when pi sends the entry on ``line`` as a message that closes a turn's results
    (an assistant or user message, or a compaction's summary)."""
    obj = a.infos[line].obj
    return _role(a, line) == "assistant" or sends_as_user(obj) or obj.get("type") == "compaction"


# -- a result on another branch: bring it back ------------------------------------------------


def result_follower(a: Analysis, call: int, result: int) -> int | None:
    """The entry of the active path to re-parent to ``result``, the toolResult of a call of
    the turn on ``call`` that lies on another branch, so that pi sends it with the turn's
    results; None unless that is safe: the result's parent is on the active path, at or
    after the call and before the next message pi sends there, the result is named by its
    id, and it was written before the entry that will follow it."""
    tree = a.tree
    parent = tree.parent.get(result)
    if parent is None or parent not in tree.active_set or call not in tree.active_set:
        return None
    path = tree.active
    start, end = path.index(call), path.index(parent)
    if end < start or end + 1 >= len(path) or not _named(a, result):
        return None
    if any(_ends_results(a, e) for e in path[start + 1 : end + 1]):
        return None  # the result would come after a message that closes the turn's results
    follower = path[end + 1]
    return follower if result < follower else None
