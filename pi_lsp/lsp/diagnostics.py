"""Diagnostics: pushed after every open/change (with the document version), answered on pull.

Pushed, pulled and ``pi-lsp check --format json`` diagnostics come from the same
function, so they are identical for the same text.
"""

from __future__ import annotations

from lsprotocol import types

from . import convert
from .safety import isolated
from .server import PiLanguageServer


def current(ls: PiLanguageServer, uri: str) -> list[types.Diagnostic]:
    """The diagnostics of an open document under the current settings."""
    doc = ls.documents.get(uri)
    if doc is None:
        return []
    findings = ls.settings.apply(doc.analysis.findings)
    return convert.to_diagnostics(doc, findings, ls.encoding)


def publish(ls: PiLanguageServer, uri: str) -> None:
    """Push the diagnostics of ``uri`` for its current version."""
    doc = ls.documents.get(uri)
    if doc is None:
        return
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, version=doc.version, diagnostics=current(ls, uri))
    )


def publish_all(ls: PiLanguageServer) -> None:
    """Re-publish every open document (after a settings change)."""
    for uri in list(ls.documents):
        publish(ls, uri)


def clear(ls: PiLanguageServer, uri: str) -> None:
    """Remove the diagnostics of a closed document."""
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def register(server: PiLanguageServer) -> None:
    """Register the pull-diagnostics handler."""

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="pi-lsp", inter_file_dependencies=False, workspace_diagnostics=False
        ),
    )
    @isolated(default=types.RelatedFullDocumentDiagnosticReport(items=[]))
    def pull(
        ls: PiLanguageServer, params: types.DocumentDiagnosticParams
    ) -> types.RelatedFullDocumentDiagnosticReport:
        return types.RelatedFullDocumentDiagnosticReport(
            items=current(ls, params.text_document.uri)
        )
