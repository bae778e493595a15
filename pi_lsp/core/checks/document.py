"""An open document: its lines, incremental text changes, its analyses and its snapshots.

Changes arrive as (range, text) with positions in the client's code units; they are
applied to the core's own line index (never ``str.splitlines``): only the lines a change
touches are re-split, and the lines are copied as they are stored (:class:`Lines`: no line
is decoded but those the change touches), never mutated, so an analysis keeps the exact
text it was computed from. Every change is also recorded as a
:class:`~pi_lsp.core.text.linemap.LineChange`.

The analysis runs in whichever thread calls :meth:`Document.run_analysis` (a server runs
it in a worker while the main thread keeps applying changes): a change cancels an
analysis of older text (its finished lines are kept for the next run), and a second
caller waits for the run of the current text instead of starting another one.

:meth:`Document.snapshot` never waits: it pairs the current text with the newest
*complete* analysis, which may be of an older text, and the :class:`LineMap` from the
lines of the one to the lines of the other (the edits recorded since that analysis).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from ..entries.model import Analysis, Cancelled, Options
from ..text.lineindex import Encoding, Lines, SplitText, clamp, split_lines
from ..text.linemap import LineChange, LineMap
from .analysis import analyze


@dataclass(frozen=True, slots=True)
class Position:
    """A position in code units of some encoding (as sent by a client)."""

    line: int
    character: int


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A document as one request sees it: its text, and the newest complete analysis.

    ``analysis`` may be of an older text: ``map`` takes lines of ``text`` to lines of
    ``analysis.text`` and back (a line edited since maps to nothing). ``serial`` tells the
    document's successive analyses apart. Immutable, like everything it holds.
    """

    uri: str
    version: int | None
    text: SplitText
    analysis: Analysis
    map: LineMap
    serial: int

    @property
    def current(self) -> bool:
        """True when the analysis is of this very text."""
        return self.analysis.text is self.text

    def to_analysis(self, line: int) -> int | None:
        """The analysis's line for ``line`` of the text (None: edited since the analysis)."""
        return line if self.current else self.map.to_old(line)

    def to_text(self, line: int) -> int | None:
        """The text's line for ``line`` of the analysis (None: edited since the analysis)."""
        return line if self.current else self.map.to_new(line)


@dataclass(slots=True)
class _Job:
    """An analysis in progress: of which text, under which options, and whether to stop."""

    text: SplitText
    options: Options
    serial: int
    text_serial: int
    done: threading.Event = field(default_factory=threading.Event)
    cancelled: bool = False


@dataclass(slots=True)
class Document:
    """Text of one document by lines, with a version and its analyses."""

    uri: str
    text: SplitText
    version: int | None = None
    path: str | None = None
    options: Options = field(default_factory=Options)
    _analysis: Analysis | None = None
    _analysed: int = 0
    _partial: Cancelled | None = None
    _job: _Job | None = None
    _jobs: int = 0
    _installed: int = 0
    _changes: int = 0
    _edits: list[tuple[int, LineChange]] = field(default_factory=list)
    _map: tuple[tuple[int, int], LineMap] | None = None
    _replaced: list[Analysis | Cancelled] = field(default_factory=list, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def open(
        cls,
        uri: str,
        text: str | SplitText,
        version: int | None,
        path: str | None,
        options: Options,
    ) -> Document:
        """A document from its full text, or the lines of it."""
        return cls(uri, _split(text), version, path, options)

    @property
    def lines(self) -> Lines:
        """The lines of the document, without terminators."""
        return self.text.lines

    @property
    def source(self) -> str:
        """The whole text (joins lines; costly on huge documents)."""
        return self.text.join()

    def replace_all(self, text: str | SplitText) -> None:
        """Replace the whole text, or its lines (full sync); lines equal at both ends count
        as kept.

        A text that starts with the current one (pi appended to the file the editor shows)
        keeps the line objects before the current last line: the analysis then takes its
        append path.
        """
        old = self.text
        new = _split(text)
        keep = _kept_lines(old, new)
        if keep:
            new = SplitText(
                old.lines[:keep] + new.lines[keep:], old.terminators[:keep] + new.terminators[keep:]
            )
        self._set_text(new, _line_edit(keep, old.lines[keep:], new.lines[keep:]))

    def apply_change(
        self, start: Position, end: Position, new_text: str, encoding: Encoding
    ) -> None:
        """Apply one ranged change; only the touched lines are re-split."""
        lines = self.text.lines
        terms = self.text.terminators
        sl, sc = clamp(lines, start.line, start.character, encoding)
        el, ec = clamp(lines, end.line, end.character, encoding)
        if (el, ec) < (sl, sc):
            sl, sc, el, ec = el, ec, sl, sc
        # A "\r" ending the line before the change may join a "\n" the change starts
        # with: take that line into the re-split region. Lines never contain "\r" or
        # "\n", so nothing past the changed lines can join with the region's end.
        first = sl - 1 if sl > 0 and terms[sl - 1] == "\r" else sl
        before = lines[first] + terms[first] if first < sl else ""
        region = before + lines[sl][:sc] + new_text + lines[el][ec:] + terms[el]
        piece = split_lines(region)
        new_lines, new_terms = piece.lines, piece.terminators
        if terms[el]:
            # the region ends with a terminator: the empty line after it is not ours
            new_lines, new_terms = new_lines[:-1], new_terms[:-1]
        self._set_text(
            SplitText(
                lines[:first] + new_lines + lines[el + 1 :],
                [*terms[:first], *new_terms, *terms[el + 1 :]],
            ),
            _line_edit(first, lines[first : el + 1], new_lines),
        )

    def _set_text(self, text: SplitText, edit: LineChange) -> None:
        with self._lock:
            self.text = text
            self._changes += 1
            self._edits.append((self._changes, edit))
            self._cancel_stale()

    def _cancel_stale(self) -> None:
        """Ask a running analysis of text or options that are no longer current to stop."""
        job = self._job
        if job is not None and not self._running_current(job):
            job.cancelled = True

    def set_version(self, version: int | None) -> None:
        """Record the client's version after a batch of changes."""
        self.version = version

    def set_options(self, options: Options) -> None:
        """Change analysis options (re-analyses on next use)."""
        with self._lock:
            self.options = options
            self._cancel_stale()

    def _current(self, analysis: Analysis | None) -> bool:
        return (
            analysis is not None and analysis.text is self.text and analysis.options == self.options
        )

    def cancel(self) -> None:
        """Ask a running analysis to stop (the document is being closed)."""
        with self._lock:
            if self._job is not None:
                self._job.cancelled = True

    def snapshot(self) -> Snapshot | None:
        """The current text with the newest complete analysis (None before the first one)."""
        with self._lock:
            a = self._analysis
            if a is None:
                return None
            key = (self._changes, self._analysed)
            if self._map is None or self._map[0] != key:
                line_map = LineMap.identity(len(a.lines))
                for _, edit in self._edits:
                    line_map = line_map.then(edit)
                self._map = (key, line_map)
            return Snapshot(self.uri, self.version, self.text, a, self._map[1], self._installed)

    @property
    def analysis(self) -> Analysis:
        """The analysis of the current text, computed in this thread (or awaited) if stale.

        For callers that may block (scripts, tests); a server reads :meth:`snapshot`.
        While another thread re-analyses the *same* text under new options, the last
        analysis is returned at once: its positions are those of the current text.
        """
        while True:
            with self._lock:
                last, job = self._analysis, self._job
                if (
                    last is not None
                    and last.text is self.text
                    and job is not None
                    and not job.cancelled
                    and self._running_current(job)
                ):
                    return last
            found = self.run_analysis()
            if found is not None:
                return found

    @property
    def is_stale(self) -> bool:
        """True when the text or options changed since the last analysis."""
        return not self._current(self._analysis)

    def run_analysis(
        self,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Analysis | None:
        """Analyse the current text in this thread and keep the result.

        Returns the analysis, or None when a change (or ``cancelled()``) superseded it
        before it finished; its finished lines are then reused by the next run. When
        another thread is already analysing the current text, waits for its result.
        """
        while True:
            with self._lock:
                if self._current(self._analysis):
                    return self._analysis
                running = self._job
                if running is None or running.cancelled or not self._running_current(running):
                    self._jobs += 1
                    job = _Job(self.text, self.options, self._jobs, self._changes)
                    self._job = job
                    previous, partial = self._analysis, self._partial
                    untaken, self._replaced = self._replaced, []
                    break
            running.done.wait()

        del untaken  # replaced earlier and never taken: freed here, before this run

        def stop() -> bool:
            return job.cancelled or (cancelled is not None and cancelled())

        try:
            result = analyze(
                job.text,
                self.path,
                job.options,
                previous,
                progress,
                cancelled=stop,
                partial=partial,
            )
        except Cancelled as exc:
            with self._lock:
                self._partial = _merge(self._partial, exc)
            return None
        else:
            with self._lock:
                # an analysis of older text is still the best base for the next one, but
                # never replaces the result of a run that started later
                if job.serial > self._installed:
                    self._install(result, job)
                    self._replaced += [old for old in (previous, partial) if old is not None]
            return result if self._current(result) else None
        finally:
            with self._lock:
                self._finish(job)

    def take_replaced(self) -> list[Analysis | Cancelled]:
        """The analyses (and the finished part of cancelled runs) that newer analyses
        replaced, which this document no longer holds: the caller frees them where it
        suits it.

        A replaced analysis of a long text holds as many objects as it has lines (its line
        list, its results and per-text cache, the views requests made of it), which
        another analysis shares: freeing it touches each of them, about 1.5 ms for 4,400
        lines on an idle machine. :meth:`run_analysis` keeps them here rather than free
        them before it returns, so a server can send the new diagnostics first; those
        nobody took are freed when the next run starts.
        """
        with self._lock:
            out, self._replaced = self._replaced, []
        return out

    def _install(self, result: Analysis, job: _Job) -> None:
        """Make ``result`` the newest complete analysis (under the lock)."""
        self._analysis, self._installed, self._partial = result, job.serial, None
        self._analysed = job.text_serial
        self._edits = [(n, edit) for n, edit in self._edits if n > job.text_serial]

    def _running_current(self, job: _Job) -> bool:
        return job.text is self.text and job.options == self.options

    def _finish(self, job: _Job) -> None:
        if self._job is job:
            self._job = None
        job.done.set()


def _split(text: str | SplitText) -> SplitText:
    """``text`` as lines (split here when it is a ``str``)."""
    return text if isinstance(text, SplitText) else split_lines(text)


def _kept_lines(old: SplitText, new: SplitText) -> int:
    """How many first lines of ``old`` ``new`` keeps: every line but the last, with its
    terminator, when ``new`` starts with them all; else 0.

    Kept lines end before any lone ``\\r``: a ``\\n`` may follow it in the new text (as
    ``\\r\\n``), and the lines before it are kept all the same.
    """
    keep = len(old.lines) - 1
    while keep > 0 and old.terminators[keep - 1] == "\r":
        keep -= 1
    if old.lines[:keep] == new.lines[:keep] and old.terminators[:keep] == new.terminators[:keep]:
        return keep
    return 0


def _line_edit(first: int, old: Lines, new: Lines) -> LineChange:
    """The lines from ``first`` that changed when ``old`` became ``new`` (lines equal at
    either end count as kept: deleting a line from its start re-splits the next one)."""
    most = min(len(old), len(new))
    head = 0
    while head < most and old.raw(head) == new.raw(head):
        head += 1
    tail = 0
    while tail < most - head and old.raw(-1 - tail) == new.raw(-1 - tail):
        tail += 1
    return LineChange(first + head, len(old) - head - tail, len(new) - head - tail)


def _merge(old: Cancelled | None, new: Cancelled) -> Cancelled:
    """Finished lines of two cancelled runs (the newer run's context wins)."""
    if old is None or old.context != new.context:
        return new
    merged = dict(old.partial)
    merged.update(new.partial)
    return Cancelled(new.context, merged)
