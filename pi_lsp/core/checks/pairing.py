"""Does the session resume? Tool calls and results in the context pi sends (PI423-PI425).

Strict providers (Anthropic) reject a request whose tool results do not directly follow
the assistant turn holding their calls ("unexpected tool_use_id in tool_result"), and
pi sends the same broken context on every retry, so the session never resumes. This
module builds what the provider receives (:mod:`pi_lsp.core.pi.context`, then
:mod:`pi_lsp.core.pi.sent`) and reports each fault at the entry that causes it:

- PI423 (error for the leaf pi resumes from; warning for other leaves when no structural
  code below covers the cause): a sent tool result whose call is not right before it —
  summarised away by a compaction (on its ``firstKeptEntryId``), omitted or rewritten by
  a context edit (on the edit), dropped with an aborted or failed turn (on that turn),
  answered early because a message sits between call and result (on that message), a
  call that is nowhere on the path, or a second answer (on the result).
- PI424 (warning): a compaction whose kept range starts inside a tool exchange, so the
  session breaks whenever it is the newest compaction on the path.
- PI425 (warning): an entry pi sends as a user message between an assistant's tool calls
  and their results; pi answers the calls with "No result provided" there and the real
  results become orphans.

The resumed leaf's request is built in full. Everywhere else the causes are found from
the tree, without building a request per leaf: compactions (PI424) and interlopers (PI425)
structurally, a dropped turn whose results stay by walking up from each result, and a
context edit by building the request that ends at the edit itself (newest first, until
:data:`EDIT_BUDGET` path entries have been walked). A cause reported as PI423 for the
resumed leaf gets nothing else.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from ..pi import context
from ..pi.loading import js_truthy, pi_accepts
from ..pi.sent import USER_ROLES, PairingFault, Request, entry_calls, faults_of, request
from ..text.findings import Finding, Related, Severity, Span

if TYPE_CHECKING:
    from ..entries.lines import LineInfo
    from ..entries.model import Analysis
    from ..entries.tree import Tree

EDIT_BUDGET = 200_000
"""Path entries walked for context edits off the resumed path (bounds huge trees)."""

REJECT = (
    "providers such as Anthropic reject every request built from it, so the session cannot resume"
)

Kind = Literal["compaction", "edit", "dropped", "interloper", "missing", "duplicate"]


class Cause(NamedTuple):
    """Why a sent tool result breaks the pairing: the ``line`` to blame and what it did."""

    kind: Kind
    line: int
    result: int | None
    call: int | None
    call_id: str | None


def _value(values: Mapping[int, Any], line: int) -> dict[str, Any]:
    value = values.get(line)
    return value if isinstance(value, dict) else {}


def message_of(obj: dict[str, Any]) -> dict[str, Any]:
    """The ``message`` of a ``message`` entry (empty for any other entry)."""
    message = obj.get("message")
    return message if obj.get("type") == "message" and isinstance(message, dict) else {}


def tool_calls(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool call blocks (:func:`~pi_lsp.core.pi.sent.entry_calls`) of an assistant message entry."""
    calls = entry_calls(obj)
    return [obj["message"]["content"][n] for n, _ in calls] if calls else []


def _call_ids(obj: dict[str, Any]) -> list[str]:
    """The ids of the tool calls an assistant message entry holds."""
    return [ident for _, ident in entry_calls(obj)]


def _path_call_ids(values: Mapping[int, Any], line: int) -> list[str]:
    """:func:`_call_ids` of the entry on ``line``: from its result's facts when ``values``
    reads the results (no value parsed), else from its value."""
    if isinstance(values, _Values):
        return [ident for _, ident in values.infos[line].calls]
    return _call_ids(_value(values, line))


def holds_call(obj: dict[str, Any], call_id: str | None) -> bool:
    """True when ``obj`` is an assistant message entry holding tool call ``call_id``."""
    return call_id in _call_ids(obj)


def sends_as_user(obj: dict[str, Any]) -> bool:
    """True when pi sends this entry to the model as a user message."""
    etype = obj.get("type")
    if etype == "custom_message":
        return True
    if etype == "branch_summary":
        return js_truthy(obj.get("summary"))
    message = message_of(obj)
    role = message.get("role")
    if role == "bashExecution" and js_truthy(message.get("excludeFromContext")):
        return False
    return isinstance(role, str) and role in USER_ROLES


def causes_of(
    ctx: context.SessionContext, req: Request, values: Mapping[int, Any]
) -> list[Cause]:
    """What made each sent tool result of ``req`` (built from ``ctx``) that breaks the
    pairing rule break it, in the order of :func:`pairing_faults`.

    The path, its calls and the request are indexed once, so a request of many faulty
    results costs one pass and a lookup per result.
    """
    faults = faults_of(req)
    if not faults:
        return []
    path = ctx.path
    at: dict[int, int] = {}
    calls: dict[str | None, list[int]] = {}
    for n, line in enumerate(path):
        at.setdefault(line, n)
        for ident in _path_call_ids(values, line):
            calls.setdefault(ident, []).append(n)
    kept = set(ctx.entries)
    sent_at: dict[int | None, int] = {}
    for n, m in enumerate(req.messages):
        sent_at.setdefault(m.line, n)
    out = []
    for fault in faults:
        result, call_id = fault.line, fault.call_id
        if fault.fault == "duplicate" or result is None:
            out.append(Cause("duplicate", -1 if result is None else result, result, None, call_id))
            continue
        holding = calls.get(call_id, [])
        n = bisect_left(holding, at.get(result, len(path)))  # the calls before the result
        call = path[holding[n - 1]] if n else None
        out.append(_cause(ctx, req, fault, result, call, kept, sent_at.get(call, 0)))
    return out


def _cause(
    ctx: context.SessionContext,
    req: Request,
    fault: PairingFault,
    result: int,
    call: int | None,
    kept: set[int],
    start: int,
) -> Cause:
    """The cause of ``fault``, the result on line ``result`` whose call is on line ``call``
    (None: not on the path before the result), the ``start``-th sent message when pi-ai
    sends it; ``kept`` holds the lines of the entries in the context."""
    call_id = fault.call_id
    if call is None:
        return Cause("missing", result, result, None, call_id)
    if call not in kept:
        return Cause("compaction", ctx.entries[0], result, call, call_id)
    if call in ctx.edits:
        return Cause("edit", ctx.edits[call], result, call, call_id)
    if call in req.dropped:
        return Cause("dropped", call, result, call, call_id)
    between = (m.line for m in req.messages[start + 1 : fault.index] if m.role == "user")
    interloper = next((ln for ln in between if ln is not None), None)
    if interloper is not None:
        return Cause("interloper", interloper, result, call, call_id)
    return Cause("missing", result, result, call, call_id)


def _span(a: Analysis, line: int, kind: Kind) -> Span:
    obj = a.infos[line].obj
    if kind == "compaction" and "firstKeptEntryId" in obj:
        return a.span_of(line, ("firstKeptEntryId",))
    if kind == "compaction" and "firstKeptEntryIndex" in obj:
        return a.span_of(line, ("firstKeptEntryIndex",))
    if kind == "edit" and "targetId" in obj:
        return a.span_of(line, ("targetId",))
    if kind == "dropped" and "stopReason" in message_of(obj):
        return a.span_of(line, ("message", "stopReason"))
    if kind in ("missing", "duplicate") and "toolCallId" in message_of(obj):
        return a.span_of(line, ("message", "toolCallId"))
    if kind == "interloper" and "role" in message_of(obj):
        return a.span_of(line, ("message", "role"))
    return a.span_of(line, ("type",)) if "type" in obj else a.line_span(line)


def _related(a: Analysis, cause: Cause) -> tuple[Related, ...]:
    out = []
    if cause.result is not None and cause.result != cause.line:
        out.append(Related(_span(a, cause.result, "missing"), "the orphaned tool result"))
    if cause.call is not None and cause.call != cause.line:
        out.append(
            Related(
                a.line_span(cause.call), f"the assistant turn that holds call '{cause.call_id}'"
            )
        )
    return tuple(out)


def _where(line: int | None) -> str:
    return f"line {line + 1}" if line is not None else "the context"


def _pi423_message(cause: Cause, resumed: bool) -> str:
    call, result = f"'{cause.call_id}'", _where(cause.result)
    what = {
        "compaction": f"this compaction's kept range starts after the assistant turn holding tool call "
        f"{call} ({_where(cause.call)}) but keeps its result ({result}), so the context pi sends "
        "begins with an orphaned tool result",
        "edit": f"this context edit removes tool call {call} ({_where(cause.call)}) from the context "
        f"but not its result ({result}), which is sent as an orphan",
        "dropped": f"pi-ai drops this failed or aborted assistant turn from the request, but the "
        f"result of its tool call {call} ({result}) is still sent, as an orphan",
        "interloper": f"pi sends this entry as a user message between tool call {call} "
        f'({_where(cause.call)}) and its result ({result}): pi answers the call with "No result '
        'provided" here, and the real result is sent as an orphan',
        "missing": f"this tool result answers {call}, but no assistant turn with that call comes "
        "right before it in the context pi sends"
        if isinstance(cause.call_id, str)
        else "this tool result names no tool call (its toolCallId is not a string), so no "
        "assistant turn's call can come before it",
        "duplicate": f"tool call {call} is answered a second time here in the context pi sends",
    }[cause.kind]
    leaf = "the leaf pi resumes from" if resumed else "another leaf of this tree"
    return f"the context for {leaf} breaks: {what}; {REJECT}"


def kept_range_fault(a: Analysis, c: int) -> tuple[int, int | None] | None:
    """The first kept tool result whose call lies before compaction ``c``'s kept range.

    Returns ``(result line, call line or None)``; None when the range is sound.
    """
    tree = a.tree
    obj = a.infos[c].obj
    kept_id = obj.get("firstKeptEntryId")
    kept = tree.ids.get(kept_id) if isinstance(kept_id, str) else None
    if kept is None or not tree.is_ancestor(kept, c):  # a retain-none one keeps itself: [c]
        return None
    # walk up from c to kept only: the kept range is short, the path to the root long;
    # kept is an ancestor of c, so the walk ends there and no cycle is above either
    span = [c]
    while span[-1] != kept:
        parent = tree.parent[span[-1]]
        span.append(kept if parent is None else parent)  # never None below kept
    span.reverse()
    return _orphan_in(a, span, _above(tree, kept))


def _above(tree: Tree, line: int) -> Iterator[int]:
    """The ancestors of ``line``, nearest first (``line`` is on a path from a root)."""
    node = tree.parent.get(line)
    while node is not None:
        yield node
        node = tree.parent.get(node)


def first_orphan(a: Analysis, path: list[int], start: int) -> tuple[int, int | None] | None:
    """The first tool result in ``path[start:-1]`` whose call is not in that range.

    Returns ``(result line, line of the turn before ``start`` holding the call, or None)``.
    """
    return _orphan_in(a, path[start:], reversed(path[:start]))


def _orphan_in(
    a: Analysis, span: list[int], above: Iterable[int]
) -> tuple[int, int | None] | None:
    """The first tool result in ``span[:-1]`` whose call is not in it, and the first line
    of ``above`` (the entries before the span, nearest first) holding that call."""
    calls: set[str] = set()
    for line in span[:-1]:
        message = message_of(a.infos[line].obj)
        role = message.get("role")
        ref = message.get("toolCallId")
        if role == "assistant":
            calls.update(_call_ids(a.infos[line].obj))
        elif role == "toolResult" and isinstance(ref, str) and ref not in calls:
            owner = next((ln for ln in above if holds_call(a.infos[ln].obj, ref)), None)
            return line, owner
    return None


Owned = tuple[int, int | None] | None
"""The nearest assistant turn at or above an entry and the first entry pi sends as a user
message below that turn (the interloper), or None when no assistant turn is above."""


def _owner(
    a: Analysis, result: int, memo: dict[int, Owned], held: dict[int, frozenset[str]]
) -> Owned:
    """The assistant turn holding the call a tool result answers, walking up its parents,
    and the first entry between them that pi sends as a user message (the interloper).

    Returns ``(owner line, interloper line or None)``, or None when the nearest assistant
    turn above the result does not hold its call. ``memo`` keeps what each entry walked
    past leads up to, so results below one long run of entries walk it once, and a parent
    cycle ends the walk; ``held`` the call ids of each assistant turn met (:func:`holds_call`
    of a turn of k calls answered k times, once).
    """
    tree = a.tree  # its lines are entries: their values are objects
    walked: list[int] = []
    found: Owned
    line = tree.parent.get(result)
    while line is not None and line not in memo:
        if a.infos[line].role == "assistant":
            found = (line, None)
            break
        memo[line] = None  # until its answer is known: a cycle back to it finds none
        walked.append(line)
        line = tree.parent.get(line)
    else:
        found = memo.get(line) if line is not None else None
    for line in reversed(walked):
        if found is not None and found[1] is None and sends_as_user(a.infos[line].value):
            found = (found[0], line)
        memo[line] = found
    if found is None:
        return None
    ids = held.get(found[0])
    if ids is None:
        ids = held[found[0]] = frozenset(ident for _, ident in a.infos[found[0]].calls)
    ref = a.infos[result].tool_call_id  # a toolResult entry's
    return found if type(ref) is str and ref in ids else None  # only a string names a call


COVERED = {"missing": "PI420", "duplicate": "PI422"}
"""Causes another code already reports on the same tool result (PI423 is not repeated)."""


@dataclass(slots=True)
class State:
    """What :func:`extend` needs of the previous analysis to pair an appended one.

    pi's entries (their ``lines``, ``by_id`` and ``values``, line → value, as
    :mod:`pi_lsp.core.pi.context` reads them), the ``context_edit`` lines, the findings the
    tree alone decides (``candidates``: PI424 on compactions, PI423 on dropped turns and
    PI425 on interlopers, in the order they are reported, each with the lines that keep it
    out), per context edit off the resumed path that was judged, the length of its path and
    what its request reports, and ``resumed``, the context of the resumed leaf.

    ``entries`` (``(line, value)`` of each entry) is kept only where the contexts are built
    from values (a session pi migrates, or one with context edits); otherwise (None) they are
    built from the facts of the lines' results (:func:`~pi_lsp.core.pi.context.lean_context`),
    and ``values`` reads each line's value from its result, so no value of every entry is held.
    """

    lines: list[int]
    entries: list[tuple[int, Any]] | None
    by_id: Mapping[Any, int]
    values: Mapping[int, Any]
    edits: list[int]
    candidates: list[Candidate]
    judged: dict[int, tuple[int, Finding | None]]
    resumed: context.SessionContext
    sent: Request | None = None


class _Values(Mapping[int, Any]):
    """Each line's value, read from its result (parsed again where it keeps none)."""

    __slots__ = ("infos",)

    def __init__(self, infos: list[LineInfo]) -> None:
        self.infos = infos

    def __getitem__(self, line: int) -> Any:
        if not 0 <= line < len(self.infos):
            raise KeyError(line)
        return self.infos[line].value

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.infos)))

    def __len__(self) -> int:
        return len(self.infos)


def resumed_request(state: State) -> Request:
    """The request built from ``state.resumed`` (once per state; empty on a cycle, where
    pi hangs)."""
    if state.sent is None:
        state.sent = Request() if state.resumed.cycle else request(state.resumed)
    return state.sent


class Candidate(NamedTuple):
    """A finding the tree decides, reported unless the resumed request blames one of
    ``unless_blamed`` or the active path holds ``unless_active``."""

    finding: Finding
    unless_blamed: int
    unless_active: int | None = None


def check(
    a: Analysis, reported: set[tuple[int, str]] | frozenset[tuple[int, str]] = frozenset()
) -> tuple[list[Finding], State | None]:
    """PI423-PI425 for ``a`` (nothing for a file pi refuses), and the state to extend.

    ``reported`` holds ``(line, code)`` of the link findings made so far, so a result that
    PI420 or PI422 already reports does not get a PI423 on top.
    """
    if not pi_accepts(a):  # a file of the other dialect is not pi's either
        return [], None
    edits = [ln for ln in a.tree.entries if a.infos[ln].type == "context_edit"]
    candidates = _candidates(a, a.tree.entries)
    lines = context.lean_lines(a)
    if lines is not None:
        by_id = context.lean_index(a, lines)
        state = State(
            lines, None, by_id, _Values(a.infos), edits, candidates, {},
            context.lean_context(a, lines, by_id),
        )  # fmt: skip
        return _select(a, reported, state), state
    entries = context.entries_of(a)
    by_id = context.entry_index(entries)
    state = State(
        [line for line, _ in entries], entries, by_id, dict(entries), edits, candidates, {},
        context.build_context(entries, by_id=by_id),
    )  # fmt: skip
    return _select(a, reported, state), state


def extend(
    a: Analysis,
    reported: set[tuple[int, str]] | frozenset[tuple[int, str]],
    old: State,
    lines: list[int],
) -> tuple[list[Finding], State | None]:
    """:func:`check` of ``a``, whose entries are ``old``'s and the new ``lines`` after them.

    The entries on ``lines`` must be entries of ``a``'s tree that change no earlier
    entry's links (:func:`pi_lsp.core.entries.tree.extend`), and every parsed line from the first
    of them on must be one of them: the candidates and judged edits of ``old`` stay as
    they are, the new entries add theirs, and the resumed context grows by the new entries
    (built again only when they do not extend its path).
    """
    infos = a.infos
    edits = [*old.edits, *(ln for ln in lines if infos[ln].type == "context_edit")]
    candidates = [*old.candidates, *_candidates(a, lines)]
    state: State
    if old.entries is None:
        if len(edits) > len(old.edits):  # its contexts are built from values: pair afresh
            return check(a, reported)
        all_lines = [*old.lines, *lines]
        by_id = context.extend_lean_index(old.by_id, a, all_lines, len(old.lines))
        resumed = context.extend_lean_context(old.resumed, a, all_lines, by_id, len(old.lines))
        state = State(
            all_lines, None, by_id, _Values(infos), edits, candidates, dict(old.judged),
            resumed if resumed is not None else context.lean_context(a, all_lines, by_id),
        )  # fmt: skip
    else:
        new = [(ln, infos[ln].value) for ln in lines]
        entries = [*old.entries, *new]
        by_id = grown = dict(old.by_id)
        for n, (_, value) in enumerate(new, len(old.entries)):
            grown[context.entry_key(value)] = n
        resumed = context.extend_context(old.resumed, entries, by_id, len(old.entries))
        state = State(
            [*old.lines, *lines], entries, by_id, {**old.values, **dict(new)}, edits, candidates,
            dict(old.judged),
            resumed if resumed is not None else context.build_context(entries, by_id=by_id),
        )  # fmt: skip
    if resumed is not None and old.sent is not None and not resumed.cycle:
        state.sent = request(resumed, old.sent)  # the old messages, then the new ones
    return _select(a, reported, state), state


def _causes(
    ctx: context.SessionContext,
    values: Mapping[int, Any],
    reported: set[tuple[int, str]] | frozenset[tuple[int, str]],
    sent: Request | None = None,
) -> list[Cause]:
    """The cause of each tool result that breaks the request built from ``ctx`` (``sent``
    when it is built already), but those that another code already reports (``reported``,
    see :data:`COVERED`)."""
    if ctx.cycle:
        return []
    causes = causes_of(ctx, sent if sent is not None else request(ctx), values)
    return [
        c for c in causes if c.line >= 0 and (c.line, COVERED.get(c.kind)) not in reported
    ]


def _pi423(a: Analysis, cause: Cause, resumed: bool) -> Finding:
    """PI423 on ``cause``: an error for the resumed leaf, a warning for another."""
    return Finding(
        "PI423",
        Severity.ERROR if resumed else Severity.WARNING,
        _span(a, cause.line, cause.kind),
        _pi423_message(cause, resumed),
        _related(a, cause),
    )


def _select(
    a: Analysis, reported: set[tuple[int, str]] | frozenset[tuple[int, str]], state: State
) -> list[Finding]:
    """The findings of ``state``: the resumed request, edits off its path, the candidates."""
    out: dict[tuple[int, str], Finding] = {}
    for cause in _causes(state.resumed, state.values, reported, resumed_request(state)):
        out.setdefault((cause.line, "PI423"), _pi423(a, cause, True))
    blamed = {line for line, _ in out}
    budget = EDIT_BUDGET
    active = a.tree.active_set
    for line in reversed(state.edits):
        if budget <= 0:
            break
        ident = a.tree.id_of.get(line)
        if line in active or ident is None:  # pi resumes only from an entry with an id
            continue
        if line not in state.judged:
            assert state.entries is not None  # a session with context edits keeps its values
            ctx = context.build_context(state.entries, ident, state.by_id)
            # off the resumed path, only the edit itself is judged here
            own = (c for c in _causes(ctx, state.values, reported) if c.kind == "edit")
            hit = next((c for c in own if c.line == ctx.leaf), None)
            state.judged[line] = (len(ctx.path), None if hit is None else _pi423(a, hit, False))
        walked, finding = state.judged[line]
        budget -= walked
        if finding is not None:
            out.setdefault((finding.span.line, finding.code), finding)
    for c in state.candidates:
        if c.unless_blamed in blamed or c.unless_active in active:
            continue
        out.setdefault((c.finding.span.line, c.finding.code), c.finding)
    return sorted(out.values(), key=lambda f: (f.span.line, f.span.start, f.code))


def _candidates(a: Analysis, lines: list[int]) -> list[Candidate]:
    """The candidates of the entries on ``lines``: PI424 on compactions whose kept range
    starts inside a tool exchange, then, per tool result, PI423 on the dropped turn that
    holds its call and PI425 on an entry pi sends as a user message between them."""
    out: list[Candidate] = []
    owners: dict[int, Owned] = {}
    held: dict[int, frozenset[str]] = {}
    infos = a.infos
    for line in lines:
        info = infos[line]  # an entry (lines of the tree only)
        if info.type == "compaction":
            found = kept_range_fault(a, line)
            if found is not None:
                out.append(Candidate(_kept_range_finding(a, line, *found), line))
            continue
        if info.role != "toolResult":
            continue
        owned = _owner(a, line, owners, held)
        if owned is None:
            continue
        owner, interloper = owned
        stop = infos[owner].stop_reason  # an assistant turn's
        if stop in ("error", "aborted"):
            cause = Cause("dropped", owner, line, owner, info.tool_call_id)
            # on the resumed path the request itself decided (edits may omit such results)
            out.append(Candidate(_pi423(a, cause, False), owner, line))
        if interloper is not None:
            out.append(Candidate(_interloper_finding(a, interloper, owner, line), interloper))
    return out


def _kept_range_finding(a: Analysis, line: int, result: int, call: int | None) -> Finding:
    """PI424 on the compaction on ``line`` whose kept range holds ``result`` but not ``call``."""
    related = [Related(_span(a, result, "missing"), "the first kept tool result")]
    if call is not None:
        related.append(
            Related(a.line_span(call), "the assistant turn holding its call (summarised away)")
        )
    return Finding(
        "PI424",
        Severity.WARNING,
        _span(a, line, "compaction"),
        f"this compaction's kept range starts inside a tool exchange: it keeps the tool result on "
        f"line {result + 1} but not the call before it; whenever this is the newest compaction "
        f"on the path, the context pi sends holds an orphaned result and {REJECT}",
        tuple(related),
    )


def _interloper_finding(a: Analysis, interloper: int, owner: int, line: int) -> Finding:
    """PI425 on ``interloper``, between the calls on ``owner`` and their result on ``line``."""
    return Finding(
        "PI425",
        Severity.WARNING,
        _span(a, interloper, "interloper"),
        "pi sends this entry as a user message between the tool calls of the assistant turn on "
        f'line {owner + 1} and their results (line {line + 1}): pi answers the calls with "No result '
        f'provided" here and the real results become orphans, which providers such as Anthropic reject',
        (
            Related(a.line_span(owner), "the assistant turn with the calls"),
            Related(_span(a, line, "missing"), "a result sent as an orphan"),
        ),
    )
