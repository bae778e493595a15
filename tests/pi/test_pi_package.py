"""The pi package in ``editors/pi`` inside the real pi 1.6.0 (RPC mode, no model, no mocks).

Sessions are written by pi 1.6's own SessionManager (``doctor_faults.mjs`` plants one fault
of the kind that stops a session from resuming; tests/conformance/test_doctor.py confirms
with pi's pipeline that each changes what pi sends or keeps). pi resumes them with
``switch_session``; the package answers through ``extension_ui_request``s.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pi_rpc import (
    PACKAGE,
    PI_16,
    ROOT,
    Pi,
    Place,
    clean_session,
    plant,
    run_oracle,
    sessions_folder,
    set_cwd,
)

from pi_lsp.core.pi.sent import Sent, pairing_faults
from pi_lsp.core.text.codes import CODES

# faults that change what pi sends or keeps, as pi 1.6 writes them (doctor_faults.mjs kinds)
ASKED = [
    "interloper",
    "compaction-orphan",
    "edit-omits-call",
    "dropped-turn",
    "duplicate-id",
    "dangling-parent",
    "torn-append",
    "chained-compactions",
    "interloper-branch",
    "cycle",
    "no-header",
    "torn-header",
]
LOSES_ENTRIES = {"duplicate-id", "dangling-parent", "torn-append"}
HEADERLESS = {"no-header", "torn-header"}
HOST_PACKAGES = {
    "@earendil-works/pi-ai",
    "@earendil-works/pi-agent-core",
    "@earendil-works/pi-coding-agent",
    "@earendil-works/pi-tui",
    "typebox",
}
TIERED = [ASKED[0], *(pytest.param(kind, marks=pytest.mark.slow) for kind in ASKED[1:])]
"""The faults, the first in the fast tier (each case is a run of pi)."""


def table() -> dict[str, str]:
    """``CONSEQUENCES`` of editors/pi/extensions/consequences.ts: code -> when."""
    text = (PACKAGE / "extensions" / "consequences.ts").read_text(encoding="utf-8")
    return dict(re.findall(r'^\t(PI\d{3}): \["(always|error|never)"', text, re.M))


def test_the_table_classifies_every_code_of_pi_lsp() -> None:
    assert table().keys() == CODES.keys()


def test_cosmetic_codes_never_ask() -> None:
    when = table()
    assert [c for c in ("PI005", "PI103", "PI104", "PI421") if when[c] != "never"] == []
    assert when["PI500"] == "error"  # a long line is asked about only where pi cannot load it


def test_manifest_is_a_pi_package() -> None:
    manifest = json.loads((PACKAGE / "package.json").read_text(encoding="utf-8"))
    assert "pi-package" in manifest["keywords"]
    for entry in manifest["pi"]["extensions"]:
        assert (PACKAGE / entry).is_file()
    assert set(manifest.get("dependencies", {})) & HOST_PACKAGES == set()
    assert set(manifest["peerDependencies"].values()) == {"*"}
    assert set(manifest["peerDependencies"]) <= HOST_PACKAGES


# --- what pi itself does with a file ---------------------------------------------------------


def pi_loads(place: Place, path: Path) -> dict[str, Any]:
    """pi's own reading of ``path`` (pi_oracle.mjs load: SessionManager + pi-ai's request)."""
    return run_oracle(["load", path], modules=place.modules, release=PI_16)


def accepted(pi: dict[str, Any]) -> bool:
    """pi loads the file, the request pi-ai builds from it keeps every call paired, and no
    call whose result is in the file is answered with a synthetic "No result provided"."""
    if not pi["pi_accepts"] or "error" in pi:
        return False
    sent = [
        Sent(m["role"], m["line"], tuple(m.get("toolCallIds") or ()), m.get("toolCallId"))
        for m in pi["sent"]
    ]
    answered = {e.get("toolCallId") for e in pi["entries"] if e.get("role") == "toolResult"}
    synthetic = {m.get("toolCallId") for m in pi["sent"] if m.get("synthetic")}
    return not pairing_faults(sent) and not synthetic & answered


def entry_ids(text: str) -> set[str]:
    """The ids of the entry lines of ``text`` that parse."""
    ids = set()
    for line in text.split("\n"):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and value.get("type") != "session" and "id" in value:
            ids.add(value["id"])
    return ids


def untouched_but_by_pi(before: bytes, path: Path) -> bool:
    """``path`` holds ``before`` and at most what pi itself appends when it opens a session
    (its thinking level and model)."""
    after = path.read_bytes()
    added = after[len(before) :].decode("utf-8").splitlines()
    kinds = {json.loads(line)["type"] for line in added}
    return after.startswith(before) and kinds <= {"thinking_level_change", "model_change"}


def notice(pi: Pi, text: str) -> str:
    """The text of the notification holding ``text``."""
    return pi.find(lambda m: m.get("method") == "notify" and text in m.get("message", ""))[
        "message"
    ]


def state(pi: Pi) -> dict[str, Any]:
    return pi.call("get_state")["data"]


def selects(pi: Pi) -> list[dict[str, Any]]:
    return pi.ui_seen("select")


# --- before a resume -------------------------------------------------------------------------


def test_a_clean_session_resumes_with_no_question(place: Place, start: Any) -> None:
    path = clean_session(place.node, place.modules, place.sessions, place.project)
    pi = start()
    done = pi.call("switch_session", sessionPath=str(path))
    assert done["data"] == {"cancelled": False}
    assert state(pi)["sessionFile"] == str(path)
    status = pi.ui("setStatus")  # the new session's health: nothing to say
    assert status["statusKey"] == "pi-lsp" and status.get("statusText") is None
    assert selects(pi) == []


def test_a_cosmetic_finding_is_not_asked_about(place: Place, start: Any) -> None:
    planted = plant(place.modules, "dangling-call", place.sessions, place.project)  # PI421
    pi = start()
    assert pi.call("switch_session", sessionPath=str(planted["path"]))["data"]["cancelled"] is False
    assert selects(pi) == []


@pytest.mark.parametrize("kind", TIERED)
def test_a_broken_session_asks_and_cancel_leaves_all_as_it_was(
    place: Place, start: Any, kind: str
) -> None:
    planted = plant(place.modules, kind, place.sessions, place.project)
    path: Path = planted["path"]
    before = path.read_bytes()
    pi = start()
    was = state(pi)["sessionFile"]
    cid = pi.command("switch_session", sessionPath=str(path))
    dialog = pi.ui("select")
    assert dialog["options"] == ["Repair and resume", "Resume as is", "Cancel"]
    counted = r"^pi-lsp: (1 problem changes|\d+ problems change) what pi sends or keeps in "
    assert re.match(counted + re.escape(path.name), dialog["title"])
    # the first problem, by line: the planted one, or one before it (a torn header's own line)
    first = re.search(r"\nFirst, line (\d+): (PI\d{3}) ", dialog["title"])
    assert first is not None, dialog["title"]
    line, code = int(first[1]), first[2]
    expected = planted["expect"]["line"] + 1
    assert (line, code) == (expected, planted["expect"]["code"]) or line < expected
    pi.answer(dialog, value="Cancel")
    assert pi.response(cid)["data"] == {"cancelled": True}
    assert path.read_bytes() == before
    assert state(pi)["sessionFile"] == was


@pytest.mark.parametrize("kind", TIERED)
def test_repair_resumes_a_session_pi_accepts_with_every_entry(
    place: Place, start: Any, kind: str
) -> None:
    planted = plant(place.modules, kind, place.sessions, place.project)
    path: Path = planted["path"]
    before = path.read_bytes()
    # pi breaks on the resumed leaf, or loses entries (confirmed by tests/conformance/
    # test_doctor.py), or breaks on another branch (interloper-branch)
    assert not accepted(pi_loads(place, path)) or kind in LOSES_ENTRIES | {"interloper-branch"}
    pi = start()
    cid = pi.command("switch_session", sessionPath=str(path))
    pi.answer(pi.ui("select"), value="Repair and resume")
    done = pi.response(cid)
    if kind in HEADERLESS:
        # pi-lsp rebuilds the header's cwd from the folder name (/home/user/project), which
        # does not exist here: pi refuses it (its TUI asks to resume in the current folder)
        assert not done["success"] and "does not exist" in done["error"], done
        assert accepted(pi_loads(place, path))
        assert entry_ids(before.decode("utf-8", "replace")) <= entry_ids(path.read_text("utf-8"))
        return
    assert done["data"] == {"cancelled": False}
    assert state(pi)["sessionFile"] == str(path)
    assert Path(f"{path}.bak").read_bytes() == before
    assert f"the original is kept as {path.name}.bak" in notice(pi, "pi-lsp repaired")
    after = path.read_text(encoding="utf-8")
    assert entry_ids(before.decode("utf-8", "replace")) <= entry_ids(after)
    loaded = pi_loads(place, path)
    assert accepted(loaded), loaded.get("sent")
    messages = pi.call("get_messages")["data"]["messages"]
    assert len(messages) == len(loaded["context"]["messages"])
    status = pi.ui("setStatus")
    assert status.get("statusText") is None  # the repaired session has nothing left


def test_resume_as_is_resumes_the_file_untouched(place: Place, start: Any) -> None:
    planted = plant(place.modules, "interloper", place.sessions, place.project)
    path: Path = planted["path"]
    before = path.read_bytes()
    pi = start()
    cid = pi.command("switch_session", sessionPath=str(path))
    pi.answer(pi.ui("select"), value="Resume as is")
    assert pi.response(cid)["data"] == {"cancelled": False}
    assert untouched_but_by_pi(before, path) and not Path(f"{path}.bak").exists()
    assert pi.ui("setStatus")["statusText"] == "1 problem · /doctor"


def test_a_slow_check_never_holds_the_resume_up(place: Place, start: Any) -> None:
    planted = plant(place.modules, "interloper", place.sessions, place.project)
    pi = start(PI_LSP_DOCTOR_BUDGET_MS="0")
    done = pi.call("switch_session", sessionPath=str(planted["path"]))
    assert done["data"] == {"cancelled": False}
    assert notice(pi, "still checking")
    assert pi.ui("setStatus")["statusText"] == "1 problem · /doctor"  # the result, later
    assert selects(pi) == []


def test_a_missing_pi_lsp_is_said_once_and_stays_out_of_the_way(place: Place, start: Any) -> None:
    first = plant(place.modules, "interloper", place.sessions, place.project)["path"]
    second = clean_session(place.node, place.modules, place.sessions, place.project)
    pi = start(PI_LSP_PATH=str(place.home / "no-such-pi-lsp"))
    assert pi.call("switch_session", sessionPath=str(first))["data"]["cancelled"] is False
    assert pi.call("switch_session", sessionPath=str(second))["data"]["cancelled"] is False
    pi.call("get_state")
    notices = [m["message"] for m in pi.ui_seen("notify")]
    assert len([n for n in notices if "pipx install ." in n]) == 1, notices
    assert selects(pi) == []


# --- startup, /doctor, /doctor fix, fork, /session-stats -------------------------------------


@pytest.mark.parametrize("how", ["--session", pytest.param("-c", marks=pytest.mark.slow)])
def test_startup_on_a_broken_session_shows_a_status_and_a_notice(
    place: Place, start: Any, how: str
) -> None:
    planted = plant(place.modules, "duplicate-id", place.sessions, place.home)  # pi's cwd
    if how == "-c":  # the newest session of the folder pi starts in
        moved = sessions_folder(place.home, place.home) / planted["path"].name
        planted["path"] = Path(shutil.move(planted["path"], moved))
    before = planted["path"].read_bytes()
    pi = start(*([how, str(planted["path"])] if how == "--session" else [how]))
    assert state(pi)["sessionFile"] == str(planted["path"])
    assert pi.ui("setStatus")["statusText"] == "1 problem · /doctor"
    notice = pi.ui("notify")
    assert notice["notifyType"] == "warning" and "PI401" in notice["message"]
    assert untouched_but_by_pi(before, planted["path"])


def test_doctor_lists_the_findings_with_their_lines(place: Place, start: Any) -> None:
    planted = plant(place.modules, "compaction-orphan", place.sessions, place.project)
    pi = start("--session", str(planted["path"]))
    cid = pi.command("prompt", message="/doctor")
    text = notice(pi, "finding")
    assert f"line {planted['expect']['line'] + 1}: PI423" in text
    assert "providers reject every request" in text
    assert pi.response(cid)["success"] is True


def test_doctor_says_what_pi_does_with_a_finding_that_asks_nothing(
    place: Place, start: Any
) -> None:
    planted = plant(place.modules, "dangling-call", place.sessions, place.project)  # PI421
    pi = start("--session", str(planted["path"]))
    assert pi.ui("setStatus").get("statusText") is None
    pi.call("prompt", message="/doctor")
    text = notice(pi, "finding")
    assert f"line {planted['expect']['line'] + 1}: PI421 warning" in text
    assert '→ pi-ai answers the call with "No result provided"' in text
    assert text.endswith("None of them changes what pi sends or keeps.")


def test_doctor_fix_switches_to_a_repaired_copy(place: Place, start: Any) -> None:
    planted = plant(place.modules, "interloper", place.sessions, place.project)
    path: Path = planted["path"]
    before = path.read_bytes()
    pi = start("--session", str(path))
    pi.ui("setStatus")
    pi.call("prompt", message="/doctor fix", timeout=60)
    now = Path(state(pi)["sessionFile"])
    assert now != path and now.parent == path.parent
    assert untouched_but_by_pi(before, path)  # nothing but pi's own writes
    assert entry_ids(before.decode()) <= entry_ids(now.read_text(encoding="utf-8"))
    assert accepted(pi_loads(place, now))
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([path.name, now.name])
    assert selects(pi) == []  # the repaired copy is not asked about again
    assert "is unchanged" in notice(pi, "repaired a copy")


@pytest.mark.parametrize("answer", ["Cancel", "Fork as is"])
def test_a_fork_of_a_broken_session_asks(place: Place, start: Any, answer: str) -> None:
    planted = plant(place.modules, "interloper", place.sessions, place.project)
    path: Path = planted["path"]
    before = path.read_bytes()
    pi = start("--session", str(path))
    cid = pi.command("fork", entryId=planted["ids"]["u2"])
    dialog = pi.ui("select")
    assert dialog["options"] == ["Fork as is", "Cancel"]
    assert "line 4: PI423" in dialog["title"]
    pi.answer(dialog, value=answer)
    assert pi.response(cid)["data"]["cancelled"] is (answer == "Cancel")
    assert (state(pi)["sessionFile"] == str(path)) is (answer == "Cancel")
    assert untouched_but_by_pi(before, path)  # the package never writes the file pi has open


def test_session_stats_counts_by_model_with_the_context_now(place: Place, start: Any) -> None:
    path = clean_session(place.node, place.modules, place.sessions, place.project)
    pi = start("--session", str(path))
    pi.call("prompt", message="/session-stats")
    text = notice(pi, "pi-lsp stats")
    assert "this session: 1 user, 2 assistant, 1 tool calls" in text
    assert "anthropic/claude-sonnet-4-5: 200 in, 40 out" in text
    assert "context now:" in text


def test_session_stats_of_a_clone_counts_the_copied_entries_once(place: Place, start: Any) -> None:
    path = clean_session(place.node, place.modules, place.sessions, place.project)
    pi = start("--session", str(path))
    assert pi.call("clone")["data"]["cancelled"] is False
    assert state(pi)["sessionFile"] != str(path)
    pi.call("prompt", message="/session-stats")
    text = notice(pi, "pi-lsp stats")
    assert "this session's own entries (not those it copied when forked): 0 user" in text
    assert "with the 1 session it was forked from" in text
    assert "anthropic/claude-sonnet-4-5: 200 in, 40 out" in text  # not 400: copies count once


def test_set_cwd_keeps_the_rest_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"type":"session","cwd":"/x"}\n{"type":"message"}\n')
    set_cwd(path, tmp_path)
    assert path.read_bytes().split(b"\n")[1:] == [b'{"type":"message"}', b""]


@pytest.mark.slow
def test_the_package_type_checks_against_pi(pi16_install: tuple[str, Path], tmp_path: Path) -> None:
    """tsc (the VS Code extension's, or $PI_LSP_TSC) on the package against pi 1.6's types."""
    node, modules = pi16_install
    tsc = Path(
        os.environ.get("PI_LSP_TSC")
        or ROOT / "editors" / "vscode" / "node_modules" / "typescript" / "bin" / "tsc"
    )
    if not tsc.is_file():
        pytest.skip("typescript is not installed (npm ci in editors/vscode)")
    pi = modules / "@earendil-works" / "pi-coding-agent" / "dist" / "index.d.ts"
    options = {
        "target": "ES2022",
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "strict": True,
        "noEmit": True,
        "allowImportingTsExtensions": True,
        "skipLibCheck": True,
        "types": ["node"],
        "typeRoots": [str(modules / "@types")],
        "paths": {"@earendil-works/pi-coding-agent": [str(pi)]},
    }
    config = tmp_path / "tsconfig.json"
    files = [str(PACKAGE / "extensions" / "doctor.ts")]
    config.write_text(json.dumps({"compilerOptions": options, "files": files}), encoding="utf-8")
    done = subprocess.run(
        [node, str(tsc), "-p", str(config)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr


def pi_cli(place: Place, *args: str) -> subprocess.CompletedProcess[str]:
    """pi's command line with the temporary HOME, no API key, this checkout's pi-lsp."""
    cli = place.modules / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" / "cli.js"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        HOME=str(place.home),
        PI_CODING_AGENT_DIR=str(place.home / ".pi" / "agent"),
        PI_LSP_PATH=str(place.pi_lsp),
    )
    return subprocess.run(
        [place.node, str(cli), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=place.home,
        timeout=120,
    )


@pytest.mark.parametrize("how", ["-e", "install"])
def test_without_a_ui_the_findings_go_to_stderr(place: Place, how: str) -> None:
    """Print mode (`pi -p`, no UI), with the package from `-e` or `pi install`: the startup
    notice and /doctor's list are printed."""
    planted = plant(place.modules, "interloper", place.sessions, place.project)
    if how == "install":
        installed = pi_cli(place, "install", str(PACKAGE))
        assert installed.returncode == 0, installed.stderr
        load = []
    else:
        load = ["-ne", "-e", str(PACKAGE)]
    done = pi_cli(place, "--offline", *load, "--session", str(planted["path"]), "-p", "/doctor")
    assert done.returncode == 0, done.stderr
    assert "1 problem changes what pi sends or keeps" in done.stderr
    assert f"line {planted['expect']['line'] + 1}: PI423 error" in done.stderr


def test_the_flag_names_pi_lsp_before_the_environment(place: Place, start: Any) -> None:
    planted = plant(place.modules, "interloper", place.sessions, place.project)
    pi = start("--pi-lsp", str(place.pi_lsp), PI_LSP_PATH=str(place.home / "no-such-pi-lsp"))
    cid = pi.command("switch_session", sessionPath=str(planted["path"]))
    pi.answer(pi.ui("select"), value="Cancel")
    assert pi.response(cid)["data"] == {"cancelled": True}
