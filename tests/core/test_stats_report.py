"""``stats_report``: date bounds, which file keeps a copied entry, the breakdowns, and the
text, JSON and CSV a user reads (``pi-lsp stats``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.core.pi.stats import FileStats, read_file
from pi_lsp.core.workspace.stats_report import (
    build,
    file_json,
    groups,
    local_day,
    parse_bound,
    report_csv,
    report_json,
    report_text,
)

from .test_stats import HEADER, _assistant, _msg, _session, _usage, _user, _write


@pytest.fixture
def utc() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TZ", "UTC")
        time.tzset()
        yield
    time.tzset()


def _stamp(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


# ------------------------------------------------------------------------------ dates


def test_bounds_are_whole_local_days_or_exact_times(utc: None) -> None:
    assert parse_bound(" 2025-03-02 ") == _stamp("2025-03-02T00:00:00+00:00")
    assert parse_bound("2025-03-02", end=True) == _stamp("2025-03-03T00:00:00+00:00")
    assert parse_bound("2025-03-02T10:00:02+00:00", end=True) == _stamp("2025-03-02T10:00:02+00:00")


def test_local_day(utc: None) -> None:
    assert local_day(_stamp("2025-03-02T23:59:59+00:00")) == "2025-03-02"
    assert local_day(None) == "(no date)"


def _timed(tmp_path: Path) -> str:
    """Three assistant turns: one at 10:00:00, one at 10:00:01, one without any timestamp."""
    entries = [
        _msg("u1", None, _user("hi"), "2025-03-02T09:00:00.000Z"),
        _msg("a1", "u1", _assistant("one", _usage(1, 0, 1.0)), "2025-03-02T10:00:00.000Z"),
        _msg("a2", "a1", _assistant("two", _usage(2, 0, 2.0)), "2025-03-02T10:00:01.000Z"),
        {
            "type": "message",
            "id": "a3",
            "parentId": "a2",
            "message": _assistant("three", _usage(4, 0, 4.0)),
        },
    ]
    return _write(tmp_path / "t.jsonl", entries)


def test_a_range_includes_its_start_and_excludes_its_end(utc: None, tmp_path: Path) -> None:
    files = [read_file(_timed(tmp_path))]
    at = _stamp("2025-03-02T10:00:00+00:00")
    assert build(files, at, at + 1).total().usage.cost == 1.0
    assert build(files, at + 1, None).total().usage.cost == 2.0
    assert build(files, None, at + 1).total().usage.cost == 1.0  # and the user message
    assert build(files, None, at + 1).total().user_messages == 1


def test_an_entry_without_a_time_counts_only_without_a_range(utc: None, tmp_path: Path) -> None:
    files = [read_file(_timed(tmp_path))]
    assert build(files).total().usage.cost == 7.0
    assert build(files, 0.0, None).total().usage.cost == 3.0
    days = {g.key: g.totals.usage.cost for g in groups(build(files), "day")}
    assert days == {"(no date)": 4.0, "2025-03-02": 3.0}
    assert list(days) == sorted(days)


# ---------------------------------------------------------- which file keeps a copy


def _copies(tmp_path: Path, first: dict[str, Any], second: dict[str, Any]) -> tuple[str, str]:
    """Two files holding the same entries (same ids and timestamps), with these headers."""
    entries = _session()[:3]
    a = _write(tmp_path / "b-first.jsonl", entries, {**HEADER, **first})
    b = _write(tmp_path / "a-second.jsonl", entries, {**HEADER, **second})
    return a, b


def test_a_copy_counts_in_the_file_created_first(tmp_path: Path) -> None:
    older, newer = _copies(
        tmp_path,
        {"timestamp": "2025-03-01T09:00:00.000Z"},
        {"timestamp": "2025-03-01T09:00:01.000Z"},
    )
    report = build([read_file(newer), read_file(older)])
    assert [(Path(fr.stats.path).name, fr.copies, len(fr.kept)) for fr in report.files] == [
        ("a-second.jsonl", 3, 0),
        ("b-first.jsonl", 0, 3),
    ]


def test_files_created_at_once_keep_copies_by_path(tmp_path: Path) -> None:
    a, b = _copies(tmp_path, {}, {})
    report = build([read_file(a), read_file(b)])
    assert {Path(fr.stats.path).name: fr.copies for fr in report.files} == {
        "a-second.jsonl": 0,
        "b-first.jsonl": 3,
    }


def test_a_file_without_a_creation_time_keeps_no_copy(tmp_path: Path) -> None:
    dated, undated = _copies(
        tmp_path, {"timestamp": "2099-01-01T00:00:00.000Z"}, {"timestamp": None}
    )
    report = build([read_file(undated), read_file(dated)])
    assert [fr.copies for fr in report.files] == [3, 0]


def test_copies_name_the_file_that_counts_them(tmp_path: Path) -> None:
    """A fork of a fork: its copies are counted in two older files."""
    entries = _session()[:3]  # $0.51
    own = _msg("a9", "t1", _assistant("mine", _usage(1, 0, 2.0)), "2025-03-02T09:00:00.000Z")
    first = _write(tmp_path / "first.jsonl", entries)
    second = _write(tmp_path / "second.jsonl", [*entries, own], {**HEADER, "timestamp": "2025-03-02T00:00:00.000Z"})
    third = _write(tmp_path / "third.jsonl", [*entries, own], {**HEADER, "timestamp": "2025-03-03T00:00:00.000Z"})
    report = build([read_file(p) for p in (third, second, first)])
    places = [[(c.path, c.entries, c.cost) for c in fr.counted_in()] for fr in report.files]
    assert places == [[(first, 3, 0.51), (second, 1, 2.0)], [(first, 3, 0.51)], []]
    assert [fr.copies for fr in report.files] == [4, 3, 0]
    # within a date range, only the copies in it
    ranged = build([read_file(third), read_file(first)], _stamp("2025-03-02T00:00:00+00:00"), None)
    assert [fr.counted_in() for fr in ranged.files] == [[], []]


# ----------------------------------------------------------------------- breakdowns


def test_breakdown_by_session(tmp_path: Path) -> None:
    named = [
        *_session(),
        {
            "type": "session_info",
            "id": "n1",
            "parentId": "a4",
            "timestamp": "2025-03-03T00:00:00.000Z",
            "name": "Refactor",
        },
    ]
    path = _write(tmp_path / "s.jsonl", named)
    report = build([read_file(path)])
    (row,) = [g.as_json() for g in groups(report, "session")]
    assert list(row)[:3] == ["key", "id", "name"]
    assert (row["key"], row["id"], row["name"]) == (path, "s1", "Refactor")
    assert row["cost"] == report.total().usage.cost


def test_breakdown_by_branch_names_where_each_branch_leaves_the_path(tmp_path: Path) -> None:
    entries = [
        *_session(),
        _msg("r1", None, _user("a separate root")),
        _msg("r2", "r1", _assistant("again", _usage(1, 1, 0.5))),
    ]
    entries.append(_msg("z1", "a4", _user("leaf")))  # keep the original leaf's path active
    path = _write(tmp_path / "s.jsonl", entries)
    rows = [g.as_json() for g in groups(build([read_file(path)]), "branch")]
    assert [(r["key"], r["branch"], r["firstLine"], r["forkedAtLine"]) for r in rows] == [
        (f"{path}: active path", "active path", 2, None),
        (f"{path}: abandoned from line 5 (branching off line 4)", "abandoned", 5, 4),
        (f"{path}: abandoned from line 13 (a separate root)", "abandoned", 13, None),
    ]
    assert [r["path"] for r in rows] == [path] * 3
    assert [r["cost"] for r in rows][1:] == [1.0, 0.5]


def test_breakdown_by_model_costliest_first_unknown_named(tmp_path: Path) -> None:
    entries = [
        _msg("u1", None, _user("hi")),
        {
            "type": "message",
            "id": "a1",
            "parentId": "u1",
            "timestamp": "2025-03-01T10:00:00.000Z",
            "message": {**_assistant("cheap", _usage(1, 0, 0.5)), "provider": "b", "model": "m"},
        },
        {
            "type": "message",
            "id": "a2",
            "parentId": "a1",
            "timestamp": "2025-03-01T10:00:00.000Z",
            "message": {**_assistant("dear", _usage(1, 0, 2.0)), "provider": "z", "model": "m"},
        },
        {
            "type": "message",
            "id": "a3",
            "parentId": "a2",
            "timestamp": "2025-03-01T10:00:00.000Z",
            "message": {**_assistant("same", _usage(1, 0, 0.5)), "provider": "a", "model": "m"},
        },
    ]
    rows = groups(build([read_file(_write(tmp_path / "m.jsonl", entries))]), "model")
    assert [(g.key, g.totals.usage.cost) for g in rows] == [
        ("z/m", 2.0),
        ("a/m", 0.5),
        ("b/m", 0.5),
    ]
    nobody = [_msg("u1", None, _user("anyone there?"))]
    rows = groups(build([read_file(_write(tmp_path / "n.jsonl", nobody))]), "model")
    assert [(g.key, g.totals.user_messages) for g in rows] == [("(unknown)", 1)]


# ---------------------------------------------------------------------------- output


def test_file_json_of_an_unreadable_file_says_why(tmp_path: Path) -> None:
    fr = build([read_file(str(tmp_path / "gone.jsonl"))]).files[0]
    data = file_json(fr)
    assert data["error"].startswith("cannot read") and data["total"]["cost"] == 0
    ok = build([read_file(_write(tmp_path / "s.jsonl", _session()))]).files[0]
    assert "error" not in file_json(ok)


def test_file_json_series(tmp_path: Path) -> None:
    entries = [
        *_session(),
        _msg("a5", "a4", {"role": "assistant", "content": [], "provider": "p", "model": "m"}),
    ]
    path = _write(tmp_path / "s.jsonl", entries)
    data = file_json(build([read_file(path)]).files[0])
    assert (
        data["path"],
        data["id"],
        data["name"],
        data["version"],
        data["parentSession"],
        data["copies"],
    ) == (
        path,
        "s1",
        None,
        3,
        None,
        0,
    )
    assert [(t["line"], t["branch"], t["turn"], t["model"], t["cost"]) for t in data["turns"]] == [
        (3, 0, 1, "anthropic/claude", 0.5),
        (6, 1, 2, "anthropic/claude", 1.0),
        (10, 0, 2, "anthropic/claude", 0.0625),
        (12, 0, 3, "anthropic/claude", 0),
        (13, 0, 4, "p/m", 0),  # no usage: costs nothing
    ]
    assert data["turns"][0]["context"] == 120 and data["turns"][1]["pathCost"] == pytest.approx(
        1.51
    )
    assert data["branches"][1] == {
        "index": 1,
        "firstLine": 5,
        "forkedAtLine": 4,
        "forkedAtTurn": 1,
        "total": data["abandoned"],
        "copies": 0,
        "countedIn": [],
    }
    assert data["branchPoints"] == [{"line": 4, "branch": 0, "turn": 1, "children": 2}]


def test_report_json_names_its_breakdown(utc: None, tmp_path: Path) -> None:
    report = build([read_file(_write(tmp_path / "s.jsonl", _session()))])
    assert report_json(report, "day")["by"] == "day"
    assert [g["key"] for g in report_json(report, "day")["groups"]] == ["2025-03-01", "2025-03-02"]
    by_model = report_json(report, "model")
    assert by_model["by"] == "model"
    assert [g["key"] for g in by_model["groups"]] == [
        "anthropic/claude",
        "Tools/summaries",
        "openai/search",
    ]


def test_text_table(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.jsonl", _session()[:3])
    text = report_text(build([read_file(path), read_file(str(tmp_path / "gone.jsonl"))]), "model")
    assert text == (
        "model             user  assistant  results  calls  input  output  cache read  cache write     cost\n"
        "anthropic/claude     1          1        0      1    100      10           0            0  $0.5000\n"
        "Tools/summaries      0          0        1      0      5       0           0            0  $0.0100\n"
        + "-" * 98
        + "\n"
        + "total                1          1        1      1    105      10           0            0  $0.5100\n"
        + "1 session\n"
    )


def test_text_table_of_big_numbers(tmp_path: Path) -> None:
    entries = [
        _msg("u1", None, _user("hi")),
        _msg("a1", "u1", _assistant("x", _usage(1234567, 0, 1234.5))),
    ]
    text = report_text(build([read_file(_write(tmp_path / "s.jsonl", entries))]), "session")
    header, row = text.splitlines()[:2]
    assert header.startswith(
        "session" + " " * (len(str(tmp_path)) + len("/s.jsonl") - len("session")) + "  user"
    )
    assert row.endswith("  1,234,567       0           0            0  $1,234.5000")


def test_csv_rows(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.jsonl", _session()[:3])
    text = report_csv(build([read_file(path)]), "model")
    assert "\r" not in text and text.endswith("\n")
    assert text.splitlines() == [
        "model,userMessages,assistantMessages,toolResults,toolCalls,input,output,cacheRead,cacheWrite,cost",
        "anthropic/claude,1,1,0,1,100,10,0,0,0.5",
        "Tools/summaries,0,0,1,0,5,0,0,0,0.01",
        "total,1,1,1,1,105,10,0,0,0.51",
    ]


def test_an_empty_report_still_has_its_header_and_total() -> None:
    text = report_text(build([]), "session")
    lines = text.splitlines()
    assert lines[0].split() == [
        "session",
        "user",
        "assistant",
        "results",
        "calls",
        "input",
        "output",
        "cache",
        "read",
        "cache",
        "write",
        "cost",
    ]
    assert lines[1] == "-" * len(lines[0])
    assert lines[2].split() == ["total", "0", "0", "0", "0", "0", "0", "0", "0", "$0.0000"]
    assert lines[3:] == ["0 sessions"]


def test_keys_shorter_than_the_heading_are_padded_to_it() -> None:
    text = report_text(build([FileStats("x")]), "session")
    assert [line[:9] for line in text.splitlines()[:2]] == ["session  ", "x        "]


def test_a_session_created_at_the_epoch_is_the_oldest(tmp_path: Path) -> None:
    first, second = _copies(
        tmp_path,
        {"timestamp": "1970-01-01T00:00:00.000Z"},
        {"timestamp": "1970-01-01T00:00:00.500Z"},
    )
    report = build([read_file(second), read_file(first)])
    assert [fr.copies for fr in report.files] == [3, 0]
