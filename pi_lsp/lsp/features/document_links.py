"""Document links: the header's ``parentSession`` (and v1 ``branchedFrom``) to that file."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from pi_lsp.core.checks.document import Snapshot
from pi_lsp.core.views.doclinks import document_links

from .. import requests
from ..proto import Frame
from ..server import PiLanguageServer


def _links(snap: Snapshot, frame: Frame) -> list[types.DocumentLink]:
    return [
        types.DocumentLink(
            range=where,
            target=Path(link.path).as_uri(),
            tooltip=f"{link.field}: open the session this one came from",
        )
        for link in document_links(snap.analysis)
        if (where := frame.span(link.span)) is not None
    ]


def register(server: PiLanguageServer) -> None:
    """Register textDocument/documentLink."""

    @server.feature(
        types.TEXT_DOCUMENT_DOCUMENT_LINK, types.DocumentLinkOptions(resolve_provider=False)
    )
    async def document_link(
        ls: PiLanguageServer, params: types.DocumentLinkParams
    ) -> list[types.DocumentLink] | None:
        return await requests.on_snapshot(ls, params.text_document.uri, _links)
