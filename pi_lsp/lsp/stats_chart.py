"""Workspace command ``pi-lsp.statsChart``: the stats page of one session, for a webview.

Takes a document URI (an open document's current text, else the file on disk) and answers
``{"uri", "html"}``: the page of ``pi-lsp stats --html`` for that file alone, built in a
worker thread. The VS Code Session Chart shows it; a click on a turn posts
``{"type": "reveal", "line"}`` back to the extension.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from pi_lsp.core.stats import FileStats, analysis_stats, read_file
from pi_lsp.core.stats_chart import chart_html
from pi_lsp.core.stats_report import build, report_json

from .server import PiLanguageServer

STATS_CHART = "pi-lsp.statsChart"


def _stats(ls: PiLanguageServer, uri: str) -> FileStats:
    doc = ls.documents.get(uri)
    if doc is not None:
        return analysis_stats(doc.analysis)
    path = to_fs_path(uri) if uri.startswith("file:") else None
    if not path:
        raise JsonRpcInvalidParams(f"{uri} is not open and not a file")
    stats = read_file(path)
    if stats.error is not None and stats.error.startswith("cannot read"):
        raise JsonRpcInvalidParams(f"{path}: {stats.error}")
    return stats


def page(ls: PiLanguageServer, uri: str) -> dict[str, Any]:
    """The answer of ``pi-lsp.statsChart`` (runs in a worker thread)."""
    stats = _stats(ls, uri)
    return {"uri": uri, "html": chart_html(report_json(build([stats]), "model"))}


def register(server: PiLanguageServer) -> None:
    """Register the pi-lsp.statsChart command (argument: the document URI)."""

    @server.command(STATS_CHART)
    async def stats_chart(ls: PiLanguageServer, uri: str) -> dict[str, Any]:
        if not isinstance(uri, str):
            raise JsonRpcInvalidParams("pi-lsp.statsChart expects a document URI")
        return await asyncio.to_thread(page, ls, uri)
