"""The compiled fast validator (pi_lsp.core.compiled) agrees with jsonschema, verdict for verdict."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from pi_lsp.core import schema as core_schema
from pi_lsp.core.compiled import KEYWORDS, compile_definition, compile_definitions, compile_schema

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"
BOOK_SAMPLE = ROOT / "tests" / "data" / "book-valid.jsonl"

KEYS = list(core_schema.SCHEMA_FILES)
FIXTURE_KEYS = {"real-v1-": "pi.1", "pi-v2-": "pi.2", "pi-v3-": "pi.3"}


def def_name(line: Any) -> str | None:
    """The ``$defs`` entry a line is validated against (None when it names no known kind)."""
    if not isinstance(line, dict) or not isinstance(line.get("type"), str):
        return None
    return "header" if line["type"] in ("session", "session_header") else line["type"]


def fixture_files() -> list[tuple[Path, str]]:
    if not FIXTURES.is_dir():
        return []
    out = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        for prefix, key in FIXTURE_KEYS.items():
            if path.name.startswith(prefix):
                out.append((path, key))
    return out


def read_lines(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


COMPILED = {
    key: compile_definitions(core_schema.load_schema(key), core_schema.load_schema(key)["$defs"])
    for key in KEYS
}


def js_valid(key: str, name: str, value: Any) -> bool:
    check = core_schema.validator(key, name)
    assert check is not None
    return bool(check.is_valid(value))


# ----------------------------------------------------------------------------- fixtures


@pytest.mark.parametrize(
    ("path", "key"),
    fixture_files() or [pytest.param(None, None, marks=pytest.mark.skip("no ../shared/fixtures"))],
    ids=lambda p: getattr(p, "name", str(p)),
)
def test_every_fixture_line_same_verdict(path: Path, key: str) -> None:
    schema = core_schema.load_schema(key)
    checked = 0
    for number, line in enumerate(read_lines(path), start=1):
        name = def_name(line)
        if name is None or name not in schema["$defs"]:
            continue
        fast = COMPILED[key][name](line)
        assert fast == js_valid(key, name, line), f"{path.name}:{number} ({name})"
        checked += 1
    assert checked > 0


def test_book_sample_same_verdict() -> None:
    for number, line in enumerate(read_lines(BOOK_SAMPLE), start=1):
        name = def_name(line)
        assert name is not None
        assert COMPILED["book.1"][name](line) == js_valid("book.1", name, line), number


@pytest.mark.parametrize("key", KEYS)
def test_root_schema_same_verdict(key: str) -> None:
    schema = core_schema.load_schema(key)
    root = compile_schema(schema)
    full = Draft202012Validator(schema)
    samples = SAMPLES[key] + [{}, {"type": 1}, {"type": "nope"}, [], "x", None, {"type": "message"}]
    for sample in samples:
        assert root(sample) == full.is_valid(sample), sample


def test_schemas_use_only_supported_keywords() -> None:
    """Not required for correctness (unknown keywords fall back), but needed for speed."""
    for key in KEYS:
        unsupported = used_keywords(core_schema.load_schema(key)) - KEYWORDS
        assert not unsupported, (key, unsupported)


def used_keywords(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        for keyword, value in node.items():
            found.add(keyword)
            if keyword in ("properties", "patternProperties", "$defs", "dependentSchemas"):
                for sub in value.values():
                    found |= used_keywords(sub)
            elif keyword in ("allOf", "anyOf", "oneOf", "prefixItems"):
                for sub in value:
                    found |= used_keywords(sub)
            elif keyword in (
                "items",
                "additionalProperties",
                "not",
                "if",
                "then",
                "else",
                "contains",
                "propertyNames",
            ):
                found |= used_keywords(value)
    return found


# ----------------------------------------------------------------------------- property tests


def _samples(key: str) -> list[Any]:
    out: list[Any] = []
    if key == "book.1":
        out.extend(read_lines(BOOK_SAMPLE))
    for path, fixture_key in fixture_files():
        if fixture_key == key:
            lines = read_lines(path)
            # a spread of lines of every kind, not all 1,000
            seen: dict[tuple[Any, ...], int] = {}
            for line in lines:
                message = line.get("message") if isinstance(line, dict) else None
                kind = (
                    line.get("type"),
                    message.get("role") if isinstance(message, dict) else None,
                )
                if seen.get(kind, 0) < 6:
                    seen[kind] = seen.get(kind, 0) + 1
                    out.append(line)
    out.extend(HAND_SAMPLES.get(key, []))
    return out


TS = "2026-11-30T04:24:06.056Z"
HAND_SAMPLES: dict[str, list[Any]] = {
    key: [
        {"type": "session", "version": version, "id": "u", "timestamp": TS, "cwd": "/p"},
        {
            "type": "message",
            "id": "a",
            "parentId": None,
            "timestamp": TS,
            "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        },
        {
            "type": "message",
            "timestamp": TS,
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm"},
                    {"type": "toolCall", "id": "c", "name": "bash", "arguments": {"a": 1}},
                ],
                "usage": {
                    "input": 1,
                    "output": 2.0,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
                },
                "stopReason": "stop",
                "timestamp": 1,
            },
        },
        {
            "type": "compaction",
            "timestamp": TS,
            "summary": "s",
            "tokensBefore": 1,
            "firstKeptEntryIndex": 2,
        },
    ]
    for key, version in (("pi.1", 1), ("pi.2", 2), ("pi.3", 3))
}

SAMPLES = {key: _samples(key) for key in KEYS}


def schema_constants(node: Any) -> set[Any]:
    """Every const/enum value of a schema: mutations swap them in to hit other branches."""
    found: set[Any] = set()
    if isinstance(node, dict):
        for keyword, value in node.items():
            if keyword == "const" and not isinstance(value, dict | list):
                found.add(value)
            elif keyword == "enum" and isinstance(value, list):
                found |= {v for v in value if not isinstance(v, dict | list)}
            else:
                found |= schema_constants(value)
    elif isinstance(node, list):
        for value in node:
            found |= schema_constants(value)
    return found


CONSTANTS = {key: sorted(schema_constants(core_schema.load_schema(key)), key=repr) for key in KEYS}

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)
TRICKY = [
    0,
    1,
    -1,
    1.0,
    2.0,
    0.5,
    -0.0,
    1e300,
    2**64,
    True,
    False,
    None,
    "",
    "x",
    [],
    {},
    [1],
    {"a": 1},
]


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, (*prefix, index))


def get_at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def set_at(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    get_at(value, path[:-1])[path[-1]] = new
    return value


@st.composite
def mutated(draw: st.DrawFn, key: str) -> Any:
    value = copy.deepcopy(draw(st.sampled_from(SAMPLES[key])))
    for _ in range(draw(st.integers(min_value=0, max_value=4))):
        path = draw(st.sampled_from(list(paths(value))))
        target = get_at(value, path)
        op = draw(
            st.sampled_from(["delete", "tricky", "constant", "random", "add", "nest", "drop"])
        )
        if op == "delete" and path:
            del get_at(value, path[:-1])[path[-1]]
        elif op == "tricky":
            value = set_at(value, path, copy.deepcopy(draw(st.sampled_from(TRICKY))))
        elif op == "constant":
            value = set_at(value, path, draw(st.sampled_from(CONSTANTS[key])))
        elif op == "random":
            value = set_at(value, path, draw(JSON_VALUES))
        elif op == "add" and isinstance(target, dict):
            name = draw(st.sampled_from(["type", "role", "id", "content", "x", "usage", "version"]))
            target[name] = draw(JSON_VALUES | st.sampled_from(CONSTANTS[key]))
        elif op == "nest":
            value = set_at(value, path, draw(st.sampled_from([[target], {"type": target}])))
        elif op == "drop" and isinstance(target, list) and target:
            target.pop(draw(st.integers(min_value=0, max_value=len(target) - 1)))
    return value


@pytest.mark.parametrize("key", KEYS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_entries_same_verdict(key: str, data: st.DataObject) -> None:
    value = data.draw(mutated(key))
    name = def_name(value)
    if name is not None and name in COMPILED[key]:
        assert COMPILED[key][name](value) == js_valid(key, name, value), (name, value)
    path = data.draw(st.sampled_from(list(paths(value))))
    sub = get_at(value, path)
    for other in core_schema.load_schema(key)["$defs"]:
        assert COMPILED[key][other](sub) == js_valid(key, other, sub), (other, path, sub)


@pytest.mark.parametrize("key", KEYS)
@settings(max_examples=40, deadline=None)
@given(value=JSON_VALUES)
def test_random_json_same_verdict(key: str, value: Any) -> None:
    for name in core_schema.load_schema(key)["$defs"]:
        assert COMPILED[key][name](value) == js_valid(key, name, value), (name, value)


# ----------------------------------------------------------------------------- a schema with every keyword

KITCHEN: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://example.test/kitchen.json",
    "$defs": {
        "tree": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 3, "pattern": "[a-c]"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/tree"}, "maxItems": 3},
                "n": {"type": "integer", "minimum": -2, "exclusiveMaximum": 5, "multipleOf": 2},
                "f": {"type": "number", "exclusiveMinimum": 0, "maximum": 1.5, "multipleOf": 0.5},
                "pair": {"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False},
                "tags": {
                    "type": "array",
                    "uniqueItems": True,
                    "contains": {"const": "t"},
                    "minContains": 1,
                    "maxContains": 2,
                },
                "choice": {"oneOf": [{"type": "integer"}, {"type": "number", "maximum": 3}]},
                "multi": {"oneOf": [{"minimum": 0}, {"maximum": 10}, {"multipleOf": 3}]},
                "either": {"anyOf": [{"type": "null"}, {"enum": [1, "1", [1], {"a": True}]}]},
                "nope": {"not": {"type": ["string", "boolean"]}},
                "cond": {
                    "if": {"type": "string"},
                    "then": {"minLength": 2},
                    "else": {"type": "number", "minimum": 0},
                },
            },
            "patternProperties": {"^x-": {"type": "boolean"}, "^x-y": {"const": True}},
            "additionalProperties": {"type": ["null", "integer"]},
            "propertyNames": {"maxLength": 8},
            "minProperties": 1,
            "maxProperties": 9,
            "dependentRequired": {"n": ["f"]},
            "dependentSchemas": {"f": {"properties": {"n": {"maximum": 2}}}},
        },
        "union": {
            "allOf": [
                {
                    "if": {"properties": {"k": {"const": 1}}, "required": ["k"]},
                    "then": {"required": ["one"]},
                },
                {
                    "if": {"properties": {"k": {"const": "a"}}, "required": ["k"]},
                    "then": {"required": ["a"]},
                },
                {
                    "if": {"properties": {"k": {"const": 1.0}}, "required": ["k"]},
                    "then": {"required": ["also"]},
                },
                {"if": {"properties": {"k": {"const": None}}, "required": ["k"]}, "then": False},
                {
                    "if": {"properties": {"k": {"const": [1]}}, "required": ["k"]},
                    "then": {"maxProperties": 1},
                },
                {
                    "if": {
                        "type": "object",
                        "properties": {"j": {"const": "b"}},
                        "required": ["j"],
                    },
                    "then": {"required": ["b"]},
                },
            ]
        },
    },
}


TREE_FIELDS: dict[str, tuple[list[Any], list[Any]]] = {
    # field: (valid values, near misses)
    "n": ([-2, 0, 2, 4, 4.0], [5, -4, 3, True, 6]),
    "f": ([0.5, 1, 1.5, 1.0], [0, 2, 0.25, "x"]),
    "pair": ([["a", 1], ["a"], [], ["a", 1.0]], [["a", 1, 2], [1, "a"], "p"]),
    "tags": ([["t"], ["t", "u"], ["t", 1, True]], [["t", "t"], [], ["t", "t", "t"], ["u"]]),
    "choice": ([2.5, 4, 5.0, 2.9], [1, 1.0, 3.5, "x"]),
    "multi": ([-1, -2.5, 11, 12.5], [5, 12, 3, 0, "s", -3]),
    "either": ([None, 1, 1.0, "1", [1], [1.0], {"a": True}], [{"a": 1}, True, [], "2"]),
    "nope": ([1, None, [], 2.5], ["x", True]),
    "cond": (["ab", 0, 2.5, 3], ["a", -1, None, True]),
    "x-a": ([True, False], [1, None]),
    "x-yz": ([True], [False, 1]),
    "other": ([None, 1, 1.0, 7], [1.5, "s", True]),
}


@st.composite
def kitchen_tree(draw: st.DrawFn, depth: int = 0) -> Any:
    """A tree valid against KITCHEN's "tree", then (one time in two) one near miss."""
    node: dict[str, Any] = {"name": draw(st.sampled_from(["a", "b", "ab", "bcd"]))}
    for name in draw(st.lists(st.sampled_from(sorted(TREE_FIELDS)), unique=True, max_size=5)):
        node[name] = draw(st.sampled_from(TREE_FIELDS[name][0]))
    if depth < 2 and draw(st.booleans()):
        node["children"] = draw(st.lists(kitchen_tree(depth + 1), max_size=2))
    if draw(st.booleans()):
        miss = draw(st.sampled_from([*sorted(TREE_FIELDS), "name", "children", "long"]))
        if miss == "name":
            node["name"] = draw(st.sampled_from(["", "d", "abcd", 1]))
        elif miss == "children":
            node["children"] = draw(st.sampled_from([None, [1], [{}]]))
        elif miss == "long":
            node["averyverylongname"] = None  # too long for propertyNames
        else:
            node[miss] = draw(st.sampled_from(TREE_FIELDS[miss][1]))
    return node


def tree_strategy() -> st.SearchStrategy[Any]:
    return kitchen_tree() | JSON_VALUES


UNION_VALUES = st.one_of(
    JSON_VALUES,
    st.dictionaries(
        st.sampled_from(["k", "j", "one", "a", "also", "b", "z"]),
        st.sampled_from([1, 1.0, True, "a", "b", None, [1], [1.0], [True], 0]),
        max_size=4,
    ),
)


@settings(max_examples=300, deadline=None)
@given(value=tree_strategy())
def test_kitchen_sink_same_verdict(value: Any) -> None:
    fast = compile_definition(KITCHEN, "tree")
    slow = Draft202012Validator({"$ref": "#/$defs/tree", "$defs": KITCHEN["$defs"]})
    assert fast(value) == slow.is_valid(value)


@settings(max_examples=300, deadline=None)
@given(value=UNION_VALUES)
def test_union_dispatch_same_verdict(value: Any) -> None:
    fast = compile_definition(KITCHEN, "union")
    slow = Draft202012Validator({"$ref": "#/$defs/union", "$defs": KITCHEN["$defs"]})
    assert fast(value) == slow.is_valid(value)


# ----------------------------------------------------------------------------- semantics


def same(schema: Any, value: Any) -> bool:
    """The compiled verdict, asserted equal to jsonschema's."""
    fast = compile_schema(schema)(value)
    assert fast == Draft202012Validator(schema).is_valid(value), (schema, value)
    return fast


@pytest.mark.parametrize(
    ("value", "integer", "number"),
    [
        (1, True, True),
        (1.0, True, True),
        (-0.0, True, True),
        (1.5, False, True),
        (2**80, True, True),
        (1e300, True, True),
        (True, False, False),
        (False, False, False),
        ("1", False, False),
        (None, False, False),
        ([1], False, False),
    ],
)
def test_integer_and_number(value: Any, integer: bool, number: bool) -> None:
    assert same({"type": "integer"}, value) is integer
    assert same({"type": "number"}, value) is number
    assert same({"type": ["integer", "null"]}, value) is (integer or value is None)
    assert same({"type": ["boolean", "integer"]}, value) is (integer or isinstance(value, bool))


def test_numeric_keywords_ignore_booleans_and_other_types() -> None:
    assert same({"minimum": 5}, True)
    assert same({"minimum": 5}, "1")
    assert not same({"minimum": 5}, 4.9)
    assert same({"minimum": 5}, 5.0)
    assert not same({"exclusiveMinimum": 5}, 5)
    assert same({"exclusiveMinimum": 5}, 5.5)
    assert same({"maximum": 5}, 5)
    assert not same({"exclusiveMaximum": 5}, 5.0)
    assert same({"exclusiveMaximum": 5, "multipleOf": 2}, 4.0)
    assert not same({"multipleOf": 0.1}, 0.35)
    assert same({"multipleOf": 0.5}, 1.5)


@pytest.mark.parametrize(
    ("options", "value", "expected"),
    [
        ([1], 1.0, True),
        ([1.0], 1, True),
        ([1], True, False),
        ([True], 1, False),
        ([0], False, False),
        ([False], 0, False),
        ([False], False, True),
        ([None], None, True),
        ([None], 0, False),
        ([0], None, False),
        (["a", False], None, False),
        (["1"], 1, False),
        ([[1, 2]], [1.0, 2], True),
        ([[1]], [True], False),
        ([{"a": 1}], {"a": 1.0}, True),
        ([{"a": 1}], {"a": 1, "b": 2}, False),
        ([{"a": [True]}], {"a": [1]}, False),
        (["a", 1, None], "a", True),
        (["a", 1, None], 1.0, True),
        (["a", 1, None], [], False),
    ],
)
def test_enum_and_const_json_equality(options: list[Any], value: Any, expected: bool) -> None:
    assert same({"enum": options}, value) is expected
    if len(options) == 1:
        assert same({"const": options[0]}, value) is expected


def test_strings() -> None:
    assert same({"maxLength": 1}, "🚀")  # code points, not UTF-16 units or bytes
    assert not same({"minLength": 2}, "🚀")
    assert same({"pattern": "b"}, "abc")  # search, not match
    assert not same({"pattern": "^b"}, "abc")
    assert same({"pattern": "^b", "minLength": 9}, 5)  # string keywords ignore non-strings


def test_objects() -> None:
    schema = {
        "type": "object",
        "required": ["a"],
        "properties": {"a": {"type": "string"}},
        "additionalProperties": False,
    }
    assert same(schema, {"a": "x"})
    assert not same(schema, {"a": "x", "b": 1})
    assert not same(schema, {})
    assert not same(schema, [])
    assert same({"required": ["a"], "properties": {"a": {"type": "string"}}}, ["not an object"])
    assert same({"patternProperties": {"^x": {"type": "integer"}}}, {"xa": 1, "y": "s"})
    closed = {"patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": False}
    assert same(closed, {"xa": 1})
    assert not same(closed, {"xa": 1, "y": 1})
    assert not same({"patternProperties": {"^x": {"type": "integer"}}}, {"xa": "1"})
    assert not same({"propertyNames": False}, {"a": 1})
    dependent = {"dependentSchemas": {"a": {"required": ["b"]}}, "dependentRequired": {"c": ["d"]}}
    assert same(dependent, {})
    assert not same(dependent, {"a": 1})
    assert same(dependent, {"a": 1, "b": 2})
    assert not same(dependent, {"c": 1})
    assert same(dependent, {"c": 1, "d": 1})
    assert same({"propertyNames": False}, {})


def test_arrays() -> None:
    assert same({"prefixItems": [{"type": "string"}], "items": False}, ["a"])
    assert not same({"prefixItems": [{"type": "string"}], "items": False}, ["a", 1])
    assert not same({"items": {"type": "integer"}}, [1, 1.5])
    assert not same({"uniqueItems": True}, [1, 1.0])
    assert same({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}, ["a", 1])
    assert not same({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}, ["a", "b"])
    assert same({"uniqueItems": True}, [1, True])
    assert not same({"uniqueItems": True}, ["a", None, 0, "a"])
    assert is_conservative({"uniqueItems": True}, [[1], [2]])  # left to jsonschema
    assert not same({"contains": {"const": 1}, "maxContains": 1}, [1, 1.0])
    assert same({"contains": {"const": 1}, "minContains": 0}, [])


def test_applicators() -> None:
    assert same({"anyOf": [{"type": "string"}, {"type": "integer"}]}, 1)
    assert not same({"oneOf": [{"type": "number"}, {"type": "integer"}]}, 1)
    assert same({"oneOf": [{"type": "number"}, {"type": "integer"}]}, 1.5)
    assert not same({"not": {"type": "string"}}, "x")
    assert not same({"not": {"minimum": 3}}, 5)
    assert same({"not": {"minimum": 3}}, 2)
    three = {"oneOf": [{"minimum": 0}, {"maximum": 10}, {"multipleOf": 3}]}
    assert not same(three, 5)
    assert same(three, 11)
    assert not same(three, 12)
    assert not same(three, 7.5)
    cond = {"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "null"}}
    assert same(cond, "ab")
    assert not same(cond, "a")
    assert same(cond, None)
    assert not same(cond, 3)
    assert same(True, {"x": 1})
    assert not same(False, None)
    assert not same({"not": True}, 1)


def test_union_without_type_object_applies_to_non_objects() -> None:
    # an "if" that does not say "type": "object" holds vacuously for non-objects
    schema: dict[str, Any] = {
        "allOf": [
            {
                "if": {"properties": {"t": {"const": "a"}}, "required": ["t"]},
                "then": {"type": "object"},
            }
        ]
    }
    assert not same(schema, "x")
    assert same(schema, {"t": "b"})
    typed = copy.deepcopy(schema)
    typed["allOf"][0]["if"]["type"] = "object"
    assert same(typed, "x")


def test_recursive_refs() -> None:
    schema = {
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"next": {"$ref": "#/$defs/node"}, "v": {"type": "integer"}},
            }
        },
        "$ref": "#/$defs/node",
    }
    deep: dict[str, Any] = {"v": 1}
    for _ in range(50):
        deep = {"next": deep, "v": 2}
    assert same(schema, deep)
    get_at(deep, ("next",) * 30)["v"] = "bad"
    assert not same(schema, deep)


def is_conservative(schema: Any, value: Any) -> bool:
    """The compiled verdict is False even where jsonschema says True."""
    assert Draft202012Validator(schema).is_valid(value)
    return not compile_schema(schema)(value)


def test_unknown_keywords_are_never_wrongly_true() -> None:
    assert is_conservative({"unknownKeyword": 1}, 1)
    assert is_conservative({"type": "integer", "x-custom": True}, 1)
    # inside "not" a False would turn into a wrong True: the verdict must stay False
    assert not compile_schema({"not": {"unknownKeyword": 1}})(1)
    assert not compile_schema({"oneOf": [{"unknownKeyword": 1}, {"type": "string"}]})("x")
    assert is_conservative({"unevaluatedProperties": False}, {})
    assert not compile_schema({"$ref": "https://elsewhere.test/other.json"})(1)
    dynamic = {"$dynamicAnchor": "x", "properties": {"a": {"$dynamicRef": "#x"}}}
    assert is_conservative(dynamic, {"a": {}})
    assert is_conservative({"$defs": {"x": {"$id": "nested.json"}}, "$ref": "#/$defs/x"}, 1)
    # a regex Python cannot compile is not a crash at compile time
    assert not compile_schema({"pattern": "("})("x")
    assert not compile_schema({"patternProperties": {"(": True}})({})
    # but an undecidable branch that does not matter leaves the verdict exact
    assert compile_schema({"anyOf": [{"type": "integer"}, {"unknownKeyword": 1}]})(1)
    assert not compile_schema({"type": "string", "unknownKeyword": 1})(1)


def test_other_dialects_and_values_are_not_judged() -> None:
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "integer"}
    assert not compile_schema(draft7)(1)
    assert not compile_schema({"type": "array"})((1, 2))  # a tuple is not JSON data
    assert not compile_schema({"type": "integer"})(math.nan)
    assert not compile_schema({"type": "number"})(object())

    class Text(str):
        pass

    # jsonschema counts a str subclass as a string; a compiled False here would be a wrong True
    no_strings = {"contains": {"type": ["string", "null"]}, "minContains": 0, "maxContains": 0}
    assert not Draft202012Validator(no_strings).is_valid([Text("a")])
    assert not compile_schema(no_strings)([Text("a")])


def test_compile_definition_api() -> None:
    schema = core_schema.load_schema("pi.3")
    check: Callable[[Any], bool] = compile_definition(schema, "Usage")
    usage = {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "cost": {}}
    assert check(usage) is js_valid("pi.3", "Usage", usage)
    with pytest.raises(KeyError):
        compile_definition(schema, "NoSuchDefinition")
