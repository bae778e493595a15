"""``pi-lsp serve [--tcp HOST:PORT]``: run the language server.

On stdio the server is meant to be started by an editor; started by hand in a terminal it
says so on stderr. Ctrl-C (SIGINT) stops it at once with status 130, quietly. With
``--tcp`` it binds first, so a bad address or a port in use is a one-line error (exit 2),
then prints ``pi-lsp: listening on HOST:PORT`` on stderr with the real port (``:0`` picks a
free one) and serves the first client that connects.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import socket
import sys
import threading
from typing import Any

TERMINAL_NOTE = (
    "pi-lsp: this is the language server, waiting for an editor to talk LSP on stdin/stdout.\n"
    "pi-lsp: run `pi-lsp --help` for the commands (check, tree, context, ...); Ctrl-C stops it."
)


def add_parser(sub: Any) -> None:
    """Register the ``serve`` subcommand."""
    p = sub.add_parser("serve")
    p.add_argument(
        "--tcp",
        metavar="HOST:PORT",
        help="listen on TCP instead of stdio (HOST defaults to 127.0.0.1; PORT 0: any free port)",
    )
    p.set_defaults(run=run)


def _stop_on_interrupt() -> None:
    """Ctrl-C ends the process at once (pygls would wait for its blocked stdin reader)."""

    def stop(signum: int, frame: Any) -> None:
        os._exit(128 + signum)

    signal.signal(signal.SIGINT, stop)


PIPE_SIZE = 1 << 20
"""Bytes a pipe on stdin is asked to hold (Linux's default is 64 KiB)."""


def _widen_pipe(fd: int) -> None:
    """Let a pipe on ``fd`` hold :data:`PIPE_SIZE` bytes, where the system allows it.

    A client sends a 40 MB session in one message (didOpen, or the whole text after pi
    appended to it): through a 64 KiB pipe that is some 700 wake-ups of each side, which a
    busy machine schedules late. Anything but a pipe on Linux is left as it is.
    """
    try:
        import fcntl
        import stat

        setsize = getattr(fcntl, "F_SETPIPE_SZ", None)  # Linux only
        if setsize is not None and stat.S_ISFIFO(os.fstat(fd).st_mode):
            fcntl.fcntl(fd, setsize, PIPE_SIZE)
    except (ImportError, OSError):
        pass


def serve_stdio() -> int:
    """Serve LSP over stdin/stdout until the client exits."""
    from pi_lsp.lsp.features import create_server

    _stop_on_interrupt()
    if sys.stdin.isatty():
        print(TERMINAL_NOTE, file=sys.stderr, flush=True)
    _widen_pipe(sys.stdin.fileno())
    create_server().start_io()
    return 0


def parse_address(spec: str) -> tuple[str, int] | str:
    """``HOST:PORT`` (or ``:PORT``, ``PORT``, ``[IPv6]:PORT``) as (host, port), or an error."""
    host, _, port = spec.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        return f"--tcp expects HOST:PORT with PORT from 0 to 65535, got {spec!r}"
    return host, int(port)


def run(args: argparse.Namespace) -> int:
    """Start the server as asked."""
    if args.tcp is None:
        return serve_stdio()
    address = parse_address(str(args.tcp))
    if isinstance(address, str):
        print(f"pi-lsp serve: {address}", file=sys.stderr)
        return 2
    host, port = address
    try:
        sock = socket.create_server((host, port))
    except (OSError, OverflowError) as exc:
        # without create_server's "(while attempting to bind on address ...)"
        reason = str(getattr(exc, "strerror", None) or exc).split(" (while attempting")[0]
        print(f"pi-lsp serve: cannot listen on {host}:{port}: {reason}", file=sys.stderr)
        return 2
    bound = sock.getsockname()
    shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
    _stop_on_interrupt()
    print(f"pi-lsp: listening on {shown}:{bound[1]}", file=sys.stderr, flush=True)
    serve_tcp(sock)
    return 0


def serve_tcp(sock: socket.socket) -> None:
    """Serve the first client that connects to the listening ``sock`` (as pygls's start_tcp)."""
    from pygls.io_ import run_async

    from pi_lsp.lsp.features import create_server

    server = create_server()
    stop = server._stop_event = threading.Event()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.protocol.set_writer(writer)
        await run_async(
            stop_event=stop,
            reader=reader,
            protocol=server.protocol,
            error_handler=server.report_server_error,
        )
        server.shutdown()  # type: ignore[no-untyped-call]

    async def main() -> None:
        listener = await asyncio.start_server(connection, sock=sock)
        server._server = listener
        async with listener:
            await listener.serve_forever()

    with contextlib.suppress(asyncio.CancelledError):  # shutdown closes the listener
        asyncio.run(main())
