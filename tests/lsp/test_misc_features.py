"""Code lens, inlay hints, folding, completion, rename, document links, selection ranges,
the tree/stats commands, and the advertised capabilities, end to end."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from pi_lsp.core.text.lineindex import Encoding

from .conftest import SERVER, open_document
from .features_support import FIXTURES, LINES, TEXT, URI, doc_id, pos, span, value

pytestmark = pytest.mark.slow  # one server per feature, 15 cases


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def uninitialized(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    """A client whose test sends ``initialize`` itself (to look at the result)."""
    yield
    await lsp_client.shutdown_session()


async def test_advertised_capabilities(uninitialized: LanguageClient) -> None:
    result = await uninitialized.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("neovim"))
    )
    caps = result.capabilities
    assert caps.position_encoding == types.PositionEncodingKind.Utf8
    assert caps.hover_provider and caps.definition_provider and caps.references_provider
    assert caps.document_symbol_provider and caps.folding_range_provider
    assert caps.selection_range_provider
    assert caps.code_lens_provider == types.CodeLensOptions(resolve_provider=False)
    assert caps.inlay_hint_provider == types.InlayHintOptions(resolve_provider=False)
    assert caps.document_link_provider == types.DocumentLinkOptions(resolve_provider=False)
    assert caps.rename_provider == types.RenameOptions(prepare_provider=True)
    assert caps.completion_provider is not None
    assert list(caps.completion_provider.trigger_characters or []) == ['"', ":"]
    assert caps.execute_command_provider is not None
    assert {"pi-lsp.tree", "pi-lsp.stats"} <= set(caps.execute_command_provider.commands)


async def test_code_lenses(client: LanguageClient) -> None:
    await open_document(client, TEXT, URI)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=doc_id())
    )
    assert lenses is not None
    shown = [(lens.range.start.line, lens.command.title if lens.command else "") for lens in lenses]
    assert shown == [
        (0, "9 entries · 1 branch point · 2 leaves · 1 compaction · 18 tokens · $0.3000 · active path $0.0000 · 1 abandoned branch $0.3000"),
        (2, "⑂ branch point: 2 branches (lines 4, 7)"),
        (8, "compaction: keeps from line 8"),
        (9, "◀ leaf: pi resumes here (6 entries on the active path)"),
    ]
    assert all(lens.command and lens.command.command == "" for lens in lenses)


async def _inlay(client: LanguageClient, encoding: Encoding) -> None:
    await open_document(client, TEXT, URI)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=doc_id(),
            range=types.Range(
                start=types.Position(line=0, character=0),
                end=types.Position(line=len(LINES), character=0),
            ),
        )
    )
    assert hints is not None
    assert [(h.position, h.label) for h in hints] == [
        (value(5, "u1", encoding).end, "↑ line 3"),
        (value(6, "u1", encoding).end, "↑ line 3"),
        (value(6, "l1", encoding).end, "↑ line 6"),
        (value(8, "u2", encoding, nth=1).end, "↑ line 8"),
    ]


async def test_inlay_hints_utf16(client: LanguageClient) -> None:
    await _inlay(client, "utf-16")


async def test_inlay_hints_utf8(utf8_client: LanguageClient) -> None:
    await _inlay(utf8_client, "utf-8")


async def test_inlay_hint_after_emoji_is_in_client_units(utf8_client: LanguageClient) -> None:
    reset = LINES[7].replace('"parentId":"b1"', '"parentId":null')
    uri = "file:///tmp/pi-lsp-test/reset.jsonl"
    await open_document(utf8_client, "\n".join([*LINES[:7], reset]), uri)
    hints = await utf8_client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=doc_id(uri),
            range=types.Range(
                start=types.Position(line=7, character=0), end=types.Position(line=8, character=0)
            ),
        )
    )
    column = reset.index("null") + 4
    assert hints is not None and [(h.position.character, h.label) for h in hints] == [
        (len(reset[:column].encode("utf-8")), "new root")
    ]


async def test_folding_by_turn(nvim_client: LanguageClient) -> None:
    await open_document(nvim_client, TEXT, URI)
    folds = await nvim_client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=doc_id())
    )
    assert folds is not None
    assert [(f.start_line, f.end_line, f.collapsed_text) for f in folds] == [
        (2, 6, "user: hello world"),
        (7, 9, "user: again"),
    ]


async def _complete(
    client: LanguageClient, uri: str, line: int, character: int
) -> types.CompletionList:
    found = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=doc_id(uri), position=types.Position(line=line, character=character)
        )
    )
    assert isinstance(found, types.CompletionList)
    return found


async def test_completion_of_ids_after_emoji(utf8_client: LanguageClient) -> None:
    typed = '{"type":"message","note":"🚀","parentId":"c'
    uri = "file:///tmp/pi-lsp-test/complete.jsonl"
    await open_document(utf8_client, TEXT + typed, uri)
    column = len(typed.encode("utf-8"))
    found = await _complete(utf8_client, uri, len(LINES), column)
    first = found.items[0]
    assert (first.label, first.detail) == ("s1", 'session name: "My session"')
    assert first.kind == types.CompletionItemKind.Reference
    assert isinstance(first.text_edit, types.TextEdit)
    assert first.text_edit.range == types.Range(
        start=types.Position(line=len(LINES), character=column - 1),
        end=types.Position(line=len(LINES), character=column),
    )
    assert first.text_edit.new_text == "s1"


async def test_completion_of_enum_values(client: LanguageClient) -> None:
    typed = '{"type":"message","message":{"role":"assistant","stopReason":"'
    uri = "file:///tmp/pi-lsp-test/enum.jsonl"
    await open_document(client, TEXT + typed, uri)
    found = await _complete(client, uri, len(LINES), len(typed))
    assert [i.label for i in found.items] == ["stop", "length", "toolUse", "error", "aborted", "deferred"]
    assert all(i.kind == types.CompletionItemKind.EnumMember for i in found.items)


async def test_rename_an_id(client: LanguageClient) -> None:
    await open_document(client, TEXT, URI)
    position = pos(7, LINES[7].index('"b1"') + 1)
    prepared = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=doc_id(), position=position)
    )
    inner = value(7, "b1")
    assert prepared == types.PrepareRenamePlaceholder(
        range=types.Range(
            start=types.Position(line=7, character=inner.start.character + 1),
            end=types.Position(line=7, character=inner.end.character - 1),
        ),
        placeholder="b1",
    )
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=doc_id(), position=position, new_name="summary")
    )
    assert edit is not None and edit.document_changes is not None
    (change,) = edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.version == 1
    assert [(e.range, e.new_text) for e in change.edits] == [
        (value(6, "b1"), '"summary"'),
        (value(7, "b1"), '"summary"'),
    ]


async def test_rename_refused(nvim_client: LanguageClient) -> None:
    await open_document(nvim_client, TEXT, URI)
    with pytest.raises(JsonRpcException, match="already used on line 4"):
        await nvim_client.text_document_rename_async(
            types.RenameParams(
                text_document=doc_id(),
                position=pos(2, LINES[2].index('"u1"') + 1, "utf-8"),
                new_name="a1",
            )
        )


async def test_rename_without_document_changes(nvim_client: LanguageClient) -> None:
    await open_document(nvim_client, TEXT, URI)
    edit = await nvim_client.text_document_rename_async(
        types.RenameParams(
            text_document=doc_id(),
            position=pos(3, LINES[3].index("call_1"), "utf-8"),
            new_name="call_9",
        )
    )
    assert edit is not None and edit.changes is not None
    assert [(e.range, e.new_text) for e in edit.changes[URI]] == [
        (value(3, "call_1", "utf-8"), '"call_9"'),
        (value(4, "call_1", "utf-8"), '"call_9"'),
    ]


async def test_document_links(client: LanguageClient) -> None:
    await open_document(client, TEXT, URI)
    links = await client.text_document_document_link_async(
        types.DocumentLinkParams(text_document=doc_id())
    )
    assert links is not None and len(links) == 1
    outer = value(0, "../parent.jsonl")
    assert links[0].range == types.Range(
        start=types.Position(line=0, character=outer.start.character + 1),
        end=types.Position(line=0, character=outer.end.character - 1),
    )
    assert links[0].target == Path("/tmp/pi-lsp-features/parent.jsonl").as_uri()


async def test_selection_ranges_after_emoji(utf8_client: LanguageClient) -> None:
    await open_document(utf8_client, TEXT, URI)
    column = LINES[7].index('"b1"') + 2
    found = await utf8_client.text_document_selection_range_async(
        types.SelectionRangeParams(text_document=doc_id(), positions=[pos(7, column, "utf-8")])
    )
    assert found is not None
    chain = []
    current: types.SelectionRange | None = found[0]
    while current is not None:
        chain.append(current.range)
        current = current.parent
    start = LINES[7].index('"b1"')
    assert chain == [
        span(7, start + 1, start + 3, "utf-8"),
        span(7, start, start + 4, "utf-8"),
        span(7, LINES[7].index('"parentId"'), start + 4, "utf-8"),
        span(7, 0, len(LINES[7]), "utf-8"),
    ]


async def test_tree_and_stats_commands(client: LanguageClient) -> None:
    await open_document(client, TEXT, URI)
    tree = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="pi-lsp.tree", arguments=[URI])
    )
    assert tree["uri"] == URI and tree["leafId"] == "s1" and tree["roots"] == ["m1"]
    node = next(n for n in tree["nodes"] if n["id"] == "u1")
    assert node == {
        "id": "u1",
        "line": 2,
        "parentId": "m1",
        "type": "message",
        "role": "user",
        "title": "user: hello world",
        "labels": ["start"],
        "isLeaf": False,
        "onActivePath": True,
        "children": ["a1", "b1"],
    }
    stats = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="pi-lsp.stats", arguments=[URI])
    )
    assert stats["entries"] == 9 and stats["tokens"]["total"] == 18 and stats["cost"] == 0.3
    assert stats["name"] == "My session" and stats["durationSeconds"] == 9.0


async def test_commands_on_files_that_are_not_open(client: LanguageClient) -> None:
    path = FIXTURES / "pi-v3-branched.jsonl"
    if path.exists():
        tree = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="pi-lsp.tree", arguments=[path.as_uri()])
        )
        lines = path.read_text(encoding="utf-8").split("\n")
        assert len(tree["nodes"]) == sum(1 for t in lines[1:] if t.strip())
        assert sum(n["isLeaf"] for n in tree["nodes"]) == 1
    with pytest.raises(JsonRpcException, match="cannot read"):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="pi-lsp.stats", arguments=["file:///nonexistent/x.jsonl"]
            )
        )
