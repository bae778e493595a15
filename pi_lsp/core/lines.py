"""Line-local analysis: what one line is, and what is wrong with it on its own.

Everything here depends only on a line's text and the file's format and version, so a
result can be reused for any line with the same text (the incremental path caches it).
Findings are :class:`Issue` objects with columns but no line number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from . import limits, schema
from .findings import Severity
from .jsonl import JS_SPACE, ParseError, locate, parse_line
from .limits import MIB

PI_ENTRY_TYPES = frozenset(
    {
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)
HEADER_TYPES = frozenset({"session", "session_header"})


class Kind(Enum):
    """What a line holds."""

    BLANK = "blank"
    INVALID = "invalid"
    OTHER = "other"
    HEADER = "header"
    ENTRY = "entry"


@dataclass(frozen=True, slots=True)
class Context:
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


@dataclass(slots=True)
class LineInfo:
    """The result of parsing and checking one line on its own."""

    kind: Kind
    value: Any = None
    type: str | None = None
    error: ParseError | None = None
    issues: list[Issue] = field(default_factory=list)

    @property
    def parsed(self) -> bool:
        """True when ``JSON.parse`` accepts the line (pi keeps it, whatever the value)."""
        return self.kind is not Kind.BLANK and self.kind is not Kind.INVALID

    @property
    def obj(self) -> dict[str, Any]:
        """The parsed object (empty for lines that are not objects)."""
        return self.value if isinstance(self.value, dict) else {}




def is_blank(text: str) -> bool:
    """True for a line that pi skips (empty after JavaScript's ``trim()``)."""
    m = JS_SPACE.match(text)
    return m is not None and m.end() == len(text)


_JS_SPACE_END = re.compile(JS_SPACE.pattern + r"\Z")


def parse(text: str, first: bool = False, last: bool = False) -> LineInfo:
    """Classify one line: blank, invalid JSON, some other JSON, header or entry.

    ``first`` and ``last`` mark the first and last non-blank lines of the file: pi trims
    the whole file's text before splitting it, so leading whitespace on the first (a BOM,
    say) and trailing whitespace on the last (U+00A0, say) are not part of the JSON.
    """
    if is_blank(text):
        return LineInfo(Kind.BLANK)
    body = text
    shift = 0  # characters trimmed off the start
    if first:
        m = JS_SPACE.match(body)
        shift = m.end() if m else 0
        body = body[shift:]
    if last:
        m = _JS_SPACE_END.search(body)
        body = body[: m.start()] if m else body
    value, error = parse_line(body)
    if error is not None:
        error = ParseError(error.offset + shift, error.message, error.at_end)
        return LineInfo(Kind.INVALID, error=error)
    if isinstance(value, dict) and isinstance(value.get("type"), str):
        kind = Kind.HEADER if value["type"] in HEADER_TYPES else Kind.ENTRY
        return LineInfo(kind, value, value["type"])
    return LineInfo(Kind.OTHER, value)


def check(text: str, info: LineInfo, ctx: Context) -> list[Issue]:
    """Line-local findings for a parsed line under a format context."""
    issues: list[Issue] = []
    _check_size(text, ctx, issues)
    _check_encoding(text, info, issues)
    if info.kind is Kind.OTHER:
        issues.append(_not_an_entry(text, info))
    elif info.kind is Kind.ENTRY:
        _check_entry(text, info, ctx, issues)
    elif info.kind is Kind.HEADER:
        _check_schema(text, info, ctx, "header", issues)
    return issues


def _span(text: str, path: tuple[str | int, ...], want_key: bool = False) -> tuple[int, int]:
    loc = locate(text, path)
    if want_key and loc.key is not None and loc.depth == len(path):
        return loc.key
    return loc.value


def _check_size(text: str, ctx: Context, issues: list[Issue]) -> None:
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


def _not_an_entry(text: str, info: LineInfo) -> Issue:
    start, end = _span(text, ())
    if info.value is None:
        message = (
            "line is JSON null, not an entry; pi crashes reading it (\"Cannot read properties "
            "of null\") and the session does not open"
        )
    elif isinstance(info.value, dict) and "type" in info.value:
        start, end = _span(text, ("type",))
        message = f"entry 'type' is not a string; {_UNUSABLE}"
    elif isinstance(info.value, dict):
        message = f"line is an object without a 'type'; {_UNUSABLE}"
    else:
        message = f"line is a JSON {_json_kind(info.value)}, not an object; {_UNUSABLE}"
    return Issue("PI003", Severity.ERROR, start, end, message)


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array"


def _check_entry(text: str, info: LineInfo, ctx: Context, issues: list[Issue]) -> None:
    obj = info.obj
    etype = info.type or ""
    key = schema.schema_key(ctx.fmt, ctx.version)
    if (
        (ctx.fmt == "pi"
        and etype not in PI_ENTRY_TYPES)
        or (ctx.fmt != "pi" and not schema.has_definition(key, etype))
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
    text: str, obj: dict[str, Any], ctx: Context, issues: list[Issue]
) -> None:
    if ctx.version >= 2:
        missing = [k for k in ("id", "parentId") if k not in obj]
        if missing:
            start, end = _span(text, ("type",))
            names = " and ".join(f"'{k}'" for k in missing)
            issues.append(
                Issue(
                    "PI300",
                    Severity.ERROR,
                    start,
                    end,
                    f"entry has no {names} in a v{ctx.version} session; pi does not migrate "
                    "v2+ files, so this entry is cut off from the tree and nothing can link to it",
                    {"missing": missing},
                )
            )
        if obj.get("type") == "compaction" and "firstKeptEntryIndex" in obj:
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


def _check_schema(text: str, info: LineInfo, ctx: Context, name: str, issues: list[Issue]) -> None:
    key = schema.schema_key(ctx.fmt, ctx.version)
    for violation in schema.validate(key, name, info.value):
        if violation.missing is not None:
            path = violation.path
            if path:
                start, end = _span(text, path, want_key=True)
            else:
                start, end = _span(text, ("type",))
        else:
            start, end = _span(text, violation.path)
        issues.append(
            Issue(
                "PI200",
                Severity.ERROR,
                start,
                end,
                f"{violation.message} ({name} schema v{ctx.version}); pi may misread this entry",
                {"path": list(violation.path)},
            )
        )
