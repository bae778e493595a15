"""Per-line JSON with pi's notion of validity (JavaScript's JSON.parse), and spans in a line."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_lsp.core.text.jsonl import locate, member_keys, parse_deep, parse_line, skip_value

# ----------------------------------------------------------------------------- parse_line

DEEP = 20_000

# (input, JSON.parse accepts it)
VERDICTS: list[tuple[str, bool]] = [
    ('{"type":"message"}', True),
    (' {"a":1} ', True),
    ('{"a":1}\r', True),
    ("\t[1 ,\n2]\t", True),
    ("[]", True),
    ("{}", True),
    ("true", True),
    ("null", True),
    ('""', True),
    ("-0", True),
    ("0.5e-3", True),
    ("1E+2", True),
    # lone surrogate escapes: JSON.parse keeps them, orjson rejects them
    ('"\\ud800"', True),
    ('"\\udc00\\ud800"', True),
    ('{"text":"a\\udfffb"}', True),
    ('["\\uD83D\\uDE00"]', True),
    # numbers beyond a double are Infinity to JSON.parse, big integers lose precision
    ("1e400", True),
    ("-1e400", True),
    ('{"a":[1e999]}', True),
    ("12345678901234567890123456789", True),
    ("-98765432109876543210", True),
    # duplicate keys: the last one wins
    ('{"a":1,"a":2}', True),
    # U+2028 / U+2029 raw inside a string are fine
    ('"a\u2028b\u2029c\u0085d"', True),
    ('"\x7f"', True),
    ('"\\/"', True),
    ('{"":1}', True),
    ("[" * DEEP + "]" * DEEP, True),
    ('{"type":"x","v":' + "[" * DEEP + "]" * DEEP + "}", True),
    # rejected
    ("", False),
    ("   ", False),
    ("NaN", False),
    ("[NaN]", False),
    ('{"a":NaN}', False),
    ("Infinity", False),
    ("-Infinity", False),
    ('{"a":-Infinity}', False),
    ("[1,]", False),
    ("[1,2,]", False),
    ('{"a":1,}', False),
    ("{,}", False),
    ("[,1]", False),
    ("{'a':1}", False),
    ("['a']", False),
    ('"\\x41"', False),
    ('"\\U0041"', False),
    ('"\\u00"', False),
    ('"a\tb"', False),
    ('"\x00"', False),
    ('"a\nb"', False),
    ("01", False),
    ("1.", False),
    (".5", False),
    ("+1", False),
    ("0x10", False),
    ("1e", False),
    ("-", False),
    ("tru", False),
    ("True", False),
    ("None", False),
    ("undefined", False),
    ("1 2", False),
    ('{"a":1}x', False),
    ('{"a":1}}', False),
    ('{"a":1', False),
    ('{"a":1}\u00a0', False),
    ('{"a":1}\u2028', False),
    ("\ufeff{}", False),
    ('{"a":1}\x0c', False),
    ("\x0b{}", False),
    ('{"a" 1}', False),
    ("{a:1}", False),
    ("// c\n{}", False),
    ("[" * DEEP + "]" * (DEEP - 1), False),
    ('{"type":"x","v":' + "[" * DEEP + "]" * DEEP + ",}", False),
    ("[" * DEEP + "1," + "]" * DEEP, False),
    ('{"type":"x","v":' + "[" * DEEP + "]" * DEEP + ',"w":}', False),
]

def _ids(v: tuple[str, bool]) -> str:
    text = v[0] if len(v[0]) < 40 else f"{v[0][:20]}...{v[0][-4:]}({len(v[0])})"
    return ascii(text)


def _verdict_params() -> list[Any]:
    return [
        pytest.param(t, ok, id=_ids((t, ok))) for t, ok in VERDICTS
    ]


@pytest.mark.parametrize(("text", "accepted"), _verdict_params())
def test_parse_line_verdict(text: str, accepted: bool) -> None:
    value, error = parse_line(text)
    assert (error is None) == accepted, error
    if accepted:
        assert value is not None or text.strip() == "null"
    else:
        assert value is None
        assert error is not None and 0 <= error.offset <= len(text)


@pytest.fixture(scope="module")
def node_verdicts() -> list[bool]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH")
    script = (
        "const xs = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(xs.map(s => { try { JSON.parse(s); return true; }"
        " catch (e) { return false; } })));"
    )
    payload = json.dumps([t for t, _ in VERDICTS], ensure_ascii=True)
    out = subprocess.run(
        [node, "-e", script], input=payload, capture_output=True, text=True, check=True, timeout=60
    )
    verdicts: list[bool] = json.loads(out.stdout)
    return verdicts


@pytest.mark.parametrize(
    "index",
    [
        pytest.param(i, id=_ids(v))
        for i, v in enumerate(VERDICTS)
    ],
)
def test_parse_line_agrees_with_node(node_verdicts: list[bool], index: int) -> None:
    text, accepted = VERDICTS[index]
    assert node_verdicts[index] == accepted, "the table is wrong about JSON.parse"
    assert (parse_line(text)[1] is None) == node_verdicts[index]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a":1,"a":2}', {"a": 2}),
        ('"\\ud800"', "\ud800"),
        ('{"t":"x\\udc00y"}', {"t": "x\udc00y"}),
        ("1e400", math.inf),
        ("-1e400", -math.inf),
        ('["\\uD83D\\uDE00"]', ["😀"]),
        ('"a\u2028b"', "a\u2028b"),
    ],
)
def test_parse_line_values(text: str, expected: Any) -> None:
    assert parse_line(text) == (expected, None)


def test_big_integer_keeps_its_magnitude() -> None:
    value, error = parse_line("12345678901234567890123456789")
    assert error is None
    assert float(value) == pytest.approx(1.2345678901234568e28)


@pytest.mark.parametrize(
    ("text", "at"),
    [
        ('{"a":1,,"b":2}', ",,"),
        ('{"a":NaN}', "NaN"),
        ("[1,2,]", "]"),
        ("{'a':1}", "'"),
        ('{"a":1}x', "x"),
        ('{"😀":"日本",,}', ",,"),
        ('{"a":"\u2028",,}', ",,"),
    ],
)
def test_parse_error_offset_in_code_points(text: str, at: str) -> None:
    _, error = parse_line(text)
    assert error is not None
    want = text.index(at) + (1 if at == ",," else 0)
    assert error.offset == want
    assert error.at_end is False


@pytest.mark.parametrize(
    "text",
    ['{"type":"message","id":"a', '{"type":"message"', '{"a":[1,2', '{"a":', '{"a":"x\\', "["],
)
def test_parse_error_at_end_for_a_cut_off_line(text: str) -> None:
    _, error = parse_line(text)
    assert error is not None and error.at_end


# ----------------------------------------------------------------------------- deep nesting


@pytest.mark.parametrize("depth", [5_000, 20_000, 200_000])
def test_deep_valid_json(depth: int) -> None:
    text = "[" * depth + "]" * depth
    value, error = parse_line(text)
    assert error is None
    assert isinstance(value, list)
    nested = value
    for _ in range(depth - 1):
        assert isinstance(nested, list) and len(nested) == 1
        nested = nested[0]
    assert nested == []
    assert parse_deep(text)[1] is None


@pytest.mark.parametrize(
    ("text", "at_end"),
    [
        ("[" * DEEP, True),
        ("[" * DEEP + "]" * (DEEP + 1), False),
        ("[" * DEEP + "}" + "]" * DEEP, False),
        ("[" * DEEP + "1,]" + "]" * (DEEP - 1), False),
        ("[" * DEEP + "NaN" + "]" * DEEP, False),
    ],
    ids=["unclosed", "extra-close", "wrong-close", "trailing-comma", "nan"],
)
def test_deep_invalid_json(text: str, at_end: bool) -> None:
    value, error = parse_line(text)
    assert value is None and error is not None
    assert error.at_end is at_end


@pytest.mark.parametrize(
    "text",
    ['{"a":[1,{"b":null}],"c":"x"}', '[true,false,null,-1.5e3,"\\u0041"]', '{"":{}}', "  [ ]  "],
)
def test_parse_deep_agrees_with_parse_line_on_valid_json(text: str) -> None:
    value, error = parse_line(text)
    assert error is None
    assert parse_deep(text) == (value, None)


@pytest.mark.parametrize(
    "text",
    [
        "[1,]",
        '{"a":1,}',
        '{"a":}',
        '{"a" 1}',
        "[01]",
        '["\\x"]',
        "{1:2}",
        "[1]]",
        "[1,,2]",
        '{"a"}',
        '{"a":[}',
        "[1 2]",
        "{:1}",
        '"\\ud800',
    ],
)
def test_parse_deep_rejects_what_parse_line_rejects(text: str) -> None:
    assert parse_line(text)[1] is not None
    assert parse_deep(text)[1] is not None


# ----------------------------------------------------------------------------- locate


def span_text(text: str, span: tuple[int, int] | None) -> str | None:
    return None if span is None else text[span[0] : span[1]]


@pytest.mark.parametrize(
    ("text", "path", "key", "value", "depth"),
    [
        ('{"a":1,"b":{"c":[10,{"d":"x"}]}}', ("b", "c", 1, "d"), '"d"', '"x"', 4),
        ('{"a":1,"b":{"c":[10,{"d":"x"}]}}', ("b", "c"), '"c"', '[10,{"d":"x"}]', 2),
        ('{"a":1,"b":{"c":[10,{"d":"x"}]}}', ("b", "c", 0), None, "10", 3),
        # duplicate keys: the last one, as JSON.parse
        ('{"a":1,"a":2}', ("a",), '"a"', "2", 1),
        ('{"a":{"b":1},"a":{"c":2}}', ("a", "c"), '"c"', "2", 2),
        # the object that wins has no "b": the deepest found is the last "a"
        ('{"a":{"b":1},"a":{"c":2}}', ("a", "b"), '"a"', '{"c":2}', 1),
        # keys with escapes are compared decoded
        ('{"a\\u0062":1,"x":0}', ("ab",), '"a\\u0062"', "1", 1),
        ('{"ab":1,"a\\u0062":2}', ("ab",), '"a\\u0062"', "2", 1),
        ('{"\\"":1}', ('"',), '"\\""', "1", 1),
        ('{"a\\\\b":1}', ("a\\b",), '"a\\\\b"', "1", 1),
        # strings that look like structure
        ('{"x":"he said \\"}\\"","y":2}', ("y",), '"y"', "2", 1),
        ('{"a":["]","}",{"q":"]]"}],"b":-1.5e3}', ("b",), '"b"', "-1.5e3", 1),
        ('{"a":"[{\\\\","b":1}', ("b",), '"b"', "1", 1),
        # whitespace everywhere
        ('{ "a" : [ 1 , 2 , 3 ] , "b" : true }', ("a", 2), None, "3", 2),
        ('{ "a" : [ 1 , 2 , 3 ] , "b" : true }', ("b",), '"b"', "true", 1),
        ('{"a":null,"b":1}', ("a",), '"a"', "null", 1),
        ('{"a":{},"b":[],"c":""}', ("c",), '"c"', '""', 1),
        # arrays at the top
        ("[1,[2,3]]", (1, 0), None, "2", 2),
        # missing: the deepest existing item
        ('{"a":[1,2]}', ("a", 5), '"a"', "[1,2]", 1),
        ('{"a":{"b":1}}', ("a", "zz"), '"a"', '{"b":1}', 1),
        ('{"a":1}', ("zz",), None, '{"a":1}', 0),
        ('{"a":1}', (), None, '{"a":1}', 0),
        ('{"a":1}', (0,), None, '{"a":1}', 0),
        ('{"a":1}', ("a", "b"), '"a"', "1", 1),
        # non-ASCII before: offsets are code points
        ('{"😀":1,"b":"😀\u2028","c":2}', ("c",), '"c"', "2", 1),
        ('{"a":"\\ud800","b":1}', ("b",), '"b"', "1", 1),
        # a BOM in front of the line
        ('\ufeff{"a":1}', ("a",), '"a"', "1", 1),
    ],
)
def test_locate(
    text: str, path: tuple[str | int, ...], key: str | None, value: str, depth: int
) -> None:
    loc = locate(text, path)
    assert loc.depth == depth
    assert span_text(text, loc.key) == key
    assert span_text(text, loc.value) == value


def test_locate_after_a_huge_string_is_fast() -> None:
    import time

    text = '{"type":"message","data":"' + "A" * 5_000_000 + '","id":"x1"}'
    t = time.perf_counter()
    loc = locate(text, ("id",))
    elapsed = time.perf_counter() - t
    assert span_text(text, loc.value) == '"x1"'
    print(f"\nlocate after 5 MB: {elapsed:.3f}s")


def test_member_keys() -> None:
    text = '{"type":"m","message":{"role":"user","content":[1]},"id":"a"}'
    assert [k for k, _, _ in member_keys(text)] == ["type", "message", "id"]
    members = member_keys(text, ("message",))
    assert [(k, text[ks:ke], text[vs:ve]) for k, (ks, ke), (vs, ve) in members] == [
        ("role", '"role"', '"user"'),
        ("content", '"content"', "[1]"),
    ]
    assert member_keys(text, ("id",)) == []
    assert member_keys(text, ("nope",)) == []


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ('"abc",1', 0, 5),
        ('"a\\"b"]', 0, 6),
        ("[1,[2],{}],", 0, 10),
        ('{"a":"}"}x', 0, 9),
        ("-12.5e3,", 0, 7),
        ("true}", 0, 4),
        ("null ", 0, 4),
    ],
)
def test_skip_value(text: str, start: int, end: int) -> None:
    assert skip_value(text, start) == end


# every value inside any JSON object is found, whatever the formatting

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=8),
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.text(alphabet=st.characters(codec="utf-8"), max_size=5), inner, max_size=4
        )
    ),
    max_leaves=20,
)


def _paths(
    value: Any, prefix: tuple[str | int, ...] = ()
) -> list[tuple[tuple[str | int, ...], Any]]:
    out: list[tuple[tuple[str | int, ...], Any]] = [(prefix, value)]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_paths(v, (*prefix, i)))
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.text(max_size=5), _values, max_size=5),
    st.sampled_from([(",", ":"), (", ", ": "), (" , ", " : ")]),
    st.booleans(),
)
def test_locate_finds_every_value(
    obj: dict[str, Any], seps: tuple[str, str], ascii_only: bool
) -> None:
    text = json.dumps(obj, separators=seps, ensure_ascii=ascii_only)
    for path, value in _paths(obj):
        loc = locate(text, path)
        assert loc.depth == len(path)
        found = json.loads(text[loc.value[0] : loc.value[1]])
        assert found == value or (isinstance(value, float) and math.isclose(found, value))
        if path and isinstance(path[-1], str):
            assert loc.key is not None
            assert json.loads(text[loc.key[0] : loc.key[1]]) == path[-1]
