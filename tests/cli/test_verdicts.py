"""Issue 43, items 3-5, through the real command: ``migrate -o`` never replaces another
file (and ``-o FILE`` is ``--in-place``), one verdict on a file pi does not open, and one
line convention for ``context --json`` and ``--leaf-line``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.core.pi_sessions import assistant, doc, header, user

from .cli_support import run_cli

A, B, C, D = (c * 8 for c in "abcd")
V1 = doc(header(None), user(None, False, "one"), assistant(None, False), user(None, False, "two"))
BRANCHED = doc(
    header(),
    user(A, None, "root question"),
    assistant(B, A),
    user(C, B, "second"),
    user(D, B, "other branch"),
)


def doc_file(tmp_path: Path) -> Path:
    """A v3 session in ``tmp_path``."""
    path = tmp_path / "v3.jsonl"
    path.write_text(BRANCHED, encoding="utf-8")
    return path


# ------------------------------------------------------------- item 4: one verdict


@pytest.mark.parametrize("text", ["", "\n  \n"], ids=["empty", "blank lines"])
def test_every_command_gives_checks_verdict_on_a_file_without_text(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(text, encoding="utf-8")
    check = run_cli("check", "--format", "json", path)
    assert check.returncode == 1  # not "no problems": pi leaves the file out of /resume
    (finding,) = json.loads(check.stdout)["files"][0]["diagnostics"]
    assert finding["code"] == "PI100" and "/resume" in finding["message"]
    for command in (["context"], ["stats"], ["migrate"], ["tree"], ["export"], ["fork", "--at", A]):
        run = run_cli(*command, path)
        said = f"pi-lsp {command[0]}: {path}: {finding['message']}"
        assert run.returncode == 1 and said in run.stderr.splitlines(), command
    assert path.read_text(encoding="utf-8") == text


def test_tree_of_a_file_without_header_still_draws_it_and_says_why(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(doc(user(A, None), assistant(B, A)), encoding="utf-8")
    run = run_cli("tree", path)
    assert run.returncode == 1 and len(run.stdout.splitlines()) == 2
    assert "the first line that parses is not a session header" in run.stderr


# ------------------------------------------------- item 3: migrate -o as fork -o


def test_migrate_to_an_existing_file_refuses_as_fork_does(tmp_path: Path) -> None:
    source, out = tmp_path / "v1.jsonl", tmp_path / "out.jsonl"
    source.write_text(V1, encoding="utf-8")
    out.write_text("mine\n", encoding="utf-8")
    run = run_cli("migrate", source, "-o", out)
    assert run.returncode == 2
    assert run.stderr.startswith(f"pi-lsp migrate: {out} already exists; not overwriting it")
    assert out.read_text(encoding="utf-8") == "mine\n"
    assert source.read_text(encoding="utf-8") == V1
    fork = run_cli("fork", doc_file(tmp_path), "--at", B, "-o", out)
    assert fork.stderr.replace("fork", "migrate") == run.stderr  # the one refusal


@pytest.mark.parametrize("command", ["migrate", "fork"])
def test_force_replaces_an_existing_output_and_keeps_it(tmp_path: Path, command: str) -> None:
    source, out = tmp_path / "v1.jsonl", tmp_path / "out.jsonl"
    source.write_text(V1, encoding="utf-8")
    out.write_text("mine\n", encoding="utf-8")
    args = [source] if command == "migrate" else [doc_file(tmp_path), "--at", B]
    run = run_cli(command, *args, "-o", out, "--force")
    assert run.returncode == 0, run.stderr
    assert f"{out} replaced (backup: {out}.bak)" in run.stderr
    assert (tmp_path / "out.jsonl.bak").read_text(encoding="utf-8") == "mine\n"
    assert json.loads(out.read_text(encoding="utf-8").split("\n")[0])["version"] == 3


def test_migrate_force_needs_an_output(tmp_path: Path) -> None:
    source = tmp_path / "v1.jsonl"
    source.write_text(V1, encoding="utf-8")
    run = run_cli("migrate", source, "--force")
    assert run.returncode == 2 and run.stderr == "pi-lsp migrate: --force only applies with -o\n"
    assert run.stdout == ""


@pytest.mark.parametrize("how", ["same path", "symlink"])
def test_migrate_output_to_its_input_is_in_place_with_a_backup(tmp_path: Path, how: str) -> None:
    source = tmp_path / "v1.jsonl"
    source.write_text(V1, encoding="utf-8")
    out = source
    if how == "symlink":
        out = tmp_path / "link.jsonl"
        out.symlink_to(source)
    run = run_cli("migrate", source, "-o", out)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "v1.jsonl.bak").read_text(encoding="utf-8") == V1
    assert json.loads(source.read_text(encoding="utf-8").split("\n")[0])["version"] == 3
    assert "backup: " in run.stderr
    assert how == "same path" or out.is_symlink()


# --------------------------------------------- item 5: context --json lines from 1


def test_a_context_json_line_fed_back_to_leaf_line_names_the_same_entry(tmp_path: Path) -> None:
    path = doc_file(tmp_path)
    first = json.loads(run_cli("context", path, "--json").stdout)
    text = run_cli("context", path).stdout.splitlines()
    assert [m["line"] for m in first["messages"]] == [int(row.split()[0]) for row in text[1:]]
    assert first["leaf"] == {"line": 5, "id": D}  # the file's fifth and last line
    assert [s["line"] for s in first["sent"]] == [m["line"] for m in first["messages"]]
    at = first["messages"][1]  # the assistant turn on line 3
    again = json.loads(run_cli("context", path, "--json", "--leaf-line", str(at["line"])).stdout)
    assert again["leaf"] == {"line": at["line"], "id": B}
    assert again["messages"] == first["messages"][:2]
