"""Document symbols end to end: the nested outline, flat symbols for old clients, the cap."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from pi_lsp.core.text.lineindex import Encoding

from .conftest import open_document
from .features_support import FIXTURES, LINES, TEXT, URI, doc_id, span

pytestmark = pytest.mark.slow  # one server per case


async def _symbols(
    client: LanguageClient, uri: str = URI
) -> list[types.DocumentSymbol] | list[types.SymbolInformation]:
    found = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc_id(uri))
    )
    assert found is not None
    return found  # type: ignore[return-value]


def _walk(symbols: list[types.DocumentSymbol]) -> list[types.DocumentSymbol]:
    out: list[types.DocumentSymbol] = []
    stack = list(reversed(symbols))
    while stack:
        symbol = stack.pop()
        out.append(symbol)
        stack.extend(reversed(symbol.children or []))
    return out


def _content(line: int, encoding: Encoding) -> types.Range:
    return span(line, 0, len(LINES[line]), encoding)


async def _outline(client: LanguageClient, encoding: Encoding) -> None:
    await open_document(client, TEXT, URI)
    symbols = await _symbols(client)
    assert all(isinstance(s, types.DocumentSymbol) for s in symbols)
    top = [s for s in symbols if isinstance(s, types.DocumentSymbol)]
    assert [s.name for s in top] == [
        "My session",
        "model: anthropic/claude",
        "[start] user: hello world",
        "branch_summary: tried reading",
        "user: again",
        "compaction: we read a file",
        'session name: "My session"  ◀ leaf',
    ]
    assert [s.kind for s in top] == [
        types.SymbolKind.Module,
        types.SymbolKind.Property,
        types.SymbolKind.Event,
        types.SymbolKind.Package,
        types.SymbolKind.Event,
        types.SymbolKind.Package,
        types.SymbolKind.Constant,
    ]
    u1 = top[2]
    assert u1.detail == "line 3 · u1"
    assert u1.selection_range == _content(2, encoding)
    assert (u1.range.start.line, u1.range.end.line) == (2, 9)
    (branch,) = u1.children or []
    assert branch.name == "branch: assistant: reading → read(/src/a.ts)"
    assert branch.kind == types.SymbolKind.Namespace
    assert [c.name for c in branch.children or []] == [
        "assistant: reading → read(/src/a.ts)",
        "toolResult read: file body",
        'label: "start" → line 3',
    ]
    # the line after the emoji: selection in the client's units
    assert top[4].selection_range == _content(7, encoding)
    for symbol in _walk(top):
        r, s = symbol.range, symbol.selection_range
        assert (r.start.line, r.start.character) <= (s.start.line, s.start.character)
        assert (s.end.line, s.end.character) <= (r.end.line, r.end.character)


async def test_outline_vscode(client: LanguageClient) -> None:
    await _outline(client, "utf-16")


async def test_outline_neovim(nvim_client: LanguageClient) -> None:
    await _outline(nvim_client, "utf-8")


async def test_flat_symbols_and_the_cap_from_settings(basic_client: LanguageClient) -> None:
    await open_document(basic_client, TEXT, URI)
    flat = await _symbols(basic_client)
    assert all(isinstance(s, types.SymbolInformation) for s in flat)
    info = [s for s in flat if isinstance(s, types.SymbolInformation)]
    assert len(info) == 1 + 9 + 1  # header, entries, one branch group
    nested = [s for s in info if s.container_name == "branch: assistant: reading → read(/src/a.ts)"]
    assert [s.location.range.start.line for s in nested] == [3, 4, 5]
    basic_client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"piLsp": {"outlineCap": 2}})
    )
    await basic_client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    capped = [s for s in await _symbols(basic_client) if isinstance(s, types.SymbolInformation)]
    assert capped[-1].name == "… 7 more entries not shown (outline cap 2)"
    assert capped[-1].kind == types.SymbolKind.Null


@pytest.mark.parametrize("name", ["pi-v3-long.jsonl", "real-v1-compactions.jsonl"])
async def test_fixture_outlines(client: LanguageClient, name: str) -> None:
    path = FIXTURES / name
    if not path.exists():
        pytest.skip("shared fixtures are absent")
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    await open_document(client, text, uri)
    symbols = [s for s in await _symbols(client, uri) if isinstance(s, types.DocumentSymbol)]
    entries = [
        s
        for s in _walk(symbols)
        if s.kind not in (types.SymbolKind.Module, types.SymbolKind.Namespace)
    ]
    lines = sorted(s.selection_range.start.line for s in entries)
    count = sum(1 for t in text.split("\n")[1:] if t.strip())
    assert lines == list(range(1, count + 1))
    assert all(s.name and "\n" not in s.name for s in entries)
