"""What one session file cost, counted exactly as pi 1.6 counts it, and where it went.

pi 1.6's ``AgentSession.getSessionStats`` walks every entry of the file (every branch,
not only the active path) and adds up:

- messages: ``user``, ``assistant`` and ``toolResult`` roles (other roles count only in
  pi's ``totalMessages``, which pi-lsp does not report), and the ``toolCall`` blocks of
  assistant messages;
- tokens (``input``, ``output``, ``cacheRead``, ``cacheWrite``) and ``cost.total`` of every
  usage object: assistant messages, ``usage`` entries, compaction and branch_summary
  ``usage``, toolResult ``usage``.

pi reads these fields without checking them: a missing number makes its sum ``NaN`` and a
missing usage object on an assistant message makes it throw. pi-lsp counts anything that
is not a finite number (or not an object) as 0, so one odd line never hides the rest.

Beyond pi's totals, :func:`file_stats` keeps one :class:`Counted` record per counting
entry, with what the breakdowns and the chart need: the entry's ``(id, timestamp)`` (an
entry copied into another file by ``/fork`` or ``/clone`` keeps both, so it can be counted
once across files), its model, its time, the branch it lies on (the active path, or one
abandoned subtree), its assistant turn number along its own path and the context size of
an assistant turn (pi's ``calculateContextTokens`` of its usage).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from ..entries.header import no_bytes, refusal, whole_number
from ..entries.lines import LineInfo
from ..entries.model import Analysis
from ..entries.session_file import load
from ..entries.tree import Tree
from .loading import js_string

TOTAL_KEYS = (
    "userMessages",
    "assistantMessages",
    "toolResults",
    "toolCalls",
    "input",
    "output",
    "cacheRead",
    "cacheWrite",
    "cost",
)
"""The keys of a totals object, as ``stats --format json`` prints them."""

COST_DECIMALS = 6
"""Decimals of the costs ``stats --format json|csv`` print: a millionth of a dollar, finer
than pi's own display (``$0.123``) and free of float noise (``42.59590750000001``)."""

SUMMARIES = "Tools/summaries"
"""pi's model key for usage that no model answered for (tool results, summaries)."""

_NO_CONTEXT_STOPS = ("aborted", "error")


def money(value: float) -> float:
    """A cost (or a sum of costs) rounded to :data:`COST_DECIMALS` for output.

    Costs are summed unrounded and rounded only here, so no sum adds up rounding errors.
    """
    return round(value, COST_DECIMALS) + 0.0  # + 0.0: never print -0.0


def _num(value: Any) -> float:
    """A finite JSON number, else 0 (pi would sum ``NaN``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return value if math.isfinite(value) else 0


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts and cost of one usage object (or a sum of them)."""

    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0
    cost: float = 0.0

    @property
    def total(self) -> float:
        """All tokens, as pi's session stats add them (``tokens.total``)."""
        return self.input + self.output + self.cache_read + self.cache_write

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
            self.cost + other.cost,
        )


def read_usage(value: Any) -> Usage | None:
    """The usage object ``value`` as pi's ``addUsageToTotals`` reads it (None: not an object)."""
    if not isinstance(value, dict):
        return None
    cost = value.get("cost")
    return Usage(
        _num(value.get("input")),
        _num(value.get("output")),
        _num(value.get("cacheRead")),
        _num(value.get("cacheWrite")),
        _num(cost.get("total")) if isinstance(cost, dict) else 0,
    )


def context_tokens(message: dict[str, Any]) -> float | None:
    """The context size an assistant turn reports (pi's ``calculateContextTokens``).

    None where pi does not trust the usage: aborted or failed turns, all-zero usage.
    """
    usage = message.get("usage")
    if not isinstance(usage, dict) or message.get("stopReason") in _NO_CONTEXT_STOPS:
        return None
    total = _num(usage.get("totalTokens"))
    if not total:
        total = sum(_num(usage.get(k)) for k in ("input", "output", "cacheRead", "cacheWrite"))
    return total or None


@dataclass(frozen=True, slots=True)
class Counted:
    """One entry that pi's session stats count, with what the breakdowns need.

    ``role`` is the message role (``user``, ``assistant``, ``toolResult`` or another one)
    or the entry type (``usage``, ``compaction``, ``branch_summary``). ``usage`` is None
    when the entry adds no usage. ``branch`` is 0 on the active path, else the index of its
    abandoned subtree in :attr:`FileStats.branches`; ``turn`` counts the assistant messages
    on the entry's own path up to it; ``path_cost`` is the cost on that path up to it.
    """

    line: int
    key: tuple[str, str] | None
    role: str
    tool_calls: int
    usage: Usage | None
    model: str | None
    time: float | None
    branch: int
    turn: int
    path_cost: float
    context: float | None = None


@dataclass(frozen=True, slots=True)
class Branch:
    """The active path (index 0) or one abandoned subtree of a session's tree.

    ``first_line`` is the subtree's first entry (the root for the active path); it hangs
    below ``forked_at`` (None: a separate root).
    """

    index: int
    first_line: int
    forked_at: int | None
    forked_turn: int


@dataclass(frozen=True, slots=True)
class Marker:
    """A compaction or a branch point: where it is (line, branch, turn) and a number.

    ``value`` is a compaction's ``tokensBefore`` or a branch point's number of children.
    """

    line: int
    branch: int
    turn: int
    value: float


@dataclass(slots=True)
class FileStats:
    """Everything counted in one session file; ``error`` when pi would not load it."""

    path: str
    id: str | None = None
    name: str | None = None
    version: int = 3
    parent_session: str | None = None
    started: float | None = None
    error: str | None = None
    counted: list[Counted] = field(default_factory=list)
    branches: list[Branch] = field(default_factory=list)
    compactions: list[Marker] = field(default_factory=list)
    branch_points: list[Marker] = field(default_factory=list)


@dataclass(slots=True)
class Totals:
    """A sum of counted entries in pi's terms (see :data:`TOTAL_KEYS`)."""

    user_messages: int = 0
    assistant_messages: int = 0
    tool_results: int = 0
    tool_calls: int = 0
    usage: Usage = field(default_factory=Usage)

    def add(self, item: Counted) -> None:
        """Count one entry, as pi's loop does."""
        if item.role == "user":
            self.user_messages += 1
        elif item.role == "assistant":
            self.assistant_messages += 1
        elif item.role == "toolResult":
            self.tool_results += 1
        self.tool_calls += item.tool_calls
        if item.usage is not None:
            self.usage += item.usage

    def as_json(self) -> dict[str, Any]:
        """The totals object of ``stats --format json`` (exactly :data:`TOTAL_KEYS`)."""
        u = self.usage
        return {
            "userMessages": self.user_messages,
            "assistantMessages": self.assistant_messages,
            "toolResults": self.tool_results,
            "toolCalls": self.tool_calls,
            "input": _whole(u.input),
            "output": _whole(u.output),
            "cacheRead": _whole(u.cache_read),
            "cacheWrite": _whole(u.cache_write),
            "cost": money(u.cost),
        }


def _whole(value: float) -> float:
    """Integral numbers as ``int`` (JavaScript prints ``5``, not ``5.0``)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def totals(items: Sequence[Counted]) -> Totals:
    """The sum of ``items``."""
    out = Totals()
    for item in items:
        out.add(item)
    return out


PathSplit = tuple["Usage", "Usage", int]
"""What the active path cost, what the abandoned branches cost, and how many there are."""


def split_by_path(items: Sequence[Counted]) -> tuple[Totals, Totals]:
    """Totals of the active path and of the abandoned branches."""
    active, abandoned = Totals(), Totals()
    for item in items:
        (active if item.branch == 0 else abandoned).add(item)
    return active, abandoned


def parse_stamp(value: Any) -> datetime | None:
    """An ISO timestamp as an aware datetime (naive ones taken as UTC), or None."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        stamp = datetime.fromisoformat(value)
    except ValueError:
        return None
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=UTC)


def parse_time(value: Any) -> float | None:
    """Epoch seconds of an ISO timestamp (see :func:`parse_stamp`), or None."""
    stamp = parse_stamp(value)
    return stamp.timestamp() if stamp is not None else None


def _entry_time(obj: dict[str, Any], message: dict[str, Any] | None) -> float | None:
    stamp = parse_time(obj.get("timestamp"))
    if stamp is None and message is not None:
        ms = _num(message.get("timestamp"))
        stamp = ms / 1000 if ms else None
    return stamp


def _str(value: Any) -> str:
    """How a JavaScript template string shows a field (``undefined`` when missing)."""
    if isinstance(value, str):
        return value
    return "undefined" if value is None else js_string(value)


def _model_change(obj: dict[str, Any]) -> str | None:
    model = obj.get("modelId")
    return f"{_str(obj.get('provider'))}/{model}" if isinstance(model, str) else None


def _key(obj: dict[str, Any]) -> tuple[str, str] | None:
    ident, stamp = obj.get("id"), obj.get("timestamp")
    return (ident, stamp) if isinstance(ident, str) and isinstance(stamp, str) else None


def _branch_of(tree: Tree) -> tuple[dict[int, int], list[tuple[int, int | None]]]:
    """Each entry's branch: 0 on the active path (left out of the map: read it with
    ``.get(line, 0)``), else its abandoned subtree's index.

    Returns the map and, per abandoned subtree, ``(first line, line it hangs below)``.
    """
    active = tree.active_set
    branch: dict[int, int] = {}
    starts: list[tuple[int, int | None]] = []
    for line in tree.entries:
        if line in active or line in branch:
            continue
        chain: list[int] = []
        node: int | None = line
        seen: set[int] = set()
        while node is not None and node not in active and node not in branch and node not in seen:
            seen.add(node)
            chain.append(node)
            parent = tree.parent.get(node)
            if parent is None or parent in active or parent in seen:
                starts.append((node, parent if parent in active else None))
                branch[node] = len(starts)
                chain.pop()
                break
            node = parent
        top = branch.get(node, 0) if node is not None else 0
        for n in chain:
            branch[n] = top
    return branch, starts


def _parents_first(tree: Tree) -> list[int]:
    """``tree.entries`` with every entry after its parent (pi follows a ``parentId`` that
    names a later line), else in file order; on a cycle, where the walk met it."""
    order: list[int] = []
    done: set[int] = set()
    for line in tree.entries:
        chain: list[int] = []
        node: int | None = line
        while node is not None and node not in done:
            done.add(node)
            chain.append(node)
            node = tree.parent.get(node)
        order.extend(reversed(chain))
    return order


def _count(
    obj: dict[str, Any], message: Any, model: str | None, where: tuple[int, int, int, float]
) -> Counted | None:
    """What pi's stats loop counts for one entry; ``where`` is (line, branch, turn, path cost)."""
    line, branch, turn, spent = where
    etype = obj.get("type")
    if isinstance(message, dict):
        role = message.get("role")
        usage = read_usage(message.get("usage")) if role in ("assistant", "toolResult") else None
        calls = 0
        context = None
        if role == "assistant":
            content = message.get("content")
            if isinstance(content, list):
                calls = sum(1 for b in content if isinstance(b, dict) and b.get("type") == "toolCall")
            context = context_tokens(message)
        elif role == "toolResult" and usage is not None:
            model = SUMMARIES
        kind = role if isinstance(role, str) else "message"
        spent += usage.cost if usage is not None else 0.0
        return Counted(
            line, _key(obj), kind, calls, usage, model, _entry_time(obj, message),
            branch, turn, spent, context,
        )
    if etype in ("usage", "compaction", "branch_summary"):
        usage = read_usage(obj.get("usage"))
        if usage is None:
            return None
        if etype == "usage":
            model = f"{_str(obj.get('provider'))}/{_str(obj.get('model'))}"
        else:
            model = SUMMARIES
        return Counted(
            line, _key(obj), etype, 0, usage, model, _entry_time(obj, None),
            branch, turn, spent + usage.cost,
        )
    return None


def session_name(infos: Sequence[LineInfo], entries: list[int]) -> str | None:
    """The name the last ``session_info`` entry gives the session, as it is written (None
    when it is no string, blank, or there is none); found by the entries' types, so only
    that entry is parsed."""
    line = next((n for n in reversed(entries) if infos[n].type == "session_info"), None)
    name = infos[line].obj.get("name") if line is not None else None
    return name if isinstance(name, str) and name.strip() else None


def from_lines(
    path: str,
    infos: Sequence[LineInfo],
    tree: Tree,
    header_line: int | None,
    fmt: str = "pi",
    empty: bool = False,
) -> FileStats:
    """Count a parsed session: ``infos`` per line, the entry ``tree`` built from them;
    ``empty``: the file has no byte. A file pi does not open counts nothing, and its
    ``error`` says why (:func:`pi_lsp.core.entries.header.refusal`)."""
    out = FileStats(path)
    refused = refusal(infos, header_line, fmt, empty)
    if refused is not None:
        out.error = refused.reason
        return out
    assert header_line is not None
    header = infos[header_line].obj
    out.id = header["id"]
    out.version = whole_number(header.get("version", 1)) or 1
    parent = header.get("parentSession")
    out.parent_session = parent if isinstance(parent, str) else None
    out.started = parse_time(header.get("timestamp"))
    v1_model = _model_change(header)
    branch, starts = _branch_of(tree)
    # per entry: assistant turns, cost and model in effect on its path, up to and with it
    name = session_name(infos, tree.entries)
    out.name = name.strip() if name is not None else None
    at: dict[int, tuple[int, float, str | None]] = {}
    for line in _parents_first(tree):
        obj = infos[line].obj
        up = tree.parent.get(line)
        turns, spent, current = at.get(up, (0, 0.0, v1_model)) if up is not None else (0, 0.0, v1_model)
        etype = obj.get("type")
        if etype == "model_change":
            current = _model_change(obj) or current
        elif etype == "compaction":
            out.compactions.append(
                Marker(line, branch.get(line, 0), turns, _num(obj.get("tokensBefore")))
            )
        message = obj.get("message") if etype == "message" else None
        if isinstance(message, dict) and message.get("role") == "assistant":
            turns += 1
            answered = message.get("responseModel")
            answered = message.get("model") if answered is None else answered
            current = f"{_str(message.get('provider'))}/{_str(answered)}"
        item = _count(obj, message, current, (line, branch.get(line, 0), turns, spent))
        if item is not None:
            spent = item.path_cost
            out.counted.append(item)
        at[line] = (turns, spent, current)
        kids = len(tree.children.get(line, ()))
        if kids > 1:
            out.branch_points.append(Marker(line, branch.get(line, 0), turns, kids))
    # in file order again (the walk put parents first)
    out.counted.sort(key=lambda c: c.line)
    out.compactions.sort(key=lambda m: m.line)
    out.branch_points.sort(key=lambda m: m.line)
    first_model = next((c.model for c in out.counted if c.role == "assistant"), None)
    if first_model is not None:  # what was said before the first answer: that answer's model
        out.counted = [c if c.model else replace(c, model=first_model) for c in out.counted]
    root = tree.active[0] if tree.active else 0
    out.branches = [Branch(0, root, None, 0)] + [
        Branch(n, start, fork, at[fork][0] if fork in at else 0)
        for n, (start, fork) in enumerate(starts, 1)
    ]
    return out


def read_file(path: str) -> FileStats:
    """Count a session file on disk (parsing only what counting needs; never raises)."""
    try:
        f = load(path)
    except OSError as exc:
        return FileStats(path, error=f"cannot read: {exc.strerror or exc}")
    return from_lines(path, f.infos, f.tree, f.header_line, f.fmt, f.empty)


def analysis_totals(
    a: Analysis, visit: Callable[[LineInfo, dict[str, Any]], None] | None = None
) -> tuple[Totals, PathSplit | None]:
    """The totals of :func:`analysis_stats` (the same sums, added in the same order) and
    what the active path and the abandoned branches cost (None: nothing was abandoned),
    counted without a record per entry. ``visit(info, value)`` is called with each entry's
    result and value, in file order (each line is parsed once for both)."""
    infos, tree = a.infos, a.tree
    if refusal(infos, a.header_line, a.fmt, no_bytes(a.text.lines)) is not None:
        if visit is not None:
            for line in tree.entries:
                visit(infos[line], infos[line].obj)
        return Totals(), None
    branch, starts = _branch_of(tree)
    whole, active, abandoned = Totals(), Totals(), Totals()
    for line in tree.entries:  # in file order, as the counted records are summed
        info = infos[line]
        obj = info.obj
        if visit is not None:
            visit(info, obj)
        message = obj.get("message") if obj.get("type") == "message" else None
        item = _count(obj, message, None, (line, branch.get(line, 0), 0, 0.0))
        if item is not None:
            whole.add(item)
            (active if item.branch == 0 else abandoned).add(item)
    return whole, (active.usage, abandoned.usage, len(starts)) if starts else None


def analysis_stats(a: Analysis) -> FileStats:
    """The stats of an analysed document, counted as :func:`read_file` counts the file
    (counted again on each call: what a view needs of it is kept by that view)."""
    return from_lines(
        a.path or "", a.infos, a.tree, a.header_line, a.fmt, no_bytes(a.text.lines)
    )
