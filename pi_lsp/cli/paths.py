"""Command-line PATH arguments: files, folders, glob patterns and ``-`` (standard input).

A folder means every session file under it (:func:`pi_lsp.core.text.files.expand`); a PATH that
does not exist but holds ``*``, ``?`` or ``[`` is a glob pattern (``**`` spans folders, ``~``
is expanded), for shells that do not expand it or patterns quoted on purpose. What names
nothing is reported, and the rest is still used.

Output lines name files the way :class:`Shown` says: a file found below a folder given by an
absolute path (pi's sessions folder by default) relative to that folder, as ruff prints paths
relative to the working directory; anything given relative, and a file named directly, as
given.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pi_lsp.core.text.files import expand, sessions_dir

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


class Shown:
    """How output lines show the files found for PATH arguments (see the module docstring).

    ``args`` are the PATHs given (none: pi's sessions folder). Only paths below a folder (or
    a glob pattern's fixed leading folders) given as an absolute path are shortened.
    """

    def __init__(self, args: Sequence[str]) -> None:
        folders = (_folder_of(arg) for arg in args or [str(sessions_dir())])
        # the deepest folder first: a file below two folders given is shown below the inner one
        self.folders = sorted((f for f in folders if f is not None), key=lambda f: -len(f.parts))

    def __call__(self, path: str) -> str:
        """``path`` as output lines show it."""
        found = Path(path)
        for folder in self.folders:
            if found.is_relative_to(folder):
                return str(found.relative_to(folder))
        return path


def _folder_of(arg: str) -> Path | None:
    """The absolute folder whose files a PATH argument names (None: a file, ``-``, relative)."""
    path = Path(os.path.expanduser(arg))
    if arg == STDIN or not path.is_absolute():
        return None
    if path.is_dir():
        return path
    if path.exists() or not glob.has_magic(arg):
        return None
    return Path(*_leading(path.parts))


def _leading(parts: Sequence[str]) -> list[str]:
    """The parts of a glob pattern before its first wildcard."""
    out: list[str] = []
    for part in parts:
        if glob.has_magic(part):
            break
        out.append(part)
    return out
