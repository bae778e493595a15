"""``pi-lsp context FILE [--leaf ID | --leaf-line N] [--json]``: what pi sends to the model.

The messages of pi 1.6's session projection from the leaf (default: the last entry, as
pi resumes): the newest compaction's system checkpoint and summary first, context edits
applied, v1/v2 files migrated in memory. Text output: one message per line, prefixed
with the (1-based) line of its entry; edited and dropped messages are marked, and so is
what pi-ai's ``transformMessages`` changes: turns it does not send, and the synthetic
"No result provided" results it adds (``+`` lines).
``--json`` prints ``{"leaf": {"line", "id"}, "messages": [{"role", "text", "line",
"title", "edited"?, "dropped"?, "notSent"?}], "thinkingLevel", "model", "sent"}``, the
shape of the server's ``pi-lsp.context`` command (see :meth:`SessionContext.to_json`),
with 1-based lines as in the text output and ``--leaf-line`` (a JSON line fed back to
``--leaf-line`` names the same entry; the server's command counts from 0, as LSP does).
An id or line that names no entry is an error (exit 2), not the default leaf.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.pi import context, sent
from pi_lsp.core.pi.loading import UNDEFINED, analysis_refusal
from pi_lsp.core.text.jsontext import dumps
from pi_lsp.core.views.context_view import context_json, message_title

from ..opening import open_session
from ..terminal import counted


def add_parser(sub: Any) -> None:
    """Register the ``context`` subcommand."""
    p = sub.add_parser("context")
    p.add_argument("file", type=Path, metavar="FILE")
    leaf = p.add_mutually_exclusive_group()
    leaf.add_argument("--leaf", metavar="ID", help="build the context from this entry")
    leaf.add_argument("--leaf-line", type=int, metavar="N", help="... from the entry on line N")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run)


def _model(model: dict[str, Any] | None) -> str:
    if model is None:
        return "none"
    return "/".join(str(v) for v in model.values() if isinstance(v, str)) or "?"


def _unknown_leaf(a: Analysis, leaf: str | None, leaf_line: int | None) -> str | None:
    """Why ``--leaf``/``--leaf-line`` names no entry pi would start from (None: it does)."""
    if leaf is not None and leaf not in a.tree.ids:
        hint = " (a v1 file's entries have no ids yet: use --leaf-line)" if a.version < 2 else ""
        return f"no entry with id {leaf!r}{hint}"
    if leaf_line is not None and leaf_line - 1 not in {line for line, _ in context.entries_of(a)}:
        lines = a.tree.entries
        where = f"entries are on lines {lines[0] + 1} to {lines[-1] + 1}" if lines else "no entries"
        return f"line {leaf_line} holds no entry ({where})"
    return None


def run(args: argparse.Namespace) -> int:
    """Print the context of FILE."""
    path: Path = args.file
    opened = open_session("context", path)
    if opened is None:
        return 2
    a = opened.analysis
    refused = analysis_refusal(a)
    if refused is not None:
        print(f"pi-lsp context: {path}: {refused.reason}", file=sys.stderr)
        return 1
    problem = _unknown_leaf(a, args.leaf, args.leaf_line)
    if problem is not None:
        print(f"pi-lsp context: {path}: {problem}", file=sys.stderr)
        return 2
    leaf_line = args.leaf_line - 1 if args.leaf_line is not None else None
    leaf = args.leaf if args.leaf is not None else UNDEFINED
    ctx = context.session_context(a, leaf, leaf_line)
    if ctx.cycle:
        print(
            "pi-lsp context: the leaf's parent chain is a cycle; pi would hang here",
            file=sys.stderr,
        )
    if args.json:
        sys.stdout.write(dumps(context_json(ctx, first_line=1), indent=True) + "\n")
        return 0
    out = sys.stdout
    leaf_text = f"line {ctx.leaf + 1}" if ctx.leaf is not None else "none"
    out.write(
        f"{counted(len(ctx.messages), 'message')} · leaf {leaf_text} · thinking "
        f"{context_json(ctx)['thinkingLevel']} · model {_model(ctx.model)}\n"
    )
    req = sent.request(ctx)
    added = sent.synthetic_after(req)
    for m in ctx.messages:
        mark = " (dropped by convertToLlm)" if m.text is None else ""
        if m.edited is not None:
            mark += f" (edited by line {m.edited + 1})"
        if m.role == "assistant" and m.line in req.dropped:
            mark += " (not sent: pi-ai drops failed and aborted turns)"
        out.write(f"{m.line + 1:>7}  {message_title(m)}{mark}\n")
        for call in added.pop(m.line, ()):
            out.write(f'{"+":>7}  toolResult "{sent.NO_RESULT}" for {call} (added by pi-ai)\n')
    return 0
