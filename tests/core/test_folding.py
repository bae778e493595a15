"""Folding by turn: a user message and the entries below it that follow it in the file."""

from __future__ import annotations

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.views.describe import entry_title
from pi_lsp.core.views.folding import Fold, turn_folds

from .pi_sessions import assistant, doc, entry, header, user

A, B, C, D, E, F, G = (c * 8 for c in "abcdefg")


def folds(*lines: str) -> list[tuple[int, int]]:
    a = analyze(doc(header(), *lines))
    out = turn_folds(a)
    assert [f.title for f in out] == [entry_title(a, f.start) for f in out]
    return [(f.start, f.end) for f in out]


def test_a_turn_folds_over_its_entries_and_the_broken_lines_between_them() -> None:
    assert folds(
        user(A, None, "first"),  # 1
        assistant(B, A),
        "",
        "{broken",
        assistant(C, B),  # 5
        user(D, C, "second"),  # 6
        assistant(E, D),  # 7
        "",
        "{broken",
    ) == [(1, 5), (6, 7)]


def test_the_fold_is_titled_by_its_user_message() -> None:
    a = analyze(doc(header(), user(A, None, "what now?"), assistant(B, A)))
    assert turn_folds(a) == [Fold(1, 2, entry_title(a, 1))]
    assert "what now?" in turn_folds(a)[0].title


def test_a_user_message_alone_is_no_fold() -> None:
    assert folds(user(A, None), user(B, A), assistant(C, B)) == [(2, 3)]
    assert folds(assistant(A, None), user(B, A)) == []


def test_entries_before_the_first_user_message_fold_nowhere() -> None:
    assert folds(assistant(A, None), assistant(B, A), user(C, B), assistant(D, C)) == [(3, 4)]


def test_an_entry_of_another_branch_ends_the_turn_for_good() -> None:
    assert folds(
        user(A, None),  # 1
        assistant(B, A),  # 2
        entry("branch_summary", C, None, fromId=B, summary="s"),  # 3: a root of its own
        assistant(D, B),  # 4: below the user again, but the turn has ended
        assistant(E, D),
        user(F, E),  # 6
        entry("model_change", G, F, provider="p", modelId="m"),
    ) == [(1, 2), (6, 7)]
