"""At start, before any document is open, the server compiles the line checks in the
background (jsonschema-rs and its validators), which the first analysis would otherwise
wait for. Seen from outside: jsonschema-rs's library is mapped into the server process,
which imports it only to validate. Read from ``/proc`` (Linux only)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

pytestmark = pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc")


def _maps_jsonschema_rs(client: LanguageClient) -> bool:
    pid = client._server.pid  # type: ignore[union-attr]
    return "jsonschema_rs" in Path(f"/proc/{pid}/maps").read_text()


async def test_the_line_checks_are_compiled_before_any_document_opens(
    client: LanguageClient,
) -> None:
    deadline = time.monotonic() + 10
    while not _maps_jsonschema_rs(client) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert _maps_jsonschema_rs(client)
