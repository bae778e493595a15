"""Findings about the file itself: its lines one by one and its header.

Each line: what :mod:`pi_lsp.core.entries.lines` found in it, a blank line inside the file
(PI005), JSON pi cannot read (PI001, cut off at the end: PI002, entries glued on one
line, whitespace at the file's edge) and a header where none belongs (PI101). The header:
none, or not where pi looks (PI100), its version (PI102, PI103, PI303) and the session
id in the file name (PI104). What the header says (format, version) is :mod:`pi_lsp.core.entries.header`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from ..entries.header import Refusal, whole_number
from ..entries.lines import Kind, LineInfo, glued_entries
from ..entries.memo import per_links
from ..entries.model import Analysis
from ..pi.loading import analysis_refusal, js_string
from ..text.files import session_id_in_name
from ..text.findings import Finding, Related, Severity, Span
from ..text.jsonl import locate
from ..text.jsontext import clip_json
from ..text.lineindex import SplitText
from .line_checks import space_names

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
"""A UUID, in either letter case."""


def line_findings(
    split: SplitText,
    infos: list[LineInfo],
    header_line: int | None,
    version: int,
    lone_leaf: int | None,
    only: Iterable[int] | None = None,
) -> list[Finding]:
    """Findings of single lines (of the lines ``only`` names, when given); ``lone_leaf`` is
    the leaf when it has no parent (a root)."""
    out: list[Finding] = []
    lines = split.lines
    last_content = len(infos) - 1
    while last_content >= 0 and infos[last_content].kind is Kind.BLANK:
        last_content -= 1
    blank, invalid, header, entry = Kind.BLANK, Kind.INVALID, Kind.HEADER, Kind.ENTRY
    first = next((i for i, info in enumerate(infos) if info.parsed), -1)
    for i in range(len(infos)) if only is None else only:
        info = infos[i]
        kind = info.kind
        if kind is entry and not info.issues:
            continue
        for issue in info.issues:
            message = issue.message
            if issue.code == "PI004" and i == lone_leaf:
                message = (
                    f"unknown entry type '{info.type}' for this format; pi keeps the line, and "
                    "as the last entry with no parent it is where pi resumes: the path from it "
                    "holds only this entry, which pi does not send, so pi resumes with an "
                    "empty context"
                )
            out.append(
                Finding(
                    issue.code,
                    issue.severity,
                    Span(i, issue.start, issue.end),
                    message,
                    data=issue.data,
                )
            )
        if kind is blank:
            if i < last_content:
                out.append(
                    Finding(
                        "PI005",
                        Severity.INFORMATION,
                        Span(i, 0, len(lines[i])),
                        "blank line inside the file; pi skips it",
                    )
                )
        elif kind is invalid and info.error is not None:
            last = i == last_content
            unterminated = last and split.terminators[i] == ""
            out.append(_syntax_finding(lines[i], i, info, last, unterminated, version))
        elif kind is header and header_line is not None and (i != header_line or i != first):
            span = Span(i, *locate(lines[i], ("type",)).value)
            if i == header_line:
                message = (
                    "a session header after other lines; pi reads the first line that parses "
                    f"(line {first + 1}) as the header, and that is no session header"
                )
                related = (Related(Span(first, 0, len(lines[first])), "the first line"),)
            else:
                message = (
                    "a second session header inside the file; pi ignores it (only the first "
                    "header counts), so the session it was meant to start is merged into this one"
                )
                related = (Related(Span(header_line, 0, len(lines[header_line])), "the session header"),)
            out.append(Finding("PI101", Severity.ERROR, span, message, related))
    return out


def _syntax_finding(
    text: str, line: int, info: LineInfo, is_last: bool, unterminated: bool, version: int
) -> Finding:
    assert info.error is not None
    error = info.error
    end = len(text.rstrip(" \t\r\n"))
    if info.edge_space is not None:
        return _edge_space_finding(text, line, info.edge_space)
    if is_last and error.at_end and text.lstrip().startswith("{"):
        message = (
            "last line is cut off mid-object (the writer stopped before finishing it); pi "
            "skips it, so this entry is lost"
        )
        if unterminated:
            message += (
                "; pi 1.6 (since 0.84.4) starts the next entry on a new line, while older "
                "releases appended it to this line and lost it too"
            )
        return Finding("PI002", Severity.ERROR, Span(line, 0, end), message)
    bad = text[error.offset : error.offset + 1]
    glued = glued_entries(text)
    if bad and 0xDC80 <= ord(bad) <= 0xDCFF:
        message = (
            f"invalid UTF-8 (byte 0x{ord(bad) - 0xDC00:02X}); pi decodes it as U+FFFD and "
            "skips the line if that breaks the JSON"
        )
    elif glued is not None:
        message = _glued_message(glued, version)
    else:
        message = f"line is not valid JSON ({error.message}); pi skips this line"
    start = min(error.offset, max(end - 1, 0)) if end else 0
    return Finding(
        "PI001", Severity.ERROR, Span(line, start, max(end, start + 1) if end else 0), message
    )


def _edge_space_finding(text: str, line: int, space: tuple[int, int]) -> Finding:
    """A line pi 1.6 skips for whitespace at the file's edge that pi 0.73 trimmed off."""
    where = "before the JSON at the start" if space[0] == 0 else "after the JSON at the end"
    return Finding(
        "PI001",
        Severity.ERROR,
        Span(line, *space),
        f"line is not valid JSON as pi 1.6 reads it: {space_names(text[space[0] : space[1]])} "
        f"{where} of the file; pi 1.6 gives each line to JSON.parse as it is, which rejects "
        "it, so pi skips this line and the entry is lost; pi 0.73 trimmed the whole file and "
        "read it",
    )


_GLUE_RELEASES = " (releases before 0.84.4 did; pi 1.6 adds the missing newline first)"


def _glued_message(pieces: list[tuple[int, bool]], version: int) -> str:
    """What pi does with a line holding several entries glued together."""
    complete = sum(1 for _, whole in pieces if whole)
    if complete == len(pieces):
        what = (
            f"{len(pieces)} JSON objects glued together on one line: pi wrote an entry without "
            "its line break (it crashed mid-write, or the file lacked its final newline) and "
            f"appended the next one to it{_GLUE_RELEASES}"
        )
    else:
        what = (  # (only the first piece can be cut off)
            f"1 entry cut off mid-write with {complete} complete one{'' if complete == 1 else 's'} glued "
            "after it: pi crashed while writing and appended the next entry to the same "
            f"line{_GLUE_RELEASES}"
        )
    message = (
        f"line is not valid JSON: {what}; JSON.parse rejects the whole line, so pi skips it and "
        f"{'both' if len(pieces) == 2 else 'all'} entries are lost"
    )
    if version < 3:
        return (
            message + f"; when pi migrates this v{version} session it rewrites the file "
            "without this line, so they are lost for good"
        )
    return message + " (they are still in the file: splitting the line restores them)"


def _refusal_span(a: Analysis, r: Refusal) -> Span:
    """Where PI100 goes: the header's ``id`` (or ``type``), else the line pi stumbles on."""
    hl = a.header_line
    if r.kind == "no_id" and hl is not None:
        return a.span_of(hl, ("id",)) if "id" in a.header else a.span_of(hl, ("type",))
    if r.kind == "not_header" and r.line is not None:
        return a.line_span(r.line)
    line = r.line if r.line is not None else 0
    return Span(line, 0, len(a.text.lines[line]))


def header_findings(a: Analysis) -> list[Finding]:
    """Findings of the header: none, or misplaced (PI100); version and file name."""
    out: list[Finding] = []
    r = analysis_refusal(a)
    if r is not None and r.kind != "book":  # the other dialect: PI105 (book.py)
        out.append(Finding("PI100", Severity.ERROR, _refusal_span(a, r), r.reason))
        if r.kind != "no_id":
            return out
    hl = a.header_line
    if a.fmt != "pi" or hl is None:
        return out
    out += _version_findings(a, hl, a.header)
    out += _file_name_finding(a, hl, a.header)
    return out


def _version_findings(a: Analysis, hl: int, header: dict[str, Any]) -> list[Finding]:
    out: list[Finding] = []
    raw = header.get("version")
    has_version = "version" in header
    version_span = a.span_of(hl, ("version",)) if has_version else a.span_of(hl, ("type",))
    number = whole_number(raw)
    if has_version and (number is None or number < 1):
        out.append(
            Finding(
                "PI102",
                Severity.ERROR,
                version_span,
                f"unsupported session version {clip_json(raw)} (expected an integer 1-3); "
                f"{_js_migration(raw)}",
            )
        )
        return out
    if number is not None and number > 3:
        out.append(
            Finding(
                "PI102",
                Severity.WARNING,
                version_span,
                f"session version {number} is newer than this checker knows (3); pi 0.73 "
                "loads it without migration; checked as v3",
            )
        )
        return out
    if a.version < 3:
        out.append(
            Finding(
                "PI103",
                Severity.WARNING,
                version_span,
                f"session is v{a.version}, not migrated to v3; pi migrates it when it opens the "
                "session and rewrites the whole file"
                + (" with new random ids" if a.version == 1 else "")
                + " (quick fix: migrate)",
                data={"version": a.version},
            )
        )
    if a.version == 1:
        count, line = _keyed_entries(a)
        if count:
            first = a.infos[line].obj
            key, what = ("id", "an id") if "id" in first else ("parentId", "a parentId")
            out.append(
                Finding(
                    "PI303",
                    Severity.WARNING,
                    version_span,
                    f"header says v1 but {count} entries carry ids (half-migrated); pi "
                    "will migrate again and replace every id and parent link",
                    (Related(a.span_of(line, (key,)), f"first entry with {what}"),),
                    data={"entries": count},
                )
            )
    return out


@per_links
def _keyed_entries(a: Analysis) -> tuple[int, int]:
    """How many entries carry an ``id`` or a ``parentId`` key, and the line of the first
    (-1: none). Only the tree and the keys' presence (both link facts) decide it, so an
    edit that keeps the links keeps it, without a pass over every entry's value."""
    infos = a.infos  # an entry's value is an object
    keyed = [i for i in a.tree.entries if "id" in (v := infos[i].value) or "parentId" in v]
    return len(keyed), keyed[0] if keyed else -1


_JS_SPACE = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
"""What JavaScript's ``Number("...")`` trims off a string (its WhiteSpace and LineTerminator)."""

_JS_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_JS_RADIX = re.compile(r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")


def _js_number(value: Any) -> float:
    """JavaScript's numeric coercion of a header version (``null`` counts as 1, via ``??``).

    A string is read as ``Number()`` reads it (trimmed; ``""`` is 0; decimal, ``Infinity``
    or ``0x``/``0o``/``0b`` digits, else NaN), an array as the string it joins to, an object
    as NaN.
    """
    if value is None:
        return 1.0
    if isinstance(value, bool | int | float):
        return float(value)
    text = js_string(value).strip(_JS_SPACE)
    if not text:
        return 0.0
    if _JS_RADIX.fullmatch(text):
        return float(int(text, 0))
    if _JS_DECIMAL.fullmatch(text):
        return float(text)  # (Python reads JavaScript's decimals and Infinity alike)
    return math.nan


def _js_migration(raw: Any) -> str:
    """What pi 0.73's ``version >= 3`` / ``< 2`` / ``< 3`` tests do with an odd version."""
    number = _js_number(raw)
    if number >= 3:
        return "pi compares it as a number, reads it as v3 and does not migrate"
    if number < 2:
        return "pi compares it as a number and migrates the file as v1, replacing every id and parent link"
    if number < 3:
        return "pi compares it as a number and migrates the file as v2 (renaming hookMessage)"
    return "pi cannot compare it with a number and neither migrates nor rejects the file"


def _file_name_finding(a: Analysis, hl: int, header: dict[str, Any]) -> list[Finding]:
    """PI104: the id in a file name of pi's form is not the header id.

    pi names a file after the header id verbatim, and finds sessions by the header id only
    (``findById`` compares ``header.id !== id``; ``--session`` prefixes use ``startsWith``).
    A UUID is one UUID in either letter case (RFC 9562), so a UUID that differs only in case
    names the same session; any other difference (and any difference in a custom id) is
    reported. A name not in pi's form says nothing.
    """
    named = session_id_in_name(a.path) if a.path is not None else None
    ident = header.get("id")
    if named is not None and isinstance(ident, str) and named != ident:
        if _UUID.fullmatch(named) and named.lower() == ident.lower():
            return []
        case = " (they differ only in letter case)" if named.lower() == ident.lower() else ""
        found = "finds this file only as a prefix" if ident.startswith(named) else "does not find this file"
        return [
            Finding(
                "PI104",
                Severity.HINT,
                a.span_of(hl, ("id",)),
                f"file name says session '{named}' but the header id is '{ident}'{case}; pi names "
                "files after the header id and finds sessions by it alone, case-sensitively, so "
                f"`pi --session {named}` {found}",
            )
        ]
    return []
