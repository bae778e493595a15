"""Outgoing messages: encoded by orjson (:func:`transport.encode`), framed as pygls frames them.

pygls encodes with ``json.dumps`` (every non-ASCII character escaped, so its
``Content-Length`` counts characters); the server encodes UTF-8 with orjson, so the
length must count bytes, and what orjson refuses must still go out as pygls would send it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from lsprotocol import types

from pi_lsp.lsp import transport
from pi_lsp.lsp.features import create_server

_FRAME = re.compile(rb"Content-Length: (\d+)\r\nContent-Type: ([^\r]*)\r\n\r\n")


class _Sink:
    """A writer that keeps what it is given."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data


def _sent(params: Any) -> tuple[bytes, dict[str, Any]]:
    """The frame the server writes for a ``window/logMessage`` with ``params``: its header
    (checked against its body's length in bytes) and its body, decoded."""
    server = create_server()
    sink = _Sink()
    server.protocol.set_writer(sink)
    server.protocol.notify(types.WINDOW_LOG_MESSAGE, params)
    head = _FRAME.match(sink.data)
    assert head is not None, sink.data[:80]
    body = sink.data[head.end() :]
    assert int(head.group(1)) == len(body)
    assert head.group(2) == b"application/vscode-jsonrpc; charset=utf-8"
    return body, json.loads(body)


@pytest.mark.parametrize("text", ["plain", "é → 😀 \u2028 한국어", '"quoted" \\ \n\t\x00'])
def test_a_message_is_framed_by_its_bytes_and_decodes_to_what_was_sent(text: str) -> None:
    body, message = _sent(types.LogMessageParams(type=types.MessageType.Info, message=text))
    assert message == {
        "jsonrpc": "2.0",
        "method": "window/logMessage",
        "params": {"type": 3, "message": text},
    }
    assert text.isascii() or not body.isascii()  # UTF-8, not escaped


def test_what_orjson_refuses_goes_out_as_pygls_sends_it() -> None:
    lone = "half an emoji: \ud83d"
    body, message = _sent(types.LogMessageParams(type=types.MessageType.Info, message=lone))
    assert message["params"]["message"] == lone
    assert b"\\ud83d" in body


def test_encode_gives_the_value_pygls_gives() -> None:
    server = create_server()
    default = server.protocol._serialize_message
    note = types.PublishDiagnosticsNotification(
        method=types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
        params=types.PublishDiagnosticsParams(
            uri="file:///s%C3%A9ance.jsonl",
            version=3,
            diagnostics=[
                types.Diagnostic(
                    range=types.Range(types.Position(1, 2), types.Position(1, 9)),
                    message="tool call « read » has no result",
                    severity=types.DiagnosticSeverity.Warning,
                    code="PI424",
                    source="pi-lsp",
                    data={"fix": [1, 2.5, None, True]},
                )
            ],
        ),
        jsonrpc="2.0",
    )
    assert json.loads(transport.encode(note, default)) == json.loads(
        json.dumps(note, default=default)
    )
    assert json.loads(transport.encode({1: "a"}, default)) == {"1": "a"}  # json's keys
    assert json.loads(transport.encode(2**70, default)) == 2**70
