"""Refactorings on a session the way pi performs them: branch, label, name, fork.

Appends behave like pi's ``SessionManager``: a new entry goes at the end of the file with
a fresh 8-hex id, the current time (``toISOString``) and ``parentId`` = the current leaf
(the last entry), unless the operation says otherwise; keys are in pi's order and values
serialised as ``JSON.stringify`` does, so the new line is what pi would have written.

- :func:`branch` is pi 1.6's ``branchWithSummary(entryId, summary)``: a ``branch_summary``
  child of the entry, whose ``fromId`` is the leaf being left (``"root"`` when there is
  none). pi 0.73.1's code wrote the branched-from entry there instead; its own
  documentation ("Entry we navigated from"), pi 1.x and the seeds use the leaf, as here.
- :func:`label` is ``appendLabelChange`` (a missing label clears it), :func:`name`
  ``appendSessionInfo`` (the name trimmed).
- :func:`fork` is pi 1.6's ``createBranchedSession``: the root → entry path without label
  entries, each ``parentId`` relinked to the previous kept entry (a compaction whose
  ``firstKeptEntryId`` named a dropped label names the entry after it), under a new v3
  header with ``parentSession``, then the labels of path entries re-created at the end.
  Lines are copied byte for byte except a relinked ``parentId`` or ``firstKeptEntryId``
  value. v1/v2 files are forked from their migrated form, as pi migrates on load. (pi
  0.73.1 dropped the labels without relinking, leaving dangling parents.)

They need a v2/v3 file with ids (pi migrates v1 before anything else; so must the user).
"""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from ..checks.analysis import analyze
from ..entries.lines import Kind
from ..entries.model import Analysis
from ..pi import context, migrate
from ..pi.loading import CURRENT_VERSION, UNDEFINED, analysis_refusal, js_truthy
from ..text.textedit import (
    TextEdit,
    append_lines,
    apply_edits,
    fresh_id,
    iso_timestamp,
    js_stringify,
    session_id,
    set_members,
)
from .repairs import taken_ids


class RefactorError(ValueError):
    """The operation does not apply to this document or entry."""


def _require_ids(a: Analysis) -> None:
    if a.fmt != "pi" or a.header_line is None:
        raise RefactorError("not a pi session file (no session header)")
    if a.version < 2:
        raise RefactorError("v1 session: entries have no ids yet; migrate it to v3 first")


def entry_id(a: Analysis, line: int) -> str:
    """The id of the entry on ``line``; :class:`RefactorError` when it has none."""
    if not 0 <= line < len(a.infos) or a.infos[line].kind is not Kind.ENTRY:
        raise RefactorError(f"line {line + 1} is not an entry")
    ident = a.infos[line].obj.get("id")
    if not isinstance(ident, str):
        raise RefactorError(f"the entry on line {line + 1} has no id")
    return ident


def line_of(a: Analysis, ident: str) -> int:
    """The line of the entry with id ``ident`` (the last one, as pi's index keeps)."""
    line = a.tree.ids.get(ident)
    if line is None:
        raise RefactorError(f"no entry with id {ident!r}")
    return line


def leaf_id(a: Analysis) -> str | None:
    """The id of the current leaf (the last entry), or None."""
    leaf = a.tree.leaf
    if leaf is None:
        return None
    ident = a.infos[leaf].obj.get("id")
    return ident if isinstance(ident, str) else None


def _append(a: Analysis, fields: list[tuple[str, Any]], now: datetime.datetime | None) -> TextEdit:
    """The edit appending one entry: ``type``, fresh ``id``, ``parentId`` and ``timestamp``
    first (unless given), then ``fields``, in pi's key order."""
    head: dict[str, Any] = dict(fields[:1])
    head["id"] = fresh_id(taken_ids(a))
    head["parentId"] = leaf_id(a)
    head["timestamp"] = iso_timestamp(now)
    # a parentId among the fields replaces the leaf, in its place
    head.update((k, v) for k, v in fields[1:] if v is not UNDEFINED)
    return append_lines(a.text, [js_stringify(head)])


def branch(
    a: Analysis, line: int, summary: str, now: datetime.datetime | None = None
) -> list[TextEdit]:
    """Append a ``branch_summary`` child of the entry on ``line`` (pi's ``branchWithSummary``)."""
    _require_ids(a)
    parent = entry_id(a, line)
    fields = [
        ("type", "branch_summary"),
        ("parentId", parent),
        ("fromId", leaf_id(a) or "root"),
        ("summary", summary),
    ]
    return [_append(a, fields, now)]


def label(
    a: Analysis, line: int, text: str | None, now: datetime.datetime | None = None
) -> list[TextEdit]:
    """Append a ``label`` entry setting (or, with None or ``""``, clearing) the entry's label."""
    _require_ids(a)
    target = entry_id(a, line)
    fields = [
        ("type", "label"),
        ("targetId", target),
        ("label", UNDEFINED if text is None else text),
    ]
    return [_append(a, fields, now)]


def name(a: Analysis, text: str, now: datetime.datetime | None = None) -> list[TextEdit]:
    """Append a ``session_info`` entry naming the session (pi trims the name)."""
    _require_ids(a)
    return [_append(a, [("type", "session_info"), ("name", text.strip())], now)]


def current_labels(a: Analysis) -> dict[str, tuple[Any, Any]]:
    """``targetId → (label, timestamp)`` as pi's ``labelsById``/``labelTimestampsById``.

    Later label entries win and a falsy label clears; the order is the ``Map``'s (a
    re-set keeps its place, a cleared then re-set label moves to the end).
    """
    out: dict[str, tuple[Any, Any]] = {}
    for _, entry in context.entries_of(a):
        if not isinstance(entry, dict) or entry.get("type") != "label":
            continue
        target = entry.get("targetId")
        if not isinstance(target, str):
            continue
        value = entry.get("label")
        if js_truthy(value):
            out[target] = (value, entry.get("timestamp"))
        else:
            out.pop(target, None)
    return out


@dataclass(frozen=True, slots=True)
class Fork:
    """A new session file: its name (pi's scheme), header id and full text."""

    file_name: str
    session_id: str
    text: str
    entries: int
    labels: int


def file_name(timestamp: str, ident: str) -> str:
    """pi's session file name: ``<timestamp with : and . replaced by ->_<id>.jsonl``."""
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{ident}.jsonl"


def _v3(a: Analysis) -> Analysis:
    """``a`` itself when it is v3; else the analysis of its migrated text (only its lines
    and tree are read: no path, no options)."""
    m = migrate.plan(a)
    if m is None:
        return a
    return analyze(migrate.migrated_text(a, m))


def fork(
    a: Analysis,
    at: str | int,
    source_path: str | None,
    now: datetime.datetime | None = None,
) -> Fork:
    """pi's ``createBranchedSession`` at the entry ``at`` (an id, or a line number for v1).

    ``source_path`` becomes the header's ``parentSession`` (absolute, as pi resolves it);
    without it the header has none, as for pi's in-memory sessions.
    """
    refused = analysis_refusal(a)
    if refused is not None:
        raise RefactorError(refused.reason)
    b = _v3(a)
    target = line_of(b, at) if isinstance(at, str) else line_of(b, entry_id(b, at))
    path = b.tree.path_to(target)
    if b.tree.parent.get(path[0]) is not None:
        raise RefactorError("the entry's parent chain is a cycle; pi would hang on it")
    kept: list[int] = []
    replaced: dict[Any, Any] = {}  # dropped label id -> the id of the next kept entry
    pending: list[Any] = []
    for line in path:
        obj = b.infos[line].obj
        if obj.get("type") == "label":
            pending.append(obj.get("id"))
            continue
        replaced.update((label_id, obj.get("id")) for label_id in pending)
        pending.clear()
        kept.append(line)
    lines: list[str] = []
    previous: str | None = None
    for line in kept:
        obj = b.infos[line].obj
        text = b.lines[line]
        pairs = []
        if obj.get("parentId", UNDEFINED) != previous:
            pairs.append(("parentId", js_stringify(previous)))
        first_kept = obj.get("firstKeptEntryId")
        # a retain-none compaction (its own id) is never relinked: ids resolve to their
        # last line, so no dropped label before it on the path can carry its id
        if (
            obj.get("type") == "compaction"
            and isinstance(first_kept, str)
            and first_kept in replaced
        ):
            pairs.append(("firstKeptEntryId", js_stringify(replaced[first_kept])))
        if pairs:
            text = apply_edits(text, set_members(text, 0, pairs, after="type"))
        lines.append(text)
        previous = obj.get("id")
    moment = now or datetime.datetime.now(datetime.UTC)
    stamp = iso_timestamp(moment)
    ident = session_id(moment)
    header_obj = b.header
    cwd = header_obj.get("cwd")
    header: dict[str, Any] = {
        "type": "session",
        "version": CURRENT_VERSION,
        "id": ident,
        "timestamp": stamp,
        "cwd": cwd if cwd is not None else os.getcwd(),  # pi: header.cwd ?? process.cwd()
    }
    if source_path is not None:
        header["parentSession"] = os.path.abspath(source_path)
    ids = {b.infos[line].obj.get("id") for line in kept}
    taken = {i for i in ids if isinstance(i, str)}
    label_lines = []
    parent = previous
    for target_id, (value, stamp_of) in current_labels(b).items():
        if target_id not in ids:
            continue
        new = fresh_id(taken)
        entry = {
            "type": "label",
            "id": new,
            "parentId": parent,
            "timestamp": stamp_of,
            "targetId": target_id,
            "label": value,
        }
        label_lines.append(js_stringify(entry))
        parent = new
    text = "\n".join([js_stringify(header), *lines, *label_lines]) + "\n"
    return Fork(file_name(stamp, ident), ident, text, len(kept), len(label_lines))


def fork_path(source_path: str, fork_result: Fork) -> str:
    """Where pi puts the fork: the source file's directory, under the fork's file name."""
    return str(PurePath(os.path.abspath(source_path)).parent / fork_result.file_name)
