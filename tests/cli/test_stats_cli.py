"""The ``pi-lsp stats`` command line: formats, defaults, bad input and the HTML page."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from pi_lsp.cli import main
from pi_lsp.core.pi.stats import TOTAL_KEYS

from .cli_support import run_cli

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    if not FIXTURES.is_dir():
        pytest.skip("shared fixtures not found")
    root = tmp_path / "sessions" / "--work--"
    root.mkdir(parents=True)
    for name in ("pi16-long.jsonl", "pi-v3-branched.jsonl"):
        shutil.copy(FIXTURES / name, root / name)
    return tmp_path / "sessions"


def test_default_is_pis_sessions_folder(
    sessions: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(sessions.parent))
    assert main(["stats", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(Path(f["path"]).name for f in data["files"]) == ["pi-v3-branched.jsonl", "pi16-long.jsonl"]
    assert list(data["total"]) == list(TOTAL_KEYS) and data["by"] == "model"


def test_csv_rows_add_up(sessions: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", str(sessions), "--format", "csv", "--by", "session"]) == 0
    rows = [line.split(",") for line in capsys.readouterr().out.splitlines()]
    assert rows[0] == ["session", *TOTAL_KEYS, "copies", "copiesCost", "countedIn"]
    assert rows[-1][0] == "total" and len(rows) == 4
    cost = rows[0].index("cost")
    assert sum(float(r[cost]) for r in rows[1:-1]) == pytest.approx(float(rows[-1][cost]))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--since", "last week"], "--since expects a date"),
        (["--until", "2025-13-01"], "--until expects a date"),
        (["/no/such/dir"], "no such file or directory"),
    ],
)
def test_bad_input_is_exit_2(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", *args]) == 2
    assert message in capsys.readouterr().err


def test_a_file_pi_would_not_load_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"message"}\n', encoding="utf-8")
    assert main(["stats", str(bad)]) == 1  # as context, migrate, tree and fork (issue 43)
    captured = capsys.readouterr()
    assert f"{bad}: the first line that parses is not a session header" in captured.err
    assert "0 sessions" in captured.out


def test_html_is_one_self_contained_page(sessions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "stats.html"
    assert main(["stats", str(sessions), "--html", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']?https?:""", page)  # nothing from the network
    nonce = re.search(r"script-src 'nonce-([^']+)'", page)
    assert nonce is not None and f'<script nonce="{nonce.group(1)}">' in page
    data = re.search(r'<script type="application/json" id="pi-lsp-stats">(.*?)</script>', page, re.S)
    assert data is not None
    assert json.loads(data.group(1))["files"][0]["turns"]
    assert "Apache ECharts" in page


def test_format_html_prints_the_page(sessions: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", str(sessions), "--format", "html"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("<!DOCTYPE html>") and 'id="pi-lsp-stats"' in out


# --------------------------------------------------- forks, float noise, paths (issue 43)


def _turn(n: int, parent: str | None, cost: float) -> list[dict[str, object]]:
    """A user message and its answer costing ``cost``, at second ``n``."""
    stamp = f"2026-01-02T10:00:{n:02d}.000Z"
    usage = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": cost}}
    answer = {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "provider": "p",
              "model": "m", "usage": usage, "stopReason": "stop"}
    return [
        {"type": "message", "id": f"u{n:07d}", "parentId": parent, "timestamp": stamp,
         "message": {"role": "user", "content": f"question {n}"}},
        {"type": "message", "id": f"a{n:07d}", "parentId": f"u{n:07d}", "timestamp": stamp,
         "message": answer},
    ]


def _session(path: Path, costs: list[float]) -> Path:
    """A pi v3 session of one turn per cost, created 2026-01-02."""
    header = {"type": "session", "version": 3, "id": path.stem, "timestamp": "2026-01-02T09:00:00.000Z", "cwd": "/"}
    entries: list[dict[str, object]] = []
    for n, cost in enumerate(costs):
        entries += _turn(n, entries[-1]["id"] if entries else None, cost)  # type: ignore[arg-type]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(e) for e in [header, *entries]) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def forked(tmp_path: Path) -> Path:
    """``sessions/--w--/orig.jsonl`` (3 turns, $0.60) and its fork at the second answer,
    made by ``pi-lsp fork`` (4 copied entries, $0.30), which then adds a turn of its own."""
    folder = tmp_path / "sessions" / "--w--"
    orig = _session(folder / "orig.jsonl", [0.1, 0.2, 0.3])
    made = run_cli("fork", orig, "--at", "a0000001", "-o", folder / "fork.jsonl")
    assert made.returncode == 0, made.stderr
    with (folder / "fork.jsonl").open("a", encoding="utf-8") as fh:
        for e in _turn(9, "a0000001", 0.05):
            fh.write(json.dumps(e) + "\n")
    return tmp_path / "sessions"


def test_a_forks_row_says_where_its_copies_are_counted(forked: Path, tmp_path: Path) -> None:
    done = run_cli("stats", "sessions", "--by", "session", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    fork_row = next(n for n, line in enumerate(lines) if line.startswith("sessions/--w--/fork.jsonl "))
    assert lines[fork_row].endswith("$0.0500")
    assert lines[fork_row + 1] == "  4 copied entries ($0.3000) counted in sessions/--w--/orig.jsonl"

    rows = list(csv.reader(run_cli("stats", forked, "--by", "session", "--format", "csv").stdout.splitlines()))
    assert rows[0][-3:] == ["copies", "copiesCost", "countedIn"]
    by_path = {Path(r[0]).name: r for r in rows[1:]}
    assert by_path["fork.jsonl"][-3:] == ["4", "0.3", str(forked / "--w--" / "orig.jsonl")]
    assert by_path["orig.jsonl"][-3:] == ["0", "0.0", ""]
    assert by_path["total"][-3:] == ["4", "0.3", ""]

    data = json.loads(run_cli("stats", forked, "--by", "session", "--format", "json").stdout)
    fork = next(f for f in data["files"] if f["path"].endswith("fork.jsonl"))
    where = [{"path": str(forked / "--w--" / "orig.jsonl"), "entries": 4, "cost": 0.3}]
    assert (fork["copies"], fork["countedIn"]) == (4, where)
    assert fork["branches"][0]["countedIn"] == where
    group = next(g for g in data["groups"] if g["key"] == fork["path"])
    assert list(group)[: 3 + len(TOTAL_KEYS)] == ["key", "id", "name", *TOTAL_KEYS]  # as before
    assert (group["copies"], group["countedIn"]) == (4, where)
    # the page gets the same facts (its cards are checked in Chromium: tests/editors)
    page = run_cli("stats", forked, "--format", "html").stdout
    embedded = re.search(r'id="pi-lsp-stats">(.*?)</script>', page, re.S)
    assert embedded is not None
    assert [f["countedIn"] for f in json.loads(embedded.group(1))["files"]] == [where, []]


def test_costs_print_no_float_noise(tmp_path: Path) -> None:
    # 0.1 + 0.2 is 0.30000000000000004 in floating point; 0.1 * 3 is 0.30000000000000004
    session = _session(tmp_path / "s.jsonl", [0.1, 0.2, 0.1, 0.1, 0.1])
    out = run_cli("stats", session, "--format", "json").stdout
    assert not re.search(r"\d\.\d*0000000\d", out), out
    data = json.loads(out)
    assert data["total"]["cost"] == 0.6 and data["groups"][0]["cost"] == 0.6
    assert [t["pathCost"] for t in data["files"][0]["turns"]] == [0.1, 0.3, 0.4, 0.5, 0.6]
    rows = list(csv.reader(run_cli("stats", session, "--format", "csv").stdout.splitlines()))
    assert [r[-1] for r in rows] == ["cost", "0.6", "0.6"]


def test_a_cost_keeps_its_millionths(tmp_path: Path) -> None:
    session = _session(tmp_path / "s.jsonl", [0.0000016, 1.2345674, 40])
    data = json.loads(run_cli("stats", session, "--format", "json").stdout)
    assert data["total"]["cost"] == 41.234569
    assert [t["cost"] for t in data["files"][0]["turns"]] == [0.000002, 1.234567, 40]


def test_text_paths_are_relative_to_the_folder_given(forked: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    rows = run_cli("stats", forked, "--by", "session", cwd=elsewhere).stdout.splitlines()
    assert [r.split()[0] for r in rows[1:4]] == ["--w--/fork.jsonl", "4", "--w--/orig.jsonl"]
    assert rows[2].endswith("counted in --w--/orig.jsonl")
    default = run_cli("stats", "--by", "branch", cwd=elsewhere, env={**os.environ, "PI_CODING_AGENT_DIR": str(tmp_path)})
    assert default.stdout.splitlines()[1].startswith("--w--/fork.jsonl: active path ")
    named = run_cli("stats", forked / "--w--" / "orig.jsonl", "--by", "session", cwd=elsewhere)
    assert named.stdout.splitlines()[1].startswith(f"{forked / '--w--' / 'orig.jsonl'} ")  # as given
