"""The test tiers: ``python -m pytest`` runs the fast tier, ``.ci/run`` runs every test.

Each test asks a real ``python -m pytest --collect-only`` in the checkout which tests it
would run, so the configuration in ``pyproject.toml``, the conftests and ``.ci/run`` are
judged together.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SLOW = [
    "tests/core/test_scale.py",  # every test marked slow
    "tests/robustness/test_server_hostile.py",  # full-size documents (marked slow there)
    "tests/editors/test_vscode.py",  # editors and slow
]


def _collected(args: list[str]) -> tuple[int, int]:
    """How many tests a pytest run with ``args`` selects, and how many it deselects."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    summary = run.stdout.strip().splitlines()[-1]
    found = re.match(r"(no|\d+)(?:/\d+)? tests? collected(?: \((\d+) deselected\))?", summary)
    assert found, run.stdout[-2000:] + run.stderr[-2000:]
    selected = 0 if found[1] == "no" else int(found[1])
    return selected, int(found[2] or 0)


def _ci_pytest_args() -> list[str]:
    """The options of the pytest command in ``.ci/run`` (without ``-q``)."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    lines = [line for line in script.splitlines() if line.startswith("python -m pytest")]
    assert len(lines) == 1, lines
    return [arg for arg in shlex.split(lines[0])[3:] if arg != "-q"]


def test_the_default_run_leaves_out_the_slow_tests() -> None:
    selected, deselected = _collected(SLOW[:1])
    assert (selected, deselected > 0) == (0, True)


def test_ci_runs_every_test_the_slow_ones_too() -> None:
    selected, deselected = _collected([*_ci_pytest_args(), *SLOW])
    assert selected > 0
    assert deselected == 0
