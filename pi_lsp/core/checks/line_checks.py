"""Line-local checks: what is wrong with one line on its own (PI001-PI003, PI200, PI201,
PI301, PI302, PI500 of a line, ...), given the file's format and version.

A result depends only on the line's text and :class:`~pi_lsp.core.entries.lines.LineRules`,
so it can be reused for any line with the same text (the incremental path caches it).
:func:`check` answers "nothing to report" on a fast path; whatever could make a finding
goes to :func:`full_check`, which alone makes them.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Collection, Iterator
from typing import TYPE_CHECKING, Any

from ..entries.lines import (
    HEADER_TYPES,
    Issue,
    Kind,
    LineInfo,
    LineRules,
)
from ..schemas import schema, schema_info
from ..text import limits
from ..text.codes import CODES
from ..text.findings import Severity
from ..text.jsonl import locate
from ..text.lineindex import Stored, unpack

if TYPE_CHECKING:
    from jsonschema_rs import Validator


_ENTRY = Kind.ENTRY
"""As a module global (``Kind.ENTRY`` goes through the enum's metaclass: several times the
cost of a global lookup on the hot path)."""


def check(item: Stored, info: LineInfo, ctx: LineRules) -> tuple[Issue, ...]:
    """Line-local findings for a parsed line under a format context. ``item`` is the line
    as :func:`~pi_lsp.core.text.lineindex.plain` gives it: its UTF-8 (without lone surrogates) is
    decoded only when there may be something to report.

    An entry of a known type is first tried on a fast path, inlined here (a call costs as
    much as several lookups): one schema validation (see :func:`schema.verdict_validator`)
    and a few lookups answer "nothing to report" for the common line; anything that could
    be a finding (a large line, a lone surrogate, a field one of the entry checks looks at,
    a schema violation) goes to :func:`full_check`, which decides.
    """
    if info.kind is _ENTRY:
        by_type, by_role = _entry_validators(ctx.fmt, ctx.version)
        validator = by_type[info.type]  # type: ignore[index]  # an entry has a type
        obj = info.value
        message = obj.get("message")
        role = message.get("role") if isinstance(message, dict) else None
        if isinstance(role, str) and info.type == "message":
            own = by_role[role]  # that role's definition only
            if own is not _NOT_KNOWN:
                validator = own
        if (
            validator is not _NOT_KNOWN  # else PI004
            and (  # else maybe PI500 (see limits.line_size) or PI001
                len(item) * 4 < ctx.large_line and (item.isascii() or _no_surrogate(item))
                if item.__class__ is str
                else len(item) <= ctx.large_line  # UTF-8: its bytes are what PI500 counts
            )
            and not ("firstKeptEntryIndex" in obj and obj["type"] == "compaction")  # PI302
            and role != "hookMessage"  # PI301
            and not (role == "assistant" and message.get("stopReason") == "pending")  # PI201
        ):
            try:
                if validator is None or validator.is_valid(obj):  # else PI200
                    return ()  # the empty tuple is shared: nothing kept per clean line
            except UnicodeEncodeError:  # a lone surrogate escape: schema.validate copies
                pass
    return full_check(unpack(item), info, ctx)


def full_check(text: str, info: LineInfo, ctx: LineRules) -> tuple[Issue, ...]:
    """:func:`check` without its fast path: every check, finding or not."""
    issues: list[Issue] = []
    _check_size(text, ctx, issues)
    _check_encoding(text, info, issues)
    if info.kind is Kind.OTHER:
        issues.append(_not_an_entry(text, info, ctx))
    elif info.kind is Kind.ENTRY:
        _check_entry(text, info, ctx, issues)
    elif info.kind is Kind.HEADER:
        if info.edge_space is not None:
            issues.append(_header_after_space(text, info.edge_space))
        _check_schema(text, info, ctx, "header", issues)
    return tuple(issues)


_NOT_KNOWN: Any = object()
"""What :func:`_entry_validators` holds for an entry type the format does not know."""


def _no_surrogate(text: str) -> bool:
    """True when ``text`` holds no lone surrogate (so no PI001: see :func:`_check_encoding`)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _Compiled(dict[str, Any]):
    """Validators by name, each compiled when first asked for (a small file compiles those
    of the few types it has). A name outside ``names`` gives :data:`_NOT_KNOWN`; with no
    ``names``, so does a name ``make`` has no validator for. Neither is kept (names come
    from the data). Threads that miss at once compile under one lock: the first stores the
    validator, the others take it."""

    def __init__(
        self, names: Collection[str] | None, make: Callable[[str], Validator | None]
    ) -> None:
        super().__init__()
        self._names = names
        self._make = make
        self._lock = threading.Lock()

    def __missing__(self, name: str) -> Any:
        if self._names is not None and name not in self._names:
            return _NOT_KNOWN
        with self._lock:
            if name in self:  # another thread compiled it while this one waited
                return dict.__getitem__(self, name)
            made = self._make(name)
            if made is None and self._names is None:
                return _NOT_KNOWN
            self[name] = made
        return made


@functools.cache
def _entry_validators(fmt: str, version: int) -> tuple[_Compiled, _Compiled]:
    """The verdict validators (:func:`schema.verdict_validator`) of each entry type a format
    knows (None: the schema of this version does not define it, so :func:`_check_schema`
    finds nothing), and those of message entries by role
    (:func:`schema.message_verdict_validator`)."""
    key = schema.schema_key(fmt, version)
    by_type = _Compiled(_entry_names(fmt, key), lambda name: schema.verdict_validator(key, name))
    by_role = _Compiled(None, lambda role: schema.message_verdict_validator(key, role))
    return by_type, by_role


def _entry_names(fmt: str, key: str) -> frozenset[str]:
    """The entry types a format knows (schema ``key`` is its version's)."""
    return pi_entry_types() if fmt == "pi" else frozenset(schema.load_schema(key)["$defs"])


def prepare_checks(fmt: str, version: int, stop: Callable[[], bool] = lambda: False) -> None:
    """Compile now, one at a time until ``stop()`` is true, the validators the line checks
    of a file of this format and version use on clean lines: the header's, then the
    verdict validators of each entry type and message role. Each is otherwise compiled
    when a line first needs it, so the first analysis of a session waits for them and for
    jsonschema-rs's import (about 10 ms together). The server prepares pi's current format
    at start, in the background, until a document opens (its analysis then compiles only
    what that document needs, without a second thread compiling the same beside it)."""
    for _ in _compile_each(fmt, version):  # each step compiles after the check
        if stop():
            return


def _compile_each(fmt: str, version: int) -> Iterator[None]:
    """The compiling of :func:`prepare_checks`: a validator after each ``yield``, so
    nothing is compiled (nor jsonschema-rs imported) before a step is asked for."""
    key = schema.schema_key(fmt, version)
    yield
    schema.validator(key, "header")
    by_type, by_role = _entry_validators(fmt, version)
    for name in _entry_names(fmt, key):
        yield
        by_type[name]
    for role in schema.message_roles(key):
        yield
        by_role[role]


_SPACE_NAMES = {
    0x0B: "a vertical tab",
    0x0C: "a form feed",
    0xA0: "a no-break space",
    0x2028: "a line separator",
    0x2029: "a paragraph separator",
    0xFEFF: "a byte-order mark",
}


def space_names(text: str) -> str:
    """The characters of ``text`` that ``JSON.parse`` does not take as whitespace, named."""
    names: list[str] = []
    for ch in dict.fromkeys(text):
        if ch not in " \t\r\n":
            names.append(f"U+{ord(ch):04X} ({_SPACE_NAMES.get(ord(ch), 'whitespace')})")
    return ", ".join(names)


def _header_after_space(text: str, space: tuple[int, int]) -> Issue:
    return Issue(
        "PI100",
        Severity.ERROR,
        space[0],
        space[1],
        f"the file starts with {space_names(text[space[0] : space[1]])} before the session "
        "header; pi 1.6 gives each line to JSON.parse as it is, which rejects it, so it finds no "
        "header: it leaves the session out of /resume and refuses to open the file (\"not a "
        "valid pi session\"); pi 0.73 trimmed the whole file and read it",
    )


def _span(text: str, path: tuple[str | int, ...], want_key: bool = False) -> tuple[int, int]:
    loc = locate(text, path)
    if want_key and loc.key is not None and loc.depth == len(path):
        return loc.key
    return loc.value


def _check_size(text: str, ctx: LineRules, issues: list[Issue]) -> None:
    found = limits.line_size(text, ctx.large_line)
    if found is not None:
        issues.append(Issue("PI500", found[0], 0, len(text), found[1]))


_UNDECODABLE = re.compile("[\udc80-\udcff]")


def _check_encoding(text: str, info: LineInfo, issues: list[Issue]) -> None:
    """Report bytes that were not valid UTF-8 (decoded with ``surrogateescape``).

    A bad byte outside any string is already the line's JSON syntax error.
    """
    if text.isascii():
        return
    try:
        text.encode("utf-8")  # no lone surrogate at all: 4x faster than the regex scan
        return
    except UnicodeEncodeError:
        pass
    m = _UNDECODABLE.search(text)
    if m is None or (info.error is not None and info.error.offset == m.start()):
        return
    issues.append(
        Issue(
            "PI001",
            Severity.ERROR,
            m.start(),
            m.end(),
            f"invalid UTF-8 (byte 0x{ord(m.group()) - 0xDC00:02X}); pi decodes it as U+FFFD, "
            "so the original bytes are lost on the next rewrite",
        )
    )


_UNUSABLE = (
    "pi keeps it as an entry it cannot use (no type, no id: nothing links to it); as the "
    "last line it becomes the leaf and pi resumes with an empty context"
)


def _not_an_entry(text: str, info: LineInfo, ctx: LineRules) -> Issue:
    start, end = _span(text, ())
    value = info.value
    if isinstance(value, dict) and "type" in value:
        start, end = _span(text, ("type",))
        message = f"entry 'type' is not a string; {_UNUSABLE}"
    elif isinstance(value, dict):
        message = f"line is an object without a 'type'; {_UNUSABLE}"
    else:
        what = "JSON null, not an entry" if value is None else f"a JSON {_json_kind(value)}"
        message = f"line is {what}, not an object; {_fate(value, ctx)}"
    return Issue("PI003", Severity.ERROR, start, end, message)


def _fate(value: Any, ctx: LineRules) -> str:
    """What pi does with a line that holds a JSON value other than an object."""
    unmigrated = ctx.fmt == "pi" and ctx.version < 2
    if not isinstance(value, list) and not value:  # falsy in JavaScript: null, false, 0, ""
        crashed = value is None or unmigrated
        return "pi skips it like a line it cannot parse" + (
            " (pi 0.73.1 and older crashed on it, and the session did not open)" if crashed else ""
        )
    if unmigrated and isinstance(value, list):
        return (
            "pi's migration of this v1 session links the next entry to it, then rewrites the "
            "file without the id it gave it: from the next load on, every entry before it "
            "drops out of the resumed context (pi-lsp's migration skips it)"
        )
    if unmigrated:
        return (
            "pi's migration of this v1 session fails on it (\"Cannot create property 'id' on "
            f"{_json_kind(value)}\") and the session does not open (pi-lsp's migration skips it)"
        )
    return _UNUSABLE


def _json_kind(value: Any) -> str:
    """The JSON kind of a value other than null (which the messages name on their own)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array"


@functools.cache
def pi_entry_types() -> frozenset[str]:
    """Every entry type pi knows: the kinds the current (v3) schema dispatches on."""
    return frozenset(k for k in schema_info.line_kinds("pi.3") if k not in HEADER_TYPES)


def _check_entry(text: str, info: LineInfo, ctx: LineRules, issues: list[Issue]) -> None:
    obj = info.obj
    etype = info.type or ""
    key = schema.schema_key(ctx.fmt, ctx.version)
    if (ctx.fmt == "pi" and etype not in pi_entry_types()) or (
        ctx.fmt != "pi" and not schema.has_definition(key, etype)
    ):
        start, end = _span(text, ("type",))
        issues.append(
            Issue(
                "PI004",
                Severity.WARNING,
                start,
                end,
                f"unknown entry type '{etype}' for this format; pi keeps the line in the tree "
                "but adds nothing of it to the model's context",
            )
        )
        return
    if ctx.fmt == "pi":
        _check_pi_version_rules(text, obj, ctx, issues)
    _check_schema(text, info, ctx, etype, issues)
    message = obj.get("message")
    if (
        etype == "message"
        and isinstance(message, dict)
        and message.get("role") == "assistant"
        and message.get("stopReason") == "pending"
    ):
        start, end = _span(text, ("message", "stopReason"))
        issues.append(
            Issue(
                "PI201",
                Severity.WARNING,
                start,
                end,
                'assistant stopReason is "pending", which marks an unfinished stream and must '
                "never be persisted; pi resends this partial turn to the model as if complete",
            )
        )


def _check_pi_version_rules(
    text: str, obj: dict[str, Any], ctx: LineRules, issues: list[Issue]
) -> None:
    if ctx.version >= 2 and obj.get("type") == "compaction" and "firstKeptEntryIndex" in obj:
        start, end = _span(text, ("firstKeptEntryIndex",), want_key=True)
        issues.append(
            Issue(
                "PI302",
                Severity.WARNING,
                start,
                end,
                f"'firstKeptEntryIndex' is a v1 field; in a v{ctx.version} session pi ignores "
                "it and only reads 'firstKeptEntryId'",
            )
        )
    if ctx.version >= 3:
        message = obj.get("message")
        if isinstance(message, dict) and message.get("role") == "hookMessage":
            start, end = _span(text, ("message", "role"))
            issues.append(
                Issue(
                    "PI301",
                    Severity.WARNING,
                    start,
                    end,
                    "role 'hookMessage' was renamed 'custom' in v3; pi does not migrate a v3 "
                    "file again, so this message is not treated as an extension message",
                )
            )


_SEVERITIES = {
    "error": Severity.ERROR,
    "warning": Severity.WARNING,
    "information": Severity.INFORMATION,
}


def _check_schema(text: str, info: LineInfo, ctx: LineRules, name: str, issues: list[Issue]) -> None:
    """PI200 per violation, graded by what pi does with it (the schema's annotations)."""
    key = schema.schema_key(ctx.fmt, ctx.version)
    for violation in schema.validate(key, name, info.value):
        path = violation.path
        if violation.missing is not None:
            start, end = _span(text, path, want_key=True) if path else _span(text, ("type",))
            where = _owner(name, info.value, path)
            what = f"{where} has no '{violation.missing}'"
            graded = schema_info.consequence(
                key, name, (*path, violation.missing), info.value, missing=True
            )
        else:
            start, end = _span(text, path)
            where = _owner(name, info.value, path[:-1], by_role=path != ("message", "role"))
            field = path[-1] if path else None
            what = f"{where} {_field(field)} {violation.problem}" if path else (
                f"{where} {violation.problem}"
            )
            graded = schema_info.consequence(key, name, path, info.value)
        if graded is None or graded.severity not in _SEVERITIES:
            severity = CODES["PI200"].severity
            message = f"{what} ({name} schema v{ctx.version}); pi may misread this entry"
        else:
            severity = _SEVERITIES[graded.severity]
            message = f"{what}; {graded.text}"
        issues.append(Issue("PI200", severity, start, end, message, {"path": list(path)}))


def _owner(name: str, value: Any, path: tuple[str | int, ...], by_role: bool = True) -> str:
    """The object at ``path`` in a line, for a message: "assistant message usage.cost".

    Inside a message entry's message the role names it, unless ``by_role`` is False (the
    role itself is at fault).
    """
    message = value.get("message")  # a header or an entry: always an object
    if name == "message" and path[:1] == ("message",) and isinstance(message, dict):
        role = message.get("role")
        label = f"{role} message" if by_role and isinstance(role, str) else "message"
        path = path[1:]
    else:
        label = "session header" if name == "header" else f"{name} entry"
    dotted = _dotted(path)
    return f"{label} {dotted}" if dotted else label


def _dotted(path: tuple[str | int, ...]) -> str:
    out = ""
    for item in path:
        out += f"[{item}]" if isinstance(item, int) else (f".{item}" if out else item)
    return out


def _field(item: str | int | None) -> str:
    return f"item {item}" if isinstance(item, int) else f"'{item}'"
