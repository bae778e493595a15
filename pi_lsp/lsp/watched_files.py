"""The session files of the workspace on disk: which folders, and following their changes.

:func:`roots` says which folders the workspace features cover (``workspace/symbol``,
``workspace/diagnostic``): the ``piLsp.sessionsFolder`` setting, else the workspace
folders, else pi's sessions folder. :func:`ensure_watching` asks the client, once, to
report changes of ``**/*.jsonl`` there (dynamic registration, where the client supports
it); :mod:`pi_lsp.lsp.features.workspace_diagnostics` handles ``workspace/didChangeWatchedFiles``
(the search index and the workspace diagnostics follow the files).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from pi_lsp.core.text.files import sessions_dir

from .server import PiLanguageServer

log = logging.getLogger("pi_lsp")


def roots(ls: PiLanguageServer) -> list[Path]:
    """The folders whose session files the workspace features cover."""
    if ls.settings.sessions_folder:
        return [Path(ls.settings.sessions_folder).expanduser()]
    folders = [to_fs_path(f.uri) for f in ls.workspace.folders.values()]
    if not folders and ls.workspace.root_uri:
        folders = [to_fs_path(ls.workspace.root_uri)]
    found = [Path(f) for f in folders if f]
    return found or [sessions_dir()]


def ensure_watching(ls: PiLanguageServer, folders: list[Path]) -> None:
    """Ask the client (once, in the background) to report changes of session files there."""
    if ls.watching is None:
        ls.watching = asyncio.get_running_loop().create_task(_watch(ls, folders))


async def _watch(ls: PiLanguageServer, folders: list[Path]) -> None:
    ws = ls.client_capabilities.workspace
    watched = ws.did_change_watched_files if ws else None
    if not (watched and watched.dynamic_registration):
        return
    relative = bool(watched.relative_pattern_support)
    watchers = [
        types.FileSystemWatcher(
            glob_pattern=types.RelativePattern(
                base_uri=from_fs_path(str(root)) or "", pattern="**/*.jsonl"
            )
            if relative
            else "**/*.jsonl"
        )
        for root in (folders if relative else folders[:1])
    ]
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="pi-lsp-session-files",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=types.DidChangeWatchedFilesRegistrationOptions(
                            watchers=watchers
                        ),
                    )
                ]
            )
        )
    except Exception as exc:
        log.warning("the client does not watch session files (%s); rescanning instead", exc)
