"""References between lines: link sites, where each points, and the reverse index.

A *site* is a link value inside a line: ``parentId``, compaction ``firstKeptEntryId``
(v1: ``firstKeptEntryIndex``), label and context_edit ``targetId``, branch_summary ``fromId``, toolResult
``message.toolCallId`` and header ``parentSession``. Targets resolve the way pi resolves
them (and the way :mod:`pi_lsp.core.checks.links` checks them): ids by the tree's index (the
last entry with an id wins), tool calls by id preferring calls on the result's path, v1
indexes into the parsed lines (header = 0), ``parentSession`` relative to the file.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Literal

from ..checks import book
from ..checks.links import REFERRING, LinkState
from ..entries.lines import Kind
from ..entries.memo import per_links
from ..entries.model import Analysis
from ..pi.loading import parsed_lines
from ..pi.sent import entry_calls
from ..text.cursor import Cursor, cursor_at
from ..text.findings import Span
from ..text.jsonl import PathItem, locate

ID_FIELDS: dict[str, tuple[str, ...]] = {
    "parentId": (),
    "firstKeptEntryId": ("compaction",),
    "targetId": ("label", "context_edit"),
    "fromId": ("branch_summary",),
}
"""Top-level fields that hold an entry id, and the entry types they belong to (() = all)."""

TOOL_CALL_ID = ("message", "toolCallId")
PARENT_ID = ("parentId",)


TOOL_RESULT_FIELDS = frozenset({"toolCallId", "toolUseId"})
"""Fields that name a tool call (pi: ``message.toolCallId``; second dialect: both)."""

BOOK_ENTRY_FIELDS = frozenset({"parentId", "summarizedEntryIds", "branchRootId"})
"""Fields of the second dialect that hold an entry id."""


def span_of(a: Analysis, line: int, path: tuple[PathItem, ...]) -> Span:
    """The value span of ``path`` on ``line`` (as :meth:`Analysis.span_of`, fast on huge lines)."""
    return Span(line, *locate(a.lines[line], path).value)


@dataclass(frozen=True, slots=True)
class Site:
    """A link value: on ``line`` at JSON ``path``, named ``field``, holding ``value``."""

    line: int
    field: str
    path: tuple[PathItem, ...]
    value: str | int


@dataclass(frozen=True, slots=True)
class Target:
    """Where a site points: a line of this document (and a path inside it) or another file."""

    line: int | None
    path: tuple[PathItem, ...] = ()
    file: str | None = None


@dataclass(slots=True)
class Index:
    """The sites pointing at each line (``parentId`` sites too unless ``parents_by_tree``:
    see :func:`index`) or tool call id, and the labels; ``sites`` holds the ``targetId``
    sites. In pi's sessions a tool result's site is made when asked, from ``result_lines``
    (its line by call id; ``results`` holds the sites of the second dialect's); where the
    link analysis kept its tool index (a :class:`LinkState`), ``calls`` and
    ``result_lines`` are its dicts: the index holds no second copy."""

    parents_by_tree: bool = False
    sites: list[Site] = field(default_factory=list)
    by_line: dict[int, list[Site]] = field(default_factory=dict)
    calls: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    results: dict[str, list[Site]] = field(default_factory=dict)
    result_lines: dict[str, list[int]] | None = None
    labels: dict[int, str] = field(default_factory=dict)


def line_sites(a: Analysis, line: int) -> list[Site]:
    """The link sites on ``line``, in a fixed field order."""
    info = a.infos[line] if 0 <= line < len(a.infos) else None
    if info is None or info.kind not in (Kind.ENTRY, Kind.HEADER):
        return []
    if info.kind is Kind.HEADER:
        obj = info.obj
        ref = obj.get("parentSession")
        return (
            [Site(line, "parentSession", ("parentSession",), ref)] if isinstance(ref, str) else []
        )
    if a.fmt == "book":
        return [_book_site(line, link) for link in book.links_of(info.obj)]
    if info.type not in REFERRING:  # only parentId, and a tool result's call id
        out = [Site(line, "parentId", PARENT_ID, info.parent)] if type(info.parent) is str else []
        if info.type == "message" and info.role == "toolResult" and type(info.tool_call_id) is str:
            out.append(Site(line, "toolCallId", TOOL_CALL_ID, info.tool_call_id))
        return out
    obj = info.obj
    out = []
    etype = obj.get("type")
    for name, types in ID_FIELDS.items():
        ref = obj.get(name)
        if isinstance(ref, str) and (not types or etype in types):
            out.append(Site(line, name, (name,), ref))
    index = obj.get("firstKeptEntryIndex")
    if etype == "compaction" and isinstance(index, int) and not isinstance(index, bool):
        out.append(Site(line, "firstKeptEntryIndex", ("firstKeptEntryIndex",), index))
    message = obj.get("message")
    if etype == "message" and isinstance(message, dict) and message.get("role") == "toolResult":
        ref = message.get("toolCallId")
        if isinstance(ref, str):
            out.append(Site(line, "toolCallId", TOOL_CALL_ID, ref))
    return out


def _book_site(line: int, link: book.Link) -> Site:
    """A second-dialect link as a site, named by its last key (``summarizedEntryIds``, ...)."""
    name = next(str(p) for p in reversed(link.path) if isinstance(p, str))
    return Site(line, name, tuple(link.path), link.value)


@per_links
def index(a: Analysis) -> Index:
    """The reference index of ``a`` (computed once per state of the links).

    In a session whose tree follows ``parentId`` (pi's v2 and later), the ``parentId`` sites
    pointing at an entry are its children in the tree (:func:`references_to` makes them when
    asked): ``by_line`` keeps the other sites only, so the index holds no site per entry.
    """
    idx = Index(parents_by_tree=_parents_by_tree(a))
    by_line: dict[int, list[Site]] = defaultdict(list)
    calls: dict[str, list[tuple[int, int]]] = defaultdict(list)
    results: dict[str, list[Site]] = defaultdict(list)
    result_lines: dict[str, list[int]] = defaultdict(list)
    state = a.link_state if a.fmt != "book" else None
    kept = state if isinstance(state, LinkState) else None  # its tool index: the same
    lines = ([a.header_line] if a.header_line is not None else []) + a.tree.entries
    for line in lines:
        for site in line_sites(a, line):
            if site.field == "targetId":
                idx.sites.append(site)
            if site.field in TOOL_RESULT_FIELDS:
                if a.fmt == "book":
                    results[str(site.value)].append(site)
                elif kept is None:
                    result_lines[str(site.value)].append(line)
                continue
            if site.field == "parentId" and idx.parents_by_tree:
                continue
            target = _entry_target(a, site)
            if target is not None:
                by_line[target].append(site)
        if kept is None:
            for block, ident in a.infos[line].calls:  # entry_calls, read once per line
                calls[ident].append((line, block))
    if a.fmt == "book":
        for ident, uses in book.tool_uses(a).items():
            calls[ident].extend((line, int(path[1])) for line, path in uses)
    idx.by_line, idx.calls, idx.results = dict(by_line), dict(calls), dict(results)
    if kept is not None:
        idx.calls, idx.result_lines = kept.calls, kept.results
    elif a.fmt != "book":
        idx.result_lines = dict(result_lines)
    for site in idx.sites:
        target = a.tree.ids.get(str(site.value))
        label = a.infos[site.line].obj.get("label")
        if target is None:
            continue
        if isinstance(label, str) and label:
            idx.labels[target] = label
        else:
            idx.labels.pop(target, None)
    return idx


def _parents_by_tree(a: Analysis) -> bool:
    """Whether the tree's parents are exactly what the ``parentId`` sites name (pi's v2+)."""
    return a.fmt == "pi" and a.version >= 2


def _entry_target(a: Analysis, site: Site) -> int | None:
    if site.field == "firstKeptEntryIndex":
        parsed = parsed_lines(a)
        value = int(site.value)
        if 0 < value < len(parsed) and a.infos[parsed[value]].kind is Kind.ENTRY:
            return parsed[value]
        return None
    # (only second-dialect lines have sites named after its own entry fields)
    if site.field in ID_FIELDS or site.field in BOOK_ENTRY_FIELDS:
        return a.tree.ids.get(str(site.value))
    return None


def resolve(a: Analysis, site: Site) -> list[Target]:
    """Where ``site`` points (empty when it names nothing); tool calls on its path first."""
    if site.field == "parentSession":
        return [Target(None, (), session_path(a, str(site.value)))]
    if site.field in TOOL_RESULT_FIELDS:
        calls = index(a).calls.get(str(site.value), [])
        on_path = [c for c in calls if c[0] != site.line and a.tree.is_ancestor(c[0], site.line)]
        content = ("content",) if a.fmt == "book" else ("message", "content")
        return [Target(line, (*content, block)) for line, block in (on_path or calls)]
    target = _entry_target(a, site)
    if target is None:
        return []
    return [Target(target, ("id",) if target in a.tree.id_of else ())]


def session_path(a: Analysis, ref: str) -> str:
    """A ``parentSession`` value as a file path (relative ones against this file's folder)."""
    path = os.path.expanduser(ref)
    if a.path is not None:  # an absolute ``path`` stays as it is
        path = os.path.join(os.path.dirname(a.path), path)
    return os.path.normpath(path)


@dataclass(frozen=True, slots=True)
class Subject:
    """What the cursor designates: an entry (by line) or a tool call (by id).

    ``site`` is set when the cursor is on a link value; ``declaration`` when it is on
    the entry's own ``id`` or on a toolCall block's ``id``; ``span`` is the value (or
    key) under the cursor, or the whole line.
    """

    kind: Literal["entry", "tool", "file"]
    line: int | None
    tool_id: str | None
    site: Site | None
    declaration: bool
    span: tuple[int, int]


def subject_at(a: Analysis, line: int, column: int, cur: Cursor | None = None) -> Subject | None:
    """What the cursor at ``(line, column)`` refers to, or None outside entries and links.

    ``cur`` is the :func:`cursor_at` result for that position when the caller has it.
    """
    if not 0 <= line < len(a.infos) or a.infos[line].kind not in (Kind.ENTRY, Kind.HEADER):
        return None
    cur = cur or cursor_at(a.lines[line], column)
    if cur is None:
        return None
    path = cur.path
    value = cur.node.value
    for site in line_sites(a, line):
        if site.path == path and not cur.on_key:
            if site.field == "parentSession":
                return Subject("file", None, None, site, False, value)
            if site.field in TOOL_RESULT_FIELDS:
                return Subject("tool", None, str(site.value), site, False, value)
            return Subject("entry", _entry_target(a, site), None, site, False, value)
    if a.infos[line].kind is Kind.HEADER:
        return None
    obj = a.infos[line].obj
    if path == ("id",) and not cur.on_key and line in a.tree.id_of:
        return Subject("entry", line, None, None, True, value)
    if len(path) == 4 and path[:2] == ("message", "content") and path[3] == "id":
        for block, ident in entry_calls(obj):
            if block == path[2] and not cur.on_key:
                return Subject("tool", None, ident, None, True, value)
    if a.fmt == "book" and not cur.on_key:
        for link in book.field_links(obj, book.TOOL_USE_ID):
            if tuple(link.path) == path:
                return Subject("tool", None, link.value, None, True, value)
    span = cur.node.key if cur.on_key and cur.node.key is not None else value
    return Subject("entry", line, None, None, False, span)


def references_to(a: Analysis, line: int) -> list[Site]:
    """Every site that points at the entry on ``line`` (children, labels, compactions, ...),
    in file order, a line's ``parentId`` before its other fields."""
    idx = index(a)
    others = idx.by_line.get(line, [])
    if not idx.parents_by_tree:
        return list(others)
    infos = a.infos
    children = [
        Site(c, "parentId", PARENT_ID, infos[c].parent) for c in a.tree.children.get(line, ())
    ]
    return sorted([*children, *others], key=lambda s: (s.line, s.field != "parentId"))


def tool_sites(a: Analysis, tool_id: str) -> tuple[list[tuple[int, int]], list[Site]]:
    """The toolCall blocks ``(line, block index)`` with ``tool_id`` and the results naming it."""
    idx = index(a)
    if idx.result_lines is not None:
        lines = idx.result_lines.get(tool_id, ())
        results = [Site(line, "toolCallId", TOOL_CALL_ID, tool_id) for line in lines]
    else:
        results = list(idx.results.get(tool_id, ()))
    return list(idx.calls.get(tool_id, ())), results


def labels(a: Analysis) -> dict[int, str]:
    """The current label of each labelled entry line (the last label entry wins; empty clears)."""
    return index(a).labels
