"""Finding entries across session files: what is indexed, how a query matches, the ranking."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_lsp.core.workspace.search import (
    TEXT_LIMIT,
    FileIndex,
    Match,
    Record,
    index_file,
    is_current,
    search,
    stamp,
)

from .pi_sessions import assistant, doc, entry, header, js, user


def _file(path: Path, *lines: str) -> str:
    path.write_text(doc(header(), *lines), encoding="utf-8")
    return str(path)


def _message(ident: str, parent: str | None, content: object, role: str = "user") -> str:
    obj = {"type": "message", "id": ident, "parentId": parent, "timestamp": "t"}
    return js({**obj, "message": {"role": role, "content": content, "timestamp": 1}})


def _label(ident: str, parent: str, target: object, **label: object) -> str:
    return entry("label", ident, parent, targetId=target, **label)


def test_a_file_that_cannot_be_read_has_no_records_and_is_never_current(tmp_path: Path) -> None:
    missing = index_file(str(tmp_path / "missing.jsonl"))
    assert missing == FileIndex(str(tmp_path / "missing.jsonl"), -1, -1, [])
    assert not is_current(missing)
    assert stamp(str(tmp_path / "missing.jsonl")) == (-1, -1)
    folder = index_file(str(tmp_path))  # a directory: stat works, reading does not
    assert folder.records == [] and (folder.size, folder.mtime_ns) == stamp(str(tmp_path))
    assert is_current(folder)  # not tried again until it changes


def test_an_index_is_current_until_the_file_changes(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert is_current(index_file(str(empty)))  # an empty file is a file too
    path = _file(tmp_path / "one.jsonl", user("a1b2c3d4", None))
    index = index_file(path)
    st = os.stat(path)
    assert (index.size, index.mtime_ns) == (st.st_size, st.st_mtime_ns) and is_current(index)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert not is_current(index)  # same size, newer time


def test_records_carry_the_id_the_current_label_the_name_and_user_text(tmp_path: Path) -> None:
    path = _file(
        tmp_path / "one.jsonl",
        user("u1", None, "Fix The Parser"),
        assistant("a1", "u1", "parser fixed"),
        _label("l1", "a1", "u1", label="old"),
        _label("l2", "l1", "u1", label="new"),
        _label("l3", "l2", "a1", label="done"),
        _label("l4", "l3", "a1"),  # clears a1's label
        _label("l5", "l4", 7, label="not a target"),
        entry("session_info", "s1", "l5", name="  First name  "),
        entry("session_info", "s2", "s1", name="Second name"),
        entry("custom", None, "s2", customType="x"),
        entry("context_edit", "e1", "s2", targetId="u1", replacement=None),  # not a label
        entry("custom", 5, "e1", customType="x"),  # an id that is no string
    )
    records = index_file(path).records
    assert records == [
        Record(1, "u1", "new", None, "fix the parser"),
        Record(2, "a1", None, None, None),
        *(Record(n, f"l{n - 2}") for n in range(3, 8)),
        Record(8, "s1"),
        Record(9, "s2", None, "Second name"),
        Record(10, None),
        Record(11, "e1"),
        Record(12, None),
    ]


@pytest.mark.parametrize(
    ("value", "named"), [("  Trimmed  ", "Trimmed"), ("   ", None), ("", None), (3, None)]
)
def test_the_session_name_is_its_last_setting_trimmed_and_a_blank_one_clears_it(
    tmp_path: Path, value: object, named: str | None
) -> None:
    path = _file(
        tmp_path / "one.jsonl",
        entry("session_info", "s1", None, name="Earlier"),
        entry("session_info", "s2", "s1", name=value),
    )
    assert [r.name for r in index_file(path).records] == [None, named]


def test_an_empty_label_clears_it_and_a_long_name_is_clipped(tmp_path: Path) -> None:
    path = _file(
        tmp_path / "one.jsonl",
        user("u1", None),
        _label("l1", "u1", "u1", label="kept"),
        _label("l2", "l1", "u1", label=""),
        entry("session_info", "s1", "l2", name="ñ" * 200),
    )
    records = index_file(path).records
    assert records[0].label is None
    assert records[-1].name == "ñ" * 119 + "…"


def test_user_text_is_searched_in_its_first_2000_characters(tmp_path: Path) -> None:
    pad = "x " * ((TEXT_LIMIT - 10) // 2)  # 1990 characters
    blocks = [
        {"type": "text", "text": pad},
        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        {"type": "text", "text": 5},
        {"type": "text", "text": "Inside outside"},
        {"type": "text", "text": "later"},
    ]
    path = _file(
        tmp_path / "one.jsonl",
        _message("u1", None, blocks),
        _message("u2", "u1", pad + "Inside outside"),
        _message("u3", "u2", {"type": "text", "text": "an object"}),
        _message("u4", "u3", []),
        _message("u5", "u4", "tool output", role="toolResult"),
    )
    index = index_file(path)
    texts = [r.text for r in index.records]
    # text blocks joined by a space, lower-cased, cut after 2,000 characters of text
    assert texts[0] == pad + " inside out"
    assert texts[1] == pad + "inside out"
    assert texts[2:] == [None, None, None]
    found = [(m.line, m.why) for m in search([index], "inside")]
    assert found == [(1, "user message"), (2, "user message")]
    assert search([index], "outside") == []
    assert search([index], "later") == []


def test_a_single_text_block_is_cut_at_the_limit(tmp_path: Path) -> None:
    path = _file(
        tmp_path / "one.jsonl", _message("u1", None, [{"type": "text", "text": "y" * 3000}])
    )
    assert index_file(path).records[0].text == "y" * TEXT_LIMIT


@pytest.fixture
def sessions(tmp_path: Path) -> list[FileIndex]:
    one = _file(
        tmp_path / "a.jsonl",
        user("abc12345", None, "Parser tests are flaky"),
        assistant("abd00000", "abc12345", "abc"),
        _label("l1", "abd00000", "abc12345", label="Parser start"),
        entry("session_info", "s1", "l1", name="Parser rewrite"),
    )
    two = _file(tmp_path / "b.jsonl", user("ABC", None, "the parser again, abc"))
    return [index_file(one), index_file(two)]


def _hits(matches: list[Match]) -> list[tuple[str, int, str, int]]:
    return [(Path(m.path).name, m.line, m.why, m.rank) for m in matches]


def test_ids_first_then_id_prefixes_labels_names_and_words(sessions: list[FileIndex]) -> None:
    assert _hits(search(sessions, "abc")) == [
        ("b.jsonl", 1, "id", 0),  # the same id, whatever its case
        ("a.jsonl", 1, "id prefix", 1),
    ]
    assert _hits(search(sessions, "  ab  ")) == [
        ("a.jsonl", 1, "id prefix", 1),
        ("a.jsonl", 2, "id prefix", 1),
        ("b.jsonl", 1, "id prefix", 1),
    ]
    # one match per entry, by its best reason: a.jsonl:1 is labelled "Parser start"
    assert _hits(search(sessions, "PARSER")) == [
        ("a.jsonl", 1, "label", 2),
        ("a.jsonl", 4, "session name", 3),
        ("b.jsonl", 1, "user message", 4),
    ]
    assert _hits(search(sessions, "flaky parser")) == [("a.jsonl", 1, "user message", 4)]
    assert _hits(search(sessions, "rewrite")) == [("a.jsonl", 4, "session name", 3)]
    assert _hits(search(sessions, "5")) == []
    assert search(sessions, "parser nowhere") == []
    assert search(sessions, " \t ") == []


def test_an_id_query_is_one_word(tmp_path: Path) -> None:
    index = index_file(
        _file(tmp_path / "a.jsonl", entry("custom", "two words", None, customType="x"))
    )
    assert _hits(search([index], "two")) == [("a.jsonl", 1, "id prefix", 1)]
    assert search([index], "two words") == []  # several words: searched in user messages only


def test_titles_say_what_was_found_and_labels_lead_them(sessions: list[FileIndex]) -> None:
    titles = [(Path(m.path).name, m.title) for m in search(sessions, "parser")]
    assert titles == [
        ("a.jsonl", "🏷 Parser start · user: Parser tests are flaky"),
        ("a.jsonl", 'session name: "Parser rewrite"'),
        ("b.jsonl", "user: the parser again, abc"),
    ]
    # a labelled entry found by its id is titled without its label
    assert [m.title for m in search(sessions, "abc1")] == ["user: Parser tests are flaky"]


def test_a_long_label_is_clipped_in_the_title(tmp_path: Path) -> None:
    path = _file(
        tmp_path / "a.jsonl", user("u1", None, "hi"), _label("l1", "u1", "u1", label="ł" * 80)
    )
    (match,) = search([index_file(path)], "łł")
    assert match.title == "🏷 " + "ł" * 59 + "… · user: hi"


def test_the_limit_keeps_the_best_matches(sessions: list[FileIndex]) -> None:
    everything = search(sessions, "ab")
    assert search(sessions, "ab", limit=2) == everything[:2]
    assert search(sessions, "ab", limit=0) == []
    assert search(sessions, "ab", limit=None) == everything


def test_titles_are_read_once_and_lines_gone_since_have_none(tmp_path: Path) -> None:
    path = _file(tmp_path / "a.jsonl", user("abc1", None, "one"), user("abc2", "abc1", "two"))
    index = index_file(path)
    first = [m.title for m in search([index], "abc")]
    assert first == ["user: one", "user: two"]
    Path(path).write_text(doc(header()), encoding="utf-8")  # the file shrank: line 2 is gone
    assert [m.title for m in search([index], "abc")] == first  # titles already read are kept
    fresh = FileIndex(path, index.size, index.mtime_ns, index.records)
    # line 1 is now the empty end of the file; line 2 is past it
    assert [m.title for m in search([fresh], "abc")] == ["(not an entry)", ""]
    os.remove(path)
    gone = FileIndex(path, index.size, index.mtime_ns, index.records)
    assert [(m.line, m.title) for m in search([gone], "abc")] == [(1, ""), (2, "")]


def test_titles_are_read_only_for_the_lines_found(tmp_path: Path) -> None:
    path = _file(tmp_path / "a.jsonl", user("abc1", None, "one"), user("xyz", "abc1", "two"))
    index = index_file(path)
    search([index], "abc")
    assert index.titles == {1: "user: one"}


def test_matches_of_one_line_in_two_indexes_keep_their_order(tmp_path: Path) -> None:
    path = _file(tmp_path / "a.jsonl", user("abc1", None, "one"))
    old = FileIndex(path, 1, 1, [Record(1, "abc1", label="old mark")])
    new = FileIndex(path, 2, 2, [Record(1, "abc1", label="new mark")])
    for order in ([old, new], [new, old]):
        labels = [i.records[0].label for i in order]
        titles = [m.title for m in search(order, "mark")]
        assert titles == [f"🏷 {label} · user: one" for label in labels]
