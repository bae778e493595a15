"""Session files on disk: reading and decoding, discovery, pi's directory and file names."""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import BinaryIO, NamedTuple

import xxhash

from .lineindex import Lines, SplitText, Stored, pack, split_lines


def decode(data: bytes | memoryview) -> str:
    """UTF-8 text; undecodable bytes survive as lone surrogates (reported as PI001)."""
    try:
        return str(data, "utf-8")
    except UnicodeDecodeError:
        return str(data, "utf-8", "surrogateescape")


class Stamp(NamedTuple):
    """What tells one version of a file from the next: the file itself (device and inode,
    so a file replaced by another is another), its size and modification time."""

    device: int
    inode: int
    size: int
    mtime_ns: int


def stamp(path: str | PurePath) -> Stamp | None:
    """The file's stamp; None when it is gone or no regular file."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return Stamp(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def read_bytes(path: Path) -> bytes:
    """A regular file's bytes; anything else (a FIFO, a device) is refused, never blocked on."""
    _refuse_irregular(path)
    return path.read_bytes()


def _refuse_irregular(path: Path) -> None:
    """Raise OSError (EINVAL) for anything but a regular file, before it is opened."""
    if not stat.S_ISREG(path.stat().st_mode):
        raise OSError(errno.EINVAL, "not a regular file", str(path))


def read_text(path: Path) -> str:
    """Read a whole file as text (see :func:`decode`)."""
    return decode(read_bytes(path))


def cannot_read(path: str | PurePath, exc: OSError) -> str:
    """The one wording of a file that could not be read: ``PATH: cannot read: REASON``."""
    return f"{path}: cannot read: {exc.strerror or exc}"


_CHUNK = 256 << 10
"""Bytes :func:`read_lines` reads at a time."""


def read_lines(path: Path) -> SplitText:
    """A file's lines, decoded one by one (never the whole text as one ``str``).

    Same result as ``split_lines(read_text(path))``. The file is read :data:`_CHUNK` bytes
    at a time, so peak memory is the lines (held compactly,
    :class:`~pi_lsp.core.text.lineindex.Lines`) and one chunk: not the whole file's bytes too, nor one
    ``str`` of the whole text (which CPython stores at up to 4 bytes per character once a
    single emoji appears in it). A file with a carriage return (pi writes none) is read
    whole and split as text.
    """
    return _read(path, None)[0]


class Mark(NamedTuple):
    """Where a read of a file ended (:func:`read_marked`): the bytes read, where the last
    line starts among them, and their XXH3-128 state, by which :func:`read_grown` tells
    that the file only grew since. A file whose first bytes hash the same but differ (a
    128-bit collision, some 2**-128 for bytes nobody chose to collide) would pass for one
    that grew."""

    size: int
    last_start: int
    state: xxhash.xxh3_128


def read_marked(path: Path) -> tuple[SplitText, Mark | None]:
    """:func:`read_lines`, and the :class:`Mark` of what was read (None for a file split
    as text: one with a carriage return)."""
    return _read(path, xxhash.xxh3_128())


def _read(path: Path, state: xxhash.xxh3_128 | None) -> tuple[SplitText, Mark | None]:
    """:func:`read_lines`, hashing the bytes into ``state`` when given (then the mark)."""
    _refuse_irregular(path)
    reader = _Reader(state)
    try:
        with path.open("rb") as file:
            lines = Lines.from_raw(list(reader.lines(file)))
    except CarriageReturn:
        with path.open("rb") as file:
            return split_lines(decode(file.read())), None
    return SplitText.at_feeds(lines), reader.mark() if state is not None else None


def read_grown(path: Path, old: SplitText, mark: Mark) -> tuple[SplitText, Mark] | None:
    """:func:`read_marked` of a file that, since ``old`` and ``mark`` were read from it, only
    grew: ``old``'s lines but its last, which is read again with what follows (pi may have
    completed it), and the new ones; None when its first ``mark.size`` bytes are not those
    read (or it holds a carriage return): read it whole. Reads only the new bytes into
    lines; the old ones are read and hashed, not decoded."""
    _refuse_irregular(path)
    state = mark.state.copy()
    with path.open("rb") as file:
        if os.fstat(file.fileno()).st_size < mark.size:
            return None
        seen = xxhash.xxh3_128()
        left = mark.size
        while left > 0 and (chunk := file.read(min(_CHUNK, left))):
            seen.update(chunk)
            left -= len(chunk)
        if left or seen.digest() != state.digest():
            return None
        file.seek(mark.last_start)
        reader = _Reader(state, mark.last_start, hashed=mark.size)
        try:
            tail = list(reader.lines(file))
        except CarriageReturn:
            return None
    return SplitText.at_feeds(old.lines[:-1] + Lines.from_raw(tail)), reader.mark()


class CarriageReturn(Exception):
    """Raised by :func:`stream_lines` at a carriage return: such a file is split as text."""


def stream_lines(path: Path) -> Iterator[Stored]:
    """A file's lines one at a time, as :func:`read_lines` stores them (a file split at
    line feeds only: :class:`CarriageReturn` at the first carriage return), holding one
    chunk and one line at a time."""
    with path.open("rb") as file:
        yield from _Reader(None).lines(file)


class _Reader:
    """Splits a file read from ``at`` into stored lines, hashing the bytes past ``hashed``
    into ``state`` (when given), and knows where the last line starts."""

    def __init__(self, state: xxhash.xxh3_128 | None, at: int = 0, hashed: int = 0) -> None:
        self.state, self.at, self.hashed, self.last_start = state, at, hashed, at

    def lines(self, file: BinaryIO) -> Iterator[Stored]:
        """The lines from the file's position on (:class:`CarriageReturn` at a ``\r``)."""
        head: list[bytes] = []  # the start of a line that runs past the chunks read so far
        while chunk := file.read(_CHUNK):
            if b"\r" in chunk:
                raise CarriageReturn
            self._hash(chunk)
            start = 0
            while (end := chunk.find(b"\n", start)) >= 0:
                if head:
                    head.append(chunk[start:end])
                    yield _stored(b"".join(head))
                    head.clear()
                else:
                    yield _stored(chunk[start:end])
                start = end + 1
                self.last_start = self.at + start
            head.append(chunk[start:])
            self.at += len(chunk)
        yield _stored(b"".join(head))

    def _hash(self, chunk: bytes) -> None:
        if self.state is not None and self.at + len(chunk) > self.hashed:
            self.state.update(chunk[max(0, self.hashed - self.at) :])

    def mark(self) -> Mark:
        """The :class:`Mark` of what was read."""
        assert self.state is not None
        return Mark(self.at, self.last_start, self.state)


def _stored(line: bytes) -> Stored:
    """A line of a file as :class:`~pi_lsp.core.text.lineindex.Lines` stores it (see :func:`pack`):
    a line that is valid UTF-8 and stored as UTF-8 keeps the bytes read, never encoded
    again from its text (the UTF-8 of an emoji-wide ``str`` costs as much as its decoding)."""
    if line.isascii():
        return str(line, "ascii")
    try:
        return pack(str(line, "utf-8"), line)
    except UnicodeDecodeError:
        return pack(decode(line))


_SESSION_FILE = re.compile(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_(.+)\.jsonl")
"""How pi names a session file: ``<ISO time with ':' and '.' as '-'>_<session id>.jsonl``."""


def session_id_in_name(path: str) -> str | None:
    """The session id in the name of a file named as pi names sessions, else None.

    pi writes the header id verbatim (a UUID, or a custom id), so it is returned as is.
    """
    m = _SESSION_FILE.fullmatch(PurePath(path).name)
    return m.group(1) if m else None


def sessions_dir() -> Path:
    """pi's sessions directory: ``$PI_CODING_AGENT_DIR/sessions`` or ``~/.pi/agent/sessions``."""
    base = os.environ.get("PI_CODING_AGENT_DIR")
    root = Path(base).expanduser() if base else Path.home() / ".pi" / "agent"
    return root / "sessions"


def expand(paths: list[Path]) -> Iterator[Path]:
    """Files named, and session files under folders named (recursive, sorted).

    A session file ends in ``.jsonl`` in any case (``*.JSONL`` too). Symlinked folders are
    followed, each real folder once (a link back up the tree is no loop).
    """
    for path in paths:
        if path.is_dir():
            yield from sorted(_walk(path))
        else:
            yield path


def _walk(top: Path) -> Iterator[Path]:
    seen: set[str] = set()
    for folder, dirs, names in os.walk(top, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        for name in names:
            if name.lower().endswith(".jsonl"):
                path = Path(folder, name)
                if path.is_file():
                    yield path
