"""The conversation along one leaf, as pi presents it: the model every preview renders.

:func:`conversation` walks the path root → leaf (the leaf pi resumes unless one is named)
and makes one :class:`Item` per entry on it (``usage`` entries, which pi hides, left out),
each with the context messages pi sends for it (:func:`pi_lsp.core.context.session_context`),
why it is not sent when it is not (before the newest compaction, omitted by a context edit,
dropped by ``convertToLlm`` or pi-ai), the findings on its line, and the branch points on the
path with every branch's newest leaf (what pi's ``/tree`` switches to).

The newest compaction is placed where pi's context puts it: before the entries it keeps,
so the items pi sends come in the order of pi's ``buildSessionContext`` messages.
Node ids are ``pi-lsp.tree``'s (:func:`pi_lsp.core.treedata.node_id`): an entry id, or
``L<line>`` for an entry without a usable id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..entries.model import Analysis
from ..pi.context import ContextMessage, SessionContext, is_system_message, session_context
from ..pi.sent import request, synthetic_calls
from ..text.findings import Finding, sort_key
from .describe import entry_title
from .treedata import HIDDEN_TYPES, node_id, visible_tree

_LINE_ID = re.compile(r"L(\d+)")

ENTRY_KINDS = {
    "compaction": "compaction",
    "branch_summary": "branch-summary",
    "custom_message": "custom",
    "model_change": "model-change",
    "thinking_level_change": "thinking-change",
    "context_edit": "context-edit",
    "label": "label",
    "session_info": "session-info",
    "custom": "custom-entry",
}
"""The kind of an item by its entry type (``message`` entries go by their role)."""

ROLE_KINDS = {
    "user": "user",
    "assistant": "assistant",
    "toolResult": "tool-result",
    "bashExecution": "bash",
    "custom": "custom",
    "hookMessage": "custom",
    "system": "system",
    "branchSummary": "branch-summary",
    "compactionSummary": "compaction",
}
"""The kind of a ``message`` entry's item by its message's role."""


class UnknownLeaf(ValueError):
    """The leaf asked for names no entry of the session."""


@dataclass(slots=True)
class Item:
    """One entry on the path: what it is, what pi sends for it, and what is wrong with it.

    ``entry`` is the entry's full value (parsed again on each use, and only for the items a
    rendering shows: a long conversation is not held parsed whole); ``messages`` the context
    messages pi sends for it (empty for a marker such as a model change, or when it is not
    sent); ``not_sent`` why a message entry is not sent (None: sent, or nothing to send);
    ``edited`` the line of the context edit that replaced its content; ``unanswered`` the
    tool calls of an assistant turn that pi-ai answers with a synthetic ``"No result
    provided"``; ``source`` the path a ``read`` call named, on the result of that call.
    """

    line: int
    kind: str
    analysis: Analysis = field(repr=False, compare=False)
    messages: list[ContextMessage] = field(default_factory=list)
    not_sent: str | None = None
    edited: int | None = None
    findings: list[Finding] = field(default_factory=list)
    unanswered: list[str] = field(default_factory=list)
    source: str | None = None

    @property
    def title(self) -> str:
        """A one-line title of the entry (made when asked: most items of a long
        conversation never show theirs)."""
        return entry_title(self.analysis, self.line)

    @property
    def entry(self) -> dict[str, Any]:
        """The entry's full value."""
        value = self.analysis.value(self.line)
        return value if isinstance(value, dict) else {}


@dataclass(slots=True)
class BranchLeaf:
    """One branch from a branch point: the node id of its newest leaf, a title, and whether
    it is the branch shown."""

    id: str
    title: str
    current: bool


@dataclass(slots=True)
class BranchPoint:
    """An entry on the path with more than one shown child, and its branches."""

    line: int
    id: str
    leaves: list[BranchLeaf]


@dataclass(slots=True)
class Conversation:
    """The items along the leaf, the leaf (its line, and the node id of the shown entry
    that stands for it), the leaf pi resumes, the branch points on the path, the header's
    line and findings, and pi's context."""

    items: list[Item]
    leaf: int | None
    leaf_id: str | None
    resumed_id: str | None
    branches: list[BranchPoint]
    context: SessionContext
    header_line: int | None = None
    header_findings: list[Finding] = field(default_factory=list)


def leaf_line(a: Analysis, leaf: str | None) -> int | None:
    """The line of the entry the node id ``leaf`` names (None: the leaf pi resumes).

    Raises :class:`UnknownLeaf` when it names no entry.
    """
    if leaf is None:
        return None
    line = a.tree.ids.get(leaf)
    if line is None and (m := _LINE_ID.fullmatch(leaf)) is not None:
        candidate = int(m.group(1))
        line = candidate if candidate in a.tree.parent else None
    if line is None:
        raise UnknownLeaf(f"no entry with id {leaf!r} in this session")
    return line


def kind_of(entry: dict[str, Any]) -> str:
    """The item kind of an entry (``other`` for types pi-lsp does not know)."""
    etype = entry.get("type")
    if etype == "message":
        message = entry.get("message")
        role = message.get("role") if isinstance(message, dict) else None
        return ROLE_KINDS.get(role, "other") if isinstance(role, str) else "other"
    return ENTRY_KINDS.get(etype, "other") if isinstance(etype, str) else "other"


def conversation(a: Analysis, leaf: str | None = None) -> Conversation:
    """The conversation of ``a`` along ``leaf`` (a node id; None: the leaf pi resumes)."""
    line = leaf_line(a, leaf)
    ctx = session_context(a, leaf_line=line) if line is not None else session_context(a)
    by_line: dict[int, list[Finding]] = {}
    for finding in sorted(a.findings, key=sort_key):
        by_line.setdefault(finding.span.line, []).append(finding)
    items = _items(a, ctx, by_line)
    resumed = visible_tree(a).leaf
    return Conversation(
        items=items,
        leaf=ctx.leaf,
        leaf_id=_shown_leaf(a, ctx.path),
        resumed_id=node_id(a, resumed) if resumed is not None else None,
        branches=branch_points(a, ctx.path),
        context=ctx,
        header_line=a.header_line,
        header_findings=by_line.get(a.header_line, []) if a.header_line is not None else [],
    )


def _shown_leaf(a: Analysis, path: list[int]) -> str | None:
    """The node id of the last entry of ``path`` pi's tree shows (a ``usage`` leaf stands
    for the entry above it, as in ``pi-lsp.tree``)."""
    line = next((n for n in reversed(path) if a.infos[n].type not in HIDDEN_TYPES), None)
    return node_id(a, line) if line is not None else None


def _items(a: Analysis, ctx: SessionContext, findings: dict[int, list[Finding]]) -> list[Item]:
    """One item per shown entry of ``ctx.path``, in pi's order (see the module docstring)."""
    sent: dict[int, list[ContextMessage]] = {}
    for m in ctx.messages:
        sent.setdefault(m.line, []).append(m)
    in_context = set(ctx.entries)
    req = request(ctx)
    dropped = set(req.dropped)
    unanswered: dict[int | None, list[str]] = {}
    for turn, call in synthetic_calls(req):
        unanswered.setdefault(turn, []).append(str(call))
    head = ctx.entries[0] if ctx.entries and _is_compaction(a, ctx.entries[0]) else None
    items: list[Item] = []
    reads: dict[Any, str] = {}  # call id → the path a read call named
    for line in _ordered(ctx, head):
        entry = a.infos[line].value  # slim on a long line: enough for its kind
        if not isinstance(entry, dict) or entry.get("type") in HIDDEN_TYPES:
            continue
        message = entry.get("message")
        source = reads.get(message.get("toolCallId")) if isinstance(message, dict) else None
        reads.update(_read_calls(message))
        item = Item(
            line=line,
            kind=kind_of(entry),
            analysis=a,
            messages=sent.get(line, []),
            edited=ctx.edits.get(line),
            findings=findings.get(line, []),
            unanswered=sorted(unanswered.get(line, ())),
            source=source,
        )
        item.not_sent = _why_not_sent(item, in_context, dropped, head)
        items.append(item)
    return items


def _read_calls(message: Any) -> dict[Any, str]:
    """The ``read`` tool calls of an assistant message: call id → the path it reads."""
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return {}
    content = message.get("content")
    out = {}
    for block in content if isinstance(content, list) else ():
        if (
            isinstance(block, dict)
            and block.get("type") == "toolCall"
            and block.get("name") == "read"
        ):
            args = block.get("arguments")
            path = args.get("path") if isinstance(args, dict) else None
            if isinstance(path, str) and isinstance(block.get("id"), str):
                out[block["id"]] = path
    return out


def _is_compaction(a: Analysis, line: int) -> bool:
    return a.infos[line].type == "compaction"


def _ordered(ctx: SessionContext, head: int | None) -> list[int]:
    """The path's lines, the newest compaction (``head``) moved before the entries it keeps."""
    if head is None:
        return ctx.path
    kept = [line for line in ctx.entries[1:] if line < head]
    if not kept:
        return ctx.path
    out = [line for line in ctx.path if line != head]
    out.insert(out.index(kept[0]), head)
    return out


def _why_not_sent(
    item: Item, in_context: set[int], dropped: set[int], head: int | None
) -> str | None:
    """Why pi does not send ``item`` (None when it sends it or it holds nothing to send)."""
    if item.messages:
        if item.line in dropped:
            return "pi-ai drops failed and aborted turns"
        if all(m.text is None for m in item.messages):
            return "convertToLlm leaves it out (a !! command kept out of the context)"
        return None
    if item.line not in in_context:
        if is_system_message(item.analysis.infos[item.line].value):
            return "a system message the newest compaction's checkpoint replaces"
        return "before the newest compaction"
    if item.edited is not None:
        return f"omitted by the context edit on line {item.edited + 1}"
    if item.kind == "compaction" and item.line != head:
        return "an older compaction: only the newest one's summary is sent"
    return None


def branch_points(a: Analysis, path: list[int]) -> list[BranchPoint]:
    """The entries of ``path`` with more than one shown child, each child's newest leaf."""
    shown = visible_tree(a)
    points = [line for line in path if len(shown.children.get(line, ())) > 1]
    if not points:
        return []
    newest = _newest_leaves(shown.entries, shown.children)
    on_path = set(path)
    return [
        BranchPoint(
            line=line,
            id=node_id(a, line),
            leaves=[
                BranchLeaf(
                    id=node_id(a, newest[child]),
                    title=entry_title(a, _first_message(a, shown.children, child)),
                    current=child in on_path,
                )
                for child in shown.children[line]
            ],
        )
        for line in points
    ]


BRANCH_NAME_STEPS = 8
"""How far down a branch its name is looked for."""


def _first_message(a: Analysis, children: dict[int, list[int]], top: int) -> int:
    """The first message entry from ``top`` down while the branch does not fork (what names
    the branch best: not a label or model change above it), else ``top``."""
    node = top
    for _ in range(BRANCH_NAME_STEPS):
        if a.infos[node].type == "message":
            return node
        below = children.get(node, ())
        if len(below) != 1:
            break
        node = below[0]
    return top


def _newest_leaves(entries: list[int], children: dict[int, list[int]]) -> dict[int, int]:
    """Per entry, the last entry in file order in its subtree: a leaf (children follow their
    parents), where pi's ``/tree`` resumes that branch."""
    newest: dict[int, int] = {}
    for line in reversed(entries):
        newest[line] = max([line, *(newest.get(c, c) for c in children.get(line, ()))])
    return newest
