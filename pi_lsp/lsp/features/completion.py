"""Completion of entry ids (with previews) and of enum values from the schemas.

Completion is asked for while a line is being typed, usually before that line is
analysed: on a line edited since the snapshot's analysis, the line's new text is read
with the ids and schema of the analysis.
"""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.core.checks.document import Snapshot
from pi_lsp.core.views.complete import completions

from .. import requests
from ..proto import Frame
from ..server import PiLanguageServer

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
    async def complete(
        ls: PiLanguageServer, params: types.CompletionParams
    ) -> types.CompletionList | None:
        def work(snap: Snapshot, frame: Frame) -> types.CompletionList:
            line, column = frame.cursor(params.position)
            unchanged = frame.at(params.position)
            if unchanged is not None:
                found = completions(snap.analysis, *unchanged)
            else:
                found = completions(snap.analysis, frame.near(line), column, frame.text[line])
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
                        range=frame.text_range(line, item.start, item.end),
                        new_text=item.new_text,
                    ),
                )
                for item in found.items
            ]
            return types.CompletionList(is_incomplete=found.incomplete, items=items)

        return await requests.on_snapshot(ls, params.text_document.uri, work)
