"""The scheduler gives the collector back what analyses froze, but only once no document
is open (a collection then walks little; with a large document open it would hold the
GIL for a pass over all of it)."""

from __future__ import annotations

import asyncio
import gc
import time

import pytest

from pi_lsp.core.analysis import analyze, collect_frozen
from pi_lsp.core.document import Document
from pi_lsp.core.model import Options
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
