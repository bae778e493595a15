"""``workspace/diagnostic``: the problems of every session file of the workspace, open or not.

The files are the ``*.jsonl`` under :func:`~pi_lsp.lsp.watched_files.roots` (the
``piLsp.sessionsFolder`` setting, the workspace folders, or pi's sessions folder). A pull:

- lists the files and their stamps (size, modification time) in a request thread;
- answers ``unchanged`` for a file whose stamp and settings are those of the resultId the
  client sent, without reading it; a file whose diagnostics are cached for its stamp is
  answered from the cache; the rest are analysed off the event loop (many at once in a
  process pool, :class:`~pi_lsp.lsp.workspace_reports.WorkspaceReports`), with work-done
  progress and, when the client asked for them, partial results of :data:`BATCH` files;
- reports an open document from its live text (the same items as its document pull).

A file's diagnostics are what ``pi-lsp check --format json`` prints for it under the same
settings. The first pull asks the client to watch the files; when one changes
(``workspace/didChangeWatchedFiles``) it is re-analysed at once (from its previous
analysis when pi only appended to it) and the client is asked to pull again
(``workspace/diagnostic/refresh``), or, if it does not pull, gets them pushed.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field

from lsprotocol import types
from pygls.uris import to_fs_path

from pi_lsp.core.checks.document import Snapshot
from pi_lsp.core.text.files import Stamp

from .. import proto, requests, watched_files
from ..server import PiLanguageServer
from ..wire import path_uri
from ..workspace_reports import FileState, WorkspaceReports, result_id
from . import diagnostics

BATCH = 25
"""File reports per partial result."""

Report = types.WorkspaceFullDocumentDiagnosticReport | types.WorkspaceUnchangedDocumentDiagnosticReport


def reports_of(ls: PiLanguageServer) -> WorkspaceReports:
    """The server's workspace reports (made anew when the folders changed); watch the files."""
    roots = watched_files.roots(ls)
    if ls.workspace_reports is None or ls.workspace_reports.roots != roots:
        ls.workspace_reports = WorkspaceReports(roots)
    watched_files.ensure_watching(ls, roots)
    return ls.workspace_reports


@dataclass(frozen=True, slots=True)
class _Listed:
    """A file found under the roots: its path, URI, stamp, and the open document's URI."""

    path: str
    uri: str
    stamp: Stamp | None
    opened: str | None


def _list(reports: WorkspaceReports, opened: dict[str, str]) -> list[_Listed]:
    """Every file of the workspace (runs in a request thread: it stats each file)."""
    out = []
    for path, found in reports.listing():
        out.append(_Listed(path, path_uri(path), found, opened.get(os.path.realpath(path))))
    return out


def _full(uri: str, state: FileState) -> types.WorkspaceFullDocumentDiagnosticReport:
    return types.WorkspaceFullDocumentDiagnosticReport(
        uri=uri,
        version=None,
        items=proto.from_wire(state.items),
        result_id=result_id(state.stamp, state.generation),
    )


@dataclass(slots=True)
class _Sink:
    """Collects file reports; sends them as partial results when the client asked for them."""

    ls: PiLanguageServer
    token: types.ProgressToken | None
    items: list[Report] = field(default_factory=list)

    def add(self, report: Report) -> None:
        self.items.append(report)
        if self.token is not None and len(self.items) >= BATCH:
            self.flush()

    def flush(self) -> None:
        if self.token is not None and self.items:
            self.ls.progress(
                types.ProgressParams(
                    token=self.token,
                    value=types.WorkspaceDiagnosticReportPartialResult(items=self.items),
                )
            )
            self.items = []

    def result(self) -> types.WorkspaceDiagnosticReport:
        self.flush()
        return types.WorkspaceDiagnosticReport(items=self.items)


async def _open_report(ls: PiLanguageServer, uri: str, previous: str | None) -> Report | None:
    """An open document's report, from the analysis of its current text."""

    def work(snap: Snapshot, frame: proto.Frame) -> Report:
        rid = "open." + diagnostics.result_id(ls, snap)
        if previous == rid:
            return types.WorkspaceUnchangedDocumentDiagnosticReport(
                uri=uri, version=snap.version, result_id=rid
            )
        return types.WorkspaceFullDocumentDiagnosticReport(
            uri=uri, version=snap.version, items=diagnostics.items(ls, snap), result_id=rid
        )

    return await requests.on_current(ls, uri, work)


async def _analyse(
    ls: PiLanguageServer,
    reports: WorkspaceReports,
    stale: list[_Listed],
    sink: _Sink,
    token: types.ProgressToken | None,
) -> None:
    """Analyse ``stale`` files off the loop; each report goes to ``sink`` as it is done."""
    loop = asyncio.get_running_loop()
    done: asyncio.Queue[tuple[str, FileState | None] | None] = asyncio.Queue()
    settings, encoding, generation = ls.settings, ls.encoding, ls.settings_generation
    by_path = {f.path: f for f in stale}

    def run() -> None:
        try:
            for report in reports.analyse_all(list(by_path), settings, encoding):
                state = reports.store(report, generation)
                loop.call_soon_threadsafe(done.put_nowait, (report.path, state))
        finally:
            loop.call_soon_threadsafe(done.put_nowait, None)

    if token is not None:
        ls.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title="pi-lsp: checking sessions", message=f"0 of {len(stale)}", percentage=0
            ),
        )
    work = ls.scheduler.compute(run)
    count = 0
    try:
        while (finished := await done.get()) is not None:
            count += 1
            path, state = finished
            if state is not None:
                sink.add(_full(by_path[path].uri, state))
            if token is not None:
                ls.work_done_progress.report(
                    token,
                    types.WorkDoneProgressReport(
                        message=f"{count} of {len(stale)}", percentage=100 * count // len(stale)
                    ),
                )
        await work  # a failure of the batch is the request's failure
    finally:
        if token is not None:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))


async def pull(
    ls: PiLanguageServer, params: types.WorkspaceDiagnosticParams
) -> types.WorkspaceDiagnosticReport:
    """Answer one ``workspace/diagnostic`` request (see the module docstring)."""
    reports = reports_of(ls)
    previous = {p.uri: p.value for p in params.previous_result_ids}
    opened = {
        os.path.realpath(path): uri
        for uri in ls.documents
        if uri.startswith("file:") and (path := to_fs_path(uri))
    }
    listed = await ls.scheduler.compute(lambda: _list(reports, opened))
    sink = _Sink(ls, params.partial_result_token)
    generation = ls.settings_generation
    stale: list[_Listed] = []
    for f in listed:
        if f.opened is not None:
            report = await _open_report(ls, f.opened, previous.get(f.opened))
            if report is not None:
                sink.add(report)
        elif f.stamp is not None:
            rid = result_id(f.stamp, generation)
            state = reports.known(f.path, f.stamp, generation)
            if previous.get(f.uri) == rid:
                sink.add(types.WorkspaceUnchangedDocumentDiagnosticReport(uri=f.uri, version=None, result_id=rid))
            elif state is not None:
                sink.add(_full(f.uri, state))
            else:
                stale.append(f)
    if stale:
        await _analyse(ls, reports, stale, sink, params.work_done_token)
    return sink.result()


async def follow(ls: PiLanguageServer, changed: list[str], deleted: list[str]) -> None:
    """Session files changed on disk: re-analyse them now, then have the client see it."""
    reports = ls.workspace_reports
    if reports is None:  # nobody pulled workspace diagnostics yet
        return
    settings, encoding, generation = ls.settings, ls.encoding, ls.settings_generation
    opened = {os.path.realpath(p) for u in ls.documents if u.startswith("file:") and (p := to_fs_path(u))}
    touched: dict[str, FileState | None] = {}
    for path in deleted:
        if reports.covers(path):
            reports.forget(path)
            touched[path] = None
    for path in changed:
        if reports.covers(path):
            reports.created(path)
        if reports.covers(path) and os.path.realpath(path) not in opened:
            touched[path] = await ls.scheduler.compute(
                lambda p=path: reports.follow(p, settings, encoding, generation)  # type: ignore[misc]
            )
    if not touched:
        return
    if ls.client_pulls() and ls.settings.diagnostic_mode != "push":
        diagnostics.request_refresh(ls)
    elif diagnostics.pushes(ls):
        for path, state in touched.items():
            items = proto.from_wire(state.items) if state is not None else []
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=path_uri(path), diagnostics=items)
            )


def register(server: PiLanguageServer) -> None:
    """Register workspace/diagnostic and workspace/didChangeWatchedFiles."""

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    async def workspace_diagnostic(
        ls: PiLanguageServer, params: types.WorkspaceDiagnosticParams
    ) -> types.WorkspaceDiagnosticReport:
        return await pull(ls, params)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched_files(
        ls: PiLanguageServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        changed: list[str] = []
        deleted: list[str] = []
        for event in params.changes:
            path = to_fs_path(event.uri)
            if path:
                (deleted if event.type == types.FileChangeType.Deleted else changed).append(path)
        index = ls.workspace_index
        if index is not None:  # no index yet: the first query will scan anyway
            await ls.scheduler.compute(lambda: index.update(changed, deleted))
        await follow(ls, changed, deleted)
