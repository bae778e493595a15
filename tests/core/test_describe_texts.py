"""The texts `describe` builds: clipping, previews, titles of each kind, facts and totals.

Each expected text is what a reader of the outline, a hover or `pi-lsp tree` sees for that
input; lengths are checked exactly where a bound is part of the promise (a title of at
most 80 characters, an id of at most 80, ...).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.views.describe import (
    clip,
    clip_tail,
    content_preview,
    entry_facts,
    entry_preview,
    entry_title,
    kind_label,
    model_of,
    object_title,
    role_of,
    session_totals,
    shallow,
    system_changes,
    usage_of,
)

LONG = "x-" * 400  # 800 characters, no whitespace and no base64-like run
HEADER = {"type": "session", "version": 3, "id": "h", "timestamp": "2026-01-01T00:00:00Z"}


def _session(*entries: dict[str, Any], header: dict[str, Any] | None = None) -> str:
    """A v3 file: the header, then each entry (ids e0, e1, ... chained unless given)."""
    lines = [json.dumps(header or HEADER)]
    parent = None
    for n, entry in enumerate(entries):
        obj = {"id": f"e{n}", "parentId": parent, **entry}
        parent = obj["id"]
        lines.append(json.dumps(obj))
    return "\n".join(lines) + "\n"


def _msg(role: str, **fields: Any) -> dict[str, Any]:
    return {"type": "message", "message": {"role": role, **fields}}


# --- clip -------------------------------------------------------------------------------


def test_clip_keeps_a_text_of_exactly_the_limit_and_cuts_one_more() -> None:
    assert clip("a" * 10, 10) == "a" * 10
    assert clip("abcdefghijk", 10) == "abcdefghi…"
    assert clip("abcd efghij", 6) == "abcd…"  # the space before the cut is dropped


def test_clip_of_a_long_text_cut_early_is_the_same_cut() -> None:
    # long enough for the early cut (more than twice the limit); one word per character
    text = " ".join("abcdefghij") * 100
    assert clip(text, 20) == "a b c d e f g h i j…"
    assert clip(text, 19) == "a b c d e f g h i…"


def test_clip_hides_a_base64_run_that_the_early_cut_would_split() -> None:
    run = "QUJD" * 40  # 160 base64 characters
    # the early cut (at 1.5 x limit + 16 = 46 characters) falls inside the run
    text = "see " + run + " " + "word " * 40
    assert clip(text, 30) == "see [base64] word word word w…"
    data = "data:image/png;base64," + run
    assert clip("see " + data + " " + "word " * 40, 30) == "see [base64] word word word w…"


def test_clip_hides_a_base64_run_after_a_space_the_early_cut_must_not_skip() -> None:
    # the run the early cut may split is found from the end, character by character
    text = "seen " + "QUJD" * 40 + " " + "word " * 40
    assert clip(text, 30) == "seen [base64] word word word…"


def test_clip_shows_a_text_padded_with_whitespace_whole() -> None:
    assert clip("abcde-fghi" + " " * 100, 10) == "abcde-fghi"
    assert clip("abcde-fghij" + " " * 100, 10) == "abcde-fgh…"


def test_clip_to_one_character_is_the_ellipsis() -> None:
    assert clip("abc", 1) == "…"
    assert clip("abc " * 30, 1) == "…"


def test_clip_hides_base64_with_its_padding_and_data_prefix() -> None:
    run = "QUJD" * 16 + "QQ=="
    assert clip(f"a {run} b") == "a [base64] b"
    assert clip(f"a data:text/plain;base64,{run} b") == "a [base64] b"
    assert clip("a " + "QUJD" * 15 + " b") == "a " + "QUJD" * 15 + " b"  # 60: too short


def test_clip_reads_only_the_start_of_a_long_string() -> None:
    # past 4096 characters only the first 4 x limit (at least 256) are read: what follows a
    # long run of spaces is never reached, and the text is marked as cut
    assert clip("a" + " " * 4094 + "b", 240) == "a b"
    assert clip("a" + " " * 4095 + "b", 240) == "a…"
    assert clip("a" + " " * 900 + "b" + " " * 4000, 240) == "a b…"
    assert clip("a" + " " * 1000 + "b" + " " * 4000, 240) == "a…"
    assert clip("a" + " " * 958 + "b" + " " * 4000, 240) == "a b…"
    assert clip("a" + " " * 959 + "b" + " " * 4000, 240) == "a…"
    assert clip("a" + " " * 254 + "b" + " " * 4000, 10) == "a b…"
    assert clip("a" + " " * 255 + "b" + " " * 4000, 10) == "a…"
    assert clip("a" + " " * 200 + "b" + " " * 4000, 10) == "a b…"
    assert clip("a" + " " * 300 + "b" + " " * 4000, 10) == "a…"


def test_clip_tail_keeps_the_end() -> None:
    path = "/" + "d-" * 50 + "/file.ts"
    assert clip_tail(path, 20) == "…" + path[-19:]
    assert len(clip_tail(path, 20)) == 20
    assert clip_tail("short/path", 20) == "short/path"
    assert clip_tail("a" * 20, 20) == "a" * 20
    assert clip_tail("first  second third", 14) == "…second third"  # no space after …
    # a long text: its end is shown (not the end of its first few hundred characters)
    assert clip_tail("a" + " " * 300 + "b", 40) == "a b"
    assert clip_tail("a" + " " * 4094 + "b", 40) == "a b"
    assert clip_tail("a" + " " * 4095 + "b", 40) == "…b"
    assert clip_tail("a " * 3000 + "end", 10) == "…a a a end"
    deep = "/" + "dir-/" * 1000 + "file.ts"
    assert clip_tail(deep, 40) == "…" + deep[-39:]
    # past 4096 characters only the last 4 x limit (at least 256) are read
    assert clip_tail(" " * 5000 + "a" + " " * 254 + "b", 10) == "…a b"
    assert clip_tail(" " * 5000 + "a" + " " * 255 + "b", 10) == "…b"
    assert clip_tail(" " * 5000 + "a" + " " * 958 + "b", 240) == "…a b"
    assert clip_tail(" " * 5000 + "a" + " " * 959 + "b", 240) == "…b"
    assert clip_tail(" " * 5000 + "a" + " " * 200 + "b", 10) == "…a b"
    assert clip_tail(" " * 5000 + "a" + " " * 300 + "b", 10) == "…b"
    assert clip_tail(" " * 5000 + "a" + " " * 900 + "b", 240) == "…a b"
    assert clip_tail(" " * 5000 + "a" + " " * 1000 + "b", 240) == "…b"


# --- content previews ---------------------------------------------------------------------


def test_content_preview_of_strings_and_non_lists() -> None:
    assert content_preview("plain\ntext") == "plain text"
    assert content_preview(LONG, 30) == LONG[:29] + "…"
    assert content_preview({"type": "text", "text": "hi"}) == ""
    assert content_preview(None) == ""


def test_content_preview_joins_texts_and_skips_what_is_no_text_block() -> None:
    blocks = [
        "stray",
        {"type": "text", "text": 5},
        {"type": "text", "text": ""},
        {"type": "text", "text": "one"},
        {"text": "untyped"},
        {"type": "text", "text": "two"},
    ]
    assert content_preview(blocks) == "one two"
    assert content_preview([{"type": "text", "text": LONG}], 30) == LONG[:29] + "…"
    # a limit above the default preview's 240 is the limit of each block as well
    assert content_preview([{"type": "text", "text": LONG}], 500) == LONG[:499] + "…"
    thought = content_preview([{"type": "thinking", "thinking": LONG}], 500)
    assert thought == "(thinking) " + LONG[:488] + "…"


def test_content_preview_reads_at_most_64_blocks() -> None:
    image = {"type": "image", "data": "AAAA"}
    assert content_preview([image] * 64) == "[64 images]"
    assert content_preview([image] * 70) == "[64 images]"
    assert content_preview([image]) == "[image]"
    assert content_preview([{"type": "text", "text": "t"}, image]) == "t [image]"


def test_content_preview_of_tool_calls() -> None:
    def call(n: int) -> dict[str, Any]:
        return {"type": "toolCall", "name": f"t{n}", "arguments": {}}

    assert content_preview([call(n) for n in range(4)]) == "→ t0(), t1(), t2(), t3()"
    assert content_preview([call(n) for n in range(5)]) == "→ t0(), t1(), t2(), t3() …"
    use = {"type": "tool_use", "name": "grep", "input": {"pattern": "foo"}}
    assert content_preview([{"type": "text", "text": "go"}, use]) == "go → grep(foo)"


def test_content_preview_shows_thinking_only_when_nothing_else() -> None:
    first = {"type": "thinking", "thinking": "first"}
    second = {"type": "thinking", "thinking": "second"}
    assert content_preview([first, second]) == "(thinking) first"
    assert content_preview([{"type": "thinking", "text": "by text"}]) == "(thinking) by text"
    assert content_preview([{"type": "thinking", "thinking": 1, "text": "t"}]) == ""
    assert content_preview([first, {"type": "text", "text": "said"}]) == "said"
    assert content_preview([first, {"type": "image"}]) == "[image]"
    thought = content_preview([{"type": "thinking", "thinking": LONG}], 30)
    assert thought == "(thinking) " + LONG[:18] + "…"


def test_tool_call_previews_show_the_first_telling_argument() -> None:
    def preview(args: Any, name: Any = "run") -> str:
        return content_preview([{"type": "toolCall", "name": name, "arguments": args}])

    assert preview({"query": "q", "command": "ls -la", "path": 3}) == "→ run(ls -la)"
    assert preview({"query": "q", "url": "u", "pattern": "p"}) == "→ run(p)"
    assert preview({"query": "q", "url": "u"}) == "→ run(u)"
    assert preview({"query": "q"}) == "→ run(q)"
    assert preview({"other": "x"}) == "→ run()"
    assert preview(["path"]) == "→ run()"
    assert preview({}, name=7) == "→ tool()"
    assert preview({}, name=LONG) == "→ " + LONG[:39] + "…()"
    deep = "/" + "d-" * 40 + "/end.py"
    assert preview({"path": deep}) == "→ run(…" + deep[-39:] + ")"
    assert preview({"file_path": deep}) == "→ run(…" + deep[-39:] + ")"
    assert preview({"command": LONG}) == "→ run(" + LONG[:39] + "…)"
    block = {"type": "toolCall", "name": "n", "arguments": {"path": "a"}, "input": {"path": "b"}}
    assert content_preview([block]) == "→ n(a)"
    assert content_preview([{"type": "toolCall", "name": "n", "input": {"path": "b"}}]) == "→ n(b)"


# --- titles -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "title"),
    [
        ({"role": "toolResult", "toolName": "bash", "content": "ok"}, "toolResult bash: ok"),
        ({"role": "toolResult", "toolName": 1, "content": "ok"}, "toolResult: ok"),
        ({"role": "toolResult", "toolName": "t", "isError": True}, "toolResult t (error)"),
        ({"role": "toolResult", "toolName": "t", "isError": "yes"}, "toolResult t"),
        ({"role": "bashExecution", "command": "ls\n-l"}, "bash: $ ls -l"),
        ({"role": "bashExecution", "command": 5, "output": "o"}, "bash"),
        ({"role": "custom", "customType": "note", "content": "c"}, "custom note: c"),
        ({"role": "hookMessage", "customType": "h", "content": "c"}, "hookMessage h: c"),
        ({"role": "custom", "content": "c"}, "custom: c"),
        ({"role": "branchSummary", "summary": "went left"}, "branchSummary: went left"),
        ({"role": "compactionSummary", "summary": "short"}, "compactionSummary: short"),
        ({"role": "compactionSummary", "summary": 3, "content": "c"}, "compactionSummary"),
        ({"role": "system", "content": "be brief"}, "system: be brief"),
        ({"role": "system", "content": "s", "toolsAdded": [{"name": "x"}]}, "system: s; tools +x"),
        ({"role": "system", "toolsRemoved": [{"name": "x"}]}, "system: tools -x"),
        ({"role": "system"}, "system"),
        ({"role": "user", "content": "hi"}, "user: hi"),
        ({"role": 3, "content": "hi"}, "message: hi"),
        ({"content": "hi"}, "message: hi"),
    ],
)
def test_message_titles(message: dict[str, Any], title: str) -> None:
    assert object_title({"type": "message", "message": message}) == title


def test_message_titles_are_bounded() -> None:
    long_name = {"role": "toolResult", "toolName": LONG, "content": "c"}
    assert object_title({"type": "message", "message": long_name}) == (
        "toolResult " + LONG[:39] + "…: c"
    )
    kind = {"role": "custom", "customType": LONG}
    assert object_title({"type": "message", "message": kind}) == "custom " + LONG[:39] + "…"
    for message in (
        {"role": "bashExecution", "command": LONG},
        {"role": "branchSummary", "summary": LONG},
        {"role": "user", "content": LONG},
        {"role": "toolResult", "content": LONG},
        {"role": "custom", "customType": "k", "content": LONG},
        {"role": "system", "content": LONG},
    ):
        title = object_title({"type": "message", "message": message}, 50)
        assert len(title) == 50 and title.endswith("…"), message
        assert len(object_title({"type": "message", "message": message}, 500)) > 400


def test_system_changes() -> None:
    sections = {f"s{n}": ("text" if n % 2 else None) for n in range(20)}
    assert system_changes({"sections": sections}) == [
        "sections s1, s3, s5, s7, s9, s11 …",
        "removes s0, s2, s4, s6, s8, s10 …",
    ]
    seven = {f"k{n}": "v" for n in range(7)} | {f"r{n}": None for n in range(7)}
    assert system_changes({"sections": seven}) == [
        "sections k0, k1, k2, k3, k4, k5 …",
        "removes r0, r1, r2, r3, r4, r5 …",
    ]
    six = {f"k{n}": "v" for n in range(6)}
    assert system_changes({"sections": six}) == ["sections k0, k1, k2, k3, k4, k5"]
    gone = {f"k{n}": None for n in range(6)}
    assert system_changes({"sections": gone}) == ["removes k0, k1, k2, k3, k4, k5"]
    assert system_changes({"sections": {LONG: "v"}}) == ["sections " + LONG[:39] + "…"]
    assert system_changes({"sections": {LONG: None}}) == ["removes " + LONG[:39] + "…"]
    # only the first 64 sections are read
    many = {f"k{n}": None for n in range(64)} | {"late": "v"}
    assert system_changes({"sections": many}) == ["removes k0, k1, k2, k3, k4, k5 …"]
    assert system_changes({"sections": ["a"]}) == []
    assert system_changes({}) == []


def test_system_changes_name_tools_added_and_removed() -> None:
    tools = [{"name": f"t{n}"} for n in range(8)]
    assert system_changes({"toolsAdded": tools}) == ["tools +t0 +t1 +t2 +t3 +t4 +t5 +… 2 more"]
    six = [{"name": f"t{n}"} for n in range(6)]
    assert system_changes({"toolsRemoved": six}) == ["tools -t0 -t1 -t2 -t3 -t4 -t5"]
    odd = ["t", {"name": 1}, {"name": "ok"}, {"title": "x"}, {"name": LONG}]
    assert system_changes({"toolsAdded": odd, "toolsRemoved": "x"}) == [
        "tools +ok +" + LONG[:39] + "…"
    ]
    # only the first 64 are read
    late = [{"n": 1}] * 64 + [{"name": "late"}]
    assert system_changes({"toolsAdded": late}) == []
    assert system_changes({"toolsAdded": [{"n": 1}] * 63 + [{"name": "in"}]}) == ["tools +in"]


@pytest.mark.parametrize(
    ("obj", "title"),
    [
        ({"type": 3}, "(not an entry)"),
        ({}, "(not an entry)"),
        ({"type": "session", "id": "abc", "cwd": "/w"}, "session v1: abc"),
        ({"type": "session", "version": 2, "cwd": "/w"}, "session v2: /w"),
        ({"type": "session", "version": "3", "id": 5}, 'session v"3"'),
        ({"type": "session_header", "version": 1, "id": "b"}, "session v1: b"),
        ({"type": "model_change", "provider": "p", "modelId": "m"}, "model: p/m"),
        ({"type": "model_change", "modelId": "m"}, "model: m"),
        ({"type": "model_change", "provider": "p"}, "model: p"),
        ({"type": "model_change"}, "model"),
        ({"type": "thinking_level_change", "thinkingLevel": "high"}, "thinking level: high"),
        ({"type": "thinking_level_change"}, "thinking level"),
        ({"type": "compaction", "summary": "sum"}, "compaction: sum"),
        ({"type": "branch_summary"}, "branch_summary"),
        # a summary entry is titled by its summary, never by another field
        ({"type": "compaction", "summary": "s", "content": "c"}, "compaction: s"),
        ({"type": "branch_summary", "summary": "s", "content": "c"}, "branch_summary: s"),
        ({"type": "compaction", "summary": 1, "output": "o"}, "compaction"),
        ({"type": "custom", "customType": "ext"}, "custom: ext"),
        ({"type": "custom"}, "custom"),
        ({"type": "custom_message", "customType": "k", "content": "c"}, "custom_message k: c"),
        ({"type": "custom_message", "content": "c"}, "custom_message: c"),
        ({"type": "custom_message"}, "custom_message"),
        ({"type": "label", "label": "go"}, 'label: "go"'),
        ({"type": "label", "label": ""}, "label: (cleared)"),
        ({"type": "label"}, "label: (cleared)"),
        ({"type": "session_info", "name": "N"}, 'session name: "N"'),
        ({"type": "session_info"}, "session name: (cleared)"),
        (
            {"type": "usage", "kind": "k", "model": "m", "usage": {"cost": {"total": 0.5}}},
            "usage k: m · $0.5000",
        ),
        ({"type": "usage", "usage": {"input": 1}}, "usage: $0.0000"),
        ({"type": "usage", "model": "m"}, "usage: m"),
        ({"type": "usage"}, "usage"),
        ({"type": "context_edit", "targetId": "x"}, "context edit: omit"),
        ({"type": "context_edit", "replacement": None}, "context edit: omit"),
        (
            {"type": "context_edit", "replacement": {"content": "new"}},
            "context edit: replace: new",
        ),
        ({"type": "context_edit", "replacement": "new"}, "context edit: replace:"),
        ({"type": "message", "message": "text"}, "message"),
        ({"type": "other", "content": "c", "summary": "s"}, "other: c"),
        ({"type": "other", "content": "", "summary": "s"}, "other: s"),
        ({"type": "other", "summary": [], "output": "o"}, "other: o"),
        ({"type": "other", "text": "t", "name": "n"}, "other: t"),
        ({"type": "other", "name": "n", "toolName": "tn"}, "other: n"),
        ({"type": "other", "toolName": "tn"}, "other: tn"),
        ({"type": "other", "content": [{"type": "text", "text": "b"}]}, "other: b"),
        ({"type": "other", "data": "d"}, "other"),
    ],
)
def test_object_titles(obj: dict[str, Any], title: str) -> None:
    assert object_title(obj) == title


def test_object_titles_are_bounded() -> None:
    assert object_title({"type": "session", "version": 3, "id": LONG}) == (
        "session v3: " + LONG[:39] + "…"
    )
    assert object_title({"type": "session", "version": 3, "cwd": LONG}) == (
        "session v3: " + LONG[:59] + "…"
    )
    # a number is shown whole, whatever its length; anything else as (clipped) JSON
    assert object_title({"type": "session", "version": 10**25}) == "session v" + "1" + "0" * 25
    assert object_title({"type": "session", "version": [LONG]}) == (
        "session v" + json.dumps([LONG])[:19] + "…"
    )
    assert object_title({"type": "model_change", "provider": LONG, "modelId": "m"}) == (
        "model: " + LONG[:59] + "…/m"
    )
    assert object_title({"type": "model_change", "modelId": LONG}, 500) == (
        "model: " + LONG[:59] + "…"
    )
    assert object_title({"type": "thinking_level_change", "thinkingLevel": LONG}, 500) == (
        "thinking level: " + LONG[:59] + "…"
    )
    assert object_title({"type": "custom", "customType": LONG}, 500) == (
        "custom: " + LONG[:59] + "…"
    )
    assert object_title({"type": "custom_message", "customType": LONG}, 500) == (
        "custom_message " + LONG[:39] + "…"
    )
    assert object_title({"type": "label", "label": LONG}, 500) == ('label: "' + LONG[:59] + '…"')
    assert object_title({"type": "session_info", "name": LONG}, 500) == (
        'session name: "' + LONG[:59] + '…"'
    )
    assert object_title({"type": "usage", "kind": LONG, "model": LONG}, 500) == (
        "usage " + LONG[:39] + "…: " + LONG[:59] + "…"
    )
    assert object_title({"type": "compaction", "summary": LONG}, 500) == (
        "compaction: " + LONG[: 499 - 12] + "…"
    )
    assert object_title({"type": "compaction", "summary": LONG}, 100) == (
        "compaction: " + LONG[:87] + "…"
    )
    assert object_title({"type": "other", "text": LONG}, 500) == "other: " + LONG[:492] + "…"
    assert object_title({"type": "other", "content": [LONG]}, 500) == "other"
    blocks = {"type": "other", "content": [{"type": "text", "text": LONG}]}
    assert object_title(blocks, 500) == "other: " + LONG[:492] + "…"
    assert object_title({"type": LONG}, 30) == LONG[:29] + "…"
    edit = {"type": "context_edit", "replacement": {"content": LONG}}
    assert object_title(edit, 500) == "context edit: replace: " + LONG[:476] + "…"
    message = {"type": "custom_message", "content": LONG}
    assert object_title(message, 500) == "custom_message: " + LONG[:483] + "…"
    for obj in (edit, message, {"type": "compaction", "summary": LONG}):
        assert len(object_title(obj)) == 80


def test_entry_titles_point_labels_and_context_edits_at_their_target() -> None:
    a = analyze(
        _session(
            _msg("user", content="hi"),
            {"type": "label", "targetId": "e0", "label": "x"},
            {"type": "context_edit", "targetId": "e0"},
            {"type": "label", "targetId": "nowhere", "label": "y"},
            {"type": "compaction", "targetId": "e0", "summary": "s", "firstKeptEntryId": "e0"},
            {"type": "label", "targetId": "e0", "label": LONG},
        )
    )
    assert entry_title(a, 2) == 'label: "x" → line 2'
    assert entry_title(a, 3) == "context edit: omit → line 2"
    assert entry_title(a, 4) == 'label: "y"'
    assert entry_title(a, 5) == "compaction: s"
    assert entry_title(a, 6, 70) == 'label: "' + LONG[:59] + '…"…'
    assert entry_title(a, 6, 60) == 'label: "' + LONG[:51] + "…"
    assert entry_title(a, 6, 200) == 'label: "' + LONG[:59] + '…" → line 2'
    assert entry_title(a, -1) == "" and entry_title(a, len(a.infos)) == ""
    assert entry_title(a, len(a.infos) - 1) == "(blank line)"
    assert entry_title(a, 1, 5) == "user…"


# --- facts --------------------------------------------------------------------------------


def test_usage_model_role_and_kind() -> None:
    usage = {"input": 3, "output": 4, "cost": {"total": 0.25}}
    found = usage_of(_msg("assistant", usage=usage))
    assert found is not None and (found.total, found.cost) == (7, 0.25)
    assert usage_of(_msg("user", usage=usage)) is None
    assert usage_of({"type": "usage", "message": {"role": "assistant", "usage": usage}}) is None
    assert usage_of({"type": "message", "message": "assistant"}) is None

    assert model_of(_msg("assistant", provider="p", model="m")) == "p/m"
    assert model_of(_msg("assistant", model="m")) == "m"
    assert model_of(_msg("assistant", provider="p", model=3)) is None
    assert model_of(_msg("user", provider="p", model="m")) is None
    assert model_of({"type": "model_change", "provider": "p", "modelId": "m"}) == "p/m"
    assert model_of({"type": "session", "provider": "p", "model": "v1"}) == "p/v1"
    assert model_of({"type": "x", "modelId": "id", "model": "other"}) == "id"
    assert model_of({"type": "message", "message": 1, "model": "m"}) == "m"
    assert model_of({"type": "x", "provider": 1, "model": "m"}) == "m"
    assert model_of({"type": "x", "provider": "p"}) is None
    assert model_of({"type": "x", "model": LONG}) == LONG[:79] + "…"

    assert role_of(_msg("user")) == "user"
    assert role_of(_msg(LONG)) == LONG[:39] + "…"
    assert role_of({"type": "message", "message": {"role": 1}}) is None
    assert role_of({"type": "message", "message": []}) is None
    assert role_of({"type": "x"}) is None

    assert kind_label(_msg("user")) == "user"
    assert kind_label({"type": "label", "message": {"role": "user"}}) == "label"
    assert kind_label({"type": "message", "message": {}}) == "message"
    assert kind_label({"type": LONG}) == LONG[:39] + "…"
    assert kind_label({"type": 1}) == "line"
    assert kind_label({}) == "line"


def test_entry_previews() -> None:
    bash = _msg("bashExecution", command="ls", output="a\nb")
    assert entry_preview(bash) == "ls ⇒ a b"
    assert entry_preview(_msg("bashExecution", command="ls")) == "ls"
    assert entry_preview(_msg("bashExecution", command=1, output="o")) == "o"
    long_bash = _msg("bashExecution", command=LONG, output=LONG)
    assert entry_preview(long_bash, 50) == LONG[:49] + "…"
    assert entry_preview(long_bash, 2000) == LONG + " ⇒ " + LONG
    assert entry_preview(_msg("user", content="c", summary="s")) == "c"
    assert entry_preview(_msg("branchSummary", summary="s")) == "s"
    assert entry_preview(_msg("user")) == ""
    assert entry_preview(_msg("user", content=LONG), 30) == LONG[:29] + "…"
    assert entry_preview({"type": "x", "summary": "s", "content": "c"}) == "s"
    assert entry_preview({"type": "x", "summary": 1, "content": "c"}) == "c"
    assert entry_preview({"type": "x", "name": "n", "label": "l"}) == "n"
    assert entry_preview({"type": "x", "label": "l"}) == "l"
    assert entry_preview({"type": "x", "data": [{"type": "text", "text": "d"}]}) == "d"
    assert entry_preview({"type": "x", "data": {"a": 1, "b": "s"}}) == '{"a":1,"b":"s"}'
    assert entry_preview({"type": "x", "summary": {"a": 1}, "data": "d"}) == '{"a":1}'
    assert entry_preview({"type": "x", "data": {"k": LONG}}, 30) == '{"k":"' + LONG[:23] + "…"
    assert entry_preview({"type": "message", "message": "m", "label": "l"}) == "l"
    assert entry_preview({"type": "x", "data": 1}) == ""
    assert entry_preview({"type": "x", "summary": LONG}, 500) == LONG[:499] + "…"


def test_shallow_copies_cut_below_the_first_level() -> None:
    value = {"s": LONG, "d": {"x": 1}, "l": [1], "n": None, "i": 2}
    assert shallow(value) == {"s": LONG[:39] + "…", "d": "{…}", "l": "[…]", "n": None, "i": 2}
    eight = {f"k{n}": n for n in range(8)}
    assert shallow(eight) == eight
    assert shallow(eight | {"k8": 8}) == eight | {"…": "…"}


def test_facts_are_bounded_and_read_the_tree() -> None:
    a = analyze(
        _session(
            _msg("assistant", content="c", stopReason=LONG, model="m", provider="p"),
            {"type": LONG, "timestamp": LONG, "parentId": LONG},
            header={**HEADER, "id": "h"},
        )
    )
    facts = entry_facts(a, 2)
    assert facts is not None
    assert facts.type == LONG[:39] + "…"
    assert facts.parent_id == LONG[:79] + "…"
    assert facts.timestamp == LONG[:39] + "…"
    assert facts.stop_reason is None and facts.model is None and facts.usage is None
    facts = entry_facts(a, 1)
    assert facts is not None
    assert facts.stop_reason == LONG[:39] + "…"
    assert facts.model == "p/m" and facts.preview == "c" and facts.title == "assistant: c"
    assert facts.parent_id is None and facts.parent is None and facts.depth == 0
    assert facts.children == () and facts.label is None and facts.label_lines == ()
    assert entry_facts(a, 3) is None and entry_facts(a, -1) is None
    assert entry_facts(a, len(a.infos)) is None

    no_id = analyze(json.dumps(HEADER) + "\n" + json.dumps({"type": "custom"}) + "\n")
    facts = entry_facts(no_id, 1)
    assert facts is not None and facts.id is None

    # a file without a header: its first line is an entry, with facts like any other
    headless = analyze(json.dumps({"type": "custom", "id": "a", "parentId": None}) + "\n")
    facts = entry_facts(headless, 0)
    assert facts is not None and (facts.id, facts.type, facts.is_leaf) == ("a", "custom", True)

    long_id = analyze(_session({"type": "custom", "id": LONG}))
    facts = entry_facts(long_id, 1)
    assert facts is not None and facts.id == LONG[:79] + "…"
    assert facts.timestamp is None and facts.stop_reason is None
    assert facts.is_leaf and facts.on_active_path and not facts.in_cycle


def test_facts_of_a_cycle_and_of_labels() -> None:
    text = _session(
        _msg("user", content="q"),
        {"type": "label", "targetId": "e0", "label": "one"},
        {"type": "label", "targetId": "e0", "label": "two"},
    )
    a = analyze(text)
    facts = entry_facts(a, 1)
    assert facts is not None
    assert facts.label == "two" and facts.label_lines == (2, 3)
    assert facts.children == (2,) and facts.depth == 0
    lines = [
        json.dumps(HEADER),
        json.dumps({"type": "custom", "id": "a", "parentId": "b"}),
        json.dumps({"type": "custom", "id": "b", "parentId": "a"}),
    ]
    cyc = analyze("\n".join(lines) + "\n")
    facts = entry_facts(cyc, 1)
    assert facts is not None and facts.in_cycle and not facts.is_leaf


# --- totals -------------------------------------------------------------------------------


def test_session_totals_count_roles_models_and_time() -> None:
    header = {**HEADER, "timestamp": "2026-01-01T00:00:05Z"}
    a = analyze(
        _session(
            _msg("user", content="a"),
            {**_msg("assistant", model="m1", provider="p"), "timestamp": "2026-01-01T00:00:01Z"},
            {"type": "model_change", "provider": "p", "modelId": "m2"},
            {**_msg("assistant", model="m1", provider="p"), "timestamp": "2026-01-01T00:01:00Z"},
            _msg("user", content="b"),
            {"type": "compaction", "summary": "s", "firstKeptEntryId": "e0"},
            {"type": "compaction", "summary": "s", "firstKeptEntryId": "e0"},
            {"type": "session_info", "name": "first"},
            {"type": "session_info", "name": "  "},
            {"type": "message", "message": {"content": "no role"}},
            header=header,
        )
    )
    t = session_totals(a)
    assert t.roles == {"user": 2, "assistant": 2}
    assert t.models == ("p/m1", "p/m2")
    assert t.compactions == 2
    assert t.name is None  # the last session_info cleared it
    assert (t.started, t.ended, t.duration) == (
        "2026-01-01T00:00:01Z",
        "2026-01-01T00:01:00Z",
        59.0,
    )
    assert t.as_json()["started"] == "2026-01-01T00:00:01Z"
    assert t.as_json()["durationSeconds"] == 59.0


def test_session_totals_name_and_header_fields_are_bounded() -> None:
    header = {**HEADER, "id": LONG, "cwd": LONG, "parentSession": LONG}
    a = analyze(_session({"type": "session_info", "name": LONG}, header=header))
    t = session_totals(a)
    assert t.id == LONG[:79] + "…"
    assert t.cwd == LONG[:199] + "…"
    assert t.parent_session == LONG[:299] + "…"
    assert t.name == LONG[:119] + "…"
    data = t.as_json()
    assert (data["id"], data["name"], data["cwd"]) == (t.id, t.name, t.cwd)
    assert (data["format"], data["version"], data["entries"]) == ("pi", 3, 1)
    assert (data["messages"], data["leaves"], data["roots"], data["compactions"]) == ({}, 1, 1, 0)
    assert (data["toolCalls"], data["activePathLength"], data["models"]) == (0, 1, [])
    assert data["ended"] == "2026-01-01T00:00:00Z"


def test_session_totals_without_times_or_header_strings() -> None:
    header = {"type": "session", "version": 3, "id": 1, "cwd": 2, "parentSession": 3}
    t = session_totals(analyze(_session({"type": "custom", "timestamp": "never"}, header=header)))
    assert (t.id, t.cwd, t.parent_session, t.name) == (None, None, None, None)
    assert (t.started, t.ended, t.duration) == (None, None, None)


def test_session_totals_name_a_v1_header_model_first() -> None:
    header = {"type": "session", "id": "h", "provider": "p", "modelId": "first"}
    text = "\n".join(
        [
            json.dumps(header),
            json.dumps({"type": "message", "message": {"role": "assistant", "model": "later"}}),
        ]
    )
    t = session_totals(analyze(text + "\n"))
    assert t.models == ("p/first", "later")
    assert t.version == 1


def test_session_totals_cost_is_rounded() -> None:
    usage = {"input": 1, "cost": {"total": 0.1234567}}
    t = session_totals(analyze(_session(_msg("assistant", usage=usage, model="m"))))
    assert t.as_json()["cost"] == 0.123457
    assert t.usage.cost == 0.1234567
