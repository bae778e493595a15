"""The reader of stdin: on a pipe the event loop frames messages itself, exactly as the
blocking reader does, with no call of a worker thread."""

from __future__ import annotations

import asyncio
import io
import itertools
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pi_lsp.lsp.transport import MessageReader, _Frames

Message = tuple[list[bytes], bytearray | None]


def _framed(*bodies: bytes) -> bytes:
    return b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(b), b) for b in bodies)


@contextmanager
def _pipe(pieces: list[bytes]) -> Iterator[io.BufferedReader]:
    """A pipe whose read end is returned, and ``pieces`` written to it by a thread (each
    in one write), then closed."""
    read_fd, write_fd = os.pipe()

    def write() -> None:
        with os.fdopen(write_fd, "wb", buffering=0) as out:
            for piece in pieces:
                out.write(piece)

    writer = threading.Thread(target=write)
    writer.start()
    with os.fdopen(read_fd, "rb") as stream:
        try:
            yield stream
        finally:
            stream.close()  # a writer blocked on a full pipe gets EPIPE and ends
            writer.join()


class _Counting(ThreadPoolExecutor):
    calls = 0

    def submit(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return super().submit(*args, **kwargs)


async def _all(reader: MessageReader) -> list[Message]:
    """Every message up to the end of the stream, and that end."""
    out = []
    while True:
        lines, body = await reader.next_message()
        out.append((lines, body))
        if body is None:
            return out


def _blocking(stream: bytes) -> list[Message]:
    reader = MessageReader(io.BytesIO(stream))
    out = []
    while True:
        lines, body = reader.message()
        out.append((lines, body))
        if body is None:
            return out


def _cut(data: bytes, cuts: list[int]) -> list[bytes]:
    at = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(at)]


_HEADERS = st.sampled_from(
    [b"\r\n", b"Content-Type: x\r\n", b"Content-Length: 0\r\n", b"Content-Length: 3\r\n"]
)


@settings(max_examples=60, deadline=None)
@given(
    bodies=st.lists(st.binary(max_size=300), max_size=6),
    extra=st.lists(_HEADERS, max_size=3),
    tail=st.binary(max_size=40),
    cuts=st.lists(st.integers(min_value=0), max_size=12),
)
@example(bodies=[], extra=[b"Content-Length: 3\r\n"], tail=b"\t", cuts=[])  # a last blank line
def test_the_loop_frames_a_pipe_as_the_blocking_reader_reads_it(
    bodies: list[bytes], extra: list[bytes], tail: bytes, cuts: list[int]
) -> None:
    """Whatever the pieces the bytes arrive in: the same header lines and bodies, a
    stream that ends inside a header or a body included, with no worker-thread call."""
    stream = b"".join(extra) + _framed(*bodies) + tail
    pool = _Counting(max_workers=1)
    with _pipe(_cut(stream, cuts)) as pipe:
        got = asyncio.run(_all(MessageReader(pipe, pool)))
    pool.shutdown()
    assert got == _blocking(stream)
    assert pool.calls == 0


def test_many_small_messages_in_one_read_and_a_body_larger_than_the_pipe() -> None:
    small = [b'{"n":%d}' % n for n in range(5000)]  # some 70 KB: more than one read holds
    large = b"x" * (3 << 20)
    with _pipe([_framed(*small, large, b"{}")]) as pipe:
        got = asyncio.run(_all(MessageReader(pipe)))
    assert [body for _, body in got] == [*small, large, b"{}", None]


def test_the_loop_stops_reading_once_a_message_is_whole() -> None:
    """A client that sends faster than the server handles waits in the pipe: between
    two messages asked for, stdin is not watched, and what the pipe holds stays there."""
    second = b"y" * (1 << 18)
    read_fd, write_fd = os.pipe()
    os.write(write_fd, _framed(b"{}"))

    async def main() -> tuple[Message, bool]:
        with os.fdopen(read_fd, "rb") as stream:
            reader = MessageReader(stream)
            first = await reader.next_message()
            writer = threading.Thread(target=os.write, args=(write_fd, _framed(second)))
            writer.start()
            await asyncio.sleep(0.05)
            watched = asyncio.get_running_loop().remove_reader(read_fd)
            held = await reader.next_message()
            writer.join()
            assert held[1] == second
            return first, watched

    (lines, body), watched = asyncio.run(main())
    os.close(write_fd)
    assert body == b"{}" and lines == [b"Content-Length: 2\r\n", b"\r\n"]
    assert not watched


def test_a_loop_that_cannot_watch_stdin_reads_it_in_a_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*args: Any) -> None:
        raise NotImplementedError

    monkeypatch.setattr(asyncio.SelectorEventLoop, "add_reader", refuse)
    pool = _Counting(max_workers=1)
    with _pipe([_framed(b"{}", b"[]")]) as pipe:
        got = asyncio.run(_all(MessageReader(pipe, pool)))
    pool.shutdown()
    assert [body for _, body in got] == [b"{}", b"[]", None]
    assert pool.calls == 3


def test_a_descriptor_with_nothing_to_read_or_that_fails() -> None:
    """A non-blocking pipe with nothing in it is no end of the stream; a descriptor that
    fails is one (the server stops, rather than being told again and again that stdin is
    ready)."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    frames = _Frames()
    frames.feed(read_fd)
    assert not frames.ready and not frames.started()
    os.write(write_fd, b"Content-Length: 2\r\n\r\n{")
    frames.feed(read_fd)
    os.close(write_fd)
    os.close(read_fd)
    frames.feed(read_fd)  # EBADF
    assert list(frames.ready) == [([b"Content-Length: 2\r\n", b"\r\n"], bytearray(b"{"))]
