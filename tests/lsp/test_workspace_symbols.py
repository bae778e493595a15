"""``workspace/symbol`` over session files that are not open, kept current by file events."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

pytestmark = pytest.mark.slow  # one server per case, each over a folder

SERVER = [sys.executable, "-m", "pi_lsp"]
CACHE = Path(tempfile.mkdtemp(prefix="pi-lsp-search-")) / "index.json"
ENV = {**os.environ, "PI_LSP_SEARCH_CACHE": str(CACHE)}


def _session(path: Path, ident: str, label: str, text: str) -> None:
    header = {"type": "session", "version": 3, "id": ident, "timestamp": "2025-01-01T00:00:00Z", "cwd": "/w"}
    entries = [
        {"type": "message", "id": f"{ident}01", "parentId": None, "timestamp": "2025-01-01T00:00:01Z",
         "message": {"role": "user", "content": text}},
        {"type": "label", "id": f"{ident}02", "parentId": f"{ident}01", "timestamp": "2025-01-01T00:00:02Z",
         "targetId": f"{ident}01", "label": label},
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(e) for e in [header, *entries]) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("workspace")
    _session(root / "a" / "one.jsonl", "aaaa", "release candidate", "please fix the flaky parser test")
    _session(root / "b" / "two.jsonl", "bbbb", "before refactor", "write the docs")
    return root


registrations: list[types.Registration] = []


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def client(lsp_client: LanguageClient, folder: Path):  # type: ignore[no-untyped-def]
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        registrations.extend(params.registrations)

    uri = from_fs_path(str(folder))
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            workspace_folders=[types.WorkspaceFolder(uri=uri or "", name="sessions")],
            process_id=None,
        )
    )
    yield
    await lsp_client.shutdown_session()


async def _query(client: LanguageClient, text: str, want: int = 1) -> list[Any]:
    """Query until at least ``want`` symbols come back (the index is built in the background)."""
    found: list[Any] = []
    for _ in range(100):
        found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=text)) or []
        if len(found) >= want:
            break
        await asyncio.sleep(0.1)
    return found


async def test_finds_by_id_prefix_and_label_in_files_not_open(client: LanguageClient, folder: Path) -> None:
    found = await _query(client, "bbbb0")
    assert [(s.location.uri, s.location.range.start.line) for s in found] == [
        (from_fs_path(str(folder / "b" / "two.jsonl")), 1),
        (from_fs_path(str(folder / "b" / "two.jsonl")), 2),
    ]
    assert found[0].name == "user: write the docs"
    by_label = await _query(client, "Release")
    assert [(Path(s.location.uri).name, s.location.range.start.line) for s in by_label] == [("one.jsonl", 1)]
    assert by_label[0].name.startswith("🏷 release candidate · user: please fix")
    words = await _query(client, "flaky fix")
    assert [Path(s.location.uri).name for s in words] == ["one.jsonl"]
    assert await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="")) == []


async def test_file_events_update_the_index(client: LanguageClient, folder: Path) -> None:
    await _query(client, "aaaa")  # indexed
    assert any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in registrations)
    assert CACHE.is_file()  # the first scan saved the index
    new = folder / "c" / "three.jsonl"
    _session(new, "cccc", "fresh", "a brand new session")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=from_fs_path(str(new)) or "", type=types.FileChangeType.Created)]
        )
    )
    assert [Path(s.location.uri).name for s in await _query(client, "cccc01")] == ["three.jsonl"]
    gone = folder / "a" / "one.jsonl"
    gone.unlink()
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=from_fs_path(str(gone)) or "", type=types.FileChangeType.Deleted)]
        )
    )
    for _ in range(50):
        if not await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="aaaa")):
            break
        await asyncio.sleep(0.1)
    assert await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="aaaa")) == []


AGENT_DIR = Path(tempfile.mkdtemp(prefix="pi-lsp-agent-"))
_session(AGENT_DIR / "sessions" / "--w--" / "s.jsonl", "dddd", "in pi's folder", "hello")


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER, server_env={**ENV, "PI_CODING_AGENT_DIR": str(AGENT_DIR)}
    )
)
async def bare_client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("neovim"), process_id=None, root_uri=None)
    )
    yield
    await lsp_client.shutdown_session()


async def test_without_folders_pis_sessions_folder_is_searched(bare_client: LanguageClient) -> None:
    found = await _query(bare_client, "pi's folder")
    assert [(Path(s.location.uri).name, s.location.range.start.line) for s in found] == [("s.jsonl", 1)]
