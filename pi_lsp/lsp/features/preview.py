"""The ``pi-lsp.preview`` command: the conversation along a leaf, rendered for an editor.

Arguments ``[uri, options]``, options ``{"leaf": node id | null, "format": "html" |
"markdown", "around": 0-based line | null}`` (all optional). The answer (the contract
with the editors, see the README): ``uri``, ``version``, ``leafId``, ``resumedLeafId``,
``html`` or ``markdown`` (the other ``""``), ``items`` (``line``, ``kind``,
``previewLine``: the item's first line in the Markdown, -1 for HTML; ``rendered``: whole,
or a stub) and ``branches`` (``line``, ``id``, ``leaves``: ``id``, ``title``,
``current``). A conversation of more than :data:`~pi_lsp.core.views.render.WINDOW` items is
rendered whole only around ``around`` (default: its end), the rest as stubs that a later
call with another ``around`` fills in. The rendering is the core's
(:mod:`pi_lsp.core.views.render`).
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.pi.loading import analysis_refusal
from pi_lsp.core.views.conversation import Conversation, UnknownLeaf, conversation
from pi_lsp.core.views.render import html_fragment, markdown, window

from .. import commands
from ..server import PiLanguageServer

FORMATS = ("html", "markdown")


def _options(value: Any) -> tuple[str | None, str, int | None]:
    """The leaf, the format and the line to render around (InvalidParams when malformed)."""
    if value is None:
        return None, "html", None
    if not isinstance(value, dict):
        raise JsonRpcInvalidParams(f"{commands.PREVIEW}: options must be an object")
    leaf = value.get("leaf")
    fmt = value.get("format", "html")
    around = value.get("around")
    if leaf is not None and not isinstance(leaf, str):
        raise JsonRpcInvalidParams(f"{commands.PREVIEW}: leaf must be an entry id or null")
    if fmt not in FORMATS:
        raise JsonRpcInvalidParams(f"{commands.PREVIEW}: format must be 'html' or 'markdown'")
    if around is not None and (not isinstance(around, int) or isinstance(around, bool)):
        raise JsonRpcInvalidParams(f"{commands.PREVIEW}: around must be a 0-based line or null")
    return leaf, fmt, around


def preview_json(
    a: Analysis, leaf: str | None, fmt: str, around: int | None = None
) -> dict[str, Any]:
    """The answer of ``pi-lsp.preview`` for ``a`` (without ``uri`` and ``version``)."""
    refused = analysis_refusal(a)
    if refused is not None:
        raise JsonRpcInvalidParams(refused.reason)
    try:
        conv = conversation(a, leaf)
    except UnknownLeaf as exc:
        raise JsonRpcInvalidParams(str(exc)) from exc
    bodies = window(conv, around)
    if fmt == "markdown":
        text, starts = markdown(conv, bodies=bodies)
        return _answer(conv, "", text, starts, bodies)
    return _answer(conv, html_fragment(conv, bodies=bodies), "", [-1] * len(conv.items), bodies)


def _answer(
    conv: Conversation, html: str, text: str, starts: list[int], bodies: set[int] | None
) -> dict[str, Any]:
    return {
        "leafId": conv.leaf_id,
        "resumedLeafId": conv.resumed_id,
        "html": html,
        "markdown": text,
        "items": [
            {
                "line": item.line,
                "kind": item.kind,
                "previewLine": start,
                "rendered": bodies is None or item.line in bodies,
            }
            for item, start in zip(conv.items, starts, strict=True)
        ],
        "branches": [
            {
                "line": p.line,
                "id": p.id,
                "leaves": [{"id": b.id, "title": b.title, "current": b.current} for b in p.leaves],
            }
            for p in conv.branches
        ],
    }


def register(server: PiLanguageServer) -> None:
    """Register ``pi-lsp.preview``."""

    @server.command(commands.PREVIEW)
    async def preview(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
        if not 1 <= len(args) <= 2:
            raise JsonRpcInvalidParams(f"{commands.PREVIEW} expects [uri, options]")
        leaf, fmt, around = _options(args[1] if len(args) == 2 else None)
        src = await ls.source(args[0])
        answer = await ls.scheduler.compute(lambda: preview_json(src.analysis, leaf, fmt, around))
        return {"uri": src.uri, "version": src.version, **answer}
