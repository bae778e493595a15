"""Fast decoding of incoming LSP messages: orjson, and full-text appends decoded from the end.

pygls decodes every message body with ``json.loads(body, object_hook=...)``. A didOpen of
a 100 MB session is a 100 MB JSON string full of escapes, which ``json`` decodes at about
half orjson's speed. :func:`install` makes pygls's stdio/TCP reader decode with orjson
and then apply the same hook; bodies orjson rejects (lone surrogate escapes, which
JavaScript clients may send) still go through ``json``, so nothing is decoded differently.

A client that reloads a file pi appended to sends its whole new text as one change.
:class:`FullTexts` (one per protocol) keeps, for each document, the length and a 128-bit
XXH3 hash of the JSON-encoded bytes of the last full text the client sent (didOpen, or a
full-text didChange): a few bytes, not a second copy of the text. A large didChange whose
text, as encoded bytes, starts with bytes of that length and hash is decoded from the end
only: the prefix is hashed where it lies in the message (no copy, no decoding; a few ms
for 40 MB), the rest of the string and the envelope around it are decoded, and the change
reaches the server
as what it is: the new text inserted at the end of the document (a ranged change whose
position lies past the last line, which the core clamps to the end of the text). Any
other message about the document (a ranged change, a close, a change the fast path
does not recognise) forgets what was kept, so the kept bytes are always the text the
document holds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
import pygls.io_
import xxhash

LARGE = 1 << 20
"""Bodies from this many bytes on are looked at for a full-text append."""

END = 2**31 - 1
"""A line past the end of any document: a position there is the end of the text."""

_KEY = re.compile(rb'"text"\s*:\s*"')
"""The ``text`` member of a message, up to the opening quote of its value."""

_REST = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*"')
"""The rest of a JSON string's content, up to and including its closing quote."""

_DOC_METHODS = (
    "textDocument/didOpen",
    "textDocument/didChange",
    "textDocument/didClose",
)


@dataclass(frozen=True, slots=True)
class _Kept:
    """What is kept of a document's last full text: its encoded length and their hash."""

    length: int
    hash: xxhash.xxh3_128


class FullTexts:
    """The encoded last full text of each document (as a hash), and decoding of appends to it.

    A hash that matches bytes other than the kept text (a 128-bit collision, some 2**-128
    for bytes nobody chose to collide) would make a change look like an append.
    """

    def __init__(self) -> None:
        self._texts: dict[str, _Kept] = {}

    def loads(self, body: bytes) -> Any:
        """Decode one message body (a dict for any JSON-RPC message).

        Only text orjson decoded is kept: it holds no lone surrogate, so the kept bytes
        end between two characters and the bytes after them decode on their own.
        """
        if len(body) >= LARGE and self._texts:
            found = self._append(body)
            if found is not None:
                return found
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            data = json.loads(body)
            self._observe(data, body, keep=False)
            return data
        self._observe(data, body, keep=True)
        return data

    def _observe(self, data: Any, body: bytes, keep: bool) -> None:
        """Keep the text of a didOpen or full-text didChange; forget on anything else."""
        if not isinstance(data, dict) or data.get("method") not in _DOC_METHODS:
            return
        uri = _uri(data)
        if uri is None:
            return
        self._texts.pop(uri, None)
        if keep and _full_text(data) is not None and len(body) >= LARGE:
            span = _text_span(body, data)
            if span is not None:
                start, close = span
                self._texts[uri] = _Kept(close - start, xxhash.xxh3_128(memoryview(body)[start:close]))

    def _append(self, body: bytes) -> dict[str, Any] | None:
        """The message as an insertion at the end, when it is a full-text append."""
        key = _KEY.search(body, 0, 4096)
        if key is None:
            return None
        start = key.end()
        view = memoryview(body)
        for uri, kept in self._texts.items():
            if orjson.dumps(uri) not in body[: key.start()]:
                continue
            pos = start + kept.length
            if pos > len(body) or xxhash.xxh3_128_digest(view[start:pos]) != kept.hash.digest():
                return None
            rest = _REST.match(body, pos)
            if rest is None:
                return None
            close = rest.end() - 1
            try:
                envelope = orjson.loads(body[: start - 1] + b'""' + body[close + 1 :])
                tail = orjson.loads(b'"' + body[pos:close] + b'"')
            except orjson.JSONDecodeError:
                return None
            if (
                not isinstance(envelope, dict)
                or _full_text(envelope) != ""
                or _uri(envelope) != uri
            ):
                return None
            grown = kept.hash.copy()
            grown.update(view[pos:close])
            self._texts[uri] = _Kept(close - start, grown)
            end = {"line": END, "character": 0}
            change = {"range": {"start": end, "end": dict(end)}, "text": tail}
            envelope["params"]["contentChanges"] = [change]
            return envelope
        return None


def _uri(data: dict[str, Any]) -> str | None:
    """The ``params.textDocument.uri`` of a message, if it is a string."""
    params = data.get("params")
    doc = params.get("textDocument") if isinstance(params, dict) else None
    uri = doc.get("uri") if isinstance(doc, dict) else None
    return uri if isinstance(uri, str) else None


def _full_text(data: dict[str, Any]) -> str | None:
    """The text of a didOpen, or of a didChange with one full-text change; else None."""
    params = data.get("params")
    if not isinstance(params, dict):
        return None
    if data.get("method") == "textDocument/didOpen":
        doc = params.get("textDocument")
        text = doc.get("text") if isinstance(doc, dict) else None
        return text if isinstance(text, str) else None
    if data.get("method") != "textDocument/didChange":
        return None
    changes = params.get("contentChanges")
    if not isinstance(changes, list) or len(changes) != 1 or not isinstance(changes[0], dict):
        return None
    change = changes[0]
    text = change.get("text")
    return text if list(change) == ["text"] and isinstance(text, str) else None


def _text_span(body: bytes, data: dict[str, Any]) -> tuple[int, int] | None:
    """Where in ``body`` the bytes that encode ``text`` (between its quotes) lie, or None.

    The value of the ``text`` member starts after its key; it ends at one of the last
    quotes of the body, the one for which the body with the value emptied decodes to the
    message with an empty text.
    """
    key = _KEY.search(body, 0, 4096)
    if key is None:
        return None
    start = key.end()
    expected = _emptied(data)
    close = len(body)
    for _ in range(32):
        close = body.rfind(b'"', start, close)
        if close < 0:
            return None
        try:
            envelope = orjson.loads(body[: start - 1] + b'""' + body[close + 1 :])
        except orjson.JSONDecodeError:
            continue
        if envelope == expected:
            return start, close
    return None


def _emptied(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a didOpen or a full-text didChange) with its text replaced by ``""``."""
    params = dict(data["params"])
    if data["method"] == "textDocument/didOpen":
        params["textDocument"] = {**params["textDocument"], "text": ""}
    else:
        params["contentChanges"] = [{"text": ""}]
    return {**data, "params": params}


class _Decoder:
    """Stands in for the ``json`` module inside :mod:`pygls.io_` (only ``loads`` is used)."""

    @staticmethod
    def loads(body: bytes | str, object_hook: Callable[[dict[str, Any]], Any] | None = None) -> Any:
        texts = getattr(getattr(object_hook, "__self__", None), "full_texts", None)
        if isinstance(texts, FullTexts) and isinstance(body, bytes):
            data = texts.loads(body)
        else:
            try:
                data = orjson.loads(body)
            except orjson.JSONDecodeError:
                return json.loads(body, object_hook=object_hook)
        # pygls's hook only structures the top-level message (the one with "jsonrpc")
        if object_hook is not None and isinstance(data, dict):
            return object_hook(data)
        return data


def install() -> None:
    """Decode incoming messages with orjson from now on (idempotent)."""
    pygls.io_.json = _Decoder  # type: ignore[assignment,attr-defined]
