"""Where the server's settings come from (issue 16): pi-lsp.toml under the client's settings,
and clients that pull diagnostics but cannot be asked to pull again (Neovim 0.11/0.12).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from .conftest import SERVER

WORKSPACE = Path(tempfile.mkdtemp(prefix="pi-lsp-settings-"))
(WORKSPACE / "pi-lsp.toml").write_text(
    'ignore = ["PI401"]\n[severity]\nPI4 = "warning"\n', encoding="utf-8"
)
ENV = {**os.environ, "XDG_CONFIG_HOME": str(WORKSPACE / "no-user-config")}
HEADER = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}'
TEXT = "\n".join(
    [
        HEADER,
        '{"type":"message","id":"a1","parentId":"ghost","timestamp":"t",'
        '"message":{"role":"user","content":"hi","timestamp":1}}',
        '{"type":"message","id":"a1","parentId":null,"timestamp":"t",'
        '"message":{"role":"user","content":"again","timestamp":1}}',
        "",
    ]
)
URI = (WORKSPACE / "s.jsonl").as_uri()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def neovim(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    """Neovim 0.11's capabilities (pull, no refresh), the workspace above, no options."""
    result = await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("neovim"),
            root_uri=WORKSPACE.as_uri(),
            process_id=None,
        )
    )
    lsp_client.result = result  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def _pushed(client: LanguageClient) -> list[tuple[str, int]]:
    params = await asyncio.wait_for(
        client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 60
    )
    assert params.uri == URI
    return [(str(d.code), int(d.severity or 0)) for d in params.diagnostics]


async def test_a_client_that_cannot_refresh_gets_pushes_that_follow_settings(
    neovim: LanguageClient,
) -> None:
    result: types.InitializeResult = neovim.result  # type: ignore[attr-defined]
    assert result.capabilities.diagnostic_provider is None  # so it shows nothing twice
    neovim.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=URI, language_id="jsonl", version=1, text=TEXT)
        )
    )
    # pi-lsp.toml of the workspace: PI401 ignored, PI400 a warning
    assert await _pushed(neovim) == [("PI400", 2)]
    # what `c:notify('workspace/didChangeConfiguration', ...)` does in Neovim: the shown
    # diagnostics change at once, the file's ignore still applies under the client's settings
    for settings, shown in [
        ({"severity": {"PI400": "hint"}}, [("PI400", 4)]),
        ({"ignore": ["PI400"]}, []),
    ]:
        neovim.set_configuration({"piLsp": settings})  # c.settings.piLsp = ...
        neovim.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"piLsp": settings})
        )
        assert await _pushed(neovim) == shown
