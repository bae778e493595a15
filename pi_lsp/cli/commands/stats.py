"""``pi-lsp stats [PATH ...]``: what sessions cost, counted as pi 1.6 counts it.

Totals are pi's own (``/session``), summed over every file given; an entry that ``/fork``
or ``/clone`` copied into another file counts once. ``--by`` breaks them down by model,
local day, session file or branch (active path against abandoned branches); ``--html``
writes one self-contained page with a chart per session. Many files are read in
parallel, with a progress bar, like ``check``. A file pi does not open as a session counts
nothing and is named on stderr with the reason (``check``'s PI100); the exit status is then
1 (2 when a file cannot be read).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from pi_lsp.core.pi.stats import read_file
from pi_lsp.core.text.jsontext import dumps
from pi_lsp.core.text.textedit import write_atomic
from pi_lsp.core.workspace.stats_chart import chart_html
from pi_lsp.core.workspace.stats_report import (
    GROUPINGS,
    build,
    parse_bound,
    report_csv,
    report_json,
    report_text,
)

from ..batch import add_file_arguments, run_all, targets
from ..paths import Shown


def add_parser(sub: Any) -> None:
    """Register the ``stats`` subcommand."""
    p = sub.add_parser("stats")
    add_file_arguments(p)
    p.add_argument("--format", choices=("text", "json", "csv", "html"), default="text")
    p.add_argument(
        "--by", choices=GROUPINGS, default="model", help="break the totals down (default: model)"
    )
    p.add_argument("--since", metavar="DATE", help="only entries from this day on (YYYY-MM-DD)")
    p.add_argument("--until", metavar="DATE", help="only entries up to this day (inclusive)")
    p.add_argument(
        "--html", type=Path, metavar="OUT", help="also write a page with a chart per session"
    )
    p.set_defaults(run=run)


def _bounds(args: argparse.Namespace) -> tuple[float | None, float | None] | str:
    out: list[float | None] = []
    for name, text, end in (("--since", args.since, False), ("--until", args.until, True)):
        if text is None:
            out.append(None)
            continue
        try:
            out.append(parse_bound(text, end))
        except ValueError:
            return f"{name} expects a date (YYYY-MM-DD) or an ISO date-time, got {text!r}"
    return out[0], out[1]


def run(args: argparse.Namespace) -> int:
    """Count every target and print the totals; return the exit status."""
    bounds = _bounds(args)
    if isinstance(bounds, str):
        print(f"pi-lsp stats: {bounds}", file=sys.stderr)
        return 2
    files = targets(args.paths, "stats")
    if files is None:
        return 2
    counted = run_all(read_file, [str(p) for p in files], args.jobs)
    report = build(counted, *bounds)
    if bounds != (None, None):  # sessions with nothing in the range are not listed
        report.files = [fr for fr in report.files if fr.kept]
    if args.format == "json":
        sys.stdout.write(dumps(report_json(report, args.by), indent=True) + "\n")
    elif args.format == "html":
        sys.stdout.write(chart_html(report_json(report, args.by)))
    elif args.format == "csv":
        sys.stdout.write(report_csv(report, args.by))
    else:
        sys.stdout.write(report_text(report, args.by, Shown(args.paths)))
    status = 0
    for fs in counted:
        if fs.error is not None:
            print(f"pi-lsp stats: {fs.path}: {fs.error}", file=sys.stderr)
            # 2: cannot read it; 1: pi does not open it as a session (check's PI100)
            status = max(status, 2 if fs.error.startswith("cannot read") else 1)
    if args.html is not None:
        try:
            new = not args.html.exists()
            write_atomic(args.html, chart_html(report_json(report, args.by)).encode())
            if new:  # a page to share: the usual permissions, not the temporary file's 0600
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(args.html, 0o666 & ~umask)
        except OSError as exc:
            print(f"pi-lsp stats: cannot write {args.html}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(f"pi-lsp stats: wrote {args.html}", file=sys.stderr)
    return status
