"""``pi-lsp check --fix [--diff] [--migrate]``: writes atomically with a backup, refuses a
file that changed since it was read, reports what it did, and exits as SPEC §4 says."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pi_lsp.cli import main
from pi_lsp.core.edits import autofix

from .cli_support import run_cli

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "tests" / "data" / "broken"
COMPACTION = BROKEN / "pi423-compaction-keeps-orphan-result.jsonl"
INTERLOPER = BROKEN / "pi423-interloper-between-call-and-result.jsonl"
CLEAN = ROOT / "tests" / "data" / "fixed" / "pi400-dangling-parent.jsonl"


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    target = tmp_path / COMPACTION.name
    shutil.copyfile(COMPACTION, target)
    return target


def test_fix_writes_with_a_backup_and_reports(
    broken: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = broken.read_bytes()
    assert main(["check", "--fix", str(broken)]) == 0
    out, err = capsys.readouterr()
    assert out == ""  # nothing is left to report
    assert err.splitlines() == [
        f"{broken}:6: fixed PI423: Keep from the assistant turn that holds the tool call (line 3)",
        f"{broken}: 1 repaired; original kept as {broken}.bak",
        "1 file checked: no problems",  # then check reports what is left: nothing
    ]
    assert Path(f"{broken}.bak").read_bytes() == original
    fixed = broken.read_text(encoding="utf-8").split("\n")
    assert json.loads(fixed[5])["firstKeptEntryId"] == "2b3c4d5e"
    assert [n for n, line in enumerate(original.decode().split("\n")) if line != fixed[n]] == [5]


def test_fix_again_changes_nothing(broken: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--fix", str(broken)]) == 0
    fixed = broken.read_bytes()
    capsys.readouterr()
    assert main(["check", "--fix", str(broken)]) == 0
    assert capsys.readouterr().err == "1 file checked: no problems\n"  # nothing repaired
    assert broken.read_bytes() == fixed and not Path(f"{broken}.bak.1").exists()


def test_diff_prints_and_writes_nothing(broken: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = broken.read_bytes()
    assert main(["check", "--diff", str(broken)]) == 1
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[:2] == [f"--- {broken}", f"+++ {broken}"]
    assert [line[0] for line in lines[3:] if line[:1] in "+-"] == ["-", "+"]
    assert "would fix PI423" in err
    assert broken.read_bytes() == original and not Path(f"{broken}.bak").exists()


def test_diff_of_a_clean_file_is_empty(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--diff", str(CLEAN)]) == 0
    assert capsys.readouterr() == ("", "")


def test_migrate_needs_fix_or_diff(broken: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--migrate", str(broken)]) == 2
    assert "--migrate needs --fix or --diff" in capsys.readouterr().err


def test_what_is_left_is_reported_in_the_chosen_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / INTERLOPER.name
    text = INTERLOPER.read_text(encoding="utf-8").split("\n")
    text.insert(2, "not json")  # stays: no entry is appended onto it
    target.write_text("\n".join(text), encoding="utf-8")
    assert main(["check", "--fix", "--format", "json", str(target)]) == 1
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert [d["code"] for d in report["files"][0]["diagnostics"]] == ["PI001"]
    assert "fixed PI423: Move this message after the tool results" in err


def test_file_changed_since_read_is_refused(
    broken: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repair = autofix.repair

    def racing(text: str, path: str | None = None, migrate: bool = False) -> autofix.Repaired:
        done = repair(text, path, migrate)
        with open(broken, "a", encoding="utf-8") as fh:  # pi appends meanwhile
            fh.write('{"type":"label","id":"99999999","parentId":null}\n')
        return done

    monkeypatch.setattr(autofix, "repair", racing)  # `check --fix` imports it when it repairs
    assert main(["check", "--fix", str(broken)]) == 2
    assert "changed since it was read" in capsys.readouterr().err
    assert broken.read_text(encoding="utf-8").endswith('"parentId":null}\n')
    assert not Path(f"{broken}.bak").exists()


def test_missing_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--fix", str(tmp_path / "missing.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_undecodable_bytes_survive_the_fix(tmp_path: Path) -> None:
    target = tmp_path / COMPACTION.name
    data = COMPACTION.read_bytes().replace(b"thanks", b"thanks \xff")
    target.write_bytes(data)
    assert main(["check", "--fix", str(target)]) == 1  # the bad byte is an error pi-lsp reports
    assert b"thanks \xff" in target.read_bytes()
    assert Path(f"{target}.bak").read_bytes() == data


def test_fix_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for source in (COMPACTION, INTERLOPER, CLEAN):
        shutil.copyfile(source, tmp_path / source.name)
    assert main(["check", "--fix", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert err.count("original kept as") == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [
            COMPACTION.name,
            f"{COMPACTION.name}.bak",
            INTERLOPER.name,
            f"{INTERLOPER.name}.bak",
            CLEAN.name,
        ]
    )


def test_diff_into_a_closed_pipe_keeps_the_exit_status(tmp_path: Path) -> None:
    """``pi-lsp check --diff ... | head -1``: still exit 1 (something to repair), no traceback."""
    import subprocess
    import sys

    paths = []
    for n in range(40):  # enough diff to fill the pipe after the reader is gone
        target = tmp_path / f"{n}-{COMPACTION.name}"
        shutil.copyfile(COMPACTION, target)
        paths.append(str(target))
    proc = subprocess.Popen(
        [sys.executable, "-m", "pi_lsp", "check", "--diff", *paths],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # what head does after one line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert first.startswith(b"--- ")
    assert "Traceback" not in err and "BrokenPipe" not in err


EXAMPLE = ROOT / "examples" / "broken-session.jsonl"


def test_the_readme_example_keeps_its_tool_result_on_the_path(tmp_path: Path) -> None:
    """Issue 43: the duplicate id is renumbered before the dangling parent is re-pointed,
    so the user message follows the result of ``toolu_01`` (line 5), not its call."""
    target = tmp_path / EXAMPLE.name
    shutil.copyfile(EXAMPLE, target)
    fixed = run_cli("check", "--fix", target)
    assert "Traceback" not in fixed.stderr
    assert f"{target}:6: fixed PI400: Re-parent to the previous entry (line 5)" in fixed.stderr
    text = target.read_text(encoding="utf-8")
    lines = [json.loads(line) for line in text.split("\n") if line]  # U+2028 stays inside
    assert lines[5]["parentId"] == lines[4]["id"] == "d4e5f6a7"
    assert lines[6]["id"] != "d4e5f6a7" and lines[7]["parentId"] == lines[6]["id"]
    shown = run_cli("context", "--json", target)
    sent = json.loads(shown.stdout)["sent"]
    assert {"role": "toolResult", "line": 5, "toolCallId": "toolu_01"} in sent  # context --json counts from 1
    assert not any(m.get("synthetic") for m in sent)
    tree = run_cli("tree", target).stdout.splitlines()
    assert all("•" in line for line in tree[1:])  # every entry on the path of the leaf
