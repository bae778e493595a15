"""The second documented session dialect (``session_header`` files): its own link checks.

The core detects the dialect by its header, validates every line against
``schemas/session-book.v1.schema.json`` and checks ids and parents (PI400-PI403). This
module adds what is particular to the dialect:

- PI105 (information) on the header: pi cannot load this layout; ``data`` tells a quick
  fix to convert the file (:mod:`pi_lsp.core.edits.book_convert`).
- PI420 (error): a ``tool_result`` or ``tool_call`` entry whose ``toolCallId``, or a
  ``tool_result`` content block whose ``toolUseId``, names no ``tool_use`` block of an
  assistant message on its path.
- PI410 (warning): a compaction's ``summarizedEntryIds`` element that names no entry.
- PI412 (warning): a branch summary's ``summarizedEntryIds`` element or ``branchRootId``
  that names no entry.

:data:`link_fields` describes every field of the dialect that refers to an entry or a
tool call, for navigation features (definition, references, hover); :func:`links_of`,
:func:`resolve` and :func:`referrers` apply it to a document.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from ..text.findings import Finding, Related, Severity

if TYPE_CHECKING:
    from ..entries.model import Analysis

JsonPath = tuple[str | int, ...]
ANY = "*"
"""In a :class:`LinkField` path: every index of an array."""


class LinkField(NamedTuple):
    """A field of a book entry whose value names an entry or a tool call.

    ``path`` is a JSON path inside the entry, where :data:`ANY` stands for every index of
    an array. ``target`` says what the value names: ``"entry"`` (an entry ``id``) or
    ``"tool_use"`` (the ``id`` of a ``tool_use`` block in an assistant_message's
    ``content``, see :data:`TOOL_USE_ID`). ``block_type`` restricts a path through
    ``content`` to blocks of that type. ``code`` is reported when the value names nothing.
    """

    entry_types: frozenset[str] | None
    path: tuple[str, ...]
    target: Literal["entry", "tool_use"]
    code: str
    block_type: str | None = None


_MESSAGES = frozenset({"user_message", "assistant_message", "thinking"})

link_fields: tuple[LinkField, ...] = (
    LinkField(None, ("parentId",), "entry", "PI400"),
    LinkField(frozenset({"tool_call", "tool_result"}), ("toolCallId",), "tool_use", "PI420"),
    LinkField(_MESSAGES, ("content", ANY, "toolUseId"), "tool_use", "PI420", "tool_result"),
    LinkField(frozenset({"compaction"}), ("summarizedEntryIds", ANY), "entry", "PI410"),
    LinkField(frozenset({"branch_summary"}), ("summarizedEntryIds", ANY), "entry", "PI412"),
    LinkField(frozenset({"branch_summary"}), ("branchRootId",), "entry", "PI412"),
)
"""Every link of the dialect (``None`` entry types: all of them). ``parentId`` is checked
by the core (PI400-PI403), the others here."""

TOOL_USE_ID = LinkField(
    frozenset({"assistant_message"}), ("content", ANY, "id"), "tool_use", "", "tool_use"
)
"""Where tool calls are defined: the ``id`` of a ``tool_use`` block of an assistant_message."""


class Link(NamedTuple):
    """One link value inside an entry: its concrete ``path``, the id it holds, its field."""

    path: JsonPath
    value: str
    field: LinkField


def _expand(
    value: Any, path: tuple[str, ...], block_type: str | None, done: JsonPath = ()
) -> Iterator[tuple[JsonPath, Any]]:
    """Concrete ``(path, value)`` pairs of a pattern path inside ``value``."""
    if not path:
        yield done, value
        return
    head, rest = path[0], path[1:]
    if head == ANY:
        if isinstance(value, list):
            for i, item in enumerate(value):
                if block_type is None or (
                    isinstance(item, dict) and item.get("type") == block_type
                ):
                    yield from _expand(item, rest, block_type, (*done, i))
    elif isinstance(value, dict) and head in value:
        yield from _expand(value[head], rest, block_type, (*done, head))


def field_links(obj: dict[str, Any], field: LinkField) -> list[Link]:
    """The string values of ``field`` in one entry (empty when the entry type differs)."""
    etype = obj.get("type")
    if field.entry_types is not None and etype not in field.entry_types:
        return []
    return [
        Link(path, value, field)
        for path, value in _expand(obj, field.path, field.block_type)
        if isinstance(value, str)
    ]


def links_of(obj: dict[str, Any]) -> list[Link]:
    """Every link value of one parsed entry, in :data:`link_fields` order."""
    return [link for field in link_fields for link in field_links(obj, field)]


def tool_uses(a: Analysis) -> dict[str, list[tuple[int, JsonPath]]]:
    """``tool_use`` block ids → ``[(line, path of the block's id)]``, in file order."""
    out: dict[str, list[tuple[int, JsonPath]]] = defaultdict(list)
    for line in a.tree.entries:
        for link in field_links(a.infos[line].obj, TOOL_USE_ID):
            out[link.value].append((line, link.path))
    return out


def _on_path(
    a: Analysis, sites: list[tuple[int, JsonPath]], line: int
) -> list[tuple[int, JsonPath]]:
    """The sites on ``line``'s path (its ancestors, itself included)."""
    return [s for s in sites if a.tree.is_ancestor(s[0], line)]


def resolve(
    a: Analysis, line: int, link: Link, uses: dict[str, list[tuple[int, JsonPath]]] | None = None
) -> tuple[int, JsonPath] | None:
    """Where ``link`` (found on ``line``) points: ``(line, path of the id)``, or None.

    Entry ids resolve as pi resolves them (the last entry with the id); tool call ids to
    the nearest ``tool_use`` on the line's path, else the first one in the file.
    ``uses`` is :func:`tool_uses` of ``a`` (computed when not given).
    """
    if link.field.target == "entry":
        target = a.tree.ids.get(link.value)
        return None if target is None else (target, ("id",))
    sites = (uses if uses is not None else tool_uses(a)).get(link.value, [])
    on_path = _on_path(a, sites, line)
    if on_path:
        return on_path[-1]
    return sites[0] if sites else None


def referrers(a: Analysis, target: int, path: JsonPath = ("id",)) -> list[tuple[int, Link]]:
    """Every ``(line, link)`` of the document that resolves to ``path`` on line ``target``.

    ``path`` is ``("id",)`` for an entry, or the path of a ``tool_use`` block's id.
    """
    uses = tool_uses(a)
    out: list[tuple[int, Link]] = []
    for line in a.tree.entries:
        for link in links_of(a.infos[line].obj):
            if resolve(a, line, link, uses) == (target, path):
                out.append((line, link))
    return out


def check(a: Analysis) -> list[Finding]:
    """The dialect's own findings (header notice, tool ids, summarized ids)."""
    out: list[Finding] = []
    _header_notice(a, out)
    uses = tool_uses(a)
    calls: dict[str, list[int]] = defaultdict(list)
    for line in a.tree.entries:
        obj = a.infos[line].obj
        ident = obj.get("toolCallId")
        if obj.get("type") == "tool_call" and isinstance(ident, str):
            calls[ident].append(line)
    ids = a.tree.ids
    for line in a.tree.entries:
        obj = a.infos[line].obj
        for link in links_of(obj):
            if link.field.target == "tool_use":
                _check_tool_link(a, out, line, obj, link, uses, calls.get(link.value, []))
            elif link.field.code != "PI400" and link.value not in ids:
                out.append(_dangling(a, line, obj, link))
    return out


def _header_notice(a: Analysis, out: list[Finding]) -> None:
    hl = a.header_line
    if hl is None:
        return
    entries = len(a.tree.entries)
    out.append(
        Finding(
            "PI105",
            Severity.INFORMATION,
            a.span_of(hl, ("type",)),
            'this file uses the "session_header" layout documented in the book, not pi\'s '
            'session format: pi cannot load it (it needs a {"type":"session"} header with an '
            "id); opened with --session, pi starts an empty session and overwrites this file "
            f"(quick fix: convert the {entries} entries to a pi v3 session)",
            data={"format": "book", "version": 1},
        )
    )


def _check_tool_link(
    a: Analysis,
    out: list[Finding],
    line: int,
    obj: dict[str, Any],
    link: Link,
    uses: dict[str, list[tuple[int, JsonPath]]],
    calls: list[int],
) -> None:
    """PI420 when ``link`` has no tool_use on its path; ``calls``: tool_call entries with its id."""
    sites = uses.get(link.value, [])
    if any(s_line != line for s_line, _ in _on_path(a, sites, line)):
        return
    etype = obj.get("type")
    if link.path == ("toolCallId",):
        what = f"{etype} toolCallId '{link.value}'"
    else:
        what = f"tool_result block toolUseId '{link.value}'"
    related: list[Related] = []
    if etype == "tool_result":
        related.extend(
            Related(a.span_of(call, ("toolCallId",)), "the tool_call entry with this id")
            for call in calls
            if call != line and a.tree.is_ancestor(call, line)
        )
    elsewhere = [s for s in sites if not a.tree.is_ancestor(s[0], line)]
    if elsewhere:
        s_line, s_path = elsewhere[0]
        related.append(Related(a.span_of(s_line, s_path), "a tool_use with this id, off its path"))
        where = "on its path (there is one on another branch)"
    else:
        where = "before it on its path" if sites else "in this file"
    out.append(
        Finding(
            "PI420",
            Severity.ERROR,
            a.span_of(line, link.path),
            f"{what} matches no tool_use block of an assistant_message {where}; the call is "
            "missing from the model's response, and providers reject a tool result without "
            "its call",
            tuple(related),
            data={"toolCallId": link.value},
        )
    )


def _dangling(a: Analysis, line: int, obj: dict[str, Any], link: Link) -> Finding:
    etype = obj.get("type")
    name = link.path[0]
    if name == "branchRootId":
        effect = "the summary no longer says where the abandoned branch started"
    elif etype == "compaction":
        effect = (
            "the summary claims to replace an entry that is not there, so where the kept "
            "context starts is uncertain"
        )
    else:
        effect = "the summary claims to cover an entry that is not there"
    return Finding(
        link.field.code,
        Severity.WARNING,
        a.span_of(line, link.path),
        f"{etype} {name} '{link.value}' names no entry in this file; {effect}",
        data={"id": link.value, "field": name},
    )
