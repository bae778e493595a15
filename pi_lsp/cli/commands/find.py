"""``pi-lsp find QUERY [PATH ...]``: find entries again, printed as ``path:line: title``.

Matches, best first: the entry with that id, entries whose id starts with the query,
entries whose label contains it, the entry that named the session, user messages holding
every word of it (see :mod:`pi_lsp.core.workspace.search`). What was indexed is kept on disk
(:mod:`pi_lsp.core.workspace.search_cache`), so the next run reads only files that changed. Exit status: 0 when something was found,
1 when nothing was, 2 on a usage or I/O error (like grep).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pi_lsp.core.workspace.search import count, index_file, search
from pi_lsp.core.workspace.search_cache import refresh

from ..batch import add_file_arguments, run_all, targets
from ..paths import Shown
from ..terminal import counted


def add_parser(sub: Any) -> None:
    """Register the ``find`` subcommand."""
    p = sub.add_parser("find")
    p.add_argument("query", metavar="QUERY", help="an id or id prefix, words of a label, name or user message")
    add_file_arguments(p)
    p.add_argument("--limit", type=int, default=None, metavar="N", help="print at most N matches")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Search every target and print the matches; return the exit status."""
    if not args.query.strip():
        print("pi-lsp find: QUERY is empty", file=sys.stderr)
        return 2
    if args.limit is not None and args.limit < 1:
        print("pi-lsp find: --limit must be at least 1", file=sys.stderr)
        return 2
    files = targets(args.paths, "find")
    if files is None:
        return 2
    indexes = refresh([str(p) for p in files], lambda stale: run_all(index_file, stale, args.jobs))
    status = 0
    for index in indexes:
        if index.size < 0:
            print(f"pi-lsp find: {index.path}: cannot read", file=sys.stderr)
            status = 2
    matches = search(indexes, args.query, args.limit)
    shown = Shown(args.paths)
    for m in matches:
        sys.stdout.write(f"{shown(m.path)}:{m.line + 1}: {m.title}\n")
    if args.limit is not None and len(matches) == args.limit:
        more = count(indexes, args.query) - args.limit
        if more:  # on stderr: stdout stays one match a line
            print(
                f"pi-lsp find: {counted(more, 'more match', 'more matches')} not shown "
                f"(--limit {args.limit})",
                file=sys.stderr,
            )
    return status or (0 if matches else 1)
