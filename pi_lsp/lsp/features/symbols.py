"""Document symbols: the entry tree as an outline (hierarchical, or flat for old clients)."""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.core.checks.document import Snapshot
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.views.outline import OutlineNode, outline

from .. import requests
from ..proto import Frame
from ..server import PiLanguageServer

KINDS: dict[str, types.SymbolKind] = {
    "header": types.SymbolKind.Module,
    "branch": types.SymbolKind.Namespace,
    "cycle": types.SymbolKind.Namespace,
    "notice": types.SymbolKind.Null,
    "user": types.SymbolKind.Event,
    "assistant": types.SymbolKind.Method,
    "toolResult": types.SymbolKind.Field,
    "bashExecution": types.SymbolKind.Function,
    "compaction": types.SymbolKind.Package,
    "branch_summary": types.SymbolKind.Package,
    "label": types.SymbolKind.Key,
    "session_info": types.SymbolKind.Constant,
    "model_change": types.SymbolKind.Property,
    "thinking_level_change": types.SymbolKind.Property,
}


def _symbol(a: Analysis, frame: Frame, node: OutlineNode) -> types.DocumentSymbol | None:
    """A symbol and its children (None when its lines were edited since the analysis)."""
    span = a.line_span(node.line)
    whole = frame.block(node.line, node.end_line)
    selection = frame.span(span)
    if whole is None or selection is None:
        return None
    children = [_symbol(a, frame, child) for child in node.children]
    return types.DocumentSymbol(
        name=node.name,
        detail=node.detail,
        kind=KINDS.get(node.kind, types.SymbolKind.Object),
        range=whole,
        selection_range=selection,
        children=[c for c in children if c is not None],
    )


def _flat(frame: Frame, uri: str, nodes: list[OutlineNode]) -> list[types.SymbolInformation]:
    out: list[types.SymbolInformation] = []
    stack: list[tuple[OutlineNode, str | None]] = [(n, None) for n in reversed(nodes)]
    while stack:
        node, container = stack.pop()
        where = frame.block(node.line, node.line)
        if where is None:
            continue
        out.append(
            types.SymbolInformation(
                name=node.name,
                kind=KINDS.get(node.kind, types.SymbolKind.Object),
                location=types.Location(uri=uri, range=where),
                container_name=container,
            )
        )
        stack.extend((child, node.name) for child in reversed(node.children))
    return out


def _hierarchical(ls: PiLanguageServer) -> bool:
    text = ls.client_capabilities.text_document
    symbols = text.document_symbol if text else None
    return bool(symbols and symbols.hierarchical_document_symbol_support)


def register(server: PiLanguageServer) -> None:
    """Register textDocument/documentSymbol."""

    @server.feature(
        types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, types.DocumentSymbolOptions(label="pi session")
    )
    async def document_symbols(
        ls: PiLanguageServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol] | list[types.SymbolInformation] | None:
        uri = params.text_document.uri
        cap = ls.settings.outline_cap
        hierarchical = _hierarchical(ls)

        def work(
            snap: Snapshot, frame: Frame
        ) -> list[types.DocumentSymbol] | list[types.SymbolInformation]:
            a = snap.analysis
            nodes = outline(a, cap)
            if hierarchical:
                symbols = [_symbol(a, frame, node) for node in nodes]
                return [s for s in symbols if s is not None]
            return _flat(frame, uri, nodes)

        return await requests.on_snapshot(ls, uri, work)
