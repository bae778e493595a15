"""Questions to a schema walked by hand: the nodes that describe a path, descriptions, allowed
values, consequences, line kinds and the pi version of an entry kind.

Most tests walk a small schema made for them (patched in as schema ``t``), so that each way
of reaching a node (``$ref``, ``properties``, ``additionalProperties``, ``items``,
``allOf``/``anyOf``/``oneOf``, ``if``/``then``) is asked about on its own; the last ones ask
the shipped schemas.
"""

from __future__ import annotations

from typing import Any

import pytest

from pi_lsp.core.schemas import schema
from pi_lsp.core.schemas.schema_info import (
    Consequence,
    allowed_values,
    consequence,
    description,
    line_kinds,
    nodes,
    since,
)

NEAR = {"severity": "error", "text": "near the reference"}
FAR = {"severity": "warning", "text": "on the definition"}
GONE = {"severity": "information", "text": "when it is missing"}

ROLE_USER = {"properties": {"role": {"const": "user"}}}
ROLE_BOT = {"properties": {"role": {"enum": ["assistant", "bot"]}}}

DEFS: dict[str, Any] = {
    "entry": {
        "description": "an entry",
        "x-pi-since": "1.0",
        "properties": {
            "type": {"const": "entry"},
            "id": {"$ref": "#/$defs/id", "x-pi-consequence": NEAR},
            "plain": {"$ref": "#/$defs/id"},
            "far": {"$ref": "#/$defs/alias"},
            "tags": {"items": {"$ref": "#/$defs/tag"}},
            "meta": {"additionalProperties": {"description": "any meta", "enum": [1, 2]}},
            "open": {"additionalProperties": True},
            "ext": {"$ref": "other.json#/x", "description": "elsewhere"},
            "gone": {"$ref": "#/$defs/nothing"},
            "loop": {"$ref": "#/$defs/loop"},
            "odd": {"$ref": 7, "description": "not a reference"},
            "flag": True,
            "message": {"$ref": "#/$defs/msg"},
            "twice": {"allOf": [{"$ref": "#/$defs/tag"}, {"$ref": "#/$defs/tag"}]},
            "both": {"enum": ["x", "y"], "const": "z"},
            "missing": {
                "x-pi-consequence-if-missing": GONE,
                "x-pi-consequence": NEAR,
            },
            "graded": {"$ref": "#/$defs/graded"},
            "bad": {"x-pi-consequence": "not an object", "$ref": "#/$defs/graded"},
        },
    },
    "id": {"description": "the id", "x-pi-consequence": FAR, "enum": ["i1"]},
    "alias": {"$ref": "#/$defs/id"},
    "tag": {"description": "a tag", "properties": {"name": {"description": "the tag's name"}}},
    "loop": {"$ref": "#/$defs/loop"},
    "graded": {"x-pi-consequence-if-missing": GONE, "x-pi-consequence": FAR},
    "msg": {
        "description": "a message",
        "properties": {"role": {"enum": ["user", "assistant"]}},
        "allOf": [
            {"if": ROLE_USER, "then": {"$ref": "#/$defs/user"}},
            {"if": ROLE_BOT, "then": {"$ref": "#/$defs/bot"}},
            {"if": {"properties": {"role": {"const": "system"}}}, "then": {"x-pi-since": "3.0"}},
            {"if": ROLE_USER},
            "not a branch",
            {
                "if": {"properties": {"tone": {"const": "loud"}, "role": {"const": "shout"}}},
                "then": {"properties": {"shouted": {"description": "shouting"}}},
            },
            {
                "if": {"properties": {"role": "no rule", "tone": {"enum": ["soft"]}}},
                "then": {"properties": {"soft": {"description": "softly"}}},
            },
            {"if": {"properties": "junk"}, "then": {"properties": {"any": {"description": "any"}}}},
            {
                "if": {"properties": {"role": {"const": "ghost"}}},
                "then": {"$ref": "#/$defs/nothing"},
            },
            {"if": {"properties": {"role": {"const": "yes"}}}, "then": True},
        ],
    },
    "user": {
        "x-pi-since": "2.0",
        "properties": {
            "content": {"description": "the prompt", "x-pi-consequence": NEAR},
            "role": {"const": "user"},
        },
        "if": {"properties": {"mood": {"const": "happy"}}},
        "then": {"properties": {"smile": {"description": "a smile"}}},
    },
    "bot": {
        "x-pi-since": 2,
        "properties": {
            "content": {"description": "the reply", "enum": ["r"], "x-pi-consequence": FAR}
        },
    },
    "plain": {"description": "a kind with nothing to say about its version"},
    "choice": {
        "anyOf": [
            {"properties": {"v": True}},
            {"properties": {"v": {"description": "first", "const": "a"}}},
            {"properties": {"v": {"enum": ["b", "a", "c"]}}},
        ],
        "oneOf": [
            {"properties": {"v": {"description": 5, "enum": ["d"]}}},
            {"properties": {"v": {"enum": "not a list"}}},
        ],
        "allOf": [{"properties": {"v": {"enum": ["e", "a"]}}}],
    },
    "after": {"x-pi-since": "4.0"},
}

ROOT: dict[str, Any] = {
    "$defs": DEFS,
    "allOf": [
        {"if": {"properties": {"type": {"const": "entry"}}}, "then": {"$ref": "#/$defs/entry"}},
        {"if": {"properties": {"type": {"const": "plain"}}}},
        {"if": {"properties": {"type": {"const": "entry"}}}},
        {"if": {"properties": {"type": {"enum": ["x"]}}}},
        {"if": {"properties": {"type": {"const": 5}}}},
        {"if": {"properties": {"type": "junk"}}},
        {"if": "junk"},
        {"if": {"properties": "junk"}},
        {"then": {}},
        "junk",
        {"if": {"properties": {"type": {"const": "after"}}}},
    ],
}


@pytest.fixture(autouse=True)
def made_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    real = schema.load_schema
    monkeypatch.setattr(schema, "load_schema", lambda key: ROOT if key == "t" else real(key))


def test_a_property_is_described_through_its_reference() -> None:
    assert nodes("t", "entry", ("id",)) == [DEFS["id"]]
    assert description("t", "entry", ("id",)) == "the id"
    assert description("t", "entry", ()) == "an entry"


def test_references_are_followed_to_the_end_of_a_chain() -> None:
    assert nodes("t", "entry", ("far",)) == [DEFS["id"]]
    assert description("t", "entry", ("far",)) == "the id"


def test_a_reference_outside_the_schema_s_definitions_is_the_node_itself() -> None:
    node = DEFS["entry"]["properties"]["ext"]
    assert nodes("t", "entry", ("ext",)) == [node]
    assert description("t", "entry", ("ext",)) == "elsewhere"
    odd = DEFS["entry"]["properties"]["odd"]
    assert nodes("t", "entry", ("odd",)) == [odd]


def test_a_reference_to_no_definition_describes_nothing() -> None:
    assert nodes("t", "entry", ("gone",)) == []
    assert nodes("t", "entry", ("gone", "deeper")) == []
    assert description("t", "entry", ("gone",)) is None
    assert allowed_values("t", "entry", ("gone",)) == []
    assert consequence("t", "entry", ("gone",), {}) is None


def test_a_reference_loop_ends() -> None:
    assert nodes("t", "entry", ("loop",)) == [{"$ref": "#/$defs/loop"}]
    assert description("t", "entry", ("loop",)) is None


def test_an_unknown_definition_or_property_describes_nothing() -> None:
    assert nodes("t", "nope", ("id",)) == []
    assert nodes("t", "entry", ("nope",)) == []
    assert description("t", "entry", ("nope",)) is None
    assert nodes("t", "entry", ("id", "deeper")) == []


def test_array_items_are_described_by_items() -> None:
    assert nodes("t", "entry", ("tags", 0)) == [DEFS["tag"]]
    assert nodes("t", "entry", ("tags", 5, "name")) == [DEFS["tag"]["properties"]["name"]]
    assert nodes("t", "entry", ("tags", "name")) == []  # a key of an array: nothing
    assert nodes("t", "entry", ("meta", 0)) == []  # an index of an object: nothing


def test_other_keys_are_described_by_additional_properties() -> None:
    extra = DEFS["entry"]["properties"]["meta"]["additionalProperties"]
    assert nodes("t", "entry", ("meta", "anything")) == [extra]
    assert description("t", "entry", ("meta", "k")) == "any meta"
    assert allowed_values("t", "entry", ("meta", "k")) == [1, 2]
    assert nodes("t", "entry", ("open", "k")) == []  # additionalProperties: true says nothing


def test_a_listed_property_is_not_also_an_additional_one() -> None:
    node = {
        "properties": {"a": {"description": "listed"}},
        "additionalProperties": {"description": "other"},
    }
    DEFS["mixed"] = node
    try:
        assert description("t", "mixed", ("a",)) == "listed"
        assert nodes("t", "mixed", ("a",)) == [node["properties"]["a"]]
        assert nodes("t", "mixed", ("b",)) == [node["additionalProperties"]]
    finally:
        del DEFS["mixed"]


def test_a_node_reached_twice_is_described_once() -> None:
    assert nodes("t", "entry", ("twice",)) == [DEFS["entry"]["properties"]["twice"]]
    assert nodes("t", "entry", ("twice", "name")) == [DEFS["tag"]["properties"]["name"]]


def test_a_boolean_schema_is_a_node_with_nothing_to_say() -> None:
    assert nodes("t", "entry", ("flag",)) == [True]
    assert description("t", "entry", ("flag",)) is None
    assert allowed_values("t", "entry", ("flag",)) == []
    assert consequence("t", "entry", ("flag",), {}) is None
    assert nodes("t", "entry", ("flag", "x")) == []


def test_branches_without_an_instance_all_count() -> None:
    content = nodes("t", "entry", ("message", "content"))
    assert content == [DEFS["user"]["properties"]["content"], DEFS["bot"]["properties"]["content"]]
    assert description("t", "entry", ("message", "content")) == "the prompt"
    assert allowed_values("t", "entry", ("message", "content")) == ["r"]


@pytest.mark.parametrize(
    ("message", "wanted"),
    [
        ({"role": "user"}, "the prompt"),
        ({"role": "assistant"}, "the reply"),
        ({"role": "bot"}, "the reply"),
        ({"role": "other"}, None),
        ({}, "the prompt"),  # no role: every branch may apply
        ({"content": "x"}, "the prompt"),
        ("not an object", "the prompt"),
    ],
)
def test_the_instance_selects_the_branch_that_describes_it(
    message: Any, wanted: str | None
) -> None:
    line = {"type": "entry", "message": message}
    assert description("t", "entry", ("message", "content"), line) == wanted


def test_the_instance_is_followed_along_the_path() -> None:
    line = {"type": "entry", "tags": [{"name": "n"}], "message": {"role": "assistant"}}
    assert description("t", "entry", ("tags", 0, "name"), line) == "the tag's name"
    assert description("t", "entry", ("tags", 3, "name"), line) == "the tag's name"
    assert description("t", "entry", ("tags", -1, "name"), line) == "the tag's name"
    assert allowed_values("t", "entry", ("message", "content"), line) == ["r"]


@pytest.mark.parametrize(
    ("value", "wanted"),
    [
        ([{"role": "assistant"}], "the reply"),  # an index into a list
        ([], ["the prompt", "the reply"]),  # past the end: unknown, every branch
        ({"0": {"role": "assistant"}}, ["the prompt", "the reply"]),  # an index into an object
    ],
)
def test_an_index_steps_into_a_list_only(value: Any, wanted: Any) -> None:
    DEFS["list"] = {"properties": {"items": {"items": {"$ref": "#/$defs/msg"}}}}
    try:
        found = [
            n.get("description")
            for n in nodes("t", "list", ("items", 0, "content"), {"items": value})
            if isinstance(n, dict)
        ]
        assert found == ([wanted] if isinstance(wanted, str) else wanted)
    finally:
        del DEFS["list"]


def test_a_key_steps_into_an_object_only() -> None:
    DEFS["wrap"] = {"properties": {"m": {"$ref": "#/$defs/msg"}}}
    try:
        assert (
            description("t", "wrap", ("m", "content"), {"m": {"role": "assistant"}}) == "the reply"
        )
        assert (
            description("t", "wrap", ("m", "content"), {"x": {"role": "assistant"}}) == "the prompt"
        )
        assert description("t", "wrap", ("m", "content"), ["m"]) == "the prompt"
    finally:
        del DEFS["wrap"]


def test_allowed_values_are_the_union_over_branches_in_order() -> None:
    assert allowed_values("t", "choice", ("v",)) == ["e", "a", "b", "c", "d"]
    assert description("t", "choice", ("v",)) == "first"
    assert len(nodes("t", "choice", ("v",))) == 6
    assert allowed_values("t", "entry", ("both",)) == ["z"]  # const wins over enum
    assert allowed_values("t", "entry", ("id",)) == ["i1"]
    assert allowed_values("t", "entry", ("type",)) == ["entry"]
    assert allowed_values("t", "entry", ("tags",)) == []
    assert allowed_values("t", "entry", ("message", "role")) == ["user", "assistant"]


def test_the_consequence_next_to_a_reference_wins_over_the_definition_s() -> None:
    assert consequence("t", "entry", ("id",), {}) == Consequence("error", "near the reference")
    assert consequence("t", "entry", ("plain",), {}) == Consequence("warning", "on the definition")
    assert consequence("t", "entry", ("far",), {}) == Consequence("warning", "on the definition")
    assert consequence("t", "entry", ("tags",), {}) is None


def test_a_missing_value_has_its_own_consequence_when_graded() -> None:
    assert consequence("t", "entry", ("missing",), {}, missing=True) == Consequence(
        "information", "when it is missing"
    )
    assert consequence("t", "entry", ("missing",), {}) == Consequence("error", "near the reference")
    assert consequence("t", "entry", ("graded",), {}, missing=True) == Consequence(
        "information", "when it is missing"
    )
    assert consequence("t", "entry", ("id",), {}, missing=True) == Consequence(
        "error", "near the reference"
    )
    # a grade that is no object is no grade: the definition's counts
    assert consequence("t", "entry", ("bad",), {}) == Consequence("warning", "on the definition")


def test_a_grade_s_fields_are_read_as_text() -> None:
    DEFS["num"] = {"properties": {"n": {"x-pi-consequence": {"severity": 1}}}}
    try:
        assert consequence("t", "num", ("n",), {}) == Consequence("1", "None")
    finally:
        del DEFS["num"]


def test_line_kinds_are_the_type_constants_of_the_top_branches_once_each() -> None:
    assert line_kinds("t") == ["entry", "plain", "after"]


def test_a_schema_without_branches_has_no_line_kinds() -> None:
    branches = ROOT.pop("allOf")
    try:
        assert line_kinds("t") == []
    finally:
        ROOT["allOf"] = branches


@pytest.mark.parametrize(
    ("obj", "version"),
    [
        ({"type": "entry"}, "1.0"),
        ({"type": "after"}, "4.0"),
        ({"type": "plain"}, None),
        ({"type": "nope"}, None),
        ({"type": 5}, None),
        ({}, None),
        ("entry", None),
        (None, None),
    ],
)
def test_since_is_the_version_on_an_entry_kind_s_definition(obj: Any, version: str | None) -> None:
    assert since("t", obj) == version


def test_a_message_s_role_selects_its_version() -> None:
    DEFS["message"] = {"x-pi-since": "0.5", "properties": {"message": {"$ref": "#/$defs/msg"}}}
    try:
        assert since("t", {"type": "message", "message": {"role": "user"}}) == "2.0"
        assert since("t", {"type": "message", "message": {"role": "system"}}) == "3.0"
        # a branch without a version, or whose version is no string: the definition's
        assert since("t", {"type": "message", "message": {"role": "assistant"}}) == "0.5"
        assert since("t", {"type": "message", "message": {"role": "other"}}) == "0.5"
        assert since("t", {"type": "message", "message": "user"}) == "0.5"
        assert since("t", {"type": "message"}) == "0.5"
        # the role's branches count for messages only
        DEFS["other"] = {"x-pi-since": "0.1", "properties": {"message": {"$ref": "#/$defs/msg"}}}
        assert since("t", {"type": "other", "message": {"role": "user"}}) == "0.1"
    finally:
        del DEFS["message"]
        DEFS.pop("other", None)


# ----------------------------------------------------------------------------- the shipped schemas


def test_the_shipped_schemas_line_kinds() -> None:
    v3 = line_kinds("pi.3")
    assert v3[:2] == ["session", "message"]
    assert {"compaction", "branch_summary", "label", "context_edit", "usage"} <= set(v3)
    assert "context_edit" not in line_kinds("pi.2")


def test_an_assistant_message_s_content_is_described_by_the_assistant_branch() -> None:
    line = {"type": "message", "message": {"role": "assistant"}}
    assistant = description("pi.3", "message", ("message", "content"), line)
    user = description(
        "pi.3", "message", ("message", "content"), {"type": "message", "message": {"role": "user"}}
    )
    assert assistant is not None and user is not None and assistant != user
    assert "tool calls" in assistant
    assert "stop" in allowed_values("pi.3", "message", ("message", "stopReason"), line)


def test_a_definition_that_is_a_reference_is_resolved() -> None:
    assert nodes("t", "alias", ()) == [DEFS["id"]]
    assert description("t", "alias", ()) == "the id"


def _line(**message: Any) -> dict[str, Any]:
    return {"type": "entry", "message": message}


def test_a_condition_holds_only_when_every_listed_property_present_matches() -> None:
    shouted = ("message", "shouted")
    assert description("t", "entry", shouted, _line(role="shout", tone="loud")) == "shouting"
    assert description("t", "entry", shouted, _line(role="shout")) == "shouting"
    assert description("t", "entry", shouted, _line(role="user")) is None
    assert description("t", "entry", shouted, _line(role="shout", tone="soft")) is None
    soft = ("message", "soft")
    assert description("t", "entry", soft, _line(role="x", tone="soft")) == "softly"
    assert description("t", "entry", soft, _line(role="x", tone="loud")) is None


def test_a_condition_without_properties_always_holds() -> None:
    assert description("t", "entry", ("message", "any"), _line(role="user")) == "any"
    assert description("t", "entry", ("message", "any")) == "any"


def test_a_branch_inside_a_branch_is_chosen_by_the_same_instance() -> None:
    smile = ("message", "smile")
    assert description("t", "entry", smile, _line(role="user", mood="happy")) == "a smile"
    assert description("t", "entry", smile, _line(role="user", mood="sad")) is None
    assert description("t", "entry", smile, _line(role="assistant", mood="happy")) is None
    assert description("t", "entry", smile) == "a smile"


def test_the_instance_selects_the_branch_for_values_and_consequences() -> None:
    content = ("message", "content")
    assert allowed_values("t", "entry", content, _line(role="user")) == []
    assert allowed_values("t", "entry", content, _line(role="assistant")) == ["r"]
    assert consequence("t", "entry", content, _line(role="assistant")) == Consequence(
        "warning", "on the definition"
    )
    assert consequence("t", "entry", content, _line(role="user")) == Consequence(
        "error", "near the reference"
    )


@pytest.mark.parametrize(
    "message_node",
    [True, {"description": "no branches"}, {"allOf": [{"if": ROLE_USER}]}],
)
def test_a_message_without_role_branches_has_its_definition_s_version(message_node: Any) -> None:
    DEFS["message"] = {"x-pi-since": "0.5", "properties": {"message": message_node}}
    try:
        assert since("t", {"type": "message", "message": {"role": "user"}}) == "0.5"
    finally:
        del DEFS["message"]


@pytest.mark.parametrize("role", ["ghost", "yes"])
def test_a_role_branch_that_is_no_object_has_no_version(role: str) -> None:
    DEFS["message"] = {"x-pi-since": "0.5", "properties": {"message": {"$ref": "#/$defs/msg"}}}
    try:
        assert since("t", {"type": "message", "message": {"role": role}}) == "0.5"
    finally:
        del DEFS["message"]


def test_the_line_selects_the_message_s_definition_for_its_version() -> None:
    DEFS["message"] = {
        "x-pi-since": "0.5",
        "properties": {"message": {"$ref": "#/$defs/msg"}},
        "if": {"properties": {"flavour": {"const": "new"}}},
        "then": {"properties": {"message": {"$ref": "#/$defs/newmsg"}}},
    }
    DEFS["newmsg"] = {"allOf": [{"if": ROLE_USER, "then": {"x-pi-since": "5.0"}}]}
    try:
        line = {"type": "message", "message": {"role": "user"}}
        assert since("t", {**line, "flavour": "new"}) == "5.0"
        assert since("t", {**line, "flavour": "old"}) == "2.0"
    finally:
        del DEFS["message"], DEFS["newmsg"]


def test_a_long_chain_of_references_is_followed_to_its_end() -> None:
    for n in range(30):
        DEFS[f"hop{n}"] = {"$ref": f"#/$defs/hop{n + 1}"}
    DEFS["hop30"] = {"description": "the end"}
    try:
        assert description("t", "hop0", ()) == "the end"
    finally:
        for n in range(31):
            del DEFS[f"hop{n}"]


def test_a_loop_of_two_references_ends() -> None:
    DEFS["ping"] = {"$ref": "#/$defs/pong"}
    DEFS["pong"] = {"$ref": "#/$defs/ping"}
    try:
        assert nodes("t", "ping", ()) in ([DEFS["ping"]], [DEFS["pong"]])
        assert description("t", "ping", ()) is None
    finally:
        del DEFS["ping"], DEFS["pong"]


def test_a_branch_without_a_condition_always_applies() -> None:
    DEFS["open"] = {"then": {"properties": {"colour": {"description": "a colour"}}}}
    try:
        assert description("t", "open", ("colour",), {"colour": "red"}) == "a colour"
        assert description("t", "open", ("colour",)) == "a colour"
    finally:
        del DEFS["open"]
