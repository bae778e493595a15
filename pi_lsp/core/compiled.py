"""A compiler from the JSON Schema subset our schemas use to fast yes/no Python closures.

:func:`compile_definition` turns ``$defs/<name>`` of a draft 2020-12 schema into a function
that answers "is this JSON value valid?" with the exact verdict of jsonschema's
``Draft202012Validator``, one to two orders of magnitude faster. It only says yes or no: on
a no, run the full validator to get the detailed errors.

The verdict is conservative: a keyword, ``$ref`` or value the compiler cannot judge exactly
makes the function return False (never a wrong True), so the caller falls back to
jsonschema. Values are JSON data as ``json.loads``/``orjson.loads`` return them (dict,
list, str, int, float, bool, None).

How: every subschema is partially evaluated on the python class of the value into a table
of constant verdicts or small closures, so a type check costs a dict lookup and no call; an
``allOf`` of ``if {P: {const: X}} then S`` (a discriminated union) becomes one dict lookup on
the value of P; each ``$ref`` target is compiled once, and bound lazily in cycles.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias
from urllib.parse import unquote, urljoin

__all__ = ["KEYWORDS", "Check", "compile_definition", "compile_definitions", "compile_schema"]

Check = Callable[[Any], bool]

#: Keywords that do not affect validity (jsonschema applies no format checker by default);
#: "then"/"else" and "minContains"/"maxContains" are read by "if" and "contains"; the
#: "x-pi-consequence" and "x-pi-since" keywords are our own annotations (see
#: :mod:`pi_lsp.core.schema_info`).
_ANNOTATIONS = frozenset({
    "$schema", "$id", "$anchor", "$dynamicAnchor", "$comment", "$defs", "$vocabulary", "title",
    "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "format",
    "contentEncoding", "contentMediaType", "contentSchema", "then", "else", "minContains",
    "maxContains", "x-pi-consequence", "x-pi-consequence-if-missing", "x-pi-since"
})  # fmt: skip

#: Keywords that do affect validity, all implemented.
_ASSERTIONS = frozenset({
    "$ref", "type", "enum", "const", "required", "properties", "patternProperties",
    "additionalProperties", "propertyNames", "minProperties", "maxProperties",
    "dependentRequired", "dependentSchemas", "items", "prefixItems", "minItems", "maxItems",
    "uniqueItems", "contains", "minLength", "maxLength", "pattern", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "allOf", "anyOf", "oneOf", "not",
    "if"
})  # fmt: skip

#: Every keyword the compiler understands; any other keyword makes its schema undecidable.
KEYWORDS: frozenset[str] = _ANNOTATIONS | _ASSERTIONS

_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema"
_MISSING: Any = object()
_NONE = type(None)
#: The python classes of JSON values; a schema is compiled to one verdict per class.
_CLASSES: tuple[type, ...] = (dict, list, str, int, float, bool, _NONE)
_KNOWN = frozenset(_CLASSES)

#: The verdict of a schema for values of one python class: constant, or a function.
Entry: TypeAlias = "bool | Check"
#: A schema partially evaluated on the value's class: one :data:`Entry` per class.
Table: TypeAlias = "dict[type, Entry]"


class _Unknown(Exception):
    """Raised while checking a value against a schema part the compiler cannot judge."""


def _accept(value: Any) -> bool:
    return True


def _reject(value: Any) -> bool:
    return False


def _unknown(value: Any) -> bool:
    raise _Unknown


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and value.__class__ is not bool


def _float_is_integer(value: float) -> bool:
    return value.is_integer()


def _table(entry: Entry) -> Table:
    return dict.fromkeys(_CLASSES, entry)


def _only(classes: Iterable[type], entry: Entry) -> Table:
    """A table applying ``entry`` to values of ``classes``; other values pass."""
    table = _table(True)
    for cls in classes:
        table[cls] = entry
    return table


def _fn(entry: Entry) -> Check:
    if isinstance(entry, bool):
        return _accept if entry else _reject
    return entry


def _canon(value: Any) -> Any:
    """A hashable key such that two JSON values are equal (as jsonschema's ``equal``) iff keys are.

    Strings and numbers stand for themselves (1 == 1.0); booleans are tagged so that
    True != 1; arrays and objects become tagged tuples and frozensets.
    """
    if isinstance(value, str) or value is None:
        return value
    if value.__class__ is bool:
        return (bool, value)
    if isinstance(value, int | float):
        return value
    if isinstance(value, list):
        return (list, tuple(_canon(item) for item in value))
    if isinstance(value, dict):
        return (dict, frozenset((key, _canon(item)) for key, item in value.items()))
    raise _Unknown


# ----------------------------------------------------------------------------- combinators


def _and(entries: Iterable[Entry]) -> Entry:
    """Valid when every entry is."""
    fns: list[Check] = []
    for entry in entries:
        if isinstance(entry, bool):
            if not entry:
                return False
        elif entry not in fns:
            fns.append(entry)
    if not fns:
        return True
    if len(fns) == 1:
        return fns[0]
    if len(fns) == 2:
        first, second = fns

        def check_two(value: Any) -> bool:
            return first(value) and second(value)

        return check_two
    checks = tuple(fns)

    def check_all(value: Any) -> bool:
        for check in checks:
            if not check(value):
                return False
        return True

    return check_all


def _any(entries: Iterable[Entry]) -> Entry:
    """Valid when some entry is."""
    fns: list[Check] = []
    for entry in entries:
        if isinstance(entry, bool):
            if entry:
                return True
        else:
            fns.append(entry)
    if not fns:
        return False
    if len(fns) == 1:
        return fns[0]
    checks = tuple(fns)

    def check_any(value: Any) -> bool:
        for check in checks:
            if check(value):
                return True
        return False

    return check_any


def _one(entries: Iterable[Entry]) -> Entry:
    """Valid when exactly one entry is."""
    fns: list[Check] = []
    passed = 0
    for entry in entries:
        if isinstance(entry, bool):
            passed += entry
        else:
            fns.append(entry)
    if passed >= 2:
        return False
    checks = tuple(fns)
    if passed == 1:
        if not checks:
            return True

        def check_none(value: Any) -> bool:
            for check in checks:
                if check(value):
                    return False
            return True

        return check_none
    if not checks:
        return False
    if len(checks) == 1:
        return checks[0]

    def check_one(value: Any) -> bool:
        found = False
        for check in checks:
            if check(value):
                if found:
                    return False
                found = True
        return found

    return check_one


def _not(entry: Entry) -> Entry:
    if isinstance(entry, bool):
        return not entry

    def check_not(value: Any) -> bool:
        return not entry(value)

    return check_not


def _if(condition: Entry, then: Entry, otherwise: Entry) -> Entry:
    if isinstance(condition, bool):
        return then if condition else otherwise
    then_fn, else_fn = _fn(then), _fn(otherwise)

    def check_if(value: Any) -> bool:
        return then_fn(value) if condition(value) else else_fn(value)

    return check_if


def _per_class(combine: Callable[[list[Entry]], Entry], tables: list[Table]) -> Table:
    return {cls: combine([table[cls] for table in tables]) for cls in _CLASSES}


# ----------------------------------------------------------------------------- leaf keywords


def _type_table(names: Any) -> Table:
    """``"type"``: isinstance semantics, bool is no number, a float with integral value is an integer."""
    names = [names] if isinstance(names, str) else names
    known = {"object", "array", "string", "boolean", "null", "number", "integer"}
    if not isinstance(names, list) or not all(isinstance(n, str) and n in known for n in names):
        return _table(_unknown)
    floats: Entry = "number" in names or ("integer" in names and _float_is_integer)
    return {
        dict: "object" in names,
        list: "array" in names,
        str: "string" in names,
        int: "integer" in names or "number" in names,
        float: floats,
        bool: "boolean" in names,
        _NONE: "null" in names,
    }


def _enum_table(options: Any) -> Table:
    """``"enum"`` (and ``"const"``, one option): JSON equality, 1 == 1.0 but True != 1."""
    if not isinstance(options, list):
        return _table(_unknown)
    try:
        keys = [_canon(option) for option in options]
    except _Unknown:
        return _table(_unknown)
    strings = frozenset(key for key in keys if isinstance(key, str))
    numbers = frozenset(key for key in keys if _is_number(key))
    lists = frozenset(key for key in keys if isinstance(key, tuple) and key[0] is list)
    dicts = frozenset(key for key in keys if isinstance(key, tuple) and key[0] is dict)
    truth = {key[1] for key in keys if isinstance(key, tuple) and key[0] is bool}

    def compound(found: frozenset[Any]) -> Entry:
        if not found:
            return False

        def check_compound(value: Any) -> bool:
            return _canon(value) in found

        return check_compound

    booleans: Entry = len(truth) == 2 or (
        bool(truth) and functools.partial(operator.is_, next(iter(truth)))
    )
    return {
        dict: compound(dicts),
        list: compound(lists),
        str: bool(strings) and strings.__contains__,
        int: bool(numbers) and numbers.__contains__,
        float: bool(numbers) and numbers.__contains__,
        bool: booleans,
        _NONE: None in keys,
    }


def _size(limit: Any, at_least: bool) -> Check:
    """minItems/maxItems/minProperties/maxProperties/minLength/maxLength (``len`` of the value)."""
    if not _is_number(limit):
        return _unknown
    if at_least:

        def check_min(value: Any) -> bool:
            return bool(len(value) >= limit)

        return check_min

    def check_max(value: Any) -> bool:
        return bool(len(value) <= limit)

    return check_max


def _string(schema: dict[str, Any]) -> Entry | None:
    """The string keywords, for a value known to be a str (None if none)."""
    checks: list[Entry] = []
    for keyword in ("minLength", "maxLength"):
        if keyword in schema:
            checks.append(_size(schema[keyword], keyword == "minLength"))
    if "pattern" in schema:
        if not isinstance(schema["pattern"], str):
            return _unknown
        try:
            search = re.compile(schema["pattern"]).search
        except re.error:
            return _unknown

        def check_pattern(value: str) -> bool:
            return search(value) is not None

        checks.append(check_pattern)
    return _and(checks) if checks else None


def _number(schema: dict[str, Any]) -> Entry | None:
    """The numeric keywords, for a value known to be an int or float (None if none)."""
    checks: list[Entry] = []
    # each keyword fails when ``fails(value, bound)``, exactly as jsonschema words it
    compare: tuple[tuple[str, Callable[[Any, Any], bool]], ...] = (
        ("minimum", operator.lt),
        ("maximum", operator.gt),
        ("exclusiveMinimum", operator.le),
        ("exclusiveMaximum", operator.ge),
    )
    for keyword, fails in compare:
        if keyword in schema:
            bound = schema[keyword]
            if not _is_number(bound):
                return _unknown

            def check_bound(
                value: Any, bound: Any = bound, fails: Callable[[Any, Any], bool] = fails
            ) -> bool:
                return not fails(value, bound)

            checks.append(check_bound)
    if "multipleOf" in schema:
        checks.append(_multiple_of(schema["multipleOf"]))
    return _and(checks) if checks else None


def _multiple_of(divisor: Any) -> Check:
    """multipleOf, decided as jsonschema decides it (float quotient, else remainder)."""
    if not _is_number(divisor) or divisor <= 0:
        return _unknown
    if isinstance(divisor, float):

        def check_float(value: Any) -> bool:
            try:
                quotient = value / divisor
                return bool(int(quotient) == quotient)
            except (OverflowError, ValueError):
                raise _Unknown from None

        return check_float

    def check_int(value: Any) -> bool:
        return not (value % divisor)

    return check_int


def _unique(value: list[Any]) -> bool:
    """uniqueItems, decided for arrays of scalars; arrays of arrays/objects are left to jsonschema."""
    if len(value) < 2:
        return True
    if any(isinstance(item, list | dict) for item in value):
        raise _Unknown
    return len({_canon(item) for item in value}) == len(value)


def _dependent_required(dependent: Any) -> Check:
    if not isinstance(dependent, dict) or not all(
        isinstance(needs, list) for needs in dependent.values()
    ):
        return _unknown
    pairs = tuple((key, frozenset(needs)) for key, needs in dependent.items())

    def check_dependent(value: dict[str, Any]) -> bool:
        for key, needs in pairs:
            if key in value and not value.keys() >= needs:
                return False
        return True

    return check_dependent


# ----------------------------------------------------------------------------- objects


def _object_check(
    need: tuple[str, ...],
    props: dict[str, Table],
    after: Entry,
) -> Check:
    """required + properties (no additional/pattern properties) + ``after``, for a dict."""
    getters = {
        key: table.get for key, table in props.items() if any(e is not True for e in table.values())
    }
    lookup = getters.get
    if after is False:
        return _reject
    then = None if after is True else after

    def check_object(value: dict[str, Any]) -> bool:
        for key in need:
            if key not in value:
                return False
        for key, item in value.items():
            get = lookup(key)
            if get is not None:
                entry = get(item.__class__, _unknown)
                if entry is not True and (entry is False or not entry(item)):
                    return False
        return then is None or then(value)

    return check_object


def _object_check_general(
    need: tuple[str, ...],
    props: dict[str, Table],
    patterns: list[tuple[str, Table]],
    additional: Table | None,
    after: Entry,
) -> Check:
    """Like :func:`_object_check`, with patternProperties and additionalProperties."""
    lookup = {key: table.get for key, table in props.items()}.get
    try:
        regexes = tuple((re.compile(pattern).search, table.get) for pattern, table in patterns)
        # jsonschema decides "additional" with one joined regex; so do we
        joined = re.compile("|".join(p for p, _ in patterns)).search if patterns else None
    except re.error:
        return _unknown
    extra = additional.get if additional is not None else None
    after_fn = _fn(after)

    def check_object(value: dict[str, Any]) -> bool:
        for key in need:
            if key not in value:
                return False
        for key, item in value.items():
            cls = item.__class__
            get = lookup(key)
            if get is not None:
                entry = get(cls, _unknown)
                if entry is not True and (entry is False or not entry(item)):
                    return False
            for search, pattern_get in regexes:
                if search(key):
                    entry = pattern_get(cls, _unknown)
                    if entry is not True and (entry is False or not entry(item)):
                        return False
            if extra is not None and get is None and not (joined is not None and joined(key)):
                entry = extra(cls, _unknown)
                if entry is not True and (entry is False or not entry(item)):
                    return False
        return after_fn(value)

    return check_object


def _union_case(member: Any) -> tuple[str, Any, bool, Any] | None:
    """``(P, X, typed, S)`` when ``member`` is ``{"if": {P: {"const": X}, required: [P]}, "then": S}``.

    ``typed`` tells whether the ``if`` also says ``"type": "object"``; otherwise it holds
    for every non-object. None when the member has another shape.
    """
    if not isinstance(member, dict) or "if" not in member or "then" not in member:
        return None
    if any(key not in _ANNOTATIONS and key != "if" for key in member) or "else" in member:
        return None
    if "$id" in member:
        return None
    cond = member["if"]
    if not isinstance(cond, dict) or any(
        key not in _ANNOTATIONS and key not in ("type", "properties", "required") for key in cond
    ):
        return None
    if "$id" in cond:
        return None
    typed = "type" in cond
    if typed and cond["type"] not in ("object", ["object"]):
        return None
    props = cond.get("properties")
    if not isinstance(props, dict) or len(props) != 1:
        return None
    ((prop, sub),) = props.items()
    if not isinstance(sub, dict) or "const" not in sub or "$id" in sub:
        return None
    if any(key not in _ANNOTATIONS and key != "const" for key in sub):
        return None
    required = cond.get("required")
    if not isinstance(required, list) or not required or any(key != prop for key in required):
        return None
    try:
        _canon(sub["const"])
    except _Unknown:
        return None
    return prop, sub["const"], typed, member["then"]


def _dispatch(prop: str, table: dict[Any, Entry]) -> Check:
    """The discriminated union on ``prop``, for a value known to be a dict."""
    get = table.get
    if all(isinstance(key, str) for key in table):

        def dispatch_str(value: dict[str, Any]) -> bool:
            tag = value.get(prop)
            if tag.__class__ is str:
                entry = get(tag, True)
                return entry is True or (entry is not False and entry(value))
            if isinstance(tag, str):
                raise _Unknown  # a str subclass: not JSON data
            return True

        return dispatch_str

    def dispatch_any(value: dict[str, Any]) -> bool:
        tag = value.get(prop, _MISSING)
        if tag is _MISSING:
            return True
        entry = get(_canon(tag), True)
        return entry is True or (entry is not False and entry(value))

    return dispatch_any


# ----------------------------------------------------------------------------- the compiler


class _Compiler:
    """Compiles the subschemas of one schema document, sharing the tables of ``$ref`` targets."""

    def __init__(self, root: Any) -> None:
        self.root = root
        root_id = root.get("$id") if isinstance(root, dict) else None
        self.root_id = root_id.rstrip("#") if isinstance(root_id, str) else ""
        self.done: dict[str, Table] = {}
        self.cells: dict[str, list[Check]] = {}
        self.checks: dict[int, tuple[Table, Check]] = {}
        self.dialect_ok = not isinstance(root, dict) or root.get("$schema", _SCHEMA_2020_12) in (
            _SCHEMA_2020_12,
            _SCHEMA_2020_12 + "#",
        )

    # ------------------------------------------------------------------ references

    def ref(self, ref: Any) -> Table:
        """The table of the subschema that a ``$ref`` value points at."""
        if not isinstance(ref, str):
            return _table(_unknown)
        base, _, fragment = ref.partition("#")
        if base and urljoin(self.root_id, base) != self.root_id:
            return _table(_unknown)  # another document: not ours to judge
        if fragment and not fragment.startswith("/"):
            return _table(_unknown)  # a plain-name anchor
        return self.pointer(unquote(fragment))

    def pointer(self, pointer: str) -> Table:
        """The table of the subschema at JSON pointer ``pointer`` (lazily bound in cycles)."""
        if pointer in self.done:
            return self.done[pointer]
        if pointer in self.cells:
            cell = self.cells[pointer]

            def deferred(value: Any) -> bool:
                return cell[0](value)

            return _table(deferred)
        node = self._resolve(pointer)
        if node is _MISSING:
            return _table(_unknown)
        self.cells[pointer] = cell = [_unknown]
        table = self.node(node)
        self.done[pointer] = table
        cell[0] = self.check(table)
        return table

    def _resolve(self, pointer: str) -> Any:
        node = self.root
        for raw in pointer.split("/")[1:]:
            token = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return _MISSING
        return node

    def check(self, table: Table) -> Check:
        """One function for a whole table: look the value's class up, then apply its entry."""
        cached = self.checks.get(id(table))
        if cached is not None:
            return cached[1]
        check = _table_check(table)
        self.checks[id(table)] = (table, check)
        return check

    # ------------------------------------------------------------------ schemas

    def node(self, schema: Any) -> Table:
        """The table of one (sub)schema."""
        if isinstance(schema, bool):
            return _table(schema)
        if not isinstance(schema, dict) or not self.dialect_ok:
            return _table(_unknown)
        if any(key not in KEYWORDS for key in schema):
            return _table(_unknown)
        if schema is not self.root and "$id" in schema:
            return _table(_unknown)  # a nested resource would change how refs resolve
        if not schema.keys() & _ASSERTIONS:
            return _table(True)

        parts: list[Table] = []  # cheap ones first: constant entries resolve statically
        if "type" in schema:
            parts.append(_type_table(schema["type"]))
        if "const" in schema:
            parts.append(_enum_table([schema["const"]]))
        if "enum" in schema:
            parts.append(_enum_table(schema["enum"]))
        applied: list[Table] = []
        on_dict: list[Entry] = []
        if "$ref" in schema:
            applied.append(self.ref(schema["$ref"]))
        self._applicators(schema, applied, on_dict)
        obj = self._object(schema, on_dict)
        if obj is not None:
            parts.append(_only((dict,), obj))
        arr = self._array(schema)
        if arr is not None:
            parts.append(_only((list,), arr))
        text = _string(schema)
        if text is not None:
            parts.append(_only((str,), text))
        num = _number(schema)
        if num is not None:
            parts.append(_only((int, float), num))
        return _per_class(_and, parts + applied)

    def _members(self, members: Any) -> list[Table] | None:
        if not isinstance(members, list) or not members:
            return None
        return [self.node(member) for member in members]

    def _applicators(
        self, schema: dict[str, Any], applied: list[Table], on_dict: list[Entry]
    ) -> None:
        """allOf (with discriminated unions), anyOf, oneOf, not and if/then/else."""
        if "allOf" in schema:
            members = schema["allOf"]
            if not isinstance(members, list) or not members:
                applied.append(_table(_unknown))
            else:
                self._all_of(members, applied, on_dict)
        for keyword, combine in (("anyOf", _any), ("oneOf", _one)):
            if keyword in schema:
                tables = self._members(schema[keyword])
                if tables is None:
                    applied.append(_table(_unknown))
                else:
                    applied.append(_per_class(combine, tables))
        if "not" in schema:
            negated = self.node(schema["not"])
            applied.append({cls: _not(entry) for cls, entry in negated.items()})
        if "if" in schema and ("then" in schema or "else" in schema):
            cond = self.node(schema["if"])
            then = self.node(schema.get("then", True))
            otherwise = self.node(schema.get("else", True))
            applied.append({cls: _if(cond[cls], then[cls], otherwise[cls]) for cls in _CLASSES})

    def _all_of(self, members: list[Any], applied: list[Table], on_dict: list[Entry]) -> None:
        """allOf members; runs of ``if {P: const X} then S`` become one dict lookup on P."""
        unions: dict[str, list[tuple[Any, bool, Any]]] = {}
        for member in members:
            case = _union_case(member)
            if case is None:
                applied.append(self.node(member))
            else:
                prop, const, typed, then = case
                unions.setdefault(prop, []).append((const, typed, then))
        for prop, cases in unions.items():
            by_value: dict[Any, list[Entry]] = {}
            untyped: list[Table] = []
            for const, typed, then in cases:
                table = self.node(then)
                by_value.setdefault(_canon(const), []).append(table[dict])
                if not typed:
                    untyped.append(table)
            on_dict.append(_dispatch(prop, {key: _and(e) for key, e in by_value.items()}))
            if untyped:
                # an "if" without "type": "object" holds for every non-object
                applied.append(
                    {
                        cls: True if cls is dict else _and(t[cls] for t in untyped)
                        for cls in _CLASSES
                    }
                )

    def _object(self, schema: dict[str, Any], on_dict: list[Entry]) -> Entry | None:
        """The object keywords (and ``on_dict``), for a value known to be a dict (None if none)."""
        props_schema = schema.get("properties", {})
        patterns_schema = schema.get("patternProperties", {})
        required = schema.get("required", [])
        if not isinstance(props_schema, dict) or not isinstance(patterns_schema, dict):
            return _unknown
        if not isinstance(required, list) or not all(isinstance(key, str) for key in required):
            return _unknown
        props = {key: self.node(sub) for key, sub in props_schema.items()}
        patterns = [(pattern, self.node(sub)) for pattern, sub in patterns_schema.items()]
        additional = (
            self.node(schema["additionalProperties"]) if "additionalProperties" in schema else None
        )
        extra: list[Entry] = []
        for keyword in ("minProperties", "maxProperties"):
            if keyword in schema:
                extra.append(_size(schema[keyword], keyword.startswith("min")))
        if "propertyNames" in schema:
            extra.append(self._property_names(schema["propertyNames"]))
        if "dependentRequired" in schema:
            extra.append(_dependent_required(schema["dependentRequired"]))
        if "dependentSchemas" in schema:
            extra.append(self._dependent_schemas(schema["dependentSchemas"]))
        extra.extend(on_dict)
        if not props and not patterns and additional is None and not required and not extra:
            return None
        need = tuple(dict.fromkeys(required))
        if patterns or additional is not None:
            return _object_check_general(need, props, patterns, additional, _and(extra))
        return _object_check(need, props, _and(extra))

    def _property_names(self, names_schema: Any) -> Entry:
        entry = self.node(names_schema)[str]  # JSON keys are strings
        if entry is True:
            return True
        if entry is False:
            return _reject_nonempty
        names = _fn(entry)

        def check_names(value: dict[str, Any]) -> bool:
            return all(map(names, value))

        return check_names

    def _dependent_schemas(self, dependent: Any) -> Check:
        if not isinstance(dependent, dict):
            return _unknown
        pairs = tuple((key, _fn(self.node(sub)[dict])) for key, sub in dependent.items())

        def check_dependent(value: dict[str, Any]) -> bool:
            for key, check in pairs:
                if key in value and not check(value):
                    return False
            return True

        return check_dependent

    # ------------------------------------------------------------------ arrays

    def _array(self, schema: dict[str, Any]) -> Entry | None:
        """The array keywords, for a value known to be a list (None if none)."""
        checks: list[Entry] = []
        prefix_schema = schema.get("prefixItems", [])
        if not isinstance(prefix_schema, list):
            return _unknown
        prefix = tuple(self.check(self.node(sub)) for sub in prefix_schema)
        if prefix:

            def check_prefix(value: list[Any]) -> bool:
                for check, item in zip(prefix, value, strict=False):
                    if not check(item):
                        return False
                return True

            checks.append(check_prefix)
        if "items" in schema:
            if isinstance(schema["items"], list):
                return _unknown  # the pre-2020 tuple form
            checks.append(self._items(self.node(schema["items"]), len(prefix)))
        for keyword in ("minItems", "maxItems"):
            if keyword in schema:
                checks.append(_size(schema[keyword], keyword.startswith("min")))
        if schema.get("uniqueItems") is True:
            checks.append(_unique)
        elif schema.get("uniqueItems", False) is not False:
            checks.append(_unknown)
        if "contains" in schema:
            checks.append(
                _contains(
                    self.check(self.node(schema["contains"])),
                    schema.get("minContains", 1),
                    schema.get("maxContains"),
                )
            )
        return _and(checks) if checks else None

    def _items(self, table: Table, start: int) -> Entry:
        if all(entry is True for entry in table.values()):
            return True
        if all(entry is False for entry in table.values()):

            def check_no_more(value: list[Any]) -> bool:
                return len(value) <= start

            return check_no_more
        items = self.check(table)
        if start:

            def check_rest(value: list[Any]) -> bool:
                for index in range(start, len(value)):
                    if not items(value[index]):
                        return False
                return True

            return check_rest

        def check_items(value: list[Any]) -> bool:
            return all(map(items, value))

        return check_items


def _reject_nonempty(value: dict[str, Any]) -> bool:
    return not value


def _contains(check: Check, at_least: Any, at_most: Any) -> Check:
    if not _is_number(at_least) or not (at_most is None or _is_number(at_most)):
        return _unknown

    def check_contains(value: list[Any]) -> bool:
        matches = sum(1 for item in value if check(item))
        return matches >= at_least and (at_most is None or matches <= at_most)

    return check_contains


def _table_check(table: Table) -> Check:
    """One function for a table; values of other classes than JSON's are not judged."""
    if all(isinstance(entry, bool) for entry in table.values()):
        accepted = frozenset(cls for cls, entry in table.items() if entry is True)
        if len(accepted) == 1 and next(iter(accepted)) in (dict, list, str, _NONE):
            # isinstance is exactly jsonschema's test for these types
            instance_check: Check = next(iter(accepted)).__instancecheck__
            return instance_check

        def check_classes(value: Any) -> bool:
            cls = value.__class__
            if cls in accepted:
                return True
            if cls in _KNOWN:
                return False
            raise _Unknown

        return check_classes
    get = table.get

    def check_table(value: Any) -> bool:
        entry = get(value.__class__, _unknown)
        if entry is True:
            return True
        if entry is False:
            return False
        return entry(value)

    return check_table


def _finish(table: Table) -> Check:
    """The public function: turns "cannot judge" (and runaway recursion) into False."""
    get = table.get

    def is_valid(value: Any) -> bool:
        entry = get(value.__class__, _unknown)
        if entry is True or entry is False:
            return entry
        try:
            return bool(entry(value))
        except Exception:  # _Unknown, RecursionError, or a value that is not JSON data
            return False

    return is_valid


def _def_pointer(name: str) -> str:
    return "/$defs/" + name.replace("~", "~0").replace("/", "~1")


def compile_schema(schema: Any) -> Check:
    """A fast ``is_valid`` for the whole ``schema`` document (its root), draft 2020-12.

    The returned function gives jsonschema's verdict, or False where it cannot judge.
    """
    return _finish(_Compiler(schema).node(schema))


def compile_definition(schema: dict[str, Any], name: str) -> Check:
    """A fast ``is_valid`` for ``schema["$defs"][name]``, resolving ``#/$defs/...`` refs.

    Raises KeyError when the schema has no such definition. The returned function gives
    jsonschema's verdict (as ``Draft202012Validator`` with the ``$defs`` entry as root),
    or False where it cannot judge (unsupported keywords, non-local refs, non-JSON values).
    """
    return compile_definitions(schema, [name])[name]


def compile_definitions(schema: dict[str, Any], names: Iterable[str]) -> dict[str, Check]:
    """Like :func:`compile_definition` for several names, sharing the compiled subschemas."""
    compiler = _Compiler(schema)
    definitions = schema.get("$defs")
    out: dict[str, Check] = {}
    for name in names:
        if not isinstance(definitions, dict) or name not in definitions:
            raise KeyError(name)
        out[name] = _finish(compiler.pointer(_def_pointer(name)))
    return out
