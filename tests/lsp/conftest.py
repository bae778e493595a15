"""End-to-end fixtures: a pytest-lsp client driving ``python -m pi_lsp`` as a subprocess.

``client`` speaks with Visual Studio Code's capabilities (UTF-16); ``nvim_client`` with
Neovim's, and ``utf8_client`` offers only UTF-8 positions. They all ask for diagnostics
both pushed and pulled (``diagnosticMode: both``); the default mode is tested on its own.
:func:`open_document` opens a text and waits for its first pushed diagnostics.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SERVER = [sys.executable, "-m", "pi_lsp"]
FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"

OpenDoc = Callable[..., Awaitable[list[types.Diagnostic]]]


BOTH = {"diagnosticMode": "both"}
"""Push and pull at once, so tests can wait for pushed diagnostics and compare with pulled."""


async def _start(
    client: LanguageClient, capabilities: types.ClientCapabilities, options: object = BOTH
) -> None:
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=None,
            process_id=None,
            initialization_options=options,
        )
    )


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    """A client with VS Code's capabilities."""
    await _start(lsp_client, client_capabilities("visual-studio-code"))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def nvim_client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    """A client with Neovim's capabilities."""
    await _start(lsp_client, client_capabilities("neovim"))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def utf8_client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    """A client that offers only UTF-8 positions."""
    caps = client_capabilities("visual-studio-code")
    caps.general = types.GeneralClientCapabilities(
        position_encodings=[types.PositionEncodingKind.Utf8]
    )
    await _start(lsp_client, caps)
    yield
    await lsp_client.shutdown_session()


async def open_document(
    client: LanguageClient,
    text: str,
    uri: str = "file:///tmp/pi-lsp-test/session.jsonl",
    version: int = 1,
) -> list[types.Diagnostic]:
    """Open ``text`` at ``uri`` and return the diagnostics published for it."""
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="jsonl", version=version, text=text
            )
        )
    )
    while True:
        params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == uri:
            return list(params.diagnostics)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def basic_client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    """A client that declares no capabilities at all (plain Locations, flat symbols, ...)."""
    await _start(lsp_client, types.ClientCapabilities())
    yield
    await lsp_client.shutdown_session()


async def change_all(
    client: LanguageClient, uri: str, text: str, version: int
) -> list[types.Diagnostic]:
    """Replace the document's text and return the diagnostics published for it."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    while True:
        params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == uri and params.version == version:
            return list(params.diagnostics)
