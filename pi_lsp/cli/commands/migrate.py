"""``pi-lsp migrate FILE [-o OUT [--force] | --in-place [--no-backup]]``: migrate to v3.

The migration is pi's own (ids, parents, compaction targets, ``hookMessage`` → ``custom``,
header version), applied as minimal edits: every other byte stays. A file in the second
documented dialect is converted to pi v3 instead (what cannot be carried over is listed
on stderr). Without ``-o`` or ``--in-place`` the result goes to stdout. Writes are atomic;
``--in-place`` keeps the original as ``FILE.bak`` (unless ``--no-backup``) and refuses to
overwrite a file that changed since it was read. ``-o OUT`` creates OUT and never replaces
a file that exists, as ``fork -o`` (``--force``: replaces it, keeping it as ``OUT.bak``);
``-o FILE`` (FILE itself, by any path) is ``--in-place``. Exit status: 0 done (or nothing
to do), 1 pi would not migrate this file (the reason is ``check``'s PI100), 2 usage or I/O
error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pi_lsp.core.edits import book_convert
from pi_lsp.core.pi import migrate
from pi_lsp.core.pi.loading import analysis_refusal
from pi_lsp.core.text.textedit import FileChanged, encode, write_atomic

from ..opening import open_session
from .fork import add_force, write_output


def add_parser(sub: Any) -> None:
    """Register the ``migrate`` subcommand."""
    p = sub.add_parser("migrate")
    p.add_argument("file", type=Path, metavar="FILE")
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "-o", "--output", type=Path, metavar="OUT", help="write the result to a new file OUT"
    )
    where.add_argument("--in-place", action="store_true", help="replace FILE (keeps FILE.bak)")
    p.add_argument("--no-backup", action="store_true", help="with --in-place: keep no backup")
    add_force(p)
    p.set_defaults(run=run)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (b.exists() and a.samefile(b))
    except OSError:
        return False


def run(args: argparse.Namespace) -> int:
    """Migrate FILE and write the result where asked."""
    path: Path = args.file
    in_place = args.in_place or (args.output is not None and _same_file(path, args.output))
    if args.no_backup and not in_place:
        print("pi-lsp migrate: --no-backup only applies with --in-place", file=sys.stderr)
        return 2
    if args.force and args.output is None:
        print("pi-lsp migrate: --force only applies with -o", file=sys.stderr)
        return 2
    opened = open_session("migrate", path)
    if opened is None:
        return 2
    text, snapshot, a = opened
    plan = migrate.plan(a)
    refused = analysis_refusal(a)
    if a.fmt == "book" and a.header_line is not None:
        try:
            conversion = book_convert.convert(text, str(path), a)
        except (TypeError, ValueError, RecursionError) as exc:
            # a shape the converter does not handle (an id that is not a string, ...)
            print(
                f"pi-lsp migrate: {path}: cannot convert: {exc}; run pi-lsp check", file=sys.stderr
            )
            return 1
        for loss in conversion.losses:
            print(f"pi-lsp migrate: {path}: not carried over: {loss}", file=sys.stderr)
        result = conversion.text
        done = "converted from the second dialect to pi v3"
    elif refused is not None:
        print(f"pi-lsp migrate: {path}: {refused.reason}", file=sys.stderr)
        return 1
    elif plan is None:
        if a.version == 3:
            print(f"pi-lsp migrate: {path} is already v3; nothing to do", file=sys.stderr)
            result = text
            done = "copied (already v3)"
        else:
            print(
                f"pi-lsp migrate: {path}: pi would not migrate this file (an unsupported "
                "version); run pi-lsp check",
                file=sys.stderr,
            )
            return 1
    else:
        result = migrate.migrated_text(a, plan)
        done = f"migrated v{plan.from_version} -> v3"
    if not in_place and args.output is None:
        sys.stdout.buffer.write(encode(result))
        sys.stdout.flush()
        return 0
    if not in_place:
        status = write_output("migrate", args.output, encode(result), args.force)
        if status == 0:
            print(f"pi-lsp migrate: {args.output}: {done}", file=sys.stderr)
        return status
    if result == text:
        return 0
    try:
        backup = write_atomic(path, encode(result), expect=snapshot, backup=not args.no_backup)
    except FileChanged as exc:
        print(f"pi-lsp migrate: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"pi-lsp migrate: {path}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 2
    note = f" (backup: {backup})" if backup is not None else ""
    print(f"pi-lsp migrate: {path}: {done}{note}", file=sys.stderr)
    return 0
