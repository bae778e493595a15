"""Code lenses: header totals, branch points, compactions and the leaf (display only)."""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.core.lens import code_lenses

from . import lookup
from .safety import isolated
from .server import PiLanguageServer


def register(server: PiLanguageServer) -> None:
    """Register textDocument/codeLens."""

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    @isolated()
    def code_lens(
        ls: PiLanguageServer, params: types.CodeLensParams
    ) -> list[types.CodeLens] | None:
        found = lookup.document(ls, params.text_document.uri)
        if found is None:
            return None
        _, a = found
        return [
            types.CodeLens(
                range=lookup.span_range(ls, a.lines, lens.line, 0, 0),
                # an empty command id: editors show the title as plain text
                command=types.Command(title=lens.title, command=""),
            )
            for lens in code_lenses(a)
        ]
