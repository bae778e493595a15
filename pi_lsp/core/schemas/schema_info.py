"""Read-only questions to the JSON Schemas: a property's description, allowed values, and
what pi does when it is wrong.

Unlike validation, these walk the schema by hand: ``$ref``, ``properties``,
``additionalProperties``, ``items``, ``allOf`` and ``if``/``then`` branches. When the instance
is known, an ``if`` whose ``const`` conditions do not match it is skipped, so an assistant
message's ``content`` is described by the assistant branch and not by the first branch that
has a ``content``. Without an instance (a line being typed), every branch is considered.

Consequences are the schema's own annotations (see :func:`consequence`): a property node (or
the definition it refers to) carries ``x-pi-consequence`` = ``{"severity", "text"}``, what
pi 1.6 does when the value there is wrong, and may carry ``x-pi-consequence-if-missing``
for a required property that is absent, when that costs something else.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from ..text.jsonl import PathItem
from . import schema

_MISSING = object()
_DEFS = "#/$defs/"


def _resolve(root: dict[str, Any], node: Any) -> Any:
    """``node`` with references into the schema's ``$defs`` followed, each definition once
    (a loop ends). Only nodes of a definition hold references, so ``root`` has ``$defs``."""
    seen: set[int] = set()
    while isinstance(node, dict) and id(node) not in seen:
        ref = node.get("$ref")
        if not (isinstance(ref, str) and ref.startswith(_DEFS)):
            break
        seen.add(id(node))
        node = root["$defs"].get(ref[len(_DEFS) :])
    return node


def _matches(condition: Any, instance: Any) -> bool:
    """True when ``instance`` may satisfy an ``if`` (only ``const``/``enum`` are checked)."""
    if not isinstance(condition, dict):
        return True
    props = condition.get("properties")
    if not isinstance(props, dict) or not isinstance(instance, dict):
        return True
    for name, rule in props.items():
        if not isinstance(rule, dict) or name not in instance:
            continue
        if "const" in rule and instance[name] != rule["const"]:
            return False
        if isinstance(rule.get("enum"), list) and instance[name] not in rule["enum"]:
            return False
    return True


def _children(root: dict[str, Any], node: Any, item: PathItem, instance: Any) -> Iterator[Any]:
    """Every schema node that may describe ``item`` under ``node`` for ``instance``."""
    node = _resolve(root, node)
    if not isinstance(node, dict):
        return
    if isinstance(item, int):
        if "items" in node:
            yield node["items"]
    elif isinstance(node.get("properties"), dict) and item in node["properties"]:
        yield node["properties"][item]
    elif isinstance(node.get("additionalProperties"), dict):
        yield node["additionalProperties"]
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in node.get(key, []):
            yield from _children(root, branch, item, instance)
    if "then" in node and _matches(node.get("if"), instance):
        yield from _children(root, node["then"], item, instance)


def _step(instance: Any, item: PathItem) -> Any:
    if instance is _MISSING:
        return _MISSING
    if isinstance(item, int) and isinstance(instance, list) and 0 <= item < len(instance):
        return instance[item]
    if isinstance(item, str) and isinstance(instance, dict) and item in instance:
        return instance[item]
    return _MISSING


def _pairs(key: str, name: str, path: tuple[PathItem, ...], instance: Any) -> list[tuple[Any, Any]]:
    """``(node as written, node with $ref resolved)`` for every node that describes ``path``."""
    root = schema.load_schema(key)
    top = schema.definition(key, name)
    current: list[tuple[Any, Any]] = [(top, _resolve(root, top))]
    for item in path:
        found: list[tuple[Any, Any]] = []
        for _, node in current:
            for child in _children(root, node, item, instance):
                resolved = _resolve(root, child)
                if resolved is not None and all(resolved is not f for _, f in found):
                    found.append((child, resolved))
        current = found
        instance = _step(instance, item)
        if not current:
            return []
    return [(raw, node) for raw, node in current if node is not None]


def nodes(key: str, name: str, path: tuple[PathItem, ...], instance: Any = _MISSING) -> list[Any]:
    """The schema nodes of ``$defs/name`` in schema ``key`` that describe ``path``.

    ``instance`` is the whole line's value when known; it selects ``if``/``then`` branches.
    """
    return [node for _, node in _pairs(key, name, path, instance)]


class Consequence(NamedTuple):
    """What pi does with a wrong value: ``severity`` is error, warning or information."""

    severity: str
    text: str


def consequence(
    key: str, name: str, path: tuple[PathItem, ...], instance: Any, missing: bool = False
) -> Consequence | None:
    """What pi does when the value at ``path`` is wrong (``missing``: absent), if graded.

    The annotation next to a ``$ref`` wins over the one on the definition it refers to;
    for a missing value, ``x-pi-consequence-if-missing`` wins over ``x-pi-consequence``.
    """
    keywords = (
        ("x-pi-consequence-if-missing", "x-pi-consequence") if missing else ("x-pi-consequence",)
    )
    for raw, node in _pairs(key, name, path, instance):
        for where in (raw, node):
            for keyword in keywords:
                grade = where.get(keyword) if isinstance(where, dict) else None
                if isinstance(grade, dict):
                    return Consequence(str(grade.get("severity")), str(grade.get("text")))
    return None


def description(
    key: str, name: str, path: tuple[PathItem, ...], instance: Any = _MISSING
) -> str | None:
    """The first description of the property at ``path`` (branch-aware), if any."""
    for node in nodes(key, name, path, instance):
        desc = node.get("description") if isinstance(node, dict) else None
        if isinstance(desc, str):
            return desc
    return None


def allowed_values(
    key: str, name: str, path: tuple[PathItem, ...], instance: Any = _MISSING
) -> list[Any]:
    """The ``enum``/``const`` values allowed at ``path`` (union over branches, in order)."""
    out: list[Any] = []
    for node in nodes(key, name, path, instance):
        if not isinstance(node, dict):
            continue
        values = node["enum"] if isinstance(node.get("enum"), list) else []
        if "const" in node:
            values = [node["const"]]
        for value in values:
            if value not in out:
                out.append(value)
    return out


def line_kinds(key: str) -> list[str]:
    """The ``type`` values the schema knows: the header's and every entry type's."""
    root = schema.load_schema(key)
    out: list[str] = []
    for branch in root.get("allOf", []):
        cond = branch.get("if") if isinstance(branch, dict) else None
        props = cond.get("properties") if isinstance(cond, dict) else None
        rule = props.get("type") if isinstance(props, dict) else None
        value = rule.get("const") if isinstance(rule, dict) else None
        if isinstance(value, str) and value not in out:
            out.append(value)
    return out


SINCE = "x-pi-since"
"""Annotation keyword on a definition or property: the pi version that introduced it."""


def since(key: str, obj: Any) -> str | None:
    """The pi version that introduced the kind of entry ``obj`` (its type's definition, or
    for a message the definition its role selects), when the schema annotates it."""
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        return None
    name = obj["type"]
    if not schema.has_definition(key, name):
        return None
    root = schema.load_schema(key)
    found: list[Any] = [schema.definition(key, name)]
    message = obj.get("message")
    if name == "message" and isinstance(message, dict):
        for node in nodes(key, name, ("message",), obj):
            for branch in node.get("allOf", []) if isinstance(node, dict) else []:
                if (
                    isinstance(branch, dict)
                    and "then" in branch
                    and _matches(branch.get("if"), message)
                ):
                    found.append(_resolve(root, branch["then"]))
    for node in reversed(found):
        value = node.get(SINCE) if isinstance(node, dict) else None
        if isinstance(value, str):
            return value
    return None
