"""The append path: a text that only grew is analysed from its old last line on, and the
result is exactly a fresh analysis of the new text.

Sessions are drawn as pi writes them (a header, then entries linked by parentId, with
tool calls and results, compactions, labels, branch summaries, context edits, custom
messages, branches), cut at any two characters (so a text may end in a torn line, which
the next one completes) and joined with ``\n`` or ``\r\n``; each grown part may add
children to earlier entries, start a new root, repeat an earlier id, name a parent that
is missing or comes later (or itself), reference an id that a later entry takes, leave
out ``id`` or ``parentId``, hold JSON that is no entry, compact, edit the context, or
break JSON; headers are v3, v2 or v1. The new text reaches the core both as a whole
string (``analyze(text, previous=...)``) and as a full-text change of an open
:class:`Document` (which keeps the old line objects), twice in a row. Either way the
append path must be taken where it applies (checked by counting the lines it checks,
and, for the links, by counting the analyses extended rather than redone) and give what
a fresh analysis gives.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_lsp.core.checks import analysis as pipeline
from pi_lsp.core.checks import links
from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.checks.document import Document
from pi_lsp.core.checks.pairing import resumed_request
from pi_lsp.core.entries.model import Analysis, Options
from pi_lsp.core.pi import context
from pi_lsp.core.pi.sent import Request, request
from pi_lsp.core.text.lineindex import split_lines

from .pi_sessions import assistant, entry, header, js, result, user

IDS = [f"e{n}" for n in range(12)]


@st.composite
def session_line(draw: st.DrawFn, known: list[str], tame: bool) -> str:
    """One entry line; ``known`` are the ids written so far. Unless ``tame`` (lines pi
    writes, which the links' append path extends), it may reuse an id, name the next one
    before it exists, leave out id or parentId, or be JSON that is no entry."""
    fresh = f"e{len(known)}"
    ahead = f"e{len(known) + 1}"
    wild = [] if tame else [*known[-2:]]
    ident = draw(st.sampled_from([fresh, fresh, fresh, *wild]))
    parent: str | None = draw(
        st.sampled_from(
            [known[-1] if known else None] * (8 if tame else 3)
            + [*known[-3:], None, "nope", fresh]
            + ([] if tame else [ahead])
        )
    )
    target = draw(st.sampled_from([*known[-4:], "gone", *([] if tame else [ahead])]))
    kind = draw(st.integers(0, 9 if tame else 11))
    if kind == 0:
        line = user(ident, parent, draw(st.sampled_from(["hi", "é😀", "a\u2028b"])))
    elif kind == 1:
        calls = tuple(draw(st.lists(st.sampled_from(["c1", "c2", "c3"]), max_size=2, unique=True)))
        stop = draw(st.sampled_from(["stop", "error"]))
        model = draw(st.sampled_from(["claude-sonnet-4-5", "gpt-5"]))
        line = assistant(ident, parent, calls=calls, stop=stop, model=model)
    elif kind == 2:
        line = result(ident, parent, draw(st.sampled_from(["c1", "c2", "c3", "c9"])))
    elif kind == 3:
        line = entry(
            "compaction", ident, parent, summary="s", firstKeptEntryId=target, tokensBefore=5
        )
    elif kind == 4:
        line = entry("label", ident, parent, targetId=target, label="x")
    elif kind == 5:
        line = '{"type":"message","id":"' + ident + '","parentId":'  # broken JSON
    elif kind == 6:
        line = ""  # a blank line
    elif kind == 7:
        replacement = draw(st.sampled_from([None, {"content": "edited"}]))
        line = entry("context_edit", ident, parent, targetId=target, replacement=replacement)
    elif kind == 8:
        summary = draw(st.sampled_from(["back", ""]))
        line = entry(
            "branch_summary",
            ident,
            parent,
            fromId=draw(st.sampled_from([target, "root"])),
            summary=summary,
        )
    elif kind == 9:
        etype = draw(
            st.sampled_from(["custom_message", "mystery", "thinking_level_change", "model_change"])
        )  # pi knows no "mystery"
        fields = {"customType": "x", "content": "note", "display": True}
        if etype != "custom_message":
            fields = {
                "thinkingLevel": draw(st.sampled_from(["high", "low"])),
                "provider": "p",
                "modelId": "m",
            }
        line = entry(etype, ident, parent, **fields)
    elif kind == 10:
        # an entry without id or without parentId (as v1 writes them)
        missing = draw(st.sampled_from(["id", "parentId", "both"]))
        line = user(None if missing != "parentId" else ident, False if missing != "id" else parent)
    else:
        line = draw(st.sampled_from(["[1]", js({"id": fresh, "parentId": parent}), "null"]))
    if not tame or line.endswith("}"):
        known.append(ident)  # tame: only entries with this id (not blank or broken lines)
    return line


@st.composite
def growth(draw: st.DrawFn) -> tuple[str, str, str]:
    """``(old, mid, new)``: each starts with the one before minus at most its torn last line."""
    known: list[str] = []
    count = draw(st.integers(1, 12))
    tame = draw(st.booleans())
    lines = [header(3 if tame else draw(st.sampled_from([3, 2, None])))]
    lines += [draw(session_line(known, tame)) for _ in range(count)]
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    full = newline.join(lines) + draw(st.sampled_from([newline, ""]))
    cuts = sorted(draw(st.lists(st.integers(len(lines[0]) + 1, len(full)), min_size=2, max_size=2)))
    return full[: cuts[0]], full[: cuts[1]], full


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
    # the context of the resumed leaf that an append extends is the one pi builds
    pairing = got.link_state.pairing if got.link_state is not None else None
    if pairing is not None:
        assert pairing.resumed == context.build_context(context.entries_of(got))
        # ... and so is the request pi-ai makes of it, resumed where the old one stood
        sent = resumed_request(pairing)
        want = Request() if pairing.resumed.cycle else request(pairing.resumed)  # pi hangs
        assert (sent.messages, sent.dropped) == (want.messages, want.dropped)
    assert [f.data for f in got.findings] == [f.data for f in fresh.findings]


class Counting:
    """Counts the lines :meth:`pipeline._LinePass.checked` checks (patched in)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.starts: list[int] = []
        original = pipeline._LinePass.checked

        def checked(run: Any, ctx: Any, parsed: Any, start: int = 0) -> Any:
            self.starts.append(start)
            return original(run, ctx, parsed, start)

        monkeypatch.setattr(pipeline._LinePass, "checked", checked)


class Extended:
    """Counts the link analyses extended from the previous one (patched in)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = links.extend

        def extend(a: Any, previous: Any, lines: Any) -> Any:
            self.count += 1
            return original(a, previous, lines)

        monkeypatch.setattr(links, "extend", extend)


SEEN = {"extended": 0, "examples": 0}


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(growth())
@pytest.mark.slow
def test_an_append_analysed_from_the_end_is_a_fresh_analysis(
    monkeypatch: pytest.MonkeyPatch, texts: tuple[str, str, str]
) -> None:
    old, mid, new = texts
    counting = Counting(monkeypatch)
    extended = Extended(monkeypatch)
    before = analyze(old)
    middle = analyze(mid, previous=before)
    same(middle, analyze(mid))
    after = analyze(new, previous=middle)
    same(after, analyze(new))
    doc = Document.open("file:///s.jsonl", old, 1, None, Options())
    first = doc.analysis
    doc.replace_all(mid)
    same(doc.analysis, analyze(mid))
    doc.replace_all(new)
    same(doc.analysis, analyze(new))
    assert doc.source == new
    # the old text has a non-blank line after its header: the next one is checked from
    # the old text's last non-blank line on, in both ways
    for base, calls in ((first, (1, 6)), (middle, (3, 8))):
        nonblank = [i for i, line in enumerate(base.lines) if line.strip()]
        checked_from = nonblank[-1] if len(nonblank) > 1 else 0
        assert [counting.starts[n] for n in calls] == [checked_from] * 2
    SEEN["examples"] += 1
    SEEN["extended"] += extended.count > 0


def test_the_links_of_many_drawn_appends_were_extended() -> None:
    """The property above ran the links' append path, not only the fallback (it runs first)."""
    if SEEN["examples"] < 100:
        pytest.skip("the property test did not run in this session")
    assert SEEN["extended"] >= SEEN["examples"] // 10


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


def full_pass_forbidden(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the full link analysis fail: what follows must take the append path."""

    def check(a: Any) -> Any:
        raise AssertionError("the links were analysed in full")

    monkeypatch.setattr(links, "check", check)


def test_a_turn_appended_as_pi_writes_it_extends_the_links(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        header(3)
        + "\n"
        + user("a", None)
        + "\n"
        + assistant("b", "a", calls=("c1",))
        + "\n"
        + user("x", "a", "a branch")
        + "\n"
        + assistant("y", "x", calls=("c1",))
        + "\n"
    )
    before = analyze(text)
    assert [f.code for f in before.findings] == ["PI421"]  # the call on the leaf is open
    full_pass_forbidden(monkeypatch)
    steps = [
        result("r", "y", "c1"),  # answers it
        result("r2", "b", "c1"),  # a result on the other branch, now the leaf
        entry("label", "l", "r2", targetId="nowhere", label="x"),
        user("z", None, "a new root"),
        entry("compaction", "k", "z", summary="s", firstKeptEntryId="z", tokensBefore=1),
        entry("context_edit", "ed", "k", targetId="gone", replacement=None),
    ]
    codes = []
    for line in steps:
        grown = text + line + "\n"
        after = analyze(grown, previous=before)
        same(after, analyze_fresh(grown))
        codes.append(sorted(f.code for f in after.findings))
        text, before = grown, after
    assert codes == [[], [], ["PI411"], ["PI411"], ["PI411"], ["PI411", "PI414"]]


def analyze_fresh(text: str) -> Analysis:
    """A fresh analysis, even while :func:`full_pass_forbidden` is in force."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(links, "check", CHECK)
        return analyze(text)


CHECK = links.check


@pytest.mark.parametrize(
    "line, gone, came",
    [
        (user("b", "a"), set(), {"PI401", "PI403"}),  # an id an earlier entry has: relinks
        (user("ghost", "b"), {"PI400"}, {"PI403"}),  # the id an earlier parentId names
        (user("spot", "b"), {"PI411"}, set()),  # the id an earlier label names
        (user("n", "n"), set(), {"PI402"}),  # its own parent
        ('{"type":"message","id":"q","parentId":"b"}{', set(), {"PI001"}),
        (user(None, False), set(), {"PI300"}),
    ],
)
def test_an_append_that_changes_earlier_findings_is_a_fresh_analysis(
    line: str, gone: set[str], came: set[str]
) -> None:
    text = (
        header(3)
        + "\n"
        + user("a", None)
        + "\n"
        + user("b", "a")
        + "\n"
        + user("c", "ghost")
        + "\n"
        + entry("label", "l", "b", targetId="spot", label="x")
        + "\n"
    )
    before = analyze(text)
    grown = text + line + "\n"
    after = analyze(grown, previous=before)
    same(after, analyze(grown))
    was = {f.code for f in before.findings}
    now = {f.code for f in after.findings}
    assert (was - now, now - was) == (gone, came)


def test_a_child_off_the_rightmost_path_renumbers_the_tree() -> None:
    text = header(3) + "\n" + user("a", None) + "\n" + user("b", "a") + "\n" + user("c", "a") + "\n"
    before = analyze(text)
    grown = text + user("d", "b") + "\n" + user("e", "d") + "\n"
    after = analyze(grown, previous=before)
    same(after, analyze(grown))
    assert after.tree.is_ancestor(1, 5) and not after.tree.is_ancestor(3, 5)
    assert after.tree.active == [1, 2, 4, 5]


@pytest.mark.parametrize("version", [None, 2])
def test_appends_to_older_versions_are_fresh_analyses(version: int | None) -> None:
    v1 = version is None
    text = header(version) + "\n" + user(None if v1 else "a", False if v1 else None) + "\n"
    before = analyze(text)
    grown = text + assistant(None if v1 else "b", False if v1 else "a", calls=("c1",)) + "\n"
    after = analyze(grown, previous=before)
    same(after, analyze(grown))
    assert "PI421" in {f.code for f in after.findings}
