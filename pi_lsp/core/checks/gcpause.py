"""The pause of the cyclic garbage collector while an analysis builds its big acyclic
structures.

The collector is process-wide, and so is the count of the pauses under way that this
module keeps (the one module-level state of the core, guarded by its lock): several
threads may analyse at once, and only the last to end may resume the collector.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_gc_lock = threading.Lock()
_gc_users = 0
_gc_resume = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while big acyclic structures are built, and keep
    it off them afterwards.

    Parsed JSON, line results, trees and findings hold no reference cycles (reference
    counting frees them), yet on a 500 MB session the collector's repeated passes over
    their millions of objects cost a third of the analysis; and once they are old, every
    full collection walks them all again (about 200 ms at 100 MB, holding the GIL: the
    server's event loop stalls). Uses from several threads are counted: when the last one
    ends, everything built meanwhile is frozen (:func:`gc.freeze`, constant time: no pass
    over it) and the collector resumes. :func:`collect_frozen` collects what was frozen.
    """
    global _gc_users, _gc_resume
    with _gc_lock:
        if _gc_users == 0:
            _gc_resume = gc.isenabled()
            gc.disable()
        _gc_users += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_users -= 1
            if _gc_users == 0 and _gc_resume:
                gc.freeze()
                gc.enable()


def collect_frozen() -> None:
    """Give the collector back every frozen object, and collect once.

    Cyclic garbage that another thread made while an analysis ran was frozen with the
    analysis (a few hundred objects over a server's start and first analysis; none more
    over 300 edits). The server calls this, off the event loop, once no document is open.
    """
    with _gc_lock:
        gc.unfreeze()
        gc.collect()
