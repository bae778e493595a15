"""Completion contexts in half-typed lines, id items with previews, schema enum values."""

from __future__ import annotations

import pytest

from pi_lsp.core.analysis import analyze
from pi_lsp.core.complete import completions, value_context
from pi_lsp.core.model import Analysis

from .features_sample import LINES, PATH, TEXT

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
