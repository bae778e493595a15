"""``workspace/diagnostic`` over a folder of sessions written by pi 1.6, through the real server.

The folder holds pi 1.6's two fixture sessions (clean) and a copy of one with a line cut
short (broken); none is opened. The first pull reports the broken one only, with what
``pi-lsp check --format json`` prints for it; a second pull answers "unchanged" for every
file; then pi appends a broken line to a clean session on disk, the client says so
(``workspace/didChangeWatchedFiles``), the server asks it to pull again
(``workspace/diagnostic/refresh``), and the next pull reports that file, and only it, anew.
An open document is reported from its live text. Skipped without ``../shared/fixtures``.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from .conftest import FIXTURES, SERVER

CLEAN = ["pi16-features.jsonl", "pi16-long.jsonl"]

pytestmark = pytest.mark.skipif(
    not all((FIXTURES / name).is_file() for name in CLEAN), reason="needs ../shared/fixtures"
)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "sessions" / "--work-project--"
    root.mkdir(parents=True)
    for name in CLEAN:
        shutil.copy(FIXTURES / name, root / name)
    lines = (FIXTURES / CLEAN[0]).read_text(encoding="utf-8").split("\n")
    lines[5] = lines[5][: len(lines[5]) // 2]  # a line cut short in the middle of the file
    (root / "broken.jsonl").write_text("\n".join(lines), encoding="utf-8")
    # a project's data file, no session: never listed as a broken one
    (tmp_path / "sessions" / "data.jsonl").write_text('{"x": 1}\n[1, 2]\n', encoding="utf-8")
    return tmp_path / "sessions"


@pytest.fixture
def events() -> dict[str, Any]:
    return {"registrations": [], "progress": {}}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, folder: Path, events: dict[str, Any]):  # type: ignore[no-untyped-def]
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        events["registrations"].extend(params.registrations)

    def progress(params: types.ProgressParams) -> None:  # partial results too (raw JSON)
        events["progress"].setdefault(params.token, []).append(params.value)

    lsp_client.protocol.fm.features[types.PROGRESS] = progress
    caps = client_capabilities("visual-studio-code")  # as VS Code 1.9x: pull diagnostics
    assert caps.text_document is not None and caps.workspace is not None
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(related_document_support=True)
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    events["initialized"] = await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(folder)) or "", name="s")],
            process_id=None,
        )
    )
    yield
    await lsp_client.shutdown_session()


def _check_json(path: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "pi_lsp", "check", "--format", "json", "--isolated", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    return json.loads(done.stdout)["files"][0]["diagnostics"]


def _wire(client: LanguageClient, items: list[types.Diagnostic]) -> list[dict[str, Any]]:
    return [client.protocol._converter.unstructure(d) for d in items]


async def _pull(
    client: LanguageClient, previous: dict[str, str] | None = None
) -> dict[str, Any]:
    report = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(
            previous_result_ids=[
                types.PreviousResultId(uri=u, value=v) for u, v in (previous or {}).items()
            ]
        )
    )
    return {r.uri: r for r in report.items}


def _ids(reports: dict[str, Any]) -> dict[str, str]:
    return {uri: r.result_id for uri, r in reports.items()}


async def test_the_broken_session_of_a_folder_nobody_opened_and_only_it(
    client: LanguageClient, folder: Path, events: dict[str, Any]
) -> None:
    caps = events["initialized"].capabilities
    assert caps.diagnostic_provider.workspace_diagnostics is True
    project = folder / "--work-project--"
    uri = {p.name: from_fs_path(str(p)) for p in [*project.iterdir(), folder / "data.jsonl"]}
    first = await _pull(client)
    assert set(first) == set(uri.values())
    assert all(r.kind == "full" for r in first.values())
    broken = first[uri["broken.jsonl"]]
    assert broken.items
    assert _wire(client, broken.items) == _check_json(project / "broken.jsonl")
    assert {name for name, u in uri.items() if first[u].items} == {"broken.jsonl"}
    # the files are watched from the first pull on
    assert any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in events["registrations"])

    second = await _pull(client, _ids(first))
    assert {r.kind for r in second.values()} == {"unchanged"}
    assert _ids(second) == _ids(first)

    # pi appends a line, cut short, to a clean session
    grown = project / CLEAN[1]
    with grown.open("a", encoding="utf-8") as f:
        f.write('{"type":"message","id":"feedbeef","parentId":')
    refreshes = client.diagnostic_refresh_count
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uri[CLEAN[1]], type=types.FileChangeType.Changed)]
        )
    )
    for _ in range(200):
        if client.diagnostic_refresh_count > refreshes:
            break
        await asyncio.sleep(0.05)
    assert client.diagnostic_refresh_count > refreshes
    third = await _pull(client, _ids(second))
    changed = {u for u, r in third.items() if r.kind == "full"}
    assert changed == {uri[CLEAN[1]]}
    assert [d.code for d in third[uri[CLEAN[1]]].items] == ["PI002"]
    assert _wire(client, third[uri[CLEAN[1]]].items) == _check_json(grown)

    # pi starts a new session, broken, and deletes one: the next pull shows both
    new = project / "2026-12-01T08-00-00-000Z_new.jsonl"
    shutil.copy(project / "broken.jsonl", new)
    (project / "broken.jsonl").unlink()
    refreshes = client.diagnostic_refresh_count
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=from_fs_path(str(new)) or "", type=types.FileChangeType.Created),
                types.FileEvent(uri=uri["broken.jsonl"], type=types.FileChangeType.Deleted),
            ]
        )
    )
    for _ in range(200):
        if client.diagnostic_refresh_count > refreshes:
            break
        await asyncio.sleep(0.05)
    fourth = await _pull(client, _ids(third))
    assert uri["broken.jsonl"] not in fourth
    assert fourth[from_fs_path(str(new))].kind == "full"
    assert {u for u, r in fourth.items() if r.kind == "full"} == {from_fs_path(str(new))}


async def test_an_open_document_is_reported_from_its_live_text(
    client: LanguageClient, folder: Path
) -> None:
    path = folder / "--work-project--" / "broken.jsonl"
    uri = from_fs_path(str(path)) or ""
    fixed = (FIXTURES / CLEAN[0]).read_text(encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="jsonl", version=7, text=fixed)
        )
    )
    reports = await _pull(client)
    assert list(reports[uri].items) == [] and reports[uri].version == 7
    assert len(reports) == 4
    # closed again, it is the file on disk that is reported
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    after = await _pull(client, _ids(reports))
    assert after[uri].kind == "full" and after[uri].version is None and after[uri].items


async def test_partial_results_and_progress_for_a_folder(
    client: LanguageClient, folder: Path, events: dict[str, Any]
) -> None:
    project = folder / "--work-project--"
    for n in range(9):  # enough files for the process pool
        shutil.copy(project / "broken.jsonl", project / f"copy{n}.jsonl")
    report = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(
            previous_result_ids=[], partial_result_token="partial", work_done_token="work"
        )
    )
    assert list(report.items) == []
    partial = events["progress"]["partial"]
    files = [item["uri"] for value in partial for item in value["items"]]
    assert sorted(files) == sorted(
        from_fs_path(str(p)) for p in [*project.iterdir(), folder / "data.jsonl"]
    )
    broken = [item for value in partial for item in value["items"] if item["items"]]
    assert len(broken) == 10
    # the same text, the same report (pool workers and the server thread agree)
    assert len({json.dumps([(d["code"], d["message"], d["range"]) for d in item["items"]]) for item in broken}) == 1
    kinds = [v["kind"] for v in events["progress"]["work"]]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds
