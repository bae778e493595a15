"""``workspace/symbol``: find entries in session files that are not open.

The index covers the ``*.jsonl`` files under the workspace folders (pi's sessions folder
when the client opens none). The first query starts it: a background thread builds it
(starting from the on-disk cache of :mod:`pi_lsp.core.search_cache`, which says what that
saves) and the server asks the client to watch ``**/*.jsonl`` there, so that
``workspace/didChangeWatchedFiles`` keeps it current; a query more than
:data:`~pi_lsp.lsp.workspace_index.RESCAN_AFTER` seconds after the last scan also starts a rescan in the background
(for clients that do not watch files). A query never blocks the server: it searches in a
worker thread what is indexed so far, after waiting at most :data:`FIRST_WAIT` seconds
for the first scan.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from pi_lsp.core.files import sessions_dir
from pi_lsp.core.search import Match

from . import proto
from .server import PiLanguageServer
from .workspace_index import WorkspaceIndex

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


def _roots(ls: PiLanguageServer) -> list[Path]:
    folders = [to_fs_path(f.uri) for f in ls.workspace.folders.values()]
    if not folders and ls.workspace.root_uri:
        folders = [to_fs_path(ls.workspace.root_uri)]
    roots = [Path(f) for f in folders if f]
    return roots or [sessions_dir()]


def index_of(ls: PiLanguageServer) -> tuple[WorkspaceIndex, bool]:
    """The server's index, and whether this call created (and started) it."""
    if ls.workspace_index is not None:
        return ls.workspace_index, False
    index = ls.workspace_index = WorkspaceIndex(_roots(ls))
    index.start()
    return index, True


async def watch(ls: PiLanguageServer, index: WorkspaceIndex) -> None:
    """Ask the client to report changes of session files under the index's folders."""
    ws = ls.client_capabilities.workspace
    watched = ws.did_change_watched_files if ws else None
    if not (watched and watched.dynamic_registration):
        return
    relative = bool(watched.relative_pattern_support)
    watchers = [
        types.FileSystemWatcher(
            glob_pattern=types.RelativePattern(base_uri=from_fs_path(str(root)) or "", pattern="**/*.jsonl")
            if relative
            else "**/*.jsonl"
        )
        for root in (index.roots if relative else index.roots[:1])
    ]
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="pi-lsp-session-files",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=types.DidChangeWatchedFilesRegistrationOptions(
                            watchers=watchers
                        ),
                    )
                ]
            )
        )
    except Exception as exc:
        log.warning("the client does not watch session files (%s); rescanning instead", exc)


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
    """Register workspace/symbol and workspace/didChangeWatchedFiles."""

    @server.feature(types.WORKSPACE_SYMBOL)
    async def workspace_symbol(
        ls: PiLanguageServer, params: types.WorkspaceSymbolParams
    ) -> list[types.SymbolInformation]:
        index, new = index_of(ls)
        if new:  # in the background: a client that never answers must not hold the query
            index.watching = asyncio.get_running_loop().create_task(watch(ls, index))
        if not index.ready.is_set():
            await ls.scheduler.compute(lambda: index.ready.wait(FIRST_WAIT))
        matches = await ls.scheduler.compute(lambda: index.query(params.query))
        return [_symbol(m) for m in matches]

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched_files(
        ls: PiLanguageServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        changed: list[str] = []
        deleted: list[str] = []
        for event in params.changes:
            path = to_fs_path(event.uri)
            if path:
                (deleted if event.type == types.FileChangeType.Deleted else changed).append(path)
        index = ls.workspace_index
        if index is not None:  # no index yet: the first query will scan anyway
            await ls.scheduler.compute(lambda: index.update(changed, deleted))
