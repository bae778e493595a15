"""Fast decoding of incoming LSP messages (orjson, large texts by lines, appends from the
end) and encoding of outgoing ones (:func:`encode`).

pygls decodes every message body with ``json.loads(body, object_hook=...)``. A didOpen of
a 100 MB session is a 100 MB JSON string full of escapes, which ``json`` decodes at about
half orjson's speed. :func:`install` makes pygls's stdio/TCP reader decode with orjson
and then apply the same hook; bodies orjson rejects (lone surrogate escapes, which
JavaScript clients may send) still go through ``json``, so nothing is decoded differently.

A large didOpen or full-text didChange (:data:`LARGE` bytes on) is decoded by lines, so
the server never holds its text as one ``str`` beside its lines (CPython stores a whole
text at 4 bytes per character once a single emoji appears anywhere in it): the text's
bytes are decoded in pieces that each end with an escaped line feed and split into
lines piece by piece; the envelope is decoded with a marker in place of the text.
The handler (:mod:`pi_lsp.lsp.features.sync`) swaps the marker for the lines with
:meth:`FullTexts.take`, while the message is handled. A piece orjson rejects (a lone
surrogate escape) makes the whole message decode as any other. The body itself is freed
once decoded: pygls's reader loop keeps the last body until the next message arrives
(through a whole analysis), so the server reads stdin through :class:`MessageReader`,
whose ``bytearray`` bodies the decoder empties. On a pipe the event loop itself reads
and frames the messages (pygls's reader makes a worker-thread call per header line and
one for the body).

A client that reloads a file pi appended to sends its whole new text as one change.
:class:`FullTexts` (one per protocol) keeps, for each document, the length and a 128-bit
XXH3 hash of the JSON-encoded bytes of the last full text the client sent (a large
didOpen, or full-text didChange, decoded by lines or as an append): a few bytes, not a
second copy of the text. A large didChange whose text, as encoded bytes, starts with
bytes of that length and hash is decoded from the end only: the prefix is hashed where it
lies in the message (no copy, no decoding; a few ms for 40 MB), the rest of the string
and the envelope around it are decoded, and the change reaches the server as what it is:
the new text inserted at the end of the document (a ranged change whose position lies
past the last line, which the core clamps to the end of the text). Any other message
about the document (a ranged change, a close, a change the fast path does not
recognise) forgets what was kept, so the kept bytes are always the text the document
holds.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import stat
import sys
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import orjson
import pygls.io_
import xxhash

from pi_lsp.core.text.lineindex import Lines, SplitText, Stored, split_lines

LARGE = 1 << 20
"""Bodies from this many bytes on are looked at for a full-text append, or decoded by lines."""

CHUNK = 1 << 17
"""Bytes of a large text decoded at a time (each piece ends with an escaped line feed).

Each piece's ``str`` is freed once split: smaller pieces leave less freed heap behind them
(a 14 MB session held 3.21x its size at 64 KiB, its lines alone; 3.41x at 256 KiB),
larger ones take fewer calls (and were faster).
"""

Body = bytes | bytearray
"""A message body as read: ``bytes``, or a ``bytearray`` from :class:`MessageReader`."""

END = 2**31 - 1
"""A line past the end of any document: a position there is the end of the text."""

_CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")
"""A ``Content-Length`` header line, as pygls's reader loop matches it."""

_KEY = re.compile(rb'"text"\s*:\s*"')
"""The ``text`` member of a message, up to the opening quote of its value."""

_MARKER = "\0pi-lsp: the decoder holds this text as lines"
"""What a message decoded by lines carries as its text (:meth:`FullTexts.take` swaps it)."""

_MARKER_JSON = orjson.dumps(_MARKER)[1:-1]

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


@dataclass(frozen=True, slots=True)
class _Split:
    """The lines of the text of the message being handled, and the marker in its place."""

    marker: str
    text: SplitText


class FullTexts:
    """The encoded last full text of each document (as a hash), and decoding of appends to it.

    A hash that matches bytes other than the kept text (a 128-bit collision, some 2**-128
    for bytes nobody chose to collide) would make a change look like an append.
    """

    def __init__(self) -> None:
        self._texts: dict[str, _Kept] = {}
        self._split: _Split | None = None

    def loads(self, body: Body) -> Any:
        """Decode one message body (a dict for any JSON-RPC message).

        A large didOpen or full-text didChange is an append, or is decoded by lines (its
        text is then the marker that :meth:`take` swaps for the lines); other bodies are
        decoded whole. Only text orjson decoded is kept: it holds no lone surrogate, so
        the kept bytes end between two characters and the bytes after them decode on
        their own.
        """
        self._split = None
        key = _KEY.search(body, 0, 4096) if len(body) >= LARGE else None
        if key is not None:
            found = self._append(body, key) if self._texts else None
            if found is None:
                found = self._by_lines(body, key)
            if found is not None:
                return found
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            data = json.loads(body)
        self._forget(data)
        return data

    def take(self, text: str) -> SplitText:
        """The lines of ``text``, the text of the didOpen or full-text change being handled.

        The marker this decoder left in the message is swapped for the lines it decoded
        (once: they belong to the message being handled); any other text is split here.
        A marker whose lines are gone is a bug, never a document's text.
        """
        split, self._split = self._split, None
        if split is not None and text is split.marker:
            return split.text
        if text == _MARKER:
            raise RuntimeError("the decoded lines of this message are gone")
        return split_lines(text)

    def _forget(self, data: Any) -> None:
        """Forget the kept text of the document a didOpen, didChange or didClose is about."""
        if not isinstance(data, dict) or data.get("method") not in _DOC_METHODS:
            return
        uri = _uri(data)
        if uri is not None:
            self._texts.pop(uri, None)

    def _by_lines(self, body: Body, key: re.Match[bytes]) -> dict[str, Any] | None:
        """A didOpen or full-text didChange with its text decoded as lines (None: any other
        message, or a text to decode whole); ``key`` is its ``text`` member's key.

        The lines are kept for :meth:`take`, and the text's encoded length and hash for
        the next append.
        """
        if b'"range"' in body[: key.start()]:
            return None  # a ranged change (its key first, as VS Code writes it): decoded once, whole
        start = key.end()
        try:
            found = _lines(body, start)
            if found is None:
                return None
            text, close = found
            envelope = orjson.loads(body[:start] + _MARKER_JSON + body[close:])
        except orjson.JSONDecodeError:
            return None
        if not isinstance(envelope, dict):
            return None
        marker, uri = _full_text(envelope), _uri(envelope)
        if marker != _MARKER or uri is None:
            return None
        self._split = _Split(marker, text)
        self._texts[uri] = _Kept(close - start, xxhash.xxh3_128(memoryview(body)[start:close]))
        return envelope

    def _append(self, body: Body, key: re.Match[bytes]) -> dict[str, Any] | None:
        """The message as an insertion at the end, when it is a full-text append (``key``:
        its ``text`` member's key)."""
        start = key.end()
        with memoryview(body) as view:  # released on return: a bytearray body is emptied
            for uri, kept in self._texts.items():
                if orjson.dumps(uri) not in body[: key.start()]:
                    continue
                pos = start + kept.length
                if pos > len(body) or xxhash.xxh3_128_digest(view[start:pos]) != kept.hash.digest():
                    return None
                rest = _rest(body, pos)
                if rest is None:
                    return None
                tail, close = rest
                try:
                    envelope = orjson.loads(body[: start - 1] + b'""' + body[close + 1 :])
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


def _lines(body: Body, start: int) -> tuple[SplitText, int] | None:
    """The lines of the JSON string whose content starts at ``start`` in ``body``, and the
    index of its closing quote (None: no closing quote found).

    The string is decoded in pieces of about :data:`CHUNK` bytes, each ending with an
    escaped line feed, so no ``str`` of the whole text is made; as a piece ends with
    ``"\\n"``, the lines of the text are those of its pieces (each piece's last, empty,
    line dropped). Line breaks escaped otherwise (``\\r``, ``\\u000a``) are split inside
    a piece; a text with no ``\\n`` is one piece. The lines are gathered as they are stored
    (:class:`~pi_lsp.core.text.lineindex.Lines`), never decoded again. Raises
    :class:`orjson.JSONDecodeError` for a piece orjson rejects.
    """
    lines: list[Stored] = []
    terms: list[str] = []
    pos = start
    while (cut := _cut(body, pos + CHUNK)) >= 0:
        piece = split_lines(_string(body, pos, cut))
        lines += piece.lines.iter_raw()
        terms += piece.terminators
        del lines[-1], terms[-1]
        pos = cut
    rest = _rest(body, pos)
    if rest is None:
        return None
    last, close = rest
    piece = split_lines(last)
    lines += piece.lines.iter_raw()
    terms += piece.terminators
    return SplitText(Lines.from_raw(lines), terms), close


def _cut(body: Body, at: int) -> int:
    """Where a line feed escaped as ``\\n`` ends, from ``at`` on (-1: none).

    A line feed between two entries is followed by the next one's ``{``: that pair is
    looked for first, within :data:`CHUNK` bytes. Each ``\\n`` found needs its
    backslashes counted (:func:`_escaped`), and inside the lines, whose own escapes the
    message escapes once more, ``\\n`` is more common than a line feed (a generated
    100 MB session of tool output: 200,000 of them, 36,000 line feeds). Then any line
    feed will do.
    """
    for pattern, end in ((b"\\n{", at + CHUNK), (b"\\n", len(body))):
        start = at
        while (found := body.find(pattern, start, end)) >= 0:
            if not _escaped(body, found):
                return found + 2
            start = found + 2
    return -1


def _rest(body: Body, pos: int) -> tuple[str, int] | None:
    """The end of the JSON string that goes on at ``pos`` (an escape starts there or
    after): its content from ``pos`` decoded, and the index of its closing quote.

    The closing quote is the first unescaped quote from ``pos`` on, usually the last
    quote of the body or close to it. Going back from the end, a quote is tried when it
    is unescaped and the quote before it is escaped (or before ``pos``): content up to
    any later quote would hold the closing quote, and fails to decode.
    """
    quote = body.rfind(b'"', pos)
    for _ in range(32):
        if quote < 0:
            return None
        before = body.rfind(b'"', pos, quote)
        if not _escaped(body, quote) and (before < 0 or _escaped(body, before)):
            try:
                return _string(body, pos, quote), quote
            except orjson.JSONDecodeError:
                pass
        quote = before
    return None


def _escaped(body: Body, at: int) -> bool:
    """Whether the byte at ``at`` (inside a JSON string) follows an odd run of backslashes.

    The run ends at the string's opening quote at the latest.
    """
    run = at
    while body[run - 1] == 0x5C:
        run -= 1
    return (at - run) % 2 == 1


def _string(body: Body, start: int, end: int) -> str:
    """The JSON string content ``body[start:end]``, decoded (one copy of the bytes)."""
    text: str = orjson.loads(b"".join((b'"', memoryview(body)[start:end], b'"')))
    return text


class MessageReader:
    """pygls's reader of stdin: each message, header lines and body, read whole, the body
    into a ``bytearray``.

    On a pipe or a socket the event loop reads stdin itself (``loop.add_reader``): a
    message is framed where its bytes arrive, with no trip through a thread. pygls's own
    reader makes a worker-thread call per header line and another for the body, each a
    round trip between the event loop and a thread (an edit's message took 0.85-0.94 ms
    to reach the decoder; one call per message, 0.49-0.63). A body is read straight into
    its ``bytearray``; once a message is framed the loop stops reading until pygls's loop
    takes it, so a client that sends faster than the server handles waits in the pipe, as
    with a blocking reader. Anything else (a file, a terminal, a stream with no
    descriptor, an event loop that cannot watch one) is read blocking, one whole message
    per call of a worker thread (:meth:`message`).

    pygls's loop keeps the last body referenced until the next message arrives, so a
    large didOpen's bytes would stay through the analysis it starts; the decoder empties a
    ``bytearray`` body once decoded, which frees them.
    """

    def __init__(self, stdin: io.BufferedIOBase, executor: Executor | None = None) -> None:
        self._stdin = stdin
        self._executor = executor
        self._lines: deque[bytes] = deque()
        self._body: bytearray | None = None
        self._watched = _watchable(stdin)  # the descriptor the loop reads, if any
        self._frames = _Frames()
        self._woken: asyncio.Future[None] | None = None

    async def readline(self) -> bytes:
        """The next header line (empty at the end of the stream)."""
        if not self._lines:
            lines, self._body = await self.next_message()
            self._lines.extend(lines)
        return self._lines.popleft() if self._lines else b""

    async def readexactly(self, n: int) -> bytearray:
        """The body read with the header lines: the ``n`` bytes they announce (fewer at
        the end of the stream, and none after it: pygls's loop then stops)."""
        body, self._body = self._body, None
        return body if body is not None else bytearray()

    async def next_message(self) -> tuple[list[bytes], bytearray | None]:
        """The header lines of the next message and its body, as :meth:`message` gives
        them; read by the event loop where it can watch stdin."""
        loop = asyncio.get_running_loop()
        frames, fd = self._frames, self._watched
        while fd is not None and not frames.ready:
            self._woken = loop.create_future()
            try:
                loop.add_reader(fd, self._on_readable, fd)
            except (NotImplementedError, OSError, ValueError):
                if frames.started():
                    raise
                self._watched = fd = None  # this loop cannot watch it: read blocking
                break
            try:
                await self._woken
            finally:
                loop.remove_reader(fd)
        if frames.ready:
            return frames.ready.popleft()
        return await loop.run_in_executor(self._executor, self.message)

    def _on_readable(self, fd: int) -> None:
        """On the loop, when ``fd`` has bytes: read what is there (never blocks), frame it,
        and wake :meth:`next_message` once a message is whole or the stream ended."""
        self._frames.feed(fd)
        if self._frames.ready and self._woken is not None and not self._woken.done():
            self._woken.set_result(None)

    def message(self) -> tuple[list[bytes], bytearray | None]:
        """Blocking: the header lines of the next message, with the blank line that ends
        them, and its body (None when the stream ends first).

        As pygls's loop reads them: the first ``Content-Length`` line that matches
        (a zero length counts as none), then the first blank line.
        """
        lines: list[bytes] = []
        length = 0
        while line := self._stdin.readline():
            lines.append(line)
            if not length and (found := _CONTENT_LENGTH.fullmatch(line)):
                length = int(found.group(1))
            elif length and not line.strip():
                return lines, self.read(length)
        return lines, None

    def read(self, size: int) -> bytearray:
        """Blocking: the next ``size`` bytes (fewer at the end of the stream)."""
        body = bytearray(size)
        with memoryview(body) as view:
            got = 0
            while got < size and (n := self._stdin.readinto(view[got:])):
                got += n
        del body[got:]
        return body


def _watchable(stream: io.BufferedIOBase) -> int | None:
    """The descriptor of ``stream`` when it is a pipe or a socket (on Windows, never),
    else None. The reader must be the stream's only reader: it reads the descriptor."""
    if sys.platform == "win32":
        return None
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        return None
    return fd if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) else None


class _Frames:
    """Messages framed from bytes as they are read, header lines as pygls's loop reads
    them (the rules of :meth:`MessageReader.message`)."""

    READ = 1 << 16
    """Bytes read at a time outside a body."""

    def __init__(self) -> None:
        self.ready: deque[tuple[list[bytes], bytearray | None]] = deque()
        """Whole messages (header lines, body), and at the end of the stream what was read
        of the last one (its body cut short, or None)."""
        self._rest = bytearray()  # bytes read and not framed yet
        self._lines: list[bytes] = []
        self._length = 0
        self._body: bytearray | None = None
        self._got = 0

    def started(self) -> bool:
        """Whether anything was read yet."""
        return bool(self.ready or self._rest or self._lines or self._body is not None)

    def feed(self, fd: int) -> None:
        """Read what ``fd`` holds (one read: it does not block on a readable descriptor)
        and frame it. A descriptor that fails (a socket the client reset) ends the
        stream, as its end would: the server then stops as when the client exits,
        where a failing read left watched would be reported ready again and again."""
        body = self._body
        try:
            if body is not None:  # straight into the body
                with memoryview(body) as view:
                    n = os.readv(fd, [view[self._got :]])
                self._got += n
            else:
                data = os.read(fd, self.READ)
                n = len(data)
                self._rest += data
        except BlockingIOError:  # a non-blocking descriptor with nothing to read after all
            return
        except OSError:
            n = 0
        if n == 0:
            self._end()
        else:
            self._frame()

    def _frame(self) -> None:
        rest = self._rest
        while True:
            body = self._body
            if body is not None:
                taken = min(len(rest), len(body) - self._got)
                body[self._got : self._got + taken] = rest[:taken]
                del rest[:taken]
                self._got += taken
                if self._got < len(body):
                    return
                self.ready.append((self._lines, body))
                self._lines, self._length, self._body = [], 0, None
                continue
            end = rest.find(b"\n") + 1
            if not end:
                return
            line = bytes(rest[:end])
            del rest[:end]
            self._lines.append(line)
            if not self._length and (found := _CONTENT_LENGTH.fullmatch(line)):
                self._length = int(found.group(1))
            elif self._length and not line.strip():
                self._body, self._got = bytearray(self._length), 0

    def _end(self) -> None:
        """The stream ended: what was read of the last message (a header line cut short
        is kept as one, a body cut short is the bytes that came)."""
        if self._body is not None:
            del self._body[self._got :]
        if self._rest:
            line = bytes(self._rest)
            self._lines.append(line)
            if self._length and not line.strip():  # ends the headers, as readline gives it
                self._body = bytearray()  # of a body that never came
        self.ready.append((self._lines, self._body))
        self._lines, self._length, self._body, self._rest = [], 0, None, bytearray()


class _Decoder:
    """Stands in for the ``json`` module inside :mod:`pygls.io_` (only ``loads`` is used)."""

    @staticmethod
    def loads(
        body: Body | str,
        object_hook: Callable[[dict[str, Any]], Any] | None = None,
    ) -> Any:
        """The message in ``body``, structured by ``object_hook``; a ``bytearray`` body is
        emptied (see :class:`MessageReader`)."""
        try:
            return _Decoder._decode(body, object_hook)
        finally:
            if isinstance(body, bytearray):
                body.clear()

    @staticmethod
    def _decode(
        body: Body | str, object_hook: Callable[[dict[str, Any]], Any] | None
    ) -> Any:
        texts = getattr(getattr(object_hook, "__self__", None), "full_texts", None)
        if isinstance(texts, FullTexts) and not isinstance(body, str):
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


def encode(message: Any, default: Callable[[Any], Any]) -> bytes:
    """The JSON body of an outgoing message, as UTF-8 bytes.

    pygls encodes with ``json.dumps(message, default=...)``, every non-ASCII character
    escaped; this encodes with orjson and the same ``default`` (lsprotocol's attrs
    classes to what cattrs makes of them), about three times faster (the diagnostics of
    an edit, a document's symbols). A message orjson refuses (a lone surrogate in a
    string, an integer beyond 64 bits, a key that is not a string) is encoded by ``json``
    as pygls would.
    """
    try:
        return orjson.dumps(message, default=default)
    except orjson.JSONEncodeError:
        return json.dumps(message, default=default).encode("utf-8")


def install() -> None:
    """Decode incoming messages with orjson from now on (idempotent)."""
    pygls.io_.json = _Decoder  # type: ignore[assignment,attr-defined]
