"""The JSON Schemas of each session format: loading, lookup and validation of one entry.

The files under the top-level ``schemas/`` folder are the single source of truth; the
wheel ships them as ``pi_lsp/schemas``. Each schema names one ``$defs`` entry per line
kind (``header`` and every entry ``type``), and lines are validated against that
definition alone, so an error points at the offending field rather than at a union.
"""

from __future__ import annotations

import functools
import importlib.resources
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from .compiled import compile_definitions

if TYPE_CHECKING:  # jsonschema is imported only when a line fails the compiled check
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError
    from referencing import Registry

SCHEMA_FILES: dict[str, str] = {
    "pi.1": "session.v1.schema.json",
    "pi.2": "session.v2.schema.json",
    "pi.3": "session.v3.schema.json",
    "book.1": "session-book.v1.schema.json",
}


def _schema_dir() -> Path:
    packaged = Path(str(importlib.resources.files("pi_lsp"))) / "schemas"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "schemas"


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


@functools.cache
def _registry() -> Registry:
    from referencing import Registry, Resource

    resources = []
    for key in SCHEMA_FILES:
        schema = load_schema(key)
        resources.append((schema["$id"], Resource.from_contents(schema)))
    registry: Registry = Registry().with_resources(resources)
    return registry


def has_definition(key: str, name: str) -> bool:
    """True when schema ``key`` defines a line kind called ``name``."""
    return name in load_schema(key).get("$defs", {})


def definition(key: str, name: str) -> dict[str, Any] | None:
    """The ``$defs`` entry ``name`` of schema ``key``, if any."""
    found: dict[str, Any] | None = load_schema(key).get("$defs", {}).get(name)
    return found


@functools.cache
def validator(key: str, name: str) -> Draft202012Validator | None:
    """A compiled validator for ``$defs/name`` of schema ``key``, or None if undefined."""
    if not has_definition(key, name):
        return None
    root = load_schema(key)["$id"]
    from jsonschema import Draft202012Validator

    return Draft202012Validator({"$ref": f"{root}#/$defs/{name}"}, registry=_registry())


@dataclass(frozen=True, slots=True)
class Violation:
    """One schema violation: ``path`` to the offending value and what is wrong with it.

    ``missing`` names a required property that is absent (then ``path`` is its parent and
    ``problem`` is empty); otherwise ``problem`` says what the value at ``path`` should be,
    without naming it (e.g. "must be a number, not a string").
    """

    path: tuple[str | int, ...]
    problem: str
    missing: str | None = None


def _leaves(error: ValidationError) -> Iterator[ValidationError]:
    if error.context:
        # an if/then branch or a $ref wrapper: report the innermost causes
        for sub in error.context:
            yield from _leaves(sub)
    else:
        yield error


def _describe(error: ValidationError) -> Violation:
    path = tuple(error.absolute_path)
    validator_kind = error.validator
    if validator_kind == "required":
        missing = str(error.message.split("'")[1]) if "'" in error.message else None
        if missing is not None:
            return Violation(path, "", missing)
    if validator_kind == "enum":
        allowed = ", ".join(repr(v) for v in error.validator_value)
        return Violation(path, f"must be one of {allowed}, not {_short(error.instance)}")
    if validator_kind == "const":
        return Violation(path, f"must be {error.validator_value!r}")
    if validator_kind == "type":
        expected = error.validator_value
        if isinstance(expected, list):
            expected = " or ".join(expected)
        return Violation(path, f"must be {_article(str(expected))}, not {_kind(error.instance)}")
    return Violation(path, f"is invalid: {error.message[:200]}")


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
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@functools.cache
def _fast_checks(key: str) -> dict[str, Callable[[Any], bool]]:
    """Compiled validity checks per ``$defs`` entry (see :mod:`pi_lsp.core.compiled`)."""
    schema = load_schema(key)
    return compile_definitions(schema, schema.get("$defs", {}))


def validate(key: str, name: str, value: Any, limit: int = 5) -> list[Violation]:
    """Validate ``value`` against ``$defs/name`` of schema ``key``; at most ``limit`` violations.

    A compiled check answers for valid entries; jsonschema runs only on the rest, to
    describe what is wrong.
    """
    fast = _fast_checks(key).get(name)
    if fast is not None and fast(value):
        return []
    check = validator(key, name)
    if check is None:
        return []
    try:
        return _collect(check, value, limit)
    except RecursionError:  # nested deeper than a recursive validator can walk
        return []


def _collect(check: Draft202012Validator, value: Any, limit: int) -> list[Violation]:
    out: list[Violation] = []
    seen: set[tuple[tuple[str | int, ...], str, str | None]] = set()
    for error in check.iter_errors(value):
        for leaf in _leaves(error):
            violation = _describe(leaf)
            marker = (violation.path, violation.problem, violation.missing)
            if marker in seen:
                continue
            seen.add(marker)
            out.append(violation)
            if len(out) >= limit:
                return out
    return out
