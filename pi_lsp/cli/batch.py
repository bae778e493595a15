"""What the commands over many session files share: the files named, a parallel map, progress.

``check``, ``stats`` and ``find`` take files, directories (recursive ``*.jsonl``), glob
patterns and ``-`` (see :mod:`pi_lsp.cli.paths`; default: pi's sessions directory) and work
on many files in parallel on all cores, with a one-line progress bar on a terminal's stderr.
Ctrl-C stops the run at once: the bar's line is ended and no worker is left (or speaks).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO, TypeVar

from pi_lsp.core.text.files import sessions_dir

from .arguments import whole_number
from .paths import resolve

PARALLEL_FROM = 8
"""Fewer files than this are handled in-process, one after the other."""

T = TypeVar("T")


def add_file_arguments(parser: Any) -> None:
    """The ``PATH ...`` and ``-j/--jobs`` arguments of a command over many files."""
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files, folders (recursive *.jsonl), glob patterns, or - for standard input; "
        "default: pi's sessions directory",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=whole_number(1, zero="all cores"),
        default=0,
        help="parallel processes (default 0: all cores)",
    )


def named_or_default(paths: Sequence[str | Path], command: str) -> list[str] | None:
    """The PATHs given, else pi's sessions directory; None after saying on stderr that it
    does not exist."""
    if paths:
        return [str(p) for p in paths]
    default = sessions_dir()
    if not default.is_dir():
        print(
            f"pi-lsp {command}: no PATH given and pi's sessions directory {default} does not "
            "exist (set PI_CODING_AGENT_DIR or name files)",
            file=sys.stderr,
        )
        return None
    return [str(default)]


def targets(paths: Sequence[str | Path], command: str) -> list[Path] | None:
    """The files to work on; None after saying on stderr why none (a PATH naming nothing)."""
    named = named_or_default(paths, command)
    if named is None:
        return None
    found = resolve(named)
    if found.missing:
        print(f"pi-lsp {command}: {found.missing[0]}: no such file or directory", file=sys.stderr)
        return None
    return [Path(f) for f in found.files]


def run_all(work: Callable[[str], T], paths: list[str], jobs: int = 0) -> list[T]:
    """``work(path)`` for every path, in order; in worker processes when there are many.

    ``work`` must be a module-level function (it is pickled) that never raises. On Ctrl-C
    the progress bar's line is ended, the workers are stopped and ``KeyboardInterrupt``
    goes on up.
    """
    progress = Progress(len(paths), sys.stderr)
    try:
        if in_process(len(paths), jobs):
            results = []
            for path in paths:
                results.append(work(path))
                progress.step()
            return results
        return _in_pool(work, paths, _workers(jobs), progress)
    finally:
        progress.done()


def _in_pool(
    work: Callable[[str], T], paths: list[str], workers: int, progress: Progress
) -> list[T]:
    """:func:`run_all` in ``workers`` processes, which never see Ctrl-C: they are started
    with SIGINT blocked (a signal mask is inherited), so only this process is interrupted
    and it ends them. While it waits, Ctrl-C only sets a flag, read between short waits: a
    KeyboardInterrupt raised inside the pool's locks would surface as another error."""
    import concurrent.futures  # only here: a single file is checked without it
    import multiprocessing
    import signal
    import threading

    done: dict[str, T] = {}
    hits: list[int] = []
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=workers)
    masks = hasattr(signal, "pthread_sigmask")  # not on Windows, where Ctrl-C differs
    main = threading.current_thread() is threading.main_thread()  # handlers live there only
    previous = signal.signal(signal.SIGINT, lambda *_: hits.append(1)) if main else None
    try:
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if masks else None
        try:
            futures = {pool.submit(work, path): path for path in paths}
        finally:
            if blocked is not None:  # a Ctrl-C meanwhile sets the flag now
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        pending = set(futures)
        while pending and not hits:
            finished, pending = concurrent.futures.wait(
                pending, timeout=0.05, return_when=concurrent.futures.FIRST_COMPLETED
            )
            for future in finished:
                done[futures[future]] = future.result()
                progress.step()
        if hits:
            raise KeyboardInterrupt
        pool.shutdown()
    except BaseException:
        for child in multiprocessing.active_children():
            child.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        if main:  # None: a handler not set from Python, so the default one
            signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)
    return [done[p] for p in paths]


def in_process(count: int, jobs: int = 0) -> bool:
    """Whether :func:`run_all` works on ``count`` files in this process (else in a pool)."""
    return count < PARALLEL_FROM or _workers(jobs) == 1


def _workers(jobs: int) -> int:
    """The worker processes ``-j jobs`` asks for (0: one per core)."""
    return jobs or os.cpu_count() or 1


class Progress:
    """A one-line progress bar on a terminal's stderr, for runs over many files."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.count = 0
        self.stream = stream
        self.enabled = total >= PARALLEL_FROM and stream.isatty()
        self.shown = False

    def step(self) -> None:
        """One more file done."""
        self.count += 1
        if self.enabled:
            width = 30
            filled = width * self.count // self.total
            bar = "#" * filled + "-" * (width - filled)
            self.shown = True  # first: Ctrl-C may come while the bar is written
            self.stream.write(f"\r[{bar}] {self.count}/{self.total} files")
            self.stream.flush()

    def done(self) -> None:
        """End the bar's line, if one was drawn."""
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
            self.shown = False
