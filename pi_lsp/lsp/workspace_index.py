"""The search index of the session files under the workspace folders (server state).

:class:`WorkspaceIndex` is built in the scheduler's indexing thread and kept current by
``workspace/didChangeWatchedFiles`` (:mod:`pi_lsp.lsp.features.workspace_symbols`); the server
holds one (:attr:`PiLanguageServer.workspace_index`), created by the first query.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from pi_lsp.core.text.files import expand
from pi_lsp.core.workspace import search_cache
from pi_lsp.core.workspace.search import FileIndex, Match, index_file, is_current, search

log = logging.getLogger("pi_lsp")

LIMIT = 200
"""At most this many symbols per answer."""

RESCAN_AFTER = 30.0
"""Seconds after which a query starts a background rescan of the folders."""


class WorkspaceIndex:
    """The search index of every session file under some folders, kept off the event loop."""

    def __init__(self, roots: list[Path]) -> None:
        self.roots = roots
        self.files: dict[str, FileIndex] = {}
        self.ready = threading.Event()
        self._lock = threading.Lock()  # one scan or update at a time
        self._files_lock = threading.Lock()  # held only to change or copy ``files``
        self._scanned = 0.0
        self._others: dict[str, FileIndex] | None = None  # cached files of other folders

    def start(self, run: Callable[[Callable[[], None]], object]) -> None:
        """Build the index: ``run(scan)`` runs it in a scheduler thread."""
        self._scanned = time.monotonic()
        run(self.scan)

    def due(self) -> bool:
        """True when no scan runs and the last one started :data:`RESCAN_AFTER` seconds ago."""
        return time.monotonic() - self._scanned > RESCAN_AFTER and not self._lock.locked()

    def scan(self) -> None:
        """Index new and changed files under the roots; forget files that are gone.

        The first scan starts from the on-disk cache; every scan that changed something
        stores the index there again.
        """
        with self._lock:
            self._scanned = time.monotonic()
            if self._others is None:
                cached = search_cache.load()
                with self._files_lock:
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
                    with self._files_lock:
                        self.files.pop(path, None)
            for path in sorted(found):
                old = self.files.get(path)
                if old is None or not is_current(old):
                    changed = True
                    found_index = index_file(path)
                    with self._files_lock:
                        self.files[path] = found_index
            self.ready.set()
            if changed:
                search_cache.save(self._indexed(), keep=self._others)

    def update(self, changed: list[str], deleted: list[str]) -> None:
        """Re-index changed files and drop deleted ones (in the calling thread)."""
        with self._lock:
            for path in deleted:
                with self._files_lock:
                    self.files.pop(path, None)
            for path in changed:
                if self.covers(path):
                    found = index_file(path)
                    with self._files_lock:
                        self.files[path] = found

    def covers(self, path: str) -> bool:
        """True for a ``*.jsonl`` file under one of the roots."""
        p = Path(path)
        return p.suffix == ".jsonl" and any(p.is_relative_to(r) for r in self.roots)

    def _indexed(self) -> list[FileIndex]:
        """The files indexed so far (a copy: a scan may change ``files`` meanwhile)."""
        with self._files_lock:
            return list(self.files.values())

    def query(self, text: str, limit: int = LIMIT) -> list[Match]:
        """The best matches among the files indexed so far."""
        return search(self._indexed(), text, limit)
