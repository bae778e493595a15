"""Document sync and pushed/pulled diagnostics through a real LSP client."""

from __future__ import annotations

import asyncio

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from .conftest import SERVER, _start, change_all, open_document

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


async def test_pull_answers_unchanged_until_the_text_or_the_settings_change(
    client: LanguageClient,
) -> None:
    uri = "file:///tmp/pi-lsp-test/result-id.jsonl"
    text = "\n".join([HEADER, entry("a", "ghost")]) + "\n"
    await open_document(client, text, uri)
    ident = types.TextDocumentIdentifier(uri=uri)

    async def pull(previous: str | None) -> types.DocumentDiagnosticReport:
        return await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=ident, previous_result_id=previous)
        )

    first = await pull(None)
    assert isinstance(first, types.RelatedFullDocumentDiagnosticReport) and first.result_id
    again = await pull(first.result_id)
    assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)
    assert again.result_id == first.result_id
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="\n" + text)],
        )
    )
    changed = await pull(first.result_id)
    assert isinstance(changed, types.RelatedFullDocumentDiagnosticReport)
    assert changed.result_id != first.result_id
    assert [d.code for d in changed.items] == ["PI005", "PI400"]
    settings = {"diagnosticMode": "both", "severity": {"PI005": "off"}}

    client.set_configuration(settings, section="piLsp")
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"piLsp": settings})
    )
    while True:  # the push of version 2 may still be on its way: wait for the new settings'
        pushed = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if pushed.uri == uri and [d.code for d in pushed.diagnostics] == ["PI400"]:
            break
    relaxed = await pull(changed.result_id)
    assert isinstance(relaxed, types.RelatedFullDocumentDiagnosticReport)
    assert [d.code for d in relaxed.items] == ["PI400"]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def default_client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    """VS Code's capabilities (it pulls diagnostics and can be asked to pull again;
    pytest-lsp's copy of its capabilities says neither) and no initialization options: the
    default diagnostic mode."""
    caps = client_capabilities("visual-studio-code")
    assert caps.text_document is not None and caps.workspace is not None
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities()
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    await _start(lsp_client, caps, None)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def push_only_client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    """A client that cannot pull diagnostics, with no initialization options."""
    caps = client_capabilities("visual-studio-code")
    assert caps.text_document is not None
    caps.text_document.diagnostic = None
    await _start(lsp_client, caps, None)
    yield
    await lsp_client.shutdown_session()


async def test_pulling_client_gets_no_pushed_duplicates(default_client: LanguageClient) -> None:
    uri = "file:///tmp/pi-lsp-test/auto.jsonl"
    default_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="jsonl", version=1, text="\n".join([HEADER, entry("a", "x")])
            )
        )
    )
    report = await default_client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert [d.code for d in report.items] == ["PI400"]
    await asyncio.sleep(1.0)  # a push would come right after the analysis the pull waited for
    assert uri not in default_client.diagnostics  # nothing was pushed, before or after the pull


async def test_client_that_cannot_pull_gets_pushed(push_only_client: LanguageClient) -> None:
    diags = await open_document(push_only_client, "\n".join([HEADER, entry("a", "x")]))
    assert [d.code for d in diags] == ["PI400"]


async def test_a_large_document_grown_by_full_text_changes_is_analysed_as_sent(
    client: LanguageClient,
) -> None:
    """Full-text appends to a document over 1 MiB (the decoder sends them as insertions at
    the end): what is published equals the diagnostics of the same text opened anew."""
    uri = "file:///tmp/pi-lsp-test/big-append.jsonl"
    lines = [HEADER, entry("a", None, "é😀 \u2028 " + "x" * 200)]
    lines += [entry(f"n{k}", f"n{k - 1}" if k else "a", "y" * 300) for k in range(3500)]
    text = "\n".join(lines) + "\n"
    assert len(text.encode()) > 1 << 20
    assert await open_document(client, text, uri) == []
    version = 1
    for grown in (
        text + entry("z", "ghost"),  # a torn-looking end: no newline yet
        text + entry("z", "ghost") + "\n" + entry("w", "z", "é\u2028") + "\n",
        text + entry("z", "ghost") + "\n" + entry("w", "z", "é\u2028") + '\n{"type":',
    ):
        version += 1
        published = await change_all(client, uri, grown, version)
        fresh = await open_document(client, grown, uri.replace("big-append", f"fresh-{version}"))
        assert published == fresh
        assert fresh  # the appended dangling parent (and the cut-off last line) are reported


async def replace_range(
    client: LanguageClient, uri: str, text: str, version: int
) -> list[types.Diagnostic]:
    """Replace the document's text by a ranged change (a message the decoder decodes whole)
    and return the diagnostics published for it."""
    end = types.Position(line=2**31 - 1, character=0)  # past the last line: the end
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(line=0, character=0), end=end),
                    text=text,
                )
            ],
        )
    )
    while True:
        params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == uri and params.version == version:
            return list(params.diagnostics)


async def test_a_large_text_decoded_by_lines_is_analysed_as_the_text_decoded_whole(
    client: LanguageClient,
) -> None:
    """A didOpen and a full-text didChange over 1 MiB (the decoder splits their text into
    lines, never one ``str``) publish what the same texts publish when they arrive in a
    ranged change (decoded whole, split by the core): \\r\\n, a lone \\r, U+2028, astral
    characters and escaped backslashes before an ``n`` included."""
    uri = "file:///tmp/pi-lsp-test/by-lines.jsonl"
    whole = "file:///tmp/pi-lsp-test/whole.jsonl"
    lines = [HEADER, entry("a", None, "é😀 \u2028 " + "x" * 200)]
    lines += [entry(f"n{k}", f"n{k - 1}" if k else "a", "y😀\\\\n" * 80) for k in range(3500)]
    lines[1000] += "\r" + entry("ghost-child", "ghost")
    lines[2000] = '{"type":"message","id":"torn'
    text = "\r\n".join(lines[:1500]) + "\r\n" + "\n".join(lines[1500:]) + "\n"
    assert len(text.encode()) > 1 << 20
    published = await open_document(client, text, uri)
    await open_document(client, "", whole)
    assert published == await replace_range(client, whole, text, 2)
    found = [("PI400", 1001), ("PI001", 2001), ("PI400", 2002)]  # lines after a lone \r
    assert [(d.code, d.range.start.line) for d in published] == found
    edited = text.replace("n10", "n10\u2028", 1)  # no append: decoded by lines again
    published = await change_all(client, uri, edited, 2)
    assert published == await replace_range(client, whole, edited, 3)
    assert [(d.code, d.range.start.line) for d in published] == [("PI400", 13), *found]
