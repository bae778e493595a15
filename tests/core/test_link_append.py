"""The links' append path, one written step at a time: each grown text gives the findings of a
fresh analysis, and the path is taken exactly where it applies.

``tests/core/test_append.py`` draws such appends at random; here each link finding an
appended entry can bring (or take away from an earlier one) is made once, deterministically.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_lsp.core.checks import links
from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.checks.pairing import resumed_request
from pi_lsp.core.entries.model import Analysis

from .pi_sessions import assistant, entry, header, hook, js, result, user

CHECK, EXTEND = links.check, links.extend


def fresh(text: str) -> Analysis:
    return analyze(text)


def appended(before: Analysis, text: str) -> tuple[Analysis, bool]:
    """``text`` analysed after ``before``, and whether the links were extended (not redone)."""
    seen: list[str] = []

    def check(a: Any) -> Any:
        seen.append("check")
        return CHECK(a)

    def extend(a: Any, previous: Any, lines: Any) -> Any:
        seen.append("extend")
        return EXTEND(a, previous, lines)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(links, "check", check)
        patch.setattr(links, "extend", extend)
        after = analyze(text, previous=before)
    assert seen in (["check"], ["extend"]), seen
    return after, seen == ["extend"]


def same(got: Analysis, want: Analysis) -> None:
    assert got.tree == want.tree
    assert got.findings == want.findings
    assert [(f.data, f.related) for f in got.findings] == [
        (f.data, f.related) for f in want.findings
    ]
    assert (got.link_state is None) == (want.link_state is None)
    if got.link_state is not None and want.link_state is not None:
        g, w = got.link_state, want.link_state
        assert (g.dangling, g.calls, g.results, g.compactions) == (
            w.dangling,
            w.calls,
            w.results,
            w.compactions,
        )
        assert sorted(g.settled, key=repr) == sorted(w.settled, key=repr)
        if g.pairing is not None and w.pairing is not None:  # what the resumed leaf sends
            got_sent, want_sent = resumed_request(g.pairing), resumed_request(w.pairing)
            assert (got_sent.messages, got_sent.dropped) == (want_sent.messages, want_sent.dropped)


def grow(
    start: list[str], steps: list[str], newline: str = "\n", head: str | None = None
) -> list[tuple[list[str], bool]]:
    """Append the lines of ``steps`` one by one: per step the codes found and whether the
    links were extended; each step's analysis is the fresh one."""
    text = newline.join([head or header(3), *start]) + newline
    before = analyze(text)
    out = []
    for line in steps:
        text += line + newline
        after, extended = appended(before, text)
        same(after, fresh(text))
        out.append((sorted(f.code for f in after.findings), extended))
        before = after
    return out


BASE = [user("a", None), assistant("b", "a", calls=("c1",)), result("r", "b", "c1")]


def test_turns_tool_calls_and_results_appended() -> None:
    steps = [
        assistant("b2", "r", calls=("c2",)),  # an open call on the leaf
        result("r2", "b2", "c2"),  # answered
        result("r3", "r2", "c2"),  # answered twice on one path
        result("r4", "r3", "c9"),  # a result with no call
        assistant("b3", "r4", calls=("c9",)),  # the call, after the result: PI420 again
        user("u", "b", "a branch"),
        assistant("b4", "u", calls=("c1",)),  # a call id used again on another branch
        result("r5", "b4", "c1"),
        result("r6", "r5", "c1"),
    ]
    assert grow(BASE, steps) == [
        (["PI421"], True),
        ([], True),
        (["PI422"], True),
        (["PI420", "PI422"], True),
        (["PI420", "PI421", "PI422"], True),
        # from the branch on, "b"'s call c1 has its result "r" on another branch (PI421),
        # whatever the later call with the same id on the branch gets
        (["PI420", "PI421", "PI422"], True),
        (["PI420", "PI421", "PI421", "PI422"], True),
        (["PI420", "PI421", "PI422"], True),
        (["PI420", "PI421", "PI422", "PI422"], True),
    ]


def test_the_related_calls_of_a_result_are_remade_when_its_call_id_is_used() -> None:
    text = "\n".join([header(3), *BASE, result("r2", "r", "c9")]) + "\n"
    before = analyze(text)
    (f,) = before.findings
    assert (f.code, f.related) == ("PI420", ())
    text += assistant("b2", "r2", calls=("c9",)) + "\n"
    after, extended = appended(before, text)
    assert extended
    same(after, fresh(text))
    (f,) = [f for f in after.findings if f.code == "PI420"]
    assert [r.span.line for r in f.related] == [5]


def test_references_appended() -> None:
    steps = [
        user("u", "nope"),
        entry("label", "l", "u", targetId="gone", label="x"),
        entry("branch_summary", "s", "l", fromId="gone2", summary="x"),
        entry("compaction", "k", "s", summary="s", firstKeptEntryId="gone3", tokensBefore=1),
        entry("compaction", "k2", "k", summary="s", firstKeptEntryId="a", tokensBefore=1),
        entry("context_edit", "e", "k2", targetId="gone4", replacement=None),
        entry("context_edit", "e2", "e", targetId="b", replacement=None),
        entry("context_edit", "e3", "e2", targetId="u", replacement=None),
        entry("label", "l2", "e3", targetId="a", label="y"),
    ]
    assert grow(BASE, steps) == [
        (["PI400"], True),
        (["PI400", "PI411"], True),
        (["PI400", "PI411", "PI412"], True),
        (["PI400", "PI410", "PI411", "PI412"], True),
        (["PI400", "PI410", "PI410", "PI411", "PI412"], True),
        (["PI400", "PI410", "PI410", "PI411", "PI412", "PI414"], True),
        (["PI400", "PI410", "PI410", "PI411", "PI412", "PI414", "PI415"], True),
        (["PI400", "PI410", "PI410", "PI411", "PI412", "PI414", "PI415"], True),
        (["PI400", "PI410", "PI410", "PI411", "PI412", "PI414", "PI415"], True),
    ]


def test_an_appended_entry_taking_an_id_named_before_is_a_fresh_analysis() -> None:
    for dangling in (
        user("x", "later"),
        entry("label", "l", "r", targetId="later", label="x"),
        entry("branch_summary", "s", "r", fromId="later", summary="x"),
        entry("compaction", "k", "r", summary="s", firstKeptEntryId="later", tokensBefore=1),
        entry("context_edit", "e", "r", targetId="later", replacement=None),
    ):
        got = grow([*BASE, dangling], [user("later", "r")])
        assert got[0][1] is False, dangling
    # an id named by nothing dangling keeps the append path
    assert grow([*BASE, user("x", "r")], [user("later", "x")]) == [([], True)]


def test_appends_that_the_path_does_not_take() -> None:
    # JSON that is no entry, an id already taken, no id, no parentId: the links are redone
    for line in (
        js([1]),
        js({"a": 1}),
        js({"type": 5, "id": "x", "parentId": "r"}),
        header(3, parentId="r"),
        user("a", "r"),
        user("b", "r"),
    ):
        assert grow(BASE, [line])[0][1] is False, line
    no_id = user("x", "r").replace('"id":"x",', "")
    no_parent = user("x", "r").replace('"parentId":"r",', "")
    for line in (no_id, no_parent):
        assert grow(BASE, [line])[0][1] is False, line
    # blank and broken lines are skipped; what follows them is appended
    assert grow(BASE, ["", '{"type":"message"', user("x", "r")]) == [
        ([], True),
        (["PI002", "PI005"], True),
        (["PI001", "PI005"], True),
    ]
    # a session with an entry pi cannot link is analysed in full from then on
    unlinked = user("x", "r").replace('"parentId":"r",', "")
    assert grow([*BASE, unlinked], [user("y", "x")])[0][1] is False
    # so is a v2 session, and a book
    text = "\n".join([header(2), *BASE]) + "\n"
    before = analyze(text)
    assert appended(before, text + user("x", "r") + "\n")[1] is False


def test_a_last_line_that_changes_is_analysed_in_full() -> None:
    text = "\n".join([header(3), *BASE])  # no final newline
    before = analyze(text)
    after, extended = appended(before, text + "\n" + user("x", "r") + "\n")
    assert extended  # the last line stayed as it was
    same(after, fresh(text + "\n" + user("x", "r") + "\n"))
    torn = "\n".join([header(3), *BASE, user("x", "r")[:30]])
    before = analyze(torn)
    whole = "\n".join([header(3), *BASE, user("x", "r")]) + "\n"
    after, extended = appended(before, whole)
    same(after, fresh(whole))
    glued = text + user("x", "r") + "\n"
    after, extended = appended(analyze(text), glued)
    assert not extended
    same(after, fresh(glued))


def test_crlf_appends() -> None:
    steps = [assistant("b2", "r", calls=("c2",)), result("r2", "b2", "c2")]
    assert grow(BASE, steps, "\r\n") == [(["PI421"], True), ([], True)]


def test_the_context_pi_sends_is_paired_again_on_each_append() -> None:
    steps = [
        user("u", "b", "an interloper"),  # between the call and its result
        result("r", "u", "c1"),
        assistant("b2", "r", calls=("c2",)),
        user("u2", "b2", "another"),
        result("r2", "u2", "c2"),
    ]
    got = grow([user("a", None), assistant("b", "a", calls=("c1",))], steps)
    assert all(extended for _, extended in got)
    assert any(code in {"PI423", "PI425"} for codes, _ in got for code in codes)


def test_appends_to_a_session_pi_refuses() -> None:
    """No pairing for a file pi does not open (its header id is no string), twice over."""
    head = header(3, id=5)
    got = grow(BASE, [user("x", "r"), user("y", "x"), assistant("z", "y", calls=("c",))], head=head)
    assert [extended for _, extended in got] == [True, True, True]
    assert "PI421" in got[-1][0]


def test_an_appended_id_pi_already_indexes_is_a_fresh_analysis() -> None:
    """pi's index holds the id of a line with no type too: an entry taking it replaces it."""
    typeless = js({"id": "q", "parentId": "r"})
    assert grow([*BASE, typeless], [user("q", "r")])[0][1] is False
    assert grow([*BASE, typeless], [user("q2", "r")])[0][1] is True


def test_an_appended_second_result_names_the_nearest_first_one() -> None:
    """With a parent on a later line, the nearest earlier result is not the last line."""
    start = [
        user("a", None),
        assistant("b", "a", calls=("c1",)),
        result("r1", "r2", "c1"),
        result("r2", "b", "c1"),
    ]
    text = "\n".join([header(3), *start]) + "\n"
    before = analyze(text)
    text += result("r3", "r1", "c1") + "\n"
    after, extended = appended(before, text)
    assert extended
    same(after, fresh(text))
    (f,) = [f for f in after.findings if f.code == "PI422" and f.span.line == 5]
    assert "the first is on line 4" in f.message


def _widened(line: str) -> str:
    """``line`` with every value two columns further right (no link changes)."""
    return "{  " + line[1:]


EDITED = [
    # a call with an interloper; an aborted turn and a context edit on branches off the
    # resumed path; a bash run and a custom message between calls and results
    [
        user("a", None), assistant("b", "a", calls=("c1",)), user("i", "b", "wait"),
        result("r", "i", "c1"), assistant("f", "a", calls=("c2",), stop="aborted"),
        result("g", "f", "c2"), entry("context_edit", "e", "g", targetId="f", replacement=None),
        assistant("h", "r", calls=("c3",)), hook("k", "h"), result("m", "k", "c3"),
    ],
    [user("a", None), assistant("b", "a", calls=("c1", "c2")), result("r", "b", "c1")],
]
"""Sessions whose pairing leaves findings on some lines and candidates on others."""


@pytest.mark.parametrize("start", EDITED, ids=["branches", "open-call"])
def test_an_append_after_an_edit_that_moves_columns_gives_a_fresh_analysis(
    start: list[str],
) -> None:
    """Typing in a line that no link reads keeps the links, but not what an append extends
    (it holds the lines' values and places): the next append gives a fresh analysis'
    findings, ranges and related places."""
    ids = [json.loads(line)["id"] for line in start]
    steps = [
        *(user("n", parent, "next") for parent in ids),
        *(result("n", ids[-1], call) for call in ("c1", "c2", "c3")),
        assistant("n", ids[-1], calls=("c1",)),
    ]
    base = analyze("\n".join([header(3), *start]) + "\n")
    for i in range(len(start)):
        lines = [header(3), *start]
        lines[i + 1] = _widened(lines[i + 1])
        edited = "\n".join(lines) + "\n"
        before = analyze(edited, previous=base)
        for step in steps:
            after, _ = appended(before, edited + step + "\n")
            same(after, fresh(edited + step + "\n"))


def test_an_append_after_the_same_text_again_extends_the_links() -> None:
    text = "\n".join([header(3), *EDITED[0]]) + "\n"
    again = analyze(text, previous=analyze(text))
    after, extended = appended(again, text + user("n", "m", "next") + "\n")
    assert extended
    same(after, fresh(text + user("n", "m", "next") + "\n"))
