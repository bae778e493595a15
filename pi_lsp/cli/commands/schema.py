"""``pi-lsp schema [--version N] [--dialect pi|book]``: print a shipped JSON Schema.

``--version`` defaults to the dialect's newest; a version the dialect does not have is an
error (exit 2), never another schema.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pi_lsp.core.schemas.schema import SCHEMA_FILES, schema_text


def versions(dialect: str) -> list[int]:
    """The versions shipped for ``dialect`` (``pi`` or ``book``)."""
    return sorted(int(key.split(".")[1]) for key in SCHEMA_FILES if key.startswith(f"{dialect}."))


def add_parser(sub: Any) -> None:
    """Register the ``schema`` subcommand."""
    p = sub.add_parser("schema")
    p.add_argument(
        "--version",
        type=int,
        default=None,
        metavar="N",
        help="format version (pi: 1, 2 or 3, default 3; book: 1)",
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
    known = versions(args.dialect)
    version = known[-1] if args.version is None else args.version
    if version not in known:
        listed = ", ".join(map(str, known))
        print(
            f"pi-lsp schema: the {args.dialect} dialect has no version {version} "
            f"(versions: {listed})",
            file=sys.stderr,
        )
        return 2
    sys.stdout.write(schema_text(version, args.dialect))
    return 0
