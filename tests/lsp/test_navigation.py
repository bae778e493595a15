"""Go to definition and find references end to end, at exact positions in both encodings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from pi_lsp.core.text.lineindex import Encoding, to_units

from .conftest import open_document
from .features_support import FIXTURES, LINES, TEXT, URI, doc_id, pos, span, value

pytestmark = pytest.mark.slow  # one server per case; test_hover and test_sync stay fast

Found = list[types.Location] | list[types.LocationLink] | types.Location | None


async def _definition(
    client: LanguageClient, line: int, column: int, encoding: Encoding = "utf-16"
) -> Found:
    return await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc_id(), position=pos(line, column, encoding))
    )


def _whole(line: int, encoding: Encoding) -> types.Range:
    return span(line, 0, len(LINES[line]), encoding)


async def _parent_after_emoji(client: LanguageClient, encoding: Encoding) -> None:
    await open_document(client, TEXT, URI)
    found = await _definition(client, 7, LINES[7].index('"b1"') + 1, encoding)
    assert found == [
        types.LocationLink(
            target_uri=URI,
            target_range=_whole(6, encoding),
            target_selection_range=value(6, "b1", encoding),
            origin_selection_range=value(7, "b1", encoding),
        )
    ]


async def test_definition_of_a_parent_after_emoji_utf16(client: LanguageClient) -> None:
    await _parent_after_emoji(client, "utf-16")


async def test_definition_of_a_parent_after_emoji_utf8(utf8_client: LanguageClient) -> None:
    await _parent_after_emoji(utf8_client, "utf-8")


async def test_definition_of_every_link_kind(client: LanguageClient) -> None:
    await open_document(client, TEXT, URI)

    async def target(line: int, needle: str) -> types.LocationLink:
        found = await _definition(client, line, LINES[line].index(needle) + 1)
        assert isinstance(found, list) and len(found) == 1
        assert isinstance(found[0], types.LocationLink)
        return found[0]

    label = await target(5, '"u1"')
    assert label.target_selection_range == value(2, "u1")
    from_id = await target(6, '"l1"')
    assert from_id.target_selection_range == value(5, "l1")
    kept = await target(8, '"u2","tokensBefore"')
    assert kept.origin_selection_range == value(8, "u2", nth=1)
    assert kept.target_selection_range == value(7, "u2")
    tool = await target(4, '"call_1"')
    block = LINES[3].index('{"type":"toolCall"')
    assert tool.target_range == span(3, block, LINES[3].index("}}]") + 2)
    assert tool.target_selection_range == value(3, "call_1")
    parent = await target(0, '"../parent.jsonl"')
    assert parent.target_uri == Path("/tmp/pi-lsp-features/parent.jsonl").as_uri()
    # after the raw U+2028 on line 2, line 3 still links to line 2
    u1 = await target(3, '"u1"')
    assert u1.target_selection_range == value(2, "u1")


async def test_plain_locations_for_clients_without_link_support(
    basic_client: LanguageClient,
) -> None:
    await open_document(basic_client, TEXT, URI)
    found = await _definition(basic_client, 7, LINES[7].index('"b1"') + 1)
    assert found == [types.Location(uri=URI, range=value(6, "b1"))]
    tool = await _definition(basic_client, 4, LINES[4].index('"call_1"') + 1)
    block = LINES[3].index('{"type":"toolCall"')
    assert tool == [types.Location(uri=URI, range=span(3, block, LINES[3].index("}}]") + 2))]


async def test_no_definition_off_links(client: LanguageClient) -> None:
    await open_document(client, TEXT, URI)
    assert await _definition(client, 2, LINES[2].index("hello")) is None
    assert await _definition(client, 2, LINES[2].index('"u1"') + 1) is None  # its own id


async def _references(
    client: LanguageClient,
    line: int,
    column: int,
    declaration: bool,
    encoding: Encoding = "utf-16",
) -> list[types.Location]:
    found = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=doc_id(),
            position=pos(line, column, encoding),
            context=types.ReferenceContext(include_declaration=declaration),
        )
    )
    assert found is not None
    return list(found)


async def test_references_of_an_entry(client: LanguageClient) -> None:
    await open_document(client, TEXT, URI)
    found = await _references(client, 2, LINES[2].index('"u1"') + 1, True)
    assert found == [
        types.Location(uri=URI, range=value(2, "u1")),
        types.Location(uri=URI, range=value(3, "u1")),  # child a1
        types.Location(uri=URI, range=value(5, "u1")),  # label
        types.Location(uri=URI, range=value(6, "u1")),  # child b1
    ]
    # from a reference to the same entry, without the declaration
    again = await _references(client, 6, LINES[6].index('"u1"') + 1, False)
    assert again == found[1:]


async def test_references_include_tool_results_and_compactions(utf8_client: LanguageClient) -> None:
    await open_document(utf8_client, TEXT, URI)
    found = await _references(utf8_client, 3, LINES[3].index("reading"), False, "utf-8")
    assert found == [
        types.Location(uri=URI, range=value(4, "a1", "utf-8")),
        types.Location(uri=URI, range=value(4, "call_1", "utf-8")),
    ]
    u2 = await _references(utf8_client, 7, LINES[7].index('"u2"') + 1, False, "utf-8")
    assert u2 == [
        types.Location(uri=URI, range=value(8, "u2", "utf-8")),
        types.Location(uri=URI, range=value(8, "u2", "utf-8", nth=1)),
    ]


async def test_references_of_a_tool_call(nvim_client: LanguageClient) -> None:
    await open_document(nvim_client, TEXT, URI)
    found = await _references(nvim_client, 4, LINES[4].index('"call_1"') + 1, True, "utf-8")
    assert found == [
        types.Location(uri=URI, range=value(3, "call_1", "utf-8")),
        types.Location(uri=URI, range=value(4, "call_1", "utf-8")),
    ]


@pytest.mark.parametrize("name", ["pi-v3-branched.jsonl", "pi-v2-hookmessage.jsonl"])
async def test_every_parent_link_of_a_fixture(client: LanguageClient, name: str) -> None:
    path = FIXTURES / name
    if not path.exists():
        pytest.skip("shared fixtures are absent")
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    await open_document(client, text, uri)
    lines = text.split("\n")
    line_of = {json.loads(t)["id"]: n for n, t in enumerate(lines) if t and n > 0}
    for n, line in enumerate(lines[1:], start=1):
        if not line:
            continue
        parent = json.loads(line).get("parentId")
        if parent is None:
            continue
        column = to_units(line, line.index(f'"parentId":"{parent}"') + 13, "utf-16")
        found = await client.text_document_definition_async(
            types.DefinitionParams(
                text_document=doc_id(uri), position=types.Position(line=n, character=column)
            )
        )
        assert isinstance(found, list) and len(found) == 1
        assert isinstance(found[0], types.LocationLink)
        assert found[0].target_range.start.line == line_of[parent]


async def test_v1_first_kept_entry_index(client: LanguageClient) -> None:
    path = FIXTURES / "real-v1-compactions.jsonl"
    if not path.exists():
        pytest.skip("shared fixtures are absent")
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    await open_document(client, text, uri)
    lines = text.split("\n")
    parsed = [n for n, t in enumerate(lines) if t.strip()]
    compactions = [
        (n, json.loads(t)["firstKeptEntryIndex"])
        for n, t in enumerate(lines)
        if t.strip() and json.loads(t).get("type") == "compaction"
    ]
    assert compactions
    for line, index in compactions:
        column = lines[line].index('"firstKeptEntryIndex":') + len('"firstKeptEntryIndex":') + 1
        found = await client.text_document_definition_async(
            types.DefinitionParams(
                text_document=doc_id(uri),
                position=types.Position(
                    line=line, character=to_units(lines[line], column, "utf-16")
                ),
            )
        )
        assert isinstance(found, list) and isinstance(found[0], types.LocationLink)
        assert found[0].target_range.start.line == parsed[index]
