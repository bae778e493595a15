"""What `parse_line` and `parse_deep` say about a broken line: the message and column of PI001."""

from __future__ import annotations

import json

import pytest

from pi_lsp.core.jsonl import ParseError, member_keys, parse_deep, parse_line


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
