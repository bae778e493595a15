"""What an Analysis answers about its lines (core/entries/model.py): entries and full values,
spans, and an analysis resumed after a cancelled one."""

from __future__ import annotations

import json

import pytest

import pi_lsp.core.checks.analysis as analysis_module
from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.model import SLIM_KEEP, SLIM_LINE, Cancelled
from pi_lsp.core.pi.context import session_context
from pi_lsp.core.views.context_view import context_json

from .pi_sessions import doc, header, js, user

A, B = "a" * 8, "b" * 8


def huge_user(length: int) -> str:
    """A user entry of exactly ``length`` characters (one long text)."""
    line = user(B, A, "")
    return user(B, A, "x" * (length - len(line)))


def test_entry_and_value_outside_the_document_are_empty() -> None:
    a = analyze(doc(header(), user(A, None)))
    assert len(a.infos) == 3  # the empty line after the last terminator
    for line in (-1, 3, 4):
        assert a.entry(line) == {} and a.value(line) is None
    assert a.entry(0)["type"] == a.value(0)["type"] == "session"
    assert a.value(1)["id"] == A and a.value(2) is None


@pytest.mark.parametrize("length", [SLIM_LINE, SLIM_LINE + 1])
def test_a_huge_line_keeps_a_slim_entry_and_gives_its_full_value(length: int) -> None:
    line = huge_user(length)
    assert len(line) == length
    a = analyze(doc(header(), user(A, None), line))
    assert len(a.entry(2)["message"]["content"]) == SLIM_KEEP
    assert a.value(2)["message"]["content"] == "x" * (length - len(user(B, A, "")))


def test_a_line_just_under_huge_is_kept_whole() -> None:
    line = huge_user(SLIM_LINE - 1)
    a = analyze(doc(header(), user(A, None), line))
    assert a.entry(2)["message"]["content"] == a.value(2)["message"]["content"]
    assert len(a.entry(2)["message"]["content"]) > SLIM_KEEP


@pytest.mark.parametrize("padding", [0, SLIM_LINE])
def test_value_of_a_header_after_a_bom_is_the_header(padding: int) -> None:
    line = "\ufeff" + header(title="t" * padding)
    a = analyze(doc(line, user(A, None)))
    assert a.header_line == 0
    value = a.value(0)
    assert value is not None and value["type"] == "session"
    assert value.get("title", "") == "t" * padding


def test_span_of_is_the_value_of_the_path() -> None:
    line = user(A, None, "hi")
    a = analyze(doc(header(), line))
    span = a.span_of(1, ("message", "content"))
    assert (span.line, line[span.start : span.end]) == (1, '"hi"')


def test_a_resumed_analysis_checks_only_what_the_cancelled_one_did_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = [header(), user(A, None)] + [user(f"{n:08x}", A, "w" * 50) for n in range(100)]
    text = doc(*lines)
    monkeypatch.setattr(analysis_module, "_TICK", 2000)
    with pytest.raises(Cancelled) as stopped:
        analyze(text, cancelled=lambda: True)
    finished = set(stopped.value.partial)
    assert 0 < len(finished) < len(lines)
    checked: list[str] = []
    check = analysis_module.check

    def counting(line: str, *args: object) -> object:
        checked.append(line)
        return check(line, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(analysis_module, "check", counting)
    resumed = analyze(text, partial=stopped.value)
    assert checked and not finished & set(checked)
    assert resumed.findings == analyze(text).findings


@pytest.mark.parametrize("padding", [0, SLIM_LINE])
def test_value_of_a_header_after_a_bom_inside_the_file_is_none(padding: int) -> None:
    # only the first line may start with a BOM: pi cannot parse this one
    line = "\ufeff" + header(title="t" * padding)
    a = analyze(doc(header(), user(A, None), line, user(B, A)))
    assert a.entry(2) == {} and a.value(2) is None


def test_a_long_line_cuts_its_texts_but_keeps_every_string_the_links_compare() -> None:
    # ids, roles, types, tool names and call ids stay whole however long; texts are cut
    call, name, ident = "c" * 5000, "n" * 5000, "i" * 5000
    content = [
        {"type": "text", "text": "t" * 5000},
        {"type": "thinking", "thinking": "h" * 5000},
        {"type": "toolCall", "id": call, "name": name, "arguments": {"path": "p" * 5000}},
    ]
    obj = {**json.loads(user(ident, A)), "message": {"role": "assistant", "content": content}}
    a = analyze(doc(header(), user(A, None), js(obj)))
    blocks = a.entry(2)["message"]["content"]
    assert a.entry(2)["id"] == ident and a.tree.id_of[2] == ident
    assert (blocks[2]["id"], blocks[2]["name"]) == (call, name)
    assert [len(b) for b in (blocks[0]["text"], blocks[1]["thinking"])] == [SLIM_KEEP] * 2
    assert len(blocks[2]["arguments"]["path"]) == SLIM_KEEP
    assert a.value(2) == obj


@pytest.mark.parametrize("space", [" ", "\n", "\ufeff", "\u3000"])
def test_a_cut_text_is_blank_exactly_when_the_whole_text_is(space: str) -> None:
    # JavaScript's trim() decides blankness: a run of its whitespace longer than the cut
    # is kept, with the first SLIM_KEEP characters after it
    run = space * (SLIM_LINE + 10)
    texts = [run, run + "x", run + "x" * SLIM_LINE]
    a = analyze(doc(header(), user(A, None), *(user(f"{n:08x}", A, t) for n, t in enumerate(texts))))
    kept = [a.entry(line)["message"]["content"] for line in (2, 3, 4)]
    assert kept == [run, run + "x", run + "x" * SLIM_KEEP]


def test_the_context_view_holds_whole_texts_of_long_lines() -> None:
    # the links read slim values; the context the user sees shows what pi sends, in full
    long = "w" * (2 * SLIM_LINE)
    summary = json.loads(user(B, A))
    del summary["message"]
    summary.update(type="branch_summary", summary=long)
    a = analyze(doc(header(), user(A, None, long), js(summary), user("c" * 8, B, "q")))
    assert len(a.entry(1)["message"]["content"]) == SLIM_KEEP
    texts = [m["text"] for m in context_json(session_context(a))["messages"]]
    assert texts[0] == long and long in texts[1] and texts[2] == "q"


@pytest.mark.parametrize("leaf", [1, 2])
def test_the_context_view_of_a_migrated_v1_file_holds_whole_texts(leaf: int) -> None:
    # a v1 file's ids are made up by the migration: both reads of the path share them
    long = "v" * (2 * SLIM_LINE)
    a = analyze(doc(header(None), user(None, False, long), user(None, False, "second")))
    messages = context_json(session_context(a, leaf_line=leaf))["messages"]
    assert [m["line"] for m in messages] == list(range(1, leaf + 1))
    assert messages[0]["text"] == long
