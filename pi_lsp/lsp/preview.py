"""The ``pi-lsp.preview`` command: the conversation along a leaf, rendered for an editor.

Arguments ``[uri, options]``, options ``{"leaf": node id | null, "format": "html" |
"markdown"}`` (both optional). The answer (the contract with the editors, see the
README): ``uri``, ``version``, ``leafId``, ``resumedLeafId``, ``html`` or ``markdown``
(the other ``""``), ``items`` (``line``, ``kind``, ``previewLine``: the item's first line
in the Markdown, -1 for HTML) and ``branches`` (``line``, ``id``, ``leaves``: ``id``,
``title``, ``current``). The rendering is the core's (:mod:`pi_lsp.core.render`).
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from pi_lsp.core.conversation import Conversation, UnknownLeaf, conversation
from pi_lsp.core.file_findings import analysis_refusal
from pi_lsp.core.model import Analysis
from pi_lsp.core.render import html_fragment, markdown

from . import commands
from .server import PiLanguageServer

FORMATS = ("html", "markdown")


def _options(value: Any) -> tuple[str | None, str]:
    """The leaf and the format asked for (InvalidParams when malformed)."""
    if value is None:
        return None, "html"
    if not isinstance(value, dict):
        raise JsonRpcInvalidParams(f"{commands.PREVIEW}: options must be an object")
    leaf = value.get("leaf")
    fmt = value.get("format", "html")
    if leaf is not None and not isinstance(leaf, str):
        raise JsonRpcInvalidParams(f"{commands.PREVIEW}: leaf must be an entry id or null")
    if fmt not in FORMATS:
        raise JsonRpcInvalidParams(f"{commands.PREVIEW}: format must be 'html' or 'markdown'")
    return leaf, fmt


def preview_json(a: Analysis, leaf: str | None, fmt: str) -> dict[str, Any]:
    """The answer of ``pi-lsp.preview`` for ``a`` (without ``uri`` and ``version``)."""
    refused = analysis_refusal(a)
    if refused is not None:
        raise JsonRpcInvalidParams(refused.reason)
    try:
        conv = conversation(a, leaf)
    except UnknownLeaf as exc:
        raise JsonRpcInvalidParams(str(exc)) from exc
    if fmt == "markdown":
        text, starts = markdown(conv)
        return _answer(conv, "", text, starts)
    return _answer(conv, html_fragment(conv), "", [-1] * len(conv.items))


def _answer(conv: Conversation, html: str, text: str, starts: list[int]) -> dict[str, Any]:
    return {
        "leafId": conv.leaf_id,
        "resumedLeafId": conv.resumed_id,
        "html": html,
        "markdown": text,
        "items": [
            {"line": item.line, "kind": item.kind, "previewLine": start}
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
        leaf, fmt = _options(args[1] if len(args) == 2 else None)
        src = await ls.source(args[0])
        answer = await ls.scheduler.compute(lambda: preview_json(src.analysis, leaf, fmt))
        return {"uri": src.uri, "version": src.version, **answer}
