"""Hostile clients: odd documents and URIs, notifications out of order, garbage settings
and command arguments, and files on disk that are not regular files.

Invariants: every request answers (a result or a JSON-RPC error other than an internal
error), the server never writes a file it was not asked to, never blocks on a special
file, and keeps answering afterwards.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from . import hostile, invariants
from .lspclient import LspClient, ResponseError, ServerHang, start_stdio
from .snapshots import changes, snapshot

INTERNAL_ERROR = -32603
ODD_URIS = [
    "file:///tmp/pi-lsp-robustness/never-opened.jsonl",
    "untitled:Untitled-1",
    "http://example.com/s.jsonl",
    "file:///tmp/pi-lsp-robustness/with%20space%00nul.jsonl",
    "file:///tmp/pi-lsp-robustness/%F0%9F%9A%80%E2%80%A8.jsonl",
    "file:///tmp/pi-lsp-robustness/" + "x" * 4000 + ".jsonl",
    "file://remote-host/share/s.jsonl",
    "not a uri at all",
    "",
]


def _alive(client: LspClient, uri: str, timeout: float = 5.0) -> None:
    """The server still answers (a hover, or a pull of diagnostics)."""
    method = (
        "textDocument/hover"
        if client.capabilities.get("hoverProvider")
        else "textDocument/diagnostic"
    )
    params: dict[str, Any] = {"textDocument": {"uri": uri}}
    if method == "textDocument/hover":
        params["position"] = {"line": 0, "character": 0}
    client.request(method, params, timeout=timeout)


def _ask(client: LspClient, method: str, params: Any) -> str | None:
    try:
        client.request(method, params)
    except ResponseError as err:
        if err.code == INTERNAL_ERROR:
            return f"{method}: internal error {err}"
    except ServerHang as exc:
        return f"{method}: {exc}"
    return None


def _every_request(client: LspClient, uri: str) -> list[str]:
    caps = client.capabilities
    doc = {"textDocument": {"uri": uri}}
    at = {**doc, "position": {"line": 0, "character": 3}}
    rng = {"start": {"line": 0, "character": 0}, "end": {"line": 3, "character": 0}}
    calls = [
        ("hoverProvider", "textDocument/hover", at),
        ("definitionProvider", "textDocument/definition", at),
        (
            "referencesProvider",
            "textDocument/references",
            {**at, "context": {"includeDeclaration": True}},
        ),
        ("documentSymbolProvider", "textDocument/documentSymbol", doc),
        ("foldingRangeProvider", "textDocument/foldingRange", doc),
        ("documentLinkProvider", "textDocument/documentLink", doc),
        ("codeLensProvider", "textDocument/codeLens", doc),
        ("completionProvider", "textDocument/completion", at),
        (
            "selectionRangeProvider",
            "textDocument/selectionRange",
            {**doc, "positions": [at["position"]]},
        ),
        ("inlayHintProvider", "textDocument/inlayHint", {**doc, "range": rng}),
        (
            "codeActionProvider",
            "textDocument/codeAction",
            {**doc, "range": rng, "context": {"diagnostics": []}},
        ),
        ("renameProvider", "textDocument/rename", {**at, "newName": "n0000001"}),
        ("diagnosticProvider", "textDocument/diagnostic", doc),
    ]
    problems = []
    for cap, method, params in calls:
        if caps.get(cap):
            problem = _ask(client, method, params)
            if problem:
                problems.append(f"{uri[:60]}: {problem}")
    return problems


def test_requests_on_odd_and_unopened_documents(shared_server: LspClient) -> None:
    client = shared_server
    problems = []
    for uri in ODD_URIS:
        problems += _every_request(client, uri)
    # notifications out of order: change/close what was never opened, open twice
    uri = "file:///tmp/pi-lsp-robustness/order.jsonl"
    client.change("file:///tmp/pi-lsp-robustness/ghost.jsonl", 2, [{"text": "x"}])
    client.close_doc("file:///tmp/pi-lsp-robustness/ghost.jsonl")
    client.open(uri, hostile.v3_session(), 1)
    client.open(uri, hostile.v2_session(), 1)
    client.diagnostics_for(uri, 1)
    problems += _every_request(client, uri)
    client.change(uri, 0, [{"text": hostile.v1_session()}])  # an older version
    client.close_doc(uri)
    client.close_doc(uri)
    problems += _every_request(client, uri)
    for odd in ODD_URIS[1:]:
        client.open(odd, hostile.v3_session(), 1)
        with contextlib.suppress(ServerHang):
            client.diagnostics_for(odd, 1, timeout=5)
        problems += _every_request(client, odd)
        client.close_doc(odd)
    _alive(client, ODD_URIS[0])
    assert not problems, "\n".join(problems)


GARBAGE_SETTINGS: list[Any] = [
    None,
    42,
    "piLsp",
    [],
    {"piLsp": None},
    {"piLsp": {"severity": "loud"}},
    {"piLsp": {"severity": {"PI001": 3, "PI400": None, "": "off", "PI9999": "error"}}},
    {"piLsp": {"severity": {"PI001": ["error"]}}},
    {"piLsp": {"largeLineThreshold": -1}},
    {"piLsp": {"largeLineThreshold": 10**30}},
    {"piLsp": {"largeLineThreshold": 1.5}},
    {"piLsp": {"largeLineThreshold": "1MiB"}},
    {"piLsp": {"largeLineThreshold": 1}},
    {"piLsp": {"diagnosticMode": "sideways"}},
    {"piLsp": {"diagnosticMode": ["push"]}},
    {"piLsp": {"unknown": {"deep": [[[[]]]]}}},
]


@pytest.mark.slow
def test_garbage_settings_are_survived() -> None:
    for init in ({"piLsp": {**GARBAGE_SETTINGS[6]["piLsp"], "largeLineThreshold": 10**30}},):
        with LspClient() as client:
            client.initialize(["utf-16"], initialization_options=init)
            uri = "file:///tmp/pi-lsp-robustness/settings-init.jsonl"
            client.open(uri, hostile.v3_session(), 1)
            client.diagnostics_for(uri, 1)
            _alive(client, uri)
    with start_stdio(["utf-16"]) as client:
        uri = "file:///tmp/pi-lsp-robustness/settings.jsonl"
        client.open(uri, hostile.v3_session() + "{broken\n", 1)
        client.diagnostics_for(uri, 1)
        for settings in GARBAGE_SETTINGS:
            client.notify("workspace/didChangeConfiguration", {"settings": settings})
            _alive(client, uri)
        client.change(uri, 2, [{"text": hostile.v3_session() + "{broken again\n"}])
        client.diagnostics_for(uri, 2)
        assert client.alive
        assert invariants.TRACEBACK not in client.stderr, invariants.traceback_summary(
            client.stderr
        )


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LspClient, Path]]:
    """A server whose working directory is a fresh folder (stray writes would land there)."""
    root = tmp_path_factory.mktemp("protocol")
    client = start_stdio(["utf-16"], cwd=root)
    yield client, root
    client.close()


def _garbage_arguments(uri: str) -> list[list[Any]]:
    return [
        [],
        [None],
        [42],
        [uri],
        [uri, None],
        [uri, "ghost"],
        [uri, -1],
        [uri, 10**12],
        [uri, True],
        [uri, {"id": "u0000001"}],
        [uri, "u0000001", None],
        [uri, "u0000001", 7],
        [uri, "u0000001", "x" * 100_000],
        [uri, "u0000001", "summary", "extra", "args"],
        ["file:///tmp/pi-lsp-robustness/not-there.jsonl", "u0000001"],
        ["untitled:1", "u0000001", "s"],
        [{"uri": uri}],
    ]


@pytest.mark.slow
def test_commands_with_garbage_arguments(sandbox: tuple[LspClient, Path]) -> None:
    """Every advertised command with wrong, missing and absurd arguments, against an open
    document: an answer each time, and no file written (the client refuses every edit)."""
    client, root = sandbox
    work = root / "garbage"
    work.mkdir()
    path = work / "s.jsonl"
    path.write_text(hostile.v3_session(), encoding="utf-8")
    uri = path.as_uri()
    stderr_before = len(client.stderr)
    commands = (client.capabilities.get("executeCommandProvider") or {}).get("commands", [])
    if not commands:
        pytest.skip("no commands yet")
    client.open(uri, hostile.v3_session(), 1)
    client.diagnostics_for(uri, 1)
    before = snapshot(root)
    problems = []
    for command in commands:
        if command == "pi-lsp.fork":
            continue  # forking writes a new file by design (checked in test_data_safety)
        for args in _garbage_arguments(uri):
            problem = _ask(
                client, "workspace/executeCommand", {"command": command, "arguments": args}
            )
            if problem:
                problems.append(f"{command} {str(args)[:80]}: {problem}")
    problems += [
        f"unknown command: {p}"
        for p in [
            _ask(client, "workspace/executeCommand", {"command": "pi-lsp.nope", "arguments": []})
        ]
        if p
    ]
    _alive(client, uri)
    client.close_doc(uri)
    assert not problems, "\n".join(problems)
    assert changes(before, snapshot(root)) == []
    new_stderr = client.stderr[stderr_before:]
    assert invariants.TRACEBACK not in new_stderr, invariants.traceback_summary(new_stderr)


def test_commands_on_directories_and_missing_files(sandbox: tuple[LspClient, Path]) -> None:
    """A command naming a file that is not open reads it from disk: a directory or a
    missing path is refused with an error answer."""
    client, root = sandbox
    work = root / "special"
    (work / "dir.jsonl").mkdir(parents=True)
    commands = (client.capabilities.get("executeCommandProvider") or {}).get("commands", [])
    if not commands:
        pytest.skip("no commands yet")
    before = snapshot(work)
    problems = []
    for target in (work / "dir.jsonl", work / "missing.jsonl"):
        for command in commands:
            args: list[Any] = [target.as_uri()]
            if command in ("pi-lsp.fork", "pi-lsp.context"):
                args.append(0)
            problem = _ask(
                client, "workspace/executeCommand", {"command": command, "arguments": args}
            )
            if problem:
                problems.append(f"{command} on {target.name}: {problem}")
    assert not problems, "\n".join(problems)
    assert changes(before, snapshot(work)) == []


def test_command_on_a_fifo_does_not_freeze_the_server(tmp_path: Path) -> None:
    work = tmp_path / "w"
    work.mkdir()
    fifo = work / "fifo.jsonl"
    os.mkfifo(fifo)
    with start_stdio(["utf-16"], cwd=work) as client:
        commands = (client.capabilities.get("executeCommandProvider") or {}).get("commands", [])
        command = next(
            (c for c in ("pi-lsp.tree", "pi-lsp.stats", "pi-lsp.migrate") if c in commands), None
        )
        if command is None:
            pytest.skip("no command reading files yet")
        uri = "file:///tmp/pi-lsp-robustness/alongside.jsonl"
        client.open(uri, hostile.v3_session(), 1)
        client.diagnostics_for(uri, 1)
        ident, pending = client.request_async(
            "workspace/executeCommand", {"command": command, "arguments": [fifo.as_uri()]}
        )
        try:
            _alive(client, uri, timeout=1)  # the server keeps answering others meanwhile
            with contextlib.suppress(ResponseError):
                client.wait(ident, pending, timeout=1)
        finally:
            with contextlib.suppress(OSError):  # unblock the server: give the FIFO a writer
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                os.close(fd)


def test_malformed_requests_get_an_error_answer() -> None:
    with start_stdio(["utf-16"]) as client:
        uri = "file:///tmp/pi-lsp-robustness/malformed.jsonl"
        client.open(uri, hostile.v3_session(), 1)
        client.diagnostics_for(uri, 1)
        for position in (
            {"line": -1, "character": 0},
            {"line": 0, "character": 2**31},
            {"line": 0, "character": "x"},
        ):
            with pytest.raises(ResponseError) as err:
                client.request(
                    "textDocument/hover",
                    {"textDocument": {"uri": uri}, "position": position},
                    timeout=2,
                )
            assert err.value.code == -32602
        _alive(client, uri)
        assert invariants.TRACEBACK not in client.stderr
