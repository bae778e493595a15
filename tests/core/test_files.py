"""Session files on disk: decoding, refusing what is no regular file, pi's names and folders."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.core.text.files import (
    cannot_read,
    decode,
    expand,
    read_bytes,
    read_grown,
    read_lines,
    read_marked,
    read_text,
    session_id_in_name,
    sessions_dir,
)
from pi_lsp.core.text.lineindex import split_lines


def test_decode_keeps_undecodable_bytes_as_lone_surrogates() -> None:
    assert decode(b"caf\xc3\xa9") == "café"
    assert decode(b"bad \xe2 byte") == "bad \udce2 byte"
    assert decode(memoryview(b"x\xffy")[1:]) == "\udcffy"


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(OSError) as caught:
        read_bytes(fifo)
    assert caught.value.errno == errno.EINVAL
    assert caught.value.filename == str(fifo)  # like any error of open(): it names the file
    assert cannot_read(fifo, caught.value) == f"{fifo}: cannot read: not a regular file"


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a":1}\n\xff\n')
    assert read_bytes(path) == b'{"a":1}\n\xff\n'
    assert read_text(path) == '{"a":1}\n\udcff\n'


def test_cannot_read_names_the_reason() -> None:
    assert cannot_read("a/b.jsonl", FileNotFoundError(2, "No such file or directory")) == (
        "a/b.jsonl: cannot read: No such file or directory"
    )
    assert cannot_read(Path("x"), OSError("odd")) == "x: cannot read: odd"


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n",
        b"abc",
        b"a\n\nb\n",
        b"one\ntwo",
        b'{"a":"\xe2\x80\xa8"}\n{"b":1}\n',
        b"bad \xe2 byte\nnext\n",
        b"\xef\xbb\xbfbom\r\ncrlf\rcr\n",
        b"a\rb",
    ],
)
def test_read_lines_splits_as_the_decoded_text_splits(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    lines = read_lines(path)
    assert lines == split_lines(decode(data))
    assert lines.join() == decode(data)


@pytest.mark.parametrize(
    ("name", "ident"),
    [
        (
            "2026-01-02T03-04-05-678Z_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl",
            "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        ),
        ("/x/y/2026-01-02T03-04-05-678Z_my id.jsonl", "my id"),
        ("2026-01-02T03-04-05-678Z_.jsonl", None),
        ("2026-01-02T03-04-05-67Z_abc.jsonl", None),
        ("2026-01-02T03:04:05.678Z_abc.jsonl", None),
        ("x2026-01-02T03-04-05-678Z_abc.jsonl", None),
        ("2026-01-02T03-04-05-678Z_abc.jsonl.bak", None),
        ("2026-01-02T03-04-05-678Z_abc.JSONL", None),
        ("session.jsonl", None),
    ],
)
def test_the_session_id_in_a_file_name_as_pi_names_it(name: str, ident: str | None) -> None:
    assert session_id_in_name(name) == ident


def test_sessions_dir_follows_pi_coding_agent_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    assert sessions_dir() == tmp_path / "home" / ".pi" / "agent" / "sessions"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "")
    assert sessions_dir() == tmp_path / "home" / ".pi" / "agent" / "sessions"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "~/agent")
    assert sessions_dir() == tmp_path / "home" / "agent" / "sessions"


def test_expand_lists_session_files_under_folders_sorted(tmp_path: Path) -> None:
    top = tmp_path / "top"
    (top / "b").mkdir(parents=True)
    (top / "a" / "deep").mkdir(parents=True)
    (top / "dir.jsonl").mkdir()
    for rel in ["b/2.jsonl", "a/deep/1.JSONL", "a/0.jsonl", "z.jsonl", "notes.txt", "x.jsonl.bak"]:
        (top / rel).write_text("", encoding="utf-8")
    (top / "gone.jsonl").symlink_to(tmp_path / "missing.jsonl")
    (top / "b" / "up").symlink_to(top)  # a link back up the tree
    named = tmp_path / "named.txt"
    named.write_text("", encoding="utf-8")
    got = list(expand([named, top, tmp_path / "no-such"]))
    assert got == [
        named,
        top / "a" / "0.jsonl",
        top / "a" / "deep" / "1.JSONL",
        top / "b" / "2.jsonl",
        top / "z.jsonl",
        tmp_path / "no-such",
    ]


def test_expand_follows_a_symlinked_folder_once(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "s.jsonl").write_text("", encoding="utf-8")
    top = tmp_path / "top"
    top.mkdir()
    (top / "link").symlink_to(real)
    (top / "link2").symlink_to(real)
    got = list(expand([top]))
    assert got == [top / "link" / "s.jsonl"]


_PIECES = st.lists(
    st.sampled_from([b"a", b"{}", b"\n", b"\xc3\xa9", b"\xf0\x9f\x98\x80", b"\xff", b" "]),
    max_size=40,
).map(b"".join)


@settings(max_examples=200)
@given(_PIECES, _PIECES)
def test_a_file_that_grew_reads_as_the_whole_file(
    tmp_path_factory: pytest.TempPathFactory, old: bytes, new: bytes
) -> None:
    """Read, then grown by ``new``: only the new bytes (and the old last line) are split,
    and the lines and the mark are those of reading the grown file whole."""
    path = tmp_path_factory.mktemp("grown") / "s.jsonl"
    path.write_bytes(old)
    text, mark = read_marked(path)
    assert mark is not None and text == split_lines(decode(old))
    path.write_bytes(old + new)
    grown = read_grown(path, text, mark)
    whole, whole_mark = read_marked(path)
    assert grown is not None and whole_mark is not None
    assert grown[0] == whole
    assert (grown[1].size, grown[1].last_start) == (whole_mark.size, whole_mark.last_start)
    assert grown[1].state.digest() == whole_mark.state.digest()


def test_a_file_changed_before_its_end_or_shrunk_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":2}\n')
    text, mark = read_marked(path)
    assert mark is not None
    path.write_bytes(b'{"a":9}\n{"b":2}\n{"c":3}\n')  # grew, but an old byte changed
    assert read_grown(path, text, mark) is None
    path.write_bytes(b'{"a":1}\n')  # shrank
    assert read_grown(path, text, mark) is None
    path.write_bytes(b'{"a":1}\n{"b":2}\n{"c":3}\r\n')  # grew with a carriage return
    assert read_grown(path, text, mark) is None
    path.write_bytes(b'{"a":1}\n{"b":2}\n{"c":3}\n')
    grown = read_grown(path, text, mark)
    assert grown is not None and grown[0].lines == ['{"a":1}', '{"b":2}', '{"c":3}', ""]
    assert grown[0].lines[0] is text.lines[0]  # the old lines are kept, not read again
