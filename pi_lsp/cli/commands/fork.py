"""``pi-lsp fork FILE (--at ID | --at-line N) [-o OUT] [--force]``: pi's "fork" to a new file.

Writes the root → entry path as a new v3 session (pi's ``createBranchedSession``: labels
carried over, ``parentSession`` = FILE), next to FILE under pi's file naming unless
``-o`` names the file. Never overwrites an existing file (``--force``: replaces it, keeping
it as ``OUT.bak``). Prints the new file's path.
``--at-line`` (1-based) names an entry of a v1 file, whose entries have no ids yet.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pi_lsp.core.edits import refactor
from pi_lsp.core.text.textedit import encode, write_atomic, write_new

from ..opening import open_session


def add_parser(sub: Any) -> None:
    """Register the ``fork`` subcommand."""
    p = sub.add_parser("fork")
    p.add_argument("file", type=Path, metavar="FILE")
    at = p.add_mutually_exclusive_group(required=True)
    at.add_argument("--at", metavar="ID", help="the entry to fork at (its id)")
    at.add_argument(
        "--at-line", type=int, metavar="N", help="the entry to fork at (its line, 1-based)"
    )
    p.add_argument(
        "-o", "--output", type=Path, metavar="OUT", help="the new file (default: beside FILE)"
    )
    add_force(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Fork FILE and write the new session file."""
    path: Path = args.file
    opened = open_session("fork", path)
    if opened is None:
        return 2
    a = opened.analysis
    at: str | int = args.at if args.at is not None else args.at_line - 1
    try:
        result = refactor.fork(a, at, str(path))
    except refactor.RefactorError as exc:
        print(f"pi-lsp fork: {path}: {exc}", file=sys.stderr)
        return 1
    target = args.output if args.output is not None else Path(refactor.fork_path(str(path), result))
    status = write_output("fork", target, encode(result.text), args.force)
    if status == 0:
        print(target)
    return status


def add_force(p: argparse.ArgumentParser) -> None:
    """The ``--force`` option of ``fork`` and ``migrate``, for :func:`write_output`."""
    p.add_argument(
        "--force", action="store_true", help="replace OUT if it exists (keeps it as OUT.bak)"
    )


def write_output(command: str, target: Path, data: bytes, force: bool = False) -> int:
    """Create ``target`` with ``data`` for ``pi-lsp COMMAND``, never replacing a file that
    exists (the one refusal of ``fork -o`` and ``migrate -o``) unless ``force``, which keeps
    the file replaced as a backup: 0 written, 2 not (said why)."""
    try:
        if force:
            backup = write_atomic(target, data, backup=True)
            if backup is not None:
                print(f"pi-lsp {command}: {target} replaced (backup: {backup})", file=sys.stderr)
        else:
            write_new(target, data)
    except FileExistsError:
        print(
            f"pi-lsp {command}: {target} already exists; not overwriting it (--force replaces "
            "it, keeping a backup)",
            file=sys.stderr,
        )
        return 2
    except OSError as exc:
        print(f"pi-lsp {command}: {target}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0
