"""Standard output and error that a closed pipe cannot turn into a wrong exit status.

``pi-lsp check F 2>&1 | head -1`` closes the pipe after one line; writing on would raise
``BrokenPipeError`` wherever the program happens to be. :func:`pipe_safe` streams send the
rest to ``/dev/null`` instead (as Python's documentation of ``SIGPIPE`` advises), so the run
ends as it would have and exits with the status it earned. Imports nothing that Python has
not loaded at start: ``pi-lsp --version`` goes through here.
"""

from __future__ import annotations

import io
import os
import sys

TYPE_CHECKING = False  # not typing's: see pi_lsp.cli
if TYPE_CHECKING:
    from typing import TextIO

    from _typeshed import ReadableBuffer


def quiet_broken_pipe() -> None:
    """After the reader of stdout went away: send further output nowhere, silently."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):
        return
    _write_nowhere(fd)


def pipe_safe(stream: TextIO) -> TextIO:
    """``stream`` (stdout or stderr) as a text stream that never raises ``BrokenPipeError``:
    once its reader went away, what is written goes nowhere. ``stream`` itself when it has
    no file descriptor."""
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
    """Point ``fd`` at ``/dev/null``, silently (if that fails, each write fails and is
    dropped all the same)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:
        pass
