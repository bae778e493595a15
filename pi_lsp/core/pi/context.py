"""The messages pi sends to the model: pi 1.6's session projection, line for line.

pi parses every line it can, migrates v1/v2 in memory, and walks from the leaf (the last
entry, or one named) to its root through ``parentId`` (an index by id where the last
entry with an id wins; a missing parent ends the walk). Then, as
``@earendil-works/pi-coding-agent`` 1.6.0 does (``dist/core/session-manager.js``):

- ``buildContextEntries``: with a compaction on the path, the newest one comes first,
  then the non-system entries from its ``firstKeptEntryId`` up to it (a retain-none
  compaction names itself, so nothing is kept), then every entry after it;
- ``buildSessionProjection``: the latest ``context_edit`` among those entries for each
  target omits it (``replacement: null``) or replaces the content of its message; only
  the compaction at the head contributes messages (its ``systemMessage`` checkpoint, then
  its summary); ``message`` entries give their message (null content normalised),
  ``custom_message`` a ``custom`` message, ``branch_summary`` (with a summary) a
  ``branchSummary``;
- the thinking level and model come from the whole path (last change wins; an assistant
  message sets the model).

On files pi 0.73.1 reads (no system messages, context edits or checkpoints) this equals
0.73.1's ``buildSessionContext``. :func:`llm_text` is the text pi sends for a message after
``convertToLlm`` (``dist/core/messages.js``), with pi-ai's ``contentText`` joining text
blocks. Values follow JavaScript: a missing property is ``undefined``, and lookups and
equality are strict (``"1"`` is not ``1``). Where pi would loop forever (a parent cycle)
the walk stops and ``cycle`` is set.
"""

from __future__ import annotations

import bisect
import datetime
from array import array
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, overload

from ..entries.lines import ABSENT, LineInfo
from ..entries.model import Analysis
from . import migrate
from .loading import UNDEFINED, js_string, js_truthy, parsed_lines

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:"
    "\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUMMARY_SUFFIX = "</summary>"

EDITABLE_ROLES = ("user", "assistant", "toolResult", "custom")
"""Roles whose content a non-null context edit replaces (``projectContextEntry``)."""


@dataclass(slots=True, eq=False, repr=False)
class ContextMessage:
    """One message of the context and the line of the entry it comes from.

    ``edited`` is the line of the ``context_edit`` that replaced its content, if any. Never
    changed once made (not a frozen dataclass: a context makes one per message, and a
    frozen dataclass takes three times as long to make).

    A message taken as it is from a ``message`` entry may be kept by its line's result
    (``source``, see :func:`lean_context`) instead of as a value: ``message`` parses it
    again on each read, and :mod:`~pi_lsp.core.pi.sent` reads what it needs from the
    result's facts.
    """

    line: int
    held: Any
    edited: int | None = None
    source: LineInfo | None = None

    @property
    def message(self) -> Any:
        """The message (parsed again from ``source`` when kept there)."""
        if self.source is None:
            return self.held
        message = self.source.value["message"]  # a message entry's message: an object
        return _null_content(message) if message.get("content") is None else message

    @property
    def role(self) -> Any:
        """The message's role (None when the message is not an object or has none)."""
        if self.source is not None:
            return self.source.role
        return self.held.get("role") if isinstance(self.held, dict) else None

    @property
    def text(self) -> str | None:
        """What pi sends for it (:func:`llm_text`); None when ``convertToLlm`` drops it."""
        return llm_text(self.message)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ContextMessage):
            return NotImplemented
        return (self.line, self.edited, self.message) == (other.line, other.edited, other.message)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ContextMessage(line={self.line!r}, message={self.message!r}, edited={self.edited!r})"


def _message(line: int, item: Any) -> ContextMessage:
    """The message :class:`MessageList` keeps as ``line`` and ``item``."""
    return item if item.__class__ is ContextMessage else ContextMessage(line, None, None, item)


class MessageList(Sequence[ContextMessage]):
    """The messages of a context, as a list of them would hold them; a message its line's
    result keeps (``source`` only, see :class:`ContextMessage`) takes 12 bytes here (its
    line, and a slot holding the result), where its own object took 80, and is made again
    on each read. Every other message is kept as it is."""

    __slots__ = ("_items", "_lines")

    def __init__(self, items: Iterable[ContextMessage] = ()) -> None:
        self._lines = array("i")
        self._items: list[Any] = []
        self.extend(items)

    def append(self, m: ContextMessage) -> None:
        """Add ``m`` at the end."""
        lean = m.source is not None and m.held is None and m.edited is None and m.line >= 0
        self._lines.append(m.line if lean else -1)
        self._items.append(m.source if lean else m)

    def add_kept(self, line: int, source: LineInfo) -> None:
        """Add ``ContextMessage(line, None, None, source)`` at the end (without making it)."""
        self._lines.append(line)
        self._items.append(source)

    def extend(self, items: Iterable[ContextMessage]) -> None:
        """Add each of ``items`` at the end."""
        if isinstance(items, MessageList):
            self._lines += items._lines
            self._items += items._items
            return
        for m in items:
            self.append(m)

    @overload
    def __getitem__(self, index: int) -> ContextMessage: ...

    @overload
    def __getitem__(self, index: slice) -> MessageList: ...

    def __getitem__(self, index: int | slice) -> ContextMessage | MessageList:
        if isinstance(index, slice):
            out = MessageList()
            out._lines, out._items = self._lines[index], self._items[index]
            return out
        n = range(len(self._items))[index]
        return _message(self._lines[n], self._items[n])

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[ContextMessage]:
        return map(_message, self._lines, self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"MessageList({list(self)!r})"


@dataclass(slots=True)
class SessionContext:
    """What ``buildSessionProjection`` returns, plus where it came from.

    ``leaf`` is the line of the entry the walk started from (None: no entries, or an
    explicit null leaf), ``path`` the lines root → leaf, ``entries`` the lines of the
    context entries (``buildContextEntries``), ``edits`` the line of the winning
    ``context_edit`` for each target line, ``cycle`` whether the walk met a parent cycle
    (pi hangs there).
    """

    messages: MessageList = field(default_factory=MessageList)
    thinking_level: Any = "off"
    model: dict[str, Any] | None = None
    leaf: int | None = None
    leaf_id: Any = None
    path: list[int] = field(default_factory=list)
    entries: list[int] = field(default_factory=list)
    edits: dict[int, int] = field(default_factory=dict)
    cycle: bool = False


_NO_OBJECT: Mapping[str, Any] = MappingProxyType({})
"""A value that is no object, seen as one: every property is ``undefined``. Hot loops read
``(v if isinstance(v, dict) else _NO_OBJECT).get(key, UNDEFINED)``, :func:`_get` inline."""


def _get(value: Any, key: str) -> Any:
    """``value[key]`` with JavaScript's ``undefined`` for anything missing."""
    if isinstance(value, dict):
        return value.get(key, UNDEFINED)
    return UNDEFINED


def _key(value: Any) -> Any:
    """A dict key with JavaScript ``Map`` semantics (SameValueZero; objects by identity).

    A string is its own key (hot loops skip the call for strings: ``k if type(k) is str
    else _key(k)``); every other value's key is a tuple, so ``"1"``, ``1`` and ``True``
    stay three keys.
    """
    if type(value) is str:  # ids: the common case first
        return value
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int | float):
        return ("n", float(value))
    return ("o", id(value))  # objects, arrays and the singletons null and undefined


def _same(a: Any, b: Any) -> bool:
    """JavaScript ``===`` on parsed JSON values."""
    if type(a) is str and type(b) is str:  # ids: the common case first
        return a == b
    return bool(_key(a) == _key(b))  # objects and arrays by identity, as _key keys them


def _millis(timestamp: Any) -> float | None:
    """``new Date(timestamp).getTime()`` for ISO strings (None for NaN)."""
    if not isinstance(timestamp, str):
        return None
    try:
        moment = datetime.datetime.fromisoformat(timestamp)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.timestamp() * 1000


def content_text(content: Any, separator: str = "\n") -> str:
    """pi-ai's ``contentText``: a string as it is, else the text blocks joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return separator.join(
        _join_part(block.get("text"))  # missing or null: nothing
        for block in content
        if isinstance(block, dict) and block.get("type") == "text"
    )


def bash_execution_text(message: dict[str, Any]) -> str:
    """``bashExecutionToText``: how pi shows a ``!`` command to the model."""
    text = f"Ran `{js_string(_get(message, 'command'))}`\n"
    output = _get(message, "output")
    if js_truthy(output):
        text += f"```\n{js_string(output)}\n```"
    else:
        text += "(no output)"
    exit_code = _get(message, "exitCode")
    if js_truthy(_get(message, "cancelled")):
        text += "\n\n(command cancelled)"
    elif exit_code not in (None, UNDEFINED) and not _same(exit_code, 0):
        text += f"\n\nCommand exited with code {js_string(exit_code)}"
    full = _get(message, "fullOutputPath")
    if js_truthy(_get(message, "truncated")) and js_truthy(full):
        text += f"\n\n[Output truncated. Full output: {js_string(full)}]"
    return text


def _join_part(value: Any) -> str:
    """An item as ``Array.prototype.join`` writes it: null and undefined as nothing."""
    return "" if value is None or value is UNDEFINED else js_string(value)


def llm_text(message: Any) -> str | None:
    """The text pi sends for ``message`` after ``convertToLlm``; None when it is dropped.

    Summaries are wrapped as pi wraps them, custom and ``!`` command messages become user
    text, every other role keeps its content; text blocks are joined with ``\\n``.
    """
    role = _get(message, "role")
    if role == "bashExecution":
        if js_truthy(_get(message, "excludeFromContext")):
            return None
        return bash_execution_text(message)
    if role == "branchSummary":
        return BRANCH_SUMMARY_PREFIX + js_string(_get(message, "summary")) + BRANCH_SUMMARY_SUFFIX
    if role == "compactionSummary":
        return (
            COMPACTION_SUMMARY_PREFIX
            + js_string(_get(message, "summary"))
            + COMPACTION_SUMMARY_SUFFIX
        )
    if role in ("custom", "system", "user", "assistant", "toolResult"):
        return content_text(_get(message, "content"))
    return None


def dropped_reason(message: Any) -> str:
    """Why ``convertToLlm`` leaves ``message`` out (for a message :func:`llm_text` drops)."""
    if _get(message, "role") == "bashExecution":
        return "excludeFromContext: a !! command pi keeps out of the context"
    return "convertToLlm knows no such role and leaves the message out"


def _entry_messages(entry: Any) -> list[Any]:
    """pi's ``sessionEntryToContextMessages`` for one entry."""
    etype = _get(entry, "type")
    if etype == "message":
        message = _get(entry, "message")
        if _get(message, "content") in (None, UNDEFINED):
            return [_null_content(message)]
        return [message]
    if etype == "custom_message":
        content = _get(entry, "content")
        return [
            {
                "role": "custom",
                "customType": _get(entry, "customType"),
                "content": [] if content in (None, UNDEFINED) else content,
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
    if etype == "compaction":
        summary = {
            "role": "compactionSummary",
            "summary": _get(entry, "summary"),
            "tokensBefore": _get(entry, "tokensBefore"),
            "timestamp": _millis(_get(entry, "timestamp")),
        }
        checkpoint = _get(entry, "systemMessage")
        return [checkpoint, summary] if js_truthy(checkpoint) else [summary]
    return []


def _null_content(message: Any) -> Any:
    """The message of a ``message`` entry whose content is null or missing, as pi reads it:
    an empty string for a system message, no blocks for a user, assistant or tool result
    message, any other as it is."""
    role = _get(message, "role")
    if role == "system":
        return {**message, "content": ""}
    if role in ("user", "assistant", "toolResult"):
        return {**message, "content": []}
    return message


def _project(entry: Any, edit: Any) -> list[Any]:
    """pi's ``projectContextEntry``: the entry's messages under its latest edit, if any."""
    messages = _entry_messages(entry)
    if edit is UNDEFINED:
        return messages
    replacement = _get(edit, "replacement")
    if replacement is None:
        return []
    content = _get(replacement, "content")
    out = []
    for message in messages:
        role = _get(message, "role")
        if role not in EDITABLE_ROLES:
            out.append(message)
            continue
        if role in ("assistant", "toolResult") and isinstance(content, str):
            new: Any = [{"type": "text", "text": content}]
        else:
            new = content
        out.append({**message, "content": new})  # an editable role: message is an object
    return out


def is_system_message(entry: Any) -> bool:
    """A ``message`` entry holding a ``system`` message (dropped from a kept range)."""
    return bool(
        _get(entry, "type") == "message" and _get(_get(entry, "message"), "role") == "system"
    )


def entries_of(a: Analysis) -> list[tuple[int, Any]]:
    """pi's entries (header excluded) as ``(line, value)``, migrated when the file is v1/v2.

    Values are the analysis's: slim on long lines, enough for links and structure.
    """
    return _entries(a, migrate.value_plan(a))


def _entries(
    a: Analysis, m: migrate.Migration | None, full: Collection[int] = ()
) -> list[tuple[int, Any]]:
    """:func:`entries_of` under the migration ``m``, the values of the lines in ``full``
    read in full (:meth:`Analysis.value`)."""
    if m is None:  # a line's type is its value's (so no value is looked into here)
        infos = a.infos
        return [
            (line, a.value(line) if line in full else infos[line].value)
            for line in parsed_lines(a)
            if infos[line].type != "session"
        ]
    values = migrate.migrated_values(a, m, full)
    return [(line, v) for line, v in values if not (isinstance(v, dict) and v.get("type") == "session")]


def entry_index(entries: list[tuple[int, Any]]) -> dict[Any, int]:
    """pi's ``byId`` over ``entries``: id → position (the last entry with an id wins)."""
    by_id: dict[Any, int] = {}
    for n, (_, value) in enumerate(entries):
        ident = value.get("id", UNDEFINED) if isinstance(value, dict) else UNDEFINED
        by_id[ident if type(ident) is str else _key(ident)] = n
    return by_id


def entry_key(entry: Any) -> Any:
    """The key of ``entry``'s id in :func:`entry_index`."""
    return _key(_get(entry, "id"))


def _walk(
    entries: list[tuple[int, Any]], leaf_id: Any, by_id: Mapping[Any, int]
) -> tuple[int | None, list[tuple[int, Any]], bool]:
    """The leaf's index, the path (items of ``entries``, root → leaf) and whether a cycle
    stopped the walk."""
    start: int | None = None
    if leaf_id is not UNDEFINED and js_truthy(leaf_id):
        start = by_id.get(_key(leaf_id))
    if start is None:
        if not entries:
            return None, [], False
        start = len(entries) - 1
    path: list[tuple[int, Any]] = []
    seen: set[int] = set()
    current: int | None = start
    while current is not None:
        if current in seen:
            path.reverse()
            return start, path, True
        seen.add(current)
        item = entries[current]
        path.append(item)
        current = _parent_index(item[1], by_id)
    path.reverse()
    return start, path, False


def _parent_index(entry: Any, by_id: Mapping[Any, int]) -> int | None:
    """Where pi's walk goes from ``entry``: the index of the entry its ``parentId`` names
    (a falsy parentId, or one that names no entry, ends the walk: None)."""
    parent = entry.get("parentId", UNDEFINED) if isinstance(entry, dict) else UNDEFINED
    if type(parent) is str:  # ids: the common case first (a string is its own key)
        return by_id.get(parent) if parent else None
    return by_id.get(_key(parent)) if js_truthy(parent) else None


def _compacted(path: list[tuple[int, Any]], at: int) -> list[tuple[int, Any]]:
    """pi's ``buildContextEntries`` over a path (``(line, entry)`` root → leaf) whose newest
    compaction is ``path[at]``."""
    compaction = path[at][1]
    c_id = _get(compaction, "id")
    # the compaction is on the path and its id is _same as itself: pi's findIndex always
    # finds an index, so its "< 0" fallback (the whole path) never applies
    index = next(n for n, (_, e) in enumerate(path) if _same(_get(e, "id"), c_id))
    out = [next(le for le in path if le[1] is compaction)]
    first_kept = _get(compaction, "firstKeptEntryId")
    found = False
    for line, entry in path[:index]:
        if _same(_get(entry, "id"), first_kept):
            found = True
        if found and not is_system_message(entry):
            out.append((line, entry))
    out.extend(path[index + 1 :])
    return out


def build_context(
    entries: list[tuple[int, Any]],
    leaf_id: Any = UNDEFINED,
    by_id: Mapping[Any, int] | None = None,
) -> SessionContext:
    """``buildSessionProjection(entries, leafId)`` over pi's (migrated) entries.

    ``leaf_id`` is ``UNDEFINED`` for the default leaf (the last entry), None for pi's
    explicit null leaf (no messages), or an id (unknown ids fall back to the last entry).
    ``by_id`` is :func:`entry_index` of ``entries`` when the caller builds many contexts.
    """
    if leaf_id is None:
        return SessionContext()
    start, path, cycle = _walk(
        entries, leaf_id, entry_index(entries) if by_id is None else by_id
    )
    ctx = SessionContext(cycle=cycle)
    if start is None:
        return ctx
    ctx.leaf, leaf = entries[start]
    ctx.leaf_id = _get(leaf, "id")
    ctx.path = [line for line, _ in path]
    compaction, edited = _read_path(ctx, path)
    if compaction < 0:
        selected = path
        ctx.entries = list(ctx.path)
    else:
        selected = _compacted(path, compaction)
        ctx.entries = [line for line, _ in selected]
    if not edited:  # no context edit on the path, so none among the selected entries
        _add_messages(ctx.messages, selected)
        return ctx
    edits: dict[Any, tuple[int, Any]] = {}
    for line, entry in selected:
        if _get(entry, "type") == "context_edit":
            edits[_key(_get(entry, "targetId"))] = (line, entry)
    for n, (line, entry) in enumerate(selected):
        if _get(entry, "type") == "compaction" and n > 0:
            continue
        edit_line, edit = edits.get(_key(_get(entry, "id")), (None, UNDEFINED))
        if edit_line is not None:
            ctx.edits[line] = edit_line
        # an edit that omits the entry projects no message, so each edited one has a replacement
        ctx.messages.extend(ContextMessage(line, m, edit_line) for m in _project(entry, edit))
    return ctx


def _read_path(ctx: SessionContext, path: list[tuple[int, Any]]) -> tuple[int, bool]:
    """One pass over ``path``: set ``ctx``'s thinking level and model to what they are
    after it (the last change wins; ``ctx``'s own when it changes neither), and return the
    position of the newest compaction on it (-1: none) and whether it holds a context edit."""
    thinking = ctx.thinking_level
    model: tuple[Any, str] | None = None  # where the model is read: an object, its id's key
    compaction = -1
    edited = False
    for n, (_, entry) in enumerate(path):
        e = entry if isinstance(entry, dict) else _NO_OBJECT
        etype = e.get("type", UNDEFINED)
        if etype == "message":
            message = e.get("message", UNDEFINED)
            if isinstance(message, dict) and message.get("role", UNDEFINED) == "assistant":
                model = (message, "model")
        elif etype == "thinking_level_change":
            thinking = e.get("thinkingLevel", UNDEFINED)
        elif etype == "model_change":
            model = (e, "modelId")
        elif etype == "compaction":
            compaction = n
        elif etype == "context_edit":
            edited = True
    ctx.thinking_level = thinking
    if model is not None:
        source, model_id = model
        ctx.model = {
            "provider": source.get("provider", UNDEFINED),
            "modelId": source.get(model_id, UNDEFINED),
        }
    return compaction, edited


def _add_messages(messages: MessageList, selected: list[tuple[int, Any]]) -> None:
    """Append the messages of the context entries ``selected`` when no edit applies: each
    entry's (``sessionEntryToContextMessages``), a compaction's only at the head."""
    head = True
    for line, entry in selected:
        e = entry if isinstance(entry, dict) else _NO_OBJECT
        etype = e.get("type", UNDEFINED)
        if etype == "message":  # the common case, as _entry_messages reads it
            message = e.get("message", UNDEFINED)
            if isinstance(message, dict):
                content = message.get("content", UNDEFINED)
                if content is None or content is UNDEFINED:
                    message = _null_content(message)
            messages.append(ContextMessage(line, message))
        elif etype != "compaction" or head:
            messages.extend(ContextMessage(line, m) for m in _entry_messages(entry))
        head = False


def _copy(ctx: SessionContext) -> SessionContext:
    """A copy of ``ctx`` to extend (its lists and edits copied, the rest shared)."""
    return SessionContext(
        thinking_level=ctx.thinking_level,
        model=ctx.model,
        leaf=ctx.leaf,
        leaf_id=ctx.leaf_id,
        path=list(ctx.path),
        entries=list(ctx.entries),
        edits=dict(ctx.edits),
        messages=ctx.messages[:],
    )


def extend_context(
    ctx: SessionContext, entries: list[tuple[int, Any]], by_id: Mapping[Any, int], start: int
) -> SessionContext | None:
    """:func:`build_context` of ``entries`` (default leaf) from ``ctx``, the one of
    ``entries[:start]``, when each later entry is a child of the one before it and neither
    a compaction nor a context edit; else None. No context edit may name a later entry
    (the caller knows: their targets all name entries of ``entries[:start]`` or none).
    Then the newest compaction and the edits stay, and each entry adds its messages at the
    end."""
    if ctx.cycle or ctx.leaf is None:  # the context of no entries has no leaf either
        return None
    new = entries[start:]
    for n, (_, entry) in enumerate(new, start):
        if (
            _get(entry, "type") in ("compaction", "context_edit")
            or _parent_index(entry, by_id) != n - 1
            or by_id.get(entry_key(entry)) != n
        ):
            return None
    out = _copy(ctx)
    if new:
        out.leaf, leaf = new[-1]
        out.leaf_id = _get(leaf, "id")
        lines = [line for line, _ in new]
        out.path.extend(lines)
        out.entries.extend(lines)
        _read_path(out, new)
        _add_messages(out.messages, new)
    return out


def lean_lines(a: Analysis) -> list[int] | None:
    """The lines of pi's entries (header excluded), in order, when the context can be built
    from each line's facts (:func:`lean_context`): a session holding no ``context_edit`` that
    pi does not migrate, or migrates from v2 only by its header's version (no
    ``hookMessage`` to rename); else None (build it from :func:`entries_of`)."""
    m = migrate.value_plan(a)
    if m is not None and (m.from_version != 2 or m.renamed):
        return None
    infos = a.infos
    lines = [line for line in parsed_lines(a) if infos[line].type != "session"]
    if any(infos[line].type == "context_edit" for line in lines):
        return None
    return lines


def _fact(value: Any) -> Any:
    """A :class:`~pi_lsp.core.entries.lines.LineInfo` id fact as :func:`_get` reads the key."""
    return UNDEFINED if value is ABSENT else value


def fact_key(value: Any) -> Any:
    """The :func:`entry_index` key of an entry whose ``id`` fact is ``value``."""
    return value if type(value) is str else _key(_fact(value))


class EntryIds(Mapping[Any, int]):
    """:func:`entry_index` of the entries on ``lines`` when they are the tree's entries and
    each has a string id: read from the tree's ``ids`` (each id's last line, as pi's
    ``byId`` keeps the last entry) and the position of that line in ``lines`` (ascending),
    so it holds no item per entry."""

    __slots__ = ("_ids", "_lines")

    def __init__(self, ids: Mapping[str, int], lines: list[int]) -> None:
        self._ids, self._lines = ids, lines

    def get(self, key: Any, default: Any = None) -> Any:
        line = self._ids.get(key) if type(key) is str else None
        if line is None:
            return default
        n = bisect.bisect_left(self._lines, line)
        return n if n < len(self._lines) and self._lines[n] == line else default

    def __getitem__(self, key: Any) -> int:
        n = self.get(key)
        if n is None:
            raise KeyError(key)
        return int(n)

    def __iter__(self) -> Iterator[Any]:
        return (key for key in self._ids if key in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def lean_index(a: Analysis, lines: list[int]) -> Mapping[Any, int]:
    """:func:`entry_index` of the entries on ``lines``, from their facts (an
    :class:`EntryIds` when it can be one)."""
    infos = a.infos
    if lines == a.tree.entries and all(type(infos[line].ident) is str for line in lines):
        return EntryIds(a.tree.ids, lines)
    return {fact_key(infos[line].ident): n for n, line in enumerate(lines)}


def extend_lean_index(
    by_id: Mapping[Any, int], a: Analysis, lines: list[int], start: int
) -> Mapping[Any, int]:
    """:func:`lean_index` of ``lines`` from ``by_id``, that of ``lines[:start]`` (the new
    entries' facts read only, and the lines compared with the tree's entries)."""
    infos = a.infos
    new = lines[start:]
    if (
        isinstance(by_id, EntryIds)
        and all(type(infos[line].ident) is str for line in new)
        and lines == a.tree.entries
    ):
        return EntryIds(a.tree.ids, lines)
    grown = dict(by_id)
    for n, line in enumerate(new, start):
        grown[fact_key(infos[line].ident)] = n
    return grown


def _parent_at(parent: Any, by_id: Mapping[Any, int]) -> int | None:
    """:func:`_parent_index` of an entry whose ``parentId`` fact is ``parent``."""
    if type(parent) is str:
        return by_id.get(parent) if parent else None
    return by_id.get(_key(parent)) if parent is not ABSENT and js_truthy(parent) else None


def lean_context(a: Analysis, lines: list[int], by_id: Mapping[Any, int]) -> SessionContext:
    """:func:`build_context` (default leaf) of the entries on ``lines`` (:func:`lean_lines`),
    ``by_id`` their :func:`lean_index`: the same context, walked and selected on the facts
    of each line's result, its messages kept by those results (no parsed value held; the
    few values it reads, a compaction's or the model's, are parsed for the moment)."""
    ctx = SessionContext()
    if not lines:
        return ctx
    infos = a.infos
    path: list[int] = []
    seen: set[int] = set()
    current: int | None = len(lines) - 1
    while current is not None:
        if current in seen:
            ctx.cycle = True
            break
        seen.add(current)
        path.append(lines[current])
        current = _parent_at(infos[lines[current]].parent, by_id)
    path.reverse()
    ctx.leaf = lines[-1]
    ctx.leaf_id = _fact(infos[ctx.leaf].ident)
    ctx.path = path
    compaction = _lean_read_path(ctx, a, path)
    selected = path if compaction < 0 else _lean_compacted(a, path, compaction)
    ctx.entries = list(selected)
    _lean_add_messages(ctx.messages, a, selected)
    return ctx


def _lean_read_path(ctx: SessionContext, a: Analysis, path: list[int]) -> int:
    """:func:`_read_path` of the entries on ``path`` (which holds no context edit): the
    position of the newest compaction (-1: none)."""
    infos = a.infos
    thinking = ctx.thinking_level
    model: tuple[int, str] | None = None  # the line the model is read from, and its key
    compaction = -1
    for n, line in enumerate(path):
        info = infos[line]
        etype = info.type
        if etype == "message":
            if info.role == "assistant":
                model = (line, "model")
        elif etype == "thinking_level_change":
            thinking = info.value.get("thinkingLevel", UNDEFINED)
        elif etype == "model_change":
            model = (line, "modelId")
        elif etype == "compaction":
            compaction = n
    ctx.thinking_level = thinking
    if model is not None:
        line, key = model
        source = infos[line].value
        if key == "model":
            source = source["message"]
        ctx.model = {"provider": source.get("provider", UNDEFINED), "modelId": source.get(key, UNDEFINED)}
    return compaction


def _lean_compacted(a: Analysis, path: list[int], at: int) -> list[int]:
    """:func:`_compacted` of the entries on ``path``, whose newest compaction is ``path[at]``."""
    infos = a.infos
    c_id = _fact(infos[path[at]].ident)
    index = next(n for n, line in enumerate(path) if _same(_fact(infos[line].ident), c_id))
    out = [path[at]]
    first_kept = _get(infos[path[at]].value, "firstKeptEntryId")
    found = False
    for line in path[:index]:
        info = infos[line]
        if _same(_fact(info.ident), first_kept):
            found = True
        if found and not (info.type == "message" and info.role == "system"):
            out.append(line)
    out.extend(path[index + 1 :])
    return out


def _lean_add_messages(messages: MessageList, a: Analysis, selected: list[int]) -> None:
    """:func:`_add_messages` of the entries on ``selected``: the message of a ``message``
    entry with a role is kept by its line's result."""
    infos = a.infos
    head = True
    for line in selected:
        info = infos[line]
        if info.type == "message" and info.role is not None:
            messages.add_kept(line, info)
        elif info.type != "compaction" or head:
            messages.extend(ContextMessage(line, m) for m in _entry_messages(info.value))
        head = False


def extend_lean_context(
    ctx: SessionContext, a: Analysis, lines: list[int], by_id: Mapping[Any, int], start: int
) -> SessionContext | None:
    """:func:`extend_context` for a context :func:`lean_context` built: ``lines`` and
    ``by_id`` are those of every entry, the new ones from ``start`` on."""
    if ctx.cycle or ctx.leaf is None:
        return None
    infos = a.infos
    new = lines[start:]
    for n, line in enumerate(new, start):
        info = infos[line]
        if (
            info.type in ("compaction", "context_edit")
            or _parent_at(info.parent, by_id) != n - 1
            or by_id.get(fact_key(info.ident)) != n
        ):
            return None
    out = _copy(ctx)
    if new:
        out.leaf = new[-1]
        out.leaf_id = _fact(infos[new[-1]].ident)
        out.path.extend(new)
        out.entries.extend(new)
        _lean_read_path(out, a, new)
        _lean_add_messages(out.messages, a, new)
    return out


def session_context(
    a: Analysis, leaf_id: Any = UNDEFINED, leaf_line: int | None = None
) -> SessionContext:
    """The context pi builds for the document ``a`` (migrated in memory when v1/v2).

    The leaf is ``leaf_id`` (see :func:`build_context`) or, when ``leaf_line`` is given,
    the entry on that line (how v1 entries, which have no ids yet, are named); a line
    that holds no entry falls back to the last entry, as an unknown id does.
    """
    m = migrate.value_plan(a)  # one plan: a v1 file's ids are made up by it
    entries = _entries(a, m)
    if leaf_line is not None:
        leaf_id = next((_get(v, "id") for line, v in entries if line == leaf_line), UNDEFINED)
    ctx = build_context(entries, leaf_id)
    # its messages carry texts: the same context again, from the path's values in full
    path = set(ctx.path)
    return build_context(_entries(a, m, path), leaf_id) if path else ctx
