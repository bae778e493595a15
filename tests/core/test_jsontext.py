"""JSON text that never fails on what a session holds: lone surrogates, deep nesting."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_lsp.core.text.jsontext import MAX_DEPTH, clip_json, dumps, stringify


def _nested_lists(depth: int) -> list[Any]:
    root: list[Any] = []
    current = root
    for _ in range(depth - 1):
        inner: list[Any] = []
        current.append(inner)
        current = inner
    return root


def _nested_dicts(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    current = root
    for _ in range(depth - 1):
        inner: dict[str, Any] = {}
        current["a"] = inner
        current = inner
    return root


@pytest.mark.parametrize("indent", [False, True])
def test_dumps_prints_lone_surrogates_as_escapes(indent: bool) -> None:
    value = {"a": "x\ud800", "b": [1, None]}
    text = dumps(value, indent)
    assert "\\ud800" in text and json.loads(text) == value
    assert ("\n  " in text) is indent


def test_dumps_prints_a_value_deeper_than_orjson_allows_whole() -> None:
    value = _nested_lists(300)  # orjson stops at 255 levels; this still prints whole
    assert dumps(value) == "[" * 300 + "]" * 300


@pytest.mark.parametrize("make", [_nested_lists, _nested_dicts])
def test_dumps_cuts_a_value_nested_thousands_deep(make: Any) -> None:
    value = make(5000)
    text = dumps(value)
    part: Any = json.loads(text)
    for _ in range(MAX_DEPTH):
        assert isinstance(part, list | dict)
        part = part[0] if isinstance(part, list) else part["a"]
    assert part == "…"


def test_stringify_writes_as_javascript_does_when_orjson_refuses() -> None:
    value = {"a": "\ud800é", "b": [1, {}, [], True], "c": float("nan"), "d": None, "e": {"x": 1.5}}
    assert stringify(value) == (
        '{"a":"\\ud800é","b":[1,{},[],true],"c":null,"d":null,"e":{"x":1.5}}'
    )


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ([*_nested_lists(3000), "\ud800"], "[" + "[" * 2999 + "]" * 2999 + ',"\\ud800"]'),
        (_nested_dicts(3000), '{"a":' * 2999 + "{}" + "}" * 2999),
        (float("inf"), "null"),
    ],
    ids=["deep-list", "deep-object", "infinity"],
)
def test_stringify_writes_any_depth_whole(value: Any, text: str) -> None:
    assert stringify(value) == text


def test_clip_json_keeps_a_value_that_fits_and_clips_one_that_does_not() -> None:
    assert clip_json("x" * 8, 10) == '"' + "x" * 8 + '"'  # exactly 10 characters
    assert clip_json("x" * 9, 10) == '"' + "x" * 8 + "…"  # 11 cut to 10
    assert clip_json({"k": [1, 2]}) == '{"k":[1,2]}'


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"a": [1]}, '{\n  "a": [\n    1\n  ]\n}'),
        ({"a": "x\ud800"}, '{\n  "a": "x\\ud800"\n}'),
        (_nested_lists(5000), None),  # cut: still two spaces a level
    ],
    ids=["plain", "surrogate", "deep"],
)
def test_dumps_indents_two_spaces_a_level(value: Any, text: str | None) -> None:
    out = dumps(value, indent=True)
    if text is not None:
        assert out == text
    assert out.split("\n")[1].startswith("  ") and not out.split("\n")[1].startswith("   ")
    assert dumps(value) == dumps(value, indent=False) and "\n" not in dumps(value)


def test_clip_json_clips_a_message_value_at_60_characters() -> None:
    assert clip_json("x" * 58) == '"' + "x" * 58 + '"'
    assert clip_json("x" * 59) == '"' + "x" * 58 + "…"
