"""Security: the server runs nothing from a session, follows ``parentSession`` only to
local files and only when asked, listens on loopback by default, and logs no session
content above debug level.
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from . import drive, hostile, invariants, known
from .lspclient import ROOT, LspClient, free_port, start_stdio, wait_for_listener

CANARY = "CANARY-9f3e1d"


def _hostile_strings_session(parent_session: str, canary: str = CANARY) -> str:
    h = hostile._dump(
        {
            "type": "session",
            "version": 3,
            "id": f"{canary}-hdr",
            "timestamp": hostile.TS,
            "cwd": f"/tmp/$(touch PWNED-cwd)/{canary}",
            "parentSession": parent_session,
        }
    )
    lines = [
        h,
        hostile.user("u0000001", None, f"$(touch PWNED-1) `touch PWNED-2` {canary}"),
        hostile._dump(
            {
                "type": "message",
                "id": "b0000001",
                "parentId": "u0000001",
                "timestamp": hostile.TS,
                "message": {
                    "role": "bashExecution",
                    "command": "touch PWNED-bash; " + canary,
                    "output": canary,
                    "exitCode": 0,
                    "cancelled": False,
                    "truncated": False,
                    "timestamp": 1,
                },
            }
        ),
        hostile._dump(
            {
                "type": "custom",
                "id": "c0000001",
                "parentId": "b0000001",
                "timestamp": hostile.TS,
                "customType": "__import__('os').system('touch PWNED-py')",
                "data": {"cmd": "${touch PWNED-3}", "file": "file:///etc/passwd", "x": canary},
            }
        ),
        hostile.user(f"{canary}-id", "c0000001", "{{7*7}} %s %n " + canary),
        '{"type":"message","id":"bad","parentId":"' + canary + '-ghost","message":',  # cut, quoting
        hostile._dump(
            {"type": f"{canary}-type", "id": "t1", "parentId": "u0000001", "timestamp": hostile.TS}
        ),
        "not json " + canary,
    ]
    return "\n".join(lines) + "\n"


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            out += [int(x) for x in (task / "children").read_text().split()]
    return out


@pytest.fixture(scope="module")
def _sandbox_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LspClient, Path]]:
    root = tmp_path_factory.mktemp("sandbox")
    client = start_stdio(["utf-16"], cwd=root)
    yield client, root
    client.close()


@pytest.fixture
def sandboxed(
    _sandbox_server: tuple[LspClient, Path], request: pytest.FixtureRequest
) -> tuple[LspClient, Path]:
    """The module's server (its working directory is the sandbox) and a fresh folder in it."""
    client, root = _sandbox_server
    work = root / request.node.name.replace("[", "-").replace("]", "")
    work.mkdir()
    return client, work


class _Listener:
    """A TCP listener on loopback that counts connections (to catch any fetching)."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop = True
        self._thread.join(2)
        self.sock.close()


def _all_commands(client: LspClient, uri: str) -> None:
    commands = (client.capabilities.get("executeCommandProvider") or {}).get("commands", [])
    read_only = {"pi-lsp.tree": [uri], "pi-lsp.stats": [uri], "pi-lsp.context": [uri, None]}
    for command, args in read_only.items():
        if command in commands:
            with contextlib.suppress(drive.ResponseError):
                client.request("workspace/executeCommand", {"command": command, "arguments": args})


def test_server_executes_nothing_and_fetches_nothing(sandboxed: tuple[LspClient, Path]) -> None:
    client, work = sandboxed
    listener = _Listener()
    try:
        parent = f"http://127.0.0.1:{listener.port}/{CANARY}.jsonl"
        text = _hostile_strings_session(parent)
        path = work / "s.jsonl"
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        outcome = drive.exercise_server(
            client, text, random.Random(1), uri=uri, n_positions=25, close=False
        )
        _all_commands(client, uri)
        # ask explicitly about the parentSession value
        col = invariants.split(text)[0].index("http://") + 3
        at = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": col}}
        caps = client.capabilities
        answers: list[Any] = []
        for cap, method in (
            ("hoverProvider", "textDocument/hover"),
            ("definitionProvider", "textDocument/definition"),
        ):
            if caps.get(cap):
                answers.append(client.request(method, at))
        if caps.get("documentLinkProvider"):
            answers.append(
                client.request("textDocument/documentLink", {"textDocument": {"uri": uri}})
            )
        client.close_doc(uri)
        client.sync_point()
        pid = client.proc.pid if client.proc else 0
        assert _children(pid) == [], "the server has child processes"
    finally:
        listener.close()
    assert listener.connections == 0, "the server connected to the parentSession URL"
    created = sorted(p.name for p in work.rglob("*") if "PWNED" in p.name)
    assert created == [], created
    for answer in answers:
        for target in _targets(answer):
            assert target.startswith("file:"), f"link to a non-local target: {target}"
    assert not known.unknown(outcome.problems), outcome.problems


def _targets(answer: Any) -> list[str]:
    out = []
    if isinstance(answer, list):
        for item in answer:
            out += _targets(item)
    elif isinstance(answer, dict):
        for key in ("uri", "targetUri", "target"):
            if isinstance(answer.get(key), str):
                out.append(answer[key])
    return out


def test_parent_session_is_not_read_unless_asked(sandboxed: tuple[LspClient, Path]) -> None:
    """The parentSession is a FIFO: opening it for reading would show up (a writer can
    open a FIFO without blocking only while a reader has it open), and reading it would
    block the server (a hang)."""
    client, work = sandboxed
    fifo = work / "parent.jsonl"
    os.mkfifo(fifo)
    text = _hostile_strings_session(str(fifo))
    uri = (work / "child.jsonl").as_uri()
    rng = random.Random(2)
    client.open(uri, text, 1)
    client.diagnostics_for(uri, 1)
    caps = client.capabilities
    for method, params in drive.document_requests(caps, uri):
        client.request(method, params)
    pos = drive.positions(text, "utf-16", rng, 10)
    for p in pos:
        for method, params in drive.read_requests(caps, uri, p, p, rng, []):
            if method not in ("textDocument/definition", "textDocument/rename"):
                with contextlib.suppress(drive.ResponseError):
                    client.request(method, params)
    client.sync_point()
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        assert exc.errno == errno.ENXIO  # no reader: nobody opened it
    else:
        os.close(fd)
        pytest.fail("the server opened the parentSession file without being asked")
    # asked: definition may name the file, but must not block on reading it
    col = invariants.split(text)[0].index(str(fifo)) + 2
    if caps.get("definitionProvider"):
        answer = client.request(
            "textDocument/definition",
            {"textDocument": {"uri": uri}, "position": {"line": 0, "character": col}},
        )
        assert all(t.startswith("file:") for t in _targets(answer))
    client.close_doc(uri)


def test_session_content_is_not_logged(sandboxed: tuple[LspClient, Path]) -> None:
    client, work = sandboxed
    before_messages = len(client.messages())
    before_stderr = len(client.stderr)
    text = _hostile_strings_session(str(work / "missing.jsonl"))
    path = work / "s.jsonl"
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    drive.exercise_server(client, text, random.Random(3), uri=uri, n_positions=20, close=False)
    _all_commands(client, uri)
    # edits that leave broken text, and a settings change with bad values
    client.change(uri, 2, [{"text": text.replace("}", "", 3)}])
    client.diagnostics_for(uri, 2)
    client.notify(
        "workspace/didChangeConfiguration",
        {"settings": {"piLsp": {"severity": {CANARY: "loud"}, "largeLineThreshold": CANARY}}},
    )
    client.close_doc(uri)
    client.notify("workspace/didChangeConfiguration", {"settings": {"piLsp": {}}})
    client.sync_point()
    messages = client.messages()[before_messages:]
    logged = [m.get("message", "") for m in messages if m.get("type", 4) <= 3]
    leaks = [m for m in logged if CANARY in m and "piLsp settings" not in m]
    assert leaks == [], leaks[:5]
    stderr = client.stderr[before_stderr:]
    assert CANARY not in stderr, "session content on the server's stderr:\n" + stderr[-2000:]


def _serve_tcp(args: list[str]) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "pi_lsp", "serve", "--tcp", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("spec", ["{port}", pytest.param(":{port}", marks=pytest.mark.slow)])
def test_tcp_binds_loopback_by_default(spec: str) -> None:
    port = free_port()
    proc = _serve_tcp([spec.format(port=port)])
    try:
        addresses = wait_for_listener(proc.pid)
        assert addresses, "the server is not listening"
        assert {ip for ip, _ in addresses} <= {"127.0.0.1", "::1"}, addresses
        assert {p for _, p in addresses} == {port}
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        client = LspClient(sock=sock, proc=None)
        client.initialize(["utf-16"])
        uri = "file:///tmp/pi-lsp-robustness/tcp.jsonl"
        client.open(uri, hostile.v3_session(), 1)
        client.diagnostics_for(uri, 1)
        with contextlib.suppress(Exception):
            client.request("shutdown", None, timeout=5)
            client.notify("exit", None)
        sock.close()
    finally:
        proc.kill()
        proc.wait()
