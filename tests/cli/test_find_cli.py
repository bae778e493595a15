"""``pi-lsp find``: ids, id prefixes, labels, names and words in a folder of sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_lsp.cli import main
from pi_lsp.core.workspace.search import index_file, search

from .cli_support import run_cli


def _write(path: Path, entries: list[dict[str, object]]) -> Path:
    header = {"type": "session", "version": 3, "id": path.stem, "timestamp": "2025-01-01T00:00:00Z", "cwd": "/"}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(e) for e in [header, *entries]) + "\n", encoding="utf-8")
    return path


def _entry(ident: str, parent: str | None, **fields: object) -> dict[str, object]:
    return {"type": "message", "id": ident, "parentId": parent, "timestamp": "2025-01-01T00:00:01Z", **fields}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PI_LSP_SEARCH_CACHE", str(tmp_path / "cache.json"))
    root = tmp_path / "sessions"
    _write(root / "p" / "one.jsonl", [
        _entry("a1b2c3d4", None, message={"role": "user", "content": "Fix the flaky Parser test"}),
        _entry("a1ffffff", "a1b2c3d4", message={"role": "assistant", "content": [{"type": "text", "text": "done"}]}),
        {"type": "label", "id": "l0000001", "parentId": "a1ffffff", "timestamp": "t", "targetId": "a1b2c3d4", "label": "good start"},
        {"type": "session_info", "id": "n0000001", "parentId": "l0000001", "timestamp": "t", "name": "Parser rewrite"},
    ])
    _write(root / "q" / "two.jsonl", [
        _entry("b0000001", None, message={"role": "user", "content": [{"type": "text", "text": "parser docs please"}]}),
        {"type": "label", "id": "l0000002", "parentId": "b0000001", "timestamp": "t", "targetId": "b0000001", "label": "old"},
        {"type": "label", "id": "l0000003", "parentId": "l0000002", "timestamp": "t", "targetId": "b0000001"},
    ])
    return root


def _find(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, list[str]]:
    status = main(["find", *map(str, args)])
    return status, capsys.readouterr().out.splitlines()


def test_by_id_and_id_prefix(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = Path("p", "one.jsonl")  # relative to the folder given
    assert _find(capsys, "A1B2C3D4", folder) == (0, [f"{one}:2: user: Fix the flaky Parser test"])
    status, lines = _find(capsys, "a1", folder)
    assert status == 0 and [line.split(": ")[0] for line in lines] == [f"{one}:2", f"{one}:3"]


def test_by_label_name_and_words(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = Path("p", "one.jsonl")
    assert _find(capsys, "good", folder) == (0, [f"{one}:2: 🏷 good start · user: Fix the flaky Parser test"])
    assert _find(capsys, "old", folder) == (1, [])  # that label was cleared
    _, lines = _find(capsys, "parser", folder)
    # the session's name first, then user messages holding the word
    assert [line.split(": ", 1)[0] for line in lines] == [f"{one}:5", f"{one}:2", f"{Path('q', 'two.jsonl')}:2"]
    assert _find(capsys, "flaky fix", folder)[1] == [f"{one}:2: user: Fix the flaky Parser test"]
    assert _find(capsys, "parser", folder, "--limit", "1")[1] == [f'{one}:5: session name: "Parser rewrite"']


def test_paths_are_relative_to_the_folder_given(folder: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    found = run_cli("find", "parser", folder, cwd=elsewhere)
    assert [line.split(":")[0] for line in found.stdout.splitlines()] == ["p/one.jsonl", "p/one.jsonl", "q/two.jsonl"]
    inside = run_cli("find", "docs", folder / "q", cwd=folder)
    assert inside.stdout == "two.jsonl:2: user: parser docs please\n"
    relative = run_cli("find", "docs", "q", cwd=folder)  # given relative: as given
    assert relative.stdout == "q/two.jsonl:2: user: parser docs please\n"
    file = folder / "q" / "two.jsonl"
    assert run_cli("find", "docs", file, cwd=elsewhere).stdout.startswith(f"{file}:2: ")  # as given


def test_nothing_found_and_bad_input(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _find(capsys, "zzz", folder) == (1, [])
    assert main(["find", " ", str(folder)]) == 2
    assert main(["find", "x", str(folder / "missing")]) == 2
    assert "no such file or directory" in capsys.readouterr().err


def test_the_cache_follows_changes(folder: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert _find(capsys, "c0ffee00", folder)[0] == 1
    assert (tmp_path / "cache.json").is_file()
    two = folder / "q" / "two.jsonl"
    with two.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(_entry("c0ffee00", "b0000001", message={"role": "user", "content": "later"})) + "\n")
    assert _find(capsys, "c0ffee00", folder) == (0, [f"{two.relative_to(folder)}:5: user: later"])
    (tmp_path / "cache.json").write_text("{not json", encoding="utf-8")  # a broken cache is ignored
    assert _find(capsys, "c0ffee00", folder)[0] == 0


def test_search_core_ranks_ids_before_words(folder: Path) -> None:
    indexes = [index_file(str(p)) for p in sorted(folder.rglob("*.jsonl"))]
    assert [m.why for m in search(indexes, "a1b2c3d4")] == ["id"]
    assert search(indexes, "") == []
