"""``workspace/symbol``: find entries in session files that are not open.

The index covers the ``*.jsonl`` files under the workspace folders (pi's sessions folder
when the client opens none). The first query starts it: the scheduler's indexing thread builds it
(starting from the on-disk cache of :mod:`pi_lsp.core.workspace.search_cache`, which says what that
saves) and the server asks the client to watch ``**/*.jsonl`` there, so that
``workspace/didChangeWatchedFiles`` keeps it current; a query more than
:data:`~pi_lsp.lsp.workspace_index.RESCAN_AFTER` seconds after the last scan also starts a rescan in the background
(for clients that do not watch files). A query never blocks the server: it searches in a
worker thread what is indexed so far, after waiting at most :data:`FIRST_WAIT` seconds
for the first scan.
"""

from __future__ import annotations

import logging
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from pi_lsp.core.workspace.search import Match

from .. import proto, watched_files
from ..server import PiLanguageServer
from ..workspace_index import WorkspaceIndex

log = logging.getLogger("pi_lsp")

FIRST_WAIT = 2.0
"""Seconds a query waits for the first scan before it answers from a partial index."""

_KINDS = {
    "id": types.SymbolKind.Key,
    "id prefix": types.SymbolKind.Key,
    "label": types.SymbolKind.Key,
    "session name": types.SymbolKind.Constant,
    "user message": types.SymbolKind.Event,
}


def index_of(ls: PiLanguageServer) -> tuple[WorkspaceIndex, bool]:
    """The server's index, and whether this call created (and started) it."""
    if ls.workspace_index is not None:
        return ls.workspace_index, False
    index = ls.workspace_index = WorkspaceIndex(watched_files.roots(ls))
    index.start(ls.scheduler.indexing.submit)
    return index, True


def _symbol(m: Match) -> types.SymbolInformation:
    return types.SymbolInformation(
        name=m.title or m.why,
        kind=_KINDS.get(m.why, types.SymbolKind.Object),
        location=types.Location(
            uri=from_fs_path(m.path) or m.path,
            range=proto.whole_line(m.line),
        ),
        container_name=f"{Path(m.path).name} ({m.why})",
    )


def register(server: PiLanguageServer) -> None:
    """Register workspace/symbol."""

    @server.feature(types.WORKSPACE_SYMBOL)
    async def workspace_symbol(
        ls: PiLanguageServer, params: types.WorkspaceSymbolParams
    ) -> list[types.SymbolInformation]:
        index, _ = index_of(ls)
        watched_files.ensure_watching(ls, index.roots)
        if not index.ready.is_set():
            await ls.scheduler.compute(lambda: index.ready.wait(FIRST_WAIT))
        if index.due():
            index.start(ls.scheduler.indexing.submit)
        matches = await ls.scheduler.compute(lambda: index.query(params.query))
        return [_symbol(m) for m in matches]
