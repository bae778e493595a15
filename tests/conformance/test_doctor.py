"""The session doctor against pi 1.6, on sessions pi 1.6's own SessionManager writes.

``doctor_faults.mjs plant KIND`` writes a session with pi's SessionManager and plants one
fault of the kind that stops a session from resuming, as it arises. For each kind:

- pi-lsp reports it at the line the planting names;
- pi's own pipeline confirms it: the request pi-ai's ``transformMessages`` builds breaks
  the pairing rule, pi hangs on the cycle, refuses the file without its header, or loses
  the entry appended onto a torn line;
- the quick fix (where there is one) and ``pi-lsp check --fix`` repair it: pi loads the
  result, its request passes the pairing rule, every entry pi loaded before (and every
  entry line of the file but the torn fragment) is still there, and pi-lsp reports
  nothing more.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_install import PI_073, PI_16, PiRelease, find_pi, node_for, run_oracle
from test_conformance import objects, problems, read

from pi_lsp.cli import main
from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.edits import repairs
from pi_lsp.core.pi.context import session_context
from pi_lsp.core.pi.loading import UNDEFINED
from pi_lsp.core.pi.sent import Sent, pairing_faults
from pi_lsp.core.text.limits import V8_MAX_STRING
from pi_lsp.core.text.textedit import apply_edits
from pi_lsp.core.views.context_view import context_json

pytestmark = pytest.mark.slow  # 42 cases, each plants and checks faults with pi 1.6 in node

DOCTOR = Path(__file__).resolve().with_name("doctor_faults.mjs")

QUICK_FIXED = [
    "compaction-orphan",
    "chained-compactions",
    "edit-omits-call",
    "interloper",
    "interloper-branch",
    "dropped-turn",
    "dangling-call",
    "duplicate-id",
    "dangling-parent",
    "cycle",
]
CLI_ONLY = ["torn-append", "no-header", "torn-header"]
BREAKS_REQUEST = {
    "compaction-orphan",
    "chained-compactions",
    "edit-omits-call",
    "interloper",
    "interloper-branch",
    "dropped-turn",
}

Plant = Callable[[str, Path], dict[str, Any]]
Oracle = Callable[[list[Any]], dict[str, Any]]


@pytest.fixture(scope="session")
def plant(pi16_modules: Path) -> Plant:
    def call(kind: str, where: Path) -> dict[str, Any]:
        done = run_oracle(
            ["plant", kind, where], modules=pi16_modules, release=PI_16, script=DOCTOR
        )
        assert done["pi_version"].startswith("1.")
        return done

    return call


def leaves(planted: dict[str, Any]) -> list[list[str]]:
    """Oracle arguments for the leaves to check: the resumed one, and the abandoned branch."""
    out: list[list[str]] = [[]]
    if planted["kind"] == "interloper-branch":
        out.append(["--leaf", planted["ids"]["u2"]])
    return out


def pi_breaks(pi: dict[str, Any]) -> bool:
    """True when the request pi-ai builds (the oracle's ``sent``) breaks the pairing rule."""
    sent = [
        Sent(m["role"], m["line"], tuple(m.get("toolCallIds") or ()), m.get("toolCallId"))
        for m in pi["sent"]
    ]
    return bool(pairing_faults(sent))


def entry_ids(pi: dict[str, Any]) -> set[str]:
    return {e["id"] for e in pi["entries"] if e["type"] != "session"}


def written_ids(text: str) -> list[str]:
    """Ids of every entry line of ``text`` that parses (what the user wrote)."""
    return [
        v["id"]
        for v in objects(text).values()
        if isinstance(v, dict) and v.get("type") != "session" and isinstance(v.get("id"), str)
    ]


def assert_repaired(
    pi16_oracle: Oracle, planted: dict[str, Any], before: str, path: Path
) -> dict[str, Any]:
    """pi loads the repaired file whole, and what it sends passes the pairing rule."""
    kind = planted["kind"]
    after = read(path)
    a = analyze(after, path=str(path))
    for extra in leaves(planted):
        pi = pi16_oracle(["load", path, *extra])
        assert pi["pi_accepts"] and "error" not in pi, (kind, extra, pi.get("error"))
        assert not pi_breaks(pi), (kind, extra, pi["sent"])
        leaf = extra[1] if extra else UNDEFINED
        assert context_json(session_context(a, leaf))["sent"] == pi["sent"], (kind, extra)
    pi = pi16_oracle(["load", path])
    # every entry line that was there is still there (the torn fragment never parsed)
    assert set(written_ids(before)) <= entry_ids(pi), kind
    assert len(written_ids(after)) >= len(written_ids(before)), kind
    assert problems(a) == [], kind
    return pi


@pytest.mark.parametrize("kind", QUICK_FIXED + CLI_ONLY)
def test_fault_found_and_confirmed_by_pi(
    kind: str, plant: Plant, pi16_oracle: Oracle, tmp_path: Path
) -> None:
    planted = plant(kind, tmp_path)
    path = Path(planted["path"])
    text = read(path)
    a = analyze(text, path=str(path))
    expect = planted["expect"]
    assert (expect["code"], expect["line"]) in {(f.code, f.span.line) for f in a.findings}
    pi = pi16_oracle(["load", path])
    if pi["pi_accepts"] and "error" not in pi:  # what pi sends, marked as pi-lsp shows it
        assert context_json(session_context(a))["sent"] == pi["sent"]
    if kind in BREAKS_REQUEST:
        assert any(pi_breaks(pi16_oracle(["load", path, *extra])) for extra in leaves(planted))
        assert pi_breaks(pi16_oracle(["load", path, *leaves(planted)[-1]]))
    elif kind == "dangling-call":
        assert any(m.get("synthetic") for m in pi["sent"])  # pi-ai answers it itself
    elif kind == "cycle":
        assert pi["error"]["name"] == "Hang"
    elif kind in ("no-header", "torn-header"):
        assert not pi["pi_accepts"]
    elif kind == "torn-append":
        assert planted["ids"]["u3"] not in entry_ids(pi)  # pi skips the glued line
    elif kind == "duplicate-id":
        lost = [e for e in pi["entries"] if e["id"] == planted["ids"]["a1"]]
        assert len(lost) == 2  # and its index keeps only the second
    elif kind == "dangling-parent":
        assert pi["path_lines"][0] == expect["line"]  # the path stops there


@pytest.mark.parametrize("kind", QUICK_FIXED)
def test_quick_fix_repairs_it(kind: str, plant: Plant, pi16_oracle: Oracle, tmp_path: Path) -> None:
    planted = plant(kind, tmp_path)
    path = Path(planted["path"])
    text = read(path)
    a = analyze(text, path=str(path))
    expect = planted["expect"]
    fixes = repairs.fixes(a, expect["code"], expect["line"])
    chosen = [f for f in fixes if f.preferred]
    assert len(chosen) == 1, [f.title for f in fixes]
    path.write_text(apply_edits(a.text, chosen[0].edits()), encoding="utf-8")
    assert_repaired(pi16_oracle, planted, text, path)


@pytest.mark.parametrize("kind", QUICK_FIXED + CLI_ONLY)
def test_check_fix_repairs_it(
    kind: str,
    plant: Plant,
    pi16_oracle: Oracle,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    planted = plant(kind, tmp_path)
    path = Path(planted["path"])
    original = path.read_bytes()
    text = read(path)
    assert main(["check", "--diff", str(path)]) == 1
    diff = capsys.readouterr().out
    assert diff.startswith(f"--- {path}\n+++ {path}\n") and path.read_bytes() == original
    assert main(["check", "--fix", str(path)]) == 0
    err = capsys.readouterr().err
    expect = planted["expect"]
    line = 0 if kind == "torn-header" else expect["line"]  # the torn header line is rebuilt
    assert f"{path}:{line + 1}: fixed {expect['code']}" in err
    assert path.with_name(path.name + ".bak").read_bytes() == original
    assert_repaired(pi16_oracle, planted, text, path)
    repaired = path.read_bytes()
    assert main(["check", "--fix", str(path)]) == 0  # nothing left to do
    assert path.read_bytes() == repaired and not path.with_name(path.name + ".bak.1").exists()


def test_check_fix_many_files_at_once(
    plant: Plant, pi16_oracle: Oracle, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every planted kind in one folder, repaired by one ``check --fix DIR``."""
    folder = tmp_path / "all"
    planted = []
    for kind in QUICK_FIXED + CLI_ONLY:
        done = plant(kind, tmp_path / kind)
        target = folder / "--home-user-project--" / Path(done["path"]).name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(done["path"], target)
        planted.append((done, target, read(target)))
    assert main(["check", "--fix", str(folder)]) == 0
    capsys.readouterr()
    for done, target, before in planted:
        assert_repaired(pi16_oracle, done, before, target)
    assert sorted(os.listdir(folder / "--home-user-project--")) == sorted(
        n for _, t, _ in planted for n in (t.name, t.name + ".bak")
    )


@pytest.mark.parametrize("release", [PI_073, PI_16], ids=lambda r: r.label.replace(" ", ""))
def test_v8_string_limit_is_the_one_of_pis_node(release: PiRelease) -> None:
    """The limits of core/text/limits.py rest on V8's string limit in the node each pi runs on
    (bench/size_limits.mjs measures the loaders themselves: minutes, GBs)."""
    modules = find_pi(release, install=False)
    node = node_for(release, modules) if modules is not None else None
    if node is None:
        pytest.skip(f"{release.label} or its node not available")
    script = "process.stdout.write(String(require('buffer').constants.MAX_STRING_LENGTH))"
    done = subprocess.run([node, "-e", script], capture_output=True, text=True, check=True)
    assert int(done.stdout) == V8_MAX_STRING


def test_pi_v3_long_resumes_after_check_fix(
    fixtures_dir: Path, pi16_oracle: Oracle, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The fixture's real problem: its newest compaction keeps an orphaned tool result."""
    path = tmp_path / "pi-v3-long.jsonl"
    shutil.copyfile(fixtures_dir / "pi-v3-long.jsonl", path)
    path.chmod(0o644)
    before = pi16_oracle(["load", path])
    assert pi_breaks(before)
    assert main(["check", "--fix", str(path)]) == 0
    assert capsys.readouterr().err.count(": fixed PI42") == 13
    after = pi16_oracle(["load", path])
    assert not pi_breaks(after) and "error" not in after
    assert [e["id"] for e in after["entries"]] == [e["id"] for e in before["entries"]]
    ours = context_json(session_context(analyze(read(path), path=str(path))))["sent"]
    assert ours == after["sent"]


def test_the_readme_example_sends_its_tool_result_after_check_fix(
    any_pi_oracle: Oracle, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 43: after the repair pi sends the real result of ``toolu_01`` (line 5), not
    pi-ai's "No result provided", and pi-lsp's view of the request is pi's."""
    path = tmp_path / "broken-session.jsonl"
    shutil.copyfile(Path(__file__).resolve().parents[2] / "examples" / path.name, path)
    assert main(["check", "--fix", str(path)]) == 1  # PI201 and PI420 are left
    capsys.readouterr()
    after = any_pi_oracle(["load", path])
    assert "error" not in after
    assert {"role": "toolResult", "line": 4, "toolCallId": "toolu_01"} in after["sent"]
    assert not any(m.get("synthetic") for m in after["sent"])
    ours = context_json(session_context(analyze(read(path), path=str(path))))["sent"]
    assert ours == after["sent"]
