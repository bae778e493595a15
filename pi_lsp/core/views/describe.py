"""Human descriptions of entries and sessions: titles, previews, facts and totals.

Everything here is bounded: a preview never reads more than a few kilobytes of any
string (a 50 MB line costs the same as a short one), image data is never shown, and
runs that look like base64 are replaced by ``[base64]``. Titles are one line: every
whitespace run (including U+2028/U+2029) collapses to a single space.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..entries.lines import Kind, LineInfo
from ..entries.memo import per_analysis
from ..entries.model import Analysis
from ..pi.stats import PathSplit, Usage, analysis_totals, parse_stamp, read_usage
from ..pi.stats import session_name as stats_session_name
from ..text.jsontext import dumps
from .numbering import shown
from .refs import labels, references_to

TITLE_LIMIT = 80
PREVIEW_LIMIT = 240
_SCAN = 4096  # never look further than this into one string
# The matches of (?:data:...;base64,)?[A-Za-z0-9+/]{64,}={0,2}, found faster: a bare run is
# only tried where it starts.
_BASE64 = re.compile(
    r"(?:data:[\w.+/-]+;base64,[A-Za-z0-9+/]{64,}|(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{64,})={0,2}"
)
_RUN = re.compile(r"[\w.+/:;,=-]*")
"""A run of characters that may be part of base64 (or of its ``data:`` prefix)."""


def _flat(text: str) -> str:
    """Base64 runs hidden, every whitespace run (as ``\\s``) one space, ends stripped."""
    return " ".join(_BASE64.sub("[base64]", text).split())


def clip(text: str, limit: int = PREVIEW_LIMIT) -> str:
    """``text`` on one line, base64 runs hidden, at most ``limit`` characters (with …)."""
    if len(text) > 2 * limit + 64:
        # usually the start decides: cut before a run the cut may split, and when what
        # stands before it already fills the limit, the rest of the text cannot change it
        part = text[: limit + limit // 2 + 16]
        flat = _flat(part[: len(part) - _RUN.match(part[::-1]).end()])  # type: ignore[union-attr]
        if len(flat) > limit:
            return flat[: max(limit - 1, 0)].rstrip() + "…"
    head = text[: max(limit * 4, 256)] if len(text) > _SCAN else text
    flat = _flat(head)
    if len(flat) > limit:
        return flat[: max(limit - 1, 0)].rstrip() + "…"
    return flat + "…" if len(head) < len(text) else flat


def clip_tail(text: str, limit: int) -> str:
    """Like :func:`clip` but keeps the end (for paths and commands' last words)."""
    part = text[-max(limit * 4, 256) :] if len(text) > _SCAN else text
    flat = _flat(part)
    if len(flat) <= limit and len(part) == len(text):
        return flat
    return "…" + flat[-(limit - 1) :].lstrip()


def content_preview(content: Any, limit: int = PREVIEW_LIMIT) -> str:
    """A short text for a message ``content`` (a string or a list of blocks)."""
    if isinstance(content, str):
        return clip(content, limit)
    if not isinstance(content, list):
        return ""
    texts: list[str] = []
    calls: list[str] = []
    thinking: list[str] = []
    images = 0
    for block in content[:64]:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(clip(block["text"], limit))
        elif kind in ("toolCall", "tool_use"):
            calls.append(_call_preview(block))
        elif kind == "thinking":
            text = block.get("thinking", block.get("text"))
            if isinstance(text, str):
                thinking.append(clip(text, limit))
        elif kind == "image":
            images += 1
    parts = [t for t in texts if t]
    if calls:
        parts.append("→ " + ", ".join(calls[:4]) + (" …" if len(calls) > 4 else ""))
    if images:
        parts.append("[image]" if images == 1 else f"[{images} images]")
    if not parts and thinking:
        parts.append("(thinking) " + thinking[0])
    return clip(" ".join(parts), limit)


def _call_preview(block: dict[str, Any]) -> str:
    name = block.get("name")
    args = block.get("arguments", block.get("input"))
    shown = ""
    if isinstance(args, dict):
        for key in ("path", "command", "file_path", "pattern", "url", "query"):
            value = args.get(key)
            if isinstance(value, str):
                shown = clip_tail(value, 40) if key.endswith("path") else clip(value, 40)
                break
    label = name if isinstance(name, str) else "tool"
    return f"{clip(label, 40)}({shown})"


def _message_title(message: dict[str, Any], limit: int) -> str:
    role = message.get("role")
    role_name = role if isinstance(role, str) else "message"
    if role == "toolResult":
        name = message.get("toolName")
        head = f"toolResult {clip(name, 40)}" if isinstance(name, str) else "toolResult"
        if message.get("isError") is True:
            head += " (error)"
        return _join(head, content_preview(message.get("content"), limit), limit)
    if role == "bashExecution":
        command = message.get("command")
        text = "$ " + clip(command, limit) if isinstance(command, str) else ""
        return _join("bash", text, limit)
    if role in ("custom", "hookMessage"):
        kind = message.get("customType")
        head = f"{role} {clip(kind, 40)}" if isinstance(kind, str) else role_name
        return _join(head, content_preview(message.get("content"), limit), limit)
    if role in ("branchSummary", "compactionSummary"):
        summary = message.get("summary")
        return _join(role_name, clip(summary, limit) if isinstance(summary, str) else "", limit)
    if role == "system":
        text = content_preview(message.get("content"), limit)
        return _join(role_name, "; ".join(p for p in [text, *system_changes(message)] if p), limit)
    return _join(role_name, content_preview(message.get("content"), limit), limit)


def _names(items: Any, limit: int = 6) -> list[str]:
    """The ``name`` of each tool (definition or reference), bounded."""
    if not isinstance(items, list):
        return []
    names = [
        clip(t["name"], 40)
        for t in items[:64]
        if isinstance(t, dict) and isinstance(t.get("name"), str)
    ]
    return names[:limit] + ([f"… {len(names) - limit} more"] if len(names) > limit else [])


def system_changes(message: dict[str, Any]) -> list[str]:
    """What a system message sets: sections set and removed (``null``), tools added and removed."""
    out = []
    sections = message.get("sections")
    if isinstance(sections, dict):
        keys = list(sections)[:64]
        set_ = [clip(k, 40) for k in keys if sections[k] is not None]
        removed = [clip(k, 40) for k in keys if sections[k] is None]
        if set_:
            out.append("sections " + ", ".join(set_[:6]) + (" …" if len(set_) > 6 else ""))
        if removed:
            out.append("removes " + ", ".join(removed[:6]) + (" …" if len(removed) > 6 else ""))
    added, dropped = _names(message.get("toolsAdded")), _names(message.get("toolsRemoved"))
    if added or dropped:
        out.append("tools " + " ".join([*(f"+{n}" for n in added), *(f"-{n}" for n in dropped)]))
    return out


def _join(head: str, text: str, limit: int) -> str:
    return clip(f"{head}: {text}" if text else head, limit)


def _str(obj: dict[str, Any], key: str, limit: int = 60) -> str | None:
    value = obj.get(key)
    return clip(value, limit) if isinstance(value, str) else None


def object_title(obj: dict[str, Any], limit: int = TITLE_LIMIT) -> str:
    """A one-line title for a parsed header or entry object (no cross-line facts)."""
    etype = obj.get("type")
    if not isinstance(etype, str):
        return "(not an entry)"
    if etype in ("session", "session_header"):
        version = obj.get("version", 1)
        shown = version if isinstance(version, int) else clip(dumps(version), 20)
        ident = _str(obj, "id", 40)
        return _join(f"session v{shown}", ident or _str(obj, "cwd") or "", limit)
    if etype == "message" and isinstance(obj.get("message"), dict):
        return _message_title(obj["message"], limit)
    if etype == "model_change":
        model = "/".join(v for v in (_str(obj, "provider"), _str(obj, "modelId")) if v)
        return _join("model", model, limit)
    if etype == "thinking_level_change":
        return _join("thinking level", _str(obj, "thinkingLevel") or "", limit)
    if etype in ("compaction", "branch_summary"):
        return _join(etype, _str(obj, "summary", limit) or "", limit)
    if etype == "custom":
        return _join("custom", _str(obj, "customType") or "", limit)
    if etype == "custom_message":
        head = "custom_message " + (_str(obj, "customType", 40) or "")
        return _join(head.strip(), content_preview(obj.get("content"), limit), limit)
    if etype == "label":
        label = _str(obj, "label")
        return _join("label", f'"{label}"' if label else "(cleared)", limit)
    if etype == "session_info":
        name = _str(obj, "name")
        return _join("session name", f'"{name}"' if name else "(cleared)", limit)
    if etype == "usage":
        kind = _str(obj, "kind", 40) or ""
        used = read_usage(obj.get("usage"))
        cost = f"${used.cost:.4f}" if used is not None else ""
        return _join(
            f"usage {kind}".strip(), " · ".join(p for p in (_str(obj, "model"), cost) if p), limit
        )
    if etype == "context_edit":
        replacement = obj.get("replacement")
        if replacement is None:
            return _join("context edit", "omit", limit)
        content = replacement.get("content") if isinstance(replacement, dict) else None
        return _join("context edit", "replace: " + content_preview(content, limit), limit)
    return _generic_title(etype, obj, limit)


def _generic_title(etype: str, obj: dict[str, Any], limit: int) -> str:
    """Other dialects and unknown types: the first text-like field."""
    for key in ("content", "summary", "output", "text", "name", "toolName"):
        if key in obj:
            text = content_preview(obj[key], limit)  # a string: clipped
            if text:
                return _join(etype, text, limit)
    return clip(etype, limit)


def entry_title(analysis: Analysis, line: int, limit: int = TITLE_LIMIT) -> str:
    """A short one-line title for ``line``: type or role, then a preview of its content."""
    if not 0 <= line < len(analysis.infos):
        return ""
    info = analysis.infos[line]
    if info.kind is Kind.BLANK:
        return "(blank line)"
    if info.kind is Kind.INVALID:
        return "(invalid JSON)"
    if info.kind is Kind.OTHER:
        return "(not an entry)"
    title = object_title(info.obj, limit)
    target = info.obj.get("targetId") if info.type in ("label", "context_edit") else None
    if isinstance(target, str) and (found := analysis.tree.ids.get(target)) is not None:
        return clip(f"{title} → line {shown(found)}", limit)
    return title


def usage_of(obj: dict[str, Any]) -> Usage | None:
    """The usage of an assistant message entry (None for anything else)."""
    message = obj.get("message")
    if obj.get("type") != "message" or not isinstance(message, dict):
        return None
    return read_usage(message.get("usage")) if message.get("role") == "assistant" else None


def model_of(obj: dict[str, Any]) -> str | None:
    """``provider/model`` named by an assistant message, a model change or a v1 header."""
    name = _model_name(obj)
    return None if name is None else clip(name, 80)


def _model_name(obj: dict[str, Any]) -> str | None:
    """:func:`model_of`, not clipped."""
    message = obj.get("message")
    if obj.get("type") == "message" and isinstance(message, dict):
        if message.get("role") != "assistant":
            return None
        provider, model = message.get("provider"), message.get("model")
    else:
        provider, model = obj.get("provider"), obj.get("modelId", obj.get("model"))
    if not isinstance(model, str):
        return None
    return f"{provider}/{model}" if isinstance(provider, str) else model


def role_of(obj: dict[str, Any]) -> str | None:
    """The message role of a message entry."""
    message = obj.get("message")
    role = message.get("role") if isinstance(message, dict) else None
    return clip(role, 40) if isinstance(role, str) else None


def kind_label(obj: dict[str, Any]) -> str:
    """``role`` for messages, ``type`` otherwise (bounded)."""
    role = role_of(obj) if obj.get("type") == "message" else None
    etype = obj.get("type")
    return role or (clip(etype, 40) if isinstance(etype, str) else "line")


@dataclass(frozen=True, slots=True)
class EntryFacts:
    """What is known about one entry line, within the file's tree."""

    line: int
    type: str
    role: str | None
    title: str
    preview: str
    id: str | None
    parent_id: str | None
    parent: int | None
    depth: int | None
    children: tuple[int, ...]
    label: str | None
    label_lines: tuple[int, ...]
    model: str | None
    stop_reason: str | None
    usage: Usage | None
    timestamp: str | None
    on_active_path: bool
    is_leaf: bool
    in_cycle: bool


def entry_preview(obj: dict[str, Any], limit: int = PREVIEW_LIMIT) -> str:
    """A longer preview of an entry's content than its title (bounded, no base64)."""
    message = obj.get("message")
    if obj.get("type") == "message" and isinstance(message, dict):
        if message.get("role") == "bashExecution":
            parts = [message.get("command"), message.get("output")]
            return clip(" ⇒ ".join(clip(p, limit) for p in parts if isinstance(p, str)), limit)
        for key in ("content", "summary"):
            if key in message:
                return content_preview(message[key], limit)
        return ""
    for key in ("summary", "content", "name", "label", "data"):
        value = obj.get(key)
        if isinstance(value, str | list):
            return content_preview(value, limit)
        if isinstance(value, dict):
            return clip(dumps(shallow(value)), limit)
    return ""


def shallow(value: dict[str, Any]) -> dict[str, Any]:
    """A copy of a dict cut below its first level, strings clipped (for bounded previews)."""
    out: dict[str, Any] = {}
    for n, (key, item) in enumerate(value.items()):
        if n >= 8:
            out["…"] = "…"
            break
        if isinstance(item, str):
            out[key] = clip(item, 40)
        elif isinstance(item, dict | list):
            out[key] = "{…}" if isinstance(item, dict) else "[…]"
        else:
            out[key] = item
    return out


def entry_facts(a: Analysis, line: int) -> EntryFacts | None:
    """Facts about the entry on ``line`` (None when the line is not an entry)."""
    if not 0 <= line < len(a.infos) or a.infos[line].kind is not Kind.ENTRY:
        return None
    obj = a.infos[line].obj
    tree = a.tree
    parent_id = obj.get("parentId")
    message = obj.get("message")
    stop = message.get("stopReason") if isinstance(message, dict) else None
    stamp = obj.get("timestamp")
    refs = references_to(a, line)
    return EntryFacts(
        line=line,
        type=clip(str(obj.get("type")), 40),
        role=role_of(obj),
        title=entry_title(a, line),
        preview=entry_preview(obj),
        id=clip(tree.id_of[line], 80) if line in tree.id_of else None,
        parent_id=clip(parent_id, 80) if isinstance(parent_id, str) else None,
        parent=tree.parent.get(line),
        depth=tree.depth_of(line),
        children=tuple(tree.children.get(line, ())),
        label=labels(a).get(line),
        label_lines=tuple(s.line for s in refs if s.field == "targetId"),
        model=model_of(obj),
        stop_reason=clip(stop, 40) if isinstance(stop, str) else None,
        usage=usage_of(obj),
        timestamp=clip(stamp, 40) if isinstance(stamp, str) else None,
        on_active_path=line in tree.active_set,
        is_leaf=line == tree.leaf,
        in_cycle=line in tree.cycle,
    )


@dataclass(frozen=True, slots=True)
class SessionTotals:
    """Whole-session numbers for the header: size, shape, tokens, cost, models and time."""

    fmt: str
    version: int
    id: str | None
    name: str | None
    cwd: str | None
    parent_session: str | None
    entries: int
    roles: dict[str, int]
    branches: int
    leaves: int
    roots: int
    compactions: int
    tool_calls: int
    active_path: int
    usage: Usage
    models: tuple[str, ...]
    started: str | None
    ended: str | None
    duration: float | None
    split: PathSplit | None = None

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready dict (camelCase keys) for commands and the command line."""
        return {
            "format": self.fmt,
            "version": self.version,
            "id": self.id,
            "name": self.name,
            "cwd": self.cwd,
            "parentSession": self.parent_session,
            "entries": self.entries,
            "messages": dict(self.roles),
            "branchPoints": self.branches,
            "leaves": self.leaves,
            "roots": self.roots,
            "compactions": self.compactions,
            "toolCalls": self.tool_calls,
            "activePathLength": self.active_path,
            "tokens": {
                "input": self.usage.input,
                "output": self.usage.output,
                "cacheRead": self.usage.cache_read,
                "cacheWrite": self.usage.cache_write,
                "total": self.usage.total,
            },
            "cost": round(self.usage.cost, 6),
            "models": list(self.models),
            "started": self.started,
            "ended": self.ended,
            "durationSeconds": self.duration,
        }


def session_name(a: Analysis) -> str | None:
    """The session's name (:func:`~pi_lsp.core.pi.stats.session_name`), clipped."""
    name = stats_session_name(a.infos, a.tree.entries)
    return None if name is None else clip(name, 120)


class _Tally:
    """What :func:`session_totals` counts of each entry besides pi's stats: roles, models
    (raw names, clipped once at the end), compactions, the first and last time."""

    def __init__(self, header: dict[str, Any]) -> None:
        self.roles: dict[str, int] = {}
        self.models: dict[str, None] = {}
        if (first := _model_name(header)) is not None and header.get("type") == "session":
            self.models[first] = None
        self.compactions = 0
        when = parse_stamp(header.get("timestamp"))
        self.started, self.ended = when, when

    def add(self, info: LineInfo, obj: dict[str, Any]) -> None:
        """Count one entry (its result and value)."""
        etype = info.type
        role = info.role  # a message entry's role
        if etype == "message" and isinstance(role, str):
            self.roles[role] = self.roles.get(role, 0) + 1
        if (model := _model_name(obj)) is not None and model not in self.models:
            self.models[model] = None
        if etype == "compaction":
            self.compactions += 1
        if (when := parse_stamp(obj.get("timestamp"))) is not None:
            if self.started is None or when < self.started:
                self.started = when
            if self.ended is None or when > self.ended:
                self.ended = when

    def clipped_roles(self) -> dict[str, int]:
        """The roles counted, each clipped as :func:`role_of` clips it."""
        out: dict[str, int] = {}
        for role, count in self.roles.items():
            key = clip(role, 40)
            out[key] = out.get(key, 0) + count
        return out


@per_analysis
def session_totals(a: Analysis) -> SessionTotals:
    """Totals over every entry of the file (tokens, cost and tool calls: :mod:`.stats`),
    each line parsed once."""
    header = a.header
    tree = a.tree
    tally = _Tally(header)
    counted, split = analysis_totals(a, tally.add)  # tokens, cost and tool calls as pi counts them
    models = tuple(dict.fromkeys(clip(m, 80) for m in tally.models))
    started, ended = tally.started, tally.ended
    ident = header.get("id")
    cwd = header.get("cwd")
    parent = header.get("parentSession")
    return SessionTotals(
        fmt=a.fmt,
        version=a.version,
        id=clip(ident, 80) if isinstance(ident, str) else None,
        name=session_name(a),
        cwd=clip(cwd, 200) if isinstance(cwd, str) else None,
        parent_session=clip(parent, 300) if isinstance(parent, str) else None,
        entries=len(tree.entries),
        roles=tally.clipped_roles(),
        branches=len(tree.branch_points),
        leaves=len(tree.leaves),
        roots=len(tree.roots),
        compactions=tally.compactions,
        tool_calls=counted.tool_calls,
        active_path=len(tree.active),
        usage=counted.usage,
        models=models,
        started=started.isoformat().replace("+00:00", "Z") if started else None,
        ended=ended.isoformat().replace("+00:00", "Z") if ended else None,
        duration=(ended - started).total_seconds() if started and ended else None,
        split=split,
    )
