"""The ``pi-lsp`` command: serve LSP, or check, migrate, fork and inspect session files.

Each subcommand lives in its own module with ``add_parser(subparsers)`` and ``run(args)``;
this module only wires them together. Exit status: 0 clean, 1 errors found, 2 usage or
I/O error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType

from pi_lsp import __version__

from . import check, context, find, fork, migrate, schema, serve, stats, tree

COMMANDS: tuple[ModuleType, ...] = (serve, check, schema, migrate, fork, tree, context, stats, find)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = _Parser(
        prog="pi-lsp",
        description="Language server and checker for pi coding agent session files.",
    )
    parser.add_argument("--version", action="version", version=f"pi-lsp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; with no subcommand, serve LSP on stdio."""
    for stream in (sys.stdout, sys.stderr):
        # messages may quote bytes that were not UTF-8 (kept as lone surrogates)
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        return serve.serve_stdio()
    try:
        code: int = args.run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return code
