"""The edit model, member edits, pi-like ids/timestamps/JSON, and the atomic file writer."""

from __future__ import annotations

import datetime
import json
import os
import re
import uuid
from pathlib import Path

import pytest

from pi_lsp.core.text import textedit as E
from pi_lsp.core.text.lineindex import split_lines
from pi_lsp.core.text.textedit import TextEdit, apply_edits

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
        ("a\nb\nc\nd\n", [0, 1, 2], "d\n"),
        ("a\nb\nc\nd\n", [1, 2, 3], "a\n"),
    ],
)
def test_delete_lines(text: str, lines: list[int], expected: str) -> None:
    split = split_lines(text)
    assert apply_edits(split, E.delete_lines(split, lines)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("h\na\n", "h\na\nNEW\n"),
        ("h\n", "h\nNEW\n"),
        ("h", "h\nNEW\n"),
        ("\nh\n", "\nh\nNEW\n"),
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


def test_set_members_inserts_every_missing_key_together() -> None:
    line = '{"type":"x","a":1}'
    edits = E.set_members(line, 0, [("b", "2"), ("c", '"3"')], after="type")
    assert apply_edits(line, edits) == '{"type":"x","b":2,"c":"3","a":1}'
    assert apply_edits("{}", E.set_members("{}", 0, [("b", "2"), ("c", "3")])) == '{"b":2,"c":3}'


def test_set_members_after_a_missing_anchor_inserts_first() -> None:
    line = '{"type":"x","a":1}'
    edits = E.set_members(line, 0, [("b", "2")], after="nope")
    assert apply_edits(line, edits) == '{"b":2,"type":"x","a":1}'


def test_remove_members_of_a_nested_object() -> None:
    line = '{"k":0,"message":{"role":"user","k":1,"x":2}}'
    out = apply_edits(line, E.remove_members(line, 0, {"k"}, path=("message",)))
    assert out == '{"k":0,"message":{"role":"user","x":2}}'


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
    with pytest.raises(E.FileChanged, match=f"^{re.escape(str(path))} changed since it was read"):
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


# ------------------------------------------------------------------ more of the edit model


@pytest.mark.parametrize("text", ["a\nb", "a\nb\n", "a\r\nb\r\n", ""])
def test_replace_text_replaces_everything(text: str) -> None:
    split = split_lines(text)
    assert apply_edits(split, [E.replace_text(split, "new")]) == "new"


def test_delete_lines_apart_are_separate_edits() -> None:
    split = split_lines("a\nb\nc\nd\n")
    assert E.delete_lines(split, [2, 0, 2]) == [
        TextEdit((0, 0), (1, 0), ""),
        TextEdit((2, 0), (3, 0), ""),
    ]
    assert apply_edits(split, E.delete_lines(split, [0, 2])) == "b\nd\n"


def test_delete_adjacent_lines_is_one_edit() -> None:
    split = split_lines("a\nb\nc\nd")
    assert E.delete_lines(split, [2, 1, 0]) == [TextEdit((0, 0), (3, 0), "")]
    assert E.delete_lines(split, [3, 2]) == [TextEdit((2, 0), (3, 1), "")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("a", "\n"), ("a\r\nb\n", "\r\n"), ("a\nb\r\n", "\n"), ("a\rb", "\r")],
)
def test_line_terminator_is_the_first_one(text: str, expected: str) -> None:
    assert E.line_terminator(split_lines(text)) == expected


def test_append_several_lines_with_the_files_terminator() -> None:
    split = split_lines("h\r\na")
    assert apply_edits(split, [E.append_lines(split, ["X", "Y"])]) == "h\r\na\r\nX\r\nY\r\n"
    split = split_lines("\n\n")
    assert apply_edits(split, [E.append_lines(split, ["X", "Y"])]) == "X\nY\n\n\n"


def test_apply_edits_on_a_split_text_keeps_its_terminators() -> None:
    split = split_lines("ab\r\ncd\ref")
    edits = [TextEdit.replace(1, 0, 1, "C"), TextEdit((0, 1), (2, 1), "-")]
    assert apply_edits(split, edits[:1]) == "ab\r\nCd\ref"
    assert apply_edits(split, edits[1:]) == "a-f"
    assert apply_edits("ab\r\ncd\ref", edits[1:]) == "a-f"


def test_apply_edits_at_the_edges_of_lines() -> None:
    text = "ab\ncd"
    assert apply_edits(text, [TextEdit.insert(1, 2, "!"), TextEdit.insert(0, 0, "^")]) == "^ab\ncd!"
    assert apply_edits(text, [TextEdit((0, 2), (1, 0), " ")]) == "ab cd"
    assert apply_edits(text, []) == text


@pytest.mark.parametrize(
    "edit",
    [
        TextEdit((0, 2), (0, 1), ""),  # ends before it starts
        TextEdit((1, 0), (0, 1), ""),
        TextEdit((-1, 0), (0, 0), ""),
        TextEdit((0, -1), (0, 0), ""),
        TextEdit((0, 0), (0, 3), ""),  # past the end of the line
        TextEdit((2, 0), (2, 0), ""),  # past the last line
    ],
)
def test_apply_edits_refuses_an_impossible_edit(edit: TextEdit) -> None:
    with pytest.raises(E.EditConflict):
        apply_edits("ab\ncd", [edit])


def test_touching_edits_do_not_overlap() -> None:
    edits = [TextEdit.replace(0, 2, 4, "Y"), TextEdit.replace(0, 0, 2, "X")]
    assert apply_edits("abcdef", edits) == "XYef"
    # an insertion where a replacement ends or starts, given in either order
    assert apply_edits("abcd", [TextEdit.insert(0, 2, "X"), TextEdit.replace(0, 0, 2, "Y")]) == (
        "YXcd"
    )
    assert apply_edits("abcd", [TextEdit.replace(0, 2, 4, "Y"), TextEdit.insert(0, 2, "X")]) == (
        "abXY"
    )
    with pytest.raises(E.EditConflict, match=r"^edits overlap$"):
        apply_edits("abcdef", [TextEdit.replace(0, 0, 3, ""), TextEdit.insert(0, 2, "x")])


def test_inserts_at_one_position_keep_their_order_whatever_their_text() -> None:
    out = apply_edits("ab", [TextEdit.insert(0, 1, "2"), TextEdit.insert(0, 1, "1")])
    assert out == "a21b"


def test_refusals_say_what_is_wrong() -> None:
    with pytest.raises(E.EditConflict, match=r"^position \(0, 9\) is outside the document$"):
        apply_edits("abc", [TextEdit.replace(0, 2, 9, "")])
    with pytest.raises(E.EditConflict, match=r"^an edit ends before it starts$"):
        apply_edits("abc", [TextEdit((0, 2), (0, 1), "")])


def test_fresh_id_falls_back_to_a_uuid_after_100_collisions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    same = uuid.UUID("12345678-1234-4234-8234-123456789abc")
    draws = 0

    def fixed(n: int) -> bytes:
        nonlocal draws
        draws += 1
        return bytes.fromhex("12345678")[:n]

    monkeypatch.setattr(E.os, "urandom", fixed)
    monkeypatch.setattr(E.uuid, "uuid4", lambda: same)
    taken = {"12345678"}
    ident = E.fresh_id(taken)
    assert ident == str(same) and draws == 100
    assert taken == {"12345678", str(same)}


def test_fresh_id_retries_until_free(monkeypatch: pytest.MonkeyPatch) -> None:
    values = iter([bytes(4), bytes(4), bytes.fromhex("abcdef01")])
    monkeypatch.setattr(E.os, "urandom", lambda n: next(values)[:n])
    taken = {"00000000"}
    assert E.fresh_id(taken) == "abcdef01" and taken == {"00000000", "abcdef01"}


def test_iso_timestamp_converts_to_utc() -> None:
    tz = datetime.timezone(datetime.timedelta(hours=2))
    moment = datetime.datetime(2026, 3, 4, 1, 6, 7, 5000, tzinfo=tz)
    assert E.iso_timestamp(moment) == "2026-03-03T23:06:07.005Z"


def test_iso_timestamp_default_is_now() -> None:
    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    stamp = E.iso_timestamp()
    after = datetime.datetime.now(datetime.UTC)
    moment = datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.UTC)
    assert before <= moment <= after


@pytest.mark.parametrize(
    ("random", "tail"),
    [(b"\x00" * 10, "7000-8000-000000000000"), (b"\xff" * 10, "7fff-bfff-ffffffffffff")],
)
def test_session_id_layout_is_uuid_v7(
    monkeypatch: pytest.MonkeyPatch, random: bytes, tail: str
) -> None:
    monkeypatch.setattr(E.os, "urandom", lambda n: random[:n])
    moment = datetime.datetime(2026, 3, 4, 5, 6, 7, 891000, tzinfo=datetime.UTC)
    millis = f"{int(moment.timestamp() * 1000):012x}"
    assert E.session_id(moment) == f"{millis[:8]}-{millis[8:]}-{tail}"


def test_session_id_random_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    # 80 random bits: 12 after the version, 62 after the variant (the rest unused)
    random = bytes.fromhex("0123456789abcdef0123")
    monkeypatch.setattr(E.os, "urandom", lambda n: (random * 2)[:n])
    moment = datetime.datetime(2026, 3, 4, 5, 6, 7, 891000, tzinfo=datetime.UTC)
    ident = uuid.UUID(E.session_id(moment))
    rand = int.from_bytes(random, "big")
    assert (ident.int >> 64) & 0xFFF == (rand >> 68) & 0xFFF
    assert ident.int & ((1 << 62) - 1) == rand & ((1 << 62) - 1)
    assert ident.version == 7 and ident.variant == uuid.RFC_4122


def test_session_id_time_field_is_48_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    # a millisecond before 1970 wraps to the largest time the field holds
    monkeypatch.setattr(E.os, "urandom", lambda n: b"\x00" * n)
    moment = datetime.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=datetime.UTC)
    assert E.session_id(moment) == "ffffffff-ffff-7000-8000-000000000000"


def test_iso_timestamp_is_utc_whatever_the_local_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("TZ", "JST-9")
    time.tzset()
    try:
        moment = datetime.datetime(2026, 3, 4, 5, 6, 7, 891234, tzinfo=datetime.UTC)
        assert E.iso_timestamp(moment) == "2026-03-04T05:06:07.891Z"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_session_id_default_is_now() -> None:
    before = int(datetime.datetime.now(datetime.UTC).timestamp() * 1000)
    ident = uuid.UUID(E.session_id())
    after = int(datetime.datetime.now(datetime.UTC).timestamp() * 1000)
    assert before <= ident.int >> 80 <= after


# ------------------------------------------------------------------ more of the file writer


def test_snapshot_no_longer_matches_a_file_gone_or_resized(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"abc\n")
    _, snap = E.read_snapshot(path)
    assert snap.matches(path)
    assert snap == E.Snapshot(4, path.stat().st_mtime_ns, snap.sha256) and len(snap.sha256) == 64
    path.write_bytes(b"abcd\n")
    os.utime(path, ns=(snap.mtime_ns, snap.mtime_ns))
    assert not snap.matches(path)
    path.unlink()
    assert not snap.matches(path)


def test_backup_names_count_up(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    assert E.backup_path(path) == tmp_path / "s.jsonl.bak"
    (tmp_path / "s.jsonl.bak").write_bytes(b"")
    assert E.backup_path(path) == tmp_path / "s.jsonl.bak.1"
    (tmp_path / "s.jsonl.bak.1").write_bytes(b"")
    assert E.backup_path(path) == tmp_path / "s.jsonl.bak.2"


def test_write_atomic_creates_a_new_file_with_the_default_mode(tmp_path: Path) -> None:
    path = tmp_path / "new.jsonl"
    umask = os.umask(0o022)
    try:
        assert E.write_atomic(path, b"one\n", backup=True) is None
    finally:
        os.umask(umask)
    assert path.read_bytes() == b"one\n"
    assert path.stat().st_mode & 0o7777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["new.jsonl"]


def test_write_atomic_without_backup_leaves_no_backup(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"old\n")
    assert E.write_atomic(path, b"new\n") is None
    assert [p.name for p in tmp_path.iterdir()] == ["s.jsonl"]


def test_write_atomic_refuses_a_file_changed_while_backing_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"old\n")
    _, snap = E.read_snapshot(path)
    backup = E._backup

    def backup_then_change(p: Path) -> Path:
        saved = backup(p)
        path.write_bytes(b"changed meanwhile\n")
        return saved

    monkeypatch.setattr(E, "_backup", backup_then_change)
    with pytest.raises(E.FileChanged, match="changed since it was read; not overwriting it"):
        E.write_atomic(path, b"new\n", expect=snap, backup=True)
    assert path.read_bytes() == b"changed meanwhile\n"
    assert [p.name for p in tmp_path.iterdir()] == ["s.jsonl"]  # no temp file, no backup


def test_backup_is_a_copy_where_hard_links_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"old\n")
    os.chmod(path, 0o604)

    def no_link(src: object, dst: object) -> None:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(E.os, "link", no_link)
    backup = E.write_atomic(path, b"new\n", backup=True)
    assert backup == tmp_path / "s.jsonl.bak" and backup.read_bytes() == b"old\n"
    assert backup.stat().st_mode & 0o7777 == 0o604
    assert path.read_bytes() == b"new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl", "s.jsonl.bak"]


def test_write_new_without_hard_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_link(src: object, dst: object) -> None:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(E.os, "link", no_link)
    path = tmp_path / "new.jsonl"
    E.write_new(path, b"one\n")
    assert path.read_bytes() == b"one\n"
    with pytest.raises(FileExistsError, match=f"^{re.escape(str(path))}$"):
        E.write_new(path, b"two\n")
    assert path.read_bytes() == b"one\n"
    assert [p.name for p in tmp_path.iterdir()] == ["new.jsonl"]


def test_a_directory_that_cannot_be_synced_is_no_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = os.open

    def no_directories(name: object, flags: int, *args: int) -> int:
        if Path(str(name)).is_dir():
            raise PermissionError(13, "Permission denied")
        return real_open(name, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(E.os, "open", no_directories)
    path = tmp_path / "s.jsonl"
    E.write_new(path, b"one\n")
    E.write_atomic(path, b"two\n", backup=True)
    assert path.read_bytes() == b"two\n"


def test_temporary_names_are_retried_then_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    (tmp_path / ".s.jsonl.00000000.tmp").write_bytes(b"taken")
    names = iter([b"\0" * 4, b"\0" * 4, b"\1" * 4])
    monkeypatch.setattr(E.os, "urandom", lambda n: next(names))
    E.write_new(path, b"one\n")
    assert path.read_bytes() == b"one\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".s.jsonl.00000000.tmp", "s.jsonl"]
    monkeypatch.setattr(E.os, "urandom", lambda n: b"\0" * n)
    (tmp_path / ".s.jsonl.2.00000000.tmp").write_bytes(b"taken")
    tries = 0

    def zeros(n: int) -> bytes:
        nonlocal tries
        tries += 1
        return b"\0" * n

    monkeypatch.setattr(E.os, "urandom", zeros)
    with pytest.raises(FileExistsError, match="no free temporary name beside"):
        E.write_new(tmp_path / "s.jsonl.2", b"two\n")
    assert not (tmp_path / "s.jsonl.2").exists() and tries == 100


def test_a_failed_write_removes_its_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(E.os, "fsync", full)
    with pytest.raises(OSError):
        E.write_new(tmp_path / "new.jsonl", b"one\n")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------- a temporary file removed by someone else changes nothing


def _remove(*paths: Path) -> None:
    for p in paths:
        p.unlink(missing_ok=True)


def _temps(directory: Path) -> list[Path]:
    return [p for p in directory.iterdir() if p.name.endswith(".tmp")]


def test_a_failed_write_reports_its_own_error_when_the_temp_file_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int) -> None:
        _remove(*_temps(tmp_path))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(E.os, "fsync", full)
    with pytest.raises(OSError) as error:
        E.write_new(tmp_path / "new.jsonl", b"one\n")
    assert error.value.errno == 28


def test_a_failed_replace_reports_its_own_error_when_temp_and_backup_are_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"precious\n")

    def broken(src: object, dst: object) -> None:
        _remove(Path(str(src)), tmp_path / "s.jsonl.bak")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(E.os, "replace", broken)
    with pytest.raises(OSError) as error:
        E.write_atomic(path, b"new\n", backup=True)
    assert error.value.errno == 28
    assert path.read_bytes() == b"precious\n"


@pytest.mark.parametrize("failure", [FileExistsError(17, "File exists"), None])
def test_write_new_when_the_temp_file_is_gone_after_linking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: OSError | None
) -> None:
    path = tmp_path / "new.jsonl"
    if failure is not None:
        path.write_bytes(b"theirs\n")
    real_link = os.link

    def link_then_lose_the_temp(src: object, dst: object) -> None:
        if failure is None:
            real_link(src, dst)  # type: ignore[arg-type]
        _remove(Path(str(src)))
        if failure is not None:
            raise failure

    monkeypatch.setattr(E.os, "link", link_then_lose_the_temp)
    if failure is None:
        E.write_new(path, b"one\n")
        assert path.read_bytes() == b"one\n"
    else:
        with pytest.raises(FileExistsError):
            E.write_new(path, b"one\n")
        assert path.read_bytes() == b"theirs\n"


def test_write_new_without_hard_links_when_the_temp_file_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "new.jsonl"
    path.write_bytes(b"theirs\n")

    def no_link(src: object, dst: object) -> None:
        _remove(Path(str(src)))
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(E.os, "link", no_link)
    with pytest.raises(FileExistsError):
        E.write_new(path, b"one\n")
    assert path.read_bytes() == b"theirs\n"
