"""The JSON Schemas of each session format: loading, lookup and validation of one entry.

The files under the top-level ``schemas/`` folder are the single source of truth; the
wheel ships them as ``pi_lsp/schemas``. Each schema names one ``$defs`` entry per line
kind (``header`` and every entry ``type``), and lines are validated against that
definition alone, so an error points at the offending field rather than at a union.
Validation is jsonschema-rs's (a compiled Rust validator); its errors carry the instance
path and the keyword that PI200 turns into a range and a message.
"""

from __future__ import annotations

import functools
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import unquote

import orjson

if TYPE_CHECKING:
    from jsonschema_rs import Registry, ValidationError, Validator

SCHEMA_FILES: dict[str, str] = {
    "pi.1": "session.v1.schema.json",
    "pi.2": "session.v2.schema.json",
    "pi.3": "session.v3.schema.json",
    "book.1": "session-book.v1.schema.json",
}


def _schema_dir() -> Path:
    package = Path(__file__).resolve().parents[2]  # pi_lsp
    packaged = package / "schemas"  # as the wheel installs them
    if packaged.is_dir():
        return packaged
    return package.parent / "schemas"


@functools.cache
def schema_key(fmt: str, version: int) -> str:
    """The key of the schema for a format (``pi``/``book``) and version, clamped to known ones."""
    if fmt == "book":
        return "book.1"
    return f"pi.{min(max(version, 1), 3)}"


@functools.cache
def load_schema(key: str) -> dict[str, Any]:
    """Load one schema document by key (see :data:`SCHEMA_FILES`)."""
    data: dict[str, Any] = orjson.loads((_schema_dir() / SCHEMA_FILES[key]).read_bytes())
    return data


def schema_text(version: int, fmt: str = "pi") -> str:
    """The schema file's text for ``version`` (as shipped, for ``pi-lsp schema``)."""
    key = schema_key(fmt, version)
    return (_schema_dir() / SCHEMA_FILES[key]).read_text(encoding="utf-8")


def has_definition(key: str, name: str) -> bool:
    """True when schema ``key`` defines a line kind called ``name``."""
    return name in load_schema(key)["$defs"]


def definition(key: str, name: str) -> dict[str, Any] | None:
    """The ``$defs`` entry ``name`` of schema ``key``, if any."""
    found: dict[str, Any] | None = load_schema(key)["$defs"].get(name)
    return found


@functools.cache
def validator(key: str, name: str) -> Validator | None:
    """A jsonschema-rs validator for ``$defs/name`` of schema ``key``, or None if undefined.

    It validates ``{"$ref": "<schema id>#/$defs/name"}`` against the schema document, so
    every error's keyword location is a pointer into that document.
    """
    if not has_definition(key, name):
        return None
    import jsonschema_rs  # imported on the first validation: a CLI subcommand may need none

    schema = load_schema(key)
    ref = {"$schema": schema["$schema"], "$ref": f"{schema['$id']}#/$defs/{name}"}
    check: Validator = jsonschema_rs.validator_for(ref, registry=_registry(key))
    return check


@functools.cache
def _registry(key: str) -> Registry:
    import jsonschema_rs

    schema = load_schema(key)
    return jsonschema_rs.Registry([(schema["$id"], schema)])


_ANNOTATIONS = frozenset({"description", "title", "examples", "$comment", "default", "deprecated"})
"""Keywords that never change a verdict (and every ``x-`` keyword of pi-lsp's own)."""


def verdict_validator(key: str, name: str) -> Validator | None:
    """A validator that finds a value valid exactly when :func:`validator` does, and faster;
    its errors are not shown (the findings describe the errors of :func:`validator`).

    It validates against a lean copy of the schema (see :func:`_lean`).
    """
    if not has_definition(key, name):
        return None
    return _verdict(key, name)


def message_roles(key: str) -> tuple[str, ...]:
    """The roles of ``AgentMessage`` that :func:`message_verdict_validator` has a validator
    for (none when the schema has no such dispatch)."""
    return _lean(key)[2]


def message_verdict_validator(key: str, role: str) -> Validator | None:
    """For a role of ``AgentMessage``: a validator with :func:`verdict_validator`'s verdict
    on a message entry whose ``message`` is an object with that role, faster still: it
    checks the message against that role's definition alone, without the test of each role
    that ``AgentMessage`` makes. None for a role without one (:func:`message_roles`)."""
    return _verdict(key, f"message@{role}") if role in message_roles(key) else None


@functools.cache
def _verdict(key: str, name: str) -> Validator:
    import jsonschema_rs

    doc_id, registry, _ = _lean(key)
    ref = {"$schema": load_schema(key)["$schema"], "$ref": f"{doc_id}#/$defs/{name}"}
    check: Validator = jsonschema_rs.validator_for(ref, registry=registry)
    return check


@functools.cache
def _lean(key: str) -> tuple[str, Registry, tuple[str, ...]]:
    """A copy of schema ``key`` that gives every value the same verdict, with less work.

    Annotations are dropped, and each ``if`` of a discriminated ``allOf`` (``if`` the object
    has this constant under this required property, ``then`` ...) tests the constant alone:
    the schema holding the ``allOf`` requires an object with that property itself, so where
    the dropped tests fail it fails anyway. And when a ``message`` entry's message is an
    ``AgentMessage`` dispatched on ``role`` that way, ``$defs/message@<role>`` is the entry
    with that role's ``then`` in its place: for a message object with that role, the
    ``AgentMessage`` of an allowed role holds exactly when the ``then`` of its role holds.
    Returns the copy's id, its registry and the roles with such a definition.
    """
    import jsonschema_rs

    doc = _lean_copy(load_schema(key))
    doc["$id"] = f"urn:pi-lsp:lean:{key}"
    defs = doc["$defs"]
    roles: dict[str, list[Any]] = {}
    entry = defs.get("message")
    agent = defs.get("AgentMessage")
    if (
        isinstance(entry, dict)
        and isinstance(entry.get("properties"), dict)
        and entry["properties"].get("message") == {"$ref": "#/$defs/AgentMessage"}
        and isinstance(agent, dict)
    ):
        roles = _role_dispatch(agent) or {}
    for role, thens in roles.items():
        variant = {**entry, "properties": {**entry["properties"]}}
        variant["properties"]["message"] = thens[0] if len(thens) == 1 else {"allOf": thens}
        defs[f"message@{role}"] = variant
    return doc["$id"], jsonschema_rs.Registry([(doc["$id"], doc)]), tuple(roles)


_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
"""Keywords whose value maps names (of properties, of definitions) to schemas: the names are
no keywords, so a property called ``description`` is kept."""

_DATA = frozenset({"const", "enum"})
"""Keywords whose value is data compared with the instance, never a schema."""


def _lean_copy(node: Any) -> Any:
    """The schema ``node`` without annotations (:data:`_ANNOTATIONS`, ``x-`` keywords),
    each discriminating ``if`` reduced to its constant (:func:`_reduced`)."""
    if isinstance(node, list):  # allOf, anyOf, ... (and lists of names, kept as they are)
        return [_lean_copy(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k in _ANNOTATIONS or k.startswith("x-"):
            continue
        if k in _DATA:
            out[k] = v
        elif k in _NAME_MAPS and isinstance(v, dict):
            out[k] = {name: _lean_copy(sub) for name, sub in v.items()}
        else:
            out[k] = _lean_copy(v)
    return _reduced(out)


def _discriminator(branch: Any) -> tuple[str, Any] | None:
    """``(property, constant)`` of an ``allOf`` item ``{"if": {"type": "object", "properties":
    {P: {"const": C}}, "required": [P]}, "then": ...}``, else None."""
    if not isinstance(branch, dict) or set(branch) != {"if", "then"}:
        return None
    test = branch["if"]
    if not isinstance(test, dict) or set(test) != {"type", "properties", "required"}:
        return None
    props = test["properties"]
    if test["type"] != "object" or not isinstance(props, dict) or len(props) != 1:
        return None
    ((name, sub),) = props.items()
    if test["required"] != [name] or not isinstance(sub, dict) or set(sub) != {"const"}:
        return None
    return name, sub["const"]


def _reduced(out: dict[str, Any]) -> dict[str, Any]:
    """The schema ``out`` with each discriminating ``if`` of its ``allOf`` reduced to its
    constant, when ``out`` requires an object with that property itself (see :func:`_lean`)."""
    required = out.get("required")
    branches = out.get("allOf")
    if out.get("type") == "object" and isinstance(required, list) and isinstance(branches, list):
        items = []
        for branch in branches:
            found = _discriminator(branch)
            if found is not None and found[0] in required:
                name, constant = found
                branch = {"if": {"properties": {name: {"const": constant}}}, "then": branch["then"]}
            items.append(branch)
        out["allOf"] = items
    return out


def _role_dispatch(agent: dict[str, Any]) -> dict[str, list[Any]] | None:
    """The ``then`` schemas of each allowed role of a (lean) ``AgentMessage`` that is only an
    object with a required ``role`` among an ``enum`` and a discriminated ``allOf``; None
    for any other shape."""
    props = agent.get("properties")
    if (
        set(agent) != {"type", "required", "properties", "allOf"}
        or agent["type"] != "object"
        or not isinstance(agent["required"], list)
        or "role" not in agent["required"]
        or not isinstance(props, dict)
        or set(props) != {"role"}
        or not isinstance(props["role"], dict)
        or set(props["role"]) != {"enum"}
        or not isinstance(agent["allOf"], list)
    ):
        return None
    allowed = props["role"]["enum"]
    if not isinstance(allowed, list) or not all(isinstance(r, str) for r in allowed):
        return None
    thens: dict[str, list[Any]] = {role: [] for role in allowed}
    for branch in agent["allOf"]:  # simplified: {"if": {"properties": {"role": ...}}, ...}
        if not isinstance(branch, dict) or set(branch) != {"if", "then"}:
            return None
        test = branch["if"]
        try:
            constant = test["properties"]["role"]["const"]
        except (TypeError, KeyError):
            return None
        if not isinstance(constant, str) or test != {"properties": {"role": {"const": constant}}}:
            return None
        if constant in thens:  # (a role the enum refuses never reaches its branch)
            thens[constant].append(branch["then"])
    return {role: found or [True] for role, found in thens.items()}


class Violation(NamedTuple):
    """One schema violation: ``path`` to the offending value and what is wrong with it.

    ``missing`` names a required property that is absent (then ``path`` is its parent and
    ``problem`` is empty); otherwise ``problem`` says what the value at ``path`` should be,
    without naming it (e.g. "must be a number, not a string").
    """

    path: tuple[str | int, ...]
    problem: str
    missing: str | None = None


def _describe(key: str, error: ValidationError, value: Any) -> Violation:
    """A violation from one jsonschema-rs error about the copy of ``value`` :func:`_safe` made.

    The violation's path and the value it shows are ``value``'s own.
    """
    path = _own_path(value, tuple(error.instance_path))
    kind = error.kind.name
    if kind == "required":
        return Violation(path, "", str(error.kind.as_dict()["property"]))
    if kind in ("enum", "const", "type"):
        # the keyword's value as the schema writes it (jsonschema-rs reorders a type list)
        expected = _keyword(key, error.absolute_keyword_location or "")
        if kind == "enum":
            allowed = ", ".join(repr(v) for v in expected)
            return Violation(path, f"must be one of {allowed}, not {_short(_at(value, path))}")
        if kind == "const":
            return Violation(path, f"must be {expected!r}")
        if isinstance(expected, list):
            expected = " or ".join(expected)
        return Violation(path, f"must be {_article(str(expected))}, not {_kind(_at(value, path))}")
    return Violation(path, f"is invalid: {error.message[:200]}")


@functools.cache
def _keyword(key: str, location: str) -> Any:
    """The value in schema ``key`` at an absolute keyword location (``uri#/json/pointer``)."""
    node: Any = load_schema(key)
    for part in unquote(location.partition("#")[2]).split("/")[1:]:
        step = part.replace("~1", "/").replace("~0", "~")
        node = node[int(step)] if isinstance(node, list) else node[step]
    return node


def _at(value: Any, path: tuple[str | int, ...]) -> Any:
    """The value at ``path`` (the line's own: jsonschema-rs hands infinities back as null)."""
    for step in path:
        value = value[step]
    return value


def _own_path(value: Any, path: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """``path`` (in the copy made by :func:`_safe`) with each key as ``value`` spells it."""
    out: list[str | int] = []
    for step in path:
        own = step
        if isinstance(value, dict) and isinstance(step, str) and step not in value:
            own = next(k for k in value if _text(k) == step)  # the copy's key is one of them
        out.append(own)
        value = value[own]
    return tuple(out)


def _article(kind: str) -> str:
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except RecursionError:  # a value nested deeper than repr walks
        return _kind(value)
    return text if len(text) <= 40 else text[:37] + "..."


_DEPTH = 64
"""Containers nested deeper than this are emptied before errors are described.

jsonschema-rs hands each error's instance back as a Python value and refuses one nested
more than 255 deep; no schema constrains anything that deep.
"""

_BIG = sys.float_info.max


def _safe(value: Any, depth: int = 0) -> Any:
    """``value`` as jsonschema-rs can judge and describe it.

    Containers below :data:`_DEPTH` levels are emptied; strings lose their lone surrogates
    (see :func:`_text`); and an infinite number (a literal beyond a double, which
    ``JSON.parse`` reads as Infinity) becomes the largest finite one of its sign:
    jsonschema-rs would take it for null. (So an infinity where the schema allows null
    passes unnoticed: jsonschema-rs finds such a line valid.)
    """
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, dict):
        if depth >= _DEPTH:
            return {}
        return {_text(k): _safe(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [] if depth >= _DEPTH else [_safe(v, depth + 1) for v in value]
    if isinstance(value, float) and math.isinf(value):
        return math.copysign(_BIG, value)
    return value


def _text(text: str) -> str:
    """``text`` with each lone surrogate (an escape, or a byte that was not UTF-8) as U+FFFD.

    jsonschema-rs refuses a string it cannot encode as UTF-8; U+FFFD equals no schema
    constant, as the surrogate did not.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def validate(key: str, name: str, value: Any, limit: int = 5) -> list[Violation]:
    """Validate ``value`` against ``$defs/name`` of schema ``key``; at most ``limit`` violations.

    A valid line costs one call into jsonschema-rs; only a failing one is copied (see
    :func:`_safe`) and its errors described.
    """
    check = validator(key, name)
    if check is None:
        return []
    try:
        if check.is_valid(value):
            return []
    except UnicodeEncodeError:  # a lone surrogate: judged on the copy
        pass
    return _collect(key, check, _safe(value), value, limit)


def _collect(key: str, check: Validator, shown: Any, value: Any, limit: int) -> list[Violation]:
    """The distinct violations of ``shown``, the copy of ``value`` made by :func:`_safe`."""
    out: list[Violation] = []
    seen: set[tuple[tuple[str | int, ...], str, str | None]] = set()
    for error in check.iter_errors(shown):
        violation = _describe(key, error, value)
        marker = (violation.path, violation.problem, violation.missing)
        if marker in seen:
            continue
        seen.add(marker)
        out.append(violation)
        if len(out) >= limit:
            return out
    return out
