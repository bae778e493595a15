#!/usr/bin/env python3
"""What opening a session costs before any of pi-lsp's own checks, against pi's load.

    python bench/floor.py [FILE ...] [--repeat N]

For each file (default: the shared real fixtures, bench/out/pi16-small-lines.jsonl and
bench/out/gen-100mb-seed1.jsonl where present), in one run, best of N, with the collector
paused as ``analyze`` pauses it:

- ``pi``: pi's own load (``parseSessionEntries`` + ``migrateSessionEntries`` +
  ``buildSessionContext``, node, warm; as ``bench/run.py`` measures it);
- ``floor``: ``bench/run.py``'s floor (read the bytes, split lines, ``orjson.loads`` each);
- ``pipe``: the didOpen the bench's client sends, framed, through a pipe from a writer
  thread into the server's blocking reader (``transport.MessageReader``);
- ``decode``: that didOpen decoded by the server's reader into the document's lines
  (``transport.FullTexts``);
- ``orjson``: ``orjson.loads`` of each line, the lines already split;
- ``schema``: jsonschema-rs's verdict on each entry (``is_valid``, the validator the line
  checks pick: by entry type, and by role for a message), the least a PI200 needs;
- ``pi's context``: what pi's load itself computes, in pi-lsp's code: the entries and
  their index, the context of the resumed leaf, and the request pi-ai builds from it
  (``sent.request``), which PI423 needs; built as the analysis builds it: on the lines'
  facts (``context.lean_context``) where it can, else from the entries' values
  (``context.build_context``).

``open`` adds decode, orjson, schema and pi's context. It leaves out everything else an
open does: the pipe (shown on its own), the classification of each line, the tree, the
other link checks, the findings, the publish. ``open / pi`` is then a lower bound for
open → diagnostics / pi, the issue's "≤ 1.0x" target. ``analysis`` adds orjson, schema and
pi's context; ``analysis / floor`` is a lower bound for the bench's analysis / floor, its
"≤ 2x" target.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import threading
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import (
    CAPABILITIES,
    FIXTURES,
    OUT,
    LspClient,
    _best,
    _ms,
    _ratio,
    did_open,
    find_modules,
    orjson_floor,
    pi_times,
)

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.checks.gcpause import gc_paused
from pi_lsp.core.entries.lines import Kind
from pi_lsp.core.pi import context, sent
from pi_lsp.core.schemas import schema
from pi_lsp.core.text.files import read_text
from pi_lsp.lsp.transport import FullTexts, MessageReader


def _write_all(fd: int, data: bytes) -> None:
    """Write ``data`` to ``fd`` and close it (a client sending one message)."""
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def _validator(key: str, value: dict[str, Any]) -> Any:
    """The validator the line checks pick for entry ``value`` (its role's, for a message)."""
    message = value.get("message")
    if value["type"] == "message" and isinstance(message, dict):
        role = message.get("role")
        own = schema.message_verdict_validator(key, role) if isinstance(role, str) else None
        if own is not None:
            return own
    return schema.verdict_validator(key, value["type"])


def parts(path: Path, text: str, repeat: int) -> dict[str, Any]:
    """Seconds of each part (best of ``repeat``) and the line count of ``path``, whose
    text is ``text``."""
    body = did_open(path.resolve().as_uri(), text)
    a = analyze(text, str(path))
    key = schema.schema_key(a.fmt, a.version)
    stored = list(a.lines.iter_raw())
    entries = [info.value for info in a.infos if info.kind is Kind.ENTRY]

    framed = b"Content-Length: %d\r\n\r\n" % len(body) + body

    def pipe() -> None:
        r, w = os.pipe()
        writer = threading.Thread(target=_write_all, args=(w, framed))
        with os.fdopen(r, "rb") as stream:
            writer.start()
            MessageReader(stream).message()
        writer.join()

    def decode() -> None:
        texts = FullTexts()
        message = texts.loads(bytearray(body))  # the server's reader hands it a bytearray
        texts.take(message["params"]["textDocument"]["text"])

    def parse() -> None:
        for line in stored:
            if line:
                with contextlib.suppress(orjson.JSONDecodeError):
                    orjson.loads(line)

    picked = [(_validator(key, value), value) for value in entries]

    def validate() -> None:
        for check, value in picked:
            if check is not None:
                check.is_valid(value)

    def pi_context() -> None:
        lines = context.lean_lines(a)  # as pairing builds it: on the lines' facts where it can
        if lines is not None:
            ctx = context.lean_context(a, lines, context.lean_index(a, lines))
        else:
            found = context.entries_of(a)
            ctx = context.build_context(found, by_id=context.entry_index(found))
        if not ctx.cycle:
            sent.request(ctx)

    with gc_paused():
        return {
            "lines": len(stored),
            "floor": _best(lambda: orjson_floor(path), repeat),
            "pipe": _best(pipe, repeat),
            "decode": _best(decode, repeat),
            "orjson": _best(parse, repeat),
            "schema": _best(validate, repeat),
            "context": _best(pi_context, repeat),
        }


def server(path: Path, text: str, repeat: int) -> dict[str, float]:
    """Through ``python -m pi_lsp``, as ``bench/run.py`` drives it: the open of ``path``
    (didOpen → publishDiagnostics, after a small document's) and the median round trip of
    ``repeat`` requests for a method the server does not have, each sent after a second
    without CPU use (as ``bench/run.py`` sends its edits)."""
    client = LspClient.start()

    def opened(uri: str, text: str) -> float:
        t = client.send_raw(did_open(uri, text))
        got = client.wait_note("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)
        client.wait_idle()
        return got.at - t

    try:
        init = {"processId": os.getpid(), "rootUri": None, "capabilities": CAPABILITIES}
        client.request("initialize", init)
        client.notify("initialized", {})
        uri = path.resolve().as_uri()
        opened(uri + ".head", "".join(text.splitlines(keepends=True)[:40]))
        out = {"open": opened(uri, text)}
        trips = []
        for _ in range(repeat):
            client.wait_idle()
            trips.append(client.request("pi-lsp/noSuchMethod", {})[0])
        out["round_trip"] = statistics.median(trips)
        return out
    finally:
        client.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    ns = parser.parse_args()
    files = ns.files or [
        p
        for p in [
            *sorted(FIXTURES.glob("*.jsonl")),
            OUT / "pi16-small-lines.jsonl",
            OUT / "gen-100mb-seed1.jsonl",
        ]
        if p.is_file()
    ]
    modules = find_modules()
    lower: list[str] = []
    trips: list[str] = []
    for path in files:
        pi = pi_times(path, modules, ns.repeat)["inproc"]
        text = read_text(path)
        p = parts(path, text, ns.repeat)
        analysis = p["orjson"] + p["schema"] + p["context"]
        opened = p["decode"] + analysis
        cells = [_ms(p[k]) for k in ("floor", "pipe", "decode", "orjson", "schema")]
        lower.append(
            f"| {path.name} | {p['lines']:,} | {_ms(pi)} | {' | '.join(cells)} | "
            f"{_ms(p['context'])} | {_ms(opened)} | {_ratio(opened, pi)} | {_ms(analysis)} | "
            f"{_ratio(analysis, p['floor'])} |"
        )
        s = server(path, text, ns.repeat)
        trips.append(
            f"| {path.name} | {_ms(s['open'])} | {_ms(s['round_trip'])} | "
            f"{_ratio(s['round_trip'], s['open'])} |"
        )
    print("Before any check of pi-lsp's own (ms; the ratios are lower bounds):\n")
    print(
        "| file | lines | pi | floor | pipe | decode | orjson | schema | pi's context "
        "| open | open / pi | analysis | analysis / floor |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(lower))
    print("\nAn empty round trip through the server (ms; round trip / open bounds edit / open):\n")
    print("| file | open | round trip | round trip / open |")
    print("|---|---|---|---|")
    print("\n".join(trips))
    return 0


if __name__ == "__main__":
    sys.exit(main())
