"""The ``pi-lsp`` command: serve LSP, or check, migrate, fork and inspect session files.

Each subcommand lives in its own module with ``add_parser(subparsers)`` and ``run(args)``;
this module only wires them together, and imports only the subcommand that runs (all of
them for ``--help``): ``pi-lsp check`` starts without the server's imports. Exit status:
0 clean, 1 errors found, 2 usage or I/O error.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from pi_lsp import __version__

COMMANDS: tuple[str, ...] = (
    "serve",
    "check",
    "schema",
    "migrate",
    "fork",
    "tree",
    "context",
    "stats",
    "find",
)
"""The subcommands, in the order ``--help`` lists them; each is the module of that name."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered (or only the one named)."""
    parser = _Parser(
        prog="pi-lsp",
        description="Language server and checker for pi coding agent session files.",
    )
    parser.add_argument("--version", action="version", version=f"pi-lsp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in (only,) if only is not None else COMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; with no subcommand, serve LSP on stdio."""
    for stream in (sys.stdout, sys.stderr):
        # messages may quote bytes that were not UTF-8 (kept as lone surrogates)
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    args_list = sys.argv[1:] if argv is None else list(argv)
    first = args_list[0] if args_list else "serve"
    parser = build_parser(first if first in COMMANDS else None)
    args = parser.parse_args(args_list)
    if args.command is None:
        from . import serve

        return serve.serve_stdio()
    try:
        code: int = args.run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return code


def entry() -> NoReturn:
    """The ``pi-lsp`` process: :func:`main`, then exit without tearing the heap down.

    Once the output is written, freeing the analysis object by object (and a last
    collection) is pure cost: 12-32 ms of a check of a 2 MB session, some 20 ms at
    100 MB. The streams are flushed first; a usage error or ``--help`` (``SystemExit``)
    exits as usual.
    """
    code = main()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nobody reads on
            stream.flush()
    os._exit(code)
