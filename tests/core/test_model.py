"""What an Analysis answers about its lines (core/model.py): entries and full values,
spans, and an analysis resumed after a cancelled one."""

from __future__ import annotations

import pytest

import pi_lsp.core.analysis as analysis_module
from pi_lsp.core.analysis import analyze
from pi_lsp.core.model import HUGE_LINE, SLIM_KEEP, Cancelled

from .pi_sessions import doc, header, user

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


@pytest.mark.parametrize("length", [HUGE_LINE, HUGE_LINE + 1])
def test_a_huge_line_keeps_a_slim_entry_and_gives_its_full_value(length: int) -> None:
    line = huge_user(length)
    assert len(line) == length
    a = analyze(doc(header(), user(A, None), line))
    assert len(a.entry(2)["message"]["content"]) == SLIM_KEEP
    assert a.value(2)["message"]["content"] == "x" * (length - len(user(B, A, "")))


def test_a_line_just_under_huge_is_kept_whole() -> None:
    line = huge_user(HUGE_LINE - 1)
    a = analyze(doc(header(), user(A, None), line))
    assert a.entry(2)["message"]["content"] == a.value(2)["message"]["content"]
    assert len(a.entry(2)["message"]["content"]) > SLIM_KEEP


@pytest.mark.parametrize("padding", [0, HUGE_LINE])
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


@pytest.mark.parametrize("padding", [0, HUGE_LINE])
def test_value_of_a_header_after_a_bom_inside_the_file_is_none(padding: int) -> None:
    # only the first line may start with a BOM: pi cannot parse this one
    line = "\ufeff" + header(title="t" * padding)
    a = analyze(doc(header(), user(A, None), line, user(B, A)))
    assert a.entry(2) == {} and a.value(2) is None
