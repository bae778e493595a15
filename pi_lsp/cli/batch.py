"""What the commands over many session files share: the files named, a parallel map, progress.

``check``, ``stats`` and ``find`` take files or directories (recursive ``*.jsonl``;
default: pi's sessions directory) and work on many files in parallel on all cores, with
a one-line progress bar on a terminal's stderr.
"""

from __future__ import annotations

import concurrent.futures
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO, TypeVar

from pi_lsp.core.files import expand, sessions_dir

PARALLEL_FROM = 8
"""Fewer files than this are handled in-process, one after the other."""

T = TypeVar("T")


def add_file_arguments(parser: Any) -> None:
    """The ``PATH ...`` and ``-j/--jobs`` arguments of a command over many files."""
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="files or directories (recursive *.jsonl); default: pi's sessions directory",
    )
    parser.add_argument(
        "-j", "--jobs", type=int, default=0, help="parallel processes (default: all cores)"
    )


def targets(paths: Sequence[Path], command: str) -> list[Path] | None:
    """The files to work on (directories expanded); None after saying on stderr why none."""
    found = _targets(paths)
    if isinstance(found, str):
        print(f"pi-lsp {command}: {found}", file=sys.stderr)
        return None
    return found


def _targets(paths: Sequence[Path]) -> list[Path] | str:
    named: list[Path] = list(paths)
    if not named:
        default = sessions_dir()
        if not default.is_dir():
            return (
                f"no PATH given and pi's sessions directory {default} does not exist "
                "(set PI_CODING_AGENT_DIR or name files)"
            )
        named = [default]
    missing = [p for p in named if not p.exists()]
    if missing:
        return f"{missing[0]}: no such file or directory"
    return list(expand(named))


def run_all(work: Callable[[str], T], paths: list[str], jobs: int = 0) -> list[T]:
    """``work(path)`` for every path, in order; in worker processes when there are many.

    ``work`` must be a module-level function (it is pickled) that never raises.
    """
    progress = Progress(len(paths), sys.stderr)
    workers = jobs or os.cpu_count() or 1
    if len(paths) < PARALLEL_FROM or workers == 1:
        results = []
        for path in paths:
            results.append(work(path))
            progress.step()
        progress.done()
        return results
    done: dict[str, T] = {}
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(work, path): path for path in paths}
        for future in concurrent.futures.as_completed(futures):
            done[futures[future]] = future.result()
            progress.step()
    progress.done()
    return [done[p] for p in paths]


class Progress:
    """A one-line progress bar on a terminal's stderr, for runs over many files."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.count = 0
        self.stream = stream
        self.enabled = total >= PARALLEL_FROM and stream.isatty()

    def step(self) -> None:
        """One more file done."""
        self.count += 1
        if self.enabled:
            width = 30
            filled = width * self.count // self.total
            bar = "#" * filled + "-" * (width - filled)
            self.stream.write(f"\r[{bar}] {self.count}/{self.total} files")
            self.stream.flush()

    def done(self) -> None:
        """End the bar's line."""
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
