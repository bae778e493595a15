"""Slim values: a parsed line of :data:`~pi_lsp.core.entries.model.SLIM_LINE` or more keeps
its texts cut to :data:`~pi_lsp.core.entries.model.SLIM_KEEP` characters, so the long texts
of a session are held once (in its lines), not twice (docs/performance.md)."""

from __future__ import annotations

from typing import Any

from ..text.jsonl import JS_SPACE
from .model import SLIM_KEEP

_SLIM_DEPTH = 64
"""Below this depth a slim value is kept as it is (no recursion on pathological nesting)."""

_TEXT_KEYS = frozenset(
    {
        "text", "thinking", "data", "content", "summary", "output", "command",
        "errorMessage", "thinkingSignature", "textSignature", "signature",
    }
)
"""Keys whose string values are texts: read for previews and truthiness, never compared."""

_FREE_KEYS = frozenset({"arguments", "details"})
"""Keys of free-form values (a tool call's arguments, a result's details): every string
inside is a text."""


_CUT_KEYS = _TEXT_KEYS | _FREE_KEYS
"""Keys whose string value is a text (a free-form value that is a string is one)."""


def _cut(text: str) -> str:
    """``text`` cut to :data:`SLIM_KEEP` characters after its leading JavaScript whitespace
    (so a cut text is blank exactly when the whole text is)."""
    lead = JS_SPACE.match(text).end()  # type: ignore[union-attr]  # matches everywhere
    return text[: lead + SLIM_KEEP]


def slim_value(value: Any, key: str | None = None, free: bool = False, depth: int = 0) -> Any:
    """``value`` with each text longer than :data:`SLIM_KEEP` cut (:func:`_cut`); what
    holds no such text is returned as it is (containers are copied only on a path to a cut;
    a line's value that is itself a string is under no key, so no text).

    ``key`` is the key ``value`` is under (a list's items are under the list's key),
    ``free`` is true inside a free-form value. ``value`` is as orjson makes it (exact
    ``dict``, ``list`` and ``str`` objects); each item is decided inline, without a call,
    since most are short strings and numbers.
    """
    if depth >= _SLIM_DEPTH:
        return value
    kind = value.__class__
    if kind is dict:
        out: dict[str, Any] | None = None
        for k, v in value.items():
            item = v.__class__
            if item is str:
                if len(v) <= SLIM_KEEP or not (free or k in _CUT_KEYS):
                    continue
                slim = _cut(v)
            elif item is dict or item is list:
                slim = slim_value(v, k, free or k in _FREE_KEYS, depth + 1)
                if slim is v:
                    continue
            else:
                continue
            if out is None:
                out = dict(value)
            out[k] = slim
        return value if out is None else out
    if kind is list:
        items: list[Any] | None = None
        texts = free or key in _TEXT_KEYS
        for n, v in enumerate(value):
            item = v.__class__
            if item is str:
                if len(v) <= SLIM_KEEP or not texts:
                    continue
                slim = _cut(v)
            elif item is dict or item is list:
                slim = slim_value(v, key, free, depth + 1)
                if slim is v:
                    continue
            else:
                continue
            if items is None:
                items = list(value)
            items[n] = slim
        return value if items is None else items
    return value
