"""Settings (section ``piLsp``) from initializationOptions and workspace/configuration."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from lsprotocol import types

from pi_lsp.core.workspace.config_file import ConfigError, layered_settings
from pi_lsp.core.workspace.settings import Settings, parse_settings

from ..server import PiLanguageServer
from . import diagnostics

SECTION = "piLsp"
log = logging.getLogger("pi_lsp")


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
    if ls.adopt(_settings(ls, raw)):
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


def register(server: PiLanguageServer) -> None:
    """Register initialize / initialized / didChangeConfiguration handlers."""

    @server.feature(types.INITIALIZE)
    def initialize(ls: PiLanguageServer, params: types.InitializeParams) -> None:
        ls.initialization_options = params.initialization_options
        ls.adopt(_settings(ls, params.initialization_options))

    @server.feature(types.INITIALIZED)
    async def initialized(ls: PiLanguageServer, params: types.InitializedParams) -> None:
        ls.scheduler.start()  # the line checks compile in the background meanwhile
        try:
            await pull_settings(ls)
        except Exception as exc:  # the client's answer, not our bug: a warning
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
        except Exception as exc:  # the client's answer, not our bug: a warning
            log.warning("could not apply settings: %s", exc)
