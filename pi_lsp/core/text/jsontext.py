"""JSON text for output and messages, that never fails on what a session can hold.

A session can hold lone surrogates (bytes that were not UTF-8, or ``"\\ud800"`` escapes,
which orjson refuses) and values nested thousands deep (which every recursive encoder
refuses). Both still print: surrogates as ``\\u`` escapes, deep parts cut off.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson

MAX_DEPTH = 64
"""Below this depth a value is printed as ``"…"`` when it cannot be printed whole."""


def dumps(value: Any, indent: bool = False) -> str:
    """``value`` as JSON text (two-space indented when ``indent``)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0).decode()
    except TypeError:  # orjson.JSONEncodeError: surrogates, or nested too deep
        pass
    spacing = 2 if indent else None
    try:
        return json.dumps(value, indent=spacing)
    except (RecursionError, ValueError):
        return json.dumps(_bounded(value, 0), indent=spacing)


def _bounded(value: Any, depth: int) -> Any:
    if isinstance(value, dict | list) and depth >= MAX_DEPTH:
        return "…"
    if isinstance(value, dict):
        return {str(k): _bounded(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_bounded(v, depth + 1) for v in value]
    return value


class _Raw(str):
    """Text already in JSON form (punctuation, keys) on the encoder's stack."""


def stringify(value: Any) -> str:
    """Compact JSON as JavaScript's ``JSON.stringify`` writes it, at any nesting depth.

    Lone surrogates are escaped, non-finite numbers become ``null`` (as in JavaScript),
    and nothing is cut: this is for writing files.
    """
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        pass
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Raw):
            out.append(item)
        elif isinstance(item, dict):
            parts: list[Any] = []
            for n, (key, member) in enumerate(item.items()):
                parts.append(_Raw(("," if n else "{") + _string(str(key)) + ":"))
                parts.append(member)
            parts.append(_Raw("}" if parts else "{}"))
            stack.extend(reversed(parts))
        elif isinstance(item, list):
            parts = []
            for n, element in enumerate(item):
                parts.append(_Raw("," if n else "["))
                parts.append(element)
            parts.append(_Raw("]" if parts else "[]"))
            stack.extend(reversed(parts))
        elif isinstance(item, str):
            out.append(_string(item))
        elif isinstance(item, float) and not math.isfinite(item):
            out.append("null")
        else:
            out.append(json.dumps(item))
    return "".join(out)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _string(text: str) -> str:
    try:
        return orjson.dumps(text).decode()
    except TypeError:  # lone surrogates: escaped, as JSON.stringify escapes them
        raw = json.dumps(text, ensure_ascii=False)
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", raw)


def clip_json(value: Any, limit: int = 60) -> str:
    """A value as JSON text for a message (what the user wrote, not Python's repr), clipped."""
    text = dumps(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
