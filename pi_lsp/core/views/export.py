"""A session as one file to read offline and print: ``pi-lsp export``'s Markdown and HTML.

The conversation along the leaf (:func:`~pi_lsp.core.conversation.conversation`), or with
``all_branches`` that one first and then, for every other leaf of pi's tree in file order,
the items its branch adds (what an earlier one showed is not repeated). The HTML page is
self-contained: inline CSS (light and dark by ``prefers-color-scheme``, Pygments colours,
print rules), images as the ``data:`` URIs the session already holds, and a Content
Security Policy that forbids every load from anywhere else.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Iterator

from pi_lsp import __version__

from ..entries.model import Analysis
from .conversation import Conversation, conversation
from .describe import clip, session_totals
from .render import Scrub, html_chunks, markdown_chunks
from .treedata import node_id, visible_tree

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
"""The page's Content Security Policy: nothing loads but its own style and data: images."""


def conversations(
    a: Analysis, leaf: str | None = None, all_branches: bool = False
) -> list[Conversation]:
    """The conversation along ``leaf`` (None: the one pi resumes), then with
    ``all_branches`` the one of every other shown leaf, in file order."""
    first = conversation(a, leaf)
    if not all_branches:
        return [first]
    shown = visible_tree(a)
    others = [
        node_id(a, line)
        for line in shown.entries
        if not shown.children.get(line) and node_id(a, line) != first.leaf_id
    ]
    return [first, *(conversation(a, ident) for ident in others)]


def _title(a: Analysis) -> str:
    totals = session_totals(a)
    if totals.name:
        return totals.name
    return f"pi session {totals.id}" if totals.id else "pi session"


def _facts(a: Analysis) -> str:
    t = session_totals(a)
    bits = [
        t.cwd,
        t.started and f"started {t.started}",
        f"{t.entries:,} entries",
        f"{t.leaves} leaves" if t.leaves > 1 else None,
        ", ".join(t.models[:4]) if t.models else None,
        f"{t.usage.total:,.0f} tokens" if t.usage.total else None,
        f"${t.usage.cost:.4f}" if t.usage.cost else None,
    ]
    return " · ".join(b for b in bits if b)


def _branch_heading(conv: Conversation, skip: set[int], scrub: Scrub) -> str:
    """What a later branch's part says: its leaf and the line it continues from."""
    before = [item.line for item in conv.items if item.line in skip]
    after = f" · continues after line {max(before) + 1}" if before else ""
    shown = [item for item in conv.items if item.line not in skip]
    title = f": {clip(scrub(shown[0].title), 60)}" if shown else ""
    return f"Branch to leaf {conv.leaf_id}{title}{after}"


def export_markdown(a: Analysis, convs: list[Conversation], scrub: Scrub = str) -> bytes:
    """The conversations of ``a`` as one Markdown document (UTF-8)."""
    return b"".join(
        chunk.encode(errors="backslashreplace") for chunk in _markdown_chunks(a, convs, scrub)
    )


def _markdown_chunks(a: Analysis, convs: list[Conversation], scrub: Scrub) -> Iterator[str]:
    yield f"# {scrub(_title(a))}\n\n{scrub(_facts(a))}\n\n"
    seen: set[int] = set()
    for n, conv in enumerate(convs):
        if n:
            yield f"---\n\n# {_branch_heading(conv, seen, scrub)}\n\n"
        yield from markdown_chunks(conv, scrub, skip=frozenset(seen))
        seen.update(item.line for item in conv.items)


def export_html(a: Analysis, convs: list[Conversation], scrub: Scrub = str) -> bytes:
    """The conversations of ``a`` as one self-contained HTML page (UTF-8), made a piece at
    a time (never the whole page as one ``str``: with one emoji, 4 bytes a character)."""
    return b"".join(
        chunk.encode(errors="backslashreplace") for chunk in _html_chunks(a, convs, scrub)
    )


def _html_chunks(a: Analysis, convs: list[Conversation], scrub: Scrub) -> Iterator[str]:
    esc = functools.partial(html.escape, quote=True)
    title = esc(scrub(_title(a)))
    yield (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="pi-lsp {esc(__version__)}">'
        f"<title>{title}</title><style>{page_css()}</style></head>\n"
        f'<body><main><header class="pi-page-head"><h1>{title}</h1>'
        f'<p class="pi-facts">{esc(scrub(_facts(a)))}</p></header>\n'
    )
    anchors = len(convs) > 1
    seen: set[int] = set()
    for n, conv in enumerate(convs):
        anchor = f' id="pi-leaf-{esc(conv.leaf_id or "")}"' if anchors else ""
        if n:
            heading = esc(_branch_heading(conv, seen, scrub))
            yield f'<h2 class="pi-branch-head"{anchor}>{heading}</h2>\n'
        elif anchors:
            yield f"<span{anchor}></span>\n"
        yield from html_chunks(conv, scrub, anchors=anchors, skip=frozenset(seen))
        seen.update(item.line for item in conv.items)
    yield (
        f'<footer class="pi-foot">Exported by pi-lsp {esc(__version__)}</footer>'
        "</main></body></html>\n"
    )


@functools.cache
def page_css() -> str:
    """The page's CSS: layout, light and dark colours, Pygments' token colours, print."""
    from pygments.formatters import HtmlFormatter

    light = HtmlFormatter(style="friendly").get_style_defs(".pi-code")
    dark = HtmlFormatter(style="github-dark").get_style_defs(".pi-code")
    return f"""{_BASE_CSS}
{light}
@media (prefers-color-scheme: dark) {{
{_DARK_CSS}
{dark}
}}
{_PRINT_CSS}"""


_BASE_CSS = """
:root { --fg: #1f2328; --muted: #656d76; --bg: #ffffff; --card: #f6f8fa; --line: #d0d7de;
  --user: #0969da; --assistant: #8250df; --tool: #1a7f37; --warn: #9a6700; --error: #cf222e;
  --code: #f6f8fa; color-scheme: light dark; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 920px; margin: 0 auto; padding: 24px 20px 48px; }
h1 { font-size: 1.6em; margin: 0 0 4px; }
.pi-facts, .pi-summary, .pi-foot { color: var(--muted); font-size: 0.85em; margin: 0 0 12px; }
.pi-item { border: 1px solid var(--line); border-left: 4px solid var(--line); border-radius: 6px;
  background: var(--bg); margin: 10px 0; padding: 8px 14px; }
.pi-user { border-left-color: var(--user); background: var(--card); }
.pi-assistant { border-left-color: var(--assistant); }
.pi-tool-result, .pi-bash { border-left-color: var(--tool); }
.pi-compaction, .pi-branch-summary, .pi-system, .pi-custom { border-left-color: var(--warn); }
.pi-marker { border: none; background: none; padding: 0 14px; margin: 4px 0; color: var(--muted);
  font-size: 0.85em; }
.pi-not-sent { opacity: 0.55; border-style: dashed; }
.pi-marker.pi-not-sent { border: none; }
.pi-head { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; font-size: 0.85em;
  color: var(--muted); }
.pi-role { font-weight: 600; color: var(--fg); }
.pi-line { color: var(--muted); text-decoration: none; }
.pi-note-tag { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
  padding: 0 8px; }
.pi-body > * { margin: 6px 0; }
.pi-text h1, .pi-text h2 { font-size: 1.15em; margin: 10px 0 4px; }
.pi-text h3, .pi-text h4, .pi-text h5, .pi-text h6 { font-size: 1em; margin: 8px 0 4px; }
.pi-text > :first-child { margin-top: 4px; } .pi-text > :last-child { margin-bottom: 4px; }
.pi-note, .pi-more { color: var(--muted); font-style: italic; font-size: 0.9em; }
.pi-call { border: 1px solid var(--line); border-radius: 6px; padding: 4px 8px; }
.pi-arg-name { color: var(--muted); font-size: 0.85em; }
.pi-call-name { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.9em;
  color: var(--tool); }
pre.pi-code, .pi-text pre { background: var(--code); border-radius: 6px; padding: 8px 10px;
  overflow-x: auto; font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.92em; }
details > summary { cursor: pointer; color: var(--muted); font-size: 0.9em; }
.pi-thinking { border-left: 2px solid var(--line); padding-left: 8px; }
.pi-image { max-width: 240px; max-height: 240px; border: 1px solid var(--line); border-radius: 4px; }
.pi-finding { border-radius: 4px; padding: 2px 8px; margin: 4px 0; font-size: 0.85em; }
.pi-finding.pi-error { background: #ffebe9; color: var(--error); }
.pi-finding.pi-warning { background: #fff8c5; color: var(--warn); }
.pi-finding.pi-information, .pi-finding.pi-hint { background: var(--card); color: var(--muted); }
.pi-branches { font-size: 0.85em; color: var(--muted); margin: 6px 0 6px 14px; }
.pi-branch { margin-left: 8px; color: var(--user); }
.pi-branch.pi-current { font-weight: 600; }
.pi-branch-head { margin-top: 32px; font-size: 1.15em; border-top: 1px solid var(--line);
  padding-top: 16px; }
.pi-link { color: var(--user); text-decoration: underline dotted; }
table { border-collapse: collapse; } th, td { border: 1px solid var(--line); padding: 2px 8px; }
blockquote { margin: 0; padding-left: 10px; border-left: 3px solid var(--line); color: var(--muted); }
"""

_DARK_CSS = """
:root { --fg: #e6edf3; --muted: #8d96a0; --bg: #0d1117; --card: #161b22; --line: #30363d;
  --user: #58a6ff; --assistant: #bc8cff; --tool: #3fb950; --warn: #d29922; --error: #f85149;
  --code: #161b22; }
.pi-finding.pi-error { background: #3b1219; } .pi-finding.pi-warning { background: #2e2a12; }
"""

_PRINT_CSS = """
@media print {
  body { font-size: 11pt; } main { max-width: none; padding: 0; }
  .pi-item { break-inside: avoid-page; }
  .pi-not-sent { opacity: 0.7; }
}
"""
