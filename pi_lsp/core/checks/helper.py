"""The line checks of a one-shot analysis of a file, on a second core: a forked helper.

``pi-lsp check`` of a file of :data:`HELPER_FROM` bytes or more, on a machine that gives
the process two cores or more, starts a :class:`Helper` before it reads the file. The
helper process reads the file itself (so none of the parent's heap is shared, nor copied
when touched), finds its format context as the analysis does and runs the line checks
(:func:`~pi_lsp.core.checks.analysis.streamed_line_issues`: parse, schema validation,
line-local checks, one line and one parsed value held at a time; where the header is not
the first line, :func:`~pi_lsp.core.checks.analysis.line_issues` of the whole file). It sends back through a pipe only the issues of the
lines that have any. Meanwhile the analysis (given :meth:`Helper.issues` as
``checks_from``) parses the same lines without checking them, builds the tree and checks
the links, and then takes the helper's issues for its line findings. The parent never
imports jsonschema-rs nor compiles a validator.

The two processes read the same bytes only when the file did not change in between: the
helper's issues are taken only when the file's :class:`~pi_lsp.core.text.files.Stamp` (device,
inode, size, modification time) before the fork, after the helper's read and after the
analysis's read are the same, and the helper found the same context and number of lines.
Otherwise, or when the helper failed, the analysis checks the lines itself (it runs
again): the result is what an analysis without a helper finds. (On a file system whose
modification times are coarse, FAT's 2 s say, a rewrite of the file to the same size
within one tick, between the two reads, would go unseen.)

On more cores it is still one helper: the analysis's own part (parse, tree, links) takes
as long as the helper's or longer (gen-100mb: the helper is done 190 ms before the
analysis asks), so more helpers would not shorten it.

Only for a regular file (a pipe cannot be read twice) and where ``os.fork`` exists; never
in the language server, whose threads a fork would not carry over.
"""

from __future__ import annotations

import gc
import marshal
import os
from pathlib import Path
from types import TracebackType
from typing import Any, NoReturn

from ..entries.lines import Issue, LineRules
from ..entries.model import Options
from ..text.files import CarriageReturn, Stamp, read_lines, stamp, stream_lines
from ..text.findings import Severity
from .analysis import line_issues, streamed_line_issues

HELPER_FROM = 1 << 20
"""Files smaller than this are checked in one process. The helper starts late (it forks,
then imports jsonschema-rs and compiles its validators, about 11 ms); the analysis of a
smaller file ends about as soon and then waits for it. Measured by ``pi-lsp check`` of the
start of a pi-written session of many small lines, alone and helped (best of 9): 300 KB
73 → 80 ms, 700 KB 84 → 83 ms, 1.2 MB 100 → 88 ms."""


def usable() -> bool:
    """Whether a helper can run here: ``os.fork`` exists and this process may run on two
    cores or more."""
    if not hasattr(os, "fork"):
        return False
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on every system
        cores = os.cpu_count() or 1
    return cores >= 2


class Helper:
    """A forked process checking the lines of ``path`` (:func:`start` makes one)."""

    def __init__(self, path: str, options: Options, before: Stamp) -> None:
        self._path = path
        self._before = before
        self._answer: Any = None
        source, sink = os.pipe()
        try:
            self._pid = os.fork()
        except OSError:  # no process to be had: no pipe left open either
            os.close(source)
            os.close(sink)
            raise
        if self._pid == 0:  # the helper: never returns
            os.close(source)
            _serve(path, options, sink)
        os.close(sink)
        self._source: int | None = source

    def issues(self, ctx: LineRules, count: int) -> dict[int, tuple[Issue, ...]] | None:
        """The helper's issues by line, when it checked what the analysis read (``ctx``,
        ``count`` lines, the same file); else None (a ``checks_from`` for the analysis)."""
        answer = self._receive()
        if answer is None:
            return None
        their_ctx, their_count, their_stamp, found = answer
        if (
            LineRules(*their_ctx) != ctx
            or their_count != count
            or their_stamp is None
            or not self._before == Stamp(*their_stamp) == stamp(self._path)
        ):
            return None
        return {
            line: tuple(Issue(code, Severity(level), *rest) for code, level, *rest in issues)
            for line, issues in found.items()
        }

    def _receive(self) -> Any:
        """The helper's answer as :func:`_serve` wrote it (waiting for it), or None when it
        failed."""
        if self._source is not None:
            with os.fdopen(self._source, "rb") as source:
                self._source = None
                data = source.read()
            os.waitpid(self._pid, 0)
            try:
                self._answer = marshal.loads(data)
            except Exception:  # a helper that died while writing: nothing to take
                self._answer = None
        return self._answer

    def __enter__(self) -> Helper:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        """Stop a helper whose answer was never asked for (the analysis failed)."""
        if self._source is not None:
            import signal

            os.close(self._source)
            self._source = None
            os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)


def start(path: str, options: Options) -> Helper | None:
    """A helper checking the lines of ``path``, or None where one would not pay or cannot
    run (see the module's docstring)."""
    before = stamp(path)
    if before is None or before.size < HELPER_FROM or not usable():
        return None
    try:
        return Helper(path, options, before)
    except OSError:  # no process or pipe to be had: check in one process
        return None


def _issues(path: Path, options: Options) -> tuple[LineRules, dict[int, tuple[Issue, ...]], int]:
    """The context, the issues by line and the number of lines of the file at ``path``: read
    line by line, holding one line at a time where the header comes first, else whole."""
    try:
        streamed = streamed_line_issues(stream_lines(path), options)
    except CarriageReturn:
        streamed = None
    if streamed is not None:
        return streamed
    split = read_lines(path)
    return (*line_issues(split, options), len(split.lines))


def _serve(path: str, options: Options, sink: int) -> NoReturn:
    """The helper's whole life: check the lines of ``path`` and write the answer to ``sink``.

    The answer is ``marshal``'s (built in, where ``pickle`` would cost the parent 1.2-1.8 ms
    of imports while it waits): the context, the number of lines and the file's stamp as
    plain tuples, and each line's issues as tuples of their fields.
    """
    code = 0
    try:
        gc.disable()  # a short-lived process of acyclic values (see gcpause.gc_paused)
        ctx, found, count = _issues(Path(path), options)
        after = stamp(path)
        answer: Any = (
            tuple(ctx),
            count,
            None if after is None else tuple(after),
            {
                line: tuple(
                    (i.code, int(i.severity), i.start, i.end, i.message, i.data) for i in issues
                )
                for line, issues in found.items()
            },
        )
    except BaseException:  # a file that cannot be read, an interrupt: the parent checks
        answer, code = None, 1
    try:
        with os.fdopen(sink, "wb") as out:
            marshal.dump(answer, out)
    except BaseException:
        code = 1
    finally:
        os._exit(code)  # no exit handlers, no flush of the parent's buffered output
