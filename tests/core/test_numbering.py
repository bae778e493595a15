"""Line numbers shown to the reader: 1-based, through the map to the text on screen."""

from __future__ import annotations

import threading

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.views.describe import entry_title
from pi_lsp.core.views.numbering import numbered, shown

from .pi_sessions import doc, entry, header, user

A, B = "a" * 8, "b" * 8


def test_without_a_map_line_n_is_shown_as_n_plus_one() -> None:
    assert [shown(n) for n in (0, 1, 41)] == [1, 2, 42]


def test_inside_numbered_lines_are_shown_where_the_map_puts_them() -> None:
    moved = {3: 10, 4: None}
    with numbered(moved.get):
        assert shown(3) == 11
        assert shown(4) == 5  # edited since: keeps its old number
        assert shown(0) == 1  # unknown to the map: the same
        with numbered(None):
            assert shown(3) == 4
        assert shown(3) == 11
    assert shown(3) == 4


def test_the_map_is_dropped_when_the_block_fails() -> None:
    with pytest.raises(RuntimeError), numbered(lambda n: n + 100):
        assert shown(0) == 101
        raise RuntimeError
    assert shown(0) == 1


def test_a_map_applies_to_its_own_thread_only() -> None:
    seen: list[int] = []
    with numbered(lambda n: n + 100):
        worker = threading.Thread(target=lambda: seen.append(shown(0)))
        worker.start()
        worker.join()
        assert shown(0) == 101
    assert seen == [1]


def test_views_name_lines_in_the_text_on_screen() -> None:
    text = doc(header(), user(A, None), entry("context_edit", B, A, targetId=A, replacement=None))
    a = analyze(text)
    assert entry_title(a, 2) == "context edit: omit → line 2"
    with numbered(lambda n: n + 5):
        assert entry_title(a, 2) == "context edit: omit → line 7"
