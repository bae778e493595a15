"""``workspace/symbol``: find entries in session files that are not open.

The index covers the ``*.jsonl`` files under the workspace folders (pi's sessions folder
when the client opens none). The first query starts it: a background thread builds it
(starting from the on-disk cache of :mod:`pi_lsp.core.search_cache`, which says what that
saves) and the server asks the client to watch ``**/*.jsonl`` there, so that
``workspace/didChangeWatchedFiles`` keeps it current; a query more than
:data:`RESCAN_AFTER` seconds after the last scan also starts a rescan in the background
(for clients that do not watch files). A query never blocks the server: it searches in a
worker thread what is indexed so far, after waiting at most :data:`FIRST_WAIT` seconds
for the first scan.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from pi_lsp.core import search_cache
from pi_lsp.core.files import expand, sessions_dir
from pi_lsp.core.search import FileIndex, Match, index_file, is_current, search

from .safety import isolated
from .server import PiLanguageServer

log = logging.getLogger("pi_lsp")

LIMIT = 200
"""At most this many symbols per answer."""

RESCAN_AFTER = 30.0
"""Seconds after which a query starts a background rescan of the folders."""

FIRST_WAIT = 2.0
"""Seconds a query waits for the first scan before it answers from a partial index."""

_KINDS = {
    "id": types.SymbolKind.Key,
    "id prefix": types.SymbolKind.Key,
    "label": types.SymbolKind.Key,
    "session name": types.SymbolKind.Constant,
    "user message": types.SymbolKind.Event,
}


class WorkspaceIndex:
    """The search index of every session file under some folders, kept off the event loop."""

    def __init__(self, roots: list[Path]) -> None:
        self.roots = roots
        self.files: dict[str, FileIndex] = {}
        self.ready = threading.Event()
        self._lock = threading.Lock()  # one scan or update at a time
        self._scanned = 0.0
        self._others: dict[str, FileIndex] | None = None  # cached files of other folders
        self.watching: asyncio.Task[None] | None = None  # the request to watch files

    def start(self) -> None:
        """Build the index in a background thread."""
        self._scanned = time.monotonic()
        threading.Thread(target=self.scan, name="pi-lsp index", daemon=True).start()

    def scan(self) -> None:
        """Index new and changed files under the roots; forget files that are gone.

        The first scan starts from the on-disk cache; every scan that changed something
        stores the index there again.
        """
        with self._lock:
            self._scanned = time.monotonic()
            if self._others is None:
                cached = search_cache.load()
                self.files.update({p: i for p, i in cached.items() if self.covers(p)})
                self._others = {p: i for p, i in cached.items() if not self.covers(p)}
            try:
                found = {str(p) for p in expand([r for r in self.roots if r.is_dir()])}
            except OSError as exc:
                log.warning("workspace index: cannot list the folders: %s", exc)
                found = set(self.files)
            changed = False
            for path in list(self.files):
                if path not in found:
                    changed = True
                    self.files.pop(path, None)
            for path in sorted(found):
                old = self.files.get(path)
                if old is None or not is_current(old):
                    changed = True
                    self.files[path] = index_file(path)
            self.ready.set()
            if changed:
                search_cache.save(self.files.values(), keep=self._others)

    def update(self, changed: list[str], deleted: list[str]) -> None:
        """Re-index changed files and drop deleted ones (in the calling thread)."""
        with self._lock:
            for path in deleted:
                self.files.pop(path, None)
            for path in changed:
                if self.covers(path):
                    self.files[path] = index_file(path)

    def covers(self, path: str) -> bool:
        """True for a ``*.jsonl`` file under one of the roots."""
        p = Path(path)
        return p.suffix == ".jsonl" and any(p.is_relative_to(r) for r in self.roots)

    def query(self, text: str, limit: int = LIMIT) -> list[Match]:
        """The best matches among the files indexed so far."""
        if time.monotonic() - self._scanned > RESCAN_AFTER and not self._lock.locked():
            self.start()
        return search(list(self.files.values()), text, limit)


_INDEXES: weakref.WeakKeyDictionary[PiLanguageServer, WorkspaceIndex] = weakref.WeakKeyDictionary()


def _roots(ls: PiLanguageServer) -> list[Path]:
    folders = [to_fs_path(f.uri) for f in ls.workspace.folders.values()]
    if not folders and ls.workspace.root_uri:
        folders = [to_fs_path(ls.workspace.root_uri)]
    roots = [Path(f) for f in folders if f]
    return roots or [sessions_dir()]


def index_of(ls: PiLanguageServer) -> tuple[WorkspaceIndex, bool]:
    """The server's index, and whether this call created (and started) it."""
    index = _INDEXES.get(ls)
    if index is not None:
        return index, False
    index = _INDEXES[ls] = WorkspaceIndex(_roots(ls))
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
            range=types.Range(
                start=types.Position(line=m.line, character=0),
                end=types.Position(line=m.line + 1, character=0),
            ),
        ),
        container_name=f"{Path(m.path).name} ({m.why})",
    )


def register(server: PiLanguageServer) -> None:
    """Register workspace/symbol and workspace/didChangeWatchedFiles."""

    @server.feature(types.WORKSPACE_SYMBOL)
    @isolated()
    async def workspace_symbol(
        ls: PiLanguageServer, params: types.WorkspaceSymbolParams
    ) -> list[types.SymbolInformation]:
        index, new = index_of(ls)
        if new:  # in the background: a client that never answers must not hold the query
            index.watching = asyncio.get_running_loop().create_task(watch(ls, index))
        if not index.ready.is_set():
            await asyncio.to_thread(index.ready.wait, FIRST_WAIT)
        matches = await asyncio.to_thread(index.query, params.query)
        return [_symbol(m) for m in matches]

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @isolated()
    async def did_change_watched_files(
        ls: PiLanguageServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        changed: list[str] = []
        deleted: list[str] = []
        for event in params.changes:
            path = to_fs_path(event.uri)
            if path:
                (deleted if event.type == types.FileChangeType.Deleted else changed).append(path)
        index = _INDEXES.get(ls)
        if index is not None:  # no index yet: the first query will scan anyway
            await asyncio.to_thread(index.update, changed, deleted)
