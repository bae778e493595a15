"""The format and version a header declares, read as pi reads them."""

from __future__ import annotations

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.header import read_header, whole_number
from pi_lsp.core.entries.lines import Kind, LineInfo

from .pi_sessions import SID, doc, header, js, user


@pytest.mark.parametrize(
    ("value", "number"),
    [(3, 3), (3.0, 3), (0, 0), (-2, -2), (-2.0, -2), (7, 7), (2.5, None), ("3", None),
     (True, None), (False, None), (None, None), ([3], None)],
)  # fmt: skip
def test_whole_numbers_as_javascript_sees_them(value: object, number: int | None) -> None:
    got = whole_number(value)
    assert got == number and type(got) is type(number)


@pytest.mark.parametrize(
    ("version", "read"),
    [(1, 1), (2, 2), (3, 3), (3.0, 3), (2.0, 2), (0, 1), (-4, 1), (4, 3), (99, 3)],
)
def test_the_version_is_clamped_to_the_ones_pi_knows(version: object, read: int) -> None:
    obj = {"type": "session", "version": version, "id": SID}
    assert read_header(obj, 2, None) == ("pi", read, 2)


def test_a_header_without_version_is_v1() -> None:
    assert read_header({"type": "session", "id": SID}, 0, None) == ("pi", 1, 0)


def test_the_second_dialect_is_told_by_its_header_type() -> None:
    obj = {"type": "session_header", "version": 7}
    assert read_header(obj, 4, None) == ("book", 1, 4)
    assert read_header(obj, 4, []) == ("book", 1, 4)


ENTRY = LineInfo(Kind.ENTRY, {"type": "message", "id": "a1"})
V1_ENTRY = LineInfo(Kind.ENTRY, {"type": "message"})
OTHER_WITH_ID = LineInfo(Kind.OTHER, {"id": "a1"})


@pytest.mark.parametrize("version", ["3", 2.5, None, True, [3]])
def test_a_version_that_is_no_number_is_told_by_the_entries(version: object) -> None:
    obj = {"type": "session", "version": version, "id": SID}
    with pytest.raises(LookupError):
        read_header(obj, 0, None)  # it needs every line
    assert read_header(obj, 0, [LineInfo(Kind.HEADER, obj), V1_ENTRY, ENTRY]) == ("pi", 3, 0)
    assert read_header(obj, 0, [LineInfo(Kind.HEADER, obj), V1_ENTRY]) == ("pi", 1, 0)
    # only entries count: an id elsewhere does not make the file v3
    assert read_header(obj, 0, [LineInfo(Kind.HEADER, obj), OTHER_WITH_ID]) == ("pi", 1, 0)
    assert read_header(obj, 0, []) == ("pi", 1, 0)


def test_a_string_version_reads_as_the_entries_say() -> None:
    head = js({"type": "session", "version": "3", "id": SID, "timestamp": "t", "cwd": "/"})
    with_ids = analyze(doc(head, user("a" * 8, None)))
    without = analyze(doc(head, user(None, False)))
    assert (with_ids.fmt, with_ids.version) == ("pi", 3)
    assert (without.fmt, without.version) == ("pi", 1)
    assert analyze(doc(header(0), user(None, False))).version == 1
    v3_float = js({"type": "session", "version": 3.0, "id": SID, "timestamp": "t", "cwd": "/"})
    assert analyze(doc(v3_float, user(None, False))).version == 3
