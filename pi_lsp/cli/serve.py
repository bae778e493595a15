"""``pi-lsp serve [--tcp HOST:PORT]``: run the language server."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(sub: Any) -> None:
    """Register the ``serve`` subcommand."""
    p = sub.add_parser("serve", help="serve LSP on stdio (default) or TCP")
    p.add_argument(
        "--tcp",
        metavar="HOST:PORT",
        help="listen on TCP instead of stdio (HOST defaults to 127.0.0.1)",
    )
    p.set_defaults(run=run)


def serve_stdio() -> int:
    """Serve LSP over stdin/stdout until the client exits."""
    from pi_lsp.lsp.features import create_server

    create_server().start_io()
    return 0


def run(args: argparse.Namespace) -> int:
    """Start the server as asked."""
    if args.tcp is None:
        return serve_stdio()
    host, _, port = str(args.tcp).rpartition(":")
    if not port.isdigit():
        print(f"pi-lsp serve: --tcp expects HOST:PORT, got {args.tcp!r}", file=sys.stderr)
        return 2
    from pi_lsp.lsp.features import create_server

    create_server().start_tcp(host or "127.0.0.1", int(port))
    return 0
