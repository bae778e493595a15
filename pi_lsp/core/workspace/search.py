"""Finding entries again across session files: by id or id prefix, label, session name, words.

:func:`index_file` reads one file into a :class:`FileIndex` (one :class:`Record` per entry
worth finding); :func:`search` ranks the matches of a query over many of them:

1. an entry whose id is the query, then entries whose id starts with it (case-insensitive);
2. entries whose current label contains the query (the label's target is the match);
3. the ``session_info`` entry that set the session's current name, when it contains it;
4. user messages that contain every word of the query.

Texts are compared case-insensitively; a user message is searched in its first
:data:`TEXT_LIMIT` characters.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..entries.lines import parse
from ..entries.session_file import load
from ..text.files import read_lines
from ..views.describe import clip, object_title

TEXT_LIMIT = 2000
"""Characters of a user message that word search looks at."""

_ID_QUERY = re.compile(r"[\w.:-]+")


@dataclass(frozen=True, slots=True)
class Record:
    """An entry worth finding: its line, its id and what else can match."""

    line: int
    id: str | None
    label: str | None = None
    name: str | None = None
    text: str | None = None


@dataclass(slots=True)
class FileIndex:
    """Everything searchable in one file, and the ``(size, mtime_ns)`` it was read at."""

    path: str
    size: int = -1
    mtime_ns: int = -1
    records: list[Record] = field(default_factory=list)
    titles: dict[int, str] = field(default_factory=dict, repr=False)


@dataclass(frozen=True, slots=True)
class Match:
    """A found entry: where it is, its title and why it matched (``rank``: lower first)."""

    path: str
    line: int
    title: str
    why: str
    rank: int


def _user_text(message: dict[str, Any]) -> str | None:
    content = message.get("content")
    if isinstance(content, str):
        text = content[:TEXT_LIMIT]
    elif isinstance(content, list):
        parts: list[str] = []
        size = 0
        for block in content:
            if size >= TEXT_LIMIT:
                break
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"][: TEXT_LIMIT - size])
                size += len(parts[-1])
        text = " ".join(parts)
    else:
        return None
    return text.lower() or None


def stamp(path: str) -> tuple[int, int]:
    """``(size, mtime_ns)`` of a file, ``(-1, -1)`` when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return -1, -1
    return st.st_size, st.st_mtime_ns


def is_current(index: FileIndex) -> bool:
    """True while the file is as it was when indexed (same size and modification time)."""
    return index.size >= 0 and (index.size, index.mtime_ns) == stamp(index.path)


def index_file(path: str) -> FileIndex:
    """The searchable records of one file (none when it cannot be read; never raises)."""
    size, mtime = stamp(path)
    try:
        f = load(path)
    except OSError:
        return FileIndex(path, size, mtime)
    labels: dict[str, str | None] = {}
    name: tuple[int, str] | None = None  # the current session name and the line that set it
    for line in f.tree.entries:
        obj = f.infos[line].obj
        if obj.get("type") == "label" and isinstance(obj.get("targetId"), str):
            value = obj.get("label")
            labels[obj["targetId"]] = value if isinstance(value, str) and value else None
        elif obj.get("type") == "session_info":
            value = obj.get("name")
            given = value.strip() if isinstance(value, str) else ""
            name = (line, clip(given, 120)) if given else None
    records = []
    for line in f.tree.entries:
        obj = f.infos[line].obj
        ident = obj.get("id") if isinstance(obj.get("id"), str) else None
        message = obj.get("message")
        text = None
        if obj.get("type") == "message" and isinstance(message, dict) and message.get("role") == "user":
            text = _user_text(message)
        label = labels.get(ident) if ident is not None else None
        named = name[1] if name is not None and name[0] == line else None
        records.append(Record(line, ident, label, named, text))
    return FileIndex(path, size, mtime, records)


def _match(record: Record, folded: str, words: list[str], by_id: bool) -> tuple[int, str] | None:
    if by_id and record.id is not None:
        ident = record.id.lower()
        if ident == folded:
            return 0, "id"
        if ident.startswith(folded):
            return 1, "id prefix"
    if record.label is not None and folded in record.label.lower():
        return 2, "label"
    if record.name is not None and folded in record.name.lower():
        return 3, "session name"
    if record.text is not None and words and all(w in record.text for w in words):
        return 4, "user message"
    return None


def _titles(index: FileIndex, lines: set[int]) -> dict[int, str]:
    """Titles of some lines of a file, read again once (titles are not kept in the index)."""
    missing = lines - index.titles.keys()
    if missing:
        try:
            text = read_lines(Path(index.path)).lines
        except OSError:
            return index.titles
        for n in missing:
            if n < len(text):
                # the lines found were entries, which parse alike anywhere in a file
                index.titles[n] = object_title(parse(text[n]).obj)
    return index.titles


def count(indexes: Iterable[FileIndex], query: str) -> int:
    """How many matches :func:`search` finds with no limit (no title is read)."""
    return sum(1 for _ in _hits(indexes, query))


def _hits(
    indexes: Iterable[FileIndex], query: str
) -> Iterator[tuple[int, str, int, str, Record, FileIndex]]:
    """Every match as (rank, path, line, why, record, index), unsorted."""
    query = query.strip()
    if not query:
        return
    folded = query.lower()
    words = folded.split()
    by_id = _ID_QUERY.fullmatch(query) is not None
    for index in indexes:
        for record in index.records:
            hit = _match(record, folded, words, by_id)
            if hit is not None:
                yield hit[0], index.path, record.line, hit[1], record, index


def search(indexes: Iterable[FileIndex], query: str, limit: int | None = None) -> list[Match]:
    """Every match of ``query`` (ranked, then by path and line), at most ``limit``.

    A file that changed since it was indexed may show titles of its new lines.
    """
    hits = list(_hits(indexes, query))
    hits.sort(key=lambda h: h[:3])
    if limit is not None:
        del hits[limit:]
    wanted: dict[str, tuple[FileIndex, set[int]]] = {}
    for _, path, line, _, _, index in hits:
        wanted.setdefault(path, (index, set()))[1].add(line)
    titles = {path: _titles(index, lines) for path, (index, lines) in wanted.items()}
    found = []
    for rank, path, line, why, record, _ in hits:
        title = titles[path].get(line, "")
        if why == "label" and record.label is not None:
            title = f"🏷 {clip(record.label, 60)} · {title}"
        found.append(Match(path, line, title, why, rank))
    return found
