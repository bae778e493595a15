"""The ``pi-lsp`` process under pipes that close early and under Ctrl-C (issue 43, items 2 and 9).

The exit status is the one the run earned (0 clean, 1 errors found, 2 usage or I/O error,
130 interrupted), whichever reader of stdout or stderr went away; Ctrl-C prints nothing
but ends the progress bar's line.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.core.pi_sessions import assistant, doc, header, result, user

from .test_commands import run_on_terminal

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
CLEAN = DATA / "fixed" / "pi400-dangling-parent.jsonl"
MISSING = DATA / "does-not-exist.jsonl"


@pytest.fixture(scope="module")
def many_errors(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A session with 300 lines that are not JSON: 300 errors, some 25 KB of report."""
    path = tmp_path_factory.mktemp("pipes") / "broken.jsonl"
    path.write_text(doc(header(), user("a1", None)) + "{not json\n" * 300, encoding="utf-8")
    return path


def exit_status_with_reader_gone(args: list[str | Path], closed: str) -> int:
    """The exit status of ``pi-lsp ARGS`` when the reader of ``closed`` (``stdout``,
    ``stderr`` or ``both``: one pipe, as ``2>&1 | head``) went away before the first byte."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    out = write_end if closed in ("stdout", "both") else subprocess.DEVNULL
    err = write_end if closed in ("stderr", "both") else subprocess.DEVNULL
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pi_lsp", *map(str, args)],
            stdout=out,
            stderr=err,
            cwd=ROOT,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    return done.returncode


@pytest.mark.parametrize("closed", ["both", "stdout", "stderr"])
def test_findings_exit_1_whichever_reader_went_away(many_errors: Path, closed: str) -> None:
    for _ in range(3):
        assert exit_status_with_reader_gone(["check", many_errors], closed) == 1
    assert exit_status_with_reader_gone(["check", "--format", "json", many_errors], closed) == 1


@pytest.mark.parametrize("closed", ["both", "stderr"])
def test_a_missing_file_and_a_usage_error_exit_2_with_stderr_gone(closed: str) -> None:
    for _ in range(3):
        assert exit_status_with_reader_gone(["check", MISSING], closed) == 2
    assert exit_status_with_reader_gone(["check", "--bogus", CLEAN], closed) == 2
    assert exit_status_with_reader_gone(["no-such-command"], closed) == 2


def test_a_clean_file_exits_0_with_both_readers_gone() -> None:
    assert exit_status_with_reader_gone(["check", CLEAN], "both") == 0


def test_head_of_the_merged_output_keeps_the_status(many_errors: Path) -> None:
    """``pi-lsp check F 2>&1 | head -1`` under ``set -o pipefail``: the first line, then 1."""
    for _ in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-m", "pi_lsp", "check", str(many_errors)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
        )
        assert proc.stdout is not None
        first = proc.stdout.readline()
        proc.stdout.close()
        assert proc.wait(timeout=120) == 1
        assert b": error PI" in first


# --------------------------------------------------------------------------- Ctrl-C


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Enough small clean sessions that a check of them runs for a second or so."""
    folder = tmp_path_factory.mktemp("sessions")
    text = doc(
        header(),
        *(
            line
            for n in range(20)
            for line in (
                user(f"u{n}", f"a{n - 1}" if n else None),
                assistant(f"c{n}", f"u{n}", calls=(f"t{n}",)),
                result(f"r{n}", f"c{n}", f"t{n}"),
                assistant(f"a{n}", f"r{n}"),
            )
        ),
    )
    for n in range(800):
        (folder / f"s{n:04}.jsonl").write_text(text, encoding="utf-8")
    return folder


def interrupt_on_terminal(args: list[str], delay: float) -> tuple[int, str]:
    """Run ``pi-lsp ARGS`` on a terminal; once its progress bar shows (and ``delay``
    seconds more), press Ctrl-C (SIGINT to the whole foreground group, workers too).
    Its exit status and all it wrote; every process of it ended soon after."""

    def press_ctrl_c(pid: int, master: int) -> None:
        # the terminal keeps what was written when Ctrl-C came (its default flushes the
        # output not yet shown, which would make what the test sees a race)
        modes = termios.tcgetattr(master)
        modes[3] |= termios.NOFLSH
        termios.tcsetattr(master, termios.TCSANOW, modes)
        seen = b""
        deadline = time.monotonic() + 60
        while b"files" not in seen and time.monotonic() < deadline:
            seen += os.read(master, 65536)
        time.sleep(delay)
        os.write(master, b"\x03")
        shown.append(seen)
        pressed.append(time.monotonic())

    shown: list[bytes] = []
    pressed: list[float] = []
    # a test run in the background may ignore SIGINT, which a child would inherit
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        status, rest = run_on_terminal(args, act=press_ctrl_c)
    finally:
        signal.signal(signal.SIGINT, previous)
    # run_on_terminal reads until no process holds the terminal: no worker is left behind
    assert time.monotonic() - pressed[0] < 10
    return status, shown[0].decode("utf-8", "replace") + rest


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_exits_130_quietly_and_ends_the_bar_line(sessions: Path, jobs: str) -> None:
    for delay in (0.0, 0.02, 0.05, 0.1, 0.2):
        status, output = interrupt_on_terminal(["check", "-j", jobs, str(sessions)], delay)
        assert status == 130, output[-2000:]
        assert "Traceback" not in output and "KeyboardInterrupt" not in output, output[-2000:]
        assert "files checked" not in output  # no report of a run cut short
        bar = output.rindex("\r[")  # the bar's last drawing (cut short if Ctrl-C came mid-way)
        assert "\n" in output[bar:] and output.endswith("\n"), repr(output[bar:])
