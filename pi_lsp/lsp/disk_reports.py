"""The diagnostics of one session file on disk, as ``pi-lsp check --format json`` gives them.

The work of workspace diagnostics for a file that is not open: read it line by line,
analyse it, apply the settings and build the LSP JSON with :mod:`pi_lsp.lsp.wire` (what
``check`` prints). A ``*.jsonl`` file that is no session (:func:`is_session`: not named as
pi names sessions, and its first line is no session header) gets an empty report, so a
project's data files are not listed as broken sessions. No lsprotocol here: :func:`report` runs in the workers of a process
pool, which import this module and the core only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pi_lsp.core.checks.analysis import analyze_file
from pi_lsp.core.entries.model import Analysis, Options
from pi_lsp.core.text.files import Stamp, cannot_read, session_id_in_name, stamp
from pi_lsp.core.text.lineindex import Encoding
from pi_lsp.core.workspace.settings import Settings

from . import wire


@dataclass(frozen=True, slots=True)
class Report:
    """One file's diagnostics (LSP JSON) for the version ``stamp`` names, or why none."""

    path: str
    stamp: Stamp | None
    items: list[dict[str, Any]]
    error: str | None = None


HEAD = 64 * 1024
"""Bytes read from the start of a file to find its first line."""

_HEADER = re.compile(rb'"type"\s*:\s*"session(_header)?"')
"""A session header's type (pi's ``session``, or the book format's ``session_header``)."""


def is_session(path: str) -> bool:
    """Whether ``path`` is a session: named as pi names them, or headed by a session header."""
    if session_id_in_name(path) is not None:
        return True
    with open(path, "rb") as f:
        head = f.read(HEAD)
    first = next((line for line in head.split(b"\n") if line.strip()), b"")
    return _HEADER.search(first) is not None


def items(analysis: Analysis, settings: Settings, encoding: Encoding) -> list[dict[str, Any]]:
    """The diagnostics of an analysis of a file on disk, exactly as ``check`` prints them."""
    return wire.report(analysis, settings, wire.path_uri(analysis.path or ""), encoding)


def report(path: str, settings: Settings, encoding: Encoding) -> Report:
    """Analyse one file from disk; never raises for a file that cannot be read."""
    before = stamp(path)
    if before is None:
        return Report(path, None, [], f"{path}: not a readable file")
    try:
        if not is_session(path):
            return Report(path, before, [])
        analysis = analyze_file(path, Options(large_line=settings.large_line))
    except OSError as exc:
        return Report(path, None, [], cannot_read(path, exc))
    return Report(path, before, items(analysis, settings, encoding))
