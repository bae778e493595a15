"""Diagnostics: answered on pull, and pushed after every open/change (with the document version)
to clients that do not pull (setting ``diagnosticMode``: auto, push, pull or both).

Analyses run off the event loop (:mod:`pi_lsp.lsp.scheduler`); :func:`refresh` asks for
one and the scheduler calls :func:`publish` once the *current* text is analysed, with the
diagnostics :func:`prepare` converted in the analysis thread, so diagnostics are only ever
published for the latest version (then :func:`warm` precomputes the reference index and
session totals in the background, for the requests that follow). Pushed, pulled and ``pi-lsp check --format json`` diagnostics come from the
same function, so they are identical for the same text. A pull answers ``unchanged``
when the client already has the diagnostics of this analysis under these settings.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

from lsprotocol import types

from pi_lsp.core.checks.document import Document, Snapshot
from pi_lsp.core.checks.line_checks import prepare_checks
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.pi.loading import CURRENT_VERSION
from pi_lsp.core.text.findings import Finding
from pi_lsp.core.text.lineindex import Lines, Stored
from pi_lsp.core.views import describe, refs

from .. import proto, requests, wire
from ..server import PiLanguageServer


def ahead(stop: Callable[[], bool]) -> None:
    """At start, until ``stop()`` (a document opened): compile the line checks of the
    format today's pi writes (jsonschema-rs and its validators), which the first analysis
    would otherwise wait for."""
    prepare_checks("pi", CURRENT_VERSION, stop)


def warm(analysis: Analysis) -> None:
    """Precompute, per analysis, what hover, definition and references look up first.

    The totals first: counting them takes more memory for the moment than the index keeps,
    so the index is not held while they are counted."""
    describe.session_totals(analysis)
    refs.index(analysis)


def items(ls: PiLanguageServer, snap: Snapshot) -> list[types.Diagnostic]:
    """The diagnostics of a snapshot's analysis under the current settings.

    A finding an analysis kept from the previous one (the same object) keeps the
    diagnostic it was converted to, under the same encoding and settings, while the lines
    its ranges lie on are the same stored line objects (unchanged text: the same code units);
    only the others are converted.
    """
    lines = snap.analysis.lines
    findings = ls.settings.apply(snap.analysis.findings)
    key = (ls.encoding, ls.settings_generation)
    old_key, known = ls.converted.get(snap.uri, (None, {}))
    if old_key != key:
        known = {}
    wheres = [_range_lines(f, lines) for f in findings]
    reused: list[types.Diagnostic | None] = []
    for f, where in zip(findings, wheres, strict=True):
        found = known.get(id(f))
        same = found is not None and found[0] is f and all(map(operator.is_, found[2], where))
        reused.append(found[1] if same and found is not None else None)
    fresh = [f for f, d in zip(findings, reused, strict=True) if d is None]
    made = iter(proto.from_wire(wire.diagnostics(fresh, lines, snap.uri, ls.encoding)))
    out = [d if d is not None else next(made) for d in reused]
    if snap.uri in ls.documents:
        ls.converted[snap.uri] = (
            key,
            {id(f): (f, d, w) for f, d, w in zip(findings, out, wheres, strict=True)},
        )
    return out


def _range_lines(f: Finding, lines: Lines) -> tuple[Stored | None, ...]:
    """The stored line objects a finding's range and its related ranges in this file lie on."""
    spans = [f.span, *(r.span for r in f.related if r.path is None)]
    return tuple(lines.raw(s.line) if 0 <= s.line < len(lines) else None for s in spans)


def result_id(ls: PiLanguageServer, snap: Snapshot) -> str:
    """Names the diagnostics of one analysis under one set of settings."""
    return f"{snap.version}.{snap.serial}.{ls.settings_generation}"


def refresh(ls: PiLanguageServer, uri: str) -> None:
    """Analyse ``uri`` in the background, then publish its diagnostics."""
    ls.scheduler.schedule(uri)


def pushes(ls: PiLanguageServer) -> bool:
    """Whether diagnostics are pushed: a client that pulls would otherwise show them twice."""
    mode = ls.settings.diagnostic_mode
    if mode == "auto":
        return not ls.client_pulls()
    return mode in ("push", "both")


def request_refresh(ls: PiLanguageServer) -> None:
    """Ask a pulling client to pull again (after settings changed what is reported)."""
    workspace = ls.client_capabilities.workspace
    diagnostics = workspace.diagnostics if workspace else None
    if diagnostics and diagnostics.refresh_support and ls.settings.diagnostic_mode != "push":
        ls.workspace_diagnostic_refresh(None)


Prepared = tuple[Snapshot, list[types.Diagnostic]]
"""Diagnostics converted in the analysis thread, with the snapshot they are of."""


def prepare(ls: PiLanguageServer, doc: Document) -> Prepared | None:
    """In the analysis thread, right after ``doc``'s current text was analysed: the
    diagnostics to push (None when the client pulls them)."""
    snap = doc.snapshot()
    if not pushes(ls) or snap is None or not snap.current:
        return None
    return snap, items(ls, snap)


def publish(ls: PiLanguageServer, uri: str, prepared: Prepared | None = None) -> None:
    """Push the diagnostics of ``uri`` for its current version (unless the client pulls):
    those ``prepared`` when they are of the current text, else converted in a request
    thread."""
    if not pushes(ls):
        return
    if prepared is not None and _unchanged(ls, uri, prepared[0]):
        _send(ls, uri, *prepared)
    else:
        ls.scheduler.spawn(_push(ls, uri))


async def _push(ls: PiLanguageServer, uri: str) -> None:
    snap = ls.snapshot(uri)
    if snap is None or not snap.current:
        return
    found = await ls.scheduler.compute(lambda: items(ls, snap))
    if _unchanged(ls, uri, snap):  # else the next analysis publishes
        _send(ls, uri, snap, found)


def _unchanged(ls: PiLanguageServer, uri: str, snap: Snapshot) -> bool:
    """Whether ``snap`` still shows the current text of ``uri`` with its newest analysis."""
    now = ls.snapshot(uri)
    return now is not None and now.text is snap.text and now.serial == snap.serial


def _send(ls: PiLanguageServer, uri: str, snap: Snapshot, found: list[types.Diagnostic]) -> None:
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, version=snap.version, diagnostics=found)
    )


def publish_all(ls: PiLanguageServer) -> None:
    """Re-analyse (in the background) and re-publish every open document."""
    for uri in list(ls.documents):
        refresh(ls, uri)


def clear(ls: PiLanguageServer, uri: str) -> None:
    """Remove the diagnostics of a closed document."""
    ls.converted.pop(uri, None)
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
    ) -> types.DocumentDiagnosticReport:
        def work(snap: Snapshot, frame: proto.Frame) -> types.DocumentDiagnosticReport:
            rid = result_id(ls, snap)
            if params.previous_result_id == rid:
                return types.RelatedUnchangedDocumentDiagnosticReport(result_id=rid)
            return types.RelatedFullDocumentDiagnosticReport(items=items(ls, snap), result_id=rid)

        found = await requests.on_current(ls, params.text_document.uri, work)
        return found or types.RelatedFullDocumentDiagnosticReport(items=[])
