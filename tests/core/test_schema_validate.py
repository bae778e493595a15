"""PI200's raw material: what `pi_lsp.core.schemas.schema` says about one line against its schema.

Each violation's path fixes the PI200 range and its problem is PI200's message, so these pin
the exact words and paths a user sees.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from pi_lsp.core.schemas import schema
from pi_lsp.core.schemas.schema import Violation, validate

TS = "2026-11-30T04:24:06.056Z"


def header(**fields: Any) -> dict[str, Any]:
    return {"type": "session", "version": 3, "id": "h", "timestamp": TS, **fields}


def level(value: Any) -> dict[str, Any]:
    return {
        "type": "thinking_level_change",
        "id": "a",
        "parentId": None,
        "timestamp": TS,
        "thinkingLevel": value,
    }


def test_schema_key_picks_the_format_and_clamps_the_version() -> None:
    assert schema.schema_key("book", 7) == "book.1"
    assert schema.schema_key("pi", 0) == "pi.1"
    assert schema.schema_key("pi", 1) == "pi.1"
    assert schema.schema_key("pi", 2) == "pi.2"
    assert schema.schema_key("pi", 3) == "pi.3"
    assert schema.schema_key("pi", 9) == "pi.3"


def test_schema_text_is_the_shipped_file_of_the_version() -> None:
    for version in (1, 2, 3):
        text = schema.schema_text(version)
        assert json.loads(text) == schema.load_schema(f"pi.{version}")
    assert json.loads(schema.schema_text(1, "book")) == schema.load_schema("book.1")
    assert "é" in schema.schema_text(3) or schema.schema_text(3).isascii()


def test_definitions_are_looked_up_by_line_kind() -> None:
    assert schema.has_definition("pi.3", "header")
    assert not schema.has_definition("pi.3", "no_such_kind")
    found = schema.definition("pi.3", "model_change")
    assert found is not None and "provider" in found["required"]
    assert schema.definition("pi.3", "no_such_kind") is None


def test_an_unknown_line_kind_is_not_validated() -> None:
    assert schema.validator("pi.3", "no_such_kind") is None
    assert validate("pi.3", "no_such_kind", {"anything": 1}) == []


def test_a_valid_line_has_no_violation() -> None:
    assert validate("pi.3", "header", header()) == []
    assert validate("pi.3", "thinking_level_change", level("high")) == []


def test_a_missing_property_is_named_with_the_parent_path() -> None:
    line = header()
    del line["timestamp"]
    assert validate("pi.3", "header", line) == [Violation((), "", "timestamp")]


def test_a_wrong_type_says_what_it_must_be_and_what_it_is() -> None:
    assert validate("pi.3", "header", header(version="3")) == [
        Violation(("version",), "must be an integer, not a string")
    ]
    assert validate("pi.3", "header", header(id=5)) == [
        Violation(("id",), "must be a string, not a number")
    ]
    assert validate("pi.3", "header", header(id=None)) == [
        Violation(("id",), "must be a string, not null")
    ]
    assert validate("pi.3", "header", header(id=True)) == [
        Violation(("id",), "must be a string, not a boolean")
    ]
    assert validate("pi.3", "header", header(id=[1])) == [
        Violation(("id",), "must be a string, not an array")
    ]
    assert validate("pi.3", "header", header(id={"a": 1})) == [
        Violation(("id",), "must be a string, not an object")
    ]
    assert validate("pi.3", "header", header(id=1.5)) == [
        Violation(("id",), "must be a string, not a number")
    ]


def test_a_type_list_is_worded_as_the_schema_writes_it() -> None:
    line = level("high")
    line["parentId"] = 5
    assert validate("pi.3", "thinking_level_change", line) == [
        Violation(("parentId",), "must be a string or null, not a number")
    ]


def test_a_wrong_enum_value_lists_the_allowed_ones() -> None:
    allowed = "'off', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'"
    assert validate("pi.3", "thinking_level_change", level("ultra")) == [
        Violation(("thinkingLevel",), f"must be one of {allowed}, not 'ultra'")
    ]


def test_a_long_enum_value_is_cut_short_in_the_message() -> None:
    value = "u" * 60
    [found] = validate("pi.3", "thinking_level_change", level(value))
    shown = repr(value)[:37] + "..."
    assert found.problem.endswith(f", not {shown}")
    exact = "v" * 38  # its repr is 40 characters: shown whole
    [whole] = validate("pi.3", "thinking_level_change", level(exact))
    assert whole.problem.endswith(f", not {exact!r}")


def test_a_deeply_nested_enum_value_is_named_by_its_kind() -> None:
    deep: Any = []
    for _ in range(3000):
        deep = [deep]
    [found] = validate("pi.3", "thinking_level_change", level(deep))
    assert found.path == ("thinkingLevel",)
    assert found.problem.endswith(", not an array")


def test_a_wrong_constant_says_what_it_must_be() -> None:
    assert validate("pi.3", "header", header(type="sesion")) == [
        Violation(("type",), "must be 'session'")
    ]


def test_other_keywords_quote_the_validator() -> None:
    [found] = validate("pi.3", "header", header(version=2))
    assert found.path == ("version",)
    assert found.problem.startswith("is invalid: ")
    assert "3" in found.problem


def test_a_long_validator_message_is_cut_at_200_characters() -> None:
    [found] = validate("pi.3", "header", header(version=-(10**300)))
    assert found.problem.startswith("is invalid: ")
    assert len(found.problem) == len("is invalid: ") + 200


def test_at_most_limit_violations_in_order() -> None:
    line = {"type": "session", "version": "3", "id": 5, "timestamp": 6, "cwd": 7}
    every = validate("pi.3", "header", line, limit=100)
    assert len(every) == 4
    assert validate("pi.3", "header", line, limit=2) == every[:2]
    assert validate("pi.3", "header", line, limit=1) == every[:1]
    assert validate("pi.3", "header", line) == every  # five by default


def test_the_default_limit_is_five() -> None:
    line = {
        "type": "session",
        "version": "3",
        "id": 5,
        "timestamp": 6,
        "cwd": 7,
        "provider": 8,
        "modelId": 9,
        "branchedFrom": 10,
    }
    assert len(validate("pi.3", "header", line, limit=100)) == 7
    assert len(validate("pi.3", "header", line)) == 5


def test_a_lone_surrogate_in_a_value_is_judged() -> None:
    assert validate("pi.3", "header", header(cwd="a\ud800")) == []
    assert validate("pi.3", "header", header(type="session\ud800")) == [
        Violation(("type",), "must be 'session'")
    ]


def test_a_lone_surrogate_in_a_key_keeps_the_lines_own_spelling() -> None:
    key = "x\udc80"
    line = level("high")
    line["thinkingLevel"] = {key: 1}
    line["parentId"] = {key: [1]}
    found = validate("pi.3", "thinking_level_change", line, limit=100)
    assert Violation(("parentId",), "must be a string or null, not an object") in found


def test_a_path_through_a_surrogate_key_is_the_lines_own() -> None:
    line: dict[str, Any] = {
        "type": "message",
        "id": "a",
        "parentId": None,
        "timestamp": TS,
        "message": {"role": "user", "content": "x", "timestamp": 1},
    }
    assert validate("pi.3", "message", line) == []
    line["message"] = {"role": "user", "content": [{"type": "text", "text": 5}], "timestamp": 1}
    [found] = validate("pi.3", "message", line, limit=100)
    assert found.path == ("message", "content", 0, "text")


def test_non_utf8_text_in_an_enum_value_is_shown_as_the_line_has_it() -> None:
    [found] = validate("pi.3", "thinking_level_change", level("hi\udcff"))
    assert found.problem.endswith(", not 'hi\\udcff'")


def test_non_ascii_text_is_judged_as_it_is() -> None:
    assert validate("pi.3", "header", header(cwd="/é")) == []
    assert validate("pi.3", "header", header(type="séssion")) == [
        Violation(("type",), "must be 'session'")
    ]
    [found] = validate("pi.3", "thinking_level_change", level("hé"))
    assert found.problem.endswith(", not 'hé'")


def test_an_infinite_number_is_a_number_not_null() -> None:
    assert validate("pi.3", "header", header(id=math.inf)) == [
        Violation(("id",), "must be a string, not a number")
    ]
    assert validate("pi.3", "header", header(id=-math.inf)) == [
        Violation(("id",), "must be a string, not a number")
    ]
    [found] = validate("pi.3", "header", header(version=-math.inf))
    assert found.path == ("version",) and found.problem.startswith("is invalid: ")
    assert found.problem.startswith("is invalid: -17976931348623157")


def test_a_deeply_nested_line_is_still_judged() -> None:
    deep: Any = 1
    for _ in range(300):
        deep = {"k": deep}
    assert validate("pi.3", "header", header(id=deep)) == [
        Violation(("id",), "must be a string, not an object")
    ]
    deep_list: Any = 1
    for _ in range(300):
        deep_list = [deep_list]
    assert validate("pi.3", "header", header(id=deep_list)) == [
        Violation(("id",), "must be a string, not an array")
    ]


@pytest.mark.parametrize("depth", [62, 63, 64, 65])
def test_containers_near_the_depth_cap(depth: int) -> None:
    inner: Any = {"k": "x" * 1}
    for _ in range(depth):
        inner = {"k": inner}
    line = level("high")
    line["extra"] = inner
    line["id"] = 5
    found = validate("pi.3", "thinking_level_change", line)
    assert Violation(("id",), "must be a string, not a number") in found


def system_line(sections: dict[str, Any]) -> dict[str, Any]:
    message = {"role": "system", "content": "", "sections": sections, "timestamp": 1}
    return {"type": "message", "id": "a", "parentId": None, "timestamp": TS, "message": message}


def test_a_violation_under_a_key_with_a_lone_surrogate_names_the_key_as_written() -> None:
    assert validate("pi.3", "message", system_line({"x\ud800": 5, "cwd": "/p"})) == [
        Violation(("message", "sections", "x\ud800"), "must be a string or null, not a number")
    ]


def test_a_violation_under_a_replacement_character_key_keeps_that_key() -> None:
    assert validate("pi.3", "message", system_line({"cwd": "/p", "x\ufffd": 5})) == [
        Violation(("message", "sections", "x\ufffd"), "must be a string or null, not a number")
    ]


def test_an_enum_value_of_41_characters_is_cut_short() -> None:
    value = "w" * 39  # its repr is 41 characters
    [found] = validate("pi.3", "thinking_level_change", level(value))
    assert found.problem.endswith(f", not {repr(value)[:37]}...")


def test_a_replacement_character_key_is_not_taken_for_a_surrogate_key_before_it() -> None:
    # a lone surrogate reads as three U+FFFD in the copy, as this key is spelled
    found = validate(
        "pi.3", "message", system_line(dict([("\ud800", "ok"), ("\ufffd\ufffd\ufffd", 6)]))
    )
    assert found == [
        Violation(
            ("message", "sections", "\ufffd\ufffd\ufffd"), "must be a string or null, not a number"
        )
    ]
