"""Workspace commands ``pi-lsp.tree`` and ``pi-lsp.stats``: the tree and the totals as JSON.

Both take a document URI, read with :meth:`PiLanguageServer.source` (the open document,
else the file on disk); an unreadable URI is answered with InvalidParams.
"""

from __future__ import annotations

from typing import Any

from pi_lsp.core.views.describe import session_totals
from pi_lsp.core.views.treedata import tree_json

from .. import commands
from ..server import PiLanguageServer


def register(server: PiLanguageServer) -> None:
    """Register the pi-lsp.tree and pi-lsp.stats commands (argument: the document URI)."""

    @server.command(commands.TREE)
    async def tree(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
        src = await ls.source(args[0] if args else None)
        return {"uri": src.uri, **await ls.scheduler.compute(lambda: tree_json(src.analysis))}

    @server.command(commands.STATS)
    async def stats(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
        src = await ls.source(args[0] if args else None)
        totals = await ls.scheduler.compute(lambda: session_totals(src.analysis))
        return {"uri": src.uri, **totals.as_json()}
