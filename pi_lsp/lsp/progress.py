"""Work-done progress (``$/progress``) for long analyses, when the client supports it.

A :class:`Meter` is filled in by the analysis thread (lines done out of total) and read
by the event loop, which reports it to the client. Progress is only shown for work that
is still running after :data:`SHOW_AFTER` seconds, so small edits never flash a bar.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

SHOW_AFTER = 0.3
"""Seconds an analysis runs before a progress bar is created."""

REPORT_EVERY = 0.2
"""Seconds between two progress reports."""

CREATE_TIMEOUT = 2.0
"""Seconds to wait for the client to accept a progress token."""

log = logging.getLogger("pi_lsp")


class Meter:
    """Lines done out of total, written by the analysis thread and read by the event loop."""

    def __init__(self) -> None:
        self.done = 0
        self.total = 0

    def update(self, done: int, total: int) -> None:
        """Record progress (called from the analysis thread)."""
        self.done, self.total = done, total

    @property
    def percentage(self) -> int:
        """Progress in percent (0 before the first update)."""
        return min(99, 100 * self.done // self.total) if self.total else 0


def supported(ls: LanguageServer) -> bool:
    """True when the client announced ``window.workDoneProgress``."""
    window = ls.client_capabilities.window
    return bool(window and window.work_done_progress)


async def follow(ls: LanguageServer, work: Awaitable[Any], meter: Meter, title: str) -> None:
    """Wait for ``work``; if it takes longer than :data:`SHOW_AFTER`, show its progress.

    Never raises for a progress problem (a client that refuses the token just gets no
    bar); exceptions of ``work`` itself propagate.
    """
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=SHOW_AFTER)
    if done or not supported(ls):
        await task
        return
    token = f"pi-lsp-analysis-{uuid.uuid4()}"
    try:
        await asyncio.wait_for(ls.work_done_progress.create_async(token), CREATE_TIMEOUT)
    except Exception as exc:  # the client refused or did not answer: no bar
        log.debug("no work-done progress: %s", exc)
        await task
        return
    ls.work_done_progress.begin(
        token,
        types.WorkDoneProgressBegin(
            title=title, message="analysing", percentage=meter.percentage, cancellable=False
        ),
    )
    try:
        while not task.done():
            await asyncio.wait({task}, timeout=REPORT_EVERY)
            if not task.done():
                ls.work_done_progress.report(
                    token,
                    types.WorkDoneProgressReport(
                        message=f"{meter.done:,} of {meter.total:,} lines",
                        percentage=meter.percentage,
                    ),
                )
    finally:
        with contextlib.suppress(Exception):  # the transport may be gone
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))
    await task
