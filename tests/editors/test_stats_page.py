"""The ``pi-lsp stats --html`` page in headless Chromium: the chart draws, nothing is fetched."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from editors_support import FIXTURES, SCREENSHOTS

pytestmark = pytest.mark.editors

CHROMIUM = os.environ.get("PI_LSP_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--virtual-time-budget=5000",
    "--window-size=1200,900",
]


def _page(tmp_path: Path, *sources: Path) -> Path:
    """``pi-lsp stats SOURCES --html PAGE``."""
    page = tmp_path / "stats.html"
    subprocess.run(
        [sys.executable, "-m", "pi_lsp", "stats", *map(str, sources), "--html", str(page)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return page


def _dom(page: Path) -> str:
    """The page's DOM once its script has run, in headless Chromium."""
    profile = tempfile.mkdtemp(prefix="pi-lsp-chromium-")
    try:
        return subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def test_a_forks_cards_say_what_they_count(tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not installed (bash .ci/editors.sh)")
    source = FIXTURES / "pi-v3-branched.jsonl"
    if not source.is_file():
        pytest.skip("shared fixtures not found")
    fork = tmp_path / "fork.jsonl"
    subprocess.run(
        [sys.executable, "-m", "pi_lsp", "fork", str(source), "--at-line", "20", "-o", str(fork)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    # the fork comes first: the page opens on it
    text = re.sub(r"<[^>]+>", "|", _dom(_page(tmp_path, fork, source)))
    assert "|cost (own entries)||$0.0000|" in text
    assert "|assistant turns (own entries)||0|" in text
    assert "|copied entries||16||counted in Session 5: test failing file — pi-v3-branched.jsonl|" in text
    assert "16 copied entries ($0.0968) counted in Session 5: test failing file — pi-v3-branched.jsonl." in text


@pytest.mark.slow
def test_stats_page_renders_in_chromium(tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not installed (bash .ci/editors.sh)")
    source = FIXTURES / "pi16-long.jsonl"
    if not source.is_file():
        pytest.skip("shared fixtures not found")
    page = _page(tmp_path, source)
    profile = tempfile.mkdtemp(prefix="pi-lsp-chromium-")
    try:
        dom = subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shot = SCREENSHOTS / "stats-page.png"
        subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}", page.as_uri()],
            capture_output=True,
            timeout=120,
        )
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    rendered = re.search(r'<body[^>]*data-rendered="(\d+)"', dom)
    assert rendered is not None and int(rendered.group(1)) > 100, dom[:2000]
    assert "<canvas" in dom
    assert "$5.9897" in dom  # the cost card: pi's own total for this session
    assert shot.is_file() and shot.stat().st_size > 10_000
