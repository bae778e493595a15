"""Hand-written pi session lines for the edit tests (migrate, repairs, context, refactor).

Every line is written out as pi writes it (compact JSON, keys in pi's order), so a test
can compare an edited document with the original line by line.
"""

from __future__ import annotations

import json
import re
from typing import Any

SID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
TS = "2026-01-02T03:04:05.678Z"


def js(value: Any) -> str:
    """Compact JSON with raw non-ASCII, as JSON.stringify writes it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def header(version: int | None = 3, **extra: Any) -> str:
    """A session header line (``version=None``: a v1 header without version)."""
    obj: dict[str, Any] = {"type": "session"}
    if version is not None:
        obj["version"] = version
    obj.update({"id": SID, "timestamp": TS, "cwd": "/home/user/project"})
    obj.update(extra)
    return js(obj)


def _base(kind: str, ident: str | None, parent: str | bool | None) -> dict[str, Any]:
    obj: dict[str, Any] = {"type": kind}
    if ident is not None:
        obj["id"] = ident
    if parent is not False:
        obj["parentId"] = parent
    obj["timestamp"] = TS
    return obj


def user(ident: str | None, parent: str | bool | None, text: str = "hello") -> str:
    """A user message entry (``ident=None, parent=False``: a v1 entry)."""
    obj = _base("message", ident, parent)
    obj["message"] = {"role": "user", "content": text, "timestamp": 1}
    return js(obj)


def assistant(
    ident: str | None,
    parent: str | bool | None,
    text: str = "hi",
    calls: tuple[str, ...] = (),
    stop: str = "stop",
    model: str = "claude-sonnet-4-5",
) -> str:
    """An assistant message entry, with tool calls named by id."""
    obj = _base("message", ident, parent)
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    content += [
        {"type": "toolCall", "id": c, "name": "bash", "arguments": {"command": "ls"}} for c in calls
    ]
    obj["message"] = {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": model,
        "usage": {
            "input": 10,
            "output": 5,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 15,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "stopReason": "toolUse" if calls and stop == "stop" else stop,
        "timestamp": 2,
    }
    return js(obj)


def result(ident: str | None, parent: str | bool | None, call: str, text: str = "ok") -> str:
    """A toolResult message answering the tool call ``call``."""
    obj = _base("message", ident, parent)
    obj["message"] = {
        "role": "toolResult",
        "toolCallId": call,
        "toolName": "bash",
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": 3,
    }
    return js(obj)


def hook(ident: str | None, parent: str | bool | None, text: str = "injected") -> str:
    """A v2 ``hookMessage`` message entry."""
    obj = _base("message", ident, parent)
    obj["message"] = {
        "role": "hookMessage",
        "customType": "ext",
        "content": text,
        "display": True,
        "timestamp": 4,
    }
    return js(obj)


def entry(kind: str, ident: str | None, parent: str | bool | None, **fields: Any) -> str:
    """Any other entry type with its own fields (in the order given)."""
    obj = _base(kind, ident, parent)
    obj.update(fields)
    return js(obj)


def doc(*lines: str) -> str:
    """A document: the lines, each terminated by ``\\n``."""
    return "".join(line + "\n" for line in lines)


def _lines(text: str) -> list[str]:
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


def changed_lines(
    before: str, after: str, deleted: set[int] | frozenset[int] = frozenset()
) -> set[int]:
    """The lines of ``before`` that an edit replaced, given the lines it ``deleted``.

    Lines are split after each ``\n`` and compared with their terminators. After dropping
    ``deleted``, ``before`` and ``after`` must have the same number of lines; every line
    not reported compares equal byte for byte (the "untouched lines keep every byte"
    promise).
    """
    kept = [(i, line) for i, line in enumerate(_lines(before)) if i not in deleted]
    new = _lines(after)
    assert len(kept) == len(new), f"{len(kept)} kept lines but {len(new)} after the edit"
    return {i for (i, old), line in zip(kept, new, strict=True) if old != line}
