"""Selection ranges: each step grows around the cursor, from a string's contents to the line."""

from __future__ import annotations

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.views.selection import selection_spans

LINE = '{"type":"x","a":{"b":"xyz","e":""},"n":12}'
#        0         1         2         3         4
#        0123456789012345678901234567890123456789012
PADDED = '  {"k":[1,2]}  '
A = analyze(LINE + "\n" + PADDED + "\n\n{broken\n")

WHOLE = (0, len(LINE))
OBJECT_B = (16, 34)  # {"b":"xyz","e":""}
MEMBER_A = (12, 34)  # "a":{...}


def test_inside_a_string_the_contents_come_first() -> None:
    for column in (22, 23, 25):  # after the opening quote .. before the closing one
        assert selection_spans(A, 0, column) == [
            (22, 25),
            (21, 26),  # "xyz"
            (17, 26),  # "b":"xyz"
            OBJECT_B,
            MEMBER_A,
            WHOLE,  # the root object is the whole line: once
        ], column


def test_on_a_quote_the_string_itself_comes_first() -> None:
    for column in (21, 26):  # on the opening quote, just past the closing one
        assert selection_spans(A, 0, column) == [(21, 26), (17, 26), OBJECT_B, MEMBER_A, WHOLE]


def test_an_empty_string_has_empty_contents() -> None:
    assert selection_spans(A, 0, 32) == [(32, 32), (31, 33), (27, 33), OBJECT_B, MEMBER_A, WHOLE]


def test_on_a_key_the_key_then_its_member() -> None:
    assert selection_spans(A, 0, 18) == [(17, 20), (17, 26), OBJECT_B, MEMBER_A, WHOLE]


def test_a_number_has_no_contents() -> None:
    assert selection_spans(A, 0, 40) == [(39, 41), (35, 41), WHOLE]


def test_space_around_the_object_makes_the_line_one_more_step() -> None:
    assert selection_spans(A, 1, 7) == [(7, 12), (3, 12), (2, 13), (0, len(PADDED))]


def test_off_values_and_off_json_the_line_is_all() -> None:
    assert selection_spans(A, 0, 0) == [WHOLE]
    assert selection_spans(A, 0, 100) == [WHOLE]
    assert selection_spans(A, 2, 0) == [(0, 0)]  # blank
    assert selection_spans(A, 3, 2) == [(0, 7)]  # not JSON
    assert selection_spans(A, 4, 0) == [(0, 0)]  # after the last newline


def test_no_ranges_outside_the_document() -> None:
    assert selection_spans(A, -1, 0) == []
    assert selection_spans(A, 5, 0) == []
