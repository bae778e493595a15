"""Driving the real pi 1.6 in RPC mode with the package in ``editors/pi`` loaded.

``Pi`` starts ``node cli.js --mode rpc --offline -ne -e editors/pi`` with a temporary
HOME and ``PI_CODING_AGENT_DIR``, no model, and ``PI_LSP_PATH`` pointing at a wrapper that
runs THIS checkout's pi-lsp (``sys.executable -m pi_lsp``). Commands go to stdin as JSONL;
``expect`` reads stdout lines until one matches, keeping the rest in ``seen``.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "editors" / "pi"
CONFORMANCE = ROOT / "tests" / "conformance"
if str(CONFORMANCE) not in sys.path:
    sys.path.insert(0, str(CONFORMANCE))

from pi_install import PI_16, find_pi, node_for, run_oracle  # noqa: E402

DOCTOR_FAULTS = CONFORMANCE / "doctor_faults.mjs"
Message = dict[str, Any]


@dataclass(frozen=True)
class Place:
    """Where a test's pi runs: node, pi's node_modules, a temporary HOME, a project folder
    (the sessions' cwd), a sessions folder and the pi-lsp wrapper."""

    node: str
    modules: Path
    home: Path
    project: Path
    sessions: Path
    pi_lsp: Path


def pi16() -> tuple[str, Path] | None:
    """``(node, node_modules)`` for pi 1.6.0 (installed into the test cache when missing)."""
    modules = find_pi(PI_16)
    node = node_for(PI_16, modules) if modules is not None else None
    return (node, modules) if node is not None and modules is not None else None


def pi_lsp_wrapper(where: Path) -> Path:
    """An executable that runs this checkout's pi-lsp with the tests' Python."""
    script = where / "pi-lsp"
    script.write_text(
        "#!/bin/sh\n"
        f'PYTHONPATH="{ROOT}${{PYTHONPATH:+:$PYTHONPATH}}" exec "{sys.executable}" -m pi_lsp "$@"\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script


def plant(modules: Path, kind: str, where: Path, cwd: Path) -> dict[str, Any]:
    """A session written by pi 1.6's SessionManager with one fault (doctor_faults.mjs),
    its header's ``cwd`` set to ``cwd`` (pi refuses a session whose cwd does not exist)."""
    planted = run_oracle(
        ["plant", kind, where], modules=modules, release=PI_16, script=DOCTOR_FAULTS
    )
    path = Path(planted["path"])
    set_cwd(path, cwd)
    planted["path"] = path
    return planted


CLEAN = """
const { SessionManager } = await import(process.argv[1]);
const sm = SessionManager.create(process.argv[2], process.argv[3]);
const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 120,
  cost: { input: 0.001, output: 0.002, cacheRead: 0, cacheWrite: 0, total: 0.003 } };
const model = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" };
let t = Date.now();
sm.appendMessage({ role: "user", content: "list the files", timestamp: t++ });
sm.appendMessage({ role: "assistant", content: [{ type: "toolCall", id: "toolu_01", name: "bash",
  arguments: { command: "ls" } }], ...model, usage, stopReason: "toolUse", timestamp: t++ });
sm.appendMessage({ role: "toolResult", toolCallId: "toolu_01", toolName: "bash",
  content: [{ type: "text", text: "a.txt" }], isError: false, timestamp: t++ });
sm.appendMessage({ role: "assistant", content: [{ type: "text", text: "One file." }], ...model,
  usage, stopReason: "stop", timestamp: t++ });
process.stdout.write(sm.getSessionFile());
"""


def clean_session(node: str, modules: Path, where: Path, cwd: Path) -> Path:
    """A session with one tool exchange, written by pi 1.6's SessionManager for ``cwd``."""
    sm = modules / "@earendil-works" / "pi-coding-agent" / "dist" / "core" / "session-manager.js"
    done = subprocess.run(
        [node, "--input-type=module", "-e", CLEAN, sm.as_uri(), str(cwd), str(where)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return Path(done.stdout)


def sessions_folder(home: Path, cwd: Path) -> Path:
    """pi's sessions folder for ``cwd`` under ``home`` (pi's own naming of a cwd), made."""
    name = "--" + str(cwd).strip("/").replace("/", "-") + "--"
    folder = home / ".pi" / "agent" / "sessions" / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def set_cwd(path: Path, cwd: Path) -> None:
    """Point the header's ``cwd`` at ``cwd`` (the header stays the first line)."""
    data = path.read_bytes()
    first, nl, rest = data.partition(b"\n")
    try:
        header = json.loads(first)
    except ValueError:
        return  # a planted torn or missing header: pi-lsp rebuilds it
    if isinstance(header, dict) and header.get("type") == "session":
        header["cwd"] = str(cwd)
        path.write_bytes(json.dumps(header).encode() + nl + rest)


class Pi:
    """One pi process in RPC mode."""

    def __init__(
        self, node: str, modules: Path, home: Path, pi_lsp: Path, *args: str, **env: str
    ) -> None:
        cli = modules / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" / "cli.js"
        agent = home / ".pi" / "agent"
        agent.mkdir(parents=True, exist_ok=True)
        environ = {
            k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "PI_LSP_PATH"
        }
        environ.update(HOME=str(home), PI_CODING_AGENT_DIR=str(agent), PI_LSP_PATH=str(pi_lsp))
        environ.update(env)
        cmd = [node, str(cli), "--mode", "rpc", "--offline", "-ne", "-e", str(PACKAGE), *args]
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=home,
            env=environ,
            text=True,
            encoding="utf-8",
        )
        self.seen: list[Message] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._n = 0
        self._given: set[str] = set()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def send(self, message: Message) -> None:
        """Write one JSONL command."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def command(self, kind: str, **fields: Any) -> str:
        """Send a command with a fresh id; the id."""
        self._n += 1
        cid = f"t{self._n}"
        self.send({"type": kind, "id": cid, **fields})
        return cid

    def expect(self, match: Callable[[Message], bool], timeout: float = 30.0) -> Message:
        """The next stdout message that ``match``es (others are kept in ``seen``)."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out; seen: {self.seen[-20:]}")
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                err = self.proc.stderr.read() if self.proc.stderr else ""
                raise AssertionError(f"pi exited; seen: {self.seen[-20:]}; stderr: {err}")
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            self.seen.append(msg)
            if match(msg):
                return msg

    def find(self, match: Callable[[Message], bool], timeout: float = 30.0) -> Message:
        """The first message seen so far that ``match``es, else the next one."""
        return next((m for m in self.seen if match(m)), None) or self.expect(match, timeout)

    def response(self, cid: str, timeout: float = 30.0) -> Message:
        """The response to command ``cid``."""
        return self.expect(lambda m: m.get("type") == "response" and m.get("id") == cid, timeout)

    def call(self, kind: str, timeout: float = 30.0, **fields: Any) -> Message:
        """Send a command and wait for its response."""
        return self.response(self.command(kind, **fields), timeout)

    def ui(self, method: str, timeout: float = 30.0) -> Message:
        """The first ``extension_ui_request`` with ``method`` not returned before (one that
        came while waiting for something else included)."""

        def fresh(m: Message) -> bool:
            return (
                m.get("type") == "extension_ui_request"
                and m.get("method") == method
                and m["id"] not in self._given
            )

        found = self.find(fresh, timeout)
        self._given.add(found["id"])
        return found

    def answer(self, request: Message, **fields: Any) -> None:
        """Answer a dialog."""
        self.send({"type": "extension_ui_response", "id": request["id"], **fields})

    def ui_seen(self, method: str) -> list[Message]:
        """Every ``extension_ui_request`` with ``method`` seen so far."""
        return [
            m
            for m in self.seen
            if m.get("type") == "extension_ui_request" and m.get("method") == method
        ]

    def close(self) -> None:
        """Stop pi (stdin closed, then terminate)."""
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.terminate()
                self.proc.wait(timeout=5)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
