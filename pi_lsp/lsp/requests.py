"""How a request reads a document: from a snapshot, in a request thread, never blocking.

Two kinds of request, two helpers:

- :func:`on_snapshot` (hover, definition, outline, ...): the answer is computed from the
  document's newest snapshot, at once, even while the document is re-analysed; an
  analysis of an older text answers through the snapshot's line map (a position on a
  line edited since is answered with ContentModified, results on such lines are left
  out). Only a document opened and never analysed yet waits for its first analysis.
- :func:`on_current` (code actions, rename, resolve): the answer is an edit stamped with
  the document's version, so it is computed on the analysis of the current text,
  awaited without blocking the loop.

Either way the work runs in a request thread (:meth:`Scheduler.compute`) and, when the
document changed while it ran, the answer is dropped with ContentModified (LSP 3.17).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from pi_lsp.core.checks.document import Snapshot
from pi_lsp.core.text.lineindex import SplitText
from pi_lsp.core.views.numbering import numbered

from .proto import Frame
from .server import PiLanguageServer

T = TypeVar("T")

Work = Callable[[Snapshot, Frame], T]


def content_modified(uri: str) -> JsonRpcException:
    """The error that cancels a request whose document changed under it."""
    return JsonRpcException(
        message=f"{uri} changed while the request was answered",
        code=types.LSPErrorCodes.ContentModified,
    )


def at(frame: Frame, position: types.Position, uri: str) -> tuple[int, int]:
    """A request's position as analysis ``(line, column)``; ContentModified on a line
    edited since the analysis."""
    found = frame.at(position)
    if found is None:
        raise content_modified(uri)
    return found


def still(ls: PiLanguageServer, uri: str, text: SplitText) -> None:
    """Raise ContentModified unless the open document ``uri`` still has ``text``."""
    doc = ls.documents.get(uri)
    if doc is None or doc.text is not text:
        raise content_modified(uri)


async def on_snapshot(ls: PiLanguageServer, uri: str, work: Work[T]) -> T | None:
    """``work`` on the newest snapshot of ``uri`` (None when the document is not open)."""
    snap = ls.snapshot(uri)
    if snap is None:
        if await ls.scheduler.current(uri) is None:
            return None
        snap = ls.snapshot(uri)
        assert snap is not None
    return await _run(ls, snap, work)


async def on_current(ls: PiLanguageServer, uri: str, work: Work[T]) -> T | None:
    """``work`` on the analysis of the current text of ``uri`` (None when not open)."""
    if await ls.scheduler.current(uri) is None:
        return None
    snap = ls.snapshot(uri)
    assert snap is not None and snap.current
    return await _run(ls, snap, work)


async def _run(ls: PiLanguageServer, snap: Snapshot, work: Work[T]) -> T:
    frame = Frame.of(snap, ls.encoding)

    def run() -> T:
        # line numbers in texts (hovers, titles) are those of the text the client shows
        with numbered(None if snap.current else snap.to_text):
            return work(snap, frame)

    result = await ls.scheduler.compute(run)
    still(ls, snap.uri, snap.text)
    return result
