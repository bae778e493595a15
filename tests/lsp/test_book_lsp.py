"""The book dialect through the language server: diagnostics, the quick fix, pi-lsp.convert."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, client_capabilities

from pi_lsp.core.checks.document import Document
from pi_lsp.core.edits.book_convert import conversion, convert_text
from pi_lsp.core.entries.model import Options
from pi_lsp.lsp.features.book_actions import TITLE, book_code_actions
from pi_lsp.lsp.proto import Frame

from .conftest import open_document

pytestmark = pytest.mark.slow  # one server per case

DATA = Path(__file__).resolve().parents[1] / "data"
SAMPLE = (DATA / "book-from-doc.jsonl").read_text(encoding="utf-8")
URI = "file:///tmp/pi-lsp-test/book.jsonl"


def _broken() -> tuple[str, int, int]:
    """The sample with a tool_result naming an unknown call: (text, line, column)."""
    objs = [json.loads(line) for line in SAMPLE.splitlines()]
    objs[5]["toolCallId"] = "tc_999"
    text = "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in objs)
    return text, 5, text.splitlines()[5].index('"tc_999"')


def _accept_edits(client: LanguageClient) -> list[types.ApplyWorkspaceEditParams]:
    """Answer workspace/applyEdit with success and record the requests."""
    received: list[types.ApplyWorkspaceEditParams] = []

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        received.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    return received


async def test_diagnostics_on_open(client: LanguageClient) -> None:
    diags = await open_document(client, SAMPLE, URI)
    [notice] = diags
    header = SAMPLE.split("\n")[0]
    col = header.index('"session_header"')
    assert notice.code == "PI105"
    assert notice.severity == types.DiagnosticSeverity.Information
    assert notice.range == types.Range(
        start=types.Position(line=0, character=col),
        end=types.Position(line=0, character=col + len('"session_header"')),
    )
    assert notice.data == {"format": "book", "version": 1, "command": "pi-lsp.convert"}


async def test_broken_tool_link(client: LanguageClient) -> None:
    text, line, col = _broken()
    diags = await open_document(client, text, URI)
    assert [(d.code, d.range.start.line, d.range.start.character) for d in diags] == [
        ("PI105", 0, text.index('"session_header"')),
        ("PI420", line, col),
    ]


async def test_convert_command_on_an_open_document(client: LanguageClient) -> None:
    received = _accept_edits(client)
    await open_document(client, SAMPLE, URI, version=4)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="pi-lsp.convert", arguments=[URI])
    )
    assert result["applied"] is True
    assert result["losses"][0] == "line 3: modelId: no pi field for a thinking level change"
    [params] = received
    assert params.label == TITLE
    assert params.edit.document_changes is not None
    [change] = params.edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.uri == URI and change.text_document.version == 4
    [edit] = change.edits
    assert isinstance(edit, types.TextEdit)
    last = len(SAMPLE.split("\n")) - 1
    assert edit.range == types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=last, character=0)
    )
    assert edit.new_text == convert_text(SAMPLE)

    # the client applies it: the document is now a clean pi v3 session
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=5),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=edit.new_text)],
        )
    )
    published = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert (published.version, list(published.diagnostics)) == (5, [])


async def test_convert_command_on_a_file_on_disk(client: LanguageClient, tmp_path: Path) -> None:
    received = _accept_edits(client)
    path = tmp_path / "book.jsonl"
    path.write_text(SAMPLE, encoding="utf-8")
    uri = path.as_uri()
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="pi-lsp.convert", arguments=[{"uri": uri}])
    )
    assert result["applied"] is True
    [params] = received
    assert params.edit.document_changes is not None
    [change] = params.edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.version is None
    [edit] = change.edits
    assert isinstance(edit, types.TextEdit)
    assert edit.new_text == convert_text(SAMPLE, str(path))


async def test_convert_command_refuses_pi_files_and_bad_arguments(client: LanguageClient) -> None:
    pi = (
        '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n'
    )
    await open_document(client, pi, "file:///tmp/pi-lsp-test/pi.jsonl")
    for arguments in (["file:///tmp/pi-lsp-test/pi.jsonl"], [], [42]):
        with pytest.raises(JsonRpcException):
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="pi-lsp.convert", arguments=arguments)
            )


async def test_quick_fix_end_to_end(client: LanguageClient) -> None:
    diags = await open_document(client, SAMPLE, URI)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=URI),
            range=diags[0].range,
            context=types.CodeActionContext(diagnostics=diags),
        )
    )
    [fix] = [a for a in actions or [] if isinstance(a, types.CodeAction) and a.title == TITLE]
    assert fix.kind == types.CodeActionKind.QuickFix
    assert fix.edit is not None


# ----------------------------------------------------------------------------- in process


def _actions(
    text: str,
    params: types.CodeActionParams,
    caps: types.ClientCapabilities | None = None,
    uri: str = URI,
) -> list[types.CodeAction]:
    """The book code actions of ``text`` analysed as an open document at version 7."""
    doc = Document.open(uri, text, 7, "/tmp/pi-lsp-test/book.jsonl", Options())
    doc.run_analysis()
    snap = doc.snapshot()
    assert snap is not None
    caps = caps or client_capabilities("visual-studio-code")
    return book_code_actions(snap, Frame.of(snap, "utf-16"), params, caps)


def _params(
    line: int,
    diagnostics: list[types.Diagnostic] | None = None,
    only: list[types.CodeActionKind] | None = None,
) -> types.CodeActionParams:
    here = types.Position(line=line, character=3)
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=URI),
        range=types.Range(start=here, end=here),
        context=types.CodeActionContext(diagnostics=diagnostics or [], only=only),
    )


def test_book_code_actions_on_the_header() -> None:
    notice = types.Diagnostic(
        range=types.Range(
            start=types.Position(line=0, character=8), end=types.Position(line=0, character=24)
        ),
        message="pi cannot load it",
        code="PI105",
        source="pi-lsp",
    )
    [fix] = _actions(SAMPLE, _params(0, [notice]))
    assert (fix.title, fix.kind, fix.is_preferred) == (TITLE, types.CodeActionKind.QuickFix, True)
    assert fix.diagnostics == [notice]
    assert fix.edit is not None and fix.edit.document_changes is not None
    [change] = fix.edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.version == 7
    [edit] = change.edits
    assert isinstance(edit, types.TextEdit)
    assert edit.new_text == convert_text(SAMPLE)
    # the conversion is computed once per analysis
    doc = Document.open(URI, SAMPLE, 7, None, Options())
    doc.run_analysis()
    snap = doc.snapshot()
    assert snap is not None
    assert conversion(snap.analysis) is conversion(snap.analysis)


def test_book_code_actions_elsewhere() -> None:
    assert _actions(SAMPLE, _params(3)) == []
    assert _actions(SAMPLE, _params(0, only=[types.CodeActionKind.Refactor])) == []
    assert _actions(SAMPLE, _params(0, only=[types.CodeActionKind.QuickFix])) != []
    pi = '{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}\n'
    assert _actions(pi, _params(0)) == []


def test_book_code_actions_without_document_changes() -> None:
    caps = client_capabilities("visual-studio-code")
    assert caps.workspace is not None
    caps.workspace.workspace_edit = None
    [fix] = _actions(SAMPLE, _params(0), caps)
    assert fix.edit is not None and fix.edit.changes is not None
    assert [e.new_text for e in fix.edit.changes[URI]] == [convert_text(SAMPLE)]


async def test_navigation_follows_the_dialect_links(client: LanguageClient) -> None:
    """Definition from toolCallId / summarizedEntryIds / branchRootId, hover, references."""
    text = (DATA / "book-valid.jsonl").read_text(encoding="utf-8")
    lines = text.split("\n")
    uri = "file:///tmp/pi-lsp-test/book-nav.jsonl"
    await open_document(client, text, uri)
    doc = types.TextDocumentIdentifier(uri=uri)

    async def definition(line: int, needle: str, after: str) -> list[tuple[int, str]]:
        col = lines[line].index(needle, lines[line].index(after)) + 1
        found = await client.text_document_definition_async(
            types.DefinitionParams(
                text_document=doc, position=types.Position(line=line, character=col)
            )
        )
        out = []
        for item in found or []:
            rng = (
                item.target_selection_range if isinstance(item, types.LocationLink) else item.range
            )
            target = lines[rng.start.line]
            out.append((rng.start.line, target[rng.start.character : rng.end.character]))
        return out

    call_line = next(i for i, t in enumerate(lines) if '"type":"tool_call"' in t)
    use_line = next(i for i, t in enumerate(lines) if '"type":"tool_use","id":"tc_001"' in t)
    assert [line for line, _ in await definition(call_line, '"tc_001"', '"toolCallId"')] == [
        use_line
    ]
    summary_line = next(i for i, t in enumerate(lines) if '"type":"branch_summary"' in t)
    summarized = await definition(summary_line, '"entry-', '"summarizedEntryIds"')
    first_id = lines[summary_line].split('"summarizedEntryIds":["')[1].split('"')[0]
    assert summarized and lines[summarized[0][0]].find(f'"id":"{first_id}"') >= 0
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=doc,
            position=types.Position(
                line=call_line, character=lines[call_line].index('"tc_001"') + 1
            ),
        )
    )
    assert hover is not None and "write" in str(hover.contents)
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=doc,
            position=types.Position(line=use_line, character=lines[use_line].index('"tc_001"') + 1),
            context=types.ReferenceContext(include_declaration=False),
        )
    )
    assert {r.range.start.line for r in refs or []} >= {call_line}
