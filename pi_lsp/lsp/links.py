"""Document links: the header's ``parentSession`` (and v1 ``branchedFrom``) to that file."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from pi_lsp.core.doclinks import document_links

from . import lookup
from .safety import isolated
from .server import PiLanguageServer


def register(server: PiLanguageServer) -> None:
    """Register textDocument/documentLink."""

    @server.feature(
        types.TEXT_DOCUMENT_DOCUMENT_LINK, types.DocumentLinkOptions(resolve_provider=False)
    )
    @isolated()
    def document_link(
        ls: PiLanguageServer, params: types.DocumentLinkParams
    ) -> list[types.DocumentLink] | None:
        found = lookup.document(ls, params.text_document.uri)
        if found is None:
            return None
        _, a = found
        return [
            types.DocumentLink(
                range=lookup.span_range(
                    ls, a.lines, link.span.line, link.span.start, link.span.end
                ),
                target=Path(link.path).as_uri(),
                tooltip=f"{link.field}: open the session this one came from",
            )
            for link in document_links(a)
        ]
