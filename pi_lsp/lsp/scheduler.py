"""Document analysis off the event loop: worker threads, and the newest text wins.

The event loop only applies changes and answers requests; analyses run in daemon
threads (:class:`Worker`), one run per document at a time. For each document one driver
task (:meth:`Scheduler.schedule`) loops until the analysis of the *current* text is done,
then calls ``on_ready(uri)`` (which publishes diagnostics for the current version):

- a change while an analysis runs cancels it (the document flags the running job, the
  analysis stops within about a MiB of new text) and the finished lines are reused by the
  next run, so a burst of hundreds of edits analyses the last version, not every one;
- an analysis still running after :data:`~pi_lsp.lsp.progress.SHOW_AFTER` seconds shows
  work-done progress (``$/progress``) when the client supports it;
- once a document has been left unchanged for :data:`WARM_AFTER` seconds after its
  diagnostics, ``warm(analysis)`` runs in a background thread to precompute the views
  requests need (the reference index, session totals), so the first hover or definition
  does not pay for them, and a burst of typing is not slowed down by them;
- :meth:`Scheduler.ready` lets an async handler await the current analysis without
  blocking the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import queue
import threading
import weakref
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any, TypeVar

from pi_lsp.core.analysis import Analysis, gc_paused
from pi_lsp.core.document import Document

from . import progress
from .server import PiLanguageServer

T = TypeVar("T")

WARM_AFTER = 0.5
"""Seconds without a change after which the views requests need are precomputed."""

log = logging.getLogger("pi_lsp")


class Worker:
    """Daemon threads running submitted calls in order (daemons never delay exit)."""

    def __init__(self, threads: int, name: str) -> None:
        self._queue: queue.SimpleQueue[
            tuple[asyncio.AbstractEventLoop, asyncio.Future[Any], Callable[[], Any]]
        ] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._size = threads
        self._name = name

    def submit(self, fn: Callable[[], T]) -> asyncio.Future[T]:
        """Run ``fn()`` in a worker thread; its result arrives in the returned future."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        while len(self._threads) < self._size:
            thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            thread.start()
            self._threads.append(thread)
        self._queue.put((loop, future, fn))
        return future

    def _run(self) -> None:
        while True:
            loop, future, fn = self._queue.get()
            try:
                result, error = fn(), None
            except Exception as exc:
                result, error = None, exc
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(_settle, future, result, error)


def _settle(future: asyncio.Future[Any], result: Any, error: Exception | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class Scheduler:
    """Keeps every open document's analysis current, off the event loop."""

    def __init__(
        self,
        ls: PiLanguageServer,
        on_ready: Callable[[str], None],
        warm: Callable[[Analysis], object] | None = None,
    ) -> None:
        self.ls = ls
        self.on_ready = on_ready
        self.warm = warm
        # two analysis threads: a small document opened while a huge one is analysed does
        # not wait for it (they share the GIL, so more would not be faster); warming up
        # has its own thread and never holds up an analysis
        self.worker = Worker(2, "pi-lsp-analysis")
        self.background = Worker(1, "pi-lsp-warm-up")
        self._drivers: dict[str, asyncio.Task[bool]] = {}

    def schedule(self, uri: str) -> None:
        """Make sure the current text of ``uri`` gets analysed, then ``on_ready(uri)``."""
        driver = self._drivers.get(uri)
        if driver is None or driver.done():
            self._drivers[uri] = asyncio.ensure_future(self._drive(uri))

    async def ready(self, uri: str) -> Analysis | None:
        """The analysis of the current text of ``uri`` (None when it is not open)."""
        while True:
            doc = self.ls.documents.get(uri)
            if doc is None:
                return None
            if not doc.is_stale:
                return doc.analysis
            self.schedule(uri)
            if not await asyncio.shield(self._drivers[uri]):
                return None

    async def _drive(self, uri: str) -> bool:
        """Analyse until the current text is done; False when closed or failed."""
        title = f"pi-lsp: {PurePosixPath(uri).name}"
        while True:
            await asyncio.sleep(0)  # let changes that are already queued land first
            doc = self.ls.documents.get(uri)
            if doc is None:
                return False
            if doc.is_stale:
                meter = progress.Meter()
                work = self.worker.submit(functools.partial(doc.run_analysis, meter.update))
                try:
                    await progress.follow(self.ls, work, meter, title)
                except Exception as exc:  # a bug in the analysis must not kill the server
                    log.error("analysis of %s failed: %s: %s", uri, type(exc).__name__, exc)
                    log.debug("traceback", exc_info=True)
                    return False
                if self.ls.documents.get(uri) is not doc or doc.is_stale:
                    continue
            self.on_ready(uri)
            if self.warm is not None:
                asyncio.get_running_loop().call_later(
                    WARM_AFTER, self._warm_soon, doc, doc.analysis
                )
            return True

    def _warm_soon(self, doc: Document, analysis: Analysis) -> None:
        """On the loop: hand the warm-up to the background thread if the text is unchanged."""
        if not doc.is_stale and doc.analysis is analysis:
            self.background.submit(functools.partial(self._warm, doc, analysis))

    def _warm(self, doc: Document, analysis: Analysis) -> None:
        """In the background thread: precompute what requests need, unless the text moved on."""
        if doc.is_stale or doc.analysis is not analysis or self.warm is None:
            return
        try:
            with gc_paused():
                self.warm(analysis)
        except Exception as exc:  # only a cache: a request computes it again
            log.error("warming up %s failed: %s: %s", doc.uri, type(exc).__name__, exc)
            log.debug("traceback", exc_info=True)


_SCHEDULERS: weakref.WeakKeyDictionary[PiLanguageServer, Scheduler] = weakref.WeakKeyDictionary()


def of(
    ls: PiLanguageServer,
    on_ready: Callable[[str], None],
    warm: Callable[[Analysis], object] | None = None,
) -> Scheduler:
    """The scheduler of ``ls`` (created with ``on_ready`` and ``warm`` on first use)."""
    found = _SCHEDULERS.get(ls)
    if found is None:
        found = _SCHEDULERS[ls] = Scheduler(ls, on_ready, warm)
    return found
