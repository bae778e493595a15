"""The search index cached on disk: where it lives, what survives a reload, when it is reused."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from pi_lsp.core.workspace import search_cache
from pi_lsp.core.workspace.search import FileIndex, Record, index_file, stamp

from .pi_sessions import doc, entry, header, user


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cache" / "index.json"
    monkeypatch.setenv("PI_LSP_SEARCH_CACHE", str(path))
    return path


def _session(path: Path, *lines: str) -> str:
    path.write_text(doc(header(), *lines), encoding="utf-8")
    return str(path)


def test_the_cache_lives_under_xdg_cache_home_or_the_home_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PI_LSP_SEARCH_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert search_cache.cache_path() == tmp_path / "xdg" / "pi-lsp" / "search-index.json"
    monkeypatch.setenv("XDG_CACHE_HOME", "")  # empty: as if unset
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert (
        search_cache.cache_path() == tmp_path / "home" / ".cache" / "pi-lsp" / "search-index.json"
    )
    monkeypatch.setenv("PI_LSP_SEARCH_CACHE", "")  # empty: the default
    assert (
        search_cache.cache_path() == tmp_path / "home" / ".cache" / "pi-lsp" / "search-index.json"
    )


def test_the_cache_file_can_be_named_or_turned_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_LSP_SEARCH_CACHE", str(tmp_path / "mine.json"))
    assert search_cache.cache_path() == tmp_path / "mine.json"
    monkeypatch.setenv("PI_LSP_SEARCH_CACHE", "off")
    assert search_cache.cache_path() is None
    search_cache.save([FileIndex(str(tmp_path / "a.jsonl"), 1, 2, [Record(1, "x")])])
    assert search_cache.load() == {}
    assert list(tmp_path.iterdir()) == []


def test_saved_indexes_load_back_equal(cache: Path, tmp_path: Path) -> None:
    one = FileIndex(str(tmp_path / "one.jsonl"), 120, 7, [Record(1, "a1", "good", None, "fix it")])
    two = FileIndex(str(tmp_path / "two.jsonl"), 0, 8, [Record(3, None, None, "name", None)])
    search_cache.save([one, two])
    assert cache.is_file()  # the folder was created
    assert search_cache.load() == {one.path: one, two.path: two}


def test_an_unreadable_file_is_not_cached_and_kept_entries_are(cache: Path, tmp_path: Path) -> None:
    other = FileIndex("/elsewhere/old.jsonl", 5, 5, [Record(1, "o1")])
    stale_other = FileIndex(str(tmp_path / "one.jsonl"), 1, 1, [])
    one = FileIndex(str(tmp_path / "one.jsonl"), 9, 9, [Record(2, "n1")])
    gone = FileIndex(str(tmp_path / "gone.jsonl"))  # size -1: could not be read
    search_cache.save([one, gone], keep={other.path: other, stale_other.path: stale_other})
    assert search_cache.load() == {other.path: other, one.path: one}


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"[1, 2]",  # not an object
        b'{"version": 1}',  # no files
        b'{"version": 2, "files": []}',  # another format
        b'{"version": 1, "files": [["a", 1, 2]]}',  # a file without records
        b'{"version": 1, "files": [["a", 1, 2, [[1, "x", 3, 4, 5, 6]]]]}',  # a record too long
        b'{"version": 1, "files": 7}',
    ],
)
def test_a_cache_that_cannot_be_read_is_ignored(cache: Path, content: bytes) -> None:
    cache.parent.mkdir()
    cache.write_bytes(content)
    assert search_cache.load() == {}


def test_a_cache_that_cannot_be_written_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("PI_LSP_SEARCH_CACHE", str(blocker / "sub" / "index.json"))
    search_cache.save([FileIndex(str(tmp_path / "a.jsonl"), 1, 1, [])])  # no exception
    assert blocker.read_text(encoding="utf-8") == "x"


def test_refresh_reads_only_files_that_changed(cache: Path, tmp_path: Path) -> None:
    one = _session(tmp_path / "one.jsonl", user("a1b2c3d4", None, "first"))
    two = _session(tmp_path / "two.jsonl", user("b1b2c3d4", None, "second"))
    asked: list[list[str]] = []

    def index_all(paths: list[str]) -> list[FileIndex]:
        asked.append(paths)
        return [index_file(p) for p in paths]

    first = search_cache.refresh([one, two], index_all)
    assert [i.path for i in first] == [one, two]
    assert [r.id for i in first for r in i.records] == ["a1b2c3d4", "b1b2c3d4"]
    before = os.stat(cache)
    again = search_cache.refresh([two, one], index_all)
    assert asked == [[one, two], []]
    assert [i.path for i in again] == [two, one] and again[0].records == first[1].records
    after = os.stat(cache)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # not rewritten

    with open(two, "a", encoding="utf-8") as fh:
        fh.write(entry("label", "l1", "b1b2c3d4", targetId="b1b2c3d4", label="mark") + "\n")
    third = search_cache.refresh([one, two], index_all)
    assert asked[-1] == [two]
    assert third[1].records[0].label == "mark"
    assert search_cache.load()[two].records[0].label == "mark"
    assert (third[1].size, third[1].mtime_ns) == stamp(two)


def test_refresh_keeps_other_folders_and_forgets_deleted_files(cache: Path, tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    elsewhere = _session(tmp_path / "b" / "kept.jsonl", user("c1c2c3c4", None))
    deleted = _session(tmp_path / "b" / "deleted.jsonl", user("d1d2d3d4", None))
    search_cache.refresh([elsewhere, deleted], lambda ps: [index_file(p) for p in ps])
    os.remove(deleted)
    here = _session(tmp_path / "a" / "one.jsonl", user("a1b2c3d4", None))
    search_cache.refresh([here], lambda ps: [index_file(p) for p in ps])
    assert sorted(search_cache.load()) == sorted([elsewhere, here])


def test_the_cache_holds_every_record_field(cache: Path, tmp_path: Path) -> None:
    record = Record(4, "id", "label", "name", "text")
    search_cache.save([FileIndex(str(tmp_path / "x.jsonl"), 3, 4, [record])])
    data = orjson.loads(cache.read_bytes())
    assert data == {
        "version": 1,
        "files": [[str(tmp_path / "x.jsonl"), 3, 4, [[4, "id", "label", "name", "text"]]]],
    }


def test_saving_creates_the_missing_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_LSP_SEARCH_CACHE", str(tmp_path / "no" / "such" / "index.json"))
    search_cache.save([FileIndex(str(tmp_path / "a.jsonl"), 1, 1, [])])
    assert (tmp_path / "no" / "such" / "index.json").is_file()


def test_a_changed_file_the_indexer_skipped_is_not_answered_from_the_cache(
    cache: Path, tmp_path: Path
) -> None:
    one = _session(tmp_path / "one.jsonl", user("a1b2c3d4", None))
    search_cache.refresh([one], lambda ps: [index_file(p) for p in ps])
    with open(one, "a", encoding="utf-8") as fh:
        fh.write(user("b1b2c3d4", "a1b2c3d4") + "\n")
    with pytest.raises(ValueError):
        search_cache.refresh([one], lambda ps: [])
