"""``pi-lsp check --fix [--diff] [--migrate] PATH ...``: repair session files in place.

Every file is read once, repaired by :func:`pi_lsp.core.edits.autofix.repair` (the safe
repairs only; migration to v3 only with ``--migrate``) and, when anything changed,
written atomically with the original kept beside it as ``NAME.bak``; a file that changed
on disk since it was read is left alone. Each repair is reported on stderr as
``path:line: fixed CODE what`` (line numbers as of that step), then ``check`` reports
what is left, in its usual formats, with its usual exit status (2 when a file could not
be read or written).

``--diff`` writes nothing: it prints the repairs as a unified diff on stdout and exits
with 1 when there is something to repair, 0 when not, 2 on an I/O error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_lsp.core.text.files import cannot_read
from pi_lsp.core.text.lineindex import split_lines

from .pipes import quiet_broken_pipe

if TYPE_CHECKING:  # the repairs are imported only when ``check`` repairs
    from pi_lsp.core.edits.autofix import Repaired


def add_arguments(p: Any) -> None:
    """Add ``--fix``, ``--diff`` and ``--migrate`` to the ``check`` parser."""
    p.add_argument(
        "--fix", action="store_true", help="apply the safe repairs (atomic; keeps NAME.bak)"
    )
    p.add_argument(
        "--diff", action="store_true", help="print the repairs as a unified diff; write nothing"
    )
    p.add_argument(
        "--migrate", action="store_true", help="with --fix or --diff: also migrate to v3"
    )


def wanted(args: argparse.Namespace) -> bool:
    """True when ``check`` should repair (``--fix``, ``--diff`` or ``--migrate`` given)."""
    return bool(args.fix or args.diff or args.migrate)


def run(
    args: argparse.Namespace,
    targets: list[Path],
    check: Callable[[argparse.Namespace], int],
) -> int:
    """Repair ``targets``; with ``--fix``, report what is left with ``check``."""
    if args.migrate and not (args.fix or args.diff):
        print("pi-lsp check: --migrate needs --fix or --diff", file=sys.stderr)
        return 2
    failed = False
    pending = 0
    for path in targets:
        try:
            pending += _fix_file(path, args)
        except _Failed as exc:
            print(f"pi-lsp check: {exc}", file=sys.stderr)
            failed = True
    if args.diff:
        return 2 if failed else 1 if pending else 0
    again = argparse.Namespace(**{**vars(args), "fix": False, "diff": False, "migrate": False})
    status = check(again)
    return 2 if failed else status


class _Failed(Exception):
    """A file that could not be read, repaired or written (the message names it)."""


def _fix_file(path: Path, args: argparse.Namespace) -> bool:
    """Repair ``path`` (with ``--diff``: print the diff); True when it needed repairs."""
    from pi_lsp.core.edits.autofix import RepairError, repair
    from pi_lsp.core.text.textedit import FileChanged, encode, read_snapshot, write_atomic

    try:
        text, snapshot = read_snapshot(path)
        result = repair(text, str(path), migrate=args.migrate)
    except OSError as exc:
        raise _Failed(f"{cannot_read(path, exc)}") from exc
    except RepairError as exc:
        raise _Failed(f"{path}: {exc}") from exc
    _report(path, result, "would fix" if args.diff else "fixed")
    if not result.changed:
        return False
    if args.diff:
        try:
            sys.stdout.writelines(_diff(path, text, result.text))
            sys.stdout.flush()
        except BrokenPipeError:
            quiet_broken_pipe()  # `check --diff | head`: the status still says what was found
        return True
    try:
        backup = write_atomic(path, encode(result.text), expect=snapshot, backup=True)
    except FileChanged as exc:
        raise _Failed(str(exc)) from exc
    except OSError as exc:
        raise _Failed(f"{path}: cannot write: {exc.strerror or exc}") from exc
    print(f"{path}: {len(result.actions)} repaired; original kept as {backup}", file=sys.stderr)
    return True


def _report(path: Path, result: Repaired, verb: str) -> None:
    for action in result.actions:
        code = f" {action.code}" if action.code else ""
        print(f"{path}:{action.line + 1}: {verb}{code}: {action.title}", file=sys.stderr)
    for reason in result.skipped:
        print(f"{path}: not repaired: {reason}", file=sys.stderr)


def _diff(path: Path, before: str, after: str) -> list[str]:
    """A unified diff of the repair (``patch -p0`` applies it), every line terminated."""
    import difflib  # only for --diff: not part of a plain check's start-up

    lines = difflib.unified_diff(_lines(before), _lines(after), str(path), str(path))
    return [
        line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
        for line in lines
    ]


def _lines(text: str) -> list[str]:
    """``text`` split after ``\\n``, ``\\r\\n`` and ``\\r`` only (pi writes U+2028 raw)."""
    split = split_lines(text)
    return [
        line + term
        for line, term in zip(split.lines, split.terminators, strict=True)
        if line or term
    ]
