"""Per-analysis memoisation: derived views computed once for each :class:`Analysis` object.

An analysis is immutable once built and a new one replaces it on every edit, so results
are keyed by identity and only the last few are kept.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TypeVar

from .analysis import Analysis

T = TypeVar("T")


def _keyed(key: Callable[[Analysis], object], fn: Callable[[Analysis], T]) -> Callable[[Analysis], T]:
    """Cache ``fn(analysis)`` under ``key(analysis)`` (by identity), four keys at most."""
    cache: list[tuple[object, T]] = []
    lock = threading.Lock()

    @functools.wraps(fn)
    def run(a: Analysis) -> T:
        k = key(a)
        with lock:
            for n, (cached, value) in enumerate(cache):
                if cached is k:
                    cache.insert(0, cache.pop(n))
                    return value
        value = fn(a)
        with lock:
            cache.insert(0, (k, value))
            del cache[4:]
        return value

    return run


def per_analysis(fn: Callable[[Analysis], T]) -> Callable[[Analysis], T]:
    """Cache ``fn(analysis)`` for the four most recently used analyses."""
    return _keyed(lambda a: a, fn)


def per_links(fn: Callable[[Analysis], T]) -> Callable[[Analysis], T]:
    """Like :func:`per_analysis`, but shared by analyses with the same ``links_token``.

    For views that read only the tree and the fields of :func:`analysis.link_facts`: an
    edit that changes no link (typing in a message) keeps them.
    """
    return _keyed(lambda a: a.links_token, fn)
