"""Document symbols: the entry tree as an outline (hierarchical, or flat for old clients)."""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.core.analysis import Analysis
from pi_lsp.core.outline import OutlineNode, outline

from . import lookup
from .safety import isolated
from .server import PiLanguageServer

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


def _symbol(ls: PiLanguageServer, a: Analysis, node: OutlineNode) -> types.DocumentSymbol:
    span = a.line_span(node.line)
    return types.DocumentSymbol(
        name=node.name,
        detail=node.detail,
        kind=KINDS.get(node.kind, types.SymbolKind.Object),
        range=lookup.lines_range(ls, a.lines, node.line, node.end_line),
        selection_range=lookup.span_range(ls, a.lines, node.line, span.start, span.end),
        children=[_symbol(ls, a, child) for child in node.children],
    )


def _flat(
    ls: PiLanguageServer, a: Analysis, uri: str, nodes: list[OutlineNode]
) -> list[types.SymbolInformation]:
    out: list[types.SymbolInformation] = []
    stack: list[tuple[OutlineNode, str | None]] = [(n, None) for n in reversed(nodes)]
    while stack:
        node, container = stack.pop()
        out.append(
            types.SymbolInformation(
                name=node.name,
                kind=KINDS.get(node.kind, types.SymbolKind.Object),
                location=types.Location(
                    uri=uri, range=lookup.lines_range(ls, a.lines, node.line, node.line)
                ),
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
    @isolated()
    def document_symbols(
        ls: PiLanguageServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol] | list[types.SymbolInformation] | None:
        uri = params.text_document.uri
        found = lookup.document(ls, uri)
        if found is None:
            return None
        _, a = found
        nodes = outline(a, ls.settings.outline_cap)
        if _hierarchical(ls):
            return [_symbol(ls, a, node) for node in nodes]
        return _flat(ls, a, uri, nodes)
