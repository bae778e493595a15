"""Minimal text edits on the core's terms, and writing their results to disk safely.

An edit replaces the text between two positions ``(line, column)`` of the document as it
was analysed, columns in code points (protocol layers convert them at the edge). Edits
inside one line, inserting or deleting whole lines, and appending lines at the end of the
file are all expressed that way, so untouched lines keep every byte.

Also here: fresh entry ids and timestamps as pi makes them (``generateId``,
``new Date().toISOString()``), JSON serialisation as ``JSON.stringify`` writes it, and an
atomic file writer that never loses the original (temporary file in the same directory,
``fsync``, ``os.replace``; optional backup; refuses when the file changed since it was read).
"""

from __future__ import annotations

import contextlib
import datetime
import os
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from .files import decode, read_bytes
from .jsonl import locate, member_keys
from .jsontext import stringify
from .lineindex import SplitText, split_lines

Pos = tuple[int, int]
"""A position in a document: ``(line, code-point column)``."""


class EditConflict(ValueError):
    """Two edits overlap, or an edit lies outside the document."""


class TextEdit(NamedTuple):
    """Replace the text from ``start`` to ``end`` (code-point positions) by ``text``."""

    start: Pos
    end: Pos
    text: str

    @classmethod
    def replace(cls, line: int, start: int, end: int, text: str) -> TextEdit:
        """Replace columns ``[start, end)`` of ``line`` by ``text``."""
        return cls((line, start), (line, end), text)

    @classmethod
    def insert(cls, line: int, column: int, text: str) -> TextEdit:
        """Insert ``text`` at ``column`` of ``line``."""
        return cls((line, column), (line, column), text)


def replace_text(split: SplitText, text: str) -> TextEdit:
    """The edit that replaces all of ``split`` by ``text``."""
    last = len(split.lines) - 1
    return TextEdit((0, 0), (last, len(split.lines[last])), text)


def delete_lines(split: SplitText, lines: Iterable[int]) -> list[TextEdit]:
    """Edits removing whole ``lines`` with their terminators; adjacent lines merge into one.

    The unterminated last line is removed up to the end of the text: the terminator of
    the line before it stays, so that line keeps every byte.
    """
    wanted = sorted(set(lines))
    runs: list[tuple[int, int]] = []
    for line in wanted:
        if runs and runs[-1][1] == line - 1:
            runs[-1] = (runs[-1][0], line)
        else:
            runs.append((line, line))
    edits = []
    for first, last in runs:
        if split.terminators[last]:
            edits.append(TextEdit((first, 0), (last + 1, 0), ""))
        else:
            edits.append(TextEdit((first, 0), (last, len(split.lines[last])), ""))
    return edits


def line_terminator(split: SplitText) -> str:
    """The terminator the file uses (that of its first terminated line; ``\\n`` by default)."""
    return next((t for t in split.terminators if t), "\n")


def append_lines(split: SplitText, texts: list[str]) -> TextEdit:
    """An edit adding ``texts`` as new lines after the last non-blank line.

    Blank lines that trail the file stay where they are (after the new lines). When the
    last non-blank line has no terminator, the new lines get one, as pi writes every line.
    """
    term = line_terminator(split)
    last = max((i for i, line in enumerate(split.lines) if line.strip()), default=-1)
    body = term.join(texts)
    if last < 0:
        return TextEdit((0, 0), (0, 0), body + term)
    end = len(split.lines[last])
    if split.terminators[last]:
        return TextEdit.insert(last, end, term + body)
    return TextEdit.insert(last, end, term + body + term)


def _offsets(split: SplitText) -> list[int]:
    out = []
    pos = 0
    for line, term in zip(split.lines, split.terminators, strict=True):
        out.append(pos)
        pos += len(line) + len(term)
    return out


def apply_edits(source: str | SplitText, edits: Iterable[TextEdit]) -> str:
    """The text after applying ``edits`` (all relative to ``source``; they must not overlap).

    Insertions at the same position are applied in the order given.
    """
    split = split_lines(source) if isinstance(source, str) else source
    text = (
        source
        if isinstance(source, str)
        else "".join(a + b for a, b in zip(split.lines, split.terminators, strict=True))
    )
    starts = _offsets(split)

    def offset(pos: Pos) -> int:
        line, column = pos
        if not 0 <= line < len(split.lines) or not 0 <= column <= len(split.lines[line]):
            raise EditConflict(f"position {pos} is outside the document")
        return starts[line] + column

    # by position, then in the order given (``n`` is unique: the texts are never compared)
    spans = sorted((offset(e.start), offset(e.end), n, e.text) for n, e in enumerate(edits))
    out = []
    cursor = 0
    for start, end, _, new in spans:
        if end < start:
            raise EditConflict("an edit ends before it starts")
        if start < cursor:
            raise EditConflict("edits overlap")
        out.append(text[cursor:start])
        out.append(new)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


# -- ids, timestamps and JSON as pi writes them ------------------------------------------


def fresh_id(taken: set[str]) -> str:
    """A new 8-hex id not in ``taken`` (pi's ``generateId``); it is added to ``taken``."""
    for _ in range(100):
        # the first 8 hex digits of a random UUID, as pi slices them, without making the
        # UUID (1.6 µs against 0.3: a v1 file's migration makes one per entry)
        ident = os.urandom(4).hex()
        if ident not in taken:
            taken.add(ident)
            return ident
    ident = str(uuid.uuid4())  # pi's fallback after 100 collisions
    taken.add(ident)
    return ident


def iso_timestamp(moment: datetime.datetime | None = None) -> str:
    """``moment`` (default: now) as ``new Date().toISOString()`` writes it: ms precision, ``Z``."""
    moment = moment or datetime.datetime.now(datetime.UTC)
    moment = moment.astimezone(datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def session_id(moment: datetime.datetime | None = None) -> str:
    """A new session id as pi makes them (``uuidv7``: time-ordered, random tail)."""
    moment = moment or datetime.datetime.now(datetime.UTC)
    millis = int(moment.timestamp() * 1000) & ((1 << 48) - 1)
    rand = int.from_bytes(os.urandom(10), "big")
    value = (millis << 80) | (0x7 << 76) | ((rand >> 68) & 0xFFF) << 64
    value |= (0b10 << 62) | (rand & ((1 << 62) - 1))
    return str(uuid.UUID(int=value))


def js_stringify(value: Any) -> str:
    """``value`` as ``JSON.stringify`` writes it: compact, non-ASCII characters raw, lone
    surrogates escaped, any nesting depth (see :func:`pi_lsp.core.text.jsontext.stringify`)."""
    return stringify(value)


# -- files -----------------------------------------------------------------------------


class FileChanged(RuntimeError):
    """The file on disk is not the one that was read (size, mtime or content differ)."""


class Snapshot(NamedTuple):
    """What a file looked like when it was read: size, modification time and content hash."""

    size: int
    mtime_ns: int
    sha256: str

    @classmethod
    def of(cls, path: Path, data: bytes) -> Snapshot:
        """The snapshot of ``path`` whose content ``data`` was just read."""
        st = path.stat()
        return cls(st.st_size, st.st_mtime_ns, _sha256(data))

    def matches(self, path: Path) -> bool:
        """True when ``path`` still has this size, mtime and content."""
        try:
            st = path.stat()
        except OSError:
            return False
        if st.st_size != self.size or st.st_mtime_ns != self.mtime_ns:
            return False
        return _sha256(path.read_bytes()) == self.sha256


def _sha256(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex."""
    import hashlib  # only when a file is written: the checker never needs it

    return hashlib.sha256(data).hexdigest()


def encode(text: str) -> bytes:
    """UTF-8 bytes of ``text``; bytes that were undecodable on reading come back unchanged."""
    return text.encode("utf-8", "surrogateescape")


def read_snapshot(path: Path) -> tuple[str, Snapshot]:
    """Read ``path`` as text (undecodable bytes kept as lone surrogates) with its snapshot."""
    data = read_bytes(path)
    return decode(data), Snapshot.of(path, data)


def backup_path(path: Path) -> Path:
    """A free backup name beside ``path``: ``NAME.bak``, else ``NAME.bak.1``, ``.bak.2``, ...

    The suffix keeps pi from listing the backup as a session (it reads ``*.jsonl`` only).
    """
    candidate = path.with_name(path.name + ".bak")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.bak.{n}")
        n += 1
    return candidate


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform can open a directory
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


_NEW_FILE = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)


def _temp_with(path: Path, data: bytes, mode: int | None) -> Path:
    """A new temporary file beside ``path`` holding ``data``, with ``mode`` (None: the mode a
    new file gets, 0o666 less the umask, as pi's own writes get; mkstemp would give 0600)."""
    for _ in range(100):
        tmp = path.parent / f".{path.name}.{os.urandom(4).hex()}.tmp"
        try:
            fd = os.open(tmp, _NEW_FILE, 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"no free temporary name beside {path}")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _backup(path: Path) -> Path:
    target = backup_path(path)
    try:
        os.link(path, target)  # the original inode survives the replace under this name
    except OSError:
        tmp = _temp_with(target, path.read_bytes(), path.stat().st_mode & 0o7777)
        os.replace(tmp, target)
    return target


def write_atomic(
    path: Path, data: bytes, *, expect: Snapshot | None = None, backup: bool = False
) -> Path | None:
    """Replace (or create) ``path`` with ``data`` atomically; return the backup's path, if any.

    With ``expect``, refuses (:class:`FileChanged`) when the file is no longer what was
    read. The data goes to a temporary file in the same directory, is flushed to disk and
    renamed over ``path``; on any error the original stays intact and the temporary file
    is removed.
    """
    if expect is not None and not expect.matches(path):
        raise FileChanged(f"{path} changed since it was read; not overwriting it")
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    tmp = _temp_with(path, data, mode)
    saved: Path | None = None
    try:
        if backup and path.exists():
            saved = _backup(path)
        if expect is not None and not expect.matches(path):
            raise FileChanged(f"{path} changed since it was read; not overwriting it")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        if saved is not None:
            saved.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)
    return saved


def write_new(path: Path, data: bytes) -> None:
    """Create ``path`` with ``data`` atomically; :class:`FileExistsError` if it exists."""
    tmp = _temp_with(path, data, None)
    try:
        os.link(tmp, path)  # fails if path exists: never clobbers
    except FileExistsError:
        tmp.unlink(missing_ok=True)
        raise
    except OSError:
        # no hard links here: fall back to a checked rename
        if path.exists():
            tmp.unlink(missing_ok=True)
            raise FileExistsError(str(path)) from None
        os.replace(tmp, path)
    else:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)


# -- edits of JSON members inside one line ------------------------------------------------


def set_members(
    text: str,
    line: int,
    pairs: list[tuple[str, str]],
    *,
    path: tuple[str | int, ...] = (),
    after: str | None = None,
) -> list[TextEdit]:
    """Edits giving the object at ``path`` in ``text`` each ``(key, json_value)`` of ``pairs``.

    A key that exists gets its (last, the one ``JSON.parse`` keeps) value replaced in place;
    missing keys are inserted together right after the member ``after`` (its last
    occurrence), or at the start of the object when there is no such member. Every other
    byte of the line stays as it is.
    """
    members = member_keys(text, path)
    last: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {}
    for key, key_span, value_span in members:
        last[key] = (key_span, value_span)
    edits = []
    missing = []
    for key, value in pairs:
        if key in last:
            start, end = last[key][1]
            edits.append(TextEdit.replace(line, start, end, value))
        else:
            missing.append(f"{js_stringify(key)}:{value}")
    if not missing:
        return edits
    body = ",".join(missing)
    if after is not None and after in last:
        edits.append(TextEdit.insert(line, last[after][1][1], "," + body))
    else:
        brace = locate(text, path).value[0]
        edits.append(TextEdit.insert(line, brace + 1, body + ("," if members else "")))
    return edits


def remove_members(
    text: str, line: int, keys: set[str], *, path: tuple[str | int, ...] = ()
) -> list[TextEdit]:
    """Edits removing every occurrence of ``keys`` (with one adjacent comma) from the object."""
    members = member_keys(text, path)
    removed = [i for i, (key, _, _) in enumerate(members) if key in keys]
    if not removed:
        return []
    kept = [i for i in range(len(members)) if i not in set(removed)]
    if not kept:
        return [TextEdit.replace(line, members[0][1][0], members[-1][2][1], "")]
    last_kept = kept[-1]
    edits = [
        TextEdit.replace(line, members[i][1][0], members[i + 1][1][0], "")
        for i in removed
        if i < last_kept
    ]
    if removed[-1] > last_kept:
        edits.append(TextEdit.replace(line, members[last_kept][2][1], members[-1][2][1], ""))
    return edits
