"""Hover texts (Markdown) for a cursor position: entries, references, keys and the header.

Every text starts with the type or role of what it describes in bold. Previews come from
:mod:`pi_lsp.core.views.describe`, so they are short, on one line and free of base64.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..checks.sizes import heaviest
from ..entries.lines import Kind
from ..entries.model import Analysis
from ..pi import context_edits
from ..pi.stats import PathSplit, Usage
from ..schemas import schema, schema_info
from ..text.cursor import cursor_at
from ..text.jsonl import PathItem
from ..text.jsontext import dumps
from .describe import (
    EntryFacts,
    SessionTotals,
    clip,
    content_preview,
    entry_facts,
    entry_title,
    kind_label,
    session_totals,
    shallow,
    system_changes,
)
from .numbering import shown
from .refs import TOOL_RESULT_FIELDS, Site, Subject, references_to, resolve, subject_at, tool_sites

_MD_SPECIAL = re.compile(r"[\\`*\[\]<>|#]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


@dataclass(frozen=True, slots=True)
class HoverText:
    """Markdown for a hover and the code-point span ``(start, end)`` it applies to."""

    markdown: str
    line: int
    span: tuple[int, int]


def md_escape(text: str) -> str:
    """Escape the Markdown characters that would change how a preview renders.

    Underscores inside words (``branch_summary``) cannot start emphasis and stay as they are.
    """
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(), text)


def code(text: str) -> str:
    """Inline code for a short value (backticks inside are made harmless)."""
    return "`" + clip(text, 80).replace("`", "'") + "`"


def _line_ref(a: Analysis, line: int) -> str:
    return f"line {shown(line)} ({md_escape(entry_title(a, line, 60))})"


def _usage_text(usage: Usage) -> str:
    return (
        f"{usage.total:,} (in {usage.input:,} · out {usage.output:,} · cache read "
        f"{usage.cache_read:,} · cache write {usage.cache_write:,}) · cost ${usage.cost:.4f}"
    )


def entry_markdown(a: Analysis, facts: EntryFacts) -> str:
    """The hover of an entry: type/role, preview, tree position, model, usage and time."""
    head = f"**{md_escape(facts.role or facts.type)}**"
    if facts.role:
        head += f" · {md_escape(facts.type)}"
    if facts.id is not None:
        head += f" · {code(facts.id)}"
    if facts.label:
        head += f" · 🏷 {md_escape(clip(facts.label, 60))}"
    out = [head, ""]
    if facts.preview:
        out += [f"> {md_escape(facts.preview)}", ""]
    obj = a.infos[facts.line].obj
    out += [f"{md_escape(text)}" for text in _kind_notes(a, facts.line, obj)]
    where = f"line {shown(facts.line)}"
    if facts.depth is not None:
        where += f" · depth {facts.depth}"
    where += " · on the active path" if facts.on_active_path else " · not on the active path"
    if facts.is_leaf:
        where += " · **leaf** (pi resumes here)"
    items = [where]
    if facts.parent is not None:
        items.append(f"parent: {_line_ref(a, facts.parent)}")
    elif facts.parent_id is not None:
        items.append(f"parent: {code(facts.parent_id)} names no entry in this file")
    elif facts.line in a.tree.entries and a.version >= 2:
        items.append("parent: none (a root)")
    if facts.in_cycle:
        items.append("**in a parentId cycle**")
    if facts.children:
        lines = ", ".join(str(shown(c)) for c in facts.children[:12])
        more = f" and {len(facts.children) - 12} more" if len(facts.children) > 12 else ""
        what = " (branch point)" if len(facts.children) > 1 else ""
        items.append(f"children: line{'s' if len(facts.children) > 1 else ''} {lines}{more}{what}")
    if facts.label_lines:
        items.append("labelled by: line " + ", ".join(str(shown(n)) for n in facts.label_lines[:12]))
    if facts.model:
        model = f"model: {md_escape(facts.model)}"
        if facts.stop_reason:
            model += f" · stopReason: {md_escape(facts.stop_reason)}"
        items.append(model)
    if facts.usage is not None:
        items.append(f"tokens: {_usage_text(facts.usage)}")
    if facts.timestamp:
        items.append(f"time: {md_escape(facts.timestamp)}")
    out += [f"- {item}" for item in items]
    return "\n".join(out)


_EDIT_NONE = {
    "missing": "names no entry: pi ignores it",
    "off-path": "has no effect: its target is not on this edit's path",
    "summarised": "has no effect: its target lies before the newest compaction's kept range",
    "no-message": "has no effect: its target adds no message to the context",
    "not-editable": "has no effect: pi replaces the content of user, assistant, tool-result "
    "and custom messages only",
}


def _kind_notes(a: Analysis, line: int, obj: dict[str, object]) -> list[str]:
    """Paragraphs that say what a newer entry kind does (and since which pi version)."""
    notes = []
    since = schema_info.since(schema.schema_key(a.fmt, a.version), obj)
    if since:
        notes.append(f"Written by pi {since} and later.")
    message = obj.get("message")
    if (
        obj.get("type") == "message"
        and isinstance(message, dict)
        and message.get("role") == "system"
    ):
        changes = system_changes(message)
        notes.append(
            "System prompt and tools: "
            + ("; ".join(changes) if changes else "no section or tool changes")
            + ". pi replays system messages in order; a compaction checkpoint replaces them."
        )
    found = context_edits.effect(a, line)
    if found is not None:
        target = f"line {shown(found.target)}" if found.target is not None else found.target_id
        if found.action == "omit":
            notes.append(f"Context edit: omits {target} from the context pi sends.")
        elif found.action == "replace":
            replacement = obj.get("replacement")
            content = replacement.get("content") if isinstance(replacement, dict) else None
            notes.append(
                f"Context edit: replaces the content of {target} with: "
                + content_preview(content, 120)
            )
        else:
            notes.append(f"Context edit of {target} {_EDIT_NONE[found.reason]}.")
    if obj.get("type") == "usage":
        notes.append(
            "Usage entry: counted in the session's tokens and cost; not in the context, hidden from pi's tree."
        )
    return [n for note in notes for n in (note, "")]


def _duration(seconds: float) -> str:
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m {secs:02d}s"
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def split_text(split: PathSplit | None, tokens: bool = True) -> str | None:
    """What the active path and the abandoned branches cost (None: nothing was abandoned)."""

    def _cost_text(usage: Usage) -> str:
        return f"${usage.cost:.4f}" + (f" ({usage.total:,} tokens)" if tokens else "")

    if split is None:
        return None
    active, abandoned, n = split
    return (
        f"active path {_cost_text(active)} · {n} abandoned branch{'es' if n != 1 else ''} "
        f"{_cost_text(abandoned)}"
    )


def totals_markdown(t: SessionTotals) -> str:
    """The hover of the header: the whole session's totals (tokens and cost as pi counts them)."""
    head = f"**session** · {t.fmt} v{t.version}"
    if t.id:
        head += f" · {code(t.id)}"
    out = [head, ""]
    if t.name:
        out += [f"**{md_escape(t.name)}**", ""]
    roles = ", ".join(f"{md_escape(r)} {n:,}" for r, n in sorted(t.roles.items()))
    items = []
    if t.cwd:
        items.append(f"cwd: {md_escape(t.cwd)}")
    if t.parent_session:
        items.append(f"forked from: {md_escape(t.parent_session)}")
    items.append(f"entries: {t.entries:,}" + (f" (messages: {roles})" if roles else ""))
    items.append(
        f"tree: {t.roots} root{'s' if t.roots != 1 else ''}, {t.branches} branch point"
        f"{'s' if t.branches != 1 else ''}, {t.leaves} lea{'ves' if t.leaves != 1 else 'f'}; "
        f"active path {t.active_path:,} entries"
    )
    items.append(f"compactions: {t.compactions} · tool calls: {t.tool_calls:,}")
    items.append(f"tokens: {_usage_text(t.usage)}")
    if (split := split_text(t.split)) is not None:
        items.append(md_escape(split))
    if t.models:
        items.append("models: " + ", ".join(md_escape(m) for m in t.models[:10]))
    if t.duration is not None:  # (then both times are known)
        items.append(f"duration: {_duration(t.duration)} ({t.started} → {t.ended})")
    out += [f"- {item}" for item in items]
    return "\n".join(out)


def _target_markdown(a: Analysis, site: Site) -> str:
    targets = resolve(a, site)
    field = md_escape(site.field)
    if site.field == "parentSession":
        path = targets[0].file or ""
        exists = "exists" if os.path.isfile(path) else "**not found**"
        return f"**parentSession** → {md_escape(clip(path, 300))} ({exists})"
    if not targets:
        what = "no line" if site.field == "firstKeptEntryIndex" else "no entry"
        value = str(site.value)
        if site.field == "fromId" and value == "root":
            return '**fromId** `"root"`: the abandoned branch started at the root'
        return f"**{field}** {code(value)} names {what} in this file"
    if site.field in TOOL_RESULT_FIELDS:
        calls = [_call_markdown(a, t.line, int(t.path[-1])) for t in targets[:3]]
        return "\n\n".join(calls)
    line = targets[0].line
    assert line is not None
    facts = entry_facts(a, line)
    assert facts is not None  # a link names an entry's line or nothing
    return entry_markdown(a, facts) + f"\n\n*{field} → line {shown(line)}*"


def _call_markdown(a: Analysis, line: int | None, block: int) -> str:
    assert line is not None  # (a call's target always has its line)
    obj = a.infos[line].obj
    # the calls indexed: pi's message.content[...] toolCall blocks (of a "message" entry),
    # the second dialect's content[...] tool_use blocks; each a dict in that list
    content = obj["message"]["content"] if obj.get("type") == "message" else obj["content"]
    call = content[block]
    name = call.get("name")
    args = call.get("arguments", call.get("input"))
    head = f"**toolCall** {code(name if isinstance(name, str) else '?')} · line {shown(line)}"
    if isinstance(args, dict):
        head += f"\n\n> {md_escape(clip(dumps(shallow(args)), 240))}"
    return head


def _tool_markdown(a: Analysis, subject: Subject) -> str:
    assert subject.tool_id is not None  # a tool call's own id, whose call the index lists
    calls, results = tool_sites(a, subject.tool_id)
    head = _call_markdown(a, *calls[0])
    if not results:
        return head + "\n\n- no toolResult answers this call"
    answered = ", ".join(_line_ref(a, site.line) for site in results[:6])
    return head + f"\n\n- answered by: {answered}"


def _schema_name(a: Analysis, line: int) -> str | None:
    info = a.infos[line]
    if info.kind is Kind.HEADER:
        return "header"
    key = schema.schema_key(a.fmt, a.version)
    etype = info.obj.get("type")
    return etype if isinstance(etype, str) and schema.has_definition(key, etype) else None


def _key_markdown(a: Analysis, line: int, path: tuple[PathItem, ...]) -> str | None:
    name = _schema_name(a, line)
    if name is None:
        return None
    key = schema.schema_key(a.fmt, a.version)
    desc = schema_info.description(key, name, path, a.infos[line].value)
    if desc is None:
        return None
    where = ".".join(str(p) for p in path)
    head = "**session**" if name == "header" else f"**{md_escape(kind_label(a.infos[line].obj))}**"
    return f"{head} · {code(where)}\n\n{desc}"


def hover_at(a: Analysis, line: int, column: int) -> HoverText | None:
    """The hover for a cursor at ``(line, column)`` (code points), or None."""
    if not 0 <= line < len(a.infos):
        return None
    info = a.infos[line]
    if info.kind not in (Kind.ENTRY, Kind.HEADER):
        return None
    text = a.lines[line]
    cur = cursor_at(text, column)
    if cur is None:
        return None
    whole = a.line_span(line)
    if cur.on_key and cur.node.key is not None:
        md = _key_markdown(a, line, cur.path)
        if md is not None:
            return HoverText(md, line, cur.node.key)
    subject = subject_at(a, line, column, cur)
    if subject is not None and subject.site is not None:
        return HoverText(_target_markdown(a, subject.site), line, subject.span)
    if subject is not None and subject.kind == "tool":
        return HoverText(_tool_markdown(a, subject), line, subject.span)
    if info.kind is Kind.HEADER:
        md = totals_markdown(session_totals(a))
        heavy = heaviest_text(a)
        if heavy is not None:
            md += f"\n- {md_escape(heavy)}"
        return HoverText(md, line, (whole.start, whole.end))
    facts = entry_facts(a, line)
    assert facts is not None  # the line is an entry
    md = entry_markdown(a, facts)
    if subject is not None and subject.declaration:
        refs = references_to(a, line)
        md += f"\n- referenced by {len(refs)} link{'s' if len(refs) != 1 else ''}"
        return HoverText(md, line, subject.span)
    return HoverText(md, line, (whole.start, whole.end))


def heaviest_text(a: Analysis) -> str | None:
    """``largest entries: ...`` when PI500 reports a line, else None."""
    if not any(f.code == "PI500" for f in a.findings):
        return None
    top = heaviest(a)
    return "largest entries: " + "; ".join(w.describe(shown(w.line)) for w in top) if top else None
