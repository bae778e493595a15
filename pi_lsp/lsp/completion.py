"""Completion of entry ids (with previews) and of enum values from the schemas."""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.core.complete import completions

from . import lookup
from .safety import isolated
from .server import PiLanguageServer

KINDS = {
    "id": types.CompletionItemKind.Reference,
    "tool": types.CompletionItemKind.Reference,
    "value": types.CompletionItemKind.EnumMember,
}


def register(server: PiLanguageServer) -> None:
    """Register textDocument/completion (triggered by a quote or a colon)."""

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=['"', ":"], resolve_provider=False),
    )
    @isolated()
    def complete(
        ls: PiLanguageServer, params: types.CompletionParams
    ) -> types.CompletionList | None:
        where = lookup.at(ls, params.text_document.uri, params.position)
        if where is None:
            return None
        found = completions(where.analysis, where.line, where.column)
        lines = where.doc.lines
        items = [
            types.CompletionItem(
                label=item.label,
                kind=KINDS[item.kind],
                detail=item.detail,
                documentation=types.MarkupContent(
                    kind=types.MarkupKind.PlainText, value=item.documentation
                ),
                sort_text=item.sort,
                filter_text=item.label,
                text_edit=types.TextEdit(
                    range=lookup.span_range(ls, lines, where.line, item.start, item.end),
                    new_text=item.new_text,
                ),
            )
            for item in found.items
        ]
        return types.CompletionList(is_incomplete=found.incomplete, items=items)
