"""``pi-lsp schema [--version N] [--dialect pi|book]``: print a shipped JSON Schema."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pi_lsp.core.schema import schema_text


def add_parser(sub: Any) -> None:
    """Register the ``schema`` subcommand."""
    p = sub.add_parser("schema", help="print the JSON Schema of a session format version")
    p.add_argument(
        "--version", type=int, default=3, choices=(1, 2, 3), help="format version (default 3)"
    )
    p.add_argument(
        "--dialect",
        choices=("pi", "book"),
        default="pi",
        help="pi's own format (default) or the second documented dialect",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the schema text."""
    sys.stdout.write(schema_text(args.version, args.dialect))
    return 0
