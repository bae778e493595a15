"""Every safe repair of one session file, text in, text out (``pi-lsp check --fix``).

:func:`repair` first mends what needs the whole file and its name, which no quick fix
can: entries glued onto one line (the next entry appended onto a torn line after a crash,
or onto a line without its newline; pi then skips them all) are split, one per line,
and the torn fragment before them dropped; whitespace pi 1.6's ``JSON.parse`` rejects at
the file's edges (a BOM) is removed; a missing final newline is added (the next append
would glue onto it); a missing or unreadable
header is rebuilt as pi writes it (``type``, ``version``, ``id``, ``timestamp``,
``cwd``) from the file name ``<timestamp>_<session id>.jsonl``, what is left of the old
header, and the sessions folder ``--<cwd>--``. With ``migrate`` the session is then
migrated as pi migrates it. Then the safe quick fixes (:attr:`repairs.Fix.safe`) are
applied round by round, each round against the analysis of the text the round before
left, until none is left: a cut-off last line, duplicate ids, dangling parents, cycles
(broken at the link that names a later line), and the session doctor's repairs
(:mod:`pi_lsp.core.edits.doctor`). A round applies the fixes of one stage only (:data:`STAGES`),
the earliest with a fix due, and of those the ones that do not touch the same lines: ids
are renumbered before a parent is chosen by its id, and the tree is whole before the
doctor pairs calls and results on it, so each fix sees what the fixes it builds on did.

Nothing but a torn fragment is deleted: :class:`RepairError` is raised, and nothing
should be written, when the repaired text holds fewer entries than the original.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from ..checks.analysis import analyze
from ..checks.line_checks import space_names
from ..entries.lines import Kind, glued_entries, parse
from ..entries.model import Analysis
from ..text.findings import Finding
from ..text.textedit import (
    TextEdit,
    apply_edits,
    iso_timestamp,
    js_stringify,
    line_terminator,
    session_id,
    set_members,
)
from . import repairs

MAX_ROUNDS = 64
"""Rounds of quick fixes before :func:`repair` gives up on what is left."""

BLOCK_TYPES = frozenset({"text", "image", "thinking", "toolCall"})
"""Content block types: an object of one of these is never an entry."""

STAGES: tuple[frozenset[str], ...] = (
    frozenset({"PI002", "PI401"}),
    frozenset({"PI400", "PI402"}),
    frozenset({"PI421", "PI423", "PI424", "PI425"}),
)
"""The codes whose safe quick fix ``check --fix`` applies (no other), in the order their
fixes are due: a fix of a later stage waits until no fix of an earlier one is left (a
parent is chosen by an id that a renumbering may free; calls pair with results on the
mended tree)."""

_FILE_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z_(.+)\.jsonl$")
_FOLDER = re.compile(r"^--(.*)--$")
_HEADER_START = re.compile(r'^\s*\{\s*"type"\s*:\s*"session"')
_SALVAGE = re.compile(r'"(id|timestamp|cwd|parentSession)"\s*:\s*("(?:[^"\\]|\\.)*")')
_DECODER = json.JSONDecoder()
_SALVAGE_VERSION = re.compile(r'"version"\s*:\s*(\d+)\s*[,}]')


class RepairError(RuntimeError):
    """A repair would have lost an entry; the file must not be written."""


@dataclass(frozen=True, slots=True)
class Action:
    """One repair: the 0-based ``line`` it applied to (in the text of that step), the
    diagnostic ``code`` it fixes ("" when none reports it) and what it did."""

    line: int
    code: str
    title: str


@dataclass(slots=True)
class Repaired:
    """The repaired text, what was done, the analysis of the result, what could not be
    repaired, and whether the text differs from the original."""

    text: str
    analysis: Analysis
    actions: list[Action] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    changed: bool = False


def repair(text: str, path: str | None = None, migrate: bool = False) -> Repaired:
    """Apply every safe repair to ``text`` (the session file at ``path``)."""
    original = analyze(text, path=path)
    actions: list[Action] = []
    skipped: list[str] = []
    if original.fmt != "pi":
        skipped.append("not a pi session (the book dialect): convert it to pi v3 first")
        return Repaired(text, original, actions, skipped)
    a = original
    for step in (_edge_space, _split_glued, _final_newline):
        a = _apply(a, step(a), actions, path)
    a = _apply(a, _header(a, path, skipped), actions, path)
    if migrate:
        fix = repairs.fix_all(a)
        if fix is not None:
            a = _apply(
                a, [(Action(a.header_line or 0, fix.code, fix.title), fix.edits())], actions, path
            )
    seen = {hash(a.lines)}
    for _ in range(MAX_ROUNDS):
        chosen = _safe_fixes(a)
        if not chosen:
            break
        a = _apply(a, chosen, actions, path)
        state = hash(a.lines)
        if state in seen:  # fixes undoing each other: stop where the last round left it
            break
        seen.add(state)
    _check_kept(original, a)
    final = apply_edits(a.text, [])
    return Repaired(final, a, actions, skipped, changed=final != text)


Step = list[tuple[Action, list[TextEdit]]]


def _apply(a: Analysis, steps: Step, actions: list[Action], path: str | None) -> Analysis:
    """``a`` after the edits of ``steps`` (all against ``a``; they must not overlap)."""
    if not steps:
        return a
    edits = [e for _, group in steps for e in group]
    actions.extend(action for action, _ in steps)
    return analyze(apply_edits(a.text, edits), path=path, previous=a)


def _touched(edits: list[TextEdit]) -> set[int]:
    return {n for e in edits for n in range(e.start[0], e.end[0] + 1)}


def _safe_fixes(a: Analysis) -> Step:
    """One round: the fixes of the earliest stage (:data:`STAGES`) that has any."""
    for codes in STAGES:
        out = _stage_fixes(a, codes)
        if out:
            return out
    return []


def _stage_fixes(a: Analysis, codes: frozenset[str]) -> Step:
    """The first safe fix of each finding of ``codes``, none touching another's lines."""
    out: Step = []
    busy: set[int] = set()
    for finding in a.findings:
        if finding.code not in codes or not _due(a, finding):
            continue
        fix = next((f for f in repairs.fixes_for(a, finding) if f.safe), None)
        if fix is None:
            continue
        edits = fix.edits()
        lines = _touched(edits)
        if not edits or lines & busy:
            continue
        busy |= lines
        out.append((Action(finding.span.line, finding.code, fix.title), edits))
    return out


def _due(a: Analysis, finding: Finding) -> bool:
    """False for a cycle entry other than the one to break: the cycle's entry on the
    earliest line, whose parent is on a later line (pi only appends, so that link is the
    wrong one). PI402 is reported on the entries of a cycle only, so walking the parents
    from one of them goes round that cycle."""
    if finding.code != "PI402":
        return True
    ring: list[int] = []
    node: int | None = finding.span.line
    while node is not None and node not in ring:
        ring.append(node)
        node = a.tree.parent.get(node)
    return finding.span.line == min(ring)


# -- what only the whole file can tell ------------------------------------------------------


def glued_pieces(text: str) -> tuple[list[str], str] | None:
    """The entries glued onto one line (:func:`~pi_lsp.core.entries.lines.glued_entries`) and the
    cut-off fragment before them ("" when none); None unless every kept piece is an entry:
    an object with a ``type`` that is not a content block's and a ``timestamp`` (a content
    block that happens to close a torn fragment is not one)."""
    glued = glued_entries(text)
    if glued is None:
        return None
    bounds = [start for start, _ in glued] + [len(text.rstrip(" \t\r"))]
    pieces = [text[a:b].rstrip(" \t") for a, b in itertools.pairwise(bounds)]
    fragment = "" if glued[0][1] else pieces.pop(0)
    if fragment and _holds_an_object(fragment):
        return None  # not cut off: a whole object, then something else (a no-break space)
    for piece in pieces:
        info = parse(piece)
        if info.kind is not Kind.ENTRY or info.type in BLOCK_TYPES or "timestamp" not in info.obj:
            return None
    return pieces, fragment


def _holds_an_object(text: str) -> bool:
    """True when ``text`` starts with a complete JSON value (no write stopped inside it)."""
    try:
        _DECODER.raw_decode(text)
    except (ValueError, RecursionError):
        return False
    return True


def _split_glued(a: Analysis) -> Step:
    out: Step = []
    term = line_terminator(a.text)
    for line, info in enumerate(a.infos):
        found = glued_pieces(a.lines[line]) if info.kind is Kind.INVALID else None
        if found is None:
            continue
        pieces, fragment = found
        title = f"Split {len(pieces)} entries glued onto one line"
        if fragment:
            title += f", dropping the cut-off fragment before them ({len(fragment)} characters)"
        edit = TextEdit.replace(line, 0, len(a.lines[line]), term.join(pieces))
        out.append((Action(line, "PI001", title), [edit]))
    return out


def _edge_space(a: Analysis) -> Step:
    """Whitespace ``JSON.parse`` rejects before the first line's JSON (a BOM) or after the
    last line's: pi 1.6 refuses the file or skips the entry (pi 0.73 trimmed it)."""
    out: Step = []
    for line, info in enumerate(a.infos):
        if info.edge_space is None:
            continue
        start, end = info.edge_space
        where = "before the session header" if start == 0 else "after the last entry"
        names = space_names(a.lines[line][start:end])
        title = f"Remove the {names} {where} (pi 1.6 gives the line to JSON.parse with it)"
        out.append(
            (
                Action(line, "PI100" if start == 0 else "PI001", title),
                [TextEdit.replace(line, start, end, "")],
            )
        )
    return out


def _final_newline(a: Analysis) -> Step:
    """A newline after the last line when it holds JSON (a text split into lines always
    ends with a line without terminator: "" when the text ends with one)."""
    last = len(a.lines) - 1
    if not a.infos[last].parsed:
        return []
    title = "Add the missing final newline (pi 0.73.1 would glue its next entry onto this line)"
    term = line_terminator(a.text)
    return [(Action(last, "", title), [TextEdit.insert(last, len(a.lines[last]), term)])]


def _header(a: Analysis, path: str | None, skipped: list[str]) -> Step:
    """Rebuild a missing or unreadable header (PI100)."""
    if a.fmt != "pi" or not any(f.code == "PI100" for f in a.findings) or not a.tree.entries:
        return []
    first = next(i for i, info in enumerate(a.infos) if info.kind is not Kind.BLANK)
    if a.header_line is not None and a.header_line == first:
        # the header is the first line that parses: PI100 says its id is no string
        return _header_id(a, path)
    if a.header_line is not None:
        skipped.append(
            f"line {a.header_line + 1} holds a session header but other lines come before it; "
            "not moved"
        )
        return []
    torn = a.infos[first].kind is Kind.INVALID and _HEADER_START.match(a.lines[first])
    salvaged = _salvage(a.lines[first]) if torn else {}
    fields = _header_fields(a, path, salvaged)
    if isinstance(fields, str):
        skipped.append(fields)
        return []
    text = js_stringify(fields)
    where = ("what is left of it, " if torn else "") + "the file name and the folder name"
    if torn:
        title = f"Rebuild the unreadable session header from {where}"
        return [
            (Action(first, "PI100", title), [TextEdit.replace(first, 0, len(a.lines[first]), text)])
        ]
    title = f"Insert the missing session header, rebuilt from {where}"
    insert = TextEdit.insert(first, 0, text + line_terminator(a.text))
    return [(Action(first, "PI100", title), [insert])]


def _header_id(a: Analysis, path: str | None) -> Step:
    """A parsed header without a string id gets the file name's session id."""
    assert a.header_line is not None
    hl = a.header_line
    named = _from_file_name(path)
    ident = named[1] if named else session_id()
    after = "version" if "version" in a.header else "type"
    edits = set_members(a.lines[hl], hl, [("id", js_stringify(ident))], after=after)
    source = "the file name" if named else "a new session id"
    return [(Action(hl, "PI100", f"Give the session header the id {ident!r} ({source})"), edits)]


def _from_file_name(path: str | None) -> tuple[str, str] | None:
    """``(timestamp, session id)`` from pi's file name ``<timestamp>_<id>.jsonl``."""
    m = _FILE_NAME.match(PurePath(path).name) if path else None
    if m is None:
        return None
    day, hh, mm, ss, ms, ident = m.groups()
    return f"{day}T{hh}:{mm}:{ss}.{ms}Z", ident


def cwd_from_folder(path: str | None) -> str | None:
    """The cwd pi encoded in the sessions folder name ``--<cwd, "/" as "-">--``.

    Lossy: a ``-`` of the original path reads back as ``/``.
    """
    m = _FOLDER.match(PurePath(path).parent.name) if path else None
    return None if m is None else "/" + m.group(1).replace("-", "/")


def _salvage(text: str) -> dict[str, Any]:
    """The header members that survive, complete, in a torn header line."""
    out: dict[str, Any] = {}
    for key, raw in _SALVAGE.findall(text):
        try:
            out.setdefault(key, json.loads(raw))
        except ValueError:
            continue
    m = _SALVAGE_VERSION.search(text)
    if m:
        out["version"] = int(m.group(1))
    return out


def _header_fields(a: Analysis, path: str | None, salvaged: dict[str, Any]) -> dict[str, Any] | str:
    """The rebuilt header, in pi's member order, or why it cannot be rebuilt."""
    named = _from_file_name(path)
    cwd = salvaged.get("cwd") or cwd_from_folder(path)
    if not isinstance(cwd, str):
        return (
            "no session header, and neither the folder name (pi's --<cwd>--) nor the file "
            "tells the session's cwd; not rebuilt"
        )
    entries = [a.infos[line].obj for line in a.tree.entries]
    with_ids = any("id" in obj for obj in entries)
    hooks = any(
        isinstance(obj.get("message"), dict) and obj["message"].get("role") == "hookMessage"
        for obj in entries
    )
    version = salvaged.get("version", (2 if hooks else 3) if with_ids else None)
    stamp = next(
        (obj["timestamp"] for obj in entries if isinstance(obj.get("timestamp"), str)), None
    )
    fields: dict[str, Any] = {"type": "session"}
    if version is not None:
        fields["version"] = version
    fields["id"] = named[1] if named else salvaged.get("id") or session_id()
    fields["timestamp"] = (
        named[0] if named else salvaged.get("timestamp") or stamp or iso_timestamp()
    )
    fields["cwd"] = cwd
    if isinstance(salvaged.get("parentSession"), str):
        fields["parentSession"] = salvaged["parentSession"]
    return fields


def _check_kept(before: Analysis, after: Analysis) -> None:
    """Raise :class:`RepairError` when ``after`` holds fewer entries than ``before``."""
    count = sum(1 for info in before.infos if info.kind is Kind.ENTRY)
    now = sum(1 for info in after.infos if info.kind is Kind.ENTRY)
    if now < count:
        raise RepairError(f"the repairs would leave {now} entries of {count}; nothing written")
