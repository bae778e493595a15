"""Diagnostics: answered on pull, and pushed after every open/change (with the document version)
to clients that do not pull (setting ``diagnosticMode``: auto, push, pull or both).

Analyses run off the event loop (:mod:`pi_lsp.lsp.scheduler`); :func:`refresh` asks for
one and the scheduler calls :func:`publish` once the *current* text is analysed, so
diagnostics are only ever published for the latest version (and then precomputes the
reference index and session totals in the background, for the requests that follow). Pushed, pulled and
``pi-lsp check --format json`` diagnostics come from the same function, so they are
identical for the same text.
"""

from __future__ import annotations

import logging

from lsprotocol import types

from pi_lsp.core import describe, refs
from pi_lsp.core.analysis import Analysis

from . import convert, scheduler
from .server import PiLanguageServer

log = logging.getLogger("pi_lsp")


def _scheduler(ls: PiLanguageServer) -> scheduler.Scheduler:
    return scheduler.of(ls, lambda uri: publish(ls, uri), _warm)


def _warm(analysis: Analysis) -> None:
    """Precompute, per analysis, what hover, definition and references look up first."""
    refs.index(analysis)
    describe.session_totals(analysis)


def current(ls: PiLanguageServer, uri: str) -> list[types.Diagnostic]:
    """The diagnostics of an open document under the current settings (analyses if stale)."""
    doc = ls.documents.get(uri)
    if doc is None:
        return []
    findings = ls.settings.apply(doc.analysis.findings)
    return convert.to_diagnostics(doc, findings, ls.encoding)


def refresh(ls: PiLanguageServer, uri: str) -> None:
    """Analyse ``uri`` in the background, then publish its diagnostics."""
    _scheduler(ls).schedule(uri)


def client_pulls(ls: PiLanguageServer) -> bool:
    """True when the client asks for diagnostics itself (``textDocument/diagnostic``) and can
    be asked to ask again (``workspace/diagnostic/refresh``) when settings change them.

    A client that pulls but cannot refresh (Neovim 0.11/0.12) would keep showing what a
    settings change removed: in ``auto`` mode it gets pushed diagnostics instead, and no
    ``diagnosticProvider`` (see :func:`offers_pull`), so it does not show them twice.
    """
    text_document = ls.client_capabilities.text_document
    workspace = ls.client_capabilities.workspace
    refresh = workspace.diagnostics if workspace else None
    return bool(text_document and text_document.diagnostic and refresh and refresh.refresh_support)


def offers_pull(ls: PiLanguageServer) -> bool:
    """Whether to advertise ``diagnosticProvider`` (decided at initialize)."""
    mode = ls.settings.diagnostic_mode
    return mode in ("pull", "both") or (mode == "auto" and client_pulls(ls))


def pushes(ls: PiLanguageServer) -> bool:
    """Whether diagnostics are pushed: a client that pulls would otherwise show them twice."""
    mode = ls.settings.diagnostic_mode
    if mode == "auto":
        return not client_pulls(ls)
    return mode in ("push", "both")


def request_refresh(ls: PiLanguageServer) -> None:
    """Ask a pulling client to pull again (after settings changed what is reported)."""
    workspace = ls.client_capabilities.workspace
    diagnostics = workspace.diagnostics if workspace else None
    if diagnostics and diagnostics.refresh_support and ls.settings.diagnostic_mode != "push":
        ls.workspace_diagnostic_refresh(None)


def publish(ls: PiLanguageServer, uri: str) -> None:
    """Push the diagnostics of ``uri`` for its current version (unless the client pulls)."""
    doc = ls.documents.get(uri)
    if doc is None or not pushes(ls):
        return
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, version=doc.version, diagnostics=current(ls, uri))
    )


def publish_all(ls: PiLanguageServer) -> None:
    """Re-analyse (in the background) and re-publish every open document."""
    for uri in list(ls.documents):
        refresh(ls, uri)


def clear(ls: PiLanguageServer, uri: str) -> None:
    """Remove the diagnostics of a closed document."""
    if not pushes(ls):
        return
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def register(server: PiLanguageServer) -> None:
    """Register the pull-diagnostics handler."""

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="pi-lsp", inter_file_dependencies=False, workspace_diagnostics=False
        ),
    )
    async def pull(
        ls: PiLanguageServer, params: types.DocumentDiagnosticParams
    ) -> types.RelatedFullDocumentDiagnosticReport:
        uri = params.text_document.uri
        try:
            if await _scheduler(ls).ready(uri) is None:
                return types.RelatedFullDocumentDiagnosticReport(items=[])
            return types.RelatedFullDocumentDiagnosticReport(items=current(ls, uri))
        except Exception as exc:  # a bug in one feature must not take the server down
            log.error("pull diagnostics failed: %s: %s", type(exc).__name__, exc)
            log.debug("traceback", exc_info=True)
            return types.RelatedFullDocumentDiagnosticReport(items=[])
