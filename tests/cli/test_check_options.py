"""``pi-lsp check`` as people who use ruff expect it (issue 16): every test runs the real command.

What it says about a clean file, an empty folder and a missing path; code selection by
prefix; standard input; colour; quiet, statistics, output file and exit-zero; pi-lsp.toml;
globs, ``*.JSONL`` and symlinked folders; ``-j``; a closed pipe; SARIF's related
locations, invocations and relative URIs.
"""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.core.pi_sessions import doc, header

from .cli_support import ROOT, run_cli

BROKEN = ROOT / "tests" / "data" / "broken"
CLEAN = ROOT / "tests" / "data" / "fixed" / "pi400-dangling-parent.jsonl"
MANY = BROKEN / "many-problems.jsonl"
EXAMPLE = ROOT / "examples" / "broken-session.jsonl"
RELATED = BROKEN / "pi403-parent-on-later-line.jsonl"
ANSI = "\x1b["


def env(tmp: Path | None = None, **extra: str) -> dict[str, str]:
    """The environment without colour forcing, with a private user config folder."""
    out = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NO_COLOR", "FORCE_COLOR", "PI_CODING_AGENT_DIR", "XDG_CONFIG_HOME")
    }
    out["XDG_CONFIG_HOME"] = str(tmp / "no-user-config") if tmp else "/nonexistent-config"
    out.update(extra)
    return out


def check(
    *args: str | Path,
    cwd: Path = ROOT,
    environ: dict[str, str] | None = None,
    stdin: bytes | None = None,
) -> subprocess.CompletedProcess[str]:
    return run_cli("check", *args, cwd=cwd, env=environ or env(), stdin=stdin)


def codes(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line.split(": ", 2)[1].split()[1] for line in proc.stdout.splitlines()]


def as_json(*args: str | Path, **kw: Any) -> dict[str, Any]:
    proc = check("--format", "json", *args, **kw)
    assert proc.returncode in (0, 1), proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


# ------------------------------------------------------------------ what a run always says


def test_a_clean_file_says_so() -> None:
    proc = check(CLEAN)
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr.strip() == "1 file checked: no problems"


def test_an_empty_folder_says_so(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("{}", encoding="utf-8")
    proc = check(tmp_path)
    assert proc.returncode == 0
    assert f"{tmp_path}: no session files (*.jsonl) found" in proc.stderr
    assert proc.stderr.splitlines()[-1] == "no file checked"


def test_a_missing_path_does_not_stop_the_others() -> None:
    proc = check("tests/data/does-not-exist.jsonl", EXAMPLE, "tests/nowhere")
    assert proc.returncode == 2  # an I/O error wins over the errors found
    assert codes(proc) == ["PI400", "PI401", "PI201", "PI420", "PI002"]
    assert "does-not-exist.jsonl: no such file or directory" in proc.stderr
    assert "tests/nowhere: no such file or directory" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_quiet_prints_the_diagnostics_only() -> None:
    loud, quiet = check(EXAMPLE), check("--quiet", EXAMPLE)
    assert quiet.stdout == loud.stdout and quiet.stdout
    assert "checked" in loud.stderr and quiet.stderr == ""
    assert check("-q", CLEAN).stderr == ""


# ------------------------------------------------------------------ codes and severities


@pytest.mark.parametrize("spec", ["PI999=off", "PI4X=off", "XY1=warning", "PI=loud", "PI103=warm"])
def test_severity_for_nothing_known_is_refused(spec: str) -> None:
    proc = check("--severity", spec, CLEAN)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("pi-lsp check: --severity")
    assert spec.split("=")[0] in proc.stderr or spec.split("=")[1] in proc.stderr


def test_severity_by_prefix_and_the_most_specific_wins() -> None:
    found = as_json("--severity", "PI4=warning", "--severity", "PI401=off", MANY)
    pairs = {(d["code"], d["severity"]) for f in found["files"] for d in f["diagnostics"]}
    assert ("PI400", 2) in pairs and ("PI420", 2) in pairs
    assert not [c for c, _ in pairs if c == "PI401"]
    assert ("PI001", 1) in pairs  # other prefixes untouched


@pytest.mark.parametrize(("name", "level"), [("warn", 2), ("warning", 2), ("info", 3), ("INFO", 3)])
def test_short_level_names(name: str, level: int) -> None:
    found = as_json("--severity", f"PI400={name}", EXAMPLE)
    assert {d["severity"] for d in found["files"][0]["diagnostics"] if d["code"] == "PI400"} == {
        level
    }


def test_select_and_ignore_by_prefix() -> None:
    assert set(codes(check("--select", "PI4", MANY))) == {"PI400", "PI401", "PI420"}
    assert set(codes(check("--select", "PI4", "--ignore", "PI40", MANY))) == {"PI420"}
    assert set(codes(check("--select", "PI001,PI420", MANY))) == {"PI001", "PI420"}
    everything = set(codes(check(MANY)))
    assert set(codes(check("--ignore", "PI0", MANY))) == {c for c in everything if c[:3] != "PI0"}
    # the more specific selector wins, either way round
    assert set(codes(check("--select", "PI401", "--ignore", "PI4", MANY))) == {"PI401"}
    proc = check("--select", "PI9", MANY)
    assert proc.returncode == 2 and "--select: 'PI9' is no code" in proc.stderr


def test_exit_zero() -> None:
    assert check(EXAMPLE).returncode == 1
    proc = check("--exit-zero", EXAMPLE)
    assert proc.returncode == 0 and "PI400" in proc.stdout
    assert check("--exit-zero", EXAMPLE, "nowhere.jsonl").returncode == 2


def test_statistics_count_what_was_found() -> None:
    proc = check("--statistics", BROKEN)
    assert proc.returncode == 1
    rows = [line.split() for line in proc.stdout.splitlines()]
    found = as_json(BROKEN)
    want = Counter((d["code"], d["severity"]) for f in found["files"] for d in f["diagnostics"])
    names = {1: "error", 2: "warning", 3: "information", 4: "hint"}
    assert {(r[1], r[2]): int(r[0]) for r in rows} == {
        (code, names[s]): n for (code, s), n in want.items()
    }
    counts = [int(r[0]) for r in rows]
    assert counts == sorted(counts, reverse=True)
    stats = json.loads(check("--statistics", "--format", "json", BROKEN).stdout)["statistics"]
    assert {(s["code"], s["severity"]): s["count"] for s in stats} == dict(want)
    assert check("--statistics", "--format", "sarif", BROKEN).returncode == 2


def test_output_file(tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    proc = check("--output-file", out, EXAMPLE)
    assert proc.returncode == 1 and proc.stdout == ""
    assert out.read_text(encoding="utf-8") == check(EXAMPLE).stdout
    proc = check("-o", tmp_path / "no" / "such" / "dir.txt", EXAMPLE)
    assert proc.returncode == 2 and "cannot write" in proc.stderr


# ------------------------------------------------------------------ standard input


def test_standard_input_is_checked_like_the_file() -> None:
    data = EXAMPLE.read_bytes()
    piped = check("-", stdin=data)
    on_disk = check(EXAMPLE)
    assert piped.returncode == on_disk.returncode == 1
    assert piped.stdout == on_disk.stdout.replace(f"{EXAMPLE}:", "-:")
    named = check("-", "--stdin-filename", "sessions/s.jsonl", stdin=data)
    assert named.stdout.splitlines()[0].startswith("sessions/s.jsonl:6:46: error PI400")
    mixed = as_json("-", CLEAN, stdin=data)
    assert [f["path"] for f in mixed["files"]] == ["-", str(CLEAN)]


# ------------------------------------------------------------------ colour


def test_colour_always_never_and_pipes() -> None:
    always = check("--color", "always", EXAMPLE).stdout
    assert f"{ANSI}1;31merror{ANSI}0m" in always and f"{ANSI}1mPI400{ANSI}0m" in always
    assert ANSI not in check("--color", "never", EXAMPLE).stdout
    assert ANSI not in check(EXAMPLE).stdout  # auto, into a pipe
    assert ANSI in check(EXAMPLE, environ=env(FORCE_COLOR="1")).stdout
    assert ANSI not in check(EXAMPLE, environ=env(FORCE_COLOR="1", NO_COLOR="1")).stdout


def _on_a_terminal(*args: str, **extra: str) -> str:
    """stdout of ``pi-lsp ARGS`` run on a pseudo-terminal."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pi_lsp", *args],
        stdout=slave,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env=env(**extra),
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    proc.wait(timeout=60)
    return b"".join(chunks).decode("utf-8")


def test_colour_on_a_terminal_unless_no_color() -> None:
    assert ANSI in _on_a_terminal("check", str(EXAMPLE))
    assert ANSI not in _on_a_terminal("check", str(EXAMPLE), NO_COLOR="1")
    assert ANSI not in _on_a_terminal("check", "--color", "never", str(EXAMPLE))


# ------------------------------------------------------------------ pi-lsp.toml


def test_project_and_user_configuration_files(tmp_path: Path) -> None:
    project = tmp_path / "project"
    sessions = project / "a" / "b"
    sessions.mkdir(parents=True)
    shutil.copy(EXAMPLE, sessions / "s.jsonl")
    user_dir = tmp_path / "xdg" / "pi-lsp"
    user_dir.mkdir(parents=True)
    (user_dir / "pi-lsp.toml").write_text('ignore = ["PI002"]\n', encoding="utf-8")
    environ = env(XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    assert "PI002" not in codes(check(sessions, environ=environ))  # the user's file
    (project / "pi-lsp.toml").write_text(
        'ignore = ["PI42"]\n[severity]\nPI4 = "warn"\nPI002 = "hint"\n', encoding="utf-8"
    )
    proc = check(sessions / "s.jsonl", environ=environ, cwd=tmp_path)
    assert codes(proc) == ["PI400", "PI401", "PI201"]  # both files: ignores add up
    assert proc.returncode == 0 and ": warning PI400 " in proc.stdout
    # options win over the files; --isolated ignores them
    proc = check(sessions, "--severity", "PI400=error", environ=environ)
    assert proc.returncode == 1 and ": error PI400 " in proc.stdout
    isolated = check("--isolated", sessions, environ=environ)
    assert codes(isolated) == ["PI400", "PI401", "PI201", "PI420", "PI002"]
    # a file elsewhere finds no project file
    assert codes(check(EXAMPLE, environ=env(tmp_path))) == codes(isolated)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("colour = 1\n", "unknown key 'colour'"),
        ("[severity]\nPI999 = 'off'\n", "'PI999' is no code"),
        ("select = 'PI4'\n", "expected a list"),
        ("select = [\n", "not valid TOML"),
    ],
)
def test_a_wrong_configuration_file_is_named(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "pi-lsp.toml").write_text(text, encoding="utf-8")
    shutil.copy(CLEAN, tmp_path / "s.jsonl")
    proc = check(tmp_path, environ=env(tmp_path))
    assert proc.returncode == 2 and proc.stdout == ""
    assert str(tmp_path / "pi-lsp.toml") in proc.stderr and message in proc.stderr
    assert "Traceback" not in proc.stderr


# ------------------------------------------------------------------ which files


def test_glob_patterns_upper_case_names_and_symlinked_folders(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere" / "sessions"
    real.mkdir(parents=True)
    shutil.copy(EXAMPLE, real / "one.JSONL")
    shutil.copy(CLEAN, real / "two.jsonl")
    (real / "loop").symlink_to(real, target_is_directory=True)  # no endless walk
    top = tmp_path / "top"
    top.mkdir()
    (top / "linked").symlink_to(real, target_is_directory=True)
    found = [Path(f["path"]).name for f in as_json(top)["files"]]
    assert found == ["one.JSONL", "two.jsonl"]
    by_glob = as_json(f"{tmp_path}/**/*.jsonl")["files"]
    assert {Path(f["path"]).name for f in by_glob} == {"two.jsonl"}
    assert len(as_json(f"{tmp_path}/elsewhere/*/*.JSONL")["files"]) == 1
    proc = check(f"{tmp_path}/nothing/*.jsonl")
    assert proc.returncode == 2 and "nothing/*.jsonl: no such file or directory" in proc.stderr


@pytest.mark.parametrize("jobs", ["-1", "many"])
def test_jobs_must_be_a_count(jobs: str) -> None:
    proc = check("-j", jobs, BROKEN)
    assert proc.returncode == 2 and "-j/--jobs" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_closed_pipe_keeps_the_exit_status(tmp_path: Path) -> None:
    """``pi-lsp check ... | head -1``: exit 1 (errors found), no traceback."""
    big = tmp_path / "big.jsonl"
    big.write_text(doc(header(), *["{broken" for _ in range(5000)]), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pi_lsp", "check", str(big)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # what head does after one line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert b"PI001" in first
    assert "Traceback" not in err and "BrokenPipe" not in err


# ------------------------------------------------------------------ SARIF


def test_sarif_related_locations_invocations_and_relative_uris(tmp_path: Path) -> None:
    proc = check("--format", "sarif", RELATED.relative_to(ROOT), "missing.jsonl")
    assert proc.returncode == 2
    (run,) = json.loads(proc.stdout)["runs"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == ROOT.as_uri() + "/"
    (result,) = run["results"]
    where = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert where == {
        "uri": "tests/data/broken/pi403-parent-on-later-line.jsonl",
        "uriBaseId": "%SRCROOT%",
    }
    (related,) = result["relatedLocations"]
    assert related["id"] == 1 and related["message"]["text"]
    assert related["physicalLocation"]["artifactLocation"] == where
    assert related["physicalLocation"]["region"]["startLine"] == 4  # the parent, a line later
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    (note,) = invocation["toolExecutionNotifications"]
    assert "missing.jsonl" in note["message"]["text"]
    # outside the working directory: an absolute URI
    shutil.copy(RELATED, tmp_path / "r.jsonl")
    (run,) = json.loads(check("--format", "sarif", tmp_path / "r.jsonl").stdout)["runs"]
    location = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": (tmp_path / "r.jsonl").as_uri()}
    assert run["invocations"][0]["executionSuccessful"] is True
