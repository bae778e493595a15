"""``pi-lsp`` starts fast: ``--version``, ``--help`` and usage errors import no subcommand,
``pi-lsp check`` imports only what checking a file needs.

The command runs in a fresh interpreter, through the process's entry point, and prints
``sys.modules`` when it ends: the script adds no import of its own (``os`` and ``sys`` are
always loaded).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pi_lsp import __version__
from pi_lsp.core.checks import helper
from tests.core.pi_sessions import assistant, doc, header, result, user

ROOT = Path(__file__).resolve().parents[2]
SERVER_ONLY = ("pygls", "lsprotocol", "cattrs", "asyncio", "jsonschema")
"""Packages a check of a clean file must not import (jsonschema-rs is another package)."""
SLOW_STDLIB = ("difflib",)
"""Standard modules a check of a clean file has no use for (difflib serves ``--diff``)."""
VIEWS = ("pi_lsp.core.views.describe", "pi_lsp.core.pi.stats", "pi_lsp.core.views.refs", "pi_lsp.core.edits.autofix")
"""Core modules that serve hovers, reports and repairs: a check has no use for them."""
MARK = "--- modules ---"
SCRIPT = f"""
import os, sys
sys.argv[0] = "pi-lsp"
def listing(pid=os.getpid()):
    if os.getpid() == pid:  # not a forked helper's or worker's
        sys.stderr.write("{MARK}\\n" + "\\n".join(sorted(sys.modules)))
        sys.stderr.flush()
end = os._exit
os._exit = lambda code: (listing(), end(code))
from pi_lsp.cli import entry
try:
    entry()
except SystemExit:
    listing()
    raise
"""


def imported(*args: str | Path) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``pi-lsp ARGS`` in a fresh interpreter; its result and every module it imported."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    before, _, listing = done.stderr.partition(MARK + "\n")
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout, before), set(
        listing.split()
    )


def top_level(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


@pytest.fixture
def clean_file(tmp_path: Path) -> Path:
    path = tmp_path / "clean.jsonl"
    path.write_text(
        doc(
            header(),
            user("a1", None),
            assistant("a2", "a1", calls=("c1",)),
            result("a3", "a2", "c1"),
            assistant("a4", "a3"),
        ),
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_check_of_a_clean_file_imports_no_server_and_no_jsonschema(
    clean_file: Path, fmt: str
) -> None:
    done, modules = imported("check", "--format", fmt, clean_file)
    assert done.returncode == 0, done.stdout
    assert "pi_lsp.core.checks.analysis" in modules  # the listing is complete: the check ran
    assert "jsonschema_rs" in modules  # the entries were validated
    assert not top_level(modules) & set(SERVER_ONLY)
    assert not modules & set(SLOW_STDLIB)
    assert not modules & set(VIEWS)
    assert not {m for m in modules if m.startswith(("pi_lsp.lsp.", "pi_lsp.cli."))} - {
        "pi_lsp.lsp.wire",
        "pi_lsp.lsp.commands",
        "pi_lsp.cli.commands",
        "pi_lsp.cli.commands.check",
        "pi_lsp.cli.fix",
        "pi_lsp.cli.sarif",
        "pi_lsp.cli.batch",
        "pi_lsp.cli.paths",
        "pi_lsp.cli.arguments",
        "pi_lsp.cli.terminal",
        "pi_lsp.cli.pipes",
    }, "another subcommand or a server module was imported"


def test_check_imports_no_repairs_unless_it_repairs(clean_file: Path) -> None:
    _, modules = imported("check", clean_file)
    assert "pi_lsp.core.edits.autofix" not in modules
    _, modules = imported("check", "--diff", clean_file)
    assert "pi_lsp.core.edits.autofix" in modules


ENTRY_ONLY = {"pi_lsp", "pi_lsp.cli", "pi_lsp.cli.pipes"}
"""The modules of pi-lsp that ``--version``, ``--help`` and a usage error may import."""


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["no-such-command"]])
def test_the_command_line_alone_imports_no_subcommand(args: list[str]) -> None:
    done, modules = imported(*args)
    assert done.returncode == (2 if args == ["no-such-command"] else 0)
    assert "pi_lsp.cli" in modules  # the listing is complete
    assert {m for m in modules if m.startswith("pi_lsp")} <= ENTRY_ONLY
    assert not top_level(modules) & {*SERVER_ONLY, "jsonschema_rs", "orjson", "concurrent"}


def test_version_builds_no_parser() -> None:
    """``pi-lsp --version`` (which pi's package runs on every resume) imports nothing that
    Python had not loaded at start but pi-lsp's entry point itself."""
    done, modules = imported("--version")
    assert (done.returncode, done.stdout) == (0, f"pi-lsp {__version__}\n")
    assert not modules & {"argparse", "typing", "re", "contextlib"}


def test_help_still_lists_every_subcommand() -> None:
    done, _ = imported("--help")
    for name in ("serve", "check", "schema", "migrate", "fork", "tree", "context", "stats", "find"):
        assert re.search(rf"^\s+{name}\b", done.stdout, re.MULTILINE), name


def test_a_subcommand_alone_parses_and_errors_with_its_own_usage(clean_file: Path) -> None:
    done, modules = imported("check", "--no-such-option", clean_file)
    assert done.returncode == 2
    assert done.stderr.startswith("usage: pi-lsp check ")
    assert "pi-lsp check: error: unrecognized arguments: --no-such-option" in done.stderr
    assert "pi_lsp.cli.commands.tree" not in modules  # only the subcommand used
    done, _ = imported("no-such-command")
    assert done.returncode == 2
    assert "invalid choice: 'no-such-command'" in done.stderr


def test_start_up_is_frozen_out_of_the_collectors_passes(clean_file: Path) -> None:
    """The modules loaded and the parser built before the check runs are frozen
    (:func:`gc.freeze`): no collection walks them, none ran while they were built."""
    script = (
        "import gc, os, sys\n"
        "sys.argv = ['pi-lsp', *sys.argv[1:]]\n"
        "end = os._exit\n"
        "def report(code):\n"
        "    stats = [s['collections'] for s in gc.get_stats()]\n"
        "    os.write(2, f'\\nfrozen {gc.get_freeze_count()} older {stats[1:]}'.encode())\n"
        "    end(code)\n"
        "os._exit = report\n"
        "from pi_lsp.cli import entry\n"
        "entry()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "check", str(clean_file)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    frozen, older = re.fullmatch(r"frozen (\d+) older (.*)", done.stderr.splitlines()[-1]).groups()
    assert int(frozen) > 10_000  # every module's objects
    assert older == "[0, 0]"  # no pass beyond the youngest generation


def test_the_command_exits_without_tearing_down_and_loses_no_output(tmp_path: Path) -> None:
    """``pi-lsp`` ends its process once the output is flushed: exit handlers (and the
    freeing of every object) are skipped, the report and the exit status are whole."""
    path = tmp_path / "broken.jsonl"
    path.write_text(doc(header(), user("a1", "nowhere")) + "{not json\n", encoding="utf-8")
    script = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('torn down'))\n"
        "sys.argv = ['pi-lsp', *sys.argv[1:]]\n"
        "from pi_lsp.cli import entry\n"
        "entry()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "check", "--format", "json", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert "torn down" not in done.stderr
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert {d["code"] for f in report["files"] for d in f["diagnostics"]} == {"PI001", "PI400"}


@pytest.mark.skipif(not helper.usable(), reason="no second core or no os.fork here")
def test_a_large_file_is_validated_by_a_helper_with_the_same_report(tmp_path: Path) -> None:
    """A file of ``HELPER_FROM`` bytes or more has its lines checked by a forked helper:
    the command itself never imports jsonschema-rs, yet reports what one process does."""
    lines = [header(), user("u0", None)]
    for n in range(1, helper.HELPER_FROM // 300 + 2):
        lines.append(assistant(f"a{n}", f"u{n - 1}", text="done " * 20))
        lines.append(user(f"u{n}", f"a{n}", text="next " * 20))
    lines[7] = json.dumps({"type": "message", "id": "a3", "parentId": "u2", "message": {"role": 5}})
    path = tmp_path / "large.jsonl"
    path.write_text(doc(*lines), encoding="utf-8")
    assert path.stat().st_size >= helper.HELPER_FROM
    helped, modules = imported("check", "--format", "json", path)
    alone, alone_modules = imported("check", "-j", "1", "--format", "json", path)
    assert "jsonschema_rs" not in modules and "jsonschema_rs" in alone_modules
    assert helped.returncode == alone.returncode == 1
    assert helped.stdout == alone.stdout
    codes = {d["code"] for f in json.loads(helped.stdout)["files"] for d in f["diagnostics"]}
    assert "PI200" in codes
