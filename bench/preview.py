"""Benchmark of the conversation preview (issue 42) on a big session, through the server.

    python bench/preview.py [--mb 40] [--seed 1]

Generates a session of the given size (``tests/lsp/big_session.py``: ~3 KiB per entry,
branches, compactions, tool results), starts ``python -m pi_lsp`` (``bench/run.py``'s
client), opens it, and prints, in seconds: the open until its diagnostics are published,
then ``pi-lsp.preview`` as the editors call it (HTML from the leaf pi resumes; Markdown
around the middle; HTML after pi appends an entry), each with the size of its answer.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from run import CAPABILITIES, LspClient  # noqa: E402

from tests.lsp.big_session import big_session  # noqa: E402


def main() -> None:
    """Run the benchmark and print one line per measure."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    text = big_session(args.mb, args.seed)
    lines = text.count("\n")
    print(f"session: {len(text.encode()) / 2**20:.1f} MiB, {lines:,} lines")
    uri = "file:///tmp/pi-lsp-bench/preview.jsonl"
    client = LspClient.start()
    try:
        client.request(
            "initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": CAPABILITIES}
        )
        client.notify("initialized", {})
        doc = {"uri": uri, "languageId": "jsonl", "version": 1, "text": text}
        t = client.notify("textDocument/didOpen", {"textDocument": doc})
        got = client.wait_note("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)
        print(f"open → diagnostics: {got.at - t:.2f} s")
        measure(client, uri, "preview html (resumed leaf)", {})
        measure(
            client,
            uri,
            "preview markdown around the middle",
            {"format": "markdown", "around": lines // 2},
        )
        appended = (
            text
            + text.rstrip("\n")
            .rsplit("\n", 1)[1]
            .replace('"type":"message"', '"type":"message","x":1', 1)
            + "\n"
        )
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": appended}]},
        )
        measure(client, uri, "preview html after an append", {})
    finally:
        client.proc.kill()


def measure(client: LspClient, uri: str, what: str, options: dict[str, object]) -> None:
    """Time one ``pi-lsp.preview`` call and print it with its answer's size."""
    start = time.perf_counter()
    seconds, result, error = client.request(
        "workspace/executeCommand", {"command": "pi-lsp.preview", "arguments": [uri, options]}
    )
    assert error is None, error
    size = len(result["html"]) + len(result["markdown"])
    rendered = sum(1 for item in result["items"] if item["rendered"])
    print(
        f"{what}: {seconds:.2f} s ({time.perf_counter() - start:.2f} s wall), "
        f"{size / 2**20:.1f} MiB, {rendered:,} of {len(result['items']):,} items whole"
    )


if __name__ == "__main__":
    main()
