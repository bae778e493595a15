"""The server stays responsive: analyses run off the event loop, stale ones are dropped.

Nothing here is timed. A burst of hundreds of changes must end with diagnostics for the
final version that equal ``pi-lsp check --format json`` of the final text; requests sent
while a large document is analysed must still be answered (and correctly); a long
analysis reports work-done progress.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from lsprotocol.converters import get_converter
from pytest_lsp import LanguageClient

from pi_lsp.core.text.lineindex import from_units

from .conftest import open_document

ROOT = Path(__file__).resolve().parents[2]
TS = "2026-03-01T10:00:00.000Z"
HEADER = json.dumps(
    {"type": "session", "version": 3, "id": "s-1", "timestamp": TS, "cwd": "/w"},
    separators=(",", ":"),
)


def message(n: int, parent: str | None, words: int = 20) -> str:
    """A user message entry with a unique id and some text (raw U+2028, an emoji)."""
    text = f"turn {n}: " + " ".join(
        f"word{k}\u2028😀" if k % 9 == 0 else f"w{k}" for k in range(words)
    )
    entry = {
        "type": "message",
        "id": f"m{n:07d}",
        "parentId": parent,
        "timestamp": TS,
        "message": {"role": "user", "content": text, "timestamp": 1},
    }
    return json.dumps(entry, separators=(",", ":"), ensure_ascii=False)


def session(entries: int, words: int = 20) -> str:
    lines = [HEADER]
    for n in range(entries):
        lines.append(message(n, f"m{n - 1:07d}" if n else None, words))
    return "\n".join(lines) + "\n"


def offset(text: str, line: int, character: int) -> int:
    """A UTF-16 position as an offset into ``text``."""
    parts = re.split(r"(\r\n|\r|\n)", text)
    lines, terms = parts[0::2], parts[1::2]
    base = sum(len(x) + len(t) for x, t in zip(lines[:line], terms, strict=False))
    return base + from_units(lines[line], character, "utf-16")


def change(
    uri: str, version: int, line: int, start: int, end: int, text: str
) -> types.DidChangeTextDocumentParams:
    return types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[
            types.TextDocumentContentChangePartial(
                range=types.Range(
                    start=types.Position(line=line, character=start),
                    end=types.Position(line=line, character=end),
                ),
                text=text,
            )
        ],
    )


async def diagnostics_for(client: LanguageClient, uri: str, version: int) -> list[types.Diagnostic]:
    while True:
        params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == uri and params.version == version:
            return list(params.diagnostics)
        assert params.uri != uri or (params.version or 0) < version


def check_json(path: Path) -> list[dict[str, object]]:
    out = subprocess.run(
        [sys.executable, "-m", "pi_lsp", "check", "--format", "json", str(path)],
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert out.returncode in (0, 1), out.stderr
    files = json.loads(out.stdout)["files"]
    return list(files[0]["diagnostics"])


@pytest.mark.slow
async def test_a_burst_of_changes_ends_with_the_final_version(
    client: LanguageClient, tmp_path: Path
) -> None:
    path = tmp_path / "burst.jsonl"
    uri = path.as_uri()
    text = session(3000)
    await open_document(client, text, uri)
    version = 1
    # type into message texts, break and repair JSON, dangle a parent and fix it again
    for n in range(300):
        line = 1 + (n * 37) % 2999
        body = text.split("\n")[line]
        col = len(body.encode("utf-16-le")) // 2
        if n % 50 == 10:
            edit = (line, col - 1, col, "")  # cut the closing brace: PI001
        elif n % 50 == 11:
            prev = 1 + ((n - 1) * 37) % 2999
            line, col = prev, len(text.split("\n")[prev].encode("utf-16-le")) // 2
            edit = (line, col, col, "}")
        elif n % 50 == 20:
            start = body.index('"parentId":"') + len('"parentId":"')
            edit = (line, start, start, "x")  # PI400 until the next edit on this line
        else:
            start = body.index('"content":"') + len('"content":"')
            edit = (line, start, start, "é😀\u2028"[n % 3])
        version += 1
        client.text_document_did_change(change(uri, version, *edit))
        a, b = offset(text, edit[0], edit[1]), offset(text, edit[0], edit[2])
        text = text[:a] + edit[3] + text[b:]
    final = await diagnostics_for(client, uri, version)
    path.write_bytes(text.encode("utf-8"))
    converter = get_converter()
    assert [converter.unstructure(d) for d in final] == check_json(path)
    assert {d.code for d in final} >= {"PI400"}


@pytest.mark.slow
async def test_requests_are_answered_while_a_large_document_is_analysed(
    client: LanguageClient,
) -> None:
    big_uri = "file:///tmp/pi-lsp-test/big.jsonl"
    small_uri = "file:///tmp/pi-lsp-test/small.jsonl"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=big_uri, language_id="jsonl", version=1, text=session(8000, 60)
            )
        )
    )
    small = session(3) + message(99, "ghost") + "\n"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=small_uri, language_id="jsonl", version=1, text=small
            )
        )
    )
    # a request on another document, then one on the document being analysed
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=small_uri))
    )
    assert symbols
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=big_uri))
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert list(report.items) == []
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=big_uri),
            position=types.Position(line=6000, character=20),
        )
    )
    assert hover is not None
    # the analysis the hover waited for is published (perhaps already while we waited)
    while big_uri not in client.diagnostics:
        await asyncio.sleep(0.05)
    assert list(client.diagnostics[big_uri]) == []


@pytest.mark.slow
async def test_a_long_analysis_reports_progress(client: LanguageClient) -> None:
    uri = "file:///tmp/pi-lsp-test/progress.jsonl"
    # about 38 MiB: analysed in about a second here, well past progress.SHOW_AFTER (0.3 s)
    # (half of it takes about 0.4 s, too near that to be sure of a bar on a faster machine)
    assert await open_document(client, session(80000, 80), uri) == []
    reports = [r for values in client.progress_reports.values() for r in values]
    kinds = [type(r) for r in reports]
    assert types.WorkDoneProgressBegin in kinds
    assert kinds[-1] is types.WorkDoneProgressEnd


async def test_a_message_orjson_rejects_is_still_decoded(client: LanguageClient) -> None:
    # a raw lone surrogate in the text travels as "\ud800" in the message: orjson refuses
    # it, the standard json module takes it (as JavaScript clients expect)
    text = session(2).replace("turn 1:", "turn 1: \ud800", 1)
    assert await open_document(client, text, "file:///tmp/pi-lsp-test/surrogate.jsonl") == []
