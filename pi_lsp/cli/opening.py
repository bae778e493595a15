"""Opening the one file of a one-file command (tree, context, fork, migrate): read it, or
say why not in one line (the command then exits 2), and analyse it."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple, TypeVar

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.text.files import cannot_read
from pi_lsp.core.text.textedit import Snapshot, read_snapshot

T = TypeVar("T")



def read_or_say(command: str, path: Path, read: Callable[[Path], T]) -> T | None:
    """``read(path)``; None, after the one-line error of ``pi-lsp COMMAND`` on stderr, when
    the file cannot be read (the one-file commands then exit 2)."""
    try:
        return read(path)
    except OSError as exc:
        print(f"pi-lsp {command}: {cannot_read(path, exc)}", file=sys.stderr)
        return None


class Opened(NamedTuple):
    """A session file read for a one-file command: its text, its snapshot (to write it back
    only if unchanged) and its analysis."""

    text: str
    snapshot: Snapshot
    analysis: Analysis


def open_session(command: str, path: Path) -> Opened | None:
    """FILE read and analysed; None, after the one-line error of ``pi-lsp COMMAND``, when
    it cannot be read (the command then exits 2)."""
    read = read_or_say(command, path, read_snapshot)
    if read is None:
        return None
    text, snapshot = read
    return Opened(text, snapshot, analyze(text, path=str(path)))
