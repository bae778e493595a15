"""jsonschema-rs (the hot path, ``pi_lsp.core.schemas.schema``) against jsonschema (a second opinion).

On every line of every fixture and on hypothesis-generated entries the two agree on the
verdict and on each violation: its path (which fixes the PI200 range), the missing
property, and the problem as PI200 words it. The oracle below describes jsonschema's
errors the way PI200 did before jsonschema-rs.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.checks.line_checks import check, full_check
from pi_lsp.core.entries.lines import LineRules, parse
from pi_lsp.core.schemas import schema as core_schema
from tests.robustness.settings import bounded

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT.parent / "shared" / "fixtures"
BOOK_SAMPLE = ROOT / "tests" / "data" / "book-valid.jsonl"
KEYS = list(core_schema.SCHEMA_FILES)
NO_LIMIT = 10**6

Key = tuple[tuple[str | int, ...], str, str | None]


# ----------------------------------------------------------------------------- the oracle


def _registry() -> Registry:
    docs = [core_schema.load_schema(key) for key in KEYS]
    return Registry().with_resources((d["$id"], Resource.from_contents(d)) for d in docs)


REGISTRY = _registry()
ORACLES: dict[tuple[str, str], Draft202012Validator] = {}


def oracle(key: str, name: str) -> Draft202012Validator:
    found = ORACLES.get((key, name))
    if found is None:
        root = core_schema.load_schema(key)["$id"]
        found = Draft202012Validator({"$ref": f"{root}#/$defs/{name}"}, registry=REGISTRY)
        ORACLES[key, name] = found
    return found


def _leaves(error: ValidationError) -> Iterator[ValidationError]:
    if error.context:
        for sub in error.context:
            yield from _leaves(sub)
    else:
        yield error


KINDS = {
    type(None): "null",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    str: "a string",
    list: "an array",
    dict: "an object",
}


def _described(error: ValidationError) -> Key:
    """(path, problem, missing) as PI200 words them; other keywords by path and keyword."""
    path = tuple(error.absolute_path)
    if error.validator == "required":
        return path, "", error.message.split("'")[1]
    if error.validator == "enum":
        allowed = ", ".join(repr(v) for v in error.validator_value)
        shown = repr(error.instance)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        return path, f"must be one of {allowed}, not {shown}", None
    if error.validator == "const":
        return path, f"must be {error.validator_value!r}", None
    if error.validator == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        article = "an" if expected[:1] in "aeiou" else "a"
        return path, f"must be {article} {expected}, not {KINDS[type(error.instance)]}", None
    return path, str(error.validator), None


def expected(key: str, name: str, value: Any) -> set[Key]:
    return {_described(leaf) for e in oracle(key, name).iter_errors(value) for leaf in _leaves(e)}


def actual(key: str, name: str, value: Any) -> set[Key]:
    out: set[Key] = set()
    for v in core_schema.validate(key, name, value, limit=NO_LIMIT):
        problem = v.problem
        if problem.startswith("is invalid: "):  # worded by the library: compare the keyword
            problem = "minimum" if "minimum" in problem else problem
        out.add((v.path, problem, v.missing))
    return out


def assert_same(key: str, name: str, value: Any) -> None:
    want = expected(key, name, value)
    assert actual(key, name, value) == want, (key, name, value)
    check = core_schema.validator(key, name)
    assert check is not None
    assert check.is_valid(value) == (not want), (key, name, value)


def def_name(line: Any) -> str | None:
    """The ``$defs`` entry a line is validated against (None when it names no known kind)."""
    if not isinstance(line, dict) or not isinstance(line.get("type"), str):
        return None
    return "header" if line["type"] in ("session", "session_header") else line["type"]


# ----------------------------------------------------------------------------- fixtures


def fixture_files() -> list[Path]:
    return sorted(FIXTURES.glob("*.jsonl")) if FIXTURES.is_dir() else []


def read_lines(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize(
    "path",
    fixture_files() or [pytest.param(None, marks=pytest.mark.skip("no ../shared/fixtures"))],
    ids=lambda p: getattr(p, "name", str(p)),
)
@pytest.mark.slow
def test_every_fixture_line_same_violations_in_every_schema(path: Path) -> None:
    checked = 0
    for line in read_lines(path):
        name = def_name(line)
        for key in ("pi.1", "pi.2", "pi.3"):
            if name is not None and core_schema.has_definition(key, name):
                assert_same(key, name, line)
                checked += 1
    assert checked > 0


def test_book_sample_same_violations() -> None:
    for line in read_lines(BOOK_SAMPLE):
        name = def_name(line)
        assert name is not None
        assert_same("book.1", name, line)


# ----------------------------------------------------------------------------- generated entries

TS = "2026-11-30T04:24:06.056Z"
USAGE = {
    "input": 1,
    "output": 2.0,
    "cacheRead": 0,
    "cacheWrite": 0,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}
HAND_SAMPLES: list[Any] = [
    {"type": "session", "version": 3, "id": "u", "timestamp": TS, "cwd": "/p"},
    {
        "type": "message",
        "id": "a",
        "parentId": None,
        "timestamp": TS,
        "message": {"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1},
    },
    {
        "type": "message",
        "id": "b",
        "parentId": "a",
        "timestamp": TS,
        "message": {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "toolCall", "id": "c", "name": "bash", "arguments": {"a": 1}},
            ],
            "api": "x",
            "provider": "p",
            "model": "m",
            "usage": USAGE,
            "stopReason": "toolUse",
            "timestamp": 1,
        },
    },
    {
        "type": "message",
        "id": "d",
        "parentId": "b",
        "timestamp": TS,
        "message": {
            "role": "toolResult",
            "toolCallId": "c",
            "toolName": "bash",
            "content": [{"type": "text", "text": "ok"}],
            "isError": False,
            "timestamp": 1,
        },
    },
    {
        "type": "compaction",
        "id": "e",
        "parentId": "d",
        "timestamp": TS,
        "summary": "s",
        "tokensBefore": 1,
        "firstKeptEntryId": "a",
    },
    {"type": "model_change", "id": "f", "parentId": "e", "timestamp": TS, "provider": "p",
     "modelId": "m"},
    {"type": "label", "id": "g", "parentId": "f", "timestamp": TS, "targetId": "a", "label": "x"},
]


def _samples() -> list[Any]:
    out = list(HAND_SAMPLES) + read_lines(BOOK_SAMPLE)
    for path in fixture_files():
        seen: dict[Any, int] = {}
        for line in read_lines(path):  # a spread of lines of every kind
            message = line.get("message") if isinstance(line, dict) else None
            kind = (line.get("type"), message.get("role") if isinstance(message, dict) else None)
            if seen.get(kind, 0) < 4:
                seen[kind] = seen.get(kind, 0) + 1
                out.append(line)
    return out


SAMPLES = _samples()


def _constants(node: Any) -> set[Any]:
    """Every scalar const/enum value of the schemas: swapped in to reach other branches."""
    found: set[Any] = set()
    if isinstance(node, dict):
        for keyword, value in node.items():
            if keyword == "const" and not isinstance(value, dict | list):
                found.add(value)
            elif keyword == "enum" and isinstance(value, list):
                found |= {v for v in value if not isinstance(v, dict | list)}
            else:
                found |= _constants(value)
    elif isinstance(node, list):
        for value in node:
            found |= _constants(value)
    return found


CONSTANTS = sorted(
    set().union(*(_constants(core_schema.load_schema(key)) for key in KEYS)), key=repr
)
JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53), max_value=2**53),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
    max_leaves=10,
)
TRICKY = [0, 1, -1, 1.0, 0.5, -0.0, 1e300, True, False, None, "", "x", [], {}, [1], {"a": 1}]


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
def mutated(draw: st.DrawFn) -> Any:
    """A sample entry with up to four random edits (deleted, retyped, swapped, nested...)."""
    value = copy.deepcopy(draw(st.sampled_from(SAMPLES)))
    for _ in range(draw(st.integers(min_value=0, max_value=4))):
        path = draw(st.sampled_from(list(paths(value))))
        target = get_at(value, path)
        op = draw(st.sampled_from(["delete", "tricky", "constant", "random", "add", "nest"]))
        if op == "delete" and path:
            del get_at(value, path[:-1])[path[-1]]
        elif op == "tricky":
            value = set_at(value, path, copy.deepcopy(draw(st.sampled_from(TRICKY))))
        elif op == "constant":
            value = set_at(value, path, draw(st.sampled_from(CONSTANTS)))
        elif op == "random":
            value = set_at(value, path, draw(JSON_VALUES))
        elif op == "add" and isinstance(target, dict):
            name = draw(st.sampled_from(["type", "role", "id", "content", "usage", "version"]))
            target[name] = draw(JSON_VALUES | st.sampled_from(CONSTANTS))
        elif op == "nest":
            value = set_at(value, path, draw(st.sampled_from([[target], {"type": target}])))
    return value


@pytest.mark.parametrize("key", KEYS)
@bounded(80)
@given(data=st.data())
def test_mutated_entries_same_violations(key: str, data: st.DataObject) -> None:
    for name, value in mutated_cases(key, data)[1]:
        assert_same(key, name, value)


def mutated_cases(key: str, data: st.DataObject) -> tuple[Any, list[tuple[str, Any]]]:
    """A mutated entry, and what to validate: the entry under its own definition (when
    schema ``key`` has one) and any part of it under any definition (other branches of the
    schemas), as ``(definition, value)``."""
    value = data.draw(mutated())
    name = def_name(value)
    own = [(name, value)] if name is not None and core_schema.has_definition(key, name) else []
    sub = get_at(value, data.draw(st.sampled_from(list(paths(value)))))
    other = data.draw(st.sampled_from(sorted(core_schema.load_schema(key)["$defs"])))
    return value, [*own, (other, sub)]


# ----------------------------------------------------------------------------- PI200 as a whole


def test_limit_keeps_the_first_distinct_violations() -> None:
    value = {"type": "session", "version": "x", "id": 1, "timestamp": 2, "cwd": 3}
    every = core_schema.validate("pi.3", "header", value, limit=NO_LIMIT)
    assert len(every) >= 4
    assert core_schema.validate("pi.3", "header", value, limit=2) == every[:2]


def test_type_list_is_worded_in_the_schema_order() -> None:
    """jsonschema-rs reports a type list in its own order; PI200 keeps the schema's."""
    value = dict(HAND_SAMPLES[1], parentId=5)
    (violation,) = core_schema.validate("pi.3", "message", value)
    declared = core_schema.definition("pi.3", "message")
    assert declared is not None
    types = declared["properties"]["parentId"]["type"]
    assert violation.problem == f"must be a {' or '.join(types)}, not a number"


def test_infinity_is_a_number_not_null() -> None:
    """jsonschema-rs hands an infinite float back as null; the problem names the value's kind."""
    line = json.dumps(HAND_SAMPLES[1]).replace('"timestamp": 1}', '"timestamp": 1e999}')
    info = parse(line)
    assert info.value["message"]["timestamp"] == float("inf")
    assert core_schema.validate("pi.3", "message", info.value) == []
    line = line.replace('"id": "a"', '"id": -1e999')
    (violation,) = core_schema.validate("pi.3", "message", parse(line).value)
    assert violation.path == ("id",)
    assert violation.problem == "must be a string, not a number"


@pytest.mark.parametrize("depth", [300, 1_000, 5_000])
def test_deeply_nested_line_keeps_its_pi200(depth: int) -> None:
    """An error on a value nested past jsonschema-rs's limit is still reported, with its range."""
    deep = "[" * depth + "]" * depth
    line = (
        '{"type":"message","id":"a","parentId":null,"timestamp":"' + TS + '",'
        '"message":{"role":"user","content":[' + deep + '],"timestamp":1}}'
    )
    info = parse(line)
    issues = [i for i in check(line, info, LineRules("pi", 3)) if i.code == "PI200"]
    start = line.index(deep)
    assert [(i.start, i.end, i.data) for i in issues] == [
        (start, start + len(deep), {"path": ["message", "content", 0]})
    ]
    assert "must be an object, not an array" in issues[0].message


def test_deeply_nested_line_in_a_session_gets_its_finding() -> None:
    deep = "[" * 1_000 + "]" * 1_000
    header = json.dumps(HAND_SAMPLES[0])
    line = json.dumps(dict(HAND_SAMPLES[1], timestamp=5)).replace('"hi"', f'"hi", "x": {deep}')
    found = analyze(header + "\n" + line + "\n").findings
    assert [(f.code, f.span.line, f.data) for f in found if f.code == "PI200"] == [
        ("PI200", 1, {"path": ["timestamp"]})
    ]


def test_lone_surrogates_are_judged_and_shown_as_written() -> None:
    """jsonschema-rs refuses strings that are not UTF-8; the line still gets its PI200."""
    role = copy.deepcopy(HAND_SAMPLES[1])
    role["message"]["role"] = "\udcff"
    (violation,) = core_schema.validate("pi.3", "message", role)
    assert violation.path == ("message", "role")
    assert violation.problem.endswith("not '\\udcff'")
    assert actual("pi.3", "message", role) == expected("pi.3", "message", role)


def test_a_key_with_a_lone_surrogate_keeps_its_spelling_in_the_path() -> None:
    line = (
        '{"type":"message","id":"a","parentId":null,"timestamp":"' + TS + '",'
        '"message":{"role":"system","content":"x","sections":{"k\\udcff":5}}}'
    )
    info = parse(line)
    issues = [i for i in check(line, info, LineRules("pi", 3)) if i.code == "PI200"]
    assert [(i.data, line[i.start : i.end]) for i in issues] == [
        ({"path": ["message", "sections", "k\udcff"]}, "5")
    ]
    assert "must be a string or null, not a number" in issues[0].message


# ----------------------------------------------------------------------------- the fast path

CONTEXTS = [LineRules("pi", 1), LineRules("pi", 2), LineRules("pi", 3), LineRules("book", 1)]


def assert_same_verdict(key: str, name: str, value: Any) -> None:
    """The lean validators of the fast path judge ``value`` as :func:`core_schema.validator`."""
    full = core_schema.validator(key, name)
    fast = core_schema.verdict_validator(key, name)
    assert full is not None and fast is not None
    want = full.is_valid(value)
    assert fast.is_valid(value) == want, (key, name, value)
    message = value.get("message") if name == "message" and isinstance(value, dict) else None
    role = message.get("role") if isinstance(message, dict) else None
    own = core_schema.message_verdict_validator(key, role) if isinstance(role, str) else None
    if own is not None:
        assert own.is_valid(value) == want, (key, role, value)


def assert_same_findings(value: Any) -> None:
    """:func:`check` (fast path first) finds what :func:`full_check` finds, in every format."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    info = parse(text)
    for ctx in CONTEXTS:
        assert check(text, info, ctx) == full_check(text, info, ctx), (ctx, text)


def test_every_fixture_line_same_verdict_on_the_fast_path() -> None:
    samples = [line for path in fixture_files() for line in read_lines(path)]
    for line in [*samples, *HAND_SAMPLES]:
        name = def_name(line)
        for key in ("pi.1", "pi.2", "pi.3"):
            if name is not None and core_schema.has_definition(key, name):
                assert_same_verdict(key, name, line)
        assert_same_findings(line)
    for line in read_lines(BOOK_SAMPLE):
        assert_same_verdict("book.1", def_name(line) or "", line)
        assert_same_findings(line)


@pytest.mark.slow
def test_every_role_of_every_message_sample_same_verdict() -> None:
    """Each message sample under each role (a role given another role's fields, too)."""
    for key in ("pi.1", "pi.2", "pi.3"):
        roles = core_schema.message_roles(key)
        # the dispatch is there for every role the schema allows (else the fast path is slow)
        allowed = core_schema.load_schema(key)["$defs"]["AgentMessage"]["properties"]["role"]
        assert list(roles) == allowed["enum"]
        assert all(core_schema.message_verdict_validator(key, r) is not None for r in roles)
        for sample in SAMPLES:
            if def_name(sample) != "message" or not isinstance(sample.get("message"), dict):
                continue
            for role in [*roles, "nobody"]:
                value = copy.deepcopy(sample)
                value["message"]["role"] = role
                assert_same_verdict(key, "message", value)
                assert_same_findings(value)


@pytest.mark.parametrize("key", KEYS)
@bounded(150)
@given(data=st.data())
def test_mutated_entries_same_verdict_on_the_fast_path(key: str, data: st.DataObject) -> None:
    entry, cases = mutated_cases(key, data)
    for name, value in cases:
        assert_same_verdict(key, name, value)
    assert_same_findings(entry)


def test_a_property_named_like_an_annotation_keeps_its_schema_in_the_lean_copy() -> None:
    """A tool's ``description`` is a property, not the annotation keyword: the lean schema
    still requires it to be a string (found by hypothesis: the fast path passed a tool
    whose description was a number)."""
    tool = {"name": "grep", "description": 0, "parameters": {"type": "object", "properties": {}}}
    value = {
        "type": "message",
        "id": "s",
        "parentId": None,
        "timestamp": TS,
        "message": {"role": "system", "content": "", "toolsAdded": [tool], "timestamp": 1},
    }
    assert_same_verdict("pi.3", "message", value)
    assert not core_schema.verdict_validator("pi.3", "message").is_valid(value)  # type: ignore[union-attr]
    assert_same_findings(value)
    assert_same_findings({**value, "message": {**value["message"], "toolsAdded": [
        {**tool, "description": "finds text"}
    ]}})


def test_the_lean_copy_keeps_names_and_data_and_drops_only_annotations() -> None:
    schema = {
        "description": "dropped",
        "x-pi-consequence": {"text": "dropped"},
        "type": "object",
        "properties": {"description": {"type": "string", "title": "dropped"}},
        "$defs": {"title": {"const": {"description": "kept: data"}}},
        "anyOf": [{"enum": [{"title": "kept"}], "description": "dropped"}],
    }
    assert core_schema._lean_copy(schema) == {
        "type": "object",
        "properties": {"description": {"type": "string"}},
        "$defs": {"title": {"const": {"description": "kept: data"}}},
        "anyOf": [{"enum": [{"title": "kept"}]}],
    }


def test_only_an_exact_discriminating_if_is_reduced_in_the_lean_copy() -> None:
    """An ``allOf`` item is reduced to its constant only when its ``if`` is exactly "an
    object whose required property P is this constant" (and the schema requires P); any
    other item could judge a value differently without its other tests, so it stays whole."""
    test = {"type": "object", "properties": {"k": {"const": 1}}, "required": ["k"]}
    then = {"required": ["v"]}

    def lean_items(branch: dict[str, Any]) -> Any:
        schema = {"type": "object", "required": ["k"], "allOf": [branch]}
        return core_schema._lean_copy(schema)["allOf"]

    assert lean_items({"if": test, "then": then}) == [
        {"if": {"properties": {"k": {"const": 1}}}, "then": then}
    ]
    kept = [
        {"if": test, "then": then, "else": {"required": ["w"]}},  # an else
        {"if": {**test, "minProperties": 2}, "then": then},  # another test in the if
        {"if": {**test, "type": "string"}, "then": then},  # not an object test
        {"if": {**test, "properties": {"k": {"const": 1}, "j": {}}}, "then": then},  # two properties
        {"if": {**test, "required": []}, "then": then},  # the property not required
        {"if": {**test, "properties": {"k": {"const": 1, "type": "integer"}}}, "then": then},
    ]
    for branch in kept:
        assert lean_items(branch) == [branch], branch


def test_a_role_dispatch_is_read_only_from_its_exact_shape() -> None:
    """``AgentMessage`` gives a definition per role only when it is exactly an object with a
    required ``role`` among an ``enum`` and an ``allOf`` of ``if role is R then ...``: any
    other shape may test more than the role, so there is no dispatch (None)."""
    user_then, user_more = {"required": ["content"]}, {"required": ["timestamp"]}

    def branch(role: Any, then: Any = user_then) -> dict[str, Any]:
        return {"if": {"properties": {"role": {"const": role}}}, "then": then}

    good: dict[str, Any] = {
        "type": "object",
        "required": ["role"],
        "properties": {"role": {"enum": ["user", "assistant"]}},
        "allOf": [branch("user"), branch("nobody"), branch("user", user_more)],
    }
    # a role without a branch takes anything; a branch of a role the enum refuses is unused
    assert core_schema._role_dispatch(good) == {"user": [user_then, user_more], "assistant": [True]}
    role = good["properties"]["role"]
    bad: list[dict[str, Any]] = [
        {**good, "title": "x"},
        {**good, "type": "array"},
        {**good, "required": "role"},
        {**good, "required": ["content"]},
        {**good, "properties": [role]},
        {**good, "properties": {"role": role, "content": {}}},
        {**good, "properties": {"role": True}},
        {**good, "properties": {"role": {**role, "type": "string"}}},
        {**good, "allOf": {}},
        {**good, "properties": {"role": {"enum": "user"}}},
        {**good, "properties": {"role": {"enum": ["user", 1]}}},
        {**good, "allOf": [True]},
        {**good, "allOf": [{**branch("user"), "else": True}]},
        {**good, "allOf": [{"if": True, "then": user_then}]},
        {**good, "allOf": [{"if": {"properties": {"role": {"enum": ["user"]}}}, "then": user_then}]},
        {**good, "allOf": [branch(1)]},
        {**good, "allOf": [{"if": {**branch("user")["if"], "required": ["role"]}, "then": user_then}]},
    ]
    for agent in bad:
        assert core_schema._role_dispatch(agent) is None, agent
