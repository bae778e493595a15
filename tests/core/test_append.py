"""The append path: a text that only grew is analysed from its old last line on, and the
result is exactly a fresh analysis of the new text.

Sessions are drawn as pi writes them (a header, then entries linked by parentId, with
tool calls and results, compactions, labels, branches), cut at any character (so the old
text may end in a torn line, which the new text completes) and joined with ``\\n`` or
``\\r\\n``; the appended part may reference an earlier id, repeat one, start a new root,
compact, or break JSON. The new text reaches the core both as a whole string
(``analyze(text, previous=...)``) and as a full-text change of an open
:class:`Document` (which keeps the old line objects). Either way the append path must be
taken where it applies (checked by counting the lines it checks) and give what a fresh
analysis gives.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_lsp.core import analysis as pipeline
from pi_lsp.core.analysis import analyze
from pi_lsp.core.document import Document
from pi_lsp.core.model import Analysis, Options
from pi_lsp.core.text import split_lines

from .pi_sessions import assistant, entry, header, result, user

IDS = [f"e{n}" for n in range(12)]


@st.composite
def session_line(draw: st.DrawFn, known: list[str]) -> str:
    """One entry line; ``known`` are the ids written so far (it may reuse one)."""
    fresh = f"e{len(known)}"
    ident = draw(st.sampled_from([fresh, fresh, fresh, *known[-2:]]))
    parent: str | None = draw(
        st.sampled_from([known[-1] if known else None, *known[-3:], None, "nope"])
    )
    kind = draw(st.integers(0, 6))
    if kind == 0:
        line = user(ident, parent, draw(st.sampled_from(["hi", "é😀", "a\u2028b"])))
    elif kind == 1:
        calls = tuple(draw(st.lists(st.sampled_from(["c1", "c2", "c3"]), max_size=2, unique=True)))
        line = assistant(ident, parent, calls=calls, stop=draw(st.sampled_from(["stop", "error"])))
    elif kind == 2:
        line = result(ident, parent, draw(st.sampled_from(["c1", "c2", "c3", "c9"])))
    elif kind == 3:
        kept = draw(st.sampled_from([*known[-4:], "gone"])) if known else "gone"
        line = entry(
            "compaction", ident, parent, summary="s", firstKeptEntryId=kept, tokensBefore=5
        )
    elif kind == 4:
        target = draw(st.sampled_from([*known[-4:], "gone"])) if known else "gone"
        line = entry("label", ident, parent, targetId=target, label="x")
    elif kind == 5:
        line = '{"type":"message","id":"' + ident + '","parentId":'  # broken JSON
    else:
        line = ""  # a blank line
    known.append(ident)
    return line


@st.composite
def growth(draw: st.DrawFn) -> tuple[str, str]:
    """``(old, new)``: ``new`` starts with ``old`` minus at most its torn last line."""
    known: list[str] = []
    count = draw(st.integers(1, 9))
    lines = [header(draw(st.sampled_from([3, 3, 2])))]
    lines += [draw(session_line(known)) for _ in range(count)]
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    full = newline.join(lines) + draw(st.sampled_from([newline, ""]))
    cut = draw(st.integers(len(lines[0]) + 1, len(full)))
    return full[:cut], full


def same(got: Analysis, fresh: Analysis) -> None:
    """``got`` is what a fresh analysis of the same text gives."""
    assert got.lines == fresh.lines
    assert got.text.terminators == fresh.text.terminators
    assert (got.fmt, got.version, got.header_line) == (fresh.fmt, fresh.version, fresh.header_line)
    assert [(i.kind, i.value, i.type, i.error, i.issues, i.edge_space) for i in got.infos] == [
        (i.kind, i.value, i.type, i.error, i.issues, i.edge_space) for i in fresh.infos
    ]
    assert got.tree == fresh.tree
    assert got.findings == fresh.findings
    assert [f.data for f in got.findings] == [f.data for f in fresh.findings]


class Counting:
    """Counts the lines :meth:`pipeline._Lines.checked` checks (patched in)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.starts: list[int] = []
        original = pipeline._Lines.checked

        def checked(run: Any, ctx: Any, parsed: Any, start: int = 0) -> Any:
            self.starts.append(start)
            return original(run, ctx, parsed, start)

        monkeypatch.setattr(pipeline._Lines, "checked", checked)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(growth())
def test_an_append_analysed_from_the_end_is_a_fresh_analysis(
    monkeypatch: pytest.MonkeyPatch, texts: tuple[str, str]
) -> None:
    old, new = texts
    counting = Counting(monkeypatch)
    before = analyze(old)
    after = analyze(new, previous=before)
    same(after, analyze(new))
    doc = Document.open("file:///s.jsonl", old, 1, None, Options())
    first = doc.analysis
    doc.replace_all(new)
    same(doc.analysis, analyze(new))
    assert doc.source == new
    # the old text has a non-blank line after its header: the new one is checked from
    # the old text's last non-blank line on, in both ways
    nonblank = [i for i, line in enumerate(first.lines) if line.strip()]
    if len(nonblank) > 1:
        assert counting.starts[1] == counting.starts[4] == nonblank[-1]
    else:
        assert counting.starts[1] == counting.starts[4] == 0

def test_a_torn_last_line_completed_is_rechecked() -> None:
    head = header(3)
    whole = user("e1", None)
    torn = head + "\n" + whole[:20]
    before = analyze(torn)
    assert [f.code for f in before.findings] == ["PI002"]
    after = analyze(head + "\n" + whole + "\n", previous=before)
    assert after.findings == [] and after.infos[:1] == before.infos[:1]
    assert after.infos[0] is before.infos[0]  # the header's results were kept


def test_an_appended_duplicate_id_relinks_earlier_entries() -> None:
    text = header(3) + "\n" + user("a", None) + "\n" + user("b", "a") + "\n"
    before = analyze(text)
    grown = text + user("a", "b") + "\n"
    after = analyze(grown, previous=before)
    same(after, analyze(grown))
    assert {f.code for f in after.findings} >= {"PI401"}


def test_a_text_that_is_no_append_is_analysed_in_full(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = Counting(monkeypatch)
    text = header(3) + "\n" + user("a", None) + "\n" + user("b", "a") + "\n"
    before = analyze(text)
    edited = text.replace('"hello"', '"bye"', 1) + user("d", "b") + "\n"
    same(analyze(edited, previous=before), analyze(edited))
    assert counting.starts == [0, 0, 0]
    doc = Document.open("file:///s.jsonl", text, 1, None, Options())
    lines = doc.lines
    doc.replace_all(text + user("d", "b") + "\n")
    assert doc.lines[0] is lines[0] and doc.lines[2] is lines[2]
    assert split_lines(doc.source).lines == doc.lines
