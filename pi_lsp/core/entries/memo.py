"""Derived views memoised beside the analysis they come from, and freed with it.

An :class:`~pi_lsp.core.checks.analysis.Analysis` never changes once built, so a view of it (the
reference index, the session totals, a migration plan) is computed once and kept in its
:class:`Views`: ``a.views`` for views of the whole analysis, ``a.link_views`` for views
that read only the tree and the link fields (successive analyses share it while their
links agree). No cache outlives its analysis: when a document closes, its views go with
it. Threads asking for the same view at once compute it once; the others wait for it.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class _Slot:
    """One view: computed once under its own lock."""

    __slots__ = ("done", "lock", "value")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.done = False
        self.value: Any = None


class Views:
    """The memoised views of one analysis (or of one state of its links)."""

    __slots__ = ("_lock", "_slots")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._slots: dict[Callable[..., Any], _Slot] = {}

    def get(self, fn: Callable[[Any], T], a: Any) -> T:
        """``fn(a)``, computed on the first call only."""
        with self._lock:
            slot = self._slots.get(fn)
            if slot is None:
                slot = self._slots[fn] = _Slot()
        with slot.lock:
            if not slot.done:
                slot.value = fn(a)
                slot.done = True
            value: T = slot.value
        return value


class _Viewed(Protocol):
    views: Views
    link_views: Views


A = TypeVar("A", bound=_Viewed)


def per_analysis(fn: Callable[[A], T]) -> Callable[[A], T]:
    """Compute ``fn(analysis)`` once per analysis (kept in ``analysis.views``)."""

    @functools.wraps(fn)
    def run(a: A) -> T:
        return a.views.get(fn, a)

    return run


def per_links(fn: Callable[[A], T]) -> Callable[[A], T]:
    """Like :func:`per_analysis`, but shared by analyses with the same ``link_views``.

    For views that read only the tree and the fields of :func:`analysis.link_facts`: an
    edit that changes no link (typing in a message) keeps them.
    """

    @functools.wraps(fn)
    def run(a: A) -> T:
        return a.link_views.get(fn, a)

    return run
