"""The ``pi-lsp stats`` command line: formats, defaults, bad input and the HTML page."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from pi_lsp.cli import main
from pi_lsp.core.stats import TOTAL_KEYS

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
    assert rows[0] == ["session", *TOTAL_KEYS]
    assert rows[-1][0] == "total" and len(rows) == 4
    assert sum(float(r[-1]) for r in rows[1:-1]) == pytest.approx(float(rows[-1][-1]))


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
