"""Code lenses: header totals, branch points, compactions and the leaf (display only)."""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.core.checks.document import Snapshot
from pi_lsp.core.views.lens import code_lenses

from .. import requests
from ..proto import Frame
from ..server import PiLanguageServer


def _lenses(snap: Snapshot, frame: Frame) -> list[types.CodeLens]:
    return [
        # an empty command id: editors show the title as plain text
        types.CodeLens(range=where, command=types.Command(title=lens.title, command=""))
        for lens in code_lenses(snap.analysis)
        if (where := frame.range(lens.line, 0, 0)) is not None
    ]


def register(server: PiLanguageServer) -> None:
    """Register textDocument/codeLens."""

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    async def code_lens(
        ls: PiLanguageServer, params: types.CodeLensParams
    ) -> list[types.CodeLens] | None:
        return await requests.on_snapshot(ls, params.text_document.uri, _lenses)
