"""Command-line PATH arguments: files, folders, glob patterns and ``-`` (standard input).

A folder means every session file under it (:func:`pi_lsp.core.files.expand`); a PATH that
does not exist but holds ``*``, ``?`` or ``[`` is a glob pattern (``**`` spans folders, ``~``
is expanded), for shells that do not expand it or patterns quoted on purpose. What names
nothing is reported, and the rest is still used.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from pathlib import Path

from pi_lsp.core.files import expand

STDIN = "-"


@dataclass(slots=True)
class Targets:
    """Files to read (``-`` for standard input), in order, each once; and what named nothing."""

    files: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    """Folders (or patterns matching only folders) holding no session file."""


def resolve(args: list[str]) -> Targets:
    """Expand PATH arguments into files (see the module docstring)."""
    out = Targets()
    seen: set[str] = set()

    def add(path: str) -> None:
        if path not in seen:
            seen.add(path)
            out.files.append(path)

    for arg in args:
        if arg == STDIN:
            add(STDIN)
            continue
        path = Path(os.path.expanduser(arg))
        if path.exists():
            found = [str(p) for p in expand([path])]
        elif glob.has_magic(arg):
            matches = sorted(glob.glob(os.path.expanduser(arg), recursive=True))
            if not matches:
                out.missing.append(arg)
                continue
            found = [str(p) for p in expand([Path(m) for m in matches])]
        else:
            out.missing.append(arg)
            continue
        if not found:
            out.empty.append(arg)
        for file in found:
            add(file)
    return out
