"""The message decoder: a full-text append to a large document is decoded from its end.

:class:`FullTexts` must hand the server either the message as sent (a large text as its
lines, see ``test_open_by_lines.py``) or, for an append, an insertion at the end of the
text that gives exactly the text the client sent; any other message about the document
makes it forget what it kept.
"""

from __future__ import annotations

import asyncio
import io
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson
import pytest
from pygls.io_ import run_async

from pi_lsp.core.checks.document import Document, Position
from pi_lsp.core.entries.model import Options
from pi_lsp.lsp.transport import END, LARGE, FullTexts, MessageReader, _Decoder

URI = "file:///tmp/s.jsonl"
LINE = '{"type":"message","id":"%05d","parentId":null,"message":{"role":"user","content":"é😀 \\"q\\" \u2028"}}'
TEXT = "\n".join(LINE % n for n in range(LARGE // len(LINE) + 10)) + "\n"


def opened(text: str = TEXT, uri: str = URI) -> bytes:
    doc = {"uri": uri, "languageId": "jsonl", "version": 1, "text": text}
    return orjson.dumps(
        {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": doc}}
    )


def changed(text: str, version: int = 2, uri: str = URI, first: str = "textDocument") -> bytes:
    params: dict[str, Any] = {"textDocument": {"uri": uri, "version": version}}
    changes = [{"text": text}]
    params = (
        {"contentChanges": changes, **params}
        if first == "contentChanges"
        else {**params, "contentChanges": changes}
    )
    return orjson.dumps({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": params})


def handled(texts: FullTexts, body: bytes) -> Any:
    """``body`` decoded as the server's handler sees it: a full text taken from the decoder
    (:meth:`FullTexts.take`, the lines joined here)."""
    message = texts.loads(body)
    params = message["params"]
    opens = "text" in params["textDocument"]
    item = params["textDocument"] if opens else params["contentChanges"][0]
    item["text"] = texts.take(item["text"]).join()
    return message


def applied(text: str, message: dict[str, Any]) -> str:
    """The text of a document holding ``text`` after the change of ``message``."""
    doc = Document.open(URI, text, 1, None, Options())
    for change in message["params"]["contentChanges"]:
        if "range" in change:
            start, end = change["range"]["start"], change["range"]["end"]
            doc.apply_change(
                Position(start["line"], start["character"]),
                Position(end["line"], end["character"]),
                change["text"],
                "utf-16",
            )
        else:
            doc.replace_all(change["text"])
    return doc.source


@pytest.mark.parametrize(
    "tail",
    ['{"type":"label","id":"x"}\n', "\r\n", "", 'torn {"a', "😀\u2028\\"],
)
def test_an_append_arrives_as_an_insertion_at_the_end(tail: str) -> None:
    texts = FullTexts()
    texts.loads(opened())
    message = texts.loads(changed(TEXT + tail))
    change = message["params"]["contentChanges"][0]
    assert change["range"]["start"] == change["range"]["end"] == {"line": END, "character": 0}
    assert change["text"] == tail
    assert message["params"]["textDocument"] == {"uri": URI, "version": 2}
    assert applied(TEXT, message) == TEXT + tail
    # appends chain: the next one is decoded from the end of this one
    again = texts.loads(changed(TEXT + tail + "{}\n", 3))
    assert again["params"]["contentChanges"][0]["text"] == "{}\n"


def test_a_full_text_decoded_by_lines_is_what_the_next_append_extends() -> None:
    """A large didOpen, and a full-text change that is no append, arrive as lines (the
    message carries a marker instead of the text); the full text that extends either is an
    append all the same."""
    texts = FullTexts()
    message = texts.loads(opened())
    marker = message["params"]["textDocument"]["text"]
    assert marker != TEXT
    assert texts.take(marker).join() == TEXT
    grown = texts.loads(changed(TEXT + "{}\n"))
    assert grown["params"]["contentChanges"][0]["range"]["start"]["line"] == END
    assert applied(TEXT, grown) == TEXT + "{}\n"
    other = "x" + TEXT
    message = texts.loads(changed(other, 3))
    marker = message["params"]["contentChanges"][0]["text"]
    assert marker != other
    assert texts.take(marker).join() == other
    grown = texts.loads(changed(other + "{}\n", 4))
    assert grown["params"]["contentChanges"][0]["text"] == "{}\n"
    assert applied(other, grown) == other + "{}\n"


def test_a_torn_last_line_completed_is_an_append() -> None:
    torn = TEXT + LINE[:30]
    texts = FullTexts()
    texts.loads(opened(torn))
    message = texts.loads(changed(TEXT + LINE + "\n"))
    assert applied(torn, message) == TEXT + LINE + "\n"


@pytest.mark.parametrize(
    "new",
    [
        "x" + TEXT,  # an edit at the start
        TEXT[:-2] + "\n",  # a shorter text
        TEXT.replace("00003", "00004", 1) + "{}\n",  # an edit inside, and an append
    ],
)
def test_a_change_that_is_no_append_is_decoded_as_sent(new: str) -> None:
    texts = FullTexts()
    texts.loads(opened())
    body = changed(new)
    assert handled(texts, body) == orjson.loads(body)


def test_any_other_change_forgets_the_kept_text() -> None:
    texts = FullTexts()
    texts.loads(opened())
    edit = {
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
        "text": "[",
    }
    small = {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [edit]}
    texts.loads(
        orjson.dumps({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": small})
    )
    body = changed(TEXT + "{}\n", 3)
    assert handled(texts, body) == orjson.loads(body)
    texts.loads(opened())
    texts.loads(
        orjson.dumps(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didClose",
                "params": {"textDocument": {"uri": URI}},
            }
        )
    )
    assert handled(texts, body) == orjson.loads(body)


def test_other_documents_and_other_layouts_are_decoded_as_sent() -> None:
    texts = FullTexts()
    texts.loads(opened())
    other = changed(TEXT + "{}\n", uri="file:///tmp/other.jsonl")
    assert handled(texts, other) == orjson.loads(other)
    # the text before the document's URI: not recognised, decoded by lines (and kept)
    late = changed(TEXT + "{}\n", first="contentChanges")
    assert handled(texts, late) == orjson.loads(late)
    message = texts.loads(changed(TEXT + "{}\n[]\n", 3))
    assert message["params"]["contentChanges"][0]["text"] == "[]\n"


def test_a_text_orjson_rejects_is_decoded_by_json_and_not_kept() -> None:
    texts = FullTexts()
    body = opened().replace(b'"version":1,"text":"', b'"version":1,"text":"\\ud800', 1)
    message = texts.loads(body)
    assert message["params"]["textDocument"]["text"] == "\ud800" + TEXT
    grown = changed(TEXT + "{}\n").replace(b'[{"text":"', b'[{"text":"\\ud800', 1)
    message = texts.loads(grown)
    assert message["params"]["contentChanges"] == [{"text": "\ud800" + TEXT + "{}\n"}]


def test_a_long_chain_of_appends_stays_an_append() -> None:
    """Each append is checked against the text the previous one left, however many there are."""
    texts = FullTexts()
    texts.loads(opened())
    text = TEXT
    for n in range(40):
        tail = LINE % (90000 + n) + "\n"
        message = texts.loads(changed(text + tail, n + 2))
        assert message["params"]["contentChanges"] == [
            {"range": {"start": {"line": END, "character": 0}, "end": {"line": END, "character": 0}},
             "text": tail}
        ]
        text += tail
    edited = text.replace("00007", "00008", 1) + "{}\n"  # the kept hash is of the whole text
    assert handled(texts, changed(edited, 99)) == orjson.loads(changed(edited, 99))


def test_what_is_kept_of_a_large_text_is_small() -> None:
    """No second copy of a document: the kept state of a 4 MiB text is under 4 KiB."""
    import gc
    import tracemalloc

    big = TEXT * 4
    body = opened(big)
    texts = FullTexts()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    data = texts.loads(body)
    lines = texts.take(data["params"]["textDocument"]["text"])  # as the handler does
    del data, lines
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert kept < 4096, kept
    assert texts.loads(changed(big + "{}\n"))["params"]["contentChanges"][0]["text"] == "{}\n"


class _Protocol:
    """What the decoder looks for on pygls's hook: the protocol's ``full_texts``."""

    def __init__(self) -> None:
        self.full_texts = FullTexts()

    def structure(self, data: dict[str, Any]) -> dict[str, Any]:
        return data


def _framed(*bodies: bytes) -> bytes:
    return b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(b), b) for b in bodies)


def test_a_body_read_by_the_reader_is_freed_once_decoded() -> None:
    """pygls's loop keeps the last body until the next message arrives: a body read by
    :class:`MessageReader` is a bytearray that the decoder empties, whichever way it
    decoded it."""
    lone = opened().replace(b'"version":1,"text":"', b'"version":1,"text":"\\ud800', 1)
    small = b'{"jsonrpc":"2.0","method":"initialized","params":{}}'
    sent = [opened(), changed(TEXT + "{}\n"), lone, small]
    reader = MessageReader(io.BytesIO(_framed(*sent)))
    protocol = _Protocol()
    messages = []
    for expected in sent:
        lines, body = reader.message()
        assert lines == [b"Content-Length: %d\r\n" % len(expected), b"\r\n"]
        assert isinstance(body, bytearray) and body == expected
        messages.append(_Decoder.loads(body, object_hook=protocol.structure))
        assert body == b""
        if len(messages) == 1:  # the lines belong to the message being handled
            text = protocol.full_texts.take(messages[0]["params"]["textDocument"]["text"])
            assert text.join() == TEXT
    _, append, whole, plain = messages
    assert append["params"]["contentChanges"][0]["text"] == "{}\n"
    assert whole["params"]["textDocument"]["text"] == "\ud800" + TEXT
    assert plain == orjson.loads(small)
    body = bytearray(small)
    assert _Decoder.loads(body) == orjson.loads(small) and body == b""  # without pygls's hook
    assert reader.message() == ([], None)  # the end of the stream


def test_the_reader_reads_header_lines_as_pygls_does() -> None:
    """A zero length counts as none, the first length wins, a blank line before any length
    is skipped, other header lines are kept; a stream that ends inside the headers gives
    them without a body."""
    stream = (
        b"\r\nContent-Length: 0\r\nContent-Type: x\r\nContent-Length: 2\r\n"
        b"Content-Length: 9\r\n\r\n{}Content-Length: 5\r\n"
    )
    reader = MessageReader(io.BytesIO(stream))
    lines, body = reader.message()
    assert lines[0] == b"\r\n" and lines[-1] == b"\r\n" and len(lines) == 6
    assert body == b"{}"
    assert reader.message() == ([b"Content-Length: 5\r\n"], None)


def test_the_reader_reads_a_body_that_arrives_in_parts() -> None:
    class Trickle(io.RawIOBase):
        def __init__(self, data: bytes) -> None:
            self.data = data

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            n = min(3, len(buffer), len(self.data))
            buffer[:n], self.data = self.data[:n], self.data[n:]
            return n

    assert MessageReader(Trickle(b"0123456789")).read(8) == b"01234567"  # type: ignore[arg-type]
    assert MessageReader(Trickle(b"0123")).read(8) == b"0123"  # type: ignore[arg-type]


class _Counting(ThreadPoolExecutor):
    """A thread pool that counts the calls handed to it."""

    calls = 0

    def submit(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return super().submit(*args, **kwargs)


def test_pygls_loop_gets_each_message_from_one_worker_thread_call() -> None:
    """pygls's own reader makes a worker-thread call per header line and one for the body
    (three per message here); this one makes one per message, and one to find the end."""
    bodies = [b'{"jsonrpc":"2.0","method":"m%d","params":{}}' % n for n in range(3)]
    handled: list[Any] = []

    class Protocol:
        structure_message = staticmethod(lambda data: data)
        handle_message = staticmethod(handled.append)

    pool = _Counting(max_workers=1)
    reader = MessageReader(io.BytesIO(_framed(*bodies)), pool)
    asyncio.run(run_async(threading.Event(), reader, Protocol()))  # type: ignore[arg-type]
    pool.shutdown()
    assert [m["method"] for m in handled] == ["m0", "m1", "m2"]
    assert pool.calls == len(bodies) + 1


def test_the_server_reads_stdin_through_the_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_lsp.lsp import server

    given: list[Any] = []

    async def loop(**kwargs: Any) -> None:
        given.append(await kwargs["reader"].readline())

    monkeypatch.setattr(server, "run_async", loop)
    server.PiLanguageServer().start_io(io.BytesIO(b"Content-Length: 2\r\n\r\n{}"), io.BytesIO())
    assert given == [b"Content-Length: 2\r\n"]
