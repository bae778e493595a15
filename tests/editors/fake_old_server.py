"""A stand-in language server that says it is an old pi-lsp (0.0.1): for the VS Code test of
the extension's "wrong version" message. Answers initialize/shutdown, ignores the rest."""

from __future__ import annotations

import json
import sys


def read() -> dict | None:
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def send(msg: dict) -> None:
    body = json.dumps(msg).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def main() -> None:
    while (msg := read()) is not None:
        method, mid = msg.get("method"), msg.get("id")
        if method == "exit":
            return
        if mid is None:
            continue
        if method == "initialize":
            result: object = {
                "capabilities": {"textDocumentSync": 1},
                "serverInfo": {"name": "pi-lsp", "version": "0.0.1"},
            }
        else:
            result = None
        send({"jsonrpc": "2.0", "id": mid, "result": result})


if __name__ == "__main__":
    main()
