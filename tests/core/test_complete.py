"""Completion contexts in half-typed lines, id items with previews, schema enum values."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.schemas import schema_info
from pi_lsp.core.views.complete import Item, ValueSlot, completions, value_context

from .features_sample import LINES, PATH, TEXT
from .pi_sessions import assistant, doc, header, user

A = analyze(TEXT, PATH)


@pytest.mark.parametrize(
    ("text", "path", "quoted"),
    [
        ('{"type":"message","parentId":"ab', ("parentId",), True),
        ('{"type":"message","parentId":', ("parentId",), False),
        ('{"type":"message","parentId": ', ("parentId",), False),
        ('{"type":"message","message":{"role":"a', ("message", "role"), True),
        ('{"message":{"content":[{"type":"', ("message", "content", 0, "type"), True),
        ('{"a":[1,2,{"b":"\\"q', ("a", 2, "b"), True),
        ('{"a":"\\\\","b":"', ("b",), True),
    ],
)
def test_contexts(text: str, path: tuple[object, ...], quoted: bool) -> None:
    ctx = value_context(text, len(text))
    assert ctx is not None and (ctx.path, ctx.quoted) == (path, quoted)


@pytest.mark.parametrize(
    "text",
    ['{"ty', '{"type":"x"', '{"type":"x",', "", "[1,", '{"a":1'],
)
def test_no_context_outside_values(text: str) -> None:
    assert value_context(text, len(text)) is None


def test_context_inside_a_complete_value_replaces_it_all() -> None:
    line = '{"type":"label","targetId":"abcd","x":1}'
    ctx = value_context(line, line.index("abcd") + 2)
    assert ctx is not None
    assert (ctx.start, ctx.end, ctx.entry_type) == (
        line.index("abcd"),
        line.index("abcd") + 4,
        "label",
    )
    assert value_context(line, line.index('"abcd"')) is None  # before the opening quote


def _with_line(text: str) -> tuple[Analysis, int]:
    a = analyze(TEXT + text + "\n", PATH)
    return a, len(LINES)


def test_parent_ids_nearest_first_with_previews() -> None:
    a, line = _with_line('{"type":"message","id":"n1","parentId":"')
    found = completions(a, line, len(a.lines[line]))
    labels = [item.label for item in found.items]
    assert labels[:3] == ["s1", "c1", "u2"]
    first = found.items[0]
    assert first.detail == 'session name: "My session"'
    assert first.documentation.startswith("line 10")
    assert (first.new_text, first.start, first.end) == (
        "s1",
        len(a.lines[line]),
        len(a.lines[line]),
    )
    assert not found.incomplete


def test_unquoted_value_gets_quotes() -> None:
    a, line = _with_line('{"type":"label","targetId":')
    found = completions(a, line, len(a.lines[line]))
    assert found.items[0].new_text == '"s1"'


def test_from_id_offers_root() -> None:
    a, line = _with_line('{"type":"branch_summary","fromId":"')
    found = completions(a, line, len(a.lines[line]))
    assert found.items[0].label == "root"


def test_tool_call_ids() -> None:
    a, line = _with_line('{"type":"message","message":{"role":"toolResult","toolCallId":"')
    found = completions(a, line, len(a.lines[line]))
    assert [(i.label, i.detail) for i in found.items] == [
        ("call_1", "assistant: → read(/src/a.ts)")
    ]


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ('{"type":"', ["message", "model_change", "thinking_level_change", "compaction"]),
        ('{"type":"message","message":{"role":"', ["user", "assistant", "toolResult"]),
        ('{"type":"message","message":{"role":"assistant","stopReason":"', ["stop", "length"]),
        ('{"type":"thinking_level_change","thinkingLevel":"', ["off", "minimal", "low"]),
    ],
)
def test_enum_values(typed: str, expected: list[str]) -> None:
    a, line = _with_line(typed)
    labels = [i.label for i in completions(a, line, len(typed)).items]
    assert labels[: len(expected)] == expected
    assert "pending" not in labels and "hookMessage" not in labels and "session" not in labels


def test_header_type_offers_the_header() -> None:
    a = analyze('{"type":"')
    assert [i.label for i in completions(a, 0, 9).items] == ["session"]


def test_block_type_follows_the_role_when_the_line_parses() -> None:
    line = LINES[3]
    col = line.index('"type":"toolCall"') + len('"type":"')
    labels = [i.label for i in completions(A, 3, col).items]
    assert labels == ["text", "thinking", "toolCall"]
    item = completions(A, 3, col).items[0]
    assert (item.start, item.end) == (col, col + len("toolCall"))
    # the description is the assistant's, not the user's ("text", "image")
    assert item.documentation == 'Kind of content block; one of "text", "thinking", "toolCall".'


# --- where the cursor is --------------------------------------------------------------


def _at_end(text: str) -> ValueSlot | None:
    return value_context(text, len(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # an unquoted value: the span is empty, at the cursor
        ('{"parentId":', ValueSlot(("parentId",), False, 12, 12, None)),
        ('{"type":"label","targetId":', ValueSlot(("targetId",), False, 27, 27, "label")),
        # the entry type is the top-level one, not a nested "type" or another field's value
        (
            '{"type":"message","id":"x","message":{"role":"user","content":[{"type":"',
            ValueSlot(("message", "content", 0, "type"), True, 72, 72, "message"),
        ),
        (
            '{"id":"x","message":{"type":"a","role":"',
            ValueSlot(("message", "role"), True, 40, 40, None),
        ),
        # arrays: the first element and the ones after a comma
        ('{"a":["', ValueSlot(("a", 0), True, 7, 7, None)),
        ('{"a":["x","', ValueSlot(("a", 1), True, 11, 11, None)),
        ('{"a":{"b":1},"c":"', ValueSlot(("c",), True, 18, 18, None)),
        ('{"x":{"a":{"b":1},"c":"', ValueSlot(("x", "c"), True, 23, 23, None)),
        # an unterminated string whose last character is an escaped quote is still open
        ('{"a":"x\\"', ValueSlot(("a",), True, 6, 9, None)),
        ('{"a":"\\"', ValueSlot(("a",), True, 6, 8, None)),
        ('{"a":"\\\\\\"', ValueSlot(("a",), True, 6, 10, None)),
        # what stands before the line's object does not count
        ('"stray" {"a":"', ValueSlot(("a",), True, 14, 14, None)),
        ('1, {"a":"', ValueSlot(("a",), True, 9, 9, None)),
        # a key that is not valid JSON is taken as written
        ('{"a\\q":"', ValueSlot(("a\\q",), True, 8, 8, None)),
    ],
)
def test_the_value_at_the_end_of_a_half_typed_line(text: str, expected: ValueSlot) -> None:
    assert _at_end(text) == expected


@pytest.mark.parametrize("after", ["", ",", "}", "]", "  ,", "\t}", ',"b":1}', "},", "]}"])
def test_an_empty_value_before_a_separator_is_completed(after: str) -> None:
    line = '{"a":' + after
    assert value_context(line, 5) == ValueSlot(("a",), False, 5, 5, None)


@pytest.mark.parametrize(
    "text",
    [
        '{"a":""',  # after a complete empty string
        '{"a":"\\\\"',  # after a complete string ending in an escaped backslash
        '{"a":{"b":1}',  # after a nested object
        '{"x":{"a":{"b":1}',
        '{"a":["x":"',  # a colon in an array makes no value
        '{"a":"x":"',  # nor one after a value
        '{"a":1,{"b":"',  # an object where a key should be
        "[",  # a top-level array gets no unquoted value
    ],
)
def test_no_value_is_being_typed(text: str) -> None:
    assert _at_end(text) is None


def test_inside_an_empty_string_the_span_is_empty() -> None:
    assert value_context('{"a":""', 6) == ValueSlot(("a",), True, 6, 6, None)


@pytest.mark.parametrize("after", ['"', "x", ":"])
def test_an_empty_value_before_other_text_is_not_completed(after: str) -> None:
    assert value_context('{"a":' + after, 5) is None


# --- what is offered -------------------------------------------------------------------


def _items(a: Analysis, line: int, text: str | None = None) -> list[Item]:
    typed = a.lines[line] if text is None else text
    return completions(a, line, len(typed), text).items


def test_an_id_item_names_the_entry_and_replaces_the_typed_value() -> None:
    a, line = _with_line('{"type":"message","id":"n1","parentId":"')
    end = len(a.lines[line])
    assert _items(a, line)[:2] == [
        Item(
            "s1",
            "id",
            'session name: "My session"',
            "line 10: My session",
            "s1",
            end,
            end,
            "000001",
        ),
        Item(
            "c1",
            "id",
            "compaction: we read a file",
            "line 9: we read a file",
            "c1",
            end,
            end,
            "000002",
        ),
    ]


@pytest.mark.parametrize(("typed", "new_text"), [('"', "root"), ("", '"root"')])
def test_from_id_offers_the_root_first(typed: str, new_text: str) -> None:
    a, line = _with_line('{"type":"branch_summary","fromId":' + typed)
    end = len(a.lines[line])
    root = Item(
        "root",
        "id",
        "the root",
        'fromId "root": the branch left from the root',
        new_text,
        end,
        end,
        "0",
    )
    assert _items(a, line)[:2] == [root, replace(_items(a, line)[1], label="s1")]
    assert [i.label for i in _items(a, line)].count("root") == 1


def test_ids_before_the_cursor_come_first_nearest_first_then_the_later_ones() -> None:
    typed = '{"type":"label","targetId":"'
    labels = [i.label for i in completions(A, 5, len(typed), typed).items]
    assert labels == ["r1", "a1", "u1", "m1", "b1", "u2", "c1", "s1"]


def test_a_long_id_is_clipped_in_the_label_but_inserted_whole() -> None:
    long_id = "x-" * 50
    a = analyze(doc(header(), user(long_id, None)) + '{"type":"label","targetId":"')
    (item,) = _items(a, 2)
    assert item.label == long_id[:79] + "…" and item.new_text == long_id


@pytest.mark.parametrize(("entries", "incomplete"), [(500, False), (501, True)])
def test_at_most_500_ids_are_offered(entries: int, incomplete: bool) -> None:
    lines = [user(f"e{n}", None) for n in range(entries)]
    a = analyze(doc(header(), *lines) + '{"type":"label","targetId":"')
    found = completions(a, entries + 1, len(a.lines[entries + 1]))
    assert len(found.items) == 500 and found.incomplete is incomplete
    assert found.items[-1].sort == "000500"


def _tool_result_typed(call: str = "") -> str:
    return '{"type":"message","message":{"role":"toolResult","toolCallId":"' + call


def test_a_tool_item_names_the_call_and_its_line() -> None:
    a, line = _with_line(_tool_result_typed())
    end = len(a.lines[line])
    assert _items(a, line) == [
        Item(
            "call_1",
            "tool",
            "assistant: → read(/src/a.ts)",
            "toolCall on line 4",
            "call_1",
            end,
            end,
            "000000",
        )
    ]
    a, line = _with_line('{"type":"message","message":{"role":"toolResult","toolCallId":')
    assert _items(a, line)[0].new_text == '"call_1"'


def test_tool_calls_before_the_cursor_come_first_nearest_first() -> None:
    text = doc(
        header(),
        assistant("a1", None, calls=("c1", "c2")),
        assistant("a2", "a1", calls=("c3",)),
        user("u1", "a2"),
        _tool_result_typed(),
        assistant("a3", "u1", calls=("c4",)),
        user("u2", "a3"),
        user("u3", "u2"),
        assistant("a4", "u3", calls=("c5", "c6")),
    )
    a = analyze(text)
    assert [i.label for i in _items(a, 4)] == ["c3", "c1", "c2", "c4", "c5", "c6"]
    assert [i.documentation for i in _items(a, 4)][:2] == [
        "toolCall on line 3",
        "toolCall on line 2",
    ]


def test_tool_calls_on_the_cursor_line_come_first() -> None:
    own = assistant("a2", "a1", calls=("c2",)).replace(
        '"stopReason"', '"toolCallId":"zz","stopReason"'
    )
    a = analyze(
        doc(
            header(),
            assistant("a1", None, calls=("c1",)),
            own,
            assistant("a3", "a2", calls=("c3",)),
        )
    )
    column = a.lines[2].index('"zz"') + 1
    assert [i.label for i in completions(a, 2, column).items] == ["c2", "c1", "c3"]


def test_a_long_tool_call_id_is_clipped_in_the_label() -> None:
    long_id = "t-" * 50
    a = analyze(doc(header(), assistant("a1", None, calls=(long_id,))) + _tool_result_typed())
    (item,) = _items(a, 2)
    assert item.label == long_id[:79] + "…" and item.new_text == long_id


@pytest.mark.parametrize(("calls", "incomplete"), [(500, False), (501, True)])
def test_at_most_500_tool_calls_are_offered(calls: int, incomplete: bool) -> None:
    ids = [f"call{n}" for n in range(calls)]
    turns = [assistant(f"a{n}", None, calls=tuple(ids[n : n + 5])) for n in range(0, calls, 5)]
    a = analyze(doc(header(), *turns) + _tool_result_typed())
    found = completions(a, len(turns) + 1, len(a.lines[len(turns) + 1]))
    assert len(found.items) == 500 and found.incomplete is incomplete


def test_an_enum_item_carries_the_field_and_its_description() -> None:
    typed = '{"type":"thinking_level_change","thinkingLevel":"'
    a = analyze(doc(header()) + typed)
    items = _items(a, 1)
    doc_text = schema_info.description("pi.3", "thinking_level_change", ("thinkingLevel",))
    assert doc_text and "max" in doc_text
    assert items[0] == Item(
        "off", "value", "thinkingLevel", doc_text, "off", len(typed), len(typed), "000000"
    )
    assert [i.label for i in items] == ["off", "minimal", "low", "medium", "high", "xhigh", "max"]
    assert items[-1].sort == "000006"
    unquoted = _items(analyze(doc(header()) + typed[:-1]), 1)
    assert unquoted[0].new_text == '"off"'


def test_type_values_are_described_as_line_kinds() -> None:
    a, line = _with_line('{"type":"')
    assert {i.documentation for i in _items(a, line)} == {
        "Line kind: the header or one entry type."
    }


def test_the_header_line_offers_the_header_type_and_its_own_values() -> None:
    a = analyze(doc(header(3, thinkingLevel="low"), user("u1", None)))
    column = a.lines[0].index('"session"') + 1
    assert [i.label for i in completions(a, 0, column).items] == ["session"]
    column = a.lines[0].index('"low"') + 1
    items = completions(a, 0, column).items
    # the header's thinkingLevel (pi 1.6 reads it from v1 headers only): no "max"
    assert [i.label for i in items] == ["off", "minimal", "low", "medium", "high", "xhigh"]
    assert items[0].documentation == "v1 only: thinking level at session start."


def test_an_unknown_entry_type_offers_the_values_of_every_kind() -> None:
    a = analyze(doc(header()) + '{"type":"bogus","thinkingLevel":"')
    items = _items(a, 1)
    # the header's values, then the thinking level change's "max"; the first description
    assert [i.label for i in items] == ["off", "minimal", "low", "medium", "high", "xhigh", "max"]
    assert items[0].documentation == "v1 only: thinking level at session start."
    roles = [
        i.label for i in _items(analyze(doc(header()) + '{"type":"bogus","message":{"role":"'), 1)
    ]
    assert roles[:3] == ["user", "assistant", "toolResult"]


def test_the_second_dialect_offers_its_own_line_kinds() -> None:
    book = '{"type":"session_header","version":1,"id":"s","created_at":"2025-01-01T00:00:00Z"}'
    a = analyze(book + '\n{"type":"')
    labels = [i.label for i in _items(a, 1)]
    assert labels[:3] == ["user_message", "assistant_message", "tool_call"]


def test_a_v2_file_offers_hook_message_but_never_pending() -> None:
    v2 = doc(header(2))
    roles = [i.label for i in _items(analyze(v2 + '{"type":"message","message":{"role":"'), 1)]
    assert "hookMessage" in roles and "system" not in roles
    stop = '{"type":"message","message":{"role":"assistant","stopReason":"'
    assert [i.label for i in _items(analyze(v2 + stop), 1)] == [
        "stop",
        "length",
        "toolUse",
        "error",
        "aborted",
    ]


@pytest.mark.parametrize(
    ("before", "header_kinds"),
    [
        ("", True),  # the first line
        ("\n", True),  # only a blank line before it
        ("{broken\n", True),  # nothing parsed before it
        ("[1]\n", False),  # a parsed line before it: an entry
    ],
)
def test_without_a_header_the_first_parsed_line_is_offered_the_header_type(
    before: str, header_kinds: bool
) -> None:
    a = analyze(before + '{"type":"\n' + user("u1", None) + "\n")
    line = before.count("\n")
    labels = [i.label for i in completions(a, line, 9).items]
    assert (labels == ["session"]) is header_kinds
    assert ("message" in labels) is not header_kinds


def test_a_line_edited_since_the_analysis_is_read_from_the_text_given() -> None:
    typed = '{"type":"message","message":{"role":"assistant","stopReason":"'
    items = completions(A, 7, len(typed), typed).items  # line 7 is a user message in A
    assert [i.label for i in items][:2] == ["stop", "length"]
    assert items[0].documentation.startswith("Why generation ended")


@pytest.mark.parametrize("line", [-1, 11, 12])
def test_no_completion_off_the_document(line: int) -> None:
    assert len(A.lines) == 11
    found = completions(A, line, 0)
    assert found.items == [] and not found.incomplete
