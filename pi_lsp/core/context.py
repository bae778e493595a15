"""The messages pi sends to the model: ``buildSessionContext`` of pi 0.73.1, line for line.

pi parses every line it can, migrates v1/v2 in memory, and walks from the leaf (the last
entry, or one named) to its root through ``parentId`` (an index by id where the last
entry with an id wins; a missing parent ends the walk). The path yields the thinking
level and model (last change wins; an assistant message sets the model), and messages:
``message`` entries as stored, ``custom_message`` as a ``custom`` message,
``branch_summary`` (with a non-empty summary) as a ``branchSummary``. With a compaction on
the path, the last one is emitted first as a ``compactionSummary``, then the entries from
its ``firstKeptEntryId`` up to it, then those after it. Newer pi versions add
``retainedTail`` to compactions (see the seeds): when present it replaces the entries
kept before the compaction.

Values follow JavaScript: a missing property is ``undefined``, and lookups and equality
are strict (``"1"`` is not ``1``). Where pi would loop forever (a parent cycle) the walk
stops and ``cycle`` is set.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from . import migrate
from .analysis import Analysis
from .describe import object_title
from .migrate import UNDEFINED, js_truthy


@dataclass(frozen=True, slots=True)
class ContextMessage:
    """One message of the context and the line of the entry it comes from."""

    line: int
    message: Any

    @property
    def role(self) -> Any:
        """The message's role (None when the message is not an object or has none)."""
        return self.message.get("role") if isinstance(self.message, dict) else None

    @property
    def title(self) -> str:
        """A one-line description of the message."""
        if not isinstance(self.message, dict):
            return "(not a message)"
        return object_title({"type": "message", "message": self.message})


@dataclass(slots=True)
class SessionContext:
    """What ``buildSessionContext`` returns, plus where it came from.

    ``leaf`` is the line of the entry the walk started from (None: no entries, or an
    explicit null leaf), ``path`` the lines root → leaf, ``cycle`` whether the walk met a
    parent cycle (pi hangs there).
    """

    messages: list[ContextMessage] = field(default_factory=list)
    thinking_level: Any = "off"
    model: dict[str, Any] | None = None
    leaf: int | None = None
    path: list[int] = field(default_factory=list)
    cycle: bool = False

    def to_json(self) -> dict[str, Any]:
        """The shape of the ``pi-lsp.context`` command and ``pi-lsp context --json``."""
        return {
            "messages": [{"role": m.role, "line": m.line, "title": m.title} for m in self.messages],
            "thinkingLevel": _plain(self.thinking_level),
            "model": None if self.model is None else {k: _plain(v) for k, v in self.model.items()},
        }


def _plain(value: Any) -> Any:
    return None if value is UNDEFINED else value


def _get(value: Any, key: str) -> Any:
    """``value[key]`` with JavaScript's ``undefined`` for anything missing."""
    if isinstance(value, dict):
        return value.get(key, UNDEFINED)
    return UNDEFINED


def _key(value: Any) -> Any:
    """A dict key with JavaScript ``Map`` semantics (SameValueZero; objects by identity)."""
    if value is UNDEFINED or value is None:
        return ("u",) if value is UNDEFINED else ("null",)
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int | float):
        return ("n", float(value))
    if isinstance(value, str):
        return ("s", value)
    return ("o", id(value))


def _same(a: Any, b: Any) -> bool:
    """JavaScript ``===`` on parsed JSON values."""
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return a is b
    return bool(_key(a) == _key(b))


def _millis(timestamp: Any) -> float | None:
    """``new Date(timestamp).getTime()`` for ISO strings (None for NaN)."""
    if not isinstance(timestamp, str):
        return None
    try:
        moment = datetime.datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.timestamp() * 1000


def _entry_messages(entry: Any) -> list[Any]:
    """pi's ``appendMessage`` inside ``buildSessionContext`` for one entry."""
    etype = _get(entry, "type")
    if etype == "message":
        return [_get(entry, "message")]
    if etype == "custom_message":
        return [
            {
                "role": "custom",
                "customType": _get(entry, "customType"),
                "content": _get(entry, "content"),
                "display": _get(entry, "display"),
                "details": _get(entry, "details"),
                "timestamp": _millis(_get(entry, "timestamp")),
            }
        ]
    if etype == "branch_summary" and js_truthy(_get(entry, "summary")):
        return [
            {
                "role": "branchSummary",
                "summary": _get(entry, "summary"),
                "fromId": _get(entry, "fromId"),
                "timestamp": _millis(_get(entry, "timestamp")),
            }
        ]
    return []


def entries_of(a: Analysis) -> list[tuple[int, Any]]:
    """pi's entries (header excluded) as ``(line, value)``, migrated when the file is v1/v2."""
    m = migrate.plan(a)
    if m is not None:
        values = migrate.migrated_values(a, m)
    else:
        values = [(line, a.infos[line].value) for line in migrate.parsed_lines(a)]
    return [(line, v) for line, v in values if _get(v, "type") != "session"]


def _walk(entries: list[tuple[int, Any]], leaf_id: Any) -> tuple[int | None, list[int], bool]:
    """The leaf's line, the path (lines root → leaf) and whether a cycle stopped the walk."""
    by_id: dict[Any, int] = {}
    for n, (_, value) in enumerate(entries):
        by_id[_key(_get(value, "id"))] = n
    start: int | None = None
    if leaf_id is not UNDEFINED and js_truthy(leaf_id):
        start = by_id.get(_key(leaf_id))
    if start is None:
        if not entries:
            return None, [], False
        start = len(entries) - 1
    path: list[int] = []
    seen: set[int] = set()
    current: int | None = start
    while current is not None:
        if current in seen:
            path.reverse()
            return start, path, True
        seen.add(current)
        path.append(current)
        parent = _get(entries[current][1], "parentId")
        current = by_id.get(_key(parent)) if js_truthy(parent) else None
    path.reverse()
    return start, path, False


def build_context(entries: list[tuple[int, Any]], leaf_id: Any = UNDEFINED) -> SessionContext:
    """``buildSessionContext(entries, leafId)`` over pi's (migrated) entries.

    ``leaf_id`` is ``UNDEFINED`` for the default leaf (the last entry), None for pi's
    explicit null leaf (no messages), or an id (unknown ids fall back to the last entry).
    """
    if leaf_id is None:
        return SessionContext()
    start, indices, cycle = _walk(entries, leaf_id)
    ctx = SessionContext(cycle=cycle)
    if start is None:
        return ctx
    ctx.leaf = entries[start][0]
    path = [entries[n] for n in indices]
    ctx.path = [line for line, _ in path]
    compaction: tuple[int, Any] | None = None
    for line, entry in path:
        etype = _get(entry, "type")
        if etype == "thinking_level_change":
            ctx.thinking_level = _get(entry, "thinkingLevel")
        elif etype == "model_change":
            ctx.model = {"provider": _get(entry, "provider"), "modelId": _get(entry, "modelId")}
        elif etype == "message" and _get(_get(entry, "message"), "role") == "assistant":
            message = _get(entry, "message")
            ctx.model = {"provider": _get(message, "provider"), "modelId": _get(message, "model")}
        elif etype == "compaction":
            compaction = (line, entry)

    def emit(line: int, entry: Any) -> None:
        ctx.messages.extend(ContextMessage(line, m) for m in _entry_messages(entry))

    if compaction is None:
        for line, entry in path:
            emit(line, entry)
        return ctx
    c_line, c_entry = compaction
    ctx.messages.append(
        ContextMessage(
            c_line,
            {
                "role": "compactionSummary",
                "summary": _get(c_entry, "summary"),
                "tokensBefore": _get(c_entry, "tokensBefore"),
                "timestamp": _millis(_get(c_entry, "timestamp")),
            },
        )
    )
    c_id = _get(c_entry, "id")
    index = next(
        (
            n
            for n, (_, e) in enumerate(path)
            if _get(e, "type") == "compaction" and _same(_get(e, "id"), c_id)
        ),
        -1,
    )
    tail = _get(c_entry, "retainedTail")
    if isinstance(tail, list):
        ctx.messages.extend(ContextMessage(c_line, m) for m in tail)
    else:
        first_kept = _get(c_entry, "firstKeptEntryId")
        found = False
        for line, entry in path[: max(index, 0)]:
            if _same(_get(entry, "id"), first_kept):
                found = True
            if found:
                emit(line, entry)
    for line, entry in path[index + 1 :]:
        emit(line, entry)
    return ctx


def session_context(
    a: Analysis, leaf_id: Any = UNDEFINED, leaf_line: int | None = None
) -> SessionContext:
    """The context pi builds for the document ``a`` (migrated in memory when v1/v2).

    The leaf is ``leaf_id`` (see :func:`build_context`) or, when ``leaf_line`` is given,
    the entry on that line (how v1 entries, which have no ids yet, are named); a line
    that holds no entry falls back to the last entry, as an unknown id does.
    """
    entries = entries_of(a)
    if leaf_line is not None:
        leaf_id = next((_get(v, "id") for line, v in entries if line == leaf_line), UNDEFINED)
    return build_context(entries, leaf_id)
