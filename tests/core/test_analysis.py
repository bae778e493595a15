"""The analysis pipeline (core/analysis.py): which line is the header and what it says."""

from __future__ import annotations

import json

import pytest

from pi_lsp.core.analysis import analyze

from .pi_sessions import doc, header, js, user

A, B = "a" * 8, "b" * 8


def test_a_header_below_an_entry_still_gives_the_version() -> None:
    # pi refuses the file (PI100), but the entries are still checked as the version the
    # misplaced header names, not as the v1 an entry without ``version`` would imply
    a = analyze(doc(user(A, None), header(3), user(B, A)))
    assert (a.fmt, a.version, a.header_line) == ("pi", 3, 1)
    assert "PI100" in {f.code for f in a.findings}


def test_without_a_header_entries_with_ids_make_a_v3_session() -> None:
    a = analyze(doc(user(A, None), user(B, A)))
    assert (a.fmt, a.version, a.header_line) == ("pi", 3, None)


def test_without_a_header_entries_without_ids_make_a_v1_session() -> None:
    # an ``id`` on a line that is no entry (no ``type``) does not count
    a = analyze(doc(user(None, False), '{"id":"x"}', user(None, False)))
    assert (a.fmt, a.version, a.header_line) == ("pi", 1, None)


@pytest.mark.parametrize("above", [[], ["not json"]])
def test_a_header_whose_version_is_no_number_lets_the_entries_decide(above: list[str]) -> None:
    # on the first line, or below an invalid line (then every line is parsed first)
    top = js({**json.loads(header()), "version": "3"})
    line = len(above)
    a = analyze(doc(*above, top, user(A, None)))
    assert (a.version, a.header_line) == (3, line)
    a = analyze(doc(*above, top, user(None, False)))
    assert (a.version, a.header_line) == (1, line)
