"""The server's state (its *world*): open documents, settings, the scheduler, the reader.

:class:`PiLanguageServer` owns everything a handler reads: the open documents by URI, the
settings, the negotiated position encoding, the :class:`~pi_lsp.lsp.scheduler.Scheduler`,
the index of the workspace's session files (``workspace/symbol``), their diagnostics
(``workspace/diagnostic``),
and :meth:`PiLanguageServer.source`, the one way every command reads a session (the
open document, else the file on disk). Nothing here registers a feature or touches
process-wide state: :func:`pi_lsp.lsp.features.create_server` wires it all.

Document text is kept by the core (:class:`pi_lsp.core.checks.document.Document`), not by
pygls's workspace: pygls splits lines with ``str.splitlines``, which breaks at U+2028
and friends that pi writes raw inside JSON strings. :class:`PiProtocol` stops pygls from
keeping its own copy of each document, and answers a request whose params do not
deserialize with InvalidParams (pygls would leave it unanswered). On stdio, message bodies
are read whole and so that the decoder frees them
(:class:`~pi_lsp.lsp.transport.MessageReader`).

The error policy lives in :meth:`PiLanguageServer.report_server_error`: a bug in a
request handler is answered by pygls as an InternalError and logged here as one line; a
bug in a notification handler is logged, never shown as a popup; a deliberate error
answer (InvalidParams, RequestFailed, ContentModified) is not logged at all.
"""

from __future__ import annotations

import asyncio
import contextvars
import io
import logging
import sys
import threading
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, cast

from cattrs import transform_error
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage
from pygls.uris import to_fs_path

from pi_lsp import __version__
from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.checks.document import Document, Snapshot
from pi_lsp.core.entries.model import Analysis, Options
from pi_lsp.core.text import textedit as edits
from pi_lsp.core.text.findings import Finding
from pi_lsp.core.text.lineindex import Encoding, SplitText, Stored
from pi_lsp.core.workspace.settings import Settings

from .scheduler import Scheduler
from .transport import FullTexts, MessageReader, encode
from .workspace_index import WorkspaceIndex
from .workspace_reports import WorkspaceReports

log = logging.getLogger("pi_lsp")

_ENCODINGS: dict[str, Encoding] = {
    types.PositionEncodingKind.Utf8: "utf-8",
    types.PositionEncodingKind.Utf16: "utf-16",
    types.PositionEncodingKind.Utf32: "utf-32",
}

_method: contextvars.ContextVar[str] = contextvars.ContextVar("pi_lsp_method", default="?")
"""The method of the message being handled (for the one log line of a failure)."""


@dataclass(frozen=True, slots=True)
class _Malformed:
    """A request or notification whose params do not deserialize."""

    id: int | str | None
    method: str
    problem: str


class PiProtocol(LanguageServerProtocol):
    """Language server protocol that leaves document text to the core.

    ``full_texts`` is what the message decoder (:mod:`pi_lsp.lsp.transport`) keeps to
    decode a full-text append from its end.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.full_texts = FullTexts()

    def structure_message(self, data: dict[str, Any]) -> Any:
        """Structure a message; a request or notification that fails becomes :class:`_Malformed`."""
        if "jsonrpc" not in data or "method" not in data or "error" in data:
            return super().structure_message(data)
        method = str(data["method"])
        kind = self.get_message_type(method) or (
            JsonRPCRequestMessage if "id" in data else JsonRPCNotification
        )
        try:
            return self._converter.structure(data, kind)
        except Exception as exc:
            ident = data.get("id")
            ok = isinstance(ident, int | str) and not isinstance(ident, bool)
            problem = (
                "; ".join(transform_error(exc, path="$"))
                if hasattr(exc, "exceptions")
                else str(exc)
            )
            return _Malformed(ident if ok else None, method, problem)

    def handle_message(self, message: Any) -> None:
        """Answer a malformed request with InvalidParams; hand the rest to pygls."""
        if isinstance(message, _Malformed):
            log.warning("%s: params do not deserialize (%s)", message.method, message.problem)
            if message.id is not None:
                error = JsonRpcInvalidParams(f"{message.method}: {message.problem}")
                self._send_response(message.id, error=error.to_response_error())
            return
        _method.set(str(getattr(message, "method", "?")))
        super().handle_message(message)

    def _send_data(self, data: Any) -> None:
        """Send a message as pygls does, its body encoded by :func:`~pi_lsp.lsp.transport.encode`."""
        if not data:
            return
        if self.writer is None:
            log.error("cannot send a message: there is no transport")
            return
        try:
            body = encode(data, self._serialize_message)
            header = (
                f"Content-Length: {len(body)}\r\n"
                f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            )
            # both writers the server uses (stdout, an asyncio stream) write at once
            self.writer.write(header.encode("ascii") + body if self._include_headers else body)
        except BrokenPipeError:
            raise
        except Exception as error:
            self._server._report_server_error(error, JsonRpcInternalError)

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
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        server = self._server
        if isinstance(server, PiLanguageServer) and not server.offers_pull():
            result.capabilities.diagnostic_provider = None
        return result


@dataclass(frozen=True, slots=True)
class Source:
    """A session a command works on: an open document's current analysis, or a file's.

    ``version`` is the open document's version (None for a file read from disk, whose
    ``stamp`` then lets a write refuse a file that changed since it was read).
    """

    uri: str
    analysis: Analysis
    path: str | None
    version: int | None = None
    stamp: edits.Snapshot | None = None

    @property
    def is_open(self) -> bool:
        """True for an open document (edits go through the client)."""
        return self.stamp is None

    @property
    def text(self) -> SplitText:
        """The text the analysis is of."""
        return self.analysis.text


Converted = tuple[Finding, types.Diagnostic, tuple[Stored | None, ...]]
"""A finding, the diagnostic it was converted to, and the stored line objects its ranges
lie on."""


class PiLanguageServer(LanguageServer):
    """The server and its state: documents, settings, encoding, scheduler, reader."""

    def __init__(self) -> None:
        super().__init__(
            "pi-lsp",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=PiProtocol,
        )
        self.documents: dict[str, Document] = {}
        self.settings = Settings()
        self.settings_generation = 0
        self.initialization_options: Any = None
        self.scheduler = Scheduler(self.documents)
        self.workspace_index: WorkspaceIndex | None = None
        self.workspace_reports: WorkspaceReports | None = None
        self.watching: asyncio.Task[None] | None = None  # the request to watch session files
        # per open document: the diagnostic of each finding last converted, under a key
        # naming the encoding and settings (diagnostics.items reuses them)
        self.converted: dict[str, tuple[Any, dict[int, Converted]]] = {}

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

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve on stdin and stdout: pygls's loop over messages, with a reader that reads
        each message whole (on a pipe, in the event loop), its body so the decoder can free
        it (:class:`~pi_lsp.lsp.transport.MessageReader`)."""
        stream = cast(io.BufferedIOBase, stdin or sys.stdin.buffer)
        reader = MessageReader(stream, self.thread_pool)
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(
                run_async(
                    stop_event=self._stop_event,
                    reader=cast(Any, reader),  # its bodies are bytearrays: the decoder empties them
                    protocol=self.protocol,
                    logger=log,
                    error_handler=self.report_server_error,
                )
            )
        except BrokenPipeError:
            log.error("the connection to the client is lost: shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    @property
    def full_texts(self) -> FullTexts:
        """What the message decoder keeps of the documents' texts (see :class:`PiProtocol`)."""
        return cast(PiProtocol, self.protocol).full_texts

    def client_pulls(self) -> bool:
        """True when the client asks for diagnostics itself (``textDocument/diagnostic``) and
        can be asked to ask again (``workspace/diagnostic/refresh``) when settings change them.

        A client that pulls but cannot refresh (Neovim 0.11/0.12) would keep showing what a
        settings change removed: in ``auto`` mode it gets pushed diagnostics instead, and no
        ``diagnosticProvider`` (see :meth:`offers_pull`), so it does not show them twice.
        """
        text_document = self.client_capabilities.text_document
        workspace = self.client_capabilities.workspace
        refresh = workspace.diagnostics if workspace else None
        return bool(
            text_document and text_document.diagnostic and refresh and refresh.refresh_support
        )

    def offers_pull(self) -> bool:
        """Whether to advertise ``diagnosticProvider`` (decided at initialize)."""
        mode = self.settings.diagnostic_mode
        return mode in ("pull", "both") or (mode == "auto" and self.client_pulls())

    def adopt(self, settings: Settings) -> bool:
        """Take new settings; True when they differ (open documents then re-analyse)."""
        if settings == self.settings:
            return False
        self.settings = settings
        self.settings_generation += 1
        for doc in self.documents.values():
            doc.set_options(self.options)
        return True

    def snapshot(self, uri: str) -> Snapshot | None:
        """The newest snapshot of the open document ``uri`` (never waits)."""
        doc = self.documents.get(uri)
        return doc.snapshot() if doc is not None else None

    async def source(self, uri: Any) -> Source:
        """The session at ``uri``: the open document (its current analysis), else the file.

        Raises InvalidParams when ``uri`` is no string, names no open document and no
        readable regular file (a FIFO or a device is refused, never waited on).
        """
        if not isinstance(uri, str):
            raise JsonRpcInvalidParams("the first argument must be the document URI")
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if uri in self.documents:
            analysis = await self.scheduler.current(uri)
            doc = self.documents.get(uri)
            if analysis is None or doc is None:
                raise JsonRpcException(
                    message=f"{uri} was closed, or could not be analysed (see the log)",
                    code=types.LSPErrorCodes.RequestFailed,
                )
            return Source(uri, analysis, path, doc.version)
        if path is None:
            raise JsonRpcInvalidParams(f"{uri} is not open and not a file")
        options = self.options
        return await self.scheduler.compute(lambda: _read(uri, path, options))

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log a failure in one line (a deliberate error answer is not a failure)."""
        if isinstance(error, JsonRpcException) and not isinstance(error, JsonRpcInternalError):
            return
        log.error("%s failed: %s", _method.get(), error)
        trace = getattr(error, "data", None)
        if isinstance(trace, dict) and trace.get("traceback"):
            log.debug("traceback:\n%s", "".join(trace["traceback"]))


def _read(uri: str, path: str, options: Options) -> Source:
    """A file on disk as a :class:`Source` (runs in a worker thread)."""
    try:
        text, stamp = edits.read_snapshot(Path(path))
    except OSError as exc:
        raise JsonRpcInvalidParams(f"cannot read {path}: {exc.strerror or exc}") from exc
    return Source(uri, analyze(text, path, options), path, None, stamp)
