"""Completion inside a line being typed: entry ids for link fields, enum values for kinds.

The line under the cursor is usually not valid JSON while it is typed, so the context is
read from the text before the cursor with a tolerant scanner (strings and brackets
only): the JSON path of the value being typed and whether a string is open. Ids come
with a preview of their entry; ``type``, ``role``, ``stopReason`` and ``thinkingLevel``
values come from the schema of the file's version.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from ..entries.lines import HEADER_TYPES, Kind, LineInfo, parse
from ..entries.model import Analysis
from ..schemas import schema, schema_info
from ..text.jsonl import PathItem, scan_string
from ..text.jsontext import dumps
from .describe import clip, entry_preview, entry_title, object_title
from .numbering import shown
from .refs import ID_FIELDS, TOOL_CALL_ID, index

MAX_ITEMS = 500
ENUM_FIELDS = frozenset({"type", "role", "stopReason", "thinkingLevel"})
# values the schema admits but pi-lsp warns about (PI201, PI301): never suggested
_DISCOURAGED: dict[str, frozenset[Any]] = {
    "stopReason": frozenset({"pending"}),
    "role": frozenset({"hookMessage"}),
}

_SPACE = re.compile(r"[ \t]*")
_PUNCT = re.compile(r'["{}\[\]:,]')


def _closed_end(text: str, start: int) -> int | None:
    """The end of the string starting at ``start``, or None when it is never closed."""
    end = scan_string(text, start)
    if end < len(text):
        return end
    body = text[start + 1 : end - 1]
    escapes = len(body) - len(body.rstrip("\\"))
    closed = end - 1 > start and text[end - 1] == '"' and escapes % 2 == 0
    return end if closed else None


@dataclass(slots=True)
class _Frame:
    """One open container while scanning: an object (with its key) or an array."""

    is_obj: bool
    key: str | None = None
    index: int = 0
    state: Literal["key", "colon", "value", "after"] = "value"


@dataclass(frozen=True, slots=True)
class ValueSlot:
    """Where the cursor is: the path of the value being typed and the span to replace.

    ``quoted`` is True inside an open string (the span excludes the quotes).
    ``entry_type`` is the line's top-level ``type`` when it was typed before the cursor.
    """

    path: tuple[PathItem, ...]
    quoted: bool
    start: int
    end: int
    entry_type: str | None


def _decode(token: str) -> str:
    try:
        return str(json.loads(token))
    except ValueError:
        return token[1:-1]


def value_context(text: str, column: int) -> ValueSlot | None:
    """The value being typed at ``column`` of one line's ``text``, or None outside values."""
    stack: list[_Frame] = []
    entry_type: str | None = None
    value_from = 0
    open_at: int | None = None
    pos = 0
    while (m := _PUNCT.search(text, pos, column)) is not None:
        tok = m.group()
        pos = m.end()
        top = stack[-1] if stack else None
        if tok == '"':
            end = _closed_end(text, m.start())
            if end is None or end > column:
                open_at = m.start()
                break
            pos = end
            if top is None:
                continue
            if top.is_obj and top.state == "key":
                top.key, top.state = _decode(text[m.start() : end]), "colon"
                continue
            if len(stack) == 1 and top.key == "type" and top.state == "value":
                entry_type = _decode(text[m.start() : end])
            top.state = "after"
        elif tok in ("{", "["):
            stack.append(_Frame(tok == "{", state="key" if tok == "{" else "value"))
        elif tok in ("}", "]"):
            if stack:
                stack.pop()
            if stack:
                stack[-1].state = "after"
        elif top is None:
            continue
        elif tok == ":":
            top.state = "value" if top.is_obj and top.state == "colon" else top.state
            value_from = m.end()
        elif top.is_obj:  # ","
            top.state, top.key = "key", None
        else:
            top.state, top.index = "value", top.index + 1
    if not stack or stack[-1].state != "value":
        return None
    path: list[PathItem] = []
    for frame in stack:
        if not frame.is_obj:
            path.append(frame.index)
        elif frame.key is None:
            return None
        else:
            path.append(frame.key)
    if open_at is not None:
        closed = _closed_end(text, open_at)
        end = closed - 1 if closed is not None else len(text)
        return ValueSlot(tuple(path), True, open_at + 1, end, entry_type)
    gap = _SPACE.match(text, column).end()  # type: ignore[union-attr]  # matches everywhere
    after = text[gap : gap + 1]
    if text[value_from:column].strip() or after not in ("", ",", "}", "]"):
        return None
    return ValueSlot(tuple(path), False, column, column, entry_type)


@dataclass(frozen=True, slots=True)
class Item:
    """A completion: ``new_text`` replaces columns ``start``..``end`` of the cursor's line."""

    label: str
    kind: Literal["id", "tool", "value"]
    detail: str
    documentation: str
    new_text: str
    start: int
    end: int
    sort: str


@dataclass(slots=True)
class Completions:
    """The items for one request; ``incomplete`` when the list was cut at :data:`MAX_ITEMS`."""

    items: list[Item] = field(default_factory=list)
    incomplete: bool = False


def _text(value: str, ctx: ValueSlot) -> str:
    dumped = dumps(value)
    return dumped[1:-1] if ctx.quoted else dumped


def _near(lines: list[int], line: int) -> list[int]:
    """Lines before ``line`` nearest first, then the later ones nearest first."""
    return sorted(lines, key=lambda n: (n > line, abs(line - n)))


def _id_items(a: Analysis, line: int, ctx: ValueSlot, out: Completions) -> None:
    candidates = _near([n for n in a.tree.id_of if n != line], line)
    if ctx.path == ("fromId",):
        out.items.append(
            Item(
                "root",
                "id",
                "the root",
                'fromId "root": the branch left from the root',
                _text("root", ctx),
                ctx.start,
                ctx.end,
                "0",
            )
        )
    for rank, target in enumerate(candidates[:MAX_ITEMS]):
        ident = a.tree.id_of[target]
        title = entry_title(a, target)
        doc = f"line {shown(target)}: {entry_preview(a.infos[target].obj)}"
        out.items.append(
            Item(
                clip(ident, 80),
                "id",
                title,
                doc,
                _text(ident, ctx),
                ctx.start,
                ctx.end,
                f"{rank + 1:06d}",
            )
        )
    out.incomplete = len(candidates) > MAX_ITEMS


def _tool_items(a: Analysis, line: int, ctx: ValueSlot, out: Completions) -> None:
    calls = index(a).calls
    sites = sorted(
        ((n, block, ident) for ident, found in calls.items() for n, block in found),
        key=lambda c: (c[0] > line, abs(line - c[0])),
    )
    for rank, (target, block, ident) in enumerate(sites[:MAX_ITEMS]):
        content = a.infos[target].obj["message"]["content"]
        title = object_title(
            {"type": "message", "message": {"role": "assistant", "content": [content[block]]}}
        )
        out.items.append(
            Item(
                clip(ident, 80),
                "tool",
                title,
                f"toolCall on line {shown(target)}",
                _text(ident, ctx),
                ctx.start,
                ctx.end,
                f"{rank:06d}",
            )
        )
    out.incomplete = len(sites) > MAX_ITEMS


def _is_header_line(a: Analysis, line: int) -> bool:
    if a.header_line is not None:
        return line == a.header_line
    return not any(info.value is not None for info in a.infos[:line])


def _enum_values(
    a: Analysis, line: int, info: LineInfo, ctx: ValueSlot
) -> tuple[list[Any], str | None]:
    """Allowed values at the context's path (``info``: the cursor line), and its description."""
    key = schema.schema_key(a.fmt, a.version)
    if ctx.path == ("type",):
        header = _is_header_line(a, line)
        kinds = [k for k in schema_info.line_kinds(key) if (k in HEADER_TYPES) == header]
        return kinds, "Line kind: the header or one entry type."
    parsed = info.kind in (Kind.ENTRY, Kind.HEADER)
    name = "header" if info.kind is Kind.HEADER else ctx.entry_type or info.type
    if name and schema.has_definition(key, name):
        names = [name]
    else:
        names = ["header" if k in HEADER_TYPES else k for k in schema_info.line_kinds(key)]
    found: list[Any] = []
    desc: str | None = None
    for n in names:
        if parsed:
            values = schema_info.allowed_values(key, n, ctx.path, info.value)
            desc = desc or schema_info.description(key, n, ctx.path, info.value)
        else:
            values = schema_info.allowed_values(key, n, ctx.path)
            desc = desc or schema_info.description(key, n, ctx.path)
        found += [v for v in values if v not in found]
    field_name = str(ctx.path[-1])
    banned = _DISCOURAGED.get(field_name, frozenset())
    if field_name == "role" and a.version < 3:
        banned = frozenset()
    return [v for v in found if v not in banned], desc


def completions(a: Analysis, line: int, column: int, text: str | None = None) -> Completions:
    """The completion items at ``(line, column)`` (code points).

    ``text`` is the cursor line's text when it was edited after ``a`` was computed (then
    ``line`` is where it stands among ``a``'s lines); it is parsed afresh.
    """
    out = Completions()
    if text is None:
        if not 0 <= line < len(a.lines):
            return out
        text, info = a.lines[line], a.infos[line]
    else:
        info = parse(text)
    ctx = value_context(text, column)
    if ctx is None:
        return out
    if len(ctx.path) == 1 and ctx.path[0] in ID_FIELDS:
        _id_items(a, line, ctx, out)
    elif ctx.path == TOOL_CALL_ID:
        _tool_items(a, line, ctx, out)
    elif ctx.path[-1] in ENUM_FIELDS:  # a context has a path: it is inside a container
        values, desc = _enum_values(a, line, info, ctx)
        for rank, value in enumerate(values):
            if isinstance(value, str):
                out.items.append(
                    Item(
                        value,
                        "value",
                        str(ctx.path[-1]),
                        desc or "",
                        _text(value, ctx),
                        ctx.start,
                        ctx.end,
                        f"{rank:06d}",
                    )
                )
    return out
