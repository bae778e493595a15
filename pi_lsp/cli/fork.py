"""``pi-lsp fork FILE (--at ID | --at-line N) [-o OUT]``: pi's "fork to a new session".

Writes the root → entry path as a new v3 session (pi's ``createBranchedSession``: labels
carried over, ``parentSession`` = FILE), next to FILE under pi's file naming unless
``-o`` names the file. Never overwrites an existing file. Prints the new file's path.
``--at-line`` (1-based) names an entry of a v1 file, whose entries have no ids yet.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pi_lsp.core import refactor
from pi_lsp.core.analysis import analyze
from pi_lsp.core.edits import encode, read_snapshot, write_new
from pi_lsp.core.files import cannot_read


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
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Fork FILE and write the new session file."""
    path: Path = args.file
    try:
        text, _ = read_snapshot(path)
    except OSError as exc:
        print(f"pi-lsp fork: {cannot_read(path, exc)}", file=sys.stderr)
        return 2
    a = analyze(text, path=str(path))
    at: str | int = args.at if args.at is not None else args.at_line - 1
    try:
        result = refactor.fork(a, at, str(path))
    except refactor.RefactorError as exc:
        print(f"pi-lsp fork: {path}: {exc}", file=sys.stderr)
        return 1
    target = args.output if args.output is not None else Path(refactor.fork_path(str(path), result))
    try:
        write_new(target, encode(result.text))
    except FileExistsError:
        print(f"pi-lsp fork: {target} already exists; not overwriting it", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"pi-lsp fork: {target}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(target)
    return 0
