"""Per-line JSON parsing with pi's notion of validity, and lazy spans inside a line.

pi reads each line with JavaScript's ``JSON.parse``. :func:`parse_line` accepts exactly
what that accepts: orjson on the fast path, Python's ``json`` for the few inputs orjson
rejects but ``JSON.parse`` takes (lone surrogate escapes, numbers beyond a double), and an
iterative grammar check for nesting deeper than either parser's limit.

:func:`locate` finds the key and value of a JSON path inside a line's text without
parsing the whole line: it skips over values with regular expressions, so locating a
field after a 20 MB base64 string costs one regex scan.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import orjson

PathItem = str | int
JsonPath = Sequence[PathItem]

_WS = re.compile(r"[ \t\n\r]*")
JS_SPACE = re.compile(
    "[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]*"
)
"""What JavaScript's ``trim()`` removes (pi trims the whole file before splitting it)."""
_SCALAR = re.compile(r"[^,\]}\s]+")


class ParseError(NamedTuple):
    """Why a line is not valid JSON; ``offset`` is a code-point column in the line."""

    offset: int
    message: str
    at_end: bool


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _integer(digits: str) -> int | float:
    """An integer as ``JSON.parse`` reads it: any length (beyond Python's limit on the digits
    of an int, 4300 by default, it is far beyond a double: +-Infinity, as JavaScript has it)."""
    try:
        return int(digits)
    except ValueError:
        return float(digits)


_JS_LIKE = json.JSONDecoder(parse_constant=_reject_constant, parse_int=_integer, strict=True)


def parse_line(text: str, data: bytes | None = None) -> tuple[Any, ParseError | None]:
    """Parse one line as ``JSON.parse`` would; return ``(value, None)`` or ``(None, error)``.

    ``data``, when given, is ``text`` encoded as UTF-8 (``surrogatepass``), as a line stored
    as bytes already is.
    """
    try:
        # Parse UTF-8 bytes, not the str: orjson.loads(str) caches a UTF-8 copy inside every
        # non-ASCII str (+1x the line in memory for as long as the line lives) and is slower.
        if data is None:
            data = text.encode("utf-8", "surrogatepass") if not text.isascii() else None
        return orjson.loads(text if data is None else data), None
    except orjson.JSONDecodeError:
        pass
    try:
        return _JS_LIKE.decode(text), None
    except json.JSONDecodeError as exc:
        return None, _error(text, exc.pos, exc.msg)
    except ValueError as exc:  # NaN / Infinity
        pos = _constant_position(text)
        return None, _error(text, pos, str(exc))
    except RecursionError:
        return parse_deep(text)


_CONSTANT = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|(NaN|-?Infinity)')
"""A string (skipped: its text may spell a constant) or a constant ``JSON.parse`` refuses."""


def _constant_position(text: str) -> int:
    """Where the constant the decoder refused starts: the first one outside a string (the
    text before it is valid JSON, so its strings are whole)."""
    return next(m.start() for m in _CONSTANT.finditer(text) if m.group(1))


def _error(text: str, pos: int, msg: str) -> ParseError:
    stripped = len(text.rstrip(" \t\r\n"))
    # an unterminated string runs to the end of the line: the input simply stopped
    at_end = pos >= stripped or msg.startswith("Unterminated string")
    pos = min(pos, len(text))
    return ParseError(pos, msg, at_end)


_TOKEN = re.compile(
    r'(?P<s>"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*")'
    r"|(?P<n>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)"
    r"|(?P<l>true|false|null)|(?P<p>[{}\[\]:,])"
)
_LITERALS: dict[str, Any] = {"true": True, "false": False, "null": None}


def parse_deep(text: str) -> tuple[Any, ParseError | None]:
    """Parse JSON of any nesting depth without recursion (for what the parsers refuse).

    Same grammar and result as ``JSON.parse``; slower than orjson, so only used for lines
    nested deeper than the recursive parsers allow.
    """
    stack: list[Any] = []  # open containers
    keys: list[str | None] = []  # pending key of each open object
    pos = 0
    n = len(text)
    # states: "value" (a value is due), "first" (a value or a close is due: just opened),
    # "key" (a key or a close is due), "next" (',' or a close is due), "end"
    state = "value"
    result: Any = None
    while True:
        tok_start = _ws(text, pos)
        m = _TOKEN.match(text, tok_start)
        if m is None:
            if state == "end" and tok_start >= n:
                return result, None
            what = "unexpected character" if tok_start < n else "unexpected end of data"
            return None, _error(text, tok_start, what)
        pos = m.end()
        punct = m.group("p")
        if state == "end":
            return None, _error(text, tok_start, "unexpected data after the value")
        if state == "key":
            if punct == "}" and not stack[-1]:  # "{}" (after a comma a key is due)
                value: Any = stack.pop()
                keys.pop()
            elif m.group("s") is not None:
                pos = _ws(text, pos)
                if pos >= n or text[pos] != ":":
                    return None, _error(text, pos, "expected ':'")
                pos += 1
                keys[-1] = _JS_LIKE.decode(m.group("s"))
                state = "value"
                continue
            else:
                return None, _error(text, tok_start, "expected a string key")
        elif state == "next":
            if punct == ",":
                state = "key" if isinstance(stack[-1], dict) else "value"
                continue
            if punct not in ("}", "]") or (punct == "}") != isinstance(stack[-1], dict):
                return None, _error(text, tok_start, "expected ',' or a closing bracket")
            value = stack.pop()
            keys.pop()
        elif punct == "]" and state == "first":
            value = stack.pop()
            keys.pop()
        elif punct in ("{", "["):
            stack.append({} if punct == "{" else [])
            keys.append(None)
            state = "key" if punct == "{" else "first"
            continue
        elif punct is not None:
            return None, _error(text, tok_start, f"unexpected '{punct}'")
        elif m.group("l") is not None:
            value = _LITERALS[m.group("l")]
        else:
            value = _JS_LIKE.decode(m.group("s") or m.group("n"))
        # a complete value: attach it to its container, or finish
        if not stack:
            result = value
            state = "end"
        elif isinstance(stack[-1], dict):
            stack[-1][keys[-1]] = value
            state = "next"
        else:
            stack[-1].append(value)
            state = "next"


class Location(NamedTuple):
    """Where a JSON path lies inside a line (code-point offsets).

    ``depth`` counts the path items that were found; when it is shorter than the path,
    ``key``/``value`` describe the deepest item that exists.
    """

    key: tuple[int, int] | None
    value: tuple[int, int]
    depth: int


def _ws(s: str, i: int) -> int:
    return _WS.match(s, i).end()  # type: ignore[union-attr]  # matches everywhere


def _decode_key(token: str) -> str:
    if "\\" not in token:
        return token[1:-1]
    try:
        return str(json.loads(token))
    except ValueError:
        return token[1:-1]


def member_keys(
    text: str, path: JsonPath = ()
) -> list[tuple[str, tuple[int, int], tuple[int, int]]]:
    """The members of the object at ``path``: ``(key, key_span, value_span)`` in order."""
    loc = locate(text, path)
    if loc.depth != len(path) or loc.value[0] >= len(text) or text[loc.value[0]] != "{":
        return []
    return list(iter_members(text, loc.value[0]))


_BRACKET = re.compile(r"[{}\[\]]")


def scan_string(text: str, start: int) -> int:
    """The end of the JSON string whose quote is at ``start`` (``len(text)`` if unterminated).

    Same result as matching a string token, but jumps between quotes with ``str.find``,
    so a 50 MB string costs milliseconds instead of a regex walk over every character.
    """
    j = start + 1
    while True:
        q = text.find('"', j)
        if q < 0:
            return len(text)
        b = q - 1
        while text[b] == "\\":  # stops at the opening quote at the latest
            b -= 1
        if (q - 1 - b) % 2 == 0:
            return q + 1
        j = q + 1


def skip_value(text: str, start: int) -> int:
    """The end of the JSON value at ``start`` (valid JSON assumed; fast on huge strings)."""
    c = text[start]
    if c == '"':
        return scan_string(text, start)
    if c not in ("{", "["):
        m = _SCALAR.match(text, start)
        return m.end() if m else start + 1
    depth = 0
    pos = start
    n = len(text)
    while True:
        q = text.find('"', pos)
        end = q if q >= 0 else n
        for m in _BRACKET.finditer(text, pos, end):
            depth += 1 if m.group() in ("{", "[") else -1
            if depth == 0:
                return m.end()
        if q < 0:
            return n
        pos = scan_string(text, q)


def iter_members(text: str, start: int) -> Iterator[tuple[str, tuple[int, int], tuple[int, int]]]:
    """Lazily, the members of the object whose ``{`` is at ``start``: ``(key, key_span, value_span)``.

    Stops at the first thing that is not a well-formed member (tolerates broken lines).
    """
    if not 0 <= start < len(text) or text[start] != "{":
        return
    j = _ws(text, start + 1)
    while j < len(text) and text[j] == '"':
        k_end = scan_string(text, j)
        colon = _ws(text, k_end)
        if colon >= len(text) or text[colon] != ":":
            return
        v_start = _ws(text, colon + 1)
        if v_start >= len(text):
            return
        v_end = skip_value(text, v_start)
        yield _decode_key(text[j:k_end]), (j, k_end), (v_start, v_end)
        j = _ws(text, v_end)
        if j < len(text) and text[j] == ",":
            j = _ws(text, j + 1)
        else:
            return


def iter_elements(text: str, start: int) -> Iterator[tuple[int, int]]:
    """Lazily, the value spans of the array whose ``[`` is at ``start``."""
    if not 0 <= start < len(text) or text[start] != "[":
        return
    j = _ws(text, start + 1)
    while j < len(text) and text[j] != "]":
        end = skip_value(text, j)
        yield j, end
        j = _ws(text, end)
        if j < len(text) and text[j] == ",":
            j = _ws(text, j + 1)
        else:
            return


Span2 = tuple[int, int]

Walked = dict[tuple[int, bool], "dict[str, tuple[Span2, Span2]] | list[Span2]"]
"""The containers of one line already walked by :func:`locate`, by the offset of their
opening bracket (and whether it is an object): an object's members by key (the last of
duplicate keys), an array's element spans."""


def locate(text: str, path: JsonPath, walked: Walked | None = None) -> Location:
    """Find the key and value spans of ``path`` inside the JSON text of one line.

    Duplicate keys resolve to the last occurrence, as in ``JSON.parse``. The text is
    assumed to be valid JSON; on anything unexpected the deepest span found so far (at
    worst the whole line) is returned. ``walked``, kept between calls on the same text,
    makes each container be walked once: many paths into one long line (a finding on
    each of 1,000 tool calls) cost one walk, not one each.
    """
    if walked is None:
        walked = {}
    start = JS_SPACE.match(text).end()  # type: ignore[union-attr]  # matches everywhere
    value = (start, len(text.rstrip(" \t\r\n")))
    key: tuple[int, int] | None = None
    depth = 0
    for item in path:
        found: tuple[tuple[int, int] | None, tuple[int, int]] | None = None
        if isinstance(item, str):
            found = _members(text, value[0], walked).get(item)
        else:
            elements = _elements(text, value[0], walked)
            if 0 <= item < len(elements):
                found = (None, elements[item])
        if found is None:
            break
        key, value = found
        depth += 1
    return Location(key, value, depth)


def _members(text: str, start: int, walked: Walked) -> dict[str, tuple[Span2, Span2]]:
    """The members of the object at ``start``, walked once per ``walked``."""
    members = walked.get((start, True))
    if not isinstance(members, dict):
        members = {name: (k, v) for name, k, v in iter_members(text, start)}
        walked[(start, True)] = members
    return members


def _elements(text: str, start: int, walked: Walked) -> list[Span2]:
    """The element spans of the array at ``start``, walked once per ``walked``."""
    elements = walked.get((start, False))
    if not isinstance(elements, list):
        elements = list(iter_elements(text, start))
        walked[(start, False)] = elements
    return elements
