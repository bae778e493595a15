"""``pi-lsp migrate``, ``fork``, ``tree`` and ``context`` on files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pi_lsp.cli import main
from pi_lsp.cli.commands import migrate as migrate_cli
from tests.core.pi_sessions import assistant, changed_lines, doc, entry, header, hook, user

A, B, C, D, E = (c * 8 for c in "abcde")
V1 = doc(header(None), user(None, False, "one"), assistant(None, False), user(None, False, "two"))
V3 = doc(
    header(),
    user(A, None, "root question"),
    assistant(B, A),
    entry("label", C, B, targetId=A, label="start"),
    user(D, C, "second"),
    user(E, B, "other branch"),
)


@pytest.fixture
def v1(tmp_path: Path) -> Path:
    path = tmp_path / "v1.jsonl"
    path.write_text(V1, encoding="utf-8")
    return path


@pytest.fixture
def v3(tmp_path: Path) -> Path:
    path = tmp_path / "v3.jsonl"
    path.write_text(V3, encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- migrate


def test_migrate_to_stdout_leaves_the_file(
    v1: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert main(["migrate", str(v1)]) == 0
    out = capfdbinary.readouterr().out.decode("utf-8")
    assert changed_lines(V1, out) == {0, 1, 2, 3}
    assert json.loads(out.split("\n")[0])["version"] == 3
    assert v1.read_text(encoding="utf-8") == V1


def test_migrate_to_another_file(v1: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    assert main(["migrate", str(v1), "-o", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8").split("\n")[3])["parentId"]
    assert v1.read_text(encoding="utf-8") == V1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl", "v1.jsonl"]


def test_migrate_in_place_keeps_a_backup(v1: Path, tmp_path: Path) -> None:
    assert main(["migrate", str(v1), "--in-place"]) == 0
    assert (tmp_path / "v1.jsonl.bak").read_text(encoding="utf-8") == V1
    assert json.loads(v1.read_text(encoding="utf-8").split("\n")[0])["version"] == 3


def test_migrate_in_place_without_backup(v1: Path, tmp_path: Path) -> None:
    assert main(["migrate", str(v1), "--in-place", "--no-backup"]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["v1.jsonl"]


def test_migrate_nothing_to_do(
    v3: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["migrate", str(v3), "--in-place"]) == 0
    assert "already v3" in capsys.readouterr().err
    assert v3.read_text(encoding="utf-8") == V3
    assert [p.name for p in tmp_path.iterdir()] == ["v3.jsonl"]


def test_migrate_refuses_a_file_changed_meanwhile(
    v1: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = migrate_cli.migrate.migrated_text

    def slow(*args: object) -> str:
        v1.write_text(V1 + user(None, False, "pi appended this") + "\n", encoding="utf-8")
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(migrate_cli.migrate, "migrated_text", slow)
    assert main(["migrate", str(v1), "--in-place"]) == 2
    assert "changed since it was read" in capsys.readouterr().err
    assert v1.read_text(encoding="utf-8").endswith('"pi appended this","timestamp":1}}\n')
    assert not v1.with_name("v1.jsonl.bak").exists()


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["--no-backup"], 2),
        (["-o", "x", "--in-place"], 2),
    ],
)
def test_migrate_usage_errors(v1: Path, args: list[str], status: int) -> None:
    try:
        code = main(["migrate", str(v1), *args])
    except SystemExit as exc:  # argparse
        code = int(exc.code or 0)
    assert code == status


def test_migrate_refuses_what_pi_refuses(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(doc(user(None, False)), encoding="utf-8")
    assert main(["migrate", str(path)]) == 1
    assert main(["migrate", str(tmp_path / "missing.jsonl")]) == 2


def test_migrate_as_a_subprocess(v1: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pi_lsp", "migrate", str(v1)], capture_output=True, check=False
    )
    assert proc.returncode == 0
    assert changed_lines(V1, proc.stdout.decode("utf-8")) == {0, 1, 2, 3}


# -------------------------------------------------------------------------------- fork


def test_fork_beside_the_file(v3: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fork", str(v3), "--at", D]) == 0
    new = Path(capsys.readouterr().out.strip())
    assert new.parent == tmp_path and new.name.endswith(".jsonl")
    lines = new.read_text(encoding="utf-8").split("\n")
    head = json.loads(lines[0])
    assert head["parentSession"] == str(v3) and head["version"] == 3
    assert new.name.split("_", 1)[1] == f"{head['id']}.jsonl"
    objs = [json.loads(x) for x in lines[1:-1]]
    assert [(o["type"], o.get("id")) for o in objs[:3]] == [
        ("message", A),
        ("message", B),
        ("message", D),
    ]
    assert objs[2]["parentId"] == B  # relinked past the dropped label entry
    assert (objs[3]["type"], objs[3]["targetId"], objs[3]["label"]) == ("label", A, "start")


def test_fork_v1_by_line_to_a_named_file(v1: Path, tmp_path: Path) -> None:
    out = tmp_path / "fork.jsonl"
    assert main(["fork", str(v1), "--at-line", "3", "-o", str(out)]) == 0
    objs = [json.loads(x) for x in out.read_text(encoding="utf-8").split("\n")[1:-1]]
    assert [o["message"]["role"] for o in objs] == ["user", "assistant"]
    assert main(["fork", str(v1), "--at-line", "3", "-o", str(out)]) == 2  # never overwrites


def test_fork_unknown_entry(v3: Path) -> None:
    assert main(["fork", str(v3), "--at", "nope"]) == 1
    assert main(["fork", str(v3), "--at-line", "1"]) == 1  # the header is no entry


# -------------------------------------------------------------------------------- tree


def test_tree_shows_branches_labels_and_leaf(v3: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tree", str(v3)]) == 0
    out = capsys.readouterr().out.split("\n")
    assert out[0].split()[0] == "1" and "session v3" in out[0]
    rows = {int(row.split()[0]): row for row in out[1:] if row.strip()}
    assert list(rows) == [2, 3, 6, 4, 5]  # the branch with the leaf first, as pi orders it
    assert "• [start] user: root question" in rows[2]
    assert rows[6].endswith("← leaf") and "├─ • user: other branch" in rows[6]
    assert "└─ label" in rows[4] and "• " not in rows[4]
    assert rows[5].split(None, 1)[1].startswith("user: second")


def test_tree_of_a_v1_file(v1: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tree", str(v1)]) == 0
    rows = [r for r in capsys.readouterr().out.split("\n") if r.strip()]
    assert len(rows) == 4 and rows[-1].endswith("← leaf")


# ----------------------------------------------------------------------------- context


def test_context_text_and_json(v3: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["context", str(v3)]) == 0
    out = capsys.readouterr().out.split("\n")
    assert out[0].startswith("3 messages · leaf line 6")
    assert [row.split()[0] for row in out[1:4]] == ["2", "3", "6"]
    assert main(["context", str(v3), "--json", "--leaf", D]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(m["role"], m["line"]) for m in data["messages"]] == [
        ("user", 2),
        ("assistant", 3),
        ("user", 5),
    ]
    assert data["model"] == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}


def test_context_of_v1_and_v2(v1: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["context", str(v1), "--json", "--leaf-line", "3"]) == 0
    assert [m["line"] for m in json.loads(capsys.readouterr().out)["messages"]] == [2, 3]
    v2 = tmp_path / "v2.jsonl"
    v2.write_text(doc(header(2), user(A, None), hook(B, A)), encoding="utf-8")
    assert main(["context", str(v2), "--json"]) == 0
    assert [m["role"] for m in json.loads(capsys.readouterr().out)["messages"]] == [
        "user",
        "custom",
    ]


def test_context_errors(v3: Path, tmp_path: Path) -> None:
    assert main(["context", str(v3), "--leaf", "nope"]) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text(doc(user(A, None)), encoding="utf-8")
    assert main(["context", str(bad)]) == 1
    assert main(["context", str(tmp_path / "missing.jsonl")]) == 2


def test_migrate_converts_the_second_dialect(tmp_path: Path) -> None:
    book = Path(__file__).resolve().parents[1] / "data" / "book-valid.jsonl"
    out = tmp_path / "converted.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "pi_lsp", "migrate", str(book), "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "converted from the second dialect" in done.stderr
    header = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert header["type"] == "session" and header["version"] == 3
    checked = subprocess.run(
        [sys.executable, "-m", "pi_lsp", "check", "--format", "json", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    severities = [d["severity"] for d in json.loads(checked.stdout)["files"][0]["diagnostics"]]
    assert checked.returncode == 0 and not [s for s in severities if s <= 2]
