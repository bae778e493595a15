"""Workspace command ``pi-lsp.statsChart``: the stats page of one session, for a webview.

Takes a document URI, read with :meth:`PiLanguageServer.source` (the open document's
current analysis, else the file on disk), and answers ``{"uri", "html"}``: the page of
``pi-lsp stats --html`` for that file alone, built in a request thread. The VS Code
Session Chart shows it; a click on a turn posts ``{"type": "reveal", "line"}`` back to
the extension.
"""

from __future__ import annotations

from typing import Any

from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.pi.stats import analysis_stats
from pi_lsp.core.workspace.stats_chart import chart_html
from pi_lsp.core.workspace.stats_report import build, report_json

from .. import commands
from ..server import PiLanguageServer


def page(a: Analysis) -> str:
    """The stats page of one analysed session (runs in a request thread)."""
    return chart_html(report_json(build([analysis_stats(a)]), "model"))


def register(server: PiLanguageServer) -> None:
    """Register the pi-lsp.statsChart command (argument: the document URI)."""

    @server.command(commands.STATS_CHART)
    async def stats_chart(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
        src = await ls.source(args[0] if args else None)
        return {"uri": src.uri, "html": await ls.scheduler.compute(lambda: page(src.analysis))}
