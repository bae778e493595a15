"""The scheduler gives the collector back what analyses froze, but only once no document
is open (a collection then walks little; with a large document open it would hold the
GIL for a pass over all of it)."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Callable

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.checks.document import Document, Position
from pi_lsp.core.checks.gcpause import collect_frozen
from pi_lsp.core.entries.model import Options
from pi_lsp.lsp import scheduler
from tests.core.pi_sessions import doc, header, user


async def _released(s: scheduler.Scheduler, calls: list[int]) -> None:
    """Ask for a release and wait until its give-back has run."""
    before = len(calls)
    s.release()
    deadline = time.monotonic() + 10
    while len(calls) == before and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert len(calls) > before


@pytest.mark.slow
async def test_what_analyses_froze_is_collected_once_no_document_is_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    monkeypatch.setattr(scheduler, "RELEASE_AFTER", 0.0)
    monkeypatch.setattr(scheduler, "give_back", lambda: calls.append(1))
    text = doc(header(), user("a1", None))
    documents = {"file:///open.jsonl": Document.open("file:///open.jsonl", text, 1, None, Options())}
    s = scheduler.Scheduler(documents)
    collect_frozen()
    analyze(text)
    try:
        assert gc.get_freeze_count() > 0
        await _released(s, calls)
        assert gc.get_freeze_count() > 0  # a document is open: nothing collected
        documents.clear()
        await _released(s, calls)
        assert gc.get_freeze_count() == 0
    finally:
        collect_frozen()


async def test_what_prepare_makes_in_the_analysis_thread_reaches_on_ready() -> None:
    """The diagnostics are converted in the analysis thread, right after the analysis (no
    trip to another thread); a text analysed already is ready with nothing prepared."""
    uri = "file:///prepared.jsonl"
    text = doc(header(), user("a1", None))
    document = Document.open(uri, text, 1, None, Options())
    got: list[tuple[str, object]] = []

    def prepare(d: Document) -> tuple[str, object]:
        snap = d.snapshot()
        assert snap is not None
        return threading.current_thread().name, snap.analysis

    s = scheduler.Scheduler(
        {uri: document}, on_ready=lambda u, p: got.append((u, p)), prepare=prepare
    )
    for expected in (1, 2):
        s.schedule(uri)
        deadline = time.monotonic() + 10
        while len(got) < expected and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
    snap = document.snapshot()
    assert snap is not None and snap.text.join() == text
    assert got == [(uri, ("pi-lsp-analysis", snap.analysis)), (uri, None)]


async def test_a_failing_prepare_is_no_failed_analysis() -> None:
    """A bug in ``prepare`` is logged; the analysis stands and ``on_ready`` gets nothing."""
    uri = "file:///unprepared.jsonl"
    document = Document.open(uri, doc(header(), user("a1", None)), 1, None, Options())
    got: list[tuple[str, object]] = []

    def prepare(d: Document) -> object:
        raise RuntimeError("a bug")

    s = scheduler.Scheduler(
        {uri: document}, on_ready=lambda u, p: got.append((u, p)), prepare=prepare
    )
    assert await s.current(uri) is not None
    assert got == [(uri, None)]


async def test_the_analysis_a_change_replaced_is_freed_after_on_ready_in_its_own_thread() -> None:
    """Freeing a replaced analysis touches every line's objects: the analysis thread no
    longer does it before the new diagnostics go out, a thread of its own does after."""
    uri = "file:///replaced.jsonl"
    document = Document.open(uri, doc(header(), user("a1", None), user("a2", "a1")), 1, None, Options())
    events: list[tuple[str, str]] = []

    class Freed:
        def __del__(self) -> None:
            events.append(("freed", threading.current_thread().name))

    def ready(u: str, prepared: object) -> None:
        events.append(("ready", threading.current_thread().name))

    s = scheduler.Scheduler({uri: document}, on_ready=ready)
    first = await s.current(uri)
    assert first is not None
    first.walked[-1] = Freed()  # type: ignore[assignment]  # dies with the analysis
    del first
    document.apply_change(Position(2, 0), Position(2, 0), " ", "utf-16")
    s.schedule(uri)
    deadline = time.monotonic() + 10
    while len(events) < 3 and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    main = threading.current_thread().name
    assert events == [("ready", main), ("ready", main), ("freed", "pi-lsp-free")]


async def test_start_runs_ahead_once_in_the_background_thread_and_logs_its_failure(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``ahead`` (compiling the line checks) runs off the loop, in the warm-up thread; a
    failure there is logged, and the scheduler goes on analysing."""
    ran: list[tuple[str, bool]] = []
    documents: dict[str, Document] = {}

    def ahead(stop: Callable[[], bool]) -> None:
        ran.append((threading.current_thread().name, stop()))
        documents[uri] = document
        ran.append((threading.current_thread().name, stop()))
        raise RuntimeError("no schemas")

    uri = "file:///ahead.jsonl"
    document = Document.open(uri, doc(header(), user("a1", None)), 1, None, Options())
    s = scheduler.Scheduler(documents, ahead=ahead)
    s.start()
    deadline = time.monotonic() + 10
    while len(ran) < 2 and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    # stop() says whether a document is open
    assert ran == [("pi-lsp-warm-up", False), ("pi-lsp-warm-up", True)]
    assert "preparing analyses failed: RuntimeError: no schemas" in caplog.text
    assert await s.current(uri) is not None


async def test_an_analysis_that_replaced_another_gives_its_memory_back_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After an edit's analysis replaces the last one, the freed heap goes back to the
    system (the server's resident size returns near an open's); requests to release made
    meanwhile are one give-back."""
    calls: list[int] = []
    monkeypatch.setattr(scheduler, "RELEASE_AFTER", 0.05)
    monkeypatch.setattr(scheduler, "give_back", lambda: calls.append(1))
    uri = "file:///edited.jsonl"
    document = Document.open(uri, doc(header(), user("a1", None)), 1, None, Options())
    s = scheduler.Scheduler({uri: document})

    async def settle(expected: int) -> None:
        deadline = time.monotonic() + 10
        while len(calls) < expected and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # no second give-back follows

    s.schedule(uri)
    await settle(0)
    assert calls == []  # the first analysis replaced nothing
    document.apply_change(Position(1, 0), Position(1, 0), user("a2", "a1") + "\n", "utf-16")
    s.schedule(uri)
    await settle(1)
    assert calls == [1]
    for _ in range(3):
        s.release()
    await settle(2)
    assert calls == [1, 1]
