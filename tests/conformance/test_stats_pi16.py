"""``pi-lsp stats`` against pi 1.6's own ``getSessionStats`` (and its cost breakdown by model).

pi 1.6 runs through ``pi16_stats.mjs`` under Node 22+, both from the conformance installer
(the ``pi16_modules`` fixture: ``$PI_LSP_PI16_MODULES``, else the test cache filled from npm).
Without them these tests skip.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pi_install import PI_16, node_for

from pi_lsp.cli import main
from pi_lsp.core.pi.stats import TOTAL_KEYS, money, read_file
from pi_lsp.core.workspace.stats_report import build, groups

pytestmark = pytest.mark.slow  # each runs pi 1.6 in node over whole sessions

HELPER = Path(__file__).resolve().with_name("pi16_stats.mjs")


@pytest.fixture(scope="module")
def pi16(pi16_modules: Path) -> Any:
    modules = pi16_modules
    node = node_for(PI_16, modules)
    assert node is not None  # the fixture skips without one

    def run(*args: str | Path) -> dict[str, Any]:
        proc = subprocess.run(
            [node, str(HELPER), *map(str, args)],
            capture_output=True,
            env=dict(os.environ, PI_LSP_PI16_MODULES=str(modules)),
            timeout=300,
            check=False,
        )
        result: dict[str, Any] = json.loads(proc.stdout)
        assert proc.returncode == 0 and "oracle_error" not in result, (result, proc.stderr[-2000:])
        return result

    return run


def _pi_total(stats: dict[str, Any]) -> dict[str, Any]:
    """pi's getSessionStats in the shape of a ``stats --format json`` totals object."""
    tokens = stats["tokens"]
    return {
        "userMessages": stats["userMessages"],
        "assistantMessages": stats["assistantMessages"],
        "toolResults": stats["toolResults"],
        "toolCalls": stats["toolCalls"],
        "input": tokens["input"],
        "output": tokens["output"],
        "cacheRead": tokens["cacheRead"],
        "cacheWrite": tokens["cacheWrite"],
        "cost": money(stats["cost"]),  # printed to the millionth (pi's own sum may show float noise)
    }


def _cli_json(capsys: pytest.CaptureFixture[str], *args: str | Path) -> dict[str, Any]:
    capsys.readouterr()
    status = main(["stats", "--format", "json", *map(str, args)])
    out = capsys.readouterr().out
    assert status == 0, out
    data: dict[str, Any] = json.loads(out)
    return data


@pytest.fixture(scope="module")
def written(pi16: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A session written by pi 1.6 with every kind of usage, its fork and its clone."""
    out: dict[str, Any] = pi16("write", tmp_path_factory.mktemp("pi16-stats"))
    return out


def test_totals_equal_pi_on_a_session_pi_wrote(
    pi16: Any, written: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    oracle = pi16("stats", written["session"])["files"][0]["stats"]
    data = _cli_json(capsys, written["session"])
    assert list(data["total"]) == list(TOTAL_KEYS)
    assert data["total"] == _pi_total(oracle)
    # the sample holds every kind of usage pi counts, so a reader that skips one fails here
    kinds = {c.role for c in read_file(written["session"]).counted if c.usage is not None}
    assert {"assistant", "toolResult", "usage", "compaction", "branch_summary"} <= kinds


def test_a_session_with_its_fork_and_clone_totals_the_session_alone(
    pi16: Any, written: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    alone = _cli_json(capsys, written["session"])["total"]
    together = _cli_json(capsys, written["session"], written["fork"], written["clone"])
    assert together["total"] == alone
    by_path = {f["path"]: f for f in together["files"]}
    for copy in (written["fork"], written["clone"]):
        # every entry pi counts in a copy came from the session: named as a copy, not counted
        counted = len(read_file(copy).counted)
        assert counted > 0 and by_path[copy]["copies"] == counted
        assert [(w["path"], w["entries"]) for w in by_path[copy]["countedIn"]] == [
            (str(written["session"]), counted)
        ]
        assert by_path[copy]["total"] == dict.fromkeys(TOTAL_KEYS, 0)
    # order does not matter: the older file keeps the entries
    reordered = _cli_json(capsys, written["clone"], written["fork"], written["session"])
    assert reordered["total"] == alone


def test_each_copy_alone_equals_pi(pi16: Any, written: dict[str, Any]) -> None:
    paths = [written["session"], written["fork"], written["clone"]]
    oracle = pi16("stats", *paths)["files"]
    for path, pi in zip(paths, oracle, strict=True):
        report = build([read_file(path)])
        assert report.total().as_json() == _pi_total(pi["stats"]), path


def test_fixtures_equal_pi(pi16: Any, fixtures_dir: Path) -> None:
    paths = sorted(fixtures_dir.glob("*.jsonl"))
    oracle = pi16("stats", *paths)["files"]
    for path, pi in zip(paths, oracle, strict=True):
        report = build([read_file(str(path))])
        assert report.total().as_json() == _pi_total(pi["stats"]), path.name


def test_cost_by_model_equals_pis_breakdown(pi16: Any, written: dict[str, Any], fixtures_dir: Path) -> None:
    paths = [Path(written["session"]), *sorted(fixtures_dir.glob("pi16-*.jsonl"))]
    oracle = pi16("stats", *paths)["files"]
    for path, pi in zip(paths, oracle, strict=True):
        ours = {
            g.key: (g.totals.usage.cost, g.totals.usage.total)
            for g in groups(build([read_file(str(path))]), "model")
            if g.totals.usage.cost > 0 or g.totals.usage.total > 0
        }
        assert ours == {b["key"]: (b["cost"], b["tokens"]) for b in pi["breakdown"]}, path.name
