"""A large text decoded by lines: never one ``str`` of the whole text, the same lines.

:class:`FullTexts` decodes the text of a large didOpen or full-text didChange piece by
piece and leaves a marker in the message; the handlers swap it for the lines
(:meth:`FullTexts.take`). The lines must be exactly ``split_lines`` of the text the
client sent, however it escaped it, and a document must never open with the marker (or
empty) instead of its lines.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.core.text.lineindex import Lines, SplitText, split_lines
from pi_lsp.lsp import transport
from pi_lsp.lsp.features import diagnostics, sync
from pi_lsp.lsp.server import PiLanguageServer
from pi_lsp.lsp.transport import LARGE, FullTexts

URI = "file:///tmp/t.jsonl"

ESCAPES = {
    "\n": ["\\n", "\\u000a", "\\u000A"],
    "\r": ["\\r", "\\u000d", "\\u000D"],
    '"': ['\\"', "\\u0022"],
    "\\": ["\\\\", "\\u005c", "\\u005C"],
    "/": ["/", "\\/"],
    "\t": ["\\t", "\\u0009"],
    "\u2028": ["\u2028", "\\u2028"],
    "😀": ["😀", "\\ud83d\\ude00", "\\uD83D\\uDE00"],
    chr(0xD800): ["\\ud800", "\\uD800"],  # lone surrogates (ruff takes their literals for one)
    chr(0xDFFF): ["\\udfff"],
}
"""How a client may write each character inside a JSON string (any other: as it is)."""

PIECES = ["\n", "\r", "\r\n", "\\", "\\n", "\\\\n", "n", "r", "u", '"', "/", "\t", "\u2028"]
PIECES += ["😀", "é", "a", "{}", '{"a":1}', "\ud800", "\udfff"]
PIECES += ["\n{", "\\n{", "\\\\n{"]  # a line feed before an entry, and look-alikes

LAYOUTS = [
    '{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":'
    '{"uri":"%(uri)s","languageId":"jsonl","version":1,"text":"%(text)s"}}}',
    # members in another order (Neovim's encoder does not keep one), spaces around colons
    '{"params":{"textDocument":{"text" : "%(text)s","uri":"%(uri)s","languageId":"jsonl",'
    '"version":1}},"method":"textDocument/didOpen","jsonrpc":"2.0"}',
    # after the text, a string holding escaped quotes (its closing quote is tried first)
    '{"params":{"textDocument":{"text":"%(text)s","languageId":"j\\"s\\"onl","uri":"%(uri)s",'
    '"version":1}},"method":"textDocument/didOpen","jsonrpc":"2.0"}',
    '{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":'
    '{"uri":"%(uri)s","version":2},"contentChanges":[{"text":"%(text)s"}]}}',
    '{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"contentChanges":'
    '[{"text":"%(text)s"}],"textDocument":{"uri":"%(uri)s","version":2}}}',
]


@st.composite
def sent(draw: st.DrawFn) -> bytes:
    """A message body carrying a text as some client may have escaped it."""
    pieces = draw(st.lists(st.sampled_from(PIECES), max_size=60))
    text = "".join(pieces)
    encoded = "".join(
        ESCAPES[ch][draw(st.integers(0, len(ESCAPES[ch]) - 1))] if ch in ESCAPES else ch
        for ch in text
    )
    layout = draw(st.sampled_from(LAYOUTS))
    return (layout % {"uri": URI, "text": encoded}).encode("utf-8", "surrogatepass")


def text_item(message: dict[str, Any]) -> dict[str, Any]:
    """The object that holds the full text of a didOpen or didChange message."""
    params = message["params"]
    item: dict[str, Any] = (
        params["textDocument"] if "text" in params["textDocument"] else params["contentChanges"][0]
    )
    return item


def rejected_by_orjson(body: bytes) -> bool:
    try:
        orjson.loads(body)
    except orjson.JSONDecodeError:
        return True
    return False


@settings(max_examples=400, deadline=None)
@given(sent(), st.sampled_from([1, 2, 3, 5, 8, 64]))
def test_the_lines_are_those_of_the_text_as_sent(body: bytes, chunk: int) -> None:
    """Any text, any escapes, pieces of any size: the lines (and their terminators) equal
    ``split_lines`` of the text decoded whole; only a body orjson rejects (a lone surrogate
    escape) is decoded whole, as before."""
    whole = json.loads(body)  # as JavaScript's JSON.parse does (a lone surrogate too)
    text = text_item(whole)["text"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(transport, "LARGE", 0)
        patch.setattr(transport, "CHUNK", chunk)
        texts = FullTexts()
        message = texts.loads(body)
    item = text_item(message)
    by_lines = item["text"] != text
    assert by_lines != rejected_by_orjson(body)
    lines = texts.take(item["text"])
    assert lines == split_lines(text)  # lines and terminators
    item["text"] = text
    assert message == whole


def large(text: str = "", version: int = 1, method: str = "textDocument/didOpen") -> bytes:
    """A body of over :data:`LARGE` bytes carrying ``text`` and then many lines."""
    line = '{"type":"message","id":"x","message":{"content":"é😀 \\\\n \\" \u2028"}}'
    text += "\r\n".join([line] * (LARGE // len(line) + 2)) + "\n\rend"
    if method == "textDocument/didOpen":
        params: dict[str, Any] = {
            "textDocument": {"uri": URI, "languageId": "jsonl", "version": version, "text": text}
        }
    else:
        doc = {"uri": URI, "version": version}
        params = {"textDocument": doc, "contentChanges": [{"text": text}]}
    return orjson.dumps({"jsonrpc": "2.0", "method": method, "params": params})


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[PiLanguageServer]:
    """A server with the sync handlers only, analysing nothing."""
    monkeypatch.setattr(diagnostics, "refresh", lambda ls, uri: None)
    ls = PiLanguageServer()
    sync.register(ls)
    yield ls


def decode(ls: PiLanguageServer, body: bytes) -> Any:
    """``body`` decoded and structured as pygls's reader does."""
    return transport._Decoder.loads(body, object_hook=ls.protocol.structure_message)


def text_of(body: bytes) -> str:
    return str(text_item(json.loads(body))["text"])


def test_the_handlers_open_and_replace_a_document_with_the_decoded_lines(
    server: PiLanguageServer,
) -> None:
    opened = large("a😀\r")
    server.protocol.handle_message(decode(server, opened))
    doc = server.documents[URI]
    assert doc.text == split_lines(text_of(opened))
    replaced = large("b\n", 2, "textDocument/didChange")  # no append: decoded by lines
    server.protocol.handle_message(decode(server, replaced))
    assert doc.text == split_lines(text_of(replaced))
    assert doc.version == 2
    grown = large("b\n", 3, "textDocument/didChange").replace(b'end"', b'end\\n{}"')
    server.protocol.handle_message(decode(server, grown))  # an append: an insertion
    assert doc.text == split_lines(text_of(grown))


def test_a_text_decoded_whole_is_split_by_the_handler(server: PiLanguageServer) -> None:
    lone = large().replace(b'"text":"', b'"text":"\\ud800', 1)  # orjson rejects it
    server.protocol.handle_message(decode(server, lone))
    assert server.documents[URI].text == split_lines(text_of(lone)) != split_lines("")


def test_lines_decoded_for_one_message_never_reach_another(
    server: PiLanguageServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The lines belong to the message just decoded: a message handled after another was
    decoded (never the case in pygls's reader) fails loudly and opens nothing, neither its
    marker nor an empty text nor the other message's lines."""
    first = decode(server, large("first"))
    decode(server, large("second"))
    with caplog.at_level(logging.ERROR, logger="pi_lsp"):
        server.protocol.handle_message(first)
    assert URI not in server.documents
    assert any("lines" in r.getMessage() for r in caplog.records)


def test_lines_no_handler_took_are_dropped_with_the_next_message() -> None:
    import gc
    import tracemalloc

    texts = FullTexts()
    body = large()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    texts.loads(body)  # decoded by lines, never handled
    texts.loads(b'{"jsonrpc":"2.0","method":"initialized","params":{}}')
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert kept < 4096, kept


def test_a_marker_sent_as_a_text_is_refused() -> None:
    texts = FullTexts()
    body = orjson.dumps({"jsonrpc": "2.0", "method": "x", "params": {"text": transport._MARKER}})
    marker = texts.loads(body)["params"]["text"]
    with pytest.raises(RuntimeError):
        texts.take(marker)
    assert texts.take("a\rb") == SplitText(Lines(["a", "b"]), ["\r", ""])


def test_a_large_ranged_change_is_decoded_once_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """VS Code writes a change's range before its text: such a change is not split into
    lines (its text is inserted, not a document), and its text is decoded once."""
    text = "x😀\n" * (LARGE // 4)
    change = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}}
    body = orjson.dumps(
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didChange",
            "params": {
                "textDocument": {"uri": URI, "version": 2},
                "contentChanges": [{**change, "rangeLength": 0, "text": text}],
            },
        }
    )

    def never(*_: object) -> None:
        raise AssertionError("decoded by lines")

    monkeypatch.setattr(transport, "_lines", never)
    assert FullTexts().loads(body) == orjson.loads(body)


def test_a_piece_ends_at_a_line_feed_before_an_entry_never_at_an_escaped_backslash() -> None:
    """The text ``a\\n{b`` LF ``{c`` LF, as a JSON string: a cut looks for a line feed
    followed by ``{`` first; the first ``\\n{`` in the message follows an escaped backslash
    (it is no line feed); a text without ``\\n{`` is cut at any line feed."""
    body = rb'"a\\n{b\n{c\n"'
    assert transport._cut(body, 0) == body.index(rb"b\n{") + 3
    assert transport._cut(rb'"a\nb\n"', 0) == 4
    assert transport._cut(rb'"a\\nb"', 0) == -1
