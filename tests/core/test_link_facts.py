"""Link findings reused after an edit are the ones a fresh analysis makes.

After an edit, :func:`pi_lsp.core.checks.analysis.analyze` keeps the previous tree and link
findings when every changed line has the same :func:`~pi_lsp.core.checks.analysis.link_facts`.
So each field that the link analysis reads must be among those facts. Here each field of
each entry of the link fixtures (ids, parents, references, roles, tool call ids, stop
reasons, context edit replacements and their blocks, flags) is changed alone (removed,
made null, given another line's value or a new one) and the incremental analysis is
compared with a fresh one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.views import refs

from .pi_sessions import assistant, doc, entry, header, result, user

DATA = Path(__file__).resolve().parents[1] / "data"
FIXTURES = sorted(p for d in ("broken", "fixed") for p in (DATA / d).glob("pi4*.jsonl"))

FIELDS: list[tuple[str | int, ...]] = [
    ("version",), ("type",), ("id",), ("parentId",), ("firstKeptEntryId",), ("firstKeptEntryIndex",),
    ("targetId",), ("fromId",), ("label",), ("parentSession",), ("summary",),
    ("systemMessage",), ("systemMessage", "role"), ("replacement",), ("message",), ("message", "role"),
    ("message", "toolCallId"), ("message", "stopReason"), ("message", "excludeFromContext"),
    ("message", "content"),
]
"""Top-level and message fields; the blocks of contents are added per line."""

GONE = object()
"""Remove the field."""

MORE: dict[tuple[str | int, ...], list[Any]] = {
    ("message", "stopReason"): ["error", "aborted"],
    ("message", "excludeFromContext"): [True, False, [], {}],
    ("summary",): ["", [], {}],
    ("systemMessage", "role"): ["toolResult", "system"],
}
"""Values worth trying for some fields, besides null, another line's value and a new string."""

ADDED: dict[str, tuple[tuple[str | int, ...], Any]] = {
    "session": (("parentSession",), "/tmp/other.jsonl"),
    "context_edit": (("replacement",), None),
    "compaction": (("systemMessage",), {"role": "toolResult", "toolCallId": "t9", "content": []}),
}
"""A field added to entries of a type that lack it."""

_BASH = {"role": "bashExecution", "command": "ls", "output": "", "exitCode": 0,
         "cancelled": False, "truncated": False, "timestamp": 1, "excludeFromContext": False}
_EXCLUDED = {**_BASH, "excludeFromContext": True}
_EXCLUDED_AS_JS_DOES = {**_BASH, "excludeFromContext": []}  # an empty array is truthy in JS
_CHECKPOINT = {"role": "system", "content": "", "timestamp": 1}
_KEEP_CALL = {"content": [{"type": "toolCall", "id": "t1", "name": "bash", "arguments": {}}]}
WRITTEN = {
    # a bash run between a call and its result (sent unless excluded), a context edit
    # whose replacement keeps the call, a v1 compaction whose kept index is sound, a label
    "bash-between": doc(
        header(), user("a" * 8, None), assistant("b" * 8, "a" * 8, calls=("t1",)),
        entry("message", "c" * 8, "b" * 8, message=_BASH), result("d" * 8, "c" * 8, "t1"),
        assistant("e" * 8, "d" * 8), user("f" * 8, "a" * 8, "elsewhere"),
    ),
    "bash-excluded-between": doc(
        header(), user("a" * 8, None), assistant("b" * 8, "a" * 8, calls=("t1",)),
        entry("message", "c" * 8, "b" * 8, message=_EXCLUDED), result("d" * 8, "c" * 8, "t1"),
        entry("message", "e" * 8, "d" * 8, message=_EXCLUDED_AS_JS_DOES),
        assistant("f" * 8, "e" * 8, calls=("t2",)),
        entry("message", "g" * 8, "f" * 8, message=_EXCLUDED_AS_JS_DOES),
        result("h" * 8, "g" * 8, "t2"),
    ),
    "summary-between": doc(
        # a branch summary with no text is not sent, so it does not come between
        header(), user("a" * 8, None), assistant("b" * 8, "a" * 8, calls=("t1",)),
        entry("branch_summary", "c" * 8, "b" * 8, fromId="a" * 8, summary=""),
        result("d" * 8, "c" * 8, "t1"),
    ),
    "v3-compaction-checkpoint": doc(
        header(), user("a" * 8, None), assistant("b" * 8, "a" * 8, calls=("t1",)),
        result("c" * 8, "b" * 8, "t1"), assistant("d" * 8, "c" * 8),
        entry("compaction", "e" * 8, "d" * 8, summary="s", firstKeptEntryId="b" * 8,
              tokensBefore=9, systemMessage=_CHECKPOINT),
        user("f" * 8, "e" * 8),
    ),
    "edit-odd-blocks": doc(
        # a replacement whose content holds a block that is no object
        header(), user("a" * 8, None), assistant("b" * 8, "a" * 8, calls=("t1",)),
        result("c" * 8, "b" * 8, "t1"), assistant("d" * 8, "c" * 8),
        entry("context_edit", "e" * 8, "d" * 8, targetId="b" * 8,
              replacement={"content": ["text", *_KEEP_CALL["content"]]}),
    ),
    "branches": doc(
        # read as v1 (a header version changed), entries chain in file order
        header(), user("a" * 8, None), user("b" * 8, "a" * 8), user("c" * 8, "a" * 8),
    ),
    "edit-keeps-call": doc(
        header(), user("a" * 8, None), assistant("b" * 8, "a" * 8, calls=("t1",)),
        result("c" * 8, "b" * 8, "t1"), assistant("d" * 8, "c" * 8),
        entry("context_edit", "e" * 8, "d" * 8, targetId="b" * 8, replacement=_KEEP_CALL),
        entry("label", "f" * 8, "e" * 8, targetId="b" * 8, label="here"),
    ),
    "v1-compaction": doc(
        header(None), user(None, False), assistant(None, False, calls=("t1",)),
        result(None, False, "t1"), assistant(None, False), user(None, False, "more"),
        entry("compaction", None, False, summary="s", firstKeptEntryIndex=4, tokensBefore=9),
        user(None, False, "after"),
    ),
}


def _get(obj: Any, path: tuple[str | int, ...]) -> Any:
    for key in path:
        keyed = isinstance(obj, dict) and isinstance(key, str) and key in obj
        if not keyed and not (isinstance(obj, list) and isinstance(key, int) and key < len(obj)):
            return GONE
        obj = obj[key]
    return obj


def _set(obj: Any, path: tuple[str | int, ...], value: Any) -> Any:
    """A copy of ``obj`` with the field at ``path`` set to ``value`` (removed for GONE)."""
    head, *rest = path
    copy: Any = dict(obj) if isinstance(obj, dict) else list(obj)
    if rest:
        copy[head] = _set(copy[head], tuple(rest), value)
    elif value is GONE:
        del copy[head]
    else:
        copy[head] = value
    return copy


def _paths(obj: dict[str, Any]) -> Iterator[tuple[str | int, ...]]:
    """The fields of ``obj`` to change: those of FIELDS it has, and the type and id of each
    block of its message content and of its replacement's content."""
    for path in FIELDS:
        if _get(obj, path) is not GONE:
            yield path
    for base in (("message", "content"), ("replacement", "content")):
        blocks = _get(obj, base)
        if isinstance(blocks, list):
            for n, block in enumerate(blocks):
                if isinstance(block, dict):
                    yield from ((*base, n, key) for key in ("type", "id") if key in block)


def _changes(lines: list[str]) -> Iterator[tuple[int, str]]:
    """Each line of ``lines`` with one field changed, as ``(line, new text)``."""
    objs = [json.loads(line) if line.strip() else None for line in lines]
    for i, obj in enumerate(objs):
        if not isinstance(obj, dict):
            continue
        added = ADDED.get(str(obj.get("type")))
        if added is not None and _get(obj, added[0]) is GONE:
            yield i, json.dumps(_set(obj, *added), separators=(",", ":"))
        for path in _paths(obj):
            value = _get(obj, path)
            others = [_get(o, path) for o in objs if isinstance(o, dict)]
            other = next((v for v in others if v is not GONE and v != value), "zzzzzzzz")
            numbers = [value + 1, 0] if type(value) is int else []
            for new in (GONE, None, other, "zzzzzzzz", *numbers, *MORE.get(path, [])):
                if new is not value and new != value:
                    yield i, json.dumps(_set(obj, path, new), separators=(",", ":"))


def _check(name: str, text: str) -> None:
    lines = text.split("\n")
    before = analyze(text)
    for i, line in _changes(lines):
        after = "\n".join([*lines[:i], line, *lines[i + 1 :]])
        fresh = analyze(after)
        got = analyze(after, previous=before)
        assert got.findings == fresh.findings, (name, i, line)
        assert got.tree == fresh.tree, (name, i, line)
        assert refs.index(got) == refs.index(fresh), (name, i, line)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_an_edit_of_one_field_gives_the_link_findings_of_a_fresh_analysis(path: Path) -> None:
    _check(path.name, path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(WRITTEN))
def test_the_same_for_fields_the_fixtures_do_not_hold(name: str) -> None:
    _check(name, WRITTEN[name])


def test_an_id_or_parent_made_null_then_removed_gives_the_findings_of_a_fresh_analysis() -> None:
    # a null id and a missing one are the same value, but not the same to the links
    for path in FIXTURES[:12]:
        lines = path.read_text(encoding="utf-8").split("\n")
        for i, line in enumerate(lines):
            obj = json.loads(line) if line.strip() else None
            if not isinstance(obj, dict) or obj.get("type") == "session":
                continue
            for key in ("id", "parentId"):
                if key in obj:
                    null = [*lines[:i], json.dumps({**obj, key: None}), *lines[i + 1 :]]
                    gone = {k: v for k, v in obj.items() if k != key}
                    after = "\n".join([*null[:i], json.dumps(gone), *null[i + 1 :]])
                    got = analyze(after, previous=analyze("\n".join(null)))
                    assert got.findings == analyze(after).findings, (path.name, i, key)
