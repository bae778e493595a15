"""The book dialect's own checks (pi_lsp.core.checks.book): header notice, tool ids, summarized ids.

``tests/data/book-from-doc.jsonl`` is written from the examples of
``seeds/session-file-format-book.txt`` (24.5.x): the thinking entry is a sibling of the
assistant message as in the document; the user message after the tool result hangs below
it (not below the assistant, as the illustrative tree of 24.6 draws it) so the tool result
stays on the conversation's path; the branch summary of 24.5.7 abandons entries 006-007.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.core.checks import book
from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.text.codes import CODES
from pi_lsp.core.text.findings import Finding, Severity, Span

DATA = Path(__file__).resolve().parents[1] / "data"
SAMPLE = (DATA / "book-from-doc.jsonl").read_text(encoding="utf-8")
LINES = SAMPLE.splitlines()


def objects() -> list[dict[str, Any]]:
    return [json.loads(line) for line in LINES]


def render(objs: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in objs)


def line_of(objs: list[dict[str, Any]], ident: str) -> int:
    return next(n for n, o in enumerate(objs) if o.get("id") == ident)


def value_span(text: str, line: int, literal: str, nth: int = 0) -> Span:
    """The span of the JSON literal ``literal`` (e.g. '"tc_9"') on ``line``, ``nth`` occurrence."""
    row = text.split("\n")[line]
    start = -1
    for _ in range(nth + 1):
        start = row.index(literal, start + 1)
    return Span(line, start, start + len(literal))


def problems(a: Analysis) -> list[Finding]:
    return [f for f in a.findings if f.code != "PI105"]


# ----------------------------------------------------------------------------- valid samples


@pytest.mark.parametrize("name", ["book-from-doc.jsonl", "book-valid.jsonl"])
def test_valid_samples_have_only_the_header_notice(name: str) -> None:
    text = (DATA / name).read_text(encoding="utf-8")
    a = analyze(text)
    assert (a.fmt, a.version) == ("book", 1)
    assert problems(a) == []
    [notice] = a.findings
    assert notice.code == "PI105"
    assert notice.severity is Severity.INFORMATION
    assert notice.span == value_span(text, 0, '"session_header"')
    assert "pi cannot load it" in notice.message
    assert notice.data == {"format": "book", "version": 1}


def test_pi105_is_a_registered_code() -> None:
    assert CODES["PI105"].severity is Severity.INFORMATION


def test_no_header_notice_on_pi_files() -> None:
    text = '{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}\n'
    assert [f.code for f in analyze(text).findings] == []


# ----------------------------------------------------------------------------- tool ids


def test_tool_result_with_unknown_call_id() -> None:
    objs = objects()
    n = line_of(objs, "entry-004")
    objs[n]["toolCallId"] = "tc_999"
    text = render(objs)
    [f] = problems(analyze(text))
    assert (f.code, f.severity) == ("PI420", Severity.ERROR)
    assert f.span == value_span(text, n, '"tc_999"')
    assert f.message.startswith("tool_result toolCallId 'tc_999' matches no tool_use")
    assert f.data == {"toolCallId": "tc_999"}


def test_tool_call_with_unknown_call_id() -> None:
    objs = objects()
    n = line_of(objs, "entry-003")
    objs[n]["toolCallId"] = "tc_404"
    text = render(objs)
    [f] = problems(analyze(text))
    assert f.code == "PI420"
    assert f.span == value_span(text, n, '"tc_404"')
    assert f.message.startswith("tool_call toolCallId 'tc_404'")


def test_tool_result_block_in_a_user_message() -> None:
    objs = objects()
    n = line_of(objs, "entry-005")
    objs[n]["content"].insert(
        0,
        {"type": "tool_result", "toolUseId": "tc_777", "content": [{"type": "text", "text": "x"}]},
    )
    text = render(objs)
    [f] = problems(analyze(text))
    assert f.code == "PI420"
    assert f.span == value_span(text, n, '"tc_777"')
    assert "tool_result block toolUseId 'tc_777'" in f.message


def test_answered_tool_result_block_is_fine() -> None:
    objs = objects()
    objs[line_of(objs, "entry-005")]["content"].insert(
        0, {"type": "tool_result", "toolUseId": "tc_001", "content": []}
    )
    assert problems(analyze(render(objs))) == []


def test_tool_use_on_another_branch_is_related() -> None:
    objs = objects()
    # the tool result now hangs below the user message: tc_001's tool_use is not above it
    n = line_of(objs, "entry-004")
    objs[n]["parentId"] = "entry-001"
    objs[line_of(objs, "entry-003")]["toolCallId"] = "tc_001"
    text = render(objs)
    [f] = [f for f in problems(analyze(text)) if f.span.line == n]
    assert f.code == "PI420"
    assert "on another branch" in f.message
    use_line = line_of(objs, "entry-002")
    assert [(r.span, r.message) for r in f.related] == [
        (value_span(text, use_line, '"tc_001"'), "a tool_use with this id, off its path")
    ]


def test_tool_call_entry_without_tool_use() -> None:
    objs = objects()
    a_line = line_of(objs, "entry-002")
    objs[a_line]["content"] = objs[a_line]["content"][:1]  # drop the tool_use block
    text = render(objs)
    found = problems(analyze(text))
    call, result = line_of(objs, "entry-003"), line_of(objs, "entry-004")
    assert [(f.code, f.span) for f in found] == [
        ("PI420", value_span(text, call, '"tc_001"')),
        ("PI420", value_span(text, result, '"tc_001"')),
    ]
    assert "matches no tool_use block of an assistant_message in this file" in found[0].message
    assert [(r.span, r.message) for r in found[1].related] == [
        (value_span(text, call, '"tc_001"'), "the tool_call entry with this id")
    ]


# ----------------------------------------------------------------------------- summarized ids


def test_compaction_summarized_id_names_no_entry() -> None:
    objs = objects()
    n = line_of(objs, "entry-010")
    objs[n]["summarizedEntryIds"][3] = "entry-404"
    text = render(objs)
    [f] = problems(analyze(text))
    assert (f.code, f.severity) == ("PI410", Severity.WARNING)
    assert f.span == value_span(text, n, '"entry-404"')
    assert f.message.startswith("compaction summarizedEntryIds 'entry-404' names no entry")
    assert f.data == {"id": "entry-404", "field": "summarizedEntryIds"}


def test_branch_summary_ids_name_no_entry() -> None:
    objs = objects()
    n = line_of(objs, "entry-015")
    objs[n]["summarizedEntryIds"] = ["entry-006", "gone"]
    objs[n]["branchRootId"] = "nowhere"
    text = render(objs)
    found = problems(analyze(text))
    assert [(f.code, f.severity, f.span) for f in found] == [
        ("PI412", Severity.WARNING, value_span(text, n, '"gone"')),
        ("PI412", Severity.WARNING, value_span(text, n, '"nowhere"')),
    ]
    assert "where the abandoned branch started" in found[1].message


# ----------------------------------------------------------------------------- shared checks


def test_core_checks_apply_to_the_dialect() -> None:
    objs = objects()
    objs[line_of(objs, "entry-006")]["parentId"] = "entry-ghost"
    objs[line_of(objs, "entry-012")]["usage"]["inputTokens"] = "many"  # schema
    objs[line_of(objs, "entry-012")]["id"] = "entry-007"  # duplicate id
    text = render(objs)
    codes = sorted(f.code for f in problems(analyze(text)))
    assert codes == ["PI200", "PI400", "PI401"]


def test_unknown_entry_type_is_reported() -> None:
    text = SAMPLE + '{"type":"label","id":"x","parentId":"entry-012","timestamp":"t"}\n'
    [f] = problems(analyze(text))
    assert f.code == "PI004"


# ----------------------------------------------------------------------------- link fields


def test_links_of_every_field() -> None:
    objs = objects()
    got = {
        (o["id"], link.path, link.value, link.field.target, link.field.code)
        for o in objs[1:]
        for link in book.links_of(o)
        if link.path != ("parentId",)
    }
    assert got >= {
        ("entry-003", ("toolCallId",), "tc_001", "tool_use", "PI420"),
        ("entry-004", ("toolCallId",), "tc_001", "tool_use", "PI420"),
        ("entry-015", ("summarizedEntryIds", 1), "entry-007", "entry", "PI412"),
        ("entry-015", ("branchRootId",), "entry-005", "entry", "PI412"),
        ("entry-010", ("summarizedEntryIds", 0), "entry-001", "entry", "PI410"),
    }
    block = {
        "type": "user_message",
        "content": [
            {"type": "text", "text": "x"},
            {"type": "tool_result", "toolUseId": "t", "content": []},
        ],
    }
    assert [(link.path, link.value) for link in book.links_of(block)] == [
        (("content", 1, "toolUseId"), "t")
    ]


def test_resolve_and_referrers() -> None:
    a = analyze(SAMPLE)
    objs = objects()
    use_line = line_of(objs, "entry-002")
    use_path = ("content", 1, "id")
    assert dict(book.tool_uses(a)) == {"tc_001": [(use_line, use_path)]}
    result = line_of(objs, "entry-004")
    [link] = [x for x in book.links_of(objs[result]) if x.path == ("toolCallId",)]
    assert book.resolve(a, result, link) == (use_line, use_path)
    root = line_of(objs, "entry-005")
    [bl] = [
        x for x in book.links_of(objs[line_of(objs, "entry-015")]) if x.path == ("branchRootId",)
    ]
    assert book.resolve(a, line_of(objs, "entry-015"), bl) == (root, ("id",))
    to_use = [(line, x.path) for line, x in book.referrers(a, use_line, use_path)]
    assert to_use == [(line_of(objs, "entry-003"), ("toolCallId",)), (result, ("toolCallId",))]
    to_root = {(line, x.path) for line, x in book.referrers(a, root)}
    assert to_root == {
        (line_of(objs, "entry-006"), ("parentId",)),
        (line_of(objs, "entry-015"), ("parentId",)),
        (line_of(objs, "entry-015"), ("branchRootId",)),
        (line_of(objs, "entry-010"), ("summarizedEntryIds", 4)),
    }


# ----------------------------------------------------------------------------- block types


def test_a_tool_use_id_only_in_a_tool_result_block_is_a_link() -> None:
    block = {
        "type": "user_message",
        "content": [{"type": "text", "text": "x", "toolUseId": "t"}, "loose"],
    }
    assert book.links_of(block) == []


def test_only_tool_use_blocks_define_tool_call_ids() -> None:
    objs = objects()
    a_line = line_of(objs, "entry-002")
    # the id moves from the tool_use block to a text block: it defines nothing any more
    objs[a_line]["content"][0]["id"] = "tc_001"
    del objs[a_line]["content"][1]
    a = analyze(render(objs))
    assert dict(book.tool_uses(a)) == {}
    assert {f.code for f in problems(a)} == {"PI420"}


# ----------------------------------------------------------------------------- resolve


def _with_second_use() -> list[dict[str, Any]]:
    """The sample with a second assistant message using tc_001, on a branch of its own
    from entry-001, written before entry-002 (first in the file)."""
    objs = objects()
    alt = json.loads(json.dumps(objs[line_of(objs, "entry-002")]))
    alt["id"] = "entry-alt"
    objs.insert(line_of(objs, "entry-002a"), alt)
    return objs


def test_a_tool_id_resolves_to_the_use_on_its_path_not_the_first_in_the_file() -> None:
    objs = _with_second_use()
    a = analyze(render(objs))
    use = line_of(objs, "entry-002")
    result = line_of(objs, "entry-004")
    [link] = [x for x in book.links_of(objs[result]) if x.path == ("toolCallId",)]
    assert book.resolve(a, result, link) == (use, ("content", 1, "id"))
    refs = [(n, x.path) for n, x in book.referrers(a, use, ("content", 1, "id"))]
    assert refs == [(line_of(objs, "entry-003"), ("toolCallId",)), (result, ("toolCallId",))]
    assert book.referrers(a, line_of(objs, "entry-alt"), ("content", 1, "id")) == []


def test_a_tool_id_off_every_path_resolves_to_the_first_use_in_the_file() -> None:
    objs = _with_second_use()
    n = line_of(objs, "entry-003")
    objs[n]["parentId"] = "entry-001"
    a = analyze(render(objs))
    [link] = [x for x in book.links_of(objs[n]) if x.path == ("toolCallId",)]
    assert book.resolve(a, n, link) == (line_of(objs, "entry-alt"), ("content", 1, "id"))


def test_unknown_ids_resolve_to_nothing() -> None:
    objs = objects()
    n = line_of(objs, "entry-015")
    objs[n]["branchRootId"] = "nowhere"
    r = line_of(objs, "entry-004")
    objs[r]["toolCallId"] = "tc_999"
    a = analyze(render(objs))
    [root] = [x for x in book.links_of(objs[n]) if x.path == ("branchRootId",)]
    [call] = [x for x in book.links_of(objs[r]) if x.path == ("toolCallId",)]
    assert book.resolve(a, n, root) is None
    assert book.resolve(a, r, call) is None


def test_a_tool_result_is_not_related_as_a_tool_call_entry() -> None:
    objs = objects()
    a_line = line_of(objs, "entry-002")
    objs[a_line]["content"] = objs[a_line]["content"][:1]  # drop the tool_use block
    second = json.loads(json.dumps(objs[line_of(objs, "entry-004")]))
    second["id"], second["parentId"] = "entry-004b", "entry-004"
    objs.insert(line_of(objs, "entry-005"), second)
    text = render(objs)
    found = {f.span.line: f for f in problems(analyze(text))}
    call = line_of(objs, "entry-003")
    assert [r.span for r in found[line_of(objs, "entry-004b")].related] == [
        value_span(text, call, '"tc_001"')
    ]


def test_header_notice_explains_and_counts_the_entries_to_convert() -> None:
    [notice] = analyze(SAMPLE).findings
    assert notice.message == (
        'this file uses the "session_header" layout documented in the book, not pi\'s '
        'session format: pi cannot load it (it needs a {"type":"session"} header with an '
        "id); opened with --session, pi starts an empty session and overwrites this file "
        f"(quick fix: convert the {len(LINES) - 1} entries to a pi v3 session)"
    )


def test_a_tool_result_block_after_its_use_in_the_same_message_is_unanswered() -> None:
    objs = objects()
    n = line_of(objs, "entry-002")
    objs[n]["content"].append({"type": "tool_result", "toolUseId": "tc_001", "content": []})
    text = render(objs)
    [f] = [f for f in problems(analyze(text)) if f.code == "PI420"]
    assert f.span == value_span(text, n, '"tc_001"', 1)
    assert "matches no tool_use block of an assistant_message before it on its path" in f.message
    assert f.related == ()


def test_pi420_messages_in_full() -> None:
    objs = objects()
    n = line_of(objs, "entry-004")
    objs[n]["parentId"] = "entry-001"
    objs[line_of(objs, "entry-003")]["toolCallId"] = "tc_001"
    [f] = [f for f in problems(analyze(render(objs))) if f.span.line == n]
    assert f.message == (
        "tool_result toolCallId 'tc_001' matches no tool_use block of an assistant_message "
        "on its path (there is one on another branch); the call is missing from the model's "
        "response, and providers reject a tool result without its call"
    )


def test_dangling_summary_messages_in_full() -> None:
    objs = objects()
    objs[line_of(objs, "entry-010")]["summarizedEntryIds"][3] = "c-gone"
    b = line_of(objs, "entry-015")
    objs[b]["summarizedEntryIds"] = ["b-gone"]
    objs[b]["branchRootId"] = "r-gone"
    messages = sorted(f.message for f in problems(analyze(render(objs))))
    assert messages == [
        "branch_summary branchRootId 'r-gone' names no entry in this file; the summary no "
        "longer says where the abandoned branch started",
        "branch_summary summarizedEntryIds 'b-gone' names no entry in this file; the summary "
        "claims to cover an entry that is not there",
        "compaction summarizedEntryIds 'c-gone' names no entry in this file; the summary "
        "claims to replace an entry that is not there, so where the kept context starts is "
        "uncertain",
    ]
