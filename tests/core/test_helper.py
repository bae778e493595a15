"""The line checks of a one-shot analysis on a forked helper (core/checks/helper.py): the same
findings as one process, taken only when the helper read what the analysis read."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.core.checks import helper
from pi_lsp.core.checks.analysis import analyze, analyze_file, line_issues, streamed_line_issues
from pi_lsp.core.entries.model import Analysis, Options
from pi_lsp.core.text.files import read_lines, stream_lines

from .pi_sessions import assistant, doc, header, hook, js, result, user

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"
SMALL = Options(large_line=300)


@pytest.fixture
def anywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """A helper for a file of any size, on any machine with ``os.fork``."""
    monkeypatch.setattr(helper, "HELPER_FROM", 0)
    monkeypatch.setattr(helper, "usable", lambda: True)


def _troubled() -> dict[str, str]:
    """Sessions whose lines have issues of every kind the line checks find."""
    long_text = "x" * 400  # over SMALL's large_line: PI500
    return {
        "line issues": "\ufeff"
        + doc(
            header(),
            user("a1", None),
            "{not json",  # PI001
            js({"type": "message", "id": "a2", "parentId": "a1", "message": {"role": 5}}),
            assistant("a3", "a2", text=long_text, calls=("c1",)),
            result("a4", "a3", "c1"),
            hook("a5", "a4"),  # PI301
            user("a6", "a5", text="caf\udce9"),  # an undecodable byte once written
            js({"type": "nonsense", "id": "a7", "parentId": "a6"}),  # PI004
            user("a8", "a7"),
            user("a8", "a7"),  # the same text twice: one result, the same issues
        )
        + "\u00a0",
        "header below": doc(user("b1", None), header(3), user("b2", "b1"), "[1, 2]"),
        "v1": doc(header(None), user(None, False), assistant(None, False, text=long_text)),
    }


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / (name.replace(" ", "-") + ".jsonl")
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return path


def _sessions(tmp_path: Path) -> list[Path]:
    paths = [_write(tmp_path, name, text) for name, text in _troubled().items()]
    if FIXTURES.is_dir():
        paths += sorted(FIXTURES.glob("*.jsonl"))
    return paths


def _same(a: Analysis, b: Analysis) -> None:
    assert [(f.code, f.span, f.message, f.severity) for f in a.findings] == [
        (f.code, f.span, f.message, f.severity) for f in b.findings
    ]
    assert [info.issues for info in a.infos] == [info.issues for info in b.infos]


def test_line_issues_are_those_of_a_one_shot_analysis(tmp_path: Path) -> None:
    for path in _sessions(tmp_path):
        split = read_lines(path)
        whole = analyze(split, str(path), SMALL, reuse=False)
        ctx, found = line_issues(split, SMALL)
        assert ctx == whole.context
        assert found == {i: info.issues for i, info in enumerate(whole.infos) if info.issues}


EDGES = {
    "blank lines first": "\n  \n" + doc(header(), user("a1", None), "{not json") + "\n\n",
    "header only": header(),
    "no final line feed": doc(header(), user("a1", None), "{not json").rstrip("\n"),
    "one line, edge spaces": "\ufeff" + header() + "\u00a0",
    "a separator before the header": "\x1c\n" + doc(header(), user("a1", None)),
    "a bom line before the header": "\ufeff\n" + doc(header(), user("a1", None)),
    "no header": doc(user("a1", None), user("a2", "a1")),
    "empty": "",
}


def test_lines_streamed_get_the_issues_of_the_whole_file(tmp_path: Path) -> None:
    """What the helper reads line by line: the context, issues and line count of
    line_issues over the whole file, or None where the header does not come first."""
    paths = _sessions(tmp_path) + [_write(tmp_path, name, text) for name, text in EDGES.items()]
    whole = {"header-below", "a-separator-before-the-header", "a-bom-line-before-the-header"}
    whole |= {"no-header", "empty"}  # their context needs every line: read whole
    whole.add("one-line,-edge-spaces")  # a header only when read as the last line too
    for path in paths:
        split = read_lines(path)
        got = streamed_line_issues(stream_lines(path), SMALL)
        if path.stem in whole:
            assert got is None, path.name
        else:
            assert got == (*line_issues(split, SMALL), len(split.lines)), path.name


def test_every_kind_of_line_issue_is_among_them(tmp_path: Path) -> None:
    _, found = line_issues(read_lines(_write(tmp_path, "t", _troubled()["line issues"])), SMALL)
    codes = {issue.code for issues in found.values() for issue in issues}
    assert {"PI001", "PI200", "PI301", "PI500", "PI004"} <= codes


@pytest.mark.usefixtures("anywhere")
def test_an_analysis_helped_by_a_helper_finds_what_one_process_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers: list[Any] = []
    real = helper.Helper.issues

    def taken(self: helper.Helper, ctx: Any, count: int) -> Any:
        answers.append(real(self, ctx, count))
        return answers[-1]

    monkeypatch.setattr(helper.Helper, "issues", taken)
    for path in _sessions(tmp_path):
        answers.clear()
        with helper.start(str(path), SMALL) as aide:  # type: ignore[union-attr]
            helped = analyze_file(str(path), SMALL, reuse=False, checks_from=aide.issues)
        assert answers and answers[0] is not None, path  # the helper's issues were taken
        _same(helped, analyze_file(str(path), SMALL, reuse=False))


@pytest.mark.usefixtures("anywhere")
def test_a_file_changed_after_the_helper_read_it_is_checked_in_process(tmp_path: Path) -> None:
    path = _write(tmp_path, "edited", doc(header(), user("a1", None), "{broken", "{fine"))
    aide = helper.start(str(path), SMALL)
    assert aide is not None
    with aide:
        assert aide._receive() is not None  # the helper has read and checked the file
        # then the file is edited: as many lines, the same header, other issues
        path.write_text(doc(header(), user("a1", None), user("a2", "a1"), "{not fine"))
        helped = analyze_file(str(path), SMALL, reuse=False, checks_from=aide.issues)
        assert aide.issues(helped.context, len(helped.lines)) is None
    alone = analyze_file(str(path), SMALL, reuse=False)
    _same(helped, alone)
    assert [f.span.line for f in alone.findings if f.code == "PI001"] == [3]


@pytest.mark.usefixtures("anywhere")
def test_a_helper_that_fails_leaves_the_checks_to_the_analysis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fails(*_: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr(helper, "_issues", fails)  # the forked helper inherits it
    path = _write(tmp_path, "t", _troubled()["line issues"])
    with helper.start(str(path), SMALL) as aide:  # type: ignore[union-attr]
        helped = analyze_file(str(path), SMALL, reuse=False, checks_from=aide.issues)
        assert aide._receive() is None
    _same(helped, analyze_file(str(path), SMALL, reuse=False))


@pytest.mark.usefixtures("anywhere")
def test_a_context_or_line_count_the_analysis_did_not_find_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "t", _troubled()["line issues"])
    alone = analyze_file(str(path), SMALL, reuse=False)
    with helper.start(str(path), SMALL) as aide:  # type: ignore[union-attr]
        assert aide.issues(alone.context, len(alone.lines)) is not None
        assert aide.issues(alone.context, len(alone.lines) + 1) is None
        other = alone.context._replace(large_line=SMALL.large_line + 1)
        assert aide.issues(other, len(alone.lines)) is None


@pytest.mark.usefixtures("anywhere")
def test_a_helper_whose_answer_is_never_asked_for_is_stopped(tmp_path: Path) -> None:
    path = _write(tmp_path, "t", _troubled()["line issues"])
    with helper.start(str(path), SMALL) as aide:  # type: ignore[union-attr]
        pid = aide._pid
    with pytest.raises(ChildProcessError):  # reaped: no zombie left behind
        os.waitpid(pid, os.WNOHANG)


def test_no_helper_where_it_would_not_pay_or_could_not_read_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(helper, "usable", lambda: True)
    small = _write(tmp_path, "small", doc(header(), user("a1", None)))
    assert helper.start(str(small), SMALL) is None  # below HELPER_FROM
    monkeypatch.setattr(helper, "HELPER_FROM", 0)
    assert helper.start(str(tmp_path / "missing.jsonl"), SMALL) is None
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    assert helper.start(str(fifo), SMALL) is None  # a pipe cannot be read twice
    monkeypatch.setattr(helper, "usable", lambda: False)
    assert helper.start(str(small), SMALL) is None


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity here")
def test_a_process_bound_to_one_core_gets_no_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _: {0})
    assert not helper.usable()
    monkeypatch.setattr(os, "sched_getaffinity", lambda _: {0, 1})
    assert helper.usable() == (sys.platform != "win32")
