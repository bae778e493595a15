"""What the commands say, through the real process (issue 43, item 10): a usage error shows
the usage of the subcommand used, a run that checked nothing does not say "no problems",
counts agree with their nouns, and ``find --limit`` says what it left out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.core.pi_sessions import assistant, doc, header, user

from .cli_support import ROOT, run_cli

CLEAN = ROOT / "tests" / "data" / "fixed" / "pi400-dangling-parent.jsonl"


def test_a_missing_file_is_not_reported_as_checked() -> None:
    proc = run_cli("check", "nope.jsonl")
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "pi-lsp check: nope.jsonl: no such file or directory",
        "no file checked",
    ]


def test_a_folder_without_sessions_checks_no_file(tmp_path: Path) -> None:
    proc = run_cli("check", tmp_path)
    assert proc.stderr.splitlines()[-1] == "no file checked"


@pytest.mark.parametrize("command", ["check", "find", "stats", "tree", "migrate"])
def test_an_unknown_option_shows_the_subcommands_usage(command: str) -> None:
    proc = run_cli(command, "--bogus", CLEAN)
    assert proc.returncode == 2
    first, *_, last = proc.stderr.splitlines()
    assert first.startswith(f"usage: pi-lsp {command} ")
    assert last == f"pi-lsp {command}: error: unrecognized arguments: --bogus"


def test_an_unknown_command_shows_the_top_level_usage() -> None:
    proc = run_cli("nope")
    assert proc.returncode == 2
    assert proc.stderr.startswith("usage: pi-lsp [-h] [--version] COMMAND ...")
    assert "invalid choice: 'nope'" in proc.stderr


def test_one_message_is_one_message(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text(doc(header(), user("a1", None)), encoding="utf-8")
    assert run_cli("context", path).stdout.startswith("1 message · leaf line 2 ·")
    path.write_text(doc(header(), user("a1", None), assistant("a2", "a1")), encoding="utf-8")
    assert run_cli("context", path).stdout.startswith("2 messages · leaf line 3 ·")


def test_one_branch_level_is_one_level(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = [header(), user("a1", None), user("b1", "a1"), user("b2", "a1")]
    path.write_text(doc(*lines, user("c1", "b1"), user("c2", "b1")), encoding="utf-8")
    rows = run_cli("tree", "--depth", "1", path).stdout.splitlines()
    assert rows[-1].strip() == "… 2 entries nested more than 1 branch level deep"


@pytest.fixture
def many_matches(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "s.jsonl"
    lines = [header(), user("u0", None, "parser one")]
    lines += [user(f"u{n}", f"u{n - 1}", f"parser {n}") for n in range(1, 5)]
    path.write_text(doc(*lines), encoding="utf-8")
    env = {**os.environ, "PI_LSP_SEARCH_CACHE": str(tmp_path / "cache.json")}
    return path, env


@pytest.mark.parametrize(
    ("limit", "note"),
    [
        ("3", "pi-lsp find: 2 more matches not shown (--limit 3)\n"),
        ("4", "pi-lsp find: 1 more match not shown (--limit 4)\n"),
        ("5", ""),
        ("9", ""),
    ],
)
def test_find_limit_says_how_many_more(
    many_matches: tuple[Path, dict[str, str]], limit: str, note: str
) -> None:
    path, env = many_matches
    proc = run_cli("find", "--limit", limit, "parser", path, env=env)
    assert proc.returncode == 0
    assert len(proc.stdout.splitlines()) == min(int(limit), 5)  # stdout: the matches only
    assert proc.stderr == note
