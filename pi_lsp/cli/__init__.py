"""The ``pi-lsp`` command: serve LSP, or check, migrate, fork and inspect session files.

Each subcommand lives in its own module with ``add_parser(subparsers)`` and ``run(args)``;
this module only wires them together and imports only the subcommand that runs:
``--version``, ``--help`` and a usage error of the command line itself import none (the
listing of ``--help`` is :data:`COMMANDS`), ``pi-lsp check`` imports no server. A
subcommand's own options are parsed by its own parser, so its usage errors show its usage.
Exit status: 0 clean, 1 errors found, 2 usage or I/O error, 130 interrupted (Ctrl-C);
decided by the run, never by a reader of the output that went away (:func:`entry`).
"""

from __future__ import annotations

import gc
import importlib
import os
import sys

from pi_lsp import __version__

TYPE_CHECKING = False  # not typing's: importing typing costs every start some 4 ms
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence
    from typing import NoReturn

VERSION = f"pi-lsp {__version__}"
"""What ``pi-lsp --version`` prints."""

COMMANDS: dict[str, str] = {
    "serve": "serve LSP on stdio (default) or TCP",
    "check": "check session files and report problems",
    "schema": "print the JSON Schema of a session format version",
    "migrate": "migrate a v1/v2 session file to v3 (minimal edits)",
    "fork": "copy the path to an entry into a new session file",
    "tree": "print the entry tree (branches, labels, leaf)",
    "context": "print the messages pi would send to the model",
    "stats": "tokens and cost of sessions, as pi counts them",
    "find": "find entries by id, id prefix, label, session name or words",
    "export": "write the conversation as one Markdown or self-contained HTML file",
}
"""The subcommands (each the module of that name) and their line in ``--help``, in order."""

INTERRUPTED = 130
"""The exit status after Ctrl-C (128 + SIGINT), as a shell reports it."""


def _top_parser() -> tuple[
    argparse.ArgumentParser, argparse._SubParsersAction[argparse.ArgumentParser]
]:
    """``pi-lsp [--version] COMMAND``, and the action its subcommands are added to."""
    import argparse  # only here: it costs ``--version`` (and pi's every resume) 10 ms

    parser = argparse.ArgumentParser(
        prog="pi-lsp",
        description="Language server and checker for pi coding agent session files.",
    )
    parser.add_argument("--version", action="version", version=VERSION)
    return parser, parser.add_subparsers(dest="command", metavar="COMMAND")


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser: every subcommand listed with its line of help, none imported."""
    parser, sub = _top_parser()
    for name, summary in COMMANDS.items():
        sub.add_parser(name, help=summary)
    return parser


def command_parser(name: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``name`` (``prog`` ``pi-lsp NAME``), from its module."""
    _, sub = _top_parser()
    importlib.import_module(f"{__name__}.commands.{name}").add_parser(sub)
    return sub.choices[name]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line in this process; with no subcommand, serve LSP on stdio."""
    _quote_undecodable()
    try:
        return _prepare(sys.argv[1:] if argv is None else list(argv))()
    except KeyboardInterrupt:
        return INTERRUPTED


def entry() -> NoReturn:
    """The ``pi-lsp`` process: :func:`main`, then exit without tearing the heap down.

    A subcommand writes through pipe-safe streams (:func:`pi_lsp.cli.pipes.pipe_safe`):
    when the reader of stdout or stderr goes away (``pi-lsp check F 2>&1 | head -1``), the
    rest of the output goes nowhere and the exit status is still the one the run earned.
    Ctrl-C exits 130 with nothing printed. The cyclic garbage collector is off while the
    modules load and the command line is parsed (what that builds lives on: 40 passes over
    it cost a check some 5 ms), and what it built is then frozen out of later passes. Once
    the output is written, freeing the analysis object by object (and a last collection)
    is pure cost: 12-32 ms of a check of a 2 MB session, some 20 ms at 100 MB. The streams
    are flushed first; a usage error or ``--help`` (``SystemExit``) exits as usual.
    """
    if sys.argv[1:2] and sys.argv[1] != "serve":  # the server owns its stdio
        from .pipes import pipe_safe

        sys.stdout, sys.stderr = pipe_safe(sys.stdout), pipe_safe(sys.stderr)
    _quote_undecodable()
    gc.disable()
    try:
        work = _prepare(sys.argv[1:])
        gc.freeze()
        gc.enable()
        code = work()
    except KeyboardInterrupt:
        code = INTERRUPTED
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 (contextlib is one more import of every start)
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nobody reads on
            pass
    os._exit(code)


def _prepare(args_list: list[str]) -> Callable[[], int]:
    """The work the command line asks for, ready to run: the subcommand's module imported
    and its arguments parsed. ``--help``, ``--version`` and usage errors exit here."""
    if args_list == ["--version"]:  # as the parser would say it, without building one
        return _print_version
    if args_list and args_list[0] in COMMANDS:
        args = command_parser(args_list[0]).parse_args(args_list[1:])

        def run() -> int:
            code: int = args.run(args)
            return code

        return run
    build_parser().parse_args(args_list)  # --help, --version or a usage error: exits
    from .commands.serve import serve_stdio

    return serve_stdio


def _print_version() -> int:
    print(VERSION)
    return 0


def _quote_undecodable() -> None:
    """Messages may quote bytes that were not UTF-8 (kept as lone surrogates): print them
    as backslash escapes."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
