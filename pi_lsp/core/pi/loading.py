"""What pi does when it loads a session: which file it opens, which lines it parses, the
version it migrates from, and the JavaScript values it reads them as.

The pipeline, the context, what is sent and the migration all ask these questions; this
module answers them once, below all of them.
"""

from __future__ import annotations

import heapq
from typing import Any

from ..entries.header import Refusal, no_bytes, refusal
from ..entries.lines import Kind
from ..entries.memo import per_analysis
from ..entries.model import Analysis

CURRENT_VERSION = 3
_OTHERS = (Kind.HEADER, Kind.OTHER)
"""The kinds of parsed lines that are no entry of the tree."""


class _Undefined:
    """JavaScript's ``undefined``: a property pi sets to it disappears from the JSON."""

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED: Any = _Undefined()


def analysis_refusal(a: Analysis) -> Refusal | None:
    """Why pi does not open the analysed file as a session (:func:`header.refusal`)."""
    return refusal(a.infos, a.header_line, a.fmt, no_bytes(a.text.lines))


@per_analysis
def parsed_lines(a: Analysis) -> list[int]:
    """The lines in pi's list of parsed entries (header = index 0), in file order."""
    # the tree's entry lines are the same int objects: one per line, not one per list
    others = [i for i, info in enumerate(a.infos) if info.kind in _OTHERS]
    return list(heapq.merge(others, a.tree.entries))


def pi_accepts(a: Analysis) -> bool:
    """True when pi loads the file: its first parsed line is a ``session`` header with a
    string ``id`` (otherwise pi's ``loadEntriesFromFile`` returns nothing); the reason
    when it does not is :func:`analysis_refusal`."""
    return analysis_refusal(a) is None


def source_version(a: Analysis) -> int | None:
    """The version pi migrates ``a`` from (1 or 2), or None when pi would not migrate it.

    None for v3, for files pi refuses (see :func:`pi_accepts`), for the other dialect,
    and for versions pi cannot compare (not a number).
    """
    if not pi_accepts(a):
        return None
    raw = a.header.get("version")
    if raw is None:  # pi: header.version ?? 1
        return 1
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return None
    if raw >= CURRENT_VERSION:
        return None
    return 1 if raw < 2 else 2


def js_string(value: Any) -> str:
    """JavaScript's ``String(value)`` (and template interpolation) of a parsed JSON value:
    ``undefined``, ``null``, ``true``, integral numbers without ``.0``, ``[object Object]``,
    an array as its items joined with ``,`` (null and undefined as nothing), walked with a
    stack of its own: JSON may nest arrays deeper than Python's recursion limit."""
    if not isinstance(value, list):
        return _js_scalar(value)
    out: list[str] = []
    todo: list[tuple[list[Any], int]] = [(value, 0)]
    while todo:
        items, at = todo.pop()
        if at == len(items):
            continue
        if at:
            out.append(",")
        todo.append((items, at + 1))
        item = items[at]
        if isinstance(item, list):
            todo.append((item, 0))
        elif item is not None and item is not UNDEFINED:
            out.append(_js_scalar(item))
    return "".join(out)


def _js_scalar(value: Any) -> str:
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a parsed JSON value (``UNDEFINED`` is falsy)."""
    if value is UNDEFINED:
        return False
    if isinstance(value, dict | list):
        return True
    return bool(value)
