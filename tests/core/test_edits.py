"""The edit model, member edits, pi-like ids/timestamps/JSON, and the atomic file writer."""

from __future__ import annotations

import datetime
import json
import os
import re
import uuid
from pathlib import Path

import pytest

from pi_lsp.core import edits as E
from pi_lsp.core.edits import TextEdit, apply_edits
from pi_lsp.core.text import split_lines

# ------------------------------------------------------------------------------ apply_edits


def test_apply_in_line_edits_keeps_other_bytes() -> None:
    text = 'a\u2028b\n{"x":1}\r\nzz'
    out = apply_edits(text, [TextEdit.replace(1, 5, 6, "22"), TextEdit.insert(0, 3, "!")])
    assert out == 'a\u2028b!\n{"x":22}\r\nzz'


def test_apply_rejects_overlap_and_outside() -> None:
    with pytest.raises(E.EditConflict):
        apply_edits("abcdef", [TextEdit.replace(0, 0, 3, ""), TextEdit.replace(0, 2, 4, "")])
    with pytest.raises(E.EditConflict):
        apply_edits("abc", [TextEdit.replace(0, 2, 9, "")])
    with pytest.raises(E.EditConflict):
        apply_edits("abc", [TextEdit.insert(3, 0, "x")])


def test_inserts_at_one_position_keep_their_order() -> None:
    out = apply_edits("ab", [TextEdit.insert(0, 1, "1"), TextEdit.insert(0, 1, "2")])
    assert out == "a12b"


@pytest.mark.parametrize(
    ("text", "lines", "expected"),
    [
        ("a\nb\nc\n", [1], "a\nc\n"),
        ("a\nb\nc\n", [0, 1], "c\n"),
        ("a\nb\nc", [2], "a\nb\n"),  # unterminated last line: the newline before it stays
        ("a\nb\nc", [1, 2], "a\n"),
        ("a\r\nb\r\nc\r\n", [0], "b\r\nc\r\n"),
        ("only", [0], ""),
        ("a\n\n\nb\n", [1, 2], "a\nb\n"),
    ],
)
def test_delete_lines(text: str, lines: list[int], expected: str) -> None:
    split = split_lines(text)
    assert apply_edits(split, E.delete_lines(split, lines)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("h\na\n", "h\na\nNEW\n"),
        ("h\na", "h\na\nNEW\n"),
        ("h\na\n\n\n", "h\na\nNEW\n\n\n"),  # trailing blank lines stay trailing
        ("h\r\na\r\n", "h\r\na\r\nNEW\r\n"),
        ("", "NEW\n"),
    ],
)
def test_append_lines(text: str, expected: str) -> None:
    split = split_lines(text)
    assert apply_edits(split, [E.append_lines(split, ["NEW"])]) == expected


# ---------------------------------------------------------------------------- member edits


def test_set_members_replaces_in_place_and_inserts_after() -> None:
    line = '{"type":"x","a":1,"id":"old"}'
    edits = E.set_members(line, 0, [("id", '"new"'), ("parentId", "null")], after="type")
    assert apply_edits(line, edits) == '{"type":"x","parentId":null,"a":1,"id":"new"}'


def test_set_members_without_anchor_inserts_first() -> None:
    assert apply_edits("{}", E.set_members("{}", 0, [("k", "1")])) == '{"k":1}'
    assert apply_edits('{ "a":1}', E.set_members('{ "a":1}', 0, [("k", "1")])) == '{"k":1, "a":1}'


def test_set_members_nested_and_duplicate_keys() -> None:
    line = '{"type":"message","message":{"role":"a","role":"hookMessage","x":1}}'
    out = apply_edits(line, E.set_members(line, 0, [("role", '"custom"')], path=("message",)))
    assert json.loads(out)["message"]["role"] == "custom"
    assert out == '{"type":"message","message":{"role":"a","role":"custom","x":1}}'


@pytest.mark.parametrize(
    ("line", "keys", "expected"),
    [
        ('{"a":1,"k":2,"b":3}', {"k"}, '{"a":1,"b":3}'),
        ('{"a":1,"k":2}', {"k"}, '{"a":1}'),
        ('{"k":2,"a":1}', {"k"}, '{"a":1}'),
        ('{"k":2}', {"k"}, "{}"),
        ('{"a":1, "k" : 2 , "k":3}', {"k"}, '{"a":1}'),
        ('{"k":1,"a":1,"k":3,"m":4}', {"k", "m"}, '{"a":1}'),
        ('{"a":1}', {"k"}, '{"a":1}'),
    ],
)
def test_remove_members(line: str, keys: set[str], expected: str) -> None:
    out = apply_edits(line, E.remove_members(line, 0, keys))
    assert out == expected
    json.loads(out)


# ------------------------------------------------------------------ ids, timestamps, JSON


def test_fresh_id_is_8_hex_and_unique() -> None:
    taken = {"00000000"}
    ids = [E.fresh_id(taken) for _ in range(500)]
    assert all(re.fullmatch(r"[0-9a-f]{8}", i) for i in ids)
    assert len(set(ids)) == 500 and "00000000" not in ids
    assert taken >= set(ids)


def test_iso_timestamp_like_to_iso_string() -> None:
    moment = datetime.datetime(2026, 3, 4, 5, 6, 7, 891234, tzinfo=datetime.UTC)
    assert E.iso_timestamp(moment) == "2026-03-04T05:06:07.891Z"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", E.iso_timestamp())


def test_session_id_is_uuid_v7_with_the_time() -> None:
    moment = datetime.datetime(2026, 3, 4, 5, 6, 7, 891000, tzinfo=datetime.UTC)
    ident = uuid.UUID(E.session_id(moment))
    assert ident.version == 7 and ident.variant == uuid.RFC_4122
    assert ident.int >> 80 == int(moment.timestamp() * 1000)


def test_js_stringify() -> None:
    value = {"a": 'é\u2028"\n\x01', "b": [1, None, True], "c": "\ud800"}
    assert E.js_stringify(value) == '{"a":"é\u2028\\"\\n\\u0001","b":[1,null,true],"c":"\\ud800"}'


# -------------------------------------------------------------------------- atomic writer


def test_write_atomic_with_backup(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"old\n")
    os.chmod(path, 0o640)
    _, snap = E.read_snapshot(path)
    backup = E.write_atomic(path, b"new\n", expect=snap, backup=True)
    assert path.read_bytes() == b"new\n"
    assert backup == tmp_path / "s.jsonl.bak" and backup.read_bytes() == b"old\n"
    assert path.stat().st_mode & 0o777 == 0o640
    # a second backup does not overwrite the first
    _, snap = E.read_snapshot(path)
    second = E.write_atomic(path, b"newer\n", expect=snap, backup=True)
    assert second == tmp_path / "s.jsonl.bak.1" and second.read_bytes() == b"new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl", "s.jsonl.bak", "s.jsonl.bak.1"]


@pytest.mark.parametrize("change", ["content", "mtime"])
def test_write_atomic_refuses_a_changed_file(tmp_path: Path, change: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"abc\n")
    _, snap = E.read_snapshot(path)
    if change == "content":
        path.write_bytes(b"abd\n")  # same size
        os.utime(path, ns=(snap.mtime_ns, snap.mtime_ns))
    else:
        os.utime(path, ns=(snap.mtime_ns + 10**9, snap.mtime_ns + 10**9))
    before = path.read_bytes()
    with pytest.raises(E.FileChanged):
        E.write_atomic(path, b"new\n", expect=snap, backup=True)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["s.jsonl"]


def test_write_atomic_keeps_the_original_on_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"precious\n")

    def broken(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(E.os, "replace", broken)
    with pytest.raises(OSError):
        E.write_atomic(path, b"new\n", backup=True)
    assert path.read_bytes() == b"precious\n"
    assert [p.name for p in tmp_path.iterdir()] == ["s.jsonl"]  # no temp file, no backup


def test_write_atomic_preserves_undecodable_bytes(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a":"\xff"}\n')
    text, snap = E.read_snapshot(path)
    E.write_atomic(path, E.encode(text + "x\n"), expect=snap)
    assert path.read_bytes() == b'{"a":"\xff"}\nx\n'


def test_write_new_never_clobbers(tmp_path: Path) -> None:
    path = tmp_path / "new.jsonl"
    E.write_new(path, b"one\n")
    with pytest.raises(FileExistsError):
        E.write_new(path, b"two\n")
    assert path.read_bytes() == b"one\n"
    assert [p.name for p in tmp_path.iterdir()] == ["new.jsonl"]
