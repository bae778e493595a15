"""Where the server's work runs: analyses, warm-ups, freeing and requests, all off the event loop.

The event loop only applies changes, hands work out and sends answers. Four kinds of
worker threads (daemons: they never delay exit) do the rest:

- analyses (two threads: a small document opened while a huge one is analysed does not
  wait for it; they share the GIL, so more would not be faster). For each document one
  driver task (:meth:`Scheduler.schedule`) loops until the analysis of the *current* text
  is done, then calls ``on_ready(uri, prepared)`` (which publishes diagnostics for the
  current version); ``prepared`` is what ``prepare(document)`` returned in the analysis
  thread right after the analysis (the diagnostics, converted without another trip to a
  thread), or None when the text was analysed already. A change while an analysis runs
  cancels it (the analysis stops within about a MiB of new text) and its finished lines
  are reused by the next run, so a burst of hundreds of edits analyses the last version,
  not every one. An analysis still running after
  :data:`~pi_lsp.lsp.progress.SHOW_AFTER` seconds is shown through ``follow``;
- freeing (one thread): the analyses a newer one replaced
  (:meth:`~pi_lsp.core.checks.document.Document.take_replaced`) are freed there once the new
  diagnostics are sent; freeing one touches every line's objects (1.5 ms for 4,400
  lines after the machine idled), which the analysis thread paid before it answered;
- the warm-up (one thread): at start, ``ahead(stop)`` does work the first analysis
  would wait for (compiling the line checks' validators) until ``stop()`` says a
  document is open; once a document has been left unchanged for
  :data:`WARM_AFTER` seconds after its diagnostics, ``warm(analysis)`` precomputes the
  views requests need (the reference index, session totals), so the first hover does not
  pay for them and a burst of typing is not slowed down by them; and :data:`RELEASE_AFTER`
  seconds after a document closes, it returns the freed memory to the system
  (:mod:`~pi_lsp.lsp.memory`);
- requests (a thread per request running at once, up to eight): :meth:`Scheduler.compute`
  runs a request's core work on a snapshot, so one slow request (an outline of a huge
  session) holds up neither the loop nor a quick request beside it.

:meth:`Scheduler.current` awaits the analysis of the current text without blocking the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import queue
import threading
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from pathlib import PurePosixPath
from typing import Any, TypeVar

from pi_lsp.core.checks.document import Document
from pi_lsp.core.checks.gcpause import collect_frozen, gc_paused
from pi_lsp.core.entries.model import Analysis

from .memory import give_back
from .progress import Meter

T = TypeVar("T")

WARM_AFTER = 0.5
"""Seconds without a change after which the views requests need are precomputed."""

RELEASE_AFTER = 1.0
"""Seconds after a document closes before its freed memory goes back to the system (by
then the warm-up timer, which holds the document for :data:`WARM_AFTER`, has let go)."""

log = logging.getLogger("pi_lsp")

Follow = Callable[[Awaitable[Any], Meter, str], Awaitable[None]]
"""Awaits an analysis, showing its progress (``progress.follow`` bound to the server)."""


class Worker:
    """Daemon threads running submitted calls: a new thread (up to ``threads``) whenever
    every running one is busy, so a quick call never queues behind a slow one while the
    limit allows."""

    def __init__(self, threads: int, name: str) -> None:
        self._queue: queue.SimpleQueue[
            tuple[asyncio.AbstractEventLoop, asyncio.Future[Any], Callable[[], Any]]
        ] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._size = threads
        self._name = name
        self._idle = 0
        self._lock = threading.Lock()

    def submit(self, fn: Callable[[], T]) -> asyncio.Future[T]:
        """Run ``fn()`` in a worker thread; its result arrives in the returned future."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._lock:
            if self._idle == 0 and len(self._threads) < self._size:
                thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._threads.append(thread)
                thread.start()
            else:
                self._idle -= 1  # an idle thread takes it (or the queue holds it)
        self._queue.put((loop, future, fn))
        return future

    def _run(self) -> None:
        while True:
            _call(*self._queue.get())  # its locals (a result, a snapshot) die with the call
            with self._lock:
                self._idle += 1


def _call(
    loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], fn: Callable[[], Any]
) -> None:
    """Run one submitted call and settle its future on the loop."""
    if future.cancelled():  # asked for by a request that was cancelled meanwhile
        return
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


async def _no_progress(work: Awaitable[Any], meter: Meter, title: str) -> None:
    await work


class Scheduler:
    """Keeps every open document's analysis current, and runs requests, off the loop."""

    def __init__(
        self,
        documents: Mapping[str, Document],
        on_ready: Callable[[str, Any], None] | None = None,
        warm: Callable[[Analysis], object] | None = None,
        follow: Follow = _no_progress,
        prepare: Callable[[Document], Any] | None = None,
        ahead: Callable[[Callable[[], bool]], object] | None = None,
    ) -> None:
        self.documents = documents
        self.on_ready = on_ready
        self.prepare = prepare
        self.ahead = ahead
        self.warm = warm
        self.follow = follow
        self.analyses = Worker(2, "pi-lsp-analysis")
        self.background = Worker(1, "pi-lsp-warm-up")
        self.freeing = Worker(1, "pi-lsp-free")
        self.requests = Worker(8, "pi-lsp-request")
        self.indexing = Worker(1, "pi-lsp-index")
        self._drivers: dict[str, asyncio.Task[bool]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._release: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """Once the client is ready: ``ahead(stop)`` in the background thread, ``stop()``
        true once a document is open."""
        if self.ahead is not None:
            self.background.submit(self._ahead)

    def _ahead(self) -> None:
        assert self.ahead is not None
        try:
            self.ahead(lambda: bool(self.documents))
        except Exception as exc:  # each analysis does the same work again when it needs it
            log.error("preparing analyses failed: %s: %s", type(exc).__name__, exc)
            log.debug("traceback", exc_info=True)

    def schedule(self, uri: str) -> None:
        """Make sure the current text of ``uri`` gets analysed, then ``on_ready(uri, ...)``."""
        driver = self._drivers.get(uri)
        if driver is None or driver.done():
            self._drivers[uri] = asyncio.ensure_future(self._drive(uri))

    def forget(self, uri: str) -> None:
        """Drop the driver of a closed document (it ends on its own), and give the
        document's memory back to the system once nothing holds it any more."""
        self._drivers.pop(uri, None)
        self.release()

    def release(self) -> None:
        """In :data:`RELEASE_AFTER` seconds, in the background thread: return freed
        memory to the system (:func:`~pi_lsp.lsp.memory.give_back`); once for the calls
        made meanwhile."""
        if self._release is None:
            self._release = asyncio.get_running_loop().call_later(RELEASE_AFTER, self._released)

    def _released(self) -> None:
        self._release = None
        self.background.submit(self._give_back)

    def _give_back(self) -> None:
        """In the background thread: once no document is open, let the collector see
        what analyses froze (:func:`~pi_lsp.core.checks.gcpause.collect_frozen`: a pass over
        every live object, cheap then); then return freed memory to the system."""
        if not self.documents:
            collect_frozen()
        give_back()

    async def current(self, uri: str) -> Analysis | None:
        """The analysis of the current text of ``uri`` (None when it is not open)."""
        while True:
            doc = self.documents.get(uri)
            if doc is None:
                return None
            snap = doc.snapshot()
            if snap is not None and not doc.is_stale:
                return snap.analysis
            self.schedule(uri)
            if not await asyncio.shield(self._drivers[uri]):
                return None

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run ``work`` on the loop, on its own (kept alive until it ends)."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def compute(self, fn: Callable[[], T]) -> asyncio.Future[T]:
        """Run a request's work (``fn()``, reading a snapshot) in a request thread."""
        return self.requests.submit(fn)

    async def _drive(self, uri: str) -> bool:
        """Analyse until the current text is done; False when closed or failed."""
        title = f"pi-lsp: {PurePosixPath(uri).name}"
        while True:
            await asyncio.sleep(0)  # let changes that are already queued land first
            doc = self.documents.get(uri)
            if doc is None:  # closed, maybe while its analysis ran: that is freed now
                self.release()
                return False
            prepared = None
            if doc.is_stale:
                meter = Meter()
                work = self.analyses.submit(functools.partial(self._analyse, doc, meter.update))
                try:
                    await self.follow(work, meter, title)
                except Exception as exc:  # a bug in the analysis must not kill the server
                    log.error("analysis of %s failed: %s: %s", uri, type(exc).__name__, exc)
                    log.debug("traceback", exc_info=True)
                    return False
                prepared = work.result()
                if self.documents.get(uri) is not doc or doc.is_stale:
                    continue
            if self.on_ready is not None:
                self.on_ready(uri, prepared)
            replaced = doc.take_replaced()
            if replaced:  # freed once the diagnostics are out, not before; the heap the
                self.freeing.submit(replaced.clear)  # analysis thread grew is trimmed then
                self.release()
            snap = doc.snapshot()
            if self.warm is not None and snap is not None:
                asyncio.get_running_loop().call_later(
                    WARM_AFTER, self._warm_soon, doc, snap.analysis
                )
            return True

    def _analyse(self, doc: Document, progress: Callable[[int, int], None]) -> Any:
        """In an analysis thread: analyse ``doc``'s current text, then ``prepare(doc)``
        (None when that fails: a bug there is no failed analysis, and ``on_ready`` then
        does without)."""
        doc.run_analysis(progress)
        if self.prepare is None:
            return None
        try:
            return self.prepare(doc)
        except Exception as exc:
            log.error("preparing %s failed: %s: %s", doc.uri, type(exc).__name__, exc)
            log.debug("traceback", exc_info=True)
            return None

    def _warm_soon(self, doc: Document, analysis: Analysis) -> None:
        """On the loop: hand the warm-up to the background thread if the text is unchanged."""
        if self._unchanged(doc, analysis):
            self.background.submit(functools.partial(self._warm, doc, analysis))

    def _unchanged(self, doc: Document, analysis: Analysis) -> bool:
        snap = doc.snapshot()
        return (
            self.documents.get(doc.uri) is doc
            and not doc.is_stale
            and snap is not None
            and snap.analysis is analysis
        )

    def _warm(self, doc: Document, analysis: Analysis) -> None:
        """In the background thread: precompute what requests need, unless the text moved on."""
        if self.warm is None or not self._unchanged(doc, analysis):
            return
        try:
            with gc_paused():
                self.warm(analysis)
        except Exception as exc:  # only a cache: a request computes it again
            log.error("warming up %s failed: %s: %s", doc.uri, type(exc).__name__, exc)
            log.debug("traceback", exc_info=True)
