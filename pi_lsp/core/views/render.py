"""A conversation as Markdown and as HTML: the one rendering every client shows.

:func:`parts` reads an item of a :class:`~pi_lsp.core.views.conversation.Conversation` into
:class:`Part` records (Markdown text, thinking, a tool call, output, an image, a note);
:func:`markdown` and :func:`html_fragment` write the same parts, so the Neovim split, the
VS Code webview and ``pi-lsp export`` show one conversation. Markdown is rendered to HTML
by markdown-it-py (CommonMark, raw HTML off: a session's ``<script>`` stays text), code by
Pygments; every string of the session is escaped, links get no ``href`` and images in the
Markdown no ``src``, so nothing loads from the network. An image block of the session is
shown as a ``data:`` URI (its base64 is already there), never written into the Markdown.
Long output is folded and cut (``… N more lines``), thinking is folded.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable, Container, Iterator, Sequence
from typing import Any, NamedTuple

from ..pi.sent import NO_RESULT
from ..pi.stats import read_usage
from ..text.findings import Finding
from ..text.jsontext import dumps
from .conversation import BranchPoint, Conversation, Item
from .describe import clip, system_changes
from .numbering import shown

Scrub = Callable[[str], str]
"""What every string of the session goes through before it is written (identity, or
:func:`pi_lsp.core.redact.redact`)."""

FOLD_LINES = 12
"""Output longer than this many lines is folded."""
MAX_LINES = 200
"""Output is cut after this many lines (``… N more lines``)."""
MAX_CHARS = 20_000
"""... or after this many characters."""
MAX_TEXT = 200_000
"""A Markdown text (user, assistant) is cut after this many characters."""
MAX_IMAGE = 2_000_000
"""An image whose base64 is longer than this is named, not shown."""
WINDOW = 400
"""How many items a preview of a long conversation renders whole (the rest as stubs)."""
HIGHLIGHT_MAX = 50_000
"""Code longer than this is not highlighted (only escaped)."""
OUTPUT_HIGHLIGHT_MAX = 1_000
"""A tool's output (a file read) longer than this is shown as plain text (Pygments' lexers
take some 2-4 ms a KiB on prose)."""

_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
_BACKTICKS = re.compile(r"`{3,}")

LABELS = {
    "user": "User",
    "assistant": "Assistant",
    "tool-result": "Tool result",
    "bash": "Bash",
    "custom": "Custom message",
    "system": "System",
    "compaction": "Compaction",
    "branch-summary": "Branch summary",
    "model-change": "Model",
    "thinking-change": "Thinking level",
    "context-edit": "Context edit",
    "label": "Label",
    "session-info": "Session name",
    "custom-entry": "Custom entry",
    "other": "Entry",
}
"""The heading of each item kind."""

MARKERS = frozenset(
    {
        "model-change",
        "thinking-change",
        "context-edit",
        "label",
        "session-info",
        "custom-entry",
        "other",
    }
)
"""Kinds shown as one slim line."""


class Part(NamedTuple):
    """One piece of an item's body.

    ``kind``: ``md`` (Markdown ``text``), ``thinking``, ``call`` (a tool call: ``title``
    the tool, ``text`` its short arguments as JSON), ``arg`` (a long argument of the call
    before it: ``title`` its name, ``text`` its value, ``lang`` its language), ``output`` (plain text, folded when long;
    ``title`` says what), ``code`` (``text`` in language ``lang``), ``image`` (``lang`` the
    MIME type, ``text`` the base64 data or ``""`` when not shown, ``title`` its size), or
    ``note`` (one short line).
    """

    kind: str
    text: str
    title: str = ""
    lang: str = ""


# -- reading items ---------------------------------------------------------------------


def _message(item: Item) -> dict[str, Any]:
    """The message shown for ``item``: what pi sends (a context edit's replacement
    included), else the entry's own (the entry itself for a summary or custom message)."""
    for m in reversed(item.messages):
        if isinstance(m.message, dict) and m.message.get("role") != "system":
            return m.message
    entry = item.entry
    value = entry.get("message")
    if isinstance(value, dict):
        return value
    return entry if entry.get("type") in _SELF_SHOWN else {}


_SELF_SHOWN = frozenset({"custom_message", "compaction", "branch_summary"})
"""Entry types shown from their own fields (when pi sends no message for them)."""


def _string(value: Any) -> str:
    return value if isinstance(value, str) else ""


def parts(item: Item, message: dict[str, Any]) -> list[Part]:
    """The body of ``item`` as parts (markers have none), ``message`` what it shows
    (:func:`_message`)."""
    kind = item.kind
    if kind in MARKERS:
        return []
    if kind == "compaction":
        return _summary(message, "tokensBefore")
    if kind == "branch-summary":
        return _summary(message, "fromId")
    if kind == "bash":
        return _bash(message)
    if kind == "system":
        out = [Part("note", change) for change in system_changes(message)]
        text = _content_text(message.get("content"))
        return [*out, Part("output", text, "system prompt")] if text else out
    out = []
    if kind == "custom" and message.get("display") is False:
        out.append(Part("note", "not shown to the user (display: false)"))
    if kind == "tool-result":
        if message.get("isError") is True:
            out.append(Part("note", "the tool reported an error"))
        code = _language_of(item.source) if item.source else ""
        return out + [
            p._replace(lang=code) if p.kind == "output" else p
            for p in _blocks(message.get("content"), text_kind="output")
        ]
    out += _blocks(message.get("content"), text_kind="md")
    if kind == "assistant":
        out += _stop(message)
    return out


def _summary(source: dict[str, Any], fact: str) -> list[Part]:
    out = [Part("md", _string(source.get("summary")))]
    value = source.get(fact)
    if isinstance(value, int | float) and not isinstance(value, bool):
        out.append(Part("note", f"{value:,.0f} tokens before"))
    elif isinstance(value, str):
        out.append(Part("note", f"from {value}"))
    return out


def _bash(message: dict[str, Any]) -> list[Part]:
    out = [Part("code", _string(message.get("command")), lang="bash")]
    output = _string(message.get("output"))
    out.append(Part("output", output, "output") if output else Part("note", "(no output)"))
    code = message.get("exitCode")
    if message.get("cancelled") is True:
        out.append(Part("note", "command cancelled"))
    elif isinstance(code, int) and code != 0:
        out.append(Part("note", f"exit code {code}"))
    if message.get("excludeFromContext") is True:
        out.append(Part("note", "!! command: kept out of the context"))
    return out


def _stop(message: dict[str, Any]) -> list[Part]:
    reason = message.get("stopReason")
    if reason in ("error", "aborted"):
        detail = _string(message.get("errorMessage"))
        return [Part("note", f"stopped: {reason}" + (f": {clip(detail, 300)}" if detail else ""))]
    return []


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        _string(b.get("text")) for b in content if isinstance(b, dict) and b.get("type") == "text"
    )


def _blocks(content: Any, text_kind: str) -> list[Part]:
    """The parts of a message content (a string or a list of blocks)."""
    if isinstance(content, str):
        return [Part(text_kind, content)] if content else []
    if not isinstance(content, list):
        return []
    out = []
    for block in content:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text":
            out.append(Part(text_kind, _string(block.get("text"))))
        elif btype == "thinking":
            text = _string(block.get("thinking"))
            out.append(Part("thinking", text) if text else Part("note", "thinking (redacted)"))
        elif btype == "toolCall":
            out += _call(block)
        elif btype == "image":
            out.append(_image(block))
    return out


def _call(block: dict[str, Any]) -> list[Part]:
    """A tool call: its name and short arguments as JSON, then each long or multi-line
    string argument as text of its own (code in the language of the call's ``path``)."""
    name = _string(block.get("name")) or "tool"
    args = block.get("arguments")
    if not isinstance(args, dict):
        return [Part("call", dumps(args, indent=True) if args is not None else "", name, "json")]
    long = {k: v for k, v in args.items() if isinstance(v, str) and ("\n" in v or len(v) > 160)}
    rest = {k: v for k, v in args.items() if k not in long}
    path = next((v for k, v in args.items() if k in PATH_KEYS and isinstance(v, str)), "")
    code = _language_of(path) if path else ""
    return [
        Part("call", dumps(rest, indent=True) if rest else "", name, "json"),
        *(
            Part(
                "arg", value, key, "bash" if key == "command" else code if key in CODE_KEYS else ""
            )
            for key, value in long.items()
        ),
    ]


PATH_KEYS = ("path", "file_path", "filePath")
CODE_KEYS = frozenset({"content", "oldText", "newText", "old_string", "new_string", "code"})
"""Arguments that hold code of the file the call's ``path`` names."""


def _language_of(path: str) -> str:
    """The Pygments name of the language of the file ``path`` (``""``: none known)."""
    name = path.rsplit("/", 1)[-1]
    suffix = name.rsplit(".", 1)[-1] if "." in name else ""
    return _language("x." + suffix if suffix else name)  # one lookup per suffix


@functools.lru_cache(maxsize=256)
def _language(filename: str) -> str:
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_for_filename(filename)
    except ClassNotFound:
        return ""
    return str(lexer.aliases[0]) if lexer.aliases else ""


def _image(block: dict[str, Any]) -> Part:
    data = _string(block.get("data"))
    mime = _string(block.get("mimeType"))
    size = f"{len(data) * 3 // 4 / 1024:,.0f} KB"
    ok = mime in _IMAGE_TYPES and len(data) <= MAX_IMAGE and _BASE64.fullmatch(data) is not None
    return Part("image", data if ok else "", size, mime)


def _cut(text: str) -> tuple[str, str]:
    """``text`` cut to :data:`MAX_LINES` lines and :data:`MAX_CHARS` characters, and what was
    left out (``""`` when nothing)."""
    head = text[:MAX_CHARS]
    lines = head.split("\n")
    if len(lines) > MAX_LINES:
        head = "\n".join(lines[:MAX_LINES])
    if len(head) == len(text):
        return text, ""
    rest = text.count("\n", len(head)) + (0 if text[len(head) :].startswith("\n") else 1)
    return head, f"… {rest:,} more line{'s' if rest != 1 else ''}"


def _capital(title: str) -> str:
    """A fold's label: ``title`` (default ``output``) with a capital first letter."""
    title = title or "output"
    return title[:1].upper() + title[1:]


def _lines(text: str) -> str:
    """How many lines ``text`` has, in words."""
    n = text.count("\n") + 1
    return f"{n:,} line{'s' if n != 1 else ''}"


def _folds(text: str) -> bool:
    return text.count("\n", 0, MAX_CHARS) >= FOLD_LINES or len(text) > 2000


# -- headings --------------------------------------------------------------------------


def _usage(item: Item, message: dict[str, Any]) -> str:
    """Tokens and cost of an assistant turn, and its model."""
    if item.kind != "assistant":
        return ""
    bits = []
    model = message.get("model")
    if isinstance(model, str):
        bits.append(clip(model, 40))
    used = read_usage(message.get("usage"))
    if used is not None and used.total:
        bits.append(f"in {used.input:,.0f} · out {used.output:,.0f}")
        if used.cache_read or used.cache_write:
            bits.append(f"cache {used.cache_read:,.0f}r/{used.cache_write:,.0f}w")
        if used.cost:
            bits.append(f"${used.cost:.4f}")
    return " · ".join(bits)


def _head(item: Item, message: dict[str, Any]) -> str:
    """The heading of a non-marker item (its kind, and a tool's or custom type's name)."""
    label = LABELS[item.kind]
    name = message.get("toolName") if item.kind == "tool-result" else message.get("customType")
    return f"{label}: {clip(name, 40)}" if isinstance(name, str) and name else label


def _notes(item: Item) -> list[str]:
    out = []
    if item.not_sent is not None:
        out.append(f"not sent: {item.not_sent}")
    if item.edited is not None and item.messages:
        out.append(f"content replaced by the context edit on line {shown(item.edited)}")
    if item.unanswered:
        calls = ", ".join(item.unanswered)
        out.append(f'unanswered call {calls}: pi-ai sends "{NO_RESULT}"')
    return out


def window(conv: Conversation, around: int | None, size: int = WINDOW) -> set[int] | None:
    """The lines of the items to render whole: all when there are at most ``size`` items,
    else ``size`` items centred on the item nearest line ``around`` (the last ``size``
    items, where pi resumes, when ``around`` is None)."""
    items = conv.items
    if len(items) <= size:
        return None
    at = len(items) - 1
    if around is not None:
        at = min(range(len(items)), key=lambda n: abs(items[n].line - around))
    start = max(0, min(at - size // 2, len(items) - size))
    return {item.line for item in items[start : start + size]}


# -- Markdown --------------------------------------------------------------------------


def _fence(text: str) -> str:
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def _md_block(text: str, lang: str = "") -> list[str]:
    fence = _fence(text)
    return [f"{fence}{lang}", *text.split("\n"), fence]


def _md_part(part: Part, scrub: Scrub) -> list[str]:
    kind = part.kind
    if kind == "md":
        text = _closed(scrub(part.text[:MAX_TEXT]))
        more = (
            f"\n\n*… {len(part.text) - MAX_TEXT:,} more characters*"
            if len(part.text) > MAX_TEXT
            else ""
        )
        return [*(text + more).split("\n"), ""]
    if kind == "note":
        return [f"*{_md_inline(scrub(part.text))}*", ""]
    if kind == "image":
        return [f"*[image {part.lang or '?'}, {part.title}]*", ""]
    if kind == "code":
        return [*_md_block(scrub(part.text), part.lang), ""]
    body, more = _cut(scrub(part.text))
    block = _md_block(body, part.lang)
    if more:
        block.append(f"*{more}*")
    if kind == "call":
        return [f"**→ {_md_inline(scrub(part.title))}**", "", *(block if part.text else []), ""]
    if kind == "arg" and not _folds(part.text):
        return [f"*{_md_inline(scrub(part.title))}:*", "", *block, ""]
    summary = "Thinking" if kind == "thinking" else _md_inline(scrub(_capital(part.title)))
    if kind == "thinking" or _folds(part.text):
        return [
            f"<details><summary>{summary} ({_lines(part.text)})</summary>",
            "",
            *block,
            "",
            "</details>",
            "",
        ]
    return [*block, ""]


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)


def _closed(text: str) -> str:
    """``text`` with a code fence it leaves open closed, so the items after it stay out of
    it (CommonMark: a fence closes at a line of at least as many of its characters)."""
    opened = ""
    for m in _FENCE.finditer(text):
        mark = m.group(1)
        if not opened:
            opened = mark
        elif mark[0] == opened[0] and len(mark) >= len(opened):
            end = text.find("\n", m.end())
            if not text[m.end() : end if end >= 0 else len(text)].strip():
                opened = ""
    return f"{text}\n{opened}" if opened else text


def _md_inline(text: str) -> str:
    """One line of text that Markdown shows as it is (no emphasis, code or HTML)."""
    return re.sub(r"([\\`*_\[\]<>#|~])", r"\\\1", " ".join(text.split()))


def _md_finding(f: Finding) -> str:
    return f"> **{f.code}** {f.severity.label}: {_md_inline(f.message)}"


def _md_branches(point: BranchPoint, scrub: Scrub) -> list[str]:
    names = [
        f"**{_md_inline(scrub(b.title))}** (shown)"
        if b.current
        else f"{_md_inline(scrub(b.title))} (leaf `{b.id}`)"
        for b in point.leaves
    ]
    return [f"> {len(point.leaves)} branches here: " + " · ".join(names), ""]


def markdown(
    conv: Conversation,
    scrub: Scrub = str,
    skip: Container[int] = (),
    bodies: Container[int] | None = None,
) -> tuple[str, list[int]]:
    """The conversation as Markdown, and the 0-based line where each item starts (-1 for
    the items on the lines in ``skip``, which are left out). With ``bodies``, only the
    items on those lines are shown whole; the others as their heading (a stub)."""
    starts: list[int] = []
    text = "".join(markdown_chunks(conv, scrub, skip, bodies, starts))
    return text.rstrip("\n") + "\n", starts


def markdown_chunks(
    conv: Conversation,
    scrub: Scrub = str,
    skip: Container[int] = (),
    bodies: Container[int] | None = None,
    starts: list[int] | None = None,
) -> Iterator[str]:
    """:func:`markdown`'s text a piece of whole lines at a time (an export writes them
    without holding the whole text twice), each item's start line appended to ``starts``."""
    head = [_md_inline(_summary_line(conv)), ""]
    if conv.header_findings and not skip:
        head += [*map(_md_finding, conv.header_findings), ""]
    count = len(head)
    yield "\n".join(head) + "\n"
    points = {p.line: p for p in conv.branches}
    for item in conv.items:
        if item.line in skip:
            if starts is not None:
                starts.append(-1)
            continue
        if starts is not None:
            starts.append(count)
        lines = _md_item(item, scrub) if bodies is None or item.line in bodies else _md_stub(item)
        if item.line in points:
            lines += _md_branches(points[item.line], scrub)
        count += len(lines)
        yield "\n".join(lines) + "\n"


def _md_item(item: Item, scrub: Scrub) -> list[str]:
    notes = _notes(item)
    where = f"line {shown(item.line)}"
    if item.kind in MARKERS:
        text = " · ".join([_md_inline(scrub(item.title)), where, *notes])
        lines = [f"*{text}*", ""]
    else:
        message = _message(item)
        usage = _usage(item, message)
        head = " · ".join(p for p in (_head(item, message), where, usage, *notes) if p)
        lines = [f"## {_md_inline(scrub(head))}", ""]
        for part in parts(item, message):
            lines += _md_part(part, scrub)
    if item.findings:
        lines += [*map(_md_finding, item.findings), ""]
    return lines


def _md_stub(item: Item) -> list[str]:
    """An item not rendered (outside the window): its kind and line."""
    text = " · ".join([LABELS[item.kind], f"line {shown(item.line)}", *_notes(item)])
    return [f"*{text}*" if item.kind in MARKERS else f"## {text}", ""]


def _summary_line(conv: Conversation) -> str:
    sent = sum(1 for item in conv.items if item.messages and item.not_sent is None)
    kept_out = sum(1 for item in conv.items if item.not_sent is not None)
    leaf = f"leaf {conv.leaf_id}" if conv.leaf_id is not None else "no entries"
    resumed = " (the leaf pi resumes)" if conv.leaf_id == conv.resumed_id else ""
    cycle = " · the path is a parent cycle: pi would hang here" if conv.context.cycle else ""
    return f"{leaf}{resumed} · {len(conv.items)} items · {sent} sent · {kept_out} not sent{cycle}"


# -- HTML ------------------------------------------------------------------------------


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


@functools.cache
def _markdown_it() -> Any:
    """The Markdown renderer: CommonMark with tables and strikethrough, raw HTML off,
    code highlighted, links without ``href`` and images without ``src``."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "highlight": _highlight}).enable(
        ["table", "strikethrough"]
    )
    rules = md.renderer.rules  # type: ignore[attr-defined]  # RendererHTML's, not the protocol's
    rules["link_open"] = _link_open
    rules["link_close"] = lambda *_: "</a>"
    rules["image"] = _image_ref
    return md


def _link_open(tokens: Sequence[Any], idx: int, *_: Any) -> str:
    return f'<a class="pi-link" title="{_esc(str(tokens[idx].attrGet("href") or ""))}">'


def _image_ref(tokens: Sequence[Any], idx: int, *_: Any) -> str:
    token = tokens[idx]
    alt = "".join(child.content for child in token.children or ())
    return f'<span class="pi-image-ref">[image: {_esc(alt)} {_esc(str(token.attrGet("src") or ""))}]</span>'


def _highlight(code: str, lang: str, _attrs: Any) -> str:
    """Pygments' HTML for ``code`` in ``lang`` (``""``: escaped by markdown-it)."""
    if not lang or len(code) > HIGHLIGHT_MAX:
        return ""
    lexer = _lexer(lang.split()[0].lower())
    if lexer is None:
        return ""
    from pygments import highlight

    return str(highlight(code, lexer, _formatter()))


@functools.cache
def _formatter() -> Any:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True)


@functools.lru_cache(maxsize=64)
def _lexer(name: str) -> Any:
    """The Pygments lexer called ``name`` (None: no such lexer)."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(name)
    except ClassNotFound:
        return None


def _md_html(text: str) -> str:
    return str(_markdown_it().render(text))


def _pre(text: str, lang: str = "") -> str:
    code = _highlight(text, lang, None) if lang else ""
    return f'<pre class="pi-code"><code>{code or _esc(text)}</code></pre>'


def _html_part(part: Part, scrub: Scrub) -> str:
    kind = part.kind
    if kind == "md":
        text = scrub(part.text[:MAX_TEXT])
        more = (
            f'<p class="pi-more">… {len(part.text) - MAX_TEXT:,} more characters</p>'
            if len(part.text) > MAX_TEXT
            else ""
        )
        return f'<div class="pi-text">{_md_html(text)}{more}</div>'
    if kind == "note":
        return f'<p class="pi-note">{_esc(scrub(part.text))}</p>'
    if kind == "image":
        if not part.text:
            return f'<p class="pi-note">[image {_esc(part.lang or "?")}, {_esc(part.title)}]</p>'
        return f'<img class="pi-image" alt="image {_esc(part.title)}" src="data:{part.lang};base64,{part.text}">'
    if kind == "code":
        return _pre(scrub(part.text), part.lang)
    body, more = _cut(scrub(part.text))
    # output stays plain unless short: highlighting long reads (folded) costs the most
    lang = "" if kind == "output" and len(part.text) > OUTPUT_HIGHLIGHT_MAX else part.lang
    block = _pre(body, lang) + (f'<p class="pi-more">{_esc(more)}</p>' if more else "")
    if kind == "call":
        shown_args = block if part.text else ""
        return f'<div class="pi-call"><div class="pi-call-name">→ {_esc(scrub(part.title))}</div>{shown_args}</div>'
    if kind == "arg" and not _folds(part.text):
        return f'<div class="pi-arg"><div class="pi-arg-name">{_esc(scrub(part.title))}</div>{block}</div>'
    if kind == "thinking":
        return (
            f'<details class="pi-thinking"><summary>Thinking ({_lines(part.text)})</summary>'
            f'<div class="pi-text">{_md_html(body)}</div>'
            + (f'<p class="pi-more">{_esc(more)}</p>' if more else "")
            + "</details>"
        )
    if _folds(part.text):
        label = _esc(scrub(_capital(part.title)))
        return f'<details class="pi-output"><summary>{label} ({_lines(part.text)})</summary>{block}</details>'
    return f'<div class="pi-output">{block}</div>'


def _html_finding(f: Finding) -> str:
    return (
        f'<div class="pi-finding pi-{f.severity.label}" data-code="{_esc(f.code)}">'
        f"<b>{_esc(f.code)}</b> {_esc(f.message)}</div>"
    )


def _html_branches(point: BranchPoint, scrub: Scrub, anchors: bool) -> str:
    links = []
    for b in point.leaves:
        current = ' aria-current="true"' if b.current else ""
        href = f' href="#pi-leaf-{_esc(b.id)}"' if anchors else ""
        links.append(
            f'<a class="pi-branch{" pi-current" if b.current else ""}" data-leaf="{_esc(b.id)}"'
            f"{href}{current}>{_esc(scrub(b.title))}</a>"
        )
    return (
        f'<nav class="pi-branches" data-line="{point.line}">{len(point.leaves)} branches here: '
        + " ".join(links)
        + "</nav>"
    )


def _classes(item: Item) -> str:
    classes = f"pi-item pi-{item.kind}" + (" pi-not-sent" if item.not_sent is not None else "")
    return classes + " pi-marker" if item.kind in MARKERS else classes


def _html_stub(item: Item) -> str:
    """An item not rendered (outside the window): its kind and line."""
    return (
        f'<section class="{_classes(item)} pi-stub" data-line="{item.line}" id="pi-line-{item.line}">'
        f'<header class="pi-head"><span class="pi-role">{LABELS[item.kind]}</span> '
        f'<a class="pi-line" data-line="{item.line}" href="#pi-line-{item.line}">line {shown(item.line)}</a>'
        "</header></section>"
    )


def _html_item(item: Item, scrub: Scrub) -> str:
    classes = _classes(item)
    where = f'<a class="pi-line" data-line="{item.line}" href="#pi-line-{item.line}">line {shown(item.line)}</a>'
    notes = "".join(f'<span class="pi-note-tag">{_esc(n)}</span>' for n in _notes(item))
    if item.kind in MARKERS:
        head = f'<span class="pi-title">{_esc(scrub(item.title))}</span>'
        body = ""
    else:
        message = _message(item)
        usage = _usage(item, message)
        head = f'<span class="pi-role">{_esc(scrub(_head(item, message)))}</span>' + (
            f' <span class="pi-usage">{_esc(usage)}</span>' if usage else ""
        )
        body = (
            '<div class="pi-body">'
            + "".join(_html_part(p, scrub) for p in parts(item, message))
            + "</div>"
        )
    findings = "".join(map(_html_finding, item.findings))
    return (
        f'<section class="{classes}" data-line="{item.line}" id="pi-line-{item.line}">'
        f'<header class="pi-head">{head} {where}{notes}</header>{findings}{body}</section>'
    )


def html_fragment(
    conv: Conversation,
    scrub: Scrub = str,
    anchors: bool = False,
    skip: Container[int] = (),
    bodies: Container[int] | None = None,
) -> str:
    """The conversation as an HTML body fragment (no script, style or remote URL): one
    ``<section class="pi-item pi-KIND" data-line="N">`` per item (but those on the lines
    in ``skip``), branch points as ``<nav class="pi-branches">`` of ``<a class="pi-branch"
    data-leaf="ID">``; with ``anchors``, each branch link also points at ``#pi-leaf-ID``.
    With ``bodies``, only the items on those lines are shown whole, the others as stubs
    (class ``pi-stub``: kind and line)."""
    return "".join(html_chunks(conv, scrub, anchors, skip, bodies))


def html_chunks(
    conv: Conversation,
    scrub: Scrub = str,
    anchors: bool = False,
    skip: Container[int] = (),
    bodies: Container[int] | None = None,
) -> Iterator[str]:
    """:func:`html_fragment` a line (an item, a branch point) at a time."""
    yield f'<p class="pi-summary">{_esc(_summary_line(conv))}</p>\n'
    if not skip:
        yield from (_html_finding(f) + "\n" for f in conv.header_findings)
    points = {p.line: p for p in conv.branches}
    for item in conv.items:
        if item.line in skip:
            continue
        whole = bodies is None or item.line in bodies
        yield (_html_item(item, scrub) if whole else _html_stub(item)) + "\n"
        if item.line in points:
            yield _html_branches(points[item.line], scrub, anchors) + "\n"
