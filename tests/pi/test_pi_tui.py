"""The pi package in pi 1.6's own terminal UI, in tmux: the resume dialog and the footer.

pi starts on a clean session; ``/resume`` picks the broken one (searched by its first
message); the package's dialog shows, Escape cancels it, and the file is untouched. The
screen is rendered to PNG through Chromium when it is there (tests/pi/screenshots/pi.png;
editors/pi/screenshot.png too with PI_LSP_README_SCREENSHOTS=1).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from shlex import quote

import pytest
from pi_rpc import PACKAGE, ROOT, Place, clean_session, plant, sessions_folder

SHOTS = Path(os.environ.get("PI_LSP_SCREENSHOTS", ROOT / "tests" / "pi" / "screenshots"))
COLS, ROWS = 110, 32


@pytest.fixture
def tmux(place: Place) -> Iterator[list[str]]:
    found = shutil.which("tmux")
    if not found:
        pytest.skip("tmux is needed for the terminal test")
    conf = place.home / "tmux.conf"
    conf.write_text("set -g extended-keys on\n", encoding="utf-8")  # pi warns without it
    base = [found, "-L", f"pi-lsp-pi-{os.getpid()}", "-f", str(conf)]
    yield base
    subprocess.run([*base, "kill-server"], capture_output=True, timeout=30, check=False)


def screen(base: list[str], escapes: bool = False) -> str:
    args = [*base, "capture-pane", "-p", "-t", "pi", *(["-e"] if escapes else [])]
    return subprocess.run(args, capture_output=True, text=True, timeout=30, check=True).stdout


def wait_for(base: list[str], shown: Callable[[str], bool], what: str) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        text = screen(base)
        if shown(text):
            return text
        time.sleep(0.2)
    raise AssertionError(f"{what} not shown:\n{screen(base)}")


def keys(base: list[str], *typed: str) -> None:
    for k in typed:
        subprocess.run([*base, "send-keys", "-t", "pi", k], timeout=30, check=True)
        time.sleep(0.3)


@pytest.mark.slow
def test_resume_dialog_and_footer_in_the_terminal(place: Place, tmux: list[str]) -> None:
    """Cancel leaves the broken file as it was; resume as is shows its problems in the footer."""
    folder = sessions_folder(place.home, place.project)
    broken = plant(place.modules, "interloper", place.sessions, place.project)["path"]
    broken = Path(shutil.move(broken, folder / broken.name))
    before = broken.read_bytes()
    clean = clean_session(place.node, place.modules, folder, place.project)
    cli = place.modules / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" / "cli.js"
    env = {
        "HOME": place.home,
        "PI_CODING_AGENT_DIR": place.home / ".pi" / "agent",
        "PI_LSP_PATH": place.pi_lsp,
        "PI_LSP_DOCTOR_BUDGET_MS": "60000",
        "TERM": "xterm-256color",
    }
    command = ["env", *(f"{k}={v}" for k, v in env.items())]
    command += [place.node, cli, "--offline", "-ne", "-e", PACKAGE, "--session", clean]
    shell = " ".join(quote(str(a)) for a in command)
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", str(COLS), "-y", str(ROWS), "-s", "pi", shell],
        cwd=place.project,
        check=True,
        timeout=30,
    )
    wait_for(tmux, lambda s: str(place.project) in s, "pi's footer")
    keys(tmux, "/resume", "Enter")
    wait_for(tmux, lambda s: "Resume Session" in s, "the session picker")
    keys(tmux, "and the tests", "Enter")
    text = wait_for(tmux, lambda s: "Repair and resume" in s, "the package's dialog")
    assert "1 problem changes what pi sends or keeps" in text and "line 4: PI423" in text
    shoot(screen(tmux, escapes=True), place)
    keys(tmux, "Escape")
    wait_for(tmux, lambda s: "Repair and resume" not in s, "the cancelled dialog")
    assert broken.read_bytes() == before
    keys(tmux, "/resume", "Enter")
    wait_for(tmux, lambda s: "Resume Session" in s, "the session picker")
    keys(tmux, "and the tests", "Enter")
    wait_for(tmux, lambda s: "Repair and resume" in s, "the package's dialog")
    keys(tmux, "Down", "Enter")
    footer = wait_for(tmux, lambda s: "1 problem · /doctor" in s, "the footer status")
    assert footer.rstrip().endswith("1 problem · /doctor")


def shoot(ansi: str, place: Place) -> None:
    """The screen as a PNG, when Chromium is there."""
    chromium = os.environ.get("PI_LSP_CHROMIUM") or shutil.which("chromium")
    if not chromium:
        return
    sys.path.insert(0, str(ROOT / "tests" / "editors"))
    from ansi_html import to_html

    page = place.home / "pi.html"
    page.write_text(to_html(ansi, COLS), encoding="utf-8")
    SHOTS.mkdir(parents=True, exist_ok=True)
    png = SHOTS / "pi.png"
    width, height = int(COLS * 9.05) + 16, int(ROWS * 15 * 1.25) + 16
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--hide-scrollbars",
        f"--user-data-dir={place.home / 'chromium'}",
        f"--window-size={width},{height}",
        f"--screenshot={png}",
    ]
    subprocess.run(
        [chromium, *flags, page.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert png.stat().st_size > 10_000
    assert re.search(r"Repair and resume", re.sub(r"\x1b\[[0-9;:]*m", "", ansi))
    if os.environ.get("PI_LSP_README_SCREENSHOTS") == "1":
        shutil.copyfile(png, PACKAGE / "screenshot.png")
