"""Where the server's log lines go: the client's output, one line per event.

:func:`install` (called once, by :func:`pi_lsp.lsp.features.create_server`) forwards the
``pi_lsp`` logger to the client as ``window/logMessage`` and keeps pygls's own logger to
one line per record on stderr, without tracebacks: a failure pygls answers for is logged
once, by :meth:`PiLanguageServer.report_server_error`.
"""

from __future__ import annotations

import contextlib
import logging
from typing import ClassVar

from lsprotocol import types

from .server import PiLanguageServer

log = logging.getLogger("pi_lsp")


class ClientLogHandler(logging.Handler):
    """Forward log records to the client as ``window/logMessage``."""

    _TYPES: ClassVar[dict[int, types.MessageType]] = {
        logging.ERROR: types.MessageType.Error,
        logging.WARNING: types.MessageType.Warning,
        logging.INFO: types.MessageType.Info,
    }

    def __init__(self, server: PiLanguageServer) -> None:
        super().__init__(logging.INFO)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        kind = self._TYPES.get(record.levelno, types.MessageType.Log)
        with contextlib.suppress(Exception):  # the transport may be gone during shutdown
            self.server.window_log_message(
                types.LogMessageParams(type=kind, message=self.format(record))
            )


class _Reported(logging.Filter):
    """Drop pygls's records of failures it also hands to ``report_server_error``."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.exc_info is None


def install(server: PiLanguageServer) -> None:
    """Send ``pi_lsp`` log lines to the client; keep pygls's to one line each on stderr."""
    for old in [h for h in log.handlers if isinstance(h, ClientLogHandler)]:
        log.removeHandler(old)
    handler = ClientLogHandler(server)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
    pygls_log = logging.getLogger("pygls")
    if not any(isinstance(f, _Reported) for h in pygls_log.handlers for f in h.filters):
        stderr = logging.StreamHandler()
        stderr.setLevel(logging.WARNING)
        stderr.addFilter(_Reported())
        stderr.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        pygls_log.addHandler(stderr)
        pygls_log.propagate = False
