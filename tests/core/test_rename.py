"""Renaming ids (core/edits/rename.py): tool calls with and without their other end, refusals
and their messages, and what cannot be renamed."""

from __future__ import annotations

import re

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.edits.rename import RenameError, prepare_rename, rename
from pi_lsp.core.text.textedit import apply_edits

from .pi_sessions import assistant, doc, entry, header, result, user

A, B, C, D, E = (c * 8 for c in "abcde")


def col(line: str, needle: str) -> int:
    """A column inside the first ``needle`` on ``line``."""
    return line.index(needle) + 1


LINES = [
    header(),
    user(A, None),
    assistant(B, A, calls=("call_1",)),
    assistant(C, B, calls=("call_2", "call_3")),
    result(D, C, "call_2"),
    result(E, D, "call_9"),  # answers no call (PI420)
]
TEXT = doc(*LINES)
AN = analyze(TEXT)


def renamed(line: int, needle: str, new: str) -> str:
    return apply_edits(TEXT, rename(AN, line, col(LINES[line], needle), new))


def test_rename_a_tool_call_without_a_result() -> None:
    out = renamed(2, '"call_1"', "call_x")
    assert out == TEXT.replace('"call_1"', '"call_x"')


def test_rename_a_tool_result_that_answers_no_call() -> None:
    out = renamed(5, '"call_9"', "call_x")
    assert out == TEXT.replace('"call_9"', '"call_x"')


def test_rename_a_tool_call_with_its_result_from_the_result() -> None:
    out = renamed(4, '"call_2"', "call_x")
    assert out == TEXT.replace('"call_2"', '"call_x"')
    assert out.count('"call_x"') == 2


def test_rename_to_a_tool_call_id_in_use_names_its_line() -> None:
    message = "tool call id 'call_3' is already used on line 4"
    with pytest.raises(RenameError, match=f"^{re.escape(message)}$"):
        rename(AN, 2, col(LINES[2], '"call_1"'), "call_3")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "an id cannot be empty"),
        ("root", '"root" is reserved: branch_summary fromId "root" means no entry'),
        (C, f"id '{C}' is already used on line 4"),
    ],
)
def test_entry_rename_refusals_say_why(name: str, message: str) -> None:
    with pytest.raises(RenameError, match=f"^{re.escape(message)}$"):
        rename(AN, 1, col(LINES[1], f'"{A}"'), name)


def test_rename_to_the_same_name_changes_nothing() -> None:
    assert rename(AN, 1, col(LINES[1], f'"{A}"'), A) == []
    assert rename(AN, 2, col(LINES[2], '"call_1"'), "call_1") == []


def test_nothing_to_rename_on_a_v1_index_or_a_session_file() -> None:
    lines = [
        header(None, parentSession="/tmp/parent.jsonl"),
        user(None, False),
        entry("compaction", None, False, summary="s", firstKeptEntryIndex=1, tokensBefore=1),
    ]
    a = analyze(doc(*lines))
    at = lines[2].index('"firstKeptEntryIndex":1') + len('"firstKeptEntryIndex":')
    assert prepare_rename(a, 2, at) is None and rename(a, 2, at, "x") == []
    at = col(lines[0], "/tmp/parent.jsonl")
    assert prepare_rename(a, 0, at) is None and rename(a, 0, at, "x") == []
