"""Terminal output for the command line: colour (``--color``, ``NO_COLOR``), widths, pipes.

Standard streams are made pipe-safe here (:func:`pipe_safe`). Widths are terminal columns: East Asian wide and full-width characters (日本語, most emoji)
take two, combining marks and zero-width characters none, everything else one.
"""

from __future__ import annotations

import functools
import io
import os
import re
import sys
import unicodedata
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

COLOR_CHOICES = ("auto", "always", "never")
DEFAULT_WIDTH = 200
"""Columns used when the output is not a terminal."""


def use_color(choice: str, stream: TextIO) -> bool:
    """Whether to colour ``stream``: ``always``/``never``, or ``auto``.

    ``auto`` colours a terminal unless ``NO_COLOR`` is set (and not empty) or ``TERM`` is
    ``dumb``; ``FORCE_COLOR`` (not empty) colours even a pipe.
    """
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream.isatty() and os.environ.get("TERM") != "dumb"


_ANSI = {"bold": "1", "dim": "2", "red": "1;31", "yellow": "1;33", "blue": "1;34", "cyan": "36"}


class Style:
    """ANSI styles, or plain text when colour is off."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, style: str) -> str:
        """``text`` in ``style`` (a key of the table above)."""
        if not self.enabled or not text:
            return text
        return f"\x1b[{_ANSI[style]}m{text}\x1b[0m"


def output_width(stream: TextIO) -> int:
    """The terminal's width when ``stream`` is a terminal, else :data:`DEFAULT_WIDTH`."""
    if stream.isatty():
        try:
            return os.get_terminal_size(stream.fileno()).columns
        except (OSError, ValueError):
            import shutil  # only here: it costs a few milliseconds of every start

            return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    return DEFAULT_WIDTH


@functools.lru_cache(maxsize=8192)
def char_columns(ch: str) -> int:
    """Columns one character takes on a terminal."""
    if ch < " ":
        return 0
    if unicodedata.combining(ch) or ch in "\u200b\u200c\u200d\ufe0e\ufe0f":
        return 0
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


_NOT_PLAIN = re.compile(r"[^\x20-\x7e]")


def columns(text: str) -> int:
    """Columns ``text`` takes on a terminal."""
    return len(text) + sum(char_columns(ch) - 1 for ch in _NOT_PLAIN.findall(text))


def fit(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` columns, ending in ``…`` when cut."""
    if width <= 0:
        return ""
    if 2 * len(text) <= width or columns(text) <= width:
        return text
    used = 0
    for i, ch in enumerate(text):
        used += char_columns(ch)
        if used > width:
            head = text[:i]
            while head and columns(head) > width - 1:
                head = head[:-1]
            return head + "…"
    return text


def counted(n: int, noun: str, nouns: str | None = None) -> str:
    """``n`` and ``noun``, in the plural (``nouns``, default ``noun + "s"``) unless n is 1."""
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"


def quiet_broken_pipe() -> None:
    """After the reader of stdout went away: send further output nowhere, silently."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):
        return
    _write_nowhere(fd)


def pipe_safe(stream: TextIO) -> TextIO:
    """``stream`` (stdout or stderr) as a text stream that never raises ``BrokenPipeError``:
    once its reader went away, what is written goes nowhere (as Python's documentation of
    ``SIGPIPE`` advises), so the exit status stays the one the run earned. ``stream``
    itself when it has no file descriptor."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return stream
    return io.TextIOWrapper(
        io.BufferedWriter(_Outlet(fd)),
        encoding=stream.encoding,
        errors="backslashreplace",
        line_buffering=bool(stream.line_buffering),
        write_through=getattr(stream, "write_through", False),
    )


class _Outlet(io.RawIOBase):
    """A file descriptor written to until its reader goes away, then to ``/dev/null``."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd

    def writable(self) -> bool:
        """Always: this is an output."""
        return True

    def fileno(self) -> int:
        """The descriptor written to."""
        return self.fd

    def isatty(self) -> bool:
        """Whether the descriptor is a terminal."""
        return os.isatty(self.fd)

    def write(self, data: ReadableBuffer) -> int:
        """Write ``data``; all of it is taken once the reader went away."""
        try:
            return os.write(self.fd, data)
        except BrokenPipeError:
            _write_nowhere(self.fd)
            return len(memoryview(data))


def _write_nowhere(fd: int) -> None:
    """Point ``fd`` at ``/dev/null``, silently (if that fails, writes keep failing)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:
        pass
