"""The diagnostics of the session files under the workspace's folders (server state).

:class:`WorkspaceReports` is what ``workspace/diagnostic`` answers from
(:mod:`pi_lsp.lsp.features.workspace_diagnostics`): per file, the diagnostics of the version a
:class:`~pi_lsp.core.text.files.Stamp` (file, size and modification time) names, under one
settings generation. Files are analysed lazily (when a pull finds them stale), many at
once in a process pool, few in the calling thread. A file that changes on disk
(``workspace/didChangeWatchedFiles``) is re-analysed at once, from its previous analysis:
the last :data:`HOT` such analyses are kept, so a session pi keeps appending to is
checked from its old end only (:func:`pi_lsp.core.checks.analysis.appended`). A pull keeps
the analyses of the files modified in the last :data:`LIVE` seconds (sessions pi is
writing) the same way, so their first append after it is cheap too. Nothing else of an
analysis is kept, so a folder of several GB costs the memory of its diagnostics (and of
at most :data:`HOT` analyses).
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.model import Analysis, Options
from pi_lsp.core.text.files import Mark, Stamp, cannot_read, expand, read_grown, read_marked, stamp
from pi_lsp.core.text.lineindex import Encoding
from pi_lsp.core.workspace.settings import Settings

from .disk_reports import Report, is_session, items, report

HOT = 4
"""Analyses kept for the files that changed on disk most recently (their next append is cheap)."""

LIVE = 600.0
"""A file modified at most this many seconds before a pull analyses it is taken for a
session pi is writing: the pull analyses it in its own thread and keeps the analysis (the
:data:`HOT` newest such files), so that its first append after the pull is cheap too."""

POOL_FROM = 8
"""At least this many stale files are analysed in a process pool; fewer in the calling thread."""

RELIST_AFTER = 30.0
"""Seconds a listing of the folders is reused (clients pull every few seconds; file events
add and remove files meanwhile)."""


@dataclass(frozen=True, slots=True)
class FileState:
    """A file's diagnostics for one version of it under one settings generation."""

    stamp: Stamp
    generation: int
    items: list[dict[str, Any]]


def result_id(found: Stamp, generation: int) -> str:
    """The resultId of a file's report: the same for the same version under the same settings."""
    return f"disk.{found.size}.{found.mtime_ns}.{generation}"


class WorkspaceReports:
    """Diagnostics of every session file under some folders, computed off the event loop."""

    def __init__(self, roots: list[Path]) -> None:
        self.roots = roots
        self.files: dict[str, FileState] = {}
        self.hot: OrderedDict[str, tuple[Analysis, Mark | None]] = OrderedDict()
        self._lock = threading.Lock()
        self._listed: list[str] | None = None
        self._listed_at = 0.0

    def covers(self, path: str) -> bool:
        """True for a ``*.jsonl`` file under one of the roots."""
        p = Path(path)
        return p.suffix.lower() == ".jsonl" and any(p.is_relative_to(r) for r in self.roots)

    def listing(self) -> list[tuple[str, Stamp | None]]:
        """Every ``*.jsonl`` file under the roots (sorted) with its current stamp.

        The folders are walked again only after :data:`RELIST_AFTER` seconds; the stamps
        are taken anew every time.
        """
        with self._lock:
            if self._listed is None or time.monotonic() - self._listed_at > RELIST_AFTER:
                found = expand([r for r in self.roots if r.is_dir()])
                self._listed = [str(p) for p in found]
                self._listed_at = time.monotonic()
            listed = list(self._listed)
        return [(path, stamp(path)) for path in listed]

    def created(self, path: str) -> None:
        """A file appeared (a file event): list it from now on."""
        with self._lock:
            if self._listed is not None and path not in self._listed:
                self._listed = sorted([*self._listed, path])

    def known(self, path: str, found: Stamp, generation: int) -> FileState | None:
        """The cached state of ``path`` if it is of this version and generation."""
        state = self.files.get(path)
        if state is not None and state.stamp == found and state.generation == generation:
            return state
        return None

    def store(self, done: Report, generation: int) -> FileState | None:
        """Keep a finished report (None for a file that could not be read)."""
        if done.stamp is None:
            with self._lock:
                self.files.pop(done.path, None)
            return None
        state = FileState(done.stamp, generation, done.items)
        with self._lock:
            self.files[done.path] = state
        return state

    def analyse_all(
        self, paths: list[str], settings: Settings, encoding: Encoding
    ) -> Iterator[Report]:
        """Reports of ``paths`` as they finish (in a process pool when there are many; the
        :meth:`_live` ones in this thread, their analyses kept, while the pool works).

        Runs in a worker thread; the pool lives only as long as the batch.
        """
        live = self._live(paths)
        rest = [p for p in paths if p not in live]
        if len(rest) < POOL_FROM:
            for path in live:
                yield self._analyse_kept(path, settings, encoding)
            for path in rest:
                yield report(path, settings, encoding)
            return
        workers = max(1, min(len(rest) // 2, os.cpu_count() or 1, 4))
        context = multiprocessing.get_context("spawn")  # never fork a threaded server
        with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
            futures = [pool.submit(report, path, settings, encoding) for path in rest]
            for path in live:
                yield self._analyse_kept(path, settings, encoding)
            for future in concurrent.futures.as_completed(futures):
                yield future.result()

    def _live(self, paths: list[str]) -> list[str]:
        """The :data:`HOT` files of ``paths`` modified most recently, within :data:`LIVE`
        seconds."""
        since = time.time_ns() - int(LIVE * 1e9)
        found = [(at.mtime_ns, p) for p in paths if (at := stamp(p)) and at.mtime_ns >= since]
        return [p for _, p in sorted(found, reverse=True)[:HOT]]

    def _analyse_kept(self, path: str, settings: Settings, encoding: Encoding) -> Report:
        """:func:`~pi_lsp.lsp.disk_reports.report` of ``path`` (in this thread), from its
        kept analysis when it only grew since (the new bytes read only, the lines after the
        old end checked only); the analysis is kept (the :data:`HOT` last)."""
        before = stamp(path)
        with self._lock:
            previous, mark = self.hot.pop(path, (None, None))
        if before is None:
            return Report(path, None, [], f"{path}: not a readable file")
        try:
            if not is_session(path):
                return Report(path, before, [])
            grown = read_grown(Path(path), previous.text, mark) if previous and mark else None
            text, mark = grown if grown is not None else read_marked(Path(path))
            options = Options(large_line=settings.large_line)
            analysis = analyze(text, path, options, previous)
        except OSError as exc:
            return Report(path, None, [], cannot_read(path, exc))
        with self._lock:
            self.hot[path] = (analysis, mark)
            while len(self.hot) > HOT:
                self.hot.popitem(last=False)
        return Report(path, before, items(analysis, settings, encoding))

    def follow(
        self, path: str, settings: Settings, encoding: Encoding, generation: int
    ) -> FileState | None:
        """Re-analyse a file that changed on disk, from its last analysis (in this thread)."""
        done = self._analyse_kept(path, settings, encoding)
        if done.stamp is None:
            self.forget(path)
            return None
        return self.store(done, generation)

    def forget(self, path: str) -> None:
        """Drop everything known about a file (deleted, or unreadable)."""
        with self._lock:
            self.files.pop(path, None)
            self.hot.pop(path, None)
            if self._listed is not None and path in self._listed:
                self._listed = [p for p in self._listed if p != path]
