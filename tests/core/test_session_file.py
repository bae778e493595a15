"""A session file read for whole-folder work: the header and the tree pi finds, as the full
analysis finds them."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.lines import Kind
from pi_lsp.core.entries.session_file import load

from .pi_sessions import assistant, doc, entry, header, js, user

A, B, C, D = (c * 8 for c in "abcd")

BRANCHED = [user(A, None), assistant(B, A), user(C, A, "again"), assistant(D, C)]
"""a ─ b, a ─ c ─ d: the active path skips b, as parentId says (a chain in file order would not)."""

V1 = [user(None, False), assistant(None, False), user(None, False)]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("v3", doc(header(3), *BRANCHED)),
        ("v2", doc(header(2), *BRANCHED)),
        ("v1 without version", doc(header(None), *V1)),
        ("v1 with ids is still a chain", doc(header(1), *BRANCHED)),
        ("version 0 reads as v1", doc(header(0), *BRANCHED)),
        ("version 9 reads as v3", doc(header(9), *BRANCHED)),
        ("version 2.5 with ids reads as v3", doc(header(2.5), *BRANCHED)),  # type: ignore[arg-type]
        ("version 'x' without ids reads as v1", doc(header("x"), *V1)),  # type: ignore[arg-type]
        ("version 'x' with ids reads as v3", doc(header("x"), *BRANCHED)),  # type: ignore[arg-type]
        ("blank lines around", "\n\n" + doc(header(3), *BRANCHED) + "\n  \n"),
        ("a broken line first", "{oops\n" + doc(header(3), *BRANCHED)),
        ("no header", doc(*BRANCHED)),
        ("empty", ""),
        ("only blank", "\n \n"),
        ("JSON that is no entry", doc(header(3), "[1]", *BRANCHED, '"x"')),
        ("a book", doc(js({"type": "session_header", "version": 1, "id": "s"}), *BRANCHED)),
        ("a custom entry", doc(header(3), user(A, None), entry("custom", B, A, customType="x"))),
    ],
)
def test_load_finds_the_header_and_tree_the_analysis_finds(
    tmp_path: Path, name: str, text: str
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(text, encoding="utf-8")
    loaded = load(str(path))
    full = analyze(text)
    assert loaded.path == str(path)
    assert loaded.header_line == full.header_line, name
    assert loaded.tree == full.tree, name
    assert [i.kind for i in loaded.infos] == [i.kind for i in full.infos], name
    assert [i.value for i in loaded.infos] == [i.value for i in full.infos], name
    if full.header_line is not None:
        assert loaded.fmt == full.fmt, name


def test_load_follows_parent_ids_only_from_v2_on(tmp_path: Path) -> None:
    for version, active in [
        (3, [1, 3, 4]),
        (2, [1, 3, 4]),
        (1, [1, 2, 3, 4]),
        (None, [1, 2, 3, 4]),
    ]:
        path = tmp_path / "s.jsonl"
        path.write_text(doc(header(version), *BRANCHED), encoding="utf-8")
        loaded = load(str(path))
        assert loaded.header_line == 0 and loaded.fmt == "pi"
        assert loaded.tree.active == active, version


def test_a_file_whose_first_parsed_line_is_no_header_has_none(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(doc("", "[1]", header(3), *BRANCHED), encoding="utf-8")
    loaded = load(str(path))
    assert loaded.header_line is None and loaded.fmt == "pi"
    assert loaded.infos[2].kind is Kind.HEADER
    assert loaded.tree.active == [3, 5, 6]  # still followed by parentId


@pytest.mark.parametrize(
    "text",
    [
        "\n\ufeff" + doc(header(3), user(A, None)) + "\n",
        doc(header(3), user(A, None) + "\u00a0", user(B, A) + "\u00a0") + "\n",
        doc("\ufeff" + header(3), "\ufeff" + user(A, None)),
    ],
)
def test_edge_whitespace_is_parsed_on_the_first_and_last_lines_only(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(text, encoding="utf-8")
    loaded = load(str(path))
    full = analyze(text)
    assert [i.edge_space for i in loaded.infos] == [i.edge_space for i in full.infos]
    assert any(i.edge_space is not None for i in loaded.infos)


def test_a_book_is_its_own_format(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(doc(js({"type": "session_header", "version": 1, "id": "s"})), encoding="utf-8")
    assert load(str(path)).fmt == "book"


def test_an_unreadable_file_raises(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        load(str(tmp_path / "missing.jsonl"))
