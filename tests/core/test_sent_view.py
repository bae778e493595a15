"""The context view marks what pi-ai's ``transformMessages`` adds or drops: synthetic
results (``sent``, and ``+`` lines in text) and turns it does not send (``notSent``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.cli import main
from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.lines import call_ids
from pi_lsp.core.pi.context import ContextMessage, SessionContext, session_context
from pi_lsp.core.pi.sent import (
    NOT_SENT,
    Request,
    Sent,
    SentList,
    entry_calls,
    faults_of,
    llm_role,
    pairing_faults,
    request,
    sent_json,
    synthetic_after,
    synthetic_calls,
)
from pi_lsp.core.views.context_view import context_json

from .pi_sessions import assistant, doc, entry, header, result, user

A, B, C, D, E = (c * 8 for c in "abcde")

INTERLOPER = doc(
    header(),
    user(A, None),
    assistant(B, A, calls=("t1",)),
    entry("custom_message", C, B, customType="x", content="note", display=True),
    result(D, C, "t1"),
    assistant(E, D),
)
ABORTED = doc(
    header(),
    user(A, None),
    assistant(B, A, calls=("t1",), stop="aborted"),
    user(C, B, "again"),
    assistant(D, C),
)


def test_sent_in_json_marks_synthetic_results() -> None:
    view = context_json(session_context(analyze(INTERLOPER)))
    assert view["sent"] == [
        {"role": "user", "line": 1},
        {"role": "assistant", "line": 2, "toolCallIds": ["t1"]},
        {"role": "toolResult", "line": None, "toolCallId": "t1", "synthetic": True},
        {"role": "user", "line": 3},
        {"role": "toolResult", "line": 4, "toolCallId": "t1"},
        {"role": "assistant", "line": 5, "toolCallIds": []},
    ]
    assert all("notSent" not in m for m in view["messages"])


def test_aborted_turn_is_marked_not_sent() -> None:
    view = context_json(session_context(analyze(ABORTED)))
    marked = [(m["line"], m.get("notSent")) for m in view["messages"]]
    assert marked == [(1, None), (2, NOT_SENT), (3, None), (4, None)]
    assert [m["line"] for m in view["sent"]] == [1, 3, 4]


@pytest.mark.parametrize(
    "text, wanted",
    [
        (INTERLOPER, '      +  toolResult "No result provided" for t1 (added by pi-ai)'),
        (ABORTED, "(not sent: pi-ai drops failed and aborted turns)"),
    ],
)
def test_context_text_shows_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, wanted: str
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(text, encoding="utf-8")
    assert main(["context", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    hits = [n for n, line in enumerate(out) if wanted in line]
    assert len(hits) == 1
    if text is INTERLOPER:  # right after the turn that holds the call
        assert out[hits[0] - 1].lstrip().startswith("3  assistant")


# ----------------------------------------------------------------------------- the request itself


def _ctx(*messages: dict[str, Any]) -> SessionContext:
    """A context of these messages, on lines 1, 2, ..."""
    return SessionContext(messages=[ContextMessage(n, m) for n, m in enumerate(messages, 1)])


def _asst(*calls: str, stop: str = "toolUse") -> dict[str, Any]:
    content: list[Any] = [{"type": "text", "text": "hi"}]
    content += [{"type": "toolCall", "id": c, "name": "bash", "arguments": {}} for c in calls]
    return {"role": "assistant", "content": content, "stopReason": stop}


def _res(call: Any) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call, "content": []}


USER = {"role": "user", "content": "go"}
SYSTEM = {"role": "system", "content": ""}


def _shape(req: Request) -> list[tuple[str, int | None, Any]]:
    return [(m.role, m.line, m.calls if m.role == "assistant" else m.answers) for m in req.messages]


ROLES: list[tuple[Any, str | None]] = [
    (USER, "user"),
    ({"role": "custom", "content": "x"}, "user"),
    ({"role": "hookMessage", "content": "x"}, "user"),
    ({"role": "branchSummary", "summary": "x"}, "user"),
    ({"role": "compactionSummary", "summary": "x"}, "user"),
    ({"role": "bashExecution", "command": "ls"}, "user"),
    ({"role": "bashExecution", "command": "ls", "excludeFromContext": False}, "user"),
    ({"role": "bashExecution", "command": "ls", "excludeFromContext": 0}, "user"),
    ({"role": "bashExecution", "command": "ls", "excludeFromContext": True}, None),
    ({"role": "bashExecution", "command": "ls", "excludeFromContext": "yes"}, None),
    ({"role": "custom", "excludeFromContext": True}, "user"),
    (SYSTEM, "system"),
    ({"role": "assistant"}, "assistant"),
    ({"role": "toolResult"}, "toolResult"),
    ({"role": "developer"}, None),
    ({"role": ["user"]}, None),
    ({"content": "no role"}, None),
    ("user", None),
    (None, None),
]
"""Messages and the role ``convertToLlm`` sends each as (None: dropped)."""


@pytest.mark.parametrize(("message", "role"), ROLES)
def test_the_role_convert_to_llm_sends_a_message_as(message: Any, role: str | None) -> None:
    assert llm_role(message) == role


@pytest.mark.parametrize(("message", "role"), ROLES)
def test_the_request_sends_a_message_as_llm_role_says(message: Any, role: str | None) -> None:
    # request() must send each message with the role llm_role gives it
    req = request(_ctx(USER, message, USER))
    sent = [] if role is None else [(role, 2, () if role == "assistant" else None)]
    assert _shape(req)[1:-1] == sent


def test_the_request_is_made_of_sent_messages_with_every_field() -> None:
    # every field of the messages request() builds
    req = request(_ctx(USER, _asst("a", "b"), _res("a"), SYSTEM, _asst(), {"role": "custom"}))
    assert req.messages == [
        Sent("user", 1),
        Sent("assistant", 2, calls=("a", "b")),
        Sent("toolResult", 3, answers="a"),
        Sent("toolResult", None, answers="b"),
        Sent("system", 4),
        Sent("assistant", 5),
        Sent("user", 6),
    ]
    assert [hash(m) for m in req.messages] == [
        hash(Sent(m.role, m.line, m.calls, m.answers)) for m in req.messages
    ]
    assert repr(req.messages[1]) == "Sent(role='assistant', line=2, calls=('a', 'b'), answers=None)"


def test_a_result_while_no_call_is_open_answers_no_later_call() -> None:
    req = request(_ctx(USER, _res("a"), _asst("a"), USER))
    assert _shape(req) == [
        ("user", 1, None),
        ("toolResult", 2, "a"),
        ("assistant", 3, ("a",)),
        ("toolResult", None, "a"),
        ("user", 4, None),
    ]


def test_dropped_messages_are_not_sent() -> None:
    req = request(
        _ctx(
            USER,
            {"role": "bashExecution", "command": "ls", "excludeFromContext": True},
            {"role": "developer"},
            {"role": "custom", "content": "x"},
        )
    )
    assert _shape(req) == [("user", 1, None), ("user", 4, None)]
    assert req.dropped == []


def test_a_failed_turn_is_dropped_and_its_open_calls_answered_first() -> None:
    req = request(
        _ctx(
            USER, _asst("t1"), _asst("t2", stop="error"), _asst(stop="aborted"), _asst(stop="stop")
        )
    )
    assert _shape(req) == [
        ("user", 1, None),
        ("assistant", 2, ("t1",)),
        ("toolResult", None, "t1"),
        ("assistant", 5, ()),
    ]
    assert req.dropped == [3, 4]
    assert [m.synthetic for m in req.messages] == [False, False, True, False]


def test_open_calls_are_answered_before_the_next_user_or_assistant_message_and_at_the_end() -> None:
    req = request(
        _ctx(USER, _asst("a", "b", "c"), _res("b"), USER, _asst("d"), _res("d"), _asst("e"))
    )
    assert _shape(req) == [
        ("user", 1, None),
        ("assistant", 2, ("a", "b", "c")),
        ("toolResult", 3, "b"),
        ("toolResult", None, "a"),
        ("toolResult", None, "c"),
        ("user", 4, None),
        ("assistant", 5, ("d",)),
        ("toolResult", 6, "d"),
        ("assistant", 7, ("e",)),
        ("toolResult", None, "e"),
    ]
    assert synthetic_after(req) == {3: ["a", "c"], 7: ["e"]}


def test_answers_of_an_earlier_turn_do_not_count_for_the_next() -> None:
    req = request(_ctx(_asst("a"), _res("a"), _asst("a"), USER))
    assert _shape(req) == [
        ("assistant", 1, ("a",)),
        ("toolResult", 2, "a"),
        ("assistant", 3, ("a",)),
        ("toolResult", None, "a"),
        ("user", 4, None),
    ]


def test_a_result_without_a_string_call_id_answers_nothing() -> None:
    req = request(_ctx(_asst("a"), _res(7), _res(None)))
    assert _shape(req) == [
        ("assistant", 1, ("a",)),
        ("toolResult", 2, None),
        ("toolResult", 3, None),
        ("toolResult", None, "a"),
    ]
    assert [m.synthetic for m in req.messages] == [False, False, False, True]


def test_system_messages_wait_while_calls_are_open() -> None:
    req = request(_ctx(SYSTEM, _asst("a"), SYSTEM, SYSTEM, _res("a"), USER, SYSTEM))
    assert _shape(req) == [
        ("system", 1, None),
        ("assistant", 2, ("a",)),
        ("toolResult", 5, "a"),
        ("system", 3, None),
        ("system", 4, None),
        ("user", 6, None),
        ("system", 7, None),
    ]


def test_a_held_system_message_follows_the_synthetic_results() -> None:
    req = request(_ctx(_asst("a"), SYSTEM))
    assert _shape(req) == [("assistant", 1, ("a",)), ("toolResult", None, "a"), ("system", 2, None)]
    assert synthetic_after(req) == {1: ["a"]}


@pytest.mark.parametrize(
    ("content", "calls"),
    [
        ("text", ()),
        (None, ()),
        ([{"type": "toolCall", "id": "a"}, {"type": "toolCall", "id": 3}], ("a",)),
        (
            [
                {"type": "toolCall"},
                {"type": "text", "id": "b"},
                "toolCall",
                {"type": "toolCall", "id": "c"},
            ],
            ("c",),
        ),
    ],
)
def test_the_calls_an_assistant_turn_holds(content: Any, calls: tuple[str, ...]) -> None:
    req = request(_ctx({"role": "assistant", "content": content}))
    assert req.messages[0].calls == calls
    assert [m.answers for m in req.messages[1:]] == list(calls)


def test_sent_json_of_each_kind_of_message() -> None:
    req = request(_ctx(USER, _asst("a", "b"), _res("a"), SYSTEM))
    assert sent_json(req) == [
        {"role": "user", "line": 1},
        {"role": "assistant", "line": 2, "toolCallIds": ["a", "b"]},
        {"role": "toolResult", "line": 3, "toolCallId": "a"},
        {"role": "toolResult", "line": None, "toolCallId": "b", "synthetic": True},
        {"role": "system", "line": 4},
    ]


def test_synthetic_results_before_any_sent_message_follow_none() -> None:
    req = Request(messages=[Sent("toolResult", None, answers="x"), Sent("user", 1)])
    assert synthetic_after(req) == {None: ["x"]}
    assert synthetic_after(Request()) == {}


# ----------------------------------------------------------------------------- pairing


def _faults(messages: list[Sent]) -> list[tuple[int, int | None, str | None, str]]:
    return [(f.index, f.line, f.call_id, f.fault) for f in pairing_faults(messages)]


def test_results_directly_after_their_turn_are_paired() -> None:
    msgs = [
        Sent("user", 1),
        Sent("assistant", 2, calls=("a", "b")),
        Sent("toolResult", 3, answers="b"),
        Sent("toolResult", 4, answers="a"),
        Sent("assistant", 5, calls=("c",)),
        Sent("toolResult", None, answers="c"),
    ]
    assert _faults(msgs) == []


def test_a_result_after_another_message_or_for_another_turn_is_an_orphan() -> None:
    msgs = [
        Sent("toolResult", 1, answers="a"),
        Sent("assistant", 2, calls=("a",)),
        Sent("user", 3),
        Sent("toolResult", 4, answers="a"),
        Sent("assistant", 5, calls=("b",)),
        Sent("toolResult", 6, answers="a"),
        Sent("toolResult", 7, answers=None),
        Sent("toolResult", 8, answers="b"),
    ]
    assert _faults(msgs) == [
        (0, 1, "a", "orphan"),
        (3, 4, "a", "orphan"),
        (5, 6, "a", "orphan"),
        (6, 7, None, "orphan"),
    ]


def test_a_call_answered_twice_is_a_duplicate_and_counts_per_turn() -> None:
    msgs = [
        Sent("assistant", 1, calls=("a", "b")),
        Sent("toolResult", 2, answers="a"),
        Sent("toolResult", 3, answers="a"),
        Sent("toolResult", 4, answers="b"),
        Sent("toolResult", 5, answers="a"),
        Sent("assistant", 6, calls=("a",)),
        Sent("toolResult", 7, answers="a"),
    ]
    assert _faults(msgs) == [(2, 3, "a", "duplicate"), (4, 5, "a", "duplicate")]


def test_a_system_message_between_a_turn_and_its_result_orphans_it() -> None:
    msgs = [
        Sent("assistant", 1, calls=("a",)),
        Sent("system", 2),
        Sent("toolResult", 3, answers="a"),
    ]
    assert _faults(msgs) == [(2, 3, "a", "orphan")]


def test_a_result_before_any_turn_is_sent_and_is_an_orphan() -> None:
    req = request(_ctx(USER, _res("a"), _asst("b"), _res("b")))
    assert _shape(req) == [
        ("user", 1, None),
        ("toolResult", 2, "a"),
        ("assistant", 3, ("b",)),
        ("toolResult", 4, "b"),
    ]
    assert _faults(req.messages) == [(1, 2, "a", "orphan")]


def test_a_context_that_starts_with_a_result_sends_it() -> None:
    req = request(_ctx(_res("a"), USER))
    assert _shape(req) == [("toolResult", 1, "a"), ("user", 2, None)]
    assert _faults(req.messages) == [(0, 1, "a", "orphan")]


def test_tool_calls_are_blocks_of_type_toolCall_with_a_string_id_at_their_index() -> None:
    content: list[Any] = [
        {"type": "text", "text": "x"},
        {"type": "toolCall", "id": "t1"},
        {"type": "toolCall", "id": 7},
        {"type": "toolCall"},
        "toolCall",
        {"type": "toolUse", "id": "t2"},
        {"type": "toolCall", "id": ""},
    ]
    assert call_ids(content) == ((1, "t1"), (6, ""))
    assert call_ids({"type": "toolCall", "id": "t1"}) == () and call_ids(None) == ()
    turn = {"type": "message", "message": {"role": "assistant", "content": content}}
    assert entry_calls(turn) == ((1, "t1"), (6, ""))
    for other in (
        {**turn, "type": "custom_message"},
        {"type": "message", "message": {"role": "user", "content": content}},
        {"type": "message", "message": [content]},
    ):
        assert entry_calls(other) == ()


_STEPS = [
    USER,
    SYSTEM,
    _asst(),
    _asst("c1"),
    _asst("c1", "c2"),
    _asst("c2", stop="error"),
    _asst("c3", stop="aborted"),
    _res("c1"),
    _res("c2"),
    _res("c3"),
    _res(7),
    {"role": "bashExecution", "command": "ls", "excludeFromContext": True},
    {"role": "developer"},
]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(range(len(_STEPS))), max_size=14), st.data())
def test_a_request_resumed_after_a_prefix_of_the_context_is_the_request_built_afresh(
    steps: list[int], data: st.DataObject
) -> None:
    """What an append does: the request of the longer context, resumed from the request
    of its first messages, equals the one built afresh (synthetic results for the calls
    open at the end of the shorter one, held system messages, dropped turns included)."""
    whole = _ctx(*(_STEPS[s] for s in steps))
    cut = data.draw(st.integers(0, len(steps)))
    first = request(SessionContext(messages=whole.messages[:cut]))
    faults_of(first)  # what an analysis reads of it before the append
    resumed, fresh = request(whole, first), request(whole)
    assert (_shape(resumed), resumed.dropped) == (_shape(fresh), fresh.dropped)
    # its faults and synthetic results, read from the old request's where they stand
    assert faults_of(resumed) == pairing_faults(fresh.messages)
    assert synthetic_calls(resumed) == _synthetic_by_scan(fresh)
    # and again from there, as a second append does
    assert _shape(request(whole, resumed)) == _shape(fresh)


def _synthetic_by_scan(req: Request) -> set[tuple[int | None, str | None]]:
    """(turn, call) of each synthetic result, read off the messages: the turn is the last
    assistant message before it."""
    out, turn = set(), None
    for m in req.messages:
        if m.role == "assistant":
            turn = m.line
        elif m.synthetic:
            out.add((turn, m.answers))
    return out


@pytest.mark.parametrize(
    "steps",
    [
        [USER, _asst("c1", "c2"), _res("c1"), _res("c2"), _res("c2"), USER, _res("c1")],
        [_asst("c1"), SYSTEM, _res("c1"), _asst("c2", stop="error"), _res("c2"), _res(7)],
    ],
)
def test_a_request_resumed_between_the_results_of_one_turn_keeps_its_pairing(
    steps: list[dict[str, Any]],
) -> None:
    """Cut anywhere, also between two results of one turn: the resumed request's faults
    (a duplicate, orphans) are the fresh request's."""
    whole = _ctx(*steps)
    fresh = request(whole)
    assert pairing_faults(fresh.messages)  # something to keep
    for cut in range(len(steps) + 1):
        first = request(SessionContext(messages=whole.messages[:cut]))
        faults_of(first)
        resumed = request(whole, first)
        assert faults_of(resumed) == pairing_faults(fresh.messages), cut
        assert synthetic_calls(resumed) == _synthetic_by_scan(fresh), cut


_SENT = st.builds(
    Sent,
    st.sampled_from(["user", "assistant", "toolResult", "system", "other"]),
    st.one_of(st.none(), st.integers(-2, 2**31 - 1)),
    st.one_of(st.just(()), st.tuples(st.text(max_size=3)), st.tuples(st.text(), st.text())),
    st.one_of(st.none(), st.text(max_size=3)),
)


@given(st.lists(_SENT, max_size=12), st.lists(_SENT, max_size=4), st.integers(-14, 14))
def test_a_sent_list_holds_what_a_list_of_sent_messages_holds(
    items: list[Sent], more: list[Sent], cut: int
) -> None:
    kept = SentList(items)
    assert kept == items and list(kept) == items and len(kept) == len(items)
    assert [kept[n] for n in range(-len(items), len(items))] == items + items
    assert kept[:cut] == items[:cut] and isinstance(kept[:cut], SentList)
    grown = kept[:cut]
    grown.extend(SentList(more))
    grown.extend(more)
    assert grown == items[:cut] + more + more
    assert kept == items  # a slice is a copy
