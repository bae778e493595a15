"""Document sync and pushed/pulled diagnostics through a real LSP client."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import open_document

HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}'


def entry(ident: str, parent: str | None, text: str = "hi") -> str:
    p = "null" if parent is None else f'"{parent}"'
    return (
        f'{{"type":"message","id":"{ident}","parentId":{p},"timestamp":"2026-01-01T00:00:00.000Z",'
        f'"message":{{"role":"user","content":"{text}","timestamp":1}}}}'
    )


async def test_raw_u2028_does_not_shift_lines(client: LanguageClient) -> None:
    text = (
        "\n".join([HEADER, entry("a", None, "x\u2028y\u2029z\u0085w"), entry("b", "nope")]) + "\n"
    )
    diags = await open_document(client, text)
    codes = [(d.code, d.range.start.line) for d in diags]
    assert codes == [("PI400", 2)]


async def test_incremental_edit_after_u2028(client: LanguageClient) -> None:
    uri = "file:///tmp/pi-lsp-test/inc.jsonl"
    text = "\n".join([HEADER, entry("a", None, "x\u2028y"), entry("b", "a")]) + "\n"
    assert await open_document(client, text, uri) == []
    line2 = entry("b", "a")
    col = line2.index('"a"') + 1
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=2, character=col),
                        end=types.Position(line=2, character=col + 1),
                    ),
                    text="zz",
                )
            ],
        )
    )
    params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert params.version == 2
    assert [(d.code, d.range.start.line, d.range.start.character) for d in params.diagnostics] == [
        ("PI400", 2, col - 1)
    ]


async def test_pull_equals_push(client: LanguageClient) -> None:
    uri = "file:///tmp/pi-lsp-test/pull.jsonl"
    text = "\n".join([HEADER, entry("a", "ghost"), "{not json", '{"type":"message","id":"c', ""])
    pushed = await open_document(client, text, uri)
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert list(report.items) == pushed
    assert {d.code for d in pushed} == {"PI400", "PI001", "PI002"}
