"""The pi-lsp language server: document state, settings, and the place features register.

Document text is kept by the core (:class:`pi_lsp.core.document.Document`), not by
pygls's workspace: pygls splits lines with ``str.splitlines``, which breaks at U+2028
and friends that pi writes raw inside JSON strings. The protocol subclass below stops
pygls from keeping its own copy of each document.
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from pi_lsp import __version__
from pi_lsp.core.analysis import Options
from pi_lsp.core.document import Document
from pi_lsp.core.settings import Settings
from pi_lsp.core.text import Encoding

log = logging.getLogger("pi_lsp")

_ENCODINGS: dict[str, Encoding] = {
    types.PositionEncodingKind.Utf8: "utf-8",
    types.PositionEncodingKind.Utf16: "utf-16",
    types.PositionEncodingKind.Utf32: "utf-32",
}


class PiProtocol(LanguageServerProtocol):
    """Language server protocol that leaves document text to the core."""

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(
        self, params: types.DidOpenTextDocumentParams
    ) -> Generator[Any, Any, None]:
        """Hand the document to the user handler only (no pygls copy)."""
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        """Hand the change to the user handler only (no pygls copy)."""
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(
        self, params: types.DidCloseTextDocumentParams
    ) -> Generator[Any, Any, None]:
        """Hand the close to the user handler only (no pygls copy)."""
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None


    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        """pygls's initialize, without pull diagnostics for clients that get them pushed."""
        from .diagnostics import offers_pull

        result: types.InitializeResult = yield from super().lsp_initialize(params)
        if not offers_pull(self._server):  # type: ignore[arg-type]
            result.capabilities.diagnostic_provider = None
        return result


class PiLanguageServer(LanguageServer):
    """The server: open documents by URI, settings, and the negotiated position encoding."""

    def __init__(self) -> None:
        super().__init__(
            "pi-lsp",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=PiProtocol,
        )
        self.documents: dict[str, Document] = {}
        self.settings = Settings()
        self.initialization_options: Any = None

    @property
    def encoding(self) -> Encoding:
        """The position encoding agreed with the client (UTF-16 unless negotiated)."""
        try:
            kind = self.server_capabilities.position_encoding
        except AttributeError:
            return "utf-16"
        return _ENCODINGS.get(str(kind), "utf-16") if kind is not None else "utf-16"

    @property
    def options(self) -> Options:
        """Analysis options derived from the current settings."""
        return Options(large_line=self.settings.large_line)

    def document(self, uri: str) -> Document | None:
        """The open document at ``uri``, if any."""
        return self.documents.get(uri)


def create_server() -> PiLanguageServer:
    """A server with every feature registered."""
    from .features import register_all

    server = PiLanguageServer()
    register_all(server)
    return server
