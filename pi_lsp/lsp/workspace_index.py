"""The search index of the session files under the workspace folders (server state).

:class:`WorkspaceIndex` is built in a background thread and kept current by
``workspace/didChangeWatchedFiles`` (:mod:`pi_lsp.lsp.workspace_symbols`); the server
holds one (:attr:`PiLanguageServer.workspace_index`), created by the first query.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from pi_lsp.core import search_cache
from pi_lsp.core.files import expand
from pi_lsp.core.search import FileIndex, Match, index_file, is_current, search

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
        self._scanned = 0.0
        self._others: dict[str, FileIndex] | None = None  # cached files of other folders

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
