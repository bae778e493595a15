"""Document synchronisation: open, change (incremental or full) and close.

Text lives in the core's :class:`~pi_lsp.core.checks.document.Document`; every change is
applied there with the core's line math (only the touched lines are re-split). A large
full text arrives as lines the message decoder split (:meth:`FullTexts.take
<pi_lsp.lsp.transport.FullTexts.take>`), never as one ``str``. The
handlers never analyse: they ask for a background analysis
(:func:`~pi_lsp.lsp.features.diagnostics.refresh`), which cancels one of older text and publishes
diagnostics once the current version is analysed. Closing a document drops it with
everything computed from it.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.uris import to_fs_path

from pi_lsp.core.checks.document import Document, Position

from ..server import PiLanguageServer
from . import diagnostics


def register(server: PiLanguageServer) -> None:
    """Register didOpen / didChange / didClose."""

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PiLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        path = to_fs_path(item.uri) if item.uri.startswith("file:") else None
        old = ls.documents.get(item.uri)
        if old is not None:
            old.cancel()
        # take the text out of the message, which pygls keeps until the next one arrives:
        # only the document's lines hold it from here on (a large text arrives as lines)
        lines = ls.full_texts.take(item.text)
        item.text = ""
        ls.documents[item.uri] = Document.open(item.uri, lines, item.version, path, ls.options)
        diagnostics.refresh(ls, item.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PiLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = ls.documents.get(uri)
        if doc is None:
            return
        encoding = ls.encoding
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                r = change.range
                doc.apply_change(
                    Position(r.start.line, r.start.character),
                    Position(r.end.line, r.end.character),
                    change.text,
                    encoding,
                )
            else:
                doc.replace_all(ls.full_texts.take(change.text))
        doc.set_version(params.text_document.version)
        diagnostics.refresh(ls, uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PiLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = ls.documents.pop(uri, None)
        if doc is not None:
            doc.cancel()
        ls.scheduler.forget(uri)
        diagnostics.clear(ls, uri)
