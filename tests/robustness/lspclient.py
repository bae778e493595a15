"""A small synchronous LSP client for hostile-input tests, independent of pytest.

It drives ``python -m pi_lsp`` over stdio (or a TCP socket) with a reader thread, so
every request can carry its own timeout (a hang is a failure, not a stuck test run), the
raw stderr of the server is kept (a traceback there is a failure), and everything the
server sends on its own (``publishDiagnostics``, ``window/logMessage``,
``window/showMessage``, server-to-client requests) is recorded for later checks.

Server-to-client requests are answered so the server never waits on us:
``workspace/configuration`` with ``null`` per item, ``workspace/applyEdit`` with
``applied: false`` (the edit is recorded, never applied to disk), anything else with
``null``.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "pi_lsp"]
REQUEST_TIMEOUT = float(os.environ.get("PI_LSP_FUZZ_TIMEOUT", "20"))
REQUEST_CANCELLED = -32800
CONTENT_MODIFIED = -32801

ENCODINGS = {"utf-8": "utf-8", "utf-16": "utf-16", "utf-32": "utf-32"}


class ServerHang(AssertionError):
    """A request got no answer within its timeout."""


class ServerDied(AssertionError):
    """The server process exited while we were talking to it."""


@dataclass
class ResponseError(Exception):
    """A JSON-RPC error answer."""

    code: int
    message: str
    data: Any = None

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


@dataclass
class Pending:
    method: str
    event: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: ResponseError | None = None


def _json(obj: Any) -> bytes:
    # ensure_ascii: lone surrogates in document text travel as \\udXXX escapes
    return json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii")


class LspClient:
    """One server process (or TCP connection) and the conversation with it."""

    def __init__(
        self,
        command: Sequence[str] = SERVER,
        *,
        env: dict[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        sock: socket.socket | None = None,
        proc: subprocess.Popen[bytes] | None = None,
    ) -> None:
        self.notifications: list[tuple[str, Any]] = []
        self.server_requests: list[tuple[str, Any]] = []
        self.stderr_chunks: list[bytes] = []
        self.protocol_errors: list[str] = []
        self._pending: dict[int, Pending] = {}
        self._next_id = 0
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._cond = threading.Condition()
        self._closed = False
        self.encoding = "utf-16"
        self.capabilities: dict[str, Any] = {}
        self.sock = sock
        if sock is not None:
            self.proc = proc
            self._out = sock.makefile("rb")
            self._in_write: Callable[[bytes], None] = sock.sendall
        else:
            full_env = {**os.environ, **(env or {})}
            full_env.setdefault("PYTHONPATH", str(ROOT))
            self.proc = subprocess.Popen(
                list(command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=full_env,
                cwd=cwd or ROOT,
            )
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self._out = self.proc.stdout
            stdin = self.proc.stdin

            def write(data: bytes) -> None:
                stdin.write(data)
                stdin.flush()

            self._in_write = write
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()
        if self.proc is not None and self.proc.stderr is not None:
            self._err_reader = threading.Thread(target=self._read_stderr, daemon=True)
            self._err_reader.start()

    # -- transport ------------------------------------------------------------------

    def _read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):  # type: ignore[union-attr]
            self.stderr_chunks.append(chunk)

    @property
    def stderr(self) -> str:
        return b"".join(self.stderr_chunks).decode("utf-8", "replace")

    def _read_loop(self) -> None:
        out = self._out
        try:
            while True:
                length = None
                while True:
                    line = out.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    name, _, value = line.decode("ascii", "replace").partition(":")
                    if name.lower() == "content-length":
                        length = int(value.strip())
                if length is None:
                    self.protocol_errors.append("message without Content-Length")
                    continue
                body = out.read(length)
                if len(body) < length:
                    return
                try:
                    msg = json.loads(body)
                except ValueError as exc:
                    self.protocol_errors.append(f"unparsable message: {exc}: {body[:200]!r}")
                    continue
                self._dispatch(msg)
        except (OSError, ValueError):
            return
        finally:
            with self._cond:
                self._closed = True
                self._cond.notify_all()
            for pending in list(self._pending.values()):
                pending.event.set()

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "method" in msg and "id" in msg:
            self.server_requests.append((msg["method"], msg.get("params")))
            self._answer_server_request(msg)
            return
        if "method" in msg:
            with self._cond:
                self.notifications.append((msg["method"], msg.get("params")))
                self._cond.notify_all()
            return
        pending = self._pending.get(msg.get("id"))  # type: ignore[arg-type]
        if pending is None:
            self.protocol_errors.append(f"answer to an unknown request: {msg!r:.200}")
            return
        if "error" in msg and msg["error"] is not None:
            err = msg["error"]
            pending.error = ResponseError(
                err.get("code", 0), err.get("message", ""), err.get("data")
            )
        else:
            pending.result = msg.get("result")
        pending.event.set()

    def _answer_server_request(self, msg: dict[str, Any]) -> None:
        method = msg["method"]
        params = msg.get("params") or {}
        result: Any = None
        if method == "workspace/configuration":
            result = [None for _ in params.get("items", [])]
        elif method == "workspace/applyEdit":
            result = {"applied": False, "failureReason": "robustness test client"}
        self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def send(self, obj: dict[str, Any]) -> None:
        self.send_raw(_json(obj))

    def send_raw(self, body: bytes) -> None:
        data = f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body
        with self._write_lock:
            try:
                self._in_write(data)
            except (BrokenPipeError, OSError) as exc:
                raise ServerDied(f"cannot write to the server: {exc}\n{self.stderr}") from exc

    # -- requests and notifications ---------------------------------------------------

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request_async(self, method: str, params: Any = None) -> tuple[int, Pending]:
        with self._lock:
            self._next_id += 1
            ident = self._next_id
            pending = Pending(method)
            self._pending[ident] = pending
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        return ident, pending

    def wait(self, ident: int, pending: Pending, timeout: float = REQUEST_TIMEOUT) -> Any:
        if not pending.event.wait(timeout):
            raise ServerHang(f"no answer to {pending.method} (id {ident}) within {timeout:g}s")
        self._pending.pop(ident, None)
        if pending.error is not None:
            raise pending.error
        died = self._closed and pending.result is None
        if died and self.proc is not None and self.proc.poll() is not None:
            raise ServerDied(f"server exited ({self.proc.returncode})\n{self.stderr}")
        return pending.result

    def request(self, method: str, params: Any = None, timeout: float = REQUEST_TIMEOUT) -> Any:
        ident, pending = self.request_async(method, params)
        return self.wait(ident, pending, timeout)

    def cancel(self, ident: int) -> None:
        self.notify("$/cancelRequest", {"id": ident})

    # -- lifecycle -------------------------------------------------------------------

    def initialize(
        self,
        encodings: Sequence[str] = ("utf-16",),
        initialization_options: Any = None,
        configuration: bool = False,
        pull_diagnostics: bool = False,
    ) -> dict[str, Any]:
        """Initialize; without ``pull_diagnostics`` the client does not offer
        ``textDocument/diagnostic``, so the server pushes (versioned) diagnostics."""
        caps: dict[str, Any] = {
            "general": {"positionEncodings": list(encodings)},
            "workspace": {
                "applyEdit": True,
                "configuration": configuration,
                "workspaceEdit": {"documentChanges": True},
            },
            "textDocument": {
                "synchronization": {"didSave": True, "dynamicRegistration": False},
                "publishDiagnostics": {"relatedInformation": True, "versionSupport": True},
                "hover": {"contentFormat": ["markdown", "plaintext"]},
                "definition": {"linkSupport": True},
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                "codeAction": {
                    "codeActionLiteralSupport": {
                        "codeActionKind": {
                            "valueSet": [
                                "",
                                "quickfix",
                                "refactor",
                                "refactor.rewrite",
                                "source",
                            ]
                        }
                    },
                    "resolveSupport": {"properties": ["edit"]},
                    "dataSupport": True,
                },
                "rename": {"prepareSupport": True},
                "completion": {"completionItem": {"snippetSupport": False}},
                "inlayHint": {},
                "foldingRange": {"lineFoldingOnly": False},
                "documentLink": {"tooltipSupport": True},
                "selectionRange": {},
                "codeLens": {},
            },
            "window": {"workDoneProgress": True},
        }
        if pull_diagnostics:
            caps["textDocument"]["diagnostic"] = {"dynamicRegistration": False}
        result = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": None,
                "capabilities": caps,
                "initializationOptions": initialization_options,
            },
        )
        self.capabilities = result.get("capabilities", {}) if isinstance(result, dict) else {}
        self.encoding = ENCODINGS.get(self.capabilities.get("positionEncoding", "utf-16"), "utf-16")
        self.notify("initialized", {})
        return result  # type: ignore[no-any-return]

    def close(self, timeout: float = 10.0) -> int | None:
        """Shut down politely; kill on a hang. Returns the exit code (None for TCP)."""
        if self.proc is not None and self.proc.poll() is not None:
            return self.proc.returncode
        with contextlib.suppress(Exception):
            self.request("shutdown", None, timeout=timeout)
            self.notify("exit", None)
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.close()
        if self.proc is None:
            return None
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise ServerHang("server did not exit after shutdown/exit") from None

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> LspClient:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.close()
        finally:
            self.kill()

    # -- documents ---------------------------------------------------------------------

    def open(self, uri: str, text: str, version: int = 1, language: str = "jsonl") -> None:
        self.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": language,
                    "version": version,
                    "text": text,
                }
            },
        )

    def change(self, uri: str, version: int, changes: list[dict[str, Any]]) -> None:
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes},
        )

    def close_doc(self, uri: str) -> None:
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def diagnostics_for(
        self, uri: str, version: int | None = None, timeout: float = REQUEST_TIMEOUT
    ) -> list[dict[str, Any]]:
        """Wait for a publishDiagnostics for ``uri`` (for ``version`` when given); the latest."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for method, params in reversed(self.notifications):
                    if method != "textDocument/publishDiagnostics" or params.get("uri") != uri:
                        continue
                    if version is None or params.get("version") == version:
                        return list(params.get("diagnostics", []))
                    break
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    raise ServerHang(f"no diagnostics for {uri} version {version} in {timeout:g}s")
                self._cond.wait(left)

    def published(self, uri: str) -> list[dict[str, Any]]:
        return [
            p
            for m, p in self.notifications
            if m == "textDocument/publishDiagnostics" and p.get("uri") == uri
        ]

    def messages(self, *methods: str) -> list[Any]:
        wanted = methods or ("window/logMessage", "window/showMessage")
        return [p for m, p in self.notifications if m in wanted]

    def sync_point(self, timeout: float = REQUEST_TIMEOUT) -> None:
        """A cheap request whose answer proves everything sent before it was handled."""
        # an unknown method answers MethodNotFound at once, after earlier messages
        with contextlib.suppress(ResponseError):
            self.request("pi-lsp/$ping", None, timeout)

    @property
    def alive(self) -> bool:
        return self.proc is None or self.proc.poll() is None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_stdio(
    encodings: Sequence[str] = ("utf-16",), *, pull_diagnostics: bool = False, **kwargs: Any
) -> LspClient:
    client = LspClient(**kwargs)
    try:
        client.initialize(encodings, pull_diagnostics=pull_diagnostics)
    except BaseException:
        client.kill()
        raise
    return client


def listening_addresses(pid: int) -> list[tuple[str, int]]:
    """The TCP addresses a process listens on (Linux ``/proc``), as ``(ip, port)``."""
    inodes = set()
    fd_dir = Path(f"/proc/{pid}/fd")
    for fd in fd_dir.iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    out = []
    for table, family in (("/proc/net/tcp", 4), ("/proc/net/tcp6", 6)):
        with contextlib.suppress(OSError):
            rows = Path(table).read_text().splitlines()[1:]
            for row in rows:
                cols = row.split()
                local, state, inode = cols[1], cols[3], cols[9]
                if state != "0A" or inode not in inodes:
                    continue
                hex_ip, hex_port = local.split(":")
                out.append((_ip(hex_ip, family), int(hex_port, 16)))
    return out


def _ip(hex_ip: str, family: int) -> str:
    raw = bytes.fromhex(hex_ip)
    if family == 4:
        return socket.inet_ntop(socket.AF_INET, raw[::-1])
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
    return socket.inet_ntop(socket.AF_INET6, words)


def wait_for_listener(pid: int, timeout: float = 15.0) -> list[tuple[str, int]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        addrs = listening_addresses(pid)
        if addrs:
            return addrs
        time.sleep(0.05)
    return []
