"""``pi-lsp export FILE [--leaf ID | --leaf-line N] [--all-branches] [--format html|md] [-o OUT]
[--force] [--redact]``.

Writes the conversation pi resumes (or the one ending at ``--leaf``: an entry id, or
``L<line>`` with a 0-based line as the ``pi-lsp.tree`` command names an entry without an
id; or at the entry on line N, 1-based, as ``pi-lsp context --leaf-line`` takes it) as one
file to read offline: every item of the path, what pi does not send set
apart, findings on their items (:mod:`pi_lsp.core.views.export`). ``--all-branches`` adds every
other branch after it. The format is ``--format``, else ``html`` when OUT ends in ``.html``
or ``.htm``, else ``md``; without ``-o`` the export goes to stdout. OUT is never
overwritten (``--force``: replaced, the old file kept as ``OUT.bak``). ``--redact`` masks
credential-like strings (API keys, tokens); nothing is masked by default.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.checks.gcpause import gc_paused
from pi_lsp.core.pi.loading import analysis_refusal
from pi_lsp.core.text.files import read_lines
from pi_lsp.core.views.conversation import UnknownLeaf
from pi_lsp.core.views.export import conversations, export_html, export_markdown
from pi_lsp.core.views.redact import redact

from ..opening import read_or_say
from .fork import add_force, write_output


def add_parser(sub: Any) -> None:
    """Register the ``export`` subcommand."""
    p = sub.add_parser("export")
    p.add_argument("file", type=Path, metavar="FILE")
    leaf = p.add_mutually_exclusive_group()
    leaf.add_argument("--leaf", metavar="ID", help="the conversation ending at this entry")
    leaf.add_argument("--leaf-line", type=int, metavar="N", help="... at the entry on line N")
    p.add_argument("--all-branches", action="store_true", help="every branch, not only one")
    p.add_argument("--format", choices=("html", "md"), help="default: html for OUT.html, else md")
    p.add_argument("-o", "--output", type=Path, metavar="OUT", help="write OUT (default: stdout)")
    p.add_argument("--redact", action="store_true", help="mask credential-like strings")
    add_force(p)
    p.set_defaults(run=run)


def _format(args: argparse.Namespace) -> str:
    if args.format is not None:
        return str(args.format)
    out: Path | None = args.output
    return "html" if out is not None and out.suffix.lower() in (".html", ".htm") else "md"


def run(args: argparse.Namespace) -> int:
    """Export FILE's conversation."""
    path: Path = args.file
    lines = read_or_say("export", path, read_lines)
    if lines is None:
        return 2
    with gc_paused():
        a = analyze(lines, path=str(path))
        refused = analysis_refusal(a)
        if refused is not None:
            print(f"pi-lsp export: {path}: {refused.reason}", file=sys.stderr)
            return 1  # as every one-file command says a file pi does not open
        leaf = args.leaf if args.leaf_line is None else f"L{args.leaf_line - 1}"
        try:
            convs = conversations(a, leaf, args.all_branches)
        except UnknownLeaf as exc:
            problem = exc if args.leaf_line is None else f"line {args.leaf_line} holds no entry"
            print(f"pi-lsp export: {path}: {problem}", file=sys.stderr)
            return 2
        scrub = redact if args.redact else str
        fmt = _format(args)
        data = (export_html if fmt == "html" else export_markdown)(a, convs, scrub)
        del a, convs
    if args.output is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return 0
    return write_output("export", args.output, data, args.force)
