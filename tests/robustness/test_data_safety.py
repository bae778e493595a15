"""Data safety: nothing is written unless asked; asked writes are atomic, refuse a file
that changed since it was read, keep the original on any error; edits are exact.

Exactness is judged on the result, not the edit: the migrated text (from ``pi-lsp
migrate`` or from applying the server's WorkspaceEdit ourselves) re-checks without
PI103, keeps every line it had no reason to touch byte for byte, and changes the others
only by the members a migration adds, renames or converts.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.core.checks.analysis import analyze

from . import drive, hostile, invariants, known, wsedit
from .exactness import migration_problems
from .lspclient import LspClient, start_stdio
from .snapshots import changes, snapshot
from .test_cli_hostile import COMMANDS

needs = pytest.mark.skipif


def _sessions() -> dict[str, str]:
    texts = {
        "v1.jsonl": hostile.v1_session(),
        "v2.jsonl": hostile.v2_session(),
        "v3.jsonl": hostile.v3_session(),
        "book.jsonl": hostile.book_session(),
        "crlf-v1.jsonl": hostile.v1_session().replace("\n", "\r\n"),
        "broken-v2.jsonl": hostile.v2_session() + '{"type":"message","id":"cut","par',
        "garbage-v1.jsonl": hostile.v1_session().replace("\n", "\nnot json\n\n", 1),
    }
    return texts


def _write_sessions(root: Path) -> dict[str, Path]:
    out = {}
    for name, text in _sessions().items():
        path = root / name
        path.write_text(text, encoding="utf-8", newline="")
        out[name] = path
    return out


def _migratable() -> dict[str, str]:
    texts = {
        name: t
        for name, t in _sessions().items()
        if name.startswith(("v1", "v2", "crlf", "garbage", "broken"))
    }
    for path in hostile.fixture_files():
        text = path.read_text(encoding="utf-8")
        try:
            version = json.loads(text.split("\n", 1)[0]).get("version", 1)
        except (ValueError, AttributeError):
            continue
        if version != 3:  # only files pi migrates (any name: pi16-*.jsonl are v3)
            texts[path.name] = text
    return texts


@needs("migrate" not in COMMANDS, reason="no migrate command yet")
@pytest.mark.parametrize("name", sorted(_migratable()))
def test_cli_migrate_output_is_exact(name: str, tmp_path: Path) -> None:
    text = _migratable()[name]
    src = tmp_path / name
    src.write_text(text, encoding="utf-8", newline="")
    out = tmp_path / "out.jsonl"
    before = snapshot(tmp_path)
    result = drive.run_cli_inproc(["migrate", str(src), "-o", str(out)])
    assert result.code == 0, result.stderr
    assert changes(before, snapshot(tmp_path)) == ["created out.jsonl"]
    assert migration_problems(text, out.read_bytes().decode("utf-8")) == []
    stdout = drive.run_cli_inproc(["migrate", str(src)])
    assert stdout.code == 0
    assert migration_problems(text, stdout.stdout_bytes.decode("utf-8")) == []


# -- nothing written unless asked -----------------------------------------------------------


def test_read_only_commands_write_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "w"
    work.mkdir()
    paths = _write_sessions(work)
    monkeypatch.chdir(work)
    before = snapshot(tmp_path)
    runs: list[list[str]] = [
        ["check", str(work)],
        ["check", "--format", "json", str(work)],
        ["check", "--format", "sarif", *map(str, paths.values())],
    ]
    for path in paths.values():
        if "tree" in COMMANDS:
            runs.append(["tree", str(path)])
        if "context" in COMMANDS:
            runs += [["context", str(path)], ["context", "--json", str(path)]]
        if "migrate" in COMMANDS:
            runs.append(["migrate", str(path)])
    if "schema" in COMMANDS:
        runs.append(["schema"])
    problems = []
    for argv in runs:
        result = drive.run_cli_inproc(argv)
        if result.code == -1:
            problems.append(f"{argv}: {result.stderr[-500:]}")
    assert not known.unknown(problems)
    assert changes(before, snapshot(tmp_path)) == []


@pytest.fixture
def disk_server(tmp_path: Path) -> Iterator[tuple[LspClient, Path]]:
    work = tmp_path / "w"
    work.mkdir()
    client = start_stdio(["utf-16"], cwd=work)
    yield client, work
    client.close()


def test_server_writes_nothing_unless_asked(
    disk_server: tuple[LspClient, Path], tmp_path: Path
) -> None:
    client, work = disk_server
    paths = _write_sessions(work)
    before = snapshot(tmp_path)
    rng = random.Random(11)
    commands = set((client.capabilities.get("executeCommandProvider") or {}).get("commands", []))
    problems = []
    for path in paths.values():
        uri = path.resolve().as_uri()
        text = path.read_text(encoding="utf-8")
        outcome = drive.exercise_server(client, text, rng, uri=uri, close=False)
        problems += outcome.problems
        for command, args in (
            ("pi-lsp.tree", [uri]),
            ("pi-lsp.stats", [uri]),
            ("pi-lsp.context", [uri, None]),
        ):
            if command in commands:
                with contextlib.suppress(drive.ResponseError):
                    client.request(
                        "workspace/executeCommand", {"command": command, "arguments": args}
                    )
        client.close_doc(uri)
    assert not known.unknown(problems), problems
    assert changes(before, snapshot(tmp_path)) == []


# -- asked writes: atomic, checked, never losing the original ---------------------------------


def _temp_leftovers(directory: Path) -> list[str]:
    return [
        p.name for p in directory.iterdir() if p.name.endswith(".tmp") or p.name.startswith(".")
    ]


@contextlib.contextmanager
def read_only_dir(path: Path) -> Iterator[None]:
    """Make ``path`` refuse new entries (chmod; for root, which ignores modes, chattr +i)."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    try:
        subprocess.run(["chattr", "+i", str(path)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("running as root without chattr: cannot make a directory read-only")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=False, capture_output=True)


@needs("migrate" not in COMMANDS, reason="no migrate command yet")
def test_migrate_in_place_is_atomic_and_keeps_a_backup(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    original = hostile.v1_session().encode()
    src.write_bytes(original)
    src.chmod(0o640)
    inode = src.stat().st_ino
    result = drive.run_cli_inproc(["migrate", "--in-place", str(src)])
    assert result.code == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl", "s.jsonl.bak"]
    assert (tmp_path / "s.jsonl.bak").read_bytes() == original
    # written beside and renamed over (a new inode), never rewritten in place
    assert src.stat().st_ino != inode
    assert src.stat().st_mode & 0o777 == 0o640
    assert migration_problems(original.decode(), src.read_text(encoding="utf-8")) == []
    again = drive.run_cli_inproc(["migrate", "--in-place", str(src)])
    assert again.code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl", "s.jsonl.bak"]


@needs("migrate" not in COMMANDS, reason="no migrate command yet")
def test_migrate_into_a_read_only_directory_keeps_everything(tmp_path: Path) -> None:
    work = tmp_path / "ro"
    work.mkdir()
    src = work / "s.jsonl"
    src.write_bytes(hostile.v2_session().encode())
    before = snapshot(work)
    with read_only_dir(work):
        result = drive.run_cli_inproc(["migrate", "--in-place", str(src)])
        result_o = drive.run_cli_inproc(["migrate", str(src), "-o", str(work / "new.jsonl")])
    for r in (result, result_o):
        assert r.code == 2, (r.code, r.stderr)
        assert "Traceback" not in r.stderr and r.stderr.strip()
    assert changes(before, snapshot(work)) == []


@needs("migrate" not in COMMANDS, reason="no migrate command yet")
def test_migrate_onto_a_directory_keeps_everything(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    src.write_bytes(hostile.v1_session().encode())
    target = tmp_path / "taken.jsonl"
    target.mkdir()
    (target / "inside").write_text("precious")
    before = snapshot(tmp_path)
    result = drive.run_cli_inproc(["migrate", str(src), "-o", str(target)])
    assert result.code == 2 and "Traceback" not in result.stderr, result.stderr
    assert changes(before, snapshot(tmp_path)) == []


@needs("migrate" not in COMMANDS, reason="no migrate command yet")
def test_migrate_refuses_a_file_changed_after_it_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_lsp.core.pi import migrate

    src = tmp_path / "s.jsonl"
    src.write_bytes(hostile.v1_session().encode())
    concurrent = hostile.v1_session() + hostile.user("late", None) + "\n"
    real = migrate.migrated_text

    def racing(*args: Any, **kwargs: Any) -> str:
        src.write_text(concurrent, encoding="utf-8")  # pi appends while we migrate
        os.utime(src, ns=(1, 1))
        return real(*args, **kwargs)

    monkeypatch.setattr(migrate, "migrated_text", racing)
    result = drive.run_cli_inproc(["migrate", "--in-place", str(src)])
    assert result.code == 2, (result.code, result.stderr)
    assert src.read_text(encoding="utf-8") == concurrent
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


@needs("migrate" not in COMMANDS, reason="no migrate command yet")
def test_migrate_keeps_the_original_when_the_disk_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "s.jsonl"
    original = hostile.v2_session().encode()
    src.write_bytes(original)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    result = drive.run_cli_inproc(["migrate", "--in-place", str(src)])
    monkeypatch.undo()
    assert result.code == 2 and "Traceback" not in result.stderr, result.stderr
    assert src.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"], _temp_leftovers(tmp_path)


@needs("fork" not in COMMANDS, reason="no fork command yet")
def test_fork_writes_one_new_file_and_never_overwrites(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    src.write_text(hostile.v3_session(), encoding="utf-8")
    out = tmp_path / "fork.jsonl"
    before = snapshot(tmp_path)
    result = drive.run_cli_inproc(["fork", str(src), "--at", "a0000002", "-o", str(out)])
    assert result.code == 0, result.stderr
    assert changes(before, snapshot(tmp_path)) == ["created fork.jsonl"]
    forked = analyze(out.read_text(encoding="utf-8"))
    assert not [f for f in forked.findings if int(f.severity) == 1], forked.findings
    out.write_text("precious")
    before = snapshot(tmp_path)
    again = drive.run_cli_inproc(["fork", str(src), "--at", "a0000002", "-o", str(out)])
    assert again.code == 2 and "Traceback" not in again.stderr
    assert changes(before, snapshot(tmp_path)) == []
    beside = drive.run_cli_inproc(["fork", str(src), "--at", "u0000002"])
    assert beside.code == 0, beside.stderr
    created = changes(before, snapshot(tmp_path))
    assert len(created) == 1 and created[0].startswith("created ") and created[0].endswith(".jsonl")


@needs("fork" not in COMMANDS, reason="no fork command yet")
def test_fork_into_a_read_only_directory_fails_cleanly(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    src.write_text(hostile.v3_session(), encoding="utf-8")
    before = snapshot(tmp_path)
    with read_only_dir(tmp_path):
        result = drive.run_cli_inproc(["fork", str(src), "--at", "a0000002"])
    assert result.code == 2 and "Traceback" not in result.stderr, result.stderr
    assert changes(before, snapshot(tmp_path)) == []


# -- workspace edits from the server --------------------------------------------------------


def _code_actions(
    client: LspClient, uri: str, diags: list[dict[str, Any]], code: str
) -> list[dict[str, Any]]:
    wanted = [d for d in diags if d["code"] == code]
    if not wanted:
        return []
    actions = client.request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": wanted[0]["range"],
            "context": {"diagnostics": wanted},
        },
    )
    out = []
    for action in actions or []:
        if "edit" not in action and isinstance(action.get("data"), (dict, list, str, int)):
            action = client.request("codeAction/resolve", action)
        out.append(action)
    return out


@pytest.fixture
def edit_server(shared_server: LspClient) -> LspClient:
    return shared_server


@pytest.mark.parametrize("name", sorted(_migratable()))
def test_migrate_code_action_is_exact(edit_server: LspClient, name: str) -> None:
    if not edit_server.capabilities.get("codeActionProvider"):
        pytest.skip("no code actions yet")
    text = _migratable()[name]
    uri = f"file:///tmp/pi-lsp-robustness/edit/{name}"
    edit_server.open(uri, text, 1)
    diags = edit_server.diagnostics_for(uri, 1, timeout=60)
    actions = [a for a in _code_actions(edit_server, uri, diags, "PI103") if "igrat" in a["title"]]
    edit_server.close_doc(uri)
    assert actions, "no migrate action on PI103"
    for action in actions:
        assert "edit" in action, action
        new = wsedit.apply(text, action["edit"], uri, "utf-16")
        assert migration_problems(text, new) == [], action["title"]


def test_every_quick_fix_applies_cleanly(edit_server: LspClient) -> None:
    """On fuzzed sessions: every code action's edit applies (ranges inside, on character
    boundaries, no overlap), edits only the document it was asked about unless it says
    so with a resource operation, and the fixed diagnostic's code becomes rarer."""
    if not edit_server.capabilities.get("codeActionProvider"):
        pytest.skip("no code actions yet")
    rng = random.Random(5)
    problems = []
    applied = 0
    for n, (name, data) in enumerate(hostile.cases(rng, 25, use_fixtures=False)):
        text = hostile.decode(data)
        uri = f"file:///tmp/pi-lsp-robustness/fix/{n}.jsonl"
        edit_server.open(uri, text, 1)
        diags = edit_server.diagnostics_for(uri, 1)
        for code in sorted({d["code"] for d in diags}):
            for action in _code_actions(edit_server, uri, diags, code):
                if "edit" not in action:
                    continue
                try:
                    new = wsedit.apply(text, action["edit"], uri, "utf-16")
                except wsedit.BadEdit as exc:
                    problems.append(f"{name}: {action['title']}: {exc}")
                    continue
                applied += 1
                if action.get("kind") == "quickfix" and action.get("diagnostics"):
                    fixed = action["diagnostics"][0]["code"]
                    before = sum(1 for f in analyze(text).findings if f.code == fixed)
                    after = sum(1 for f in analyze(new).findings if f.code == fixed)
                    if after >= before:
                        problems.append(
                            f"{name}: {action['title']!r} left {fixed} ({before} -> {after})"
                        )
        edit_server.close_doc(uri)
    problems = known.unknown(problems)
    assert not problems, "\n".join(problems[:20])
    assert applied > 0


# Regression: "Re-parent to the previous entry" wrote the previous entry's id even when it
# was duplicated and resolved elsewhere: a no-op, or a self-parent; the cycle stayed.
def test_reparent_quick_fix_breaks_the_cycle(edit_server: LspClient) -> None:
    if not edit_server.capabilities.get("codeActionProvider"):
        pytest.skip("no code actions yet")
    # line 2 (b) -> "a" = line 3 (the last "a"), line 3 (a) -> "b": a cycle through a duplicate id
    text = (
        "\n".join(
            [
                hostile.header(3),
                hostile.user("a", None, "first"),
                hostile.user("b", "a", "second"),
                hostile.user("a", "b", "dup"),
            ]
        )
        + "\n"
    )
    uri = "file:///tmp/pi-lsp-robustness/fix/dup-cycle.jsonl"
    edit_server.open(uri, text, 1)
    diags = edit_server.diagnostics_for(uri, 1)
    actions = [
        a
        for a in _code_actions(edit_server, uri, diags, "PI402")
        if "edit" in a and a["title"].startswith(("Re-parent", "Make this entry a root"))
    ]
    edit_server.close_doc(uri)
    assert actions
    for action in actions:
        new = wsedit.apply(text, action["edit"], uri, "utf-16")
        assert new != text, f"{action['title']!r} changes nothing"
        cycles = [f.span.line for f in analyze(new).findings if f.code == "PI402"]
        assert cycles == [], f"{action['title']!r} leaves a cycle on lines {cycles}"


@pytest.mark.parametrize("parent", ['{"a":1}', '["x"]'])
def test_code_actions_survive_an_object_parent_id(edit_server: LspClient, parent: str) -> None:
    text = hostile.v3_session().replace('"version":3', '"version":1')
    text = text.replace('"parentId":"a0000001"', '"parentId":' + parent)
    uri = "file:///tmp/pi-lsp-robustness/fix/object-parent.jsonl"
    edit_server.open(uri, text, 1)
    diags = edit_server.diagnostics_for(uri, 1)
    assert "PI303" in {d["code"] for d in diags}
    before = len(edit_server.messages())
    actions = _code_actions(edit_server, uri, diags, "PI303")
    errors = invariants.server_errors(edit_server.messages()[before:])
    edit_server.close_doc(uri)
    assert errors == []
    assert any("igrat" in a["title"] for a in actions)


@pytest.mark.parametrize(
    "prefix",
    [
        "",
        " \t",
        "\ufeff",
        pytest.param("\ufeff\ufeff"),
        pytest.param("\u00a0"),
        pytest.param("\u2028"),
    ],
    ids=repr,
)
@pytest.mark.parametrize("name", ["v1", "v2"])
def test_migrating_a_header_after_leading_whitespace(
    edit_server: LspClient, tmp_path: Path, prefix: str, name: str
) -> None:
    text = prefix + (hostile.v1_session() if name == "v1" else hostile.v2_session())
    path = tmp_path / "s.jsonl"
    path.write_text(text, encoding="utf-8")
    result = drive.run_cli_inproc(["migrate", str(path)])
    assert result.code == 0, result.stderr
    assert migration_problems(text, result.stdout_bytes.decode("utf-8")) == []
    uri = path.as_uri()
    edit_server.open(uri, text, 1)
    diags = edit_server.diagnostics_for(uri, 1)
    actions = _code_actions(edit_server, uri, diags, "PI103")
    edit_server.close_doc(uri)
    actions = [a for a in actions if "edit" in a and "igrat" in a["title"]]
    assert actions
    for action in actions:
        assert migration_problems(text, wsedit.apply(text, action["edit"], uri, "utf-16")) == []


def test_server_commands_on_closed_files_write_atomically(tmp_path: Path) -> None:
    """pi-lsp.migrate on a file that is not open edits it on disk: renamed over (new inode)
    with a .bak of the original; pi-lsp.fork writes one new file beside it; nothing else."""
    work = tmp_path / "w"
    work.mkdir()
    src = work / "s.jsonl"
    original = hostile.v1_session().encode()
    src.write_bytes(original)
    inode = src.stat().st_ino
    with start_stdio(["utf-16"], cwd=work) as client:
        commands = (client.capabilities.get("executeCommandProvider") or {}).get("commands", [])
        if "pi-lsp.migrate" not in commands:
            pytest.skip("no migrate command yet")
        answer = client.request(
            "workspace/executeCommand", {"command": "pi-lsp.migrate", "arguments": [src.as_uri()]}
        )
        assert answer and answer.get("applied"), answer
        names = sorted(p.name for p in work.iterdir())
        assert names == ["s.jsonl", "s.jsonl.bak"], names
        assert (work / "s.jsonl.bak").read_bytes() == original
        assert src.stat().st_ino != inode
        assert migration_problems(original.decode(), src.read_text(encoding="utf-8")) == []
        if "pi-lsp.fork" in commands:
            before = snapshot(work)
            forked = client.request(
                "workspace/executeCommand",
                {"command": "pi-lsp.fork", "arguments": [src.as_uri(), 2]},
            )
            created = changes(before, snapshot(work))
            assert len(created) == 1 and created[0].startswith("created "), created
            assert forked and Path(forked["path"]).name == created[0].split(" ", 1)[1]
