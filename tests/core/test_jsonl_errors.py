"""What the module makes of a broken line: the message and column of PI001 (`parse_line`,
`parse_deep`), and the members and elements of a line cut off or broken (`member_keys`,
`locate`)."""

from __future__ import annotations

import json
import math

import pytest

from pi_lsp.core.text.jsonl import Location, ParseError, locate, member_keys, parse_deep, parse_line


def test_a_constant_json_parse_refuses_is_named_at_its_column() -> None:
    assert parse_line("NaN") == (None, ParseError(0, "NaN is not valid JSON", False))
    assert parse_line("[1, -Infinity]") == (
        None,
        ParseError(4, "-Infinity is not valid JSON", False),
    )


def test_a_lone_surrogate_in_a_non_ascii_line_is_read_as_json_parse_reads_it() -> None:
    assert parse_line('{"a":"é\udcff"}') == ({"a": "é\udcff"}, None)


def test_a_non_ascii_line_parses() -> None:
    assert parse_line('{"é":"ü"}') == ({"é": "ü"}, None)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('{"a":1', ParseError(6, "Expecting ',' delimiter", True)),
        ("[1,]", ParseError(3, "Expecting value", False)),
        ('{"a" 1}', ParseError(5, "Expecting ':' delimiter", False)),
        ("1 2", ParseError(2, "Extra data", False)),
    ],
)
def test_a_broken_line_is_reported_with_the_parsers_message(text: str, error: ParseError) -> None:
    assert parse_line(text) == (None, error)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("[1,]", ParseError(3, "unexpected ']'", False)),
        ('{"a" 1}', ParseError(5, "expected ':'", False)),
        ("1 2", ParseError(2, "unexpected data after the value", False)),
        ("{1:2}", ParseError(1, "expected a string key", False)),
        ("[}", ParseError(1, "unexpected '}'", False)),
        ("}", ParseError(0, "unexpected '}'", False)),
        ("[1", ParseError(2, "unexpected end of data", True)),
        ("[1 x", ParseError(3, "unexpected character", False)),
        ('{"a"', ParseError(4, "expected ':'", True)),
        ('{"a" ', ParseError(5, "expected ':'", True)),
        ("[1 2]", ParseError(3, "expected ',' or a closing bracket", False)),
        ('{"a":1]', ParseError(6, "expected ',' or a closing bracket", False)),
        ("[1}", ParseError(2, "expected ',' or a closing bracket", False)),
        ('{"a":1 "b"}', ParseError(7, "expected ',' or a closing bracket", False)),
    ],
)
def test_the_deep_parser_reports_where_and_what(text: str, error: ParseError) -> None:
    assert parse_deep(text) == (None, error)


@pytest.mark.parametrize(
    "text",
    [
        "{}",
        "[]",
        ' { "a" : [ 1 , { } , [ ] ] , "b" : { "c" : null } } ',
        '{"a":{},"b":[{}],"c":{"d":{}}}',
        '[true,false,null,-1.5e3,"x\\u00e9\\n"]',
        '{"a":1,"a":2}',
        '"s"',
        "0",
    ],
)
def test_the_deep_parser_reads_a_value_as_json_parse_does(text: str) -> None:
    assert parse_deep(text) == (json.loads(text), None)


def test_a_line_nested_deeper_than_the_parsers_allow_is_read() -> None:
    text = "[" * 5000 + "{}" + "]" * 5000
    value, error = parse_line(text)
    assert error is None
    for _ in range(5000):
        assert isinstance(value, list) and len(value) == 1
        value = value[0]
    assert value == {}


def test_a_broken_line_nested_deeper_than_the_parsers_allow_is_reported() -> None:
    text = "[" * 5000 + "1,]" + "]" * 4999
    assert parse_line(text) == (None, ParseError(5002, "unexpected ']'", False))


def test_a_key_with_an_invalid_escape_is_listed_as_written() -> None:
    assert member_keys('{"a\\q":1}') == [("a\\q", (1, 6), (7, 8))]
    assert member_keys('{"a\\n":1}') == [("a\n", (1, 6), (7, 8))]


@pytest.mark.parametrize("text", ["", "   ", "[1]", "1"])
def test_a_line_that_is_no_object_has_no_members(text: str) -> None:
    assert member_keys(text) == []


@pytest.mark.parametrize(
    ("text", "at", "name"),
    [
        ('{"NaN":NaN}', 7, "NaN"),
        ('{"a":"say \\"Infinity\\" \\\\","b":-Infinity}', 31, "-Infinity"),
        ('["NaN", "-Infinity", Infinity]', 21, "Infinity"),
    ],
)
def test_a_constant_is_placed_past_strings_that_spell_one(text: str, at: int, name: str) -> None:
    assert text[at:].startswith(name)
    assert parse_line(text) == (None, ParseError(at, f"{name} is not valid JSON", False))


def test_an_integer_longer_than_pythons_digit_limit_is_infinity_as_json_parse_reads_it() -> None:
    # JSON.parse takes a number of any length; a 5,000-digit one is beyond a double
    digits = "1" * 5000
    assert parse_line(digits) == (math.inf, None)
    assert parse_line(f'{{"n":-{digits},"s":"\\ud800"}}') == ({"n": -math.inf, "s": "\ud800"}, None)
    deep = "[" * 5000 + digits + "]" * 5000
    value, error = parse_line(deep)
    assert error is None
    for _ in range(5000):
        value = value[0]
    assert value == math.inf
    assert parse_deep(f'{{"n":[{digits}]}}') == ({"n": [math.inf]}, None)


def test_an_integer_stays_an_integer_on_the_slow_paths() -> None:
    # a lone surrogate sends the line past orjson; its numbers still read as JSON.parse's
    value, error = parse_line('{"version":3,"big":12345678901234567890123,"s":"\\ud800"}')
    assert error is None
    assert value == {"version": 3, "big": 12345678901234567890123, "s": "\ud800"}
    assert type(value["version"]) is int and type(value["big"]) is int
    deep, error = parse_deep('{"version":3}')
    assert error is None and type(deep["version"]) is int


@pytest.mark.parametrize(
    ("text", "listed"),
    [
        ('{"a":1', ["a"]),  # cut off after a value
        ('{"a":1,', ["a"]),  # after a comma
        ('{"a":1,"b"', ["a"]),  # after a key
        ('{"a":1,"b"}', ["a"]),  # a key without a colon
        ('{"a":1,"b":', ["a"]),  # after a colon: no value, so no member
        ('{"a":1,"b":  ', ["a"]),
    ],
)
def test_a_cut_off_line_lists_the_members_before_the_cut(text: str, listed: list[str]) -> None:
    assert [key for key, _, _ in member_keys(text)] == listed
    assert member_keys(text)[0] == ("a", (1, 4), (5, 6))


@pytest.mark.parametrize(
    "text", ['{"a":[1,{"b":2', '{"a":[1,{"b":"x', '{"a":{"b":"x"', '{"a":"abc']
)
def test_a_value_cut_off_runs_to_the_end_of_the_line(text: str) -> None:
    assert member_keys(text) == [("a", (1, 4), (5, len(text)))]


def test_an_array_cut_off_has_the_elements_before_the_cut() -> None:
    for text in ('{"a":[1,"x"', '{"a":[1,"x",'):
        assert locate(text, ("a", 1)) == Location(None, (8, 11), 2)
        assert locate(text, ("a", 2)).depth == 1


def test_a_member_without_a_value_spans_the_character_where_it_was_due() -> None:
    # the walk stops there (what follows is no member), but never with an empty span
    assert member_keys('{"a":,"b":1}') == [("a", (1, 4), (5, 6))]
    assert member_keys('{"a":}') == [("a", (1, 4), (5, 6))]


@pytest.mark.parametrize("text", ["", "   ", "\ufeff"])
@pytest.mark.parametrize("path", [("type",), (0,), ("message", "content", 0)])
def test_a_blank_line_holds_nothing_at_any_path(text: str, path: tuple[str | int, ...]) -> None:
    loc = locate(text, path)
    assert (loc.key, loc.depth) == (None, 0)


def test_a_session_line_with_a_number_of_5000_digits_is_no_parse_error() -> None:
    # JSON.parse (so pi) reads the line: no PI001, and a deep line is no crash either
    from pi_lsp.core.checks.analysis import analyze
    from pi_lsp.core.entries.model import Options

    header = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}'
    entry = (
        '{"type":"custom","customType":"x","data":{"n":%s},"id":"a1b2c3d4","parentId":null,'
        '"timestamp":"2025-01-01T00:00:00.000Z"}'
    )
    for data in ("1" * 5000, "[" * 3000 + "1" * 5000 + "]" * 3000):
        analysis = analyze(f"{header}\n{entry % data}\n", None, Options())
        assert [f.code for f in analysis.findings if f.code.startswith("PI0")] == []


@pytest.mark.parametrize("text", ['{"a":[]}', '{"a":[ ]}', '{"a":{}}', '{"a":{ }}'])
def test_an_empty_array_or_object_holds_nothing(text: str) -> None:
    inner = text[5:-1]
    for path in (("a", 0), ("a", "b")):
        assert locate(text, path) == Location((1, 4), (5, 5 + len(inner)), 1)
    assert member_keys(text, ("a",)) == []
