"""Settings (section ``piLsp``) from initializationOptions and workspace/configuration,
and logging to the client's output instead of stdout.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path
from typing import Any, ClassVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from pi_lsp.core.config_file import ConfigError, layered_settings
from pi_lsp.core.settings import Settings, parse_settings

from . import diagnostics
from .safety import isolated
from .server import PiLanguageServer

SECTION = "piLsp"
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


def _section(raw: Any) -> Any:
    if isinstance(raw, dict) and SECTION in raw:
        return raw[SECTION]
    return raw


def _settings(ls: PiLanguageServer, raw: Any) -> Settings:
    """The client's settings over the ``pi-lsp.toml`` files found from the workspace folder."""
    section = _section(raw)
    settings, problems = parse_settings(section)
    for problem in problems:
        log.warning("piLsp settings: %s", problem)
    root = ls.workspace.root_path
    try:
        return layered_settings(Path(root) if root else None, section if isinstance(section, dict) else {})
    except ConfigError as exc:
        log.warning("%s", exc)
        return settings


def apply_settings(ls: PiLanguageServer, raw: Any) -> None:
    """Adopt new settings; re-analyse and re-publish open documents if they changed."""
    settings = _settings(ls, raw)
    if settings == ls.settings:
        return
    ls.settings = settings
    for doc in ls.documents.values():
        doc.set_options(ls.options)
    diagnostics.publish_all(ls)
    diagnostics.request_refresh(ls)


def _supports_configuration(ls: PiLanguageServer) -> bool:
    workspace = ls.client_capabilities.workspace
    return bool(workspace and workspace.configuration)


async def pull_settings(ls: PiLanguageServer) -> None:
    """Ask the client for section ``piLsp`` (if it supports workspace/configuration)."""
    if not _supports_configuration(ls):
        return
    result = await ls.workspace_configuration_async(
        types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
    )
    if result and result[0] is not None:
        apply_settings(ls, result[0])


class _NotARefusal(logging.Filter):
    """Drop pygls's tracebacks for errors a handler answers on purpose (JSON-RPC errors)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, JsonRpcException)


def _quiet_refusals() -> None:
    """pygls logs every error answer with its traceback; keep that for real failures only."""
    pygls_log = logging.getLogger("pygls")
    if not any(isinstance(h.filters[0] if h.filters else None, _NotARefusal) for h in pygls_log.handlers):
        stderr = logging.StreamHandler()
        stderr.setLevel(logging.WARNING)
        stderr.addFilter(_NotARefusal())
        pygls_log.addHandler(stderr)
        pygls_log.propagate = False


def register(server: PiLanguageServer) -> None:
    """Register initialize / initialized / didChangeConfiguration handlers."""
    _quiet_refusals()
    handler = ClientLogHandler(server)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False

    @server.feature(types.INITIALIZE)
    @isolated()
    def initialize(ls: PiLanguageServer, params: types.InitializeParams) -> None:
        ls.initialization_options = params.initialization_options
        ls.settings = _settings(ls, params.initialization_options)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: PiLanguageServer, params: types.InitializedParams) -> None:
        try:
            await pull_settings(ls)
        except Exception as exc:
            log.warning("could not read settings from the client: %s", exc)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: PiLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        try:
            if _supports_configuration(ls):
                await pull_settings(ls)
            else:
                apply_settings(ls, params.settings)
        except Exception as exc:
            log.warning("could not apply settings: %s", exc)
