"""What one line is: parsed with pi's notion of validity, classified, and the facts the
passes over every entry read (role, tool calls); what is wrong with it on its own is
:mod:`pi_lsp.core.checks.line_checks`'s.

Everything here depends only on a line's text, so a result can be reused for any line with
the same text (the incremental path caches it). The line checks' findings are
:class:`Issue` objects with columns but no line number.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from enum import Enum
from typing import Any, NamedTuple

import orjson

from ..text.findings import Severity
from ..text.jsonl import JS_SPACE, ParseError, parse_line
from ..text.limits import MIB
from ..text.lineindex import Stored, plain, unpack, utf8_of

HEADER_TYPES = frozenset({"session", "session_header"})


class Kind(Enum):
    """What a line holds."""

    BLANK = "blank"
    INVALID = "invalid"
    OTHER = "other"
    HEADER = "header"
    ENTRY = "entry"


_BLANK, _INVALID, _HEADER, _ENTRY = Kind.BLANK, Kind.INVALID, Kind.HEADER, Kind.ENTRY
"""The kinds the hot paths test, as module globals (``Kind.ENTRY`` goes through the enum's
metaclass: several times the cost of a global lookup)."""


class LineRules(NamedTuple):
    """What line-local checks depend on besides the text."""

    fmt: str
    version: int
    large_line: int = MIB


@dataclass(slots=True)
class Issue:
    """A finding inside one line, without its line number."""

    code: str
    severity: Severity
    start: int
    end: int
    message: str
    data: dict[str, Any] | None = None


ABSENT: Any = type("Absent", (), {"__repr__": lambda self: "<absent>"})()
""":attr:`LineInfo.ident` or :attr:`LineInfo.parent` of an object without that key."""


_ON_DEMAND: Any = type("OnDemand", (), {"__repr__": lambda self: "<parsed on demand>"})()
"""What :attr:`LineInfo.held` is when the value is not kept but parsed again from
:attr:`LineInfo.source` each time it is read (:meth:`LineInfo.parsed_on_demand`)."""


@dataclass(slots=True, eq=False)
class LineInfo:
    """The result of parsing and checking one line on its own.

    ``edge_space`` is the span of whitespace at the very start or end of the file that
    ``JSON.parse`` rejects (a BOM, U+00A0, U+2028...): pi 0.73 trimmed it off the whole file,
    pi 1.6 parses the line with it (see :func:`parse`).

    ``role`` is the ``role`` of a ``message`` entry's message (None when the line is no
    such entry, its message no object, or the role missing or null), and ``calls`` the
    :func:`call_ids` of an assistant turn's content (empty for any other line): read once
    here, where the value was just parsed, for the passes over every entry (links,
    pairing), which would otherwise each look them up again through the objects of every
    line. ``ident`` and ``parent`` are the entry's ``id`` and ``parentId`` (:data:`ABSENT`
    when the object lacks the key, or the line is no object), read here for the tree;
    ``stop_reason`` is an assistant turn's ``stopReason`` and ``tool_call_id`` a tool
    result's ``toolCallId`` (None for any other line, or when missing).

    ``value`` is the parsed value. An analysis keeps it only where it is small beside its
    line or cheap to hold; otherwise (:meth:`parsed_on_demand`) ``held`` is
    :data:`_ON_DEMAND` and ``value`` parses ``source``, the line as
    :class:`~pi_lsp.core.text.lineindex.Lines` stores it, again on every read: a fresh
    object each time, equal to the one the line parsed to.
    """

    kind: Kind
    held: Any = None
    type: str | None = None
    error: ParseError | None = None
    issues: tuple[Issue, ...] = ()
    edge_space: tuple[int, int] | None = None
    role: Any = None
    calls: tuple[tuple[int, str], ...] = ()
    ident: Any = ABSENT
    parent: Any = ABSENT
    stop_reason: Any = None
    tool_call_id: Any = None
    source: Stored | None = None

    @property
    def value(self) -> Any:
        """The parsed value (None for a line that does not parse)."""
        held = self.held
        return held if held is not _ON_DEMAND else value_of(self.source)  # type: ignore[arg-type]

    @value.setter
    def value(self, value: Any) -> None:
        self.held = value
        self.source = None

    def parsed_on_demand(self, source: Stored) -> None:
        """Keep no value: parse ``source`` (this line as stored; never the first or last
        non-blank line, which :func:`parse` reads trimmed) whenever it is read."""
        if self.held is not None:
            self.held = _ON_DEMAND
            self.source = source

    def unchecked(self) -> LineInfo:
        """This parse without the issues of its checks, to be checked under another context."""
        return LineInfo(
            self.kind,
            self.held,
            self.type,
            self.error,
            (),
            self.edge_space,
            self.role,
            self.calls,
            self.ident,
            self.parent,
            self.stop_reason,
            self.tool_call_id,
            self.source,
        )

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not LineInfo:
            return NotImplemented
        assert isinstance(other, LineInfo)
        return (
            self.kind is other.kind
            and self.type == other.type
            and self.error == other.error
            and self.issues == other.issues
            and self.edge_space == other.edge_space
            and self.role == other.role
            and self.calls == other.calls
            and self.value == other.value  # as parsed, however each keeps it
        )

    __hash__ = None  # type: ignore[assignment]

    @property
    def parsed(self) -> bool:
        """True when ``JSON.parse`` accepts the line (pi keeps it, whatever the value)."""
        return self.kind is not _BLANK and self.kind is not _INVALID

    @property
    def obj(self) -> dict[str, Any]:
        """The parsed object (empty for lines that are not objects)."""
        value = self.value
        return value if isinstance(value, dict) else {}


def value_of(item: Stored) -> Any:
    """The value of a line, as :class:`~pi_lsp.core.text.lineindex.Lines` stores it, that
    :func:`parse` gives for a line that is neither the first nor the last non-blank one
    (None when it does not parse)."""
    line = plain(item)
    if line[:1] == (b"{" if line.__class__ is bytes else "{") and (
        line.__class__ is bytes or line.isascii()
    ):
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            pass
    text = unpack(line)
    if is_blank(text):
        return None
    return parse_line(text, utf8_of(line))[0]


def is_blank(text: str) -> bool:
    """True for a line that pi skips (empty after JavaScript's ``trim()``)."""
    if text[:1] == "{":  # nearly every line: no need for the regex
        return False
    m = JS_SPACE.match(text)
    return m is not None and m.end() == len(text)


_JS_SPACE_END = re.compile(JS_SPACE.pattern + r"\Z")


def parse(
    text: str, first: bool = False, last: bool = False, data: bytes | None = None
) -> LineInfo:
    """Classify one line as pi 1.6 reads it: blank, invalid JSON, other JSON, header or entry.

    pi 1.6 (since 0.78.1) gives each line to ``JSON.parse`` as it is; pi 0.73 trimmed the
    whole file first. ``first`` and ``last`` mark the first and last non-blank lines, where
    the two differ: whitespace that ``JSON.parse`` rejects before the first line's JSON (a
    BOM) or after the last line's (U+00A0) makes pi 1.6 skip a line pi 0.73 read. Such a
    line is invalid, with ``edge_space`` set; but a header stays a header (pi 1.6 then
    refuses the whole file, which :func:`check` reports), so the rest is still analysed.
    ``data`` is ``text`` in UTF-8 when the caller holds it (see :func:`parse_line`).
    """
    if is_blank(text):
        return LineInfo(_BLANK)
    value, error = parse_line(text, data)
    if error is not None:
        lead = JS_SPACE.match(text) if first else None
        trail = _JS_SPACE_END.search(text) if last else None
        start = lead.end() if lead else 0
        end = trail.start() if trail else len(text)
        if start or end < len(text):
            trimmed, trimmed_error = parse_line(text[start:end])
            if trimmed_error is None:
                space = (0, start) if start else (end, len(text))
                if start and isinstance(trimmed, dict) and trimmed.get("type") in HEADER_TYPES:
                    info = classify(trimmed)
                    info.edge_space = space
                    return info
                return LineInfo(Kind.INVALID, error=error, edge_space=space)
        return LineInfo(Kind.INVALID, error=error)
    return classify(value)


def call_ids(content: Any) -> tuple[tuple[int, str], ...]:
    """``(block index, id)`` of each tool call among a message's ``content`` blocks.

    The one reader of tool calls: a ``toolCall`` block with a string id. Only a string id
    names a call: pi-ai pairs results with calls by id, and a provider rejects a missing one.
    """
    calls: tuple[tuple[int, str], ...] = ()
    if isinstance(content, list):
        for n, block in enumerate(content):
            if isinstance(block, dict) and block.get("type") == "toolCall":
                ident = block.get("id")
                if isinstance(ident, str):
                    calls += ((n, ident),)
    return calls


def parse_stored(item: Stored) -> LineInfo | None:
    """:func:`parse` of a line given as :func:`~pi_lsp.core.text.lineindex.plain` gives it (its
    text, or its UTF-8 without lone surrogates), never the first or last
    non-blank line, with no call but orjson's: for a line that starts with ``{`` (so is not
    blank), is ASCII text or such UTF-8 (so orjson reads it as it is, as :func:`parse_line`
    would) and that orjson reads; None for any other line (parse its text)."""
    if item.__class__ is str:
        if item[:1] != "{" or not item.isascii():
            return None
    elif item[:1] != b"{":
        return None
    try:
        value = orjson.loads(item)
    except orjson.JSONDecodeError:
        return None
    return classify(value)


def _shared(value: Any) -> Any:
    """A short string one object for every line that holds it (a type, role or stop reason
    is kept per line as a fact: one object each would take more than the line's share)."""
    return sys.intern(value) if type(value) is str and len(value) <= 64 else value


def classify(value: Any) -> LineInfo:
    """The result of a line that parsed to ``value``, unchecked (made in one call: every
    line of a session is classified)."""
    if not isinstance(value, dict):
        return LineInfo(Kind.OTHER, value)
    ident, parent = value.get("id", ABSENT), value.get("parentId", ABSENT)
    kind = value.get("type")
    if not isinstance(kind, str):
        return LineInfo(Kind.OTHER, value, None, None, (), None, None, (), ident, parent)
    kind = _shared(kind)
    role: Any = None
    calls: tuple[tuple[int, str], ...] = ()
    stop: Any = None
    answers: Any = None
    message = value.get("message") if kind == "message" else None
    if isinstance(message, dict):
        role = _shared(message.get("role"))
        if role == "assistant":
            calls = call_ids(message.get("content"))
            stop = _shared(message.get("stopReason"))
        elif role == "toolResult":
            answers = message.get("toolCallId")
    return LineInfo(
        _HEADER if kind in HEADER_TYPES else _ENTRY,
        value, kind, None, (), None, role, calls, ident, parent, stop, answers,
    )  # fmt: skip


_DECODER = json.JSONDecoder(strict=True)
_ENTRY_START = '{"type":'
_BLANKS = re.compile(r"[ \t]*")
_GLUE_TRIES = 1000
"""At most this many ``{"type":`` positions are tried as the start of a glued entry."""


def glued_entries(text: str) -> list[tuple[int, bool]] | None:
    """Where a line holds several entries glued together: ``[(start, complete), ...]``.

    pi writes ``JSON.stringify(entry) + "\\n"``; when a write stops short (a crash) or the
    file lacks its final newline, the next entry lands on the same line. So the line is a
    run of complete objects, possibly after one entry cut off mid-write (``complete`` is
    False for that first piece). Entries start with ``{"type":``, which cannot occur inside
    a JSON string (its quotes would be escaped) but does open nested content blocks; those
    are tried and rejected. None unless the line holds at least two pieces.
    """
    start = len(text) - len(text.lstrip(" \t"))
    end = len(text.rstrip(" \t\r"))
    if not text.startswith(_ENTRY_START, start):
        return None

    def run_from(pos: int) -> list[int] | None:
        """The starts of the complete objects that fill the line from ``pos`` to its end."""
        starts: list[int] = []
        while True:
            try:
                value, stop = _DECODER.raw_decode(text, pos)
            except (ValueError, RecursionError):  # not JSON, or nested deeper than json allows
                return None
            if not isinstance(value, dict):
                return None
            starts.append(pos)
            stop = _BLANKS.match(text, stop).end()  # type: ignore[union-attr]
            if stop >= end:
                return starts
            if not text.startswith(_ENTRY_START, stop):
                return None
            pos = stop

    whole = run_from(start)
    if whole is not None:
        return [(s, True) for s in whole] if len(whole) > 1 else None
    nxt = text.find(_ENTRY_START, start + 1)
    for _ in range(_GLUE_TRIES):
        if nxt < 0:
            return None
        rest = run_from(nxt)
        if rest is not None:
            return [(start, False), *((s, True) for s in rest)]
        nxt = text.find(_ENTRY_START, nxt + 1)
    return None
