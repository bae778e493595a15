"""A session file pi appends to is re-analysed from its old end, and reported as ``check`` does.

:meth:`WorkspaceReports.follow` (what ``didChangeWatchedFiles`` runs) keeps the analysis of
a file that changed; the next change that only appends lines (or completes the torn last
line) checks the new lines only (counted), and its diagnostics are those of a fresh report
of the file (:func:`disk_reports.report`, what a pull computes), which are those of
``pi-lsp check --format json``. A file rewritten in place is analysed in full.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.core.checks import analysis as pipeline
from pi_lsp.core.workspace.settings import Settings
from pi_lsp.lsp.disk_reports import report
from pi_lsp.lsp.workspace_reports import HOT, WorkspaceReports
from tests.core.pi_sessions import assistant, header, result, user


@pytest.fixture
def starts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The first line each analysis checks."""
    seen: list[int] = []
    original = pipeline._LinePass.checked

    def checked(run: Any, ctx: Any, parsed: Any, start: int = 0) -> Any:
        seen.append(start)
        return original(run, ctx, parsed, start)

    monkeypatch.setattr(pipeline._LinePass, "checked", checked)
    return seen


def _follow(reports: WorkspaceReports, path: Path) -> list[dict[str, Any]]:
    state = reports.follow(str(path), Settings(), "utf-16", 0)
    assert state is not None
    fresh = report(str(path), Settings(), "utf-16")
    assert state.items == fresh.items and state.stamp == fresh.stamp
    return state.items


def test_appends_on_disk_are_analysed_from_the_end(tmp_path: Path, starts: list[int]) -> None:
    path = tmp_path / "s.jsonl"
    lines = [header(3), user("u1", None), assistant("a1", "u1", calls=("c1",))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    reports = WorkspaceReports([tmp_path])
    assert [d["code"] for d in _follow(reports, path)] == ["PI421"]  # the call is running
    assert starts.pop() == 0
    with path.open("a", encoding="utf-8") as f:  # pi is writing the result: torn
        f.write(result("r1", "a1", "c1")[:30])
    assert [d["code"] for d in _follow(reports, path)] == ["PI421", "PI002"]
    assert starts[-2] == 2  # the follow checked from the old last line; the report from 0
    with path.open("a", encoding="utf-8") as f:  # the line completed, and a broken one
        f.write(result("r1", "a1", "c1")[30:] + "\n" + user("u2", "nope") + "\n")
    assert [d["code"] for d in _follow(reports, path)] == ["PI400"]
    assert starts[-2] == 3
    path.write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")  # rewritten: no append
    assert _follow(reports, path) == []
    assert starts[-2] == 0


def test_only_the_most_recently_changed_files_keep_an_analysis(tmp_path: Path) -> None:
    reports = WorkspaceReports([tmp_path])
    paths = [tmp_path / f"s{n}.jsonl" for n in range(HOT + 2)]
    for path in paths:
        path.write_text(header(3) + "\n" + user("u1", None) + "\n", encoding="utf-8")
        _follow(reports, path)
    assert list(reports.hot) == [str(p) for p in paths[-HOT:]]
    paths[-1].unlink()
    assert reports.follow(str(paths[-1]), Settings(), "utf-16", 0) is None
    assert str(paths[-1]) not in reports.hot and str(paths[-1]) not in reports.files


def test_a_pull_keeps_the_analysis_of_a_file_modified_lately(
    tmp_path: Path, starts: list[int]
) -> None:
    """A session written in the last minutes (pi is writing it) keeps its analysis at the
    pull, so its first append after it is checked from the old end; an older one does not."""
    live, old = tmp_path / "live.jsonl", tmp_path / "old.jsonl"
    for path in (live, old):
        path.write_text(header(3) + "\n" + user("u1", None) + "\n", encoding="utf-8")
    os.utime(old, (1_000_000_000, 1_000_000_000))
    reports = WorkspaceReports([tmp_path])
    done = {r.path: r for r in reports.analyse_all([str(old), str(live)], Settings(), "utf-16")}
    assert list(reports.hot) == [str(live)]
    assert done[str(live)] == report(str(live), Settings(), "utf-16")
    for path in (live, old):
        with path.open("a", encoding="utf-8") as f:
            f.write(user("u2", "nope") + "\n")
    starts.clear()
    assert [d["code"] for d in _follow(reports, live)] == ["PI400"]
    assert starts[0] == 1  # from the old last line; the fresh report then checks from 0
    starts.clear()
    assert [d["code"] for d in _follow(reports, old)] == ["PI400"]
    assert starts[0] == 0
