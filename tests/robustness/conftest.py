"""Robustness suite configuration.

- ``@pytest.mark.slow`` tests (full-size pathological inputs, long fuzz runs) are in the
  slow tier (``python -m pytest -m ""``); the fuzz run at length also needs ``PI_LSP_SLOW=1``.
- Hypothesis runs derandomized with a bounded example count and no example database
  (the suite writes nothing into the checkout); ``PI_LSP_HYPOTHESIS_EXAMPLES`` raises the
  bound for a longer local run.
- ``node`` / ``fixtures_dir`` fixtures skip (never fail) when node or the shared
  fixtures are absent.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from .hostile import FIXTURES
from .invariants import TRACEBACK, traceback_summary
from .known import classify
from .lspclient import LspClient, start_stdio


@pytest.fixture(scope="session")
def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.skip("node is not installed")
    return path


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    if not FIXTURES.is_dir():
        pytest.skip(f"shared fixtures not found at {FIXTURES}")
    return FIXTURES


class SharedServer:
    """One UTF-16 server for the whole run (restarted if a test kills it)."""

    def __init__(self) -> None:
        self.client: LspClient | None = None
        self.retired: list[LspClient] = []

    def get(self) -> LspClient:
        if self.client is None or not self.client.alive:
            if self.client is not None:
                self.retired.append(self.client)
            self.client = start_stdio(["utf-16"])
        return self.client


@pytest.fixture(scope="session")
def _shared() -> Iterator[SharedServer]:
    shared = SharedServer()
    yield shared
    for client in [*shared.retired, *([shared.client] if shared.client else [])]:
        client.close()


@pytest.fixture
def shared_server(_shared: SharedServer) -> Iterator[LspClient]:
    """A running UTF-16 (push diagnostics) server shared by tests; each test must close
    the documents it opens. A new traceback on its stderr fails the test (unless it is a
    known bug)."""
    client = _shared.get()
    before = len(client.stderr)
    yield client
    new = client.stderr[before:]
    if TRACEBACK in new:
        summary = traceback_summary(new)
        if classify(f"traceback on stderr: {summary}") is None:
            pytest.fail(f"traceback on the server's stderr: {summary}")
