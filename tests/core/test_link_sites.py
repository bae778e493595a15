"""Link sites, their targets and what the cursor designates: edge cases of both dialects.

The small v3 session of :mod:`features_sample` is covered in ``test_refs.py``; these cases
pin the lines around it: lines without links, malformed link values, tool calls repeated on
several branches, v1 indexes at the edges of the file, and the second dialect.
"""

from __future__ import annotations

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.text.findings import Span
from pi_lsp.core.views.refs import (
    Site,
    Subject,
    Target,
    index,
    labels,
    line_sites,
    references_to,
    resolve,
    session_path,
    span_of,
    subject_at,
    tool_sites,
)

from .features_sample import LINES, PATH, TEXT
from .pi_sessions import assistant, doc, entry, header, js, result, user

A, B, C, D, E, F = (c * 8 for c in "abcdef")
FEATURES = analyze(TEXT, PATH)


def value_at(line: str, literal: str, nth: int = 0) -> tuple[int, int]:
    """The columns of the ``nth`` occurrence of ``literal`` on ``line``."""
    start = -1
    for _ in range(nth + 1):
        start = line.index(literal, start + 1)
    return start, start + len(literal)


def subject(a: Analysis, line: int, literal: str, nth: int = 0) -> Subject | None:
    """The subject with the cursor one column inside ``literal`` on ``line``."""
    return subject_at(a, line, value_at(a.lines[line], literal, nth)[0] + 1)


def test_lines_outside_the_file_or_without_an_object_have_no_sites() -> None:
    # no final newline: the last line (an entry with a parentId) is also line -1
    text = doc(header(), user(A, None), "{broken", "") + user(B, A)
    a = analyze(text)
    assert line_sites(a, 4) == [Site(4, "parentId", ("parentId",), A)]
    for line in (-1, 2, 3, 5, 9):
        assert line_sites(a, line) == [], line
        assert subject_at(a, line, 2) is None, line


def test_only_string_link_values_are_sites() -> None:
    text = doc(
        header(parentSession=7),
        entry("label", A, None, targetId=3, label="x"),
        entry("compaction", B, A, summary="s", firstKeptEntryIndex=True, tokensBefore=1),
        entry("message", C, B, message="not an object"),
        entry("custom_message", D, C, message={"role": "toolResult", "toolCallId": "t"}),
    )
    a = analyze(text)
    assert [line_sites(a, n) for n in range(5)] == [
        [],
        [],
        [Site(2, "parentId", ("parentId",), A)],
        [Site(3, "parentId", ("parentId",), B)],
        [Site(4, "parentId", ("parentId",), C)],
    ]
    assert index(a).calls == {} and index(a).results == {}


def test_v1_index_sites_point_at_parsed_entries_only() -> None:
    v1 = [header(None), user(None, False), "[1]", user(None, False)]

    def target(value: int) -> list[Target]:
        comp = js({"type": "compaction", "timestamp": "t", "summary": "s",
                   "firstKeptEntryIndex": value, "tokensBefore": 1})  # fmt: skip
        a = analyze(doc(*v1, comp))
        [site] = line_sites(a, 4)
        assert site == Site(4, "firstKeptEntryIndex", ("firstKeptEntryIndex",), value)
        return resolve(a, site)

    assert target(1) == [Target(1, ())]
    assert target(3) == [Target(3, ())]
    assert target(0) == []  # the header
    assert target(2) == []  # `[1]` is parsed but is no entry
    assert target(5) == []  # past the last parsed line
    assert target(-1) == []
    # without a header, index 0 still names no entry (pi loads nothing from such a file)
    headless = analyze(doc(user(None, False), js({"type": "compaction", "timestamp": "t",
        "summary": "s", "firstKeptEntryIndex": 0, "tokensBefore": 1})))  # fmt: skip
    assert resolve(headless, line_sites(headless, 1)[0]) == []


def test_tool_results_resolve_to_calls_on_their_path_first() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, calls=("toolu_1",)),  # 2
        assistant(C, A, calls=("toolu_1",)),  # 3: the same id on another branch
        result(D, C, "toolu_1"),  # 4: answers line 3
        result(E, A, "toolu_1"),  # 5: on neither branch
        result(F, A, "toolu_9"),  # 6: names no call
    )
    a = analyze(text)
    [site] = [s for s in line_sites(a, 4) if s.field == "toolCallId"]
    assert site == Site(4, "toolCallId", ("message", "toolCallId"), "toolu_1")
    assert resolve(a, site) == [Target(3, ("message", "content", 1))]
    elsewhere = next(s for s in line_sites(a, 5) if s.field == "toolCallId")
    assert resolve(a, elsewhere) == [
        Target(2, ("message", "content", 1)),
        Target(3, ("message", "content", 1)),
    ]
    nothing = next(s for s in line_sites(a, 6) if s.field == "toolCallId")
    assert resolve(a, nothing) == []
    assert tool_sites(a, "toolu_9") == ([], [nothing])
    assert tool_sites(a, "toolu_0") == ([], [])
    assert references_to(a, 6) == []


def test_only_tool_call_blocks_of_assistant_messages_are_calls() -> None:
    block = {"type": "toolCall", "id": "toolu_1", "name": "bash", "arguments": {}}
    text = doc(
        header(),
        entry("message", A, None, message={"role": "user", "content": [block], "timestamp": 1}),
        entry(
            "message",
            B,
            A,
            message={
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "x", "id": "toolu_2"},
                    {**block, "id": 5},
                    block,
                ],
            },
        ),
        entry("message", C, B, message="not an object"),
    )
    a = analyze(text)
    assert index(a).calls == {"toolu_1": [(2, 2)]}
    # the cursor on a block's id: a call's is a declaration, a text block's is not
    assert subject(a, 2, '"toolu_1"') == Subject(
        "tool", None, "toolu_1", None, True, value_at(a.lines[2], '"toolu_1"')
    )
    assert subject(a, 2, '"toolu_2"') == Subject(
        "entry", 2, None, None, False, value_at(a.lines[2], '"toolu_2"')
    )
    # the cursor on another member of a call block (its name) is on the entry
    assert subject(a, 2, '"bash"', 1) == Subject(
        "entry", 2, None, None, False, value_at(a.lines[2], '"bash"', 1)
    )


def test_what_the_cursor_designates_on_each_kind_of_value() -> None:
    a, lines = FEATURES, LINES
    parent = value_at(lines[0], '"../parent.jsonl"')
    [file_site] = line_sites(a, 0)
    assert subject(a, 0, '"../parent.jsonl"') == Subject(
        "file", None, None, file_site, False, parent
    )
    assert subject(a, 0, '"/work"') is None  # the header is no entry
    assert subject(a, 0, '"parentSession"') is None  # nor is its key a link
    call_site = line_sites(a, 4)[1]
    assert subject(a, 4, '"call_1"') == Subject(
        "tool", None, "call_1", call_site, False, value_at(lines[4], '"call_1"')
    )
    parent_site = line_sites(a, 4)[0]
    assert subject(a, 4, '"a1"') == Subject(
        "entry", 3, None, parent_site, False, value_at(lines[4], '"a1"')
    )
    assert subject(a, 3, '"a1"') == Subject(
        "entry", 3, None, None, True, value_at(lines[3], '"a1"')
    )
    # on a key (of a link, or of the id): the entry itself, the key's span
    assert subject(a, 4, '"parentId"') == Subject(
        "entry", 4, None, None, False, value_at(lines[4], '"parentId"')
    )
    assert subject(a, 3, '"id"', 1) == Subject(
        "entry", 3, None, None, False, value_at(lines[3], '"id"', 1)
    )
    # elsewhere: the value under the cursor
    assert subject(a, 3, '"reading"') == Subject(
        "entry", 3, None, None, False, value_at(lines[3], '"reading"')
    )


def test_span_of_a_link_value() -> None:
    start, end = value_at(LINES[5], '"u1"')
    assert span_of(FEATURES, 5, ("targetId",)) == Span(5, start, end)


def test_relative_session_paths_without_a_file_stay_relative() -> None:
    a = analyze(TEXT)
    assert session_path(a, "../p.jsonl") == "../p.jsonl"
    assert session_path(a, "/abs/./p.jsonl") == "/abs/p.jsonl"
    assert session_path(FEATURES, "/abs/p.jsonl") == "/abs/p.jsonl"


def test_labels_name_entries_that_exist() -> None:
    text = doc(
        header(),
        user(A, None),
        entry("label", B, A, targetId=A, label="first"),
        entry("label", C, B, targetId="0badf00d", label="lost"),
        entry("label", D, C, targetId=B, label=""),
    )
    assert labels(analyze(text)) == {1: "first"}


BOOK = "".join(
    js(obj) + "\n"
    for obj in [
        {"type": "session_header", "version": 1, "createdAt": "t", "cwd": "/w",
         "parentSession": "../p.jsonl"},
        {"type": "user_message", "id": "u1", "parentId": None, "timestamp": "t",
         "content": [{"type": "text", "text": "hi"}]},
        {"type": "assistant_message", "id": "a1", "parentId": "u1", "timestamp": "t",
         "content": [{"type": "text", "text": "x"},
                     {"type": "tool_use", "id": "tc_1", "name": "w", "input": {}}]},
        {"type": "tool_result", "id": "r1", "parentId": "a1", "timestamp": "t",
         "toolCallId": "tc_1", "content": []},
        {"type": "assistant_message", "id": "a2", "parentId": "r1", "timestamp": "t",
         "content": [{"type": "tool_use", "id": "tc_1", "name": "w", "input": {}},
                     {"type": "tool_result", "toolUseId": "tc_1", "content": []}]},
        {"type": "branch_summary", "id": "b1", "parentId": "u1", "timestamp": "t",
         "summary": "s", "summarizedEntryIds": ["a1", "r1"], "branchRootId": "u1"},
    ]
)  # fmt: skip


def test_second_dialect_sites_are_named_by_their_last_key() -> None:
    a = analyze(BOOK)
    assert a.fmt == "book"
    assert line_sites(a, 0) == [Site(0, "parentSession", ("parentSession",), "../p.jsonl")]
    assert line_sites(a, 3) == [
        Site(3, "parentId", ("parentId",), "a1"),
        Site(3, "toolCallId", ("toolCallId",), "tc_1"),
    ]
    assert line_sites(a, 4) == [
        Site(4, "parentId", ("parentId",), "r1"),
        Site(4, "toolUseId", ("content", 1, "toolUseId"), "tc_1"),
    ]
    assert line_sites(a, 5) == [
        Site(5, "parentId", ("parentId",), "u1"),
        Site(5, "summarizedEntryIds", ("summarizedEntryIds", 0), "a1"),
        Site(5, "summarizedEntryIds", ("summarizedEntryIds", 1), "r1"),
        Site(5, "branchRootId", ("branchRootId",), "u1"),
    ]


def test_second_dialect_links_resolve_and_are_referenced() -> None:
    a = analyze(BOOK)
    assert [(s.line, s.field) for s in references_to(a, 1)] == [
        (2, "parentId"),
        (5, "parentId"),
        (5, "branchRootId"),
    ]
    assert [(s.line, s.path) for s in references_to(a, 3)] == [
        (4, ("parentId",)),
        (5, ("summarizedEntryIds", 1)),
    ]
    result_site = line_sites(a, 3)[1]
    assert resolve(a, result_site) == [Target(2, ("content", 1))]
    # a tool_result block resolves to the call before it, not to a tool_use of its message
    block_site = line_sites(a, 4)[1]
    assert resolve(a, block_site) == [Target(2, ("content", 1))]
    calls, results = tool_sites(a, "tc_1")
    assert calls == [(2, 1), (4, 0)] and results == [result_site, block_site]


def test_what_the_cursor_designates_in_the_second_dialect() -> None:
    a = analyze(BOOK)
    lines = a.lines
    assert subject(a, 2, '"tc_1"') == Subject(
        "tool", None, "tc_1", None, True, value_at(lines[2], '"tc_1"')
    )
    assert subject(a, 3, '"tc_1"') == Subject(
        "tool", None, "tc_1", line_sites(a, 3)[1], False, value_at(lines[3], '"tc_1"')
    )
    assert subject(a, 5, '"r1"') == Subject(
        "entry", 3, None, line_sites(a, 5)[2], False, value_at(lines[5], '"r1"')
    )
    # the key of a tool_use id is the entry's, as any other key
    key = value_at(lines[2], '"id"', 1)
    assert subject_at(a, 2, key[0] + 1) == Subject("entry", 2, None, None, False, key)
    assert subject(a, 2, '"w"') == Subject("entry", 2, None, None, False, value_at(lines[2], '"w"'))
