"""Hover end to end: exact ranges in UTF-16 and UTF-8, after emoji and a raw U+2028."""

from __future__ import annotations

import re

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from pi_lsp.core.text.lineindex import Encoding

from .conftest import open_document
from .features_support import FIXTURES, LINES, TEXT, URI, doc_id, pos, span, value


async def _hover(
    client: LanguageClient, line: int, column: int, encoding: Encoding, uri: str = URI
) -> types.Hover | None:
    return await client.text_document_hover_async(
        types.HoverParams(text_document=doc_id(uri), position=pos(line, column, encoding))
    )


def _markdown(hover: types.Hover | None) -> str:
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    return hover.contents.value


async def _reference_after_emoji(client: LanguageClient, encoding: Encoding) -> None:
    assert await open_document(client, TEXT, URI) == []
    column = LINES[7].index('"b1"') + 2
    hover = await _hover(client, 7, column, encoding)
    assert _markdown(hover).startswith("**branch_summary** · `b1`")
    assert hover is not None and hover.range == value(7, "b1", encoding)


async def test_reference_after_emoji_utf16(client: LanguageClient) -> None:
    await _reference_after_emoji(client, "utf-16")
    # the emoji make the two encodings differ on this line
    assert value(7, "b1", "utf-8") != value(7, "b1", "utf-16")


async def test_reference_after_emoji_utf8(utf8_client: LanguageClient) -> None:
    await _reference_after_emoji(utf8_client, "utf-8")


async def test_entry_hover_after_a_raw_u2028(utf8_client: LanguageClient) -> None:
    await open_document(utf8_client, TEXT, URI)
    hover = await _hover(utf8_client, 2, LINES[2].index("world") + 1, "utf-8")
    md = _markdown(hover)
    assert md.startswith("**user** · message · `u1` · 🏷 start")
    assert "> hello world" in md
    assert hover is not None and hover.range == span(2, 0, len(LINES[2]), "utf-8")
    # the line after the U+2028 is still line 3 for the server
    after = await _hover(utf8_client, 3, LINES[3].index('"u1"') + 1, "utf-8")
    assert _markdown(after).startswith("**user** · message · `u1`")


async def test_key_hover_shows_the_schema_description(client: LanguageClient) -> None:
    await open_document(client, TEXT, URI)
    column = LINES[3].index('"stopReason"') + 4
    hover = await _hover(client, 3, column, "utf-16")
    md = _markdown(hover)
    assert md.startswith("**assistant** · `message.stopReason`")
    assert "never be persisted" in md
    start = LINES[3].index('"stopReason"')
    assert hover is not None and hover.range == span(3, start, start + 12)


async def test_header_hover_in_neovim(nvim_client: LanguageClient) -> None:
    await open_document(nvim_client, TEXT, URI)
    hover = await _hover(nvim_client, 0, LINES[0].index("/work"), "utf-8")
    md = _markdown(hover)
    assert md.startswith("**session** · pi v3 · `sess-1`")
    assert "entries: 9" in md and "tokens: 18" in md


async def test_no_hover_past_the_end_or_on_a_broken_line(client: LanguageClient) -> None:
    uri = "file:///tmp/pi-lsp-test/hover-broken.jsonl"
    await open_document(client, LINES[0] + "\n{broken\n", uri)
    for line in (1, 2, 40):
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=doc_id(uri), position=types.Position(line=line, character=3)
            )
        )
        assert hover is None


async def test_plaintext_only_client_gets_plaintext(basic_client: LanguageClient) -> None:
    await open_document(basic_client, TEXT, URI)
    hover = await _hover(basic_client, 2, 5, "utf-16")
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)


_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{100,}")


@pytest.mark.parametrize(
    "name",
    ["pi-v3-branched.jsonl", "pi-v2-hookmessage.jsonl", "real-v1-compactions.jsonl"],
)
@pytest.mark.slow
async def test_hover_over_shared_fixtures(client: LanguageClient, name: str) -> None:
    path = FIXTURES / name
    if not path.exists():
        pytest.skip("shared fixtures are absent")
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    await open_document(client, text, uri)
    lines = text.split("\n")
    header = await client.text_document_hover_async(
        types.HoverParams(
            text_document=doc_id(uri),
            position=types.Position(line=0, character=len(lines[0]) - 3),
        )
    )
    assert _markdown(header).startswith("**session**")
    for line in range(1, len(lines) - 1, max(1, len(lines) // 40)):
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=doc_id(uri), position=types.Position(line=line, character=1)
            )
        )
        md = _markdown(hover)
        assert md.startswith("**") and len(md) < 4000
        assert not _BASE64_RUN.search(md)
