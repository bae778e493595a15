"""What the provider receives: pi's context after ``convertToLlm`` and pi-ai's ``transformMessages``.

``convertToLlm`` (``@earendil-works/pi-coding-agent`` ``dist/core/messages.js``) turns
custom, ``!`` command, branch-summary and compaction-summary messages into user messages
and drops ``!!`` commands and unknown roles. ``transformMessages``
(``@earendil-works/pi-ai`` ``dist/api/transform-messages.js``) then drops assistant turns
that ended in ``error`` or ``aborted``, answers every tool call still open when the next
assistant or user message arrives (or the context ends) with a synthetic ``"No result
provided"`` error result, and holds system messages that arrive while calls are open back
until the calls are answered. :func:`pairing_faults` applies the rule strict providers
(Anthropic) enforce on the result: every tool result directly follows the assistant turn
that holds its call (other results of that turn between), once.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, overload

from ..entries.lines import call_ids
from .context import SessionContext
from .loading import js_truthy

NO_RESULT = "No result provided"
"""The text of the result pi-ai synthesises for a tool call that was never answered."""

USER_ROLES = frozenset(
    {"user", "custom", "hookMessage", "bashExecution", "branchSummary", "compactionSummary"}
)
"""Roles ``convertToLlm`` sends as user messages (``bashExecution`` unless excluded)."""


class Sent(NamedTuple):
    """One message the provider receives: its role, the line of its source entry (None for
    a synthetic result), the tool call ids it holds (assistant) or answers (tool result).

    A named tuple, not a frozen dataclass: a request makes one per message of the context,
    and a frozen dataclass takes twice as long to make (the pairing of a session of 4,400
    small lines spent 2 ms on it)."""

    role: str
    line: int | None
    calls: tuple[str, ...] = ()
    answers: str | None = None

    @property
    def synthetic(self) -> bool:
        """A ``"No result provided"`` result pi-ai added for an unanswered call."""
        return self.line is None and self.role == "toolResult"


_ROLES = ("user", "assistant", "toolResult", "system")
_CODES = {role: code for code, role in enumerate(_ROLES)}
_WHOLE = 255
"""The role code of a message :class:`SentList` keeps as it is (any it cannot take apart)."""


def _sent(code: int, line: int, other: Any) -> Sent:
    """The message :class:`SentList` keeps in these columns."""
    if code == _WHOLE:
        return other  # type: ignore[no-any-return]
    at = None if line < 0 else line
    return Sent(_ROLES[code], at, other) if type(other) is tuple else Sent(_ROLES[code], at, (), other)


class SentList(Sequence[Sent]):
    """The messages of a request, as a list of :class:`Sent` would hold them, in 13 bytes
    each (a role code, a line, and a slot for the calls an assistant turn holds or the
    call a result answers), where a list of ``Sent`` takes 80; each is made again on
    read. A request keeps one message per message of the context."""

    __slots__ = ("_lines", "_other", "_roles")

    def __init__(self, items: Iterable[Sent] = ()) -> None:
        self._roles = bytearray()
        self._lines = array("i")
        self._other: list[Any] = []
        self.extend(items)

    def append(self, m: Sent) -> None:
        """Add ``m`` at the end."""
        self.add(*m)

    def add(
        self, role: str, line: int | None, calls: tuple[str, ...] = (), answers: str | None = None
    ) -> None:
        """Add ``Sent(role, line, calls, answers)`` at the end (without making it)."""
        code = _CODES.get(role, _WHOLE)
        if (calls and answers is not None) or (line is not None and line < 0):
            code = _WHOLE
        if code == _WHOLE:
            self._roles.append(code)
            self._lines.append(-1)
            self._other.append(Sent(role, line, calls, answers))
            return
        self._roles.append(code)
        self._lines.append(-1 if line is None else line)
        self._other.append(calls or answers)

    def extend(self, items: Iterable[Sent]) -> None:
        """Add each of ``items`` at the end."""
        if isinstance(items, SentList):
            self._roles += items._roles
            self._lines += items._lines
            self._other += items._other
            return
        for m in items:
            self.append(m)

    @overload
    def __getitem__(self, index: int) -> Sent: ...

    @overload
    def __getitem__(self, index: slice) -> SentList: ...

    def __getitem__(self, index: int | slice) -> Sent | SentList:
        if isinstance(index, slice):
            out = SentList()
            out._roles, out._lines = self._roles[index], self._lines[index]
            out._other = self._other[index]
            return out
        n = range(len(self._roles))[index]
        return _sent(self._roles[n], self._lines[n], self._other[n])

    def __len__(self) -> int:
        return len(self._roles)

    def __iter__(self) -> Iterator[Sent]:
        return map(_sent, self._roles, self._lines, self._other)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SentList):
            return (self._roles, self._lines, self._other) == (
                other._roles,
                other._lines,
                other._other,
            )
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SentList({list(self)!r})"


@dataclass(slots=True)
class Request:
    """The messages sent, and what ``transformMessages`` dropped (lines of assistant turns).

    ``synthetic`` holds, per result pi-ai synthesised, its index in ``messages``, the line
    of the assistant turn whose call it answers and the call id. ``open`` is where
    :func:`request` stood before it answered the calls still open at the end of the
    context, so a request of a context that only grew at its end resumes from there
    (:func:`request`'s ``previous``); ``faults`` memoises :func:`pairing_faults`, and
    ``kept_faults`` those of a resumed request's messages before ``open``'s.
    """

    messages: SentList = field(default_factory=SentList)
    dropped: list[int] = field(default_factory=list)
    synthetic: list[tuple[int, int | None, str]] = field(default_factory=list, compare=False)
    open: _Open | None = field(default=None, repr=False, compare=False)
    faults: list[PairingFault] | None = field(default=None, repr=False, compare=False)
    kept_faults: tuple[int, list[PairingFault]] | None = field(
        default=None, repr=False, compare=False
    )


class _Open(NamedTuple):
    """The state of :func:`request` after the context's ``consumed`` messages, before the
    end of the context closed the open calls: the first ``sent`` messages, the line of the
    last assistant turn sent (``turn``), its calls while any is ``pending``, those
    ``answered`` since, and the system messages ``held`` back meanwhile."""

    consumed: int
    sent: int
    turn: int | None
    pending: tuple[str, ...]
    answered: frozenset[str]
    held: tuple[Sent, ...]


def _get(value: Any, key: str) -> Any:
    """``value[key]``; None when ``value`` is no object or has no ``key`` (no caller tells
    a missing key from a null one)."""
    return value.get(key) if isinstance(value, dict) else None


_LLM_ROLES = {
    **dict.fromkeys(USER_ROLES, "user"),
    "system": "system",
    "assistant": "assistant",
    "toolResult": "toolResult",
}
"""The role ``convertToLlm`` gives each role it sends (``bashExecution`` unless excluded)."""


def llm_role(message: Any) -> str | None:
    """The role ``convertToLlm`` gives ``message``; None when it drops it."""
    role = _get(message, "role")
    if not isinstance(role, str):
        return None
    if role == "bashExecution" and js_truthy(_get(message, "excludeFromContext")):
        return None
    return _LLM_ROLES.get(role)


def entry_calls(obj: dict[str, Any]) -> tuple[tuple[int, str], ...]:
    """:func:`~pi_lsp.core.entries.lines.call_ids` of an assistant message entry (empty for any
    other entry; a line's :attr:`~pi_lsp.core.entries.lines.LineInfo.calls` holds them)."""
    message = obj.get("message")
    if obj.get("type") != "message" or not isinstance(message, dict):
        return ()
    return call_ids(message.get("content")) if message.get("role") == "assistant" else ()


def request(ctx: SessionContext, previous: Request | None = None) -> Request:
    """The provider request built from ``ctx`` (pi's ``convertToLlm`` then ``transformMessages``).

    ``previous`` is the request of a context whose messages are the first messages of
    ``ctx``'s (a context :func:`~pi_lsp.core.pi.context.extend_context` extended): only the
    messages after them are read, from where ``previous`` stood before the end of its
    context (the same result as a request built afresh, in proportion to the new messages).
    """
    out = Request()
    sent = out.messages
    start = 0
    pending: tuple[str, ...] = ()  # the calls of the last assistant turn, while any is open
    answered: set[str] = set()  # the calls answered since ``pending`` was set (only read then)
    held: list[Sent] = []  # system messages that arrived while ``pending`` was set
    turn: int | None = None  # the line of the last assistant turn sent
    if previous is not None and previous.open is not None:
        start, cut, turn, pending, was_answered, was_held = previous.open
        sent.extend(previous.messages[:cut])
        out.dropped.extend(previous.dropped)
        out.synthetic.extend(s for s in previous.synthetic if s[0] < cut)
        if previous.faults is not None:
            out.kept_faults = (cut, [f for f in previous.faults if f.index < cut])
        answered, held = set(was_answered), list(was_held)

    def close() -> None:
        """Answer the open calls, then send the held system messages."""
        nonlocal pending
        for call in pending:
            if call not in answered:
                out.synthetic.append((len(sent), turn, call))
                sent.add("toolResult", None, answers=call)
        pending = ()
        if held:
            sent.extend(held)
            held.clear()

    # held system messages come only while calls are open: with none open, close() has
    # nothing to do
    messages = ctx.messages
    for m in messages[start:]:
        info = m.source  # the message's facts, when its line's result keeps it
        if info is None:
            role = llm_role(m.message)
        elif info.role == "bashExecution":
            role = llm_role(m.message)  # excluded or not: read the message
        else:
            role = _LLM_ROLES.get(info.role) if isinstance(info.role, str) else None
        if role is None:
            continue
        if role == "assistant":
            if pending:
                close()
            stop = m.message.get("stopReason") if info is None else info.stop_reason
            if stop in ("error", "aborted"):
                out.dropped.append(m.line)
                continue
            found = call_ids(m.message.get("content")) if info is None else info.calls
            calls = tuple([ident for _, ident in found]) if found else ()
            if calls:
                pending, answered = calls, set()
            turn = m.line
            sent.add("assistant", m.line, calls)
        elif role == "toolResult":
            ref = m.message.get("toolCallId") if info is None else info.tool_call_id
            answer = ref if isinstance(ref, str) else None
            if answer is not None:
                answered.add(answer)
            sent.add("toolResult", m.line, answers=answer)
        elif role == "system":
            (held if pending else sent).append(Sent("system", m.line))
        else:  # user
            if pending:
                close()
            sent.add("user", m.line)
    out.open = _Open(len(messages), len(sent), turn, pending, frozenset(answered), tuple(held))
    if pending:
        close()
    return out


Fault = Literal["orphan", "duplicate"]


@dataclass(frozen=True, slots=True)
class PairingFault:
    """A sent tool result (``index`` into the request) that breaks the pairing rule."""

    index: int
    line: int | None
    call_id: str | None
    fault: Fault


def faults_of(req: Request) -> list[PairingFault]:
    """:func:`pairing_faults` of the request's messages (once per request; a resumed
    request reads only the messages it added)."""
    if req.faults is None:
        start, faults = req.kept_faults if req.kept_faults is not None else (0, [])
        req.faults = faults + pairing_faults(req.messages, start)
    return req.faults


def pairing_faults(messages: Sequence[Sent], start: int = 0) -> list[PairingFault]:
    """Tool results not directly after the assistant turn holding their call, or answered
    twice: those among ``messages[start:]``, after the messages before them."""
    owner: Sent | None = None  # the assistant turn whose results may follow here
    seen: set[str | None] = set()
    back = start - 1  # before start: the turn that only tool results follow, if any
    while back >= 0 and messages[back].role == "toolResult":
        back -= 1
    if back >= 0 and messages[back].role == "assistant":
        owner, seen = messages[back], {m.answers for m in messages[back + 1 : start]}
    faults = []
    for n, m in enumerate(messages[start:], start):
        if m.role == "assistant":
            owner, seen = m, set()
            continue
        if m.role != "toolResult":
            owner = None
            continue
        if owner is None or m.answers not in owner.calls:
            faults.append(PairingFault(n, m.line, m.answers, "orphan"))
        elif m.answers in seen:
            faults.append(PairingFault(n, m.line, m.answers, "duplicate"))
        seen.add(m.answers)
    return faults


NOT_SENT = "pi-ai drops failed and aborted assistant turns from every request"
"""Why an assistant message of the context is not sent (``notSent`` in the context view)."""


def sent_json(req: Request, first_line: int = 0) -> list[dict[str, Any]]:
    """The request as JSON: per message ``role``, ``line`` (counted from ``first_line``;
    None for a synthetic result), ``toolCallIds`` (assistant) or ``toolCallId`` (tool
    result), ``synthetic``: true for a result pi-ai added (the shape of the conformance
    oracle's ``sent``)."""
    out = []
    for m in req.messages:
        line = None if m.line is None else m.line + first_line
        item: dict[str, Any] = {"role": m.role, "line": line}
        if m.role == "toolResult":
            item["toolCallId"] = m.answers
        if m.role == "assistant":
            item["toolCallIds"] = list(m.calls)
        if m.synthetic:
            item["synthetic"] = True
        out.append(item)
    return out


def synthetic_after(req: Request) -> dict[int | None, list[str | None]]:
    """The calls pi-ai answers with a synthetic result, by the line of the sent message
    the results follow."""
    out: dict[int | None, list[str | None]] = {}
    last: int | None = None
    for m in req.messages:
        if m.synthetic:
            out.setdefault(last, []).append(m.answers)
        else:
            last = m.line
    return out


def synthetic_calls(req: Request) -> set[tuple[int | None, str | None]]:
    """``(line of the assistant turn, call id)`` of each call pi-ai answers with a
    synthetic result in ``req``."""
    return {(turn, call) for _, turn, call in req.synthetic}
