"""Apply an LSP ``WorkspaceEdit`` to a document text, independently of pi-lsp's code.

Positions are converted with the spec's line math (``\\n``, ``\\r\\n``, ``\\r``) in the
negotiated encoding; every range must lie inside the document, fall on character
boundaries, and no two edits may overlap (LSP requires all of that), else
:class:`BadEdit` is raised.
"""

from __future__ import annotations

import re
from typing import Any

from .invariants import split, unit_len

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


class BadEdit(AssertionError):
    """The edit cannot be applied as the protocol says."""


def _line_starts(text: str) -> list[int]:
    starts = []
    pos = 0
    n = len(split(text))
    for m in _LINE.finditer(text):
        starts.append(pos)
        pos = m.end()
        if len(starts) == n:
            break
    return starts


def offset(
    text: str, lines: list[str], starts: list[int], pos: dict[str, int], encoding: str
) -> int:
    line, units = pos["line"], pos["character"]
    if not 0 <= line < len(lines):
        raise BadEdit(f"line {line} outside the document ({len(lines)} lines)")
    count = 0
    s = lines[line]
    for i, ch in enumerate(s):
        if count == units:
            return starts[line] + i
        count += unit_len(ch, encoding)
        if count > units:
            raise BadEdit(f"character {units} of line {line} is inside a character")
    if count == units:
        return starts[line] + len(s)
    raise BadEdit(f"character {units} past the end of line {line} (length {count})")


def apply_text_edits(text: str, edits: list[dict[str, Any]], encoding: str) -> str:
    lines = split(text)
    starts = _line_starts(text)
    spans = []
    for n, edit in enumerate(edits):
        rng = edit["range"]
        a = offset(text, lines, starts, rng["start"], encoding)
        b = offset(text, lines, starts, rng["end"], encoding)
        if b < a:
            raise BadEdit(f"edit ends before it starts: {rng}")
        spans.append((a, b, n, edit["newText"]))
    spans.sort()
    out = []
    cursor = 0
    for a, b, _, new in spans:
        if a < cursor:
            raise BadEdit("edits overlap")
        out.append(text[cursor:a])
        out.append(new)
        cursor = b
    out.append(text[cursor:])
    return "".join(out)


def edits_for(edit: dict[str, Any], uri: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The text edits of ``edit`` for ``uri``, and every resource operation in it."""
    text_edits: list[dict[str, Any]] = []
    operations: list[dict[str, Any]] = []
    for doc_uri, changes in (edit.get("changes") or {}).items():
        if doc_uri == uri:
            text_edits += changes
        else:
            operations.append({"kind": "edit", "uri": doc_uri})
    for change in edit.get("documentChanges") or []:
        if "kind" in change:
            operations.append(change)
        elif change["textDocument"]["uri"] == uri:
            text_edits += change["edits"]
        else:
            operations.append({"kind": "edit", "uri": change["textDocument"]["uri"]})
    return text_edits, operations


def apply(text: str, edit: dict[str, Any], uri: str, encoding: str) -> str:
    """``text`` after the part of ``edit`` that concerns ``uri``."""
    text_edits, _ = edits_for(edit, uri)
    return apply_text_edits(text, text_edits, encoding)
