"""Giving a closed document's memory back to the operating system.

Nothing but the open document holds its text and analysis, so CPython frees them when the
document closes (and its last analysis, request or warm-up lets go of them). The C
allocator keeps the pages it gets back for later use, though: glibc's heaps (one per thread
that analysed) shrink only when asked, so the server's resident size stayed where the
largest document had taken it. :func:`give_back` asks (``malloc_trim``); it costs a few
milliseconds, off the event loop, and does nothing where the C library has no such call
(macOS, musl).
"""

from __future__ import annotations

import ctypes
import functools
import logging
from collections.abc import Callable

log = logging.getLogger("pi_lsp")


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the process's C library has none."""
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
        return trim
    except (AttributeError, OSError):
        return None


def give_back() -> None:
    """Return the C allocator's free memory to the operating system, where it can."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
        log.debug("freed memory returned to the system (malloc_trim)")
