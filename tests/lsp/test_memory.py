"""A closed document gives its memory back: the server's resident size falls after a close.

CPython frees the document's text and analysis at once, but glibc keeps the freed pages of
its per-thread heaps until asked to trim them; without that the server stayed as large as
the largest document it ever held. Read from ``/proc`` (Linux only).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .big_session import big_session
from .conftest import open_document

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")

URI = "file:///tmp/pi-lsp-test/large.jsonl"


def _rss(client: LanguageClient) -> int:
    """The server process's resident size in bytes."""
    pid = client._server.pid  # type: ignore[union-attr]
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@pytest.mark.slow
async def test_closing_a_large_document_gives_its_memory_back(client: LanguageClient) -> None:
    await open_document(client, big_session(0.2), "file:///tmp/pi-lsp-test/warm.jsonl")
    await asyncio.sleep(1.5)  # the first analysis imports and compiles what any would
    text = big_session(8)
    before = _rss(client)
    await open_document(client, text, URI)
    opened = _rss(client)
    grown = opened - before
    assert grown > 2 * len(text)  # the document and its analysis are held
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=URI))
    )
    deadline = time.monotonic() + 20
    while _rss(client) > opened - grown // 2 and time.monotonic() < deadline:
        await asyncio.sleep(0.25)
    # here about 90 % of it comes back (without the trim: under 20 %)
    assert _rss(client) <= opened - grown // 2, (before, opened, _rss(client))
