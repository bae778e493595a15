"""pi 1.6's session projection: path, compaction, checkpoints, context edits, settings, text."""

from __future__ import annotations

import time

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.pi.context import (
    ContextMessage,
    SessionContext,
    build_context,
    entries_of,
    entry_index,
    extend_context,
    llm_text,
    session_context,
)
from pi_lsp.core.pi.loading import UNDEFINED
from pi_lsp.core.views.context_view import context_json, message_title

from .pi_sessions import TS, assistant, doc, entry, header, hook, js, result, user

A, B, C, D, E, F, G = (c * 8 for c in "abcdefg")


def roles(ctx: SessionContext) -> list[tuple[object, int]]:
    return [(m.role, m.line) for m in ctx.messages]


def test_linear_session_and_message_kinds() -> None:
    text = doc(
        header(),
        entry("model_change", A, None, provider="openai", modelId="gpt-5"),
        entry("thinking_level_change", B, A, thinkingLevel="high"),
        user(C, B),
        entry("custom", D, C, customType="ext", data={}),
        entry("custom_message", E, D, customType="ext", content="ctx", display=False),
        entry("label", F, E, targetId=C, label="x"),
        entry("branch_summary", G, F, fromId=C, summary="left"),
        entry("branch_summary", "h" * 8, G, fromId=C, summary=""),  # empty: no message
        entry("session_info", "i" * 8, "h" * 8, name="n"),
    )
    ctx = session_context(analyze(text))
    assert roles(ctx) == [("user", 3), ("custom", 5), ("branchSummary", 7)]
    assert ctx.thinking_level == "high"
    assert ctx.model == {"provider": "openai", "modelId": "gpt-5"}
    assert ctx.leaf == 9 and ctx.path == list(range(1, 10))
    custom = ctx.messages[1].message
    assert custom["customType"] == "ext" and custom["content"] == "ctx"
    assert custom["timestamp"] == 1767323045678  # new Date(timestamp).getTime()
    assert ctx.messages[2].message == {
        "role": "branchSummary",
        "summary": "left",
        "fromId": C,
        "timestamp": 1767323045678,
    }


def test_assistant_sets_the_model_and_the_leaf_path_wins() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A, model="m1"),
        entry("model_change", C, B, provider="p", modelId="m2"),
        user(D, B, "other branch"),  # a sibling of the model change; the leaf
    )
    ctx = session_context(analyze(text))
    assert roles(ctx) == [("user", 1), ("assistant", 2), ("user", 4)]
    assert ctx.model == {"provider": "anthropic", "modelId": "m1"}
    assert ctx.thinking_level == "off"


def test_leaf_choice() -> None:
    text = doc(header(), user(A, None), user(B, A), user(C, A))
    a = analyze(text)
    assert roles(session_context(a, B)) == [("user", 1), ("user", 2)]
    assert roles(session_context(a, "nope")) == [("user", 1), ("user", 3)]  # falls back
    assert roles(session_context(a, None)) == []  # pi's explicit null leaf
    assert roles(session_context(a, leaf_line=2)) == [("user", 1), ("user", 2)]
    # a line that holds no entry (the header, past the end) falls back to the last entry
    for line in (0, 9):
        assert roles(session_context(a, leaf_line=line)) == [("user", 1), ("user", 3)], line
    # a falsy leaf id is no leaf id (pi: `if (leafId)`), even where an entry has that id
    b = analyze(doc(header(), entry("message", "", None, message={"role": "user", "content": "x"}),
                    user(B, None)))
    assert roles(session_context(b, "")) == [("user", 2)]


def test_compaction_keeps_from_first_kept_entry() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A),
        user(C, B),
        assistant(D, C),
        entry("compaction", E, D, summary="sum", firstKeptEntryId=C, tokensBefore=7),
        user(F, E),
    )
    ctx = session_context(analyze(text))
    assert roles(ctx) == [
        ("compactionSummary", 5),
        ("user", 3),
        ("assistant", 4),
        ("user", 6),
    ]
    assert ctx.messages[0].message["tokensBefore"] == 7


def test_last_compaction_wins_and_off_path_target_keeps_nothing() -> None:
    text = doc(
        header(),
        user(A, None),
        user(B, A, "side"),
        user(C, A),
        entry("compaction", D, C, summary="one", firstKeptEntryId=A, tokensBefore=1),
        user(E, D),
        entry("compaction", F, E, summary="two", firstKeptEntryId=B, tokensBefore=2),
        user(G, F),
    )
    ctx = session_context(analyze(text))
    assert roles(ctx) == [("compactionSummary", 6), ("user", 7)]
    assert ctx.messages[0].message["summary"] == "two"


def test_retained_tail_is_ignored_as_pi_ignores_it() -> None:
    tail = [{"role": "user", "content": "kept"}, {"role": "assistant", "content": []}]
    text = doc(
        header(),
        user(A, None),
        user(B, A),
        entry(
            "compaction", C, B, summary="s", tokensBefore=3, retainedTail=tail, firstKeptEntryId=B
        ),
        user(D, C),
    )
    ctx = session_context(analyze(text))
    assert roles(ctx) == [("compactionSummary", 3), ("user", 2), ("user", 4)]


def system(ident: str, parent: str | None, **fields: object) -> str:
    message = {"role": "system", "content": "", **fields, "timestamp": 1}
    return entry("message", ident, parent, message=message)


def test_compaction_checkpoint_opens_the_context_and_kept_system_messages_drop() -> None:
    checkpoint = {"role": "system", "content": "you are pi", "toolsAdded": [], "timestamp": 5}
    text = doc(
        header(),
        system(A, None, sections={"preamble": "p"}),
        user(B, A),
        system(C, B, sections={"cwd": None}),
        assistant(D, C),
        entry(
            "compaction", E, D, summary="sum", firstKeptEntryId=A, tokensBefore=9,
            systemMessage=checkpoint,
        ),
        user(F, E),
    )
    ctx = session_context(analyze(text))
    assert roles(ctx) == [
        ("system", 5),
        ("compactionSummary", 5),
        ("user", 2),
        ("assistant", 4),
        ("user", 6),
    ]
    assert ctx.messages[0].message == checkpoint
    assert ctx.entries == [5, 2, 4, 6]


def test_retain_none_compaction_keeps_nothing_before_it() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A),
        entry("compaction", C, B, summary="s", firstKeptEntryId=C, tokensBefore=1),
        user(D, C),
    )
    assert roles(session_context(analyze(text))) == [("compactionSummary", 3), ("user", 4)]


OLDER_COMPACTION_KEPT = (
    header(),
    user(A, None),
    entry("compaction", B, A, summary="old", firstKeptEntryId=A, tokensBefore=1),
    user(C, B),
    entry("compaction", D, C, summary="new", firstKeptEntryId=B, tokensBefore=2),
    user(E, D),
)
"""A newer compaction that keeps an older one (line 2) in its kept range."""


def test_older_compaction_inside_the_kept_range_adds_nothing() -> None:
    ctx = session_context(analyze(doc(*OLDER_COMPACTION_KEPT)))
    assert roles(ctx) == [("compactionSummary", 4), ("user", 3), ("user", 5)]
    assert ctx.messages[0].message["summary"] == "new"


def edit(ident: str, parent: str, target: str, replacement: object) -> str:
    return entry("context_edit", ident, parent, targetId=target, replacement=replacement)


def test_context_edits_omit_or_replace_and_the_latest_wins() -> None:
    text = doc(
        header(),
        user(A, None, "original"),
        assistant(B, A, "answer"),
        edit(C, B, A, {"content": "first edit"}),
        edit(D, C, A, {"content": "second edit"}),
        edit(E, D, B, {"content": "string for an assistant"}),
        user(F, E, "gone"),
        assistant(G, F),
        edit("h" * 8, G, F, None),
    )
    ctx = session_context(analyze(text))
    assert roles(ctx) == [("user", 1), ("assistant", 2), ("assistant", 7)]
    assert ctx.messages[0].message["content"] == "second edit"
    assert ctx.messages[0].edited == 4
    # a string replacing an assistant's content becomes one text block
    assert ctx.messages[1].message["content"] == [
        {"type": "text", "text": "string for an assistant"}
    ]
    assert ctx.edits == {1: 4, 2: 5, 6: 8}
    # the raw entry is untouched
    assert analyze(text).entry(1)["message"]["content"] == "original"


def test_context_edit_is_branch_relative() -> None:
    text = doc(
        header(),
        user(A, None, "original"),
        edit(B, A, A, None),
        user(C, A, "other branch"),
    )
    a = analyze(text)
    assert roles(session_context(a)) == [("user", 1), ("user", 3)]
    assert roles(session_context(a, B)) == []


def test_edit_summarised_away_does_not_apply() -> None:
    text = doc(
        header(),
        user(A, None, "original"),
        edit(B, A, A, {"content": "edited"}),
        user(C, B),
        entry("compaction", D, C, summary="s", firstKeptEntryId=A, tokensBefore=1),
    )
    # the edit sits inside the kept range: it applies
    ctx = session_context(analyze(text))
    assert ctx.messages[1].message["content"] == "edited"
    text2 = text.replace(f'"firstKeptEntryId":"{A}"', f'"firstKeptEntryId":"{C}"')
    ctx2 = session_context(analyze(text2))
    assert roles(ctx2) == [("compactionSummary", 4), ("user", 3)]


def test_null_content_is_normalised_and_custom_message_content_defaults() -> None:
    text = doc(
        header(),
        entry("message", A, None, message={"role": "user", "content": None, "timestamp": 1}),
        entry("custom_message", B, A, customType="x", display=True),
    )
    ctx = session_context(analyze(text))
    assert ctx.messages[0].message["content"] == []
    assert ctx.messages[1].message["content"] == []


def test_llm_text_wraps_as_convert_to_llm() -> None:
    text = doc(
        header(),
        user(A, None, "hello"),
        entry("branch_summary", B, A, fromId=A, summary="left"),
        entry("custom_message", C, B, customType="x", content=[{"type": "text", "text": "c1"},
              {"type": "image", "data": "AAAA", "mimeType": "image/png"},
              {"type": "text", "text": "c2"}], display=True),
        entry("message", D, C, message={
            "role": "bashExecution", "command": "ls", "output": "a", "exitCode": 2,
            "cancelled": False, "truncated": False, "timestamp": 1}),
        entry("message", E, D, message={
            "role": "bashExecution", "command": "secret", "output": "", "exitCode": 0,
            "cancelled": False, "truncated": False, "excludeFromContext": True, "timestamp": 1}),
        entry("compaction", F, E, summary="sum", firstKeptEntryId=A, tokensBefore=1),
    )
    out = context_json(session_context(analyze(text)))
    texts = [(m["role"], m["text"]) for m in out["messages"]]
    assert texts[0] == (
        "compactionSummary",
        "The conversation history before this point was compacted into the following "
        "summary:\n\n<summary>\nsum\n</summary>",
    )
    assert texts[1] == ("user", "hello")
    assert texts[2] == (
        "branchSummary",
        "The following is a summary of a branch that this conversation came back "
        "from:\n\n<summary>\nleft</summary>",
    )
    assert texts[3] == ("custom", "c1\nc2")
    assert texts[4] == ("bashExecution", "Ran `ls`\n```\na\n```\n\nCommand exited with code 2")
    assert texts[5] == ("bashExecution", "")
    assert "dropped" in out["messages"][5] and "dropped" not in out["messages"][4]
    assert out["leaf"] == {"line": 6, "id": F}


def test_cycle_stops_the_walk() -> None:
    text = doc(header(), user(A, C), user(B, A), user(C, B))
    ctx = session_context(analyze(text))
    assert ctx.cycle
    assert [line for _, line in roles(ctx)] == [1, 2, 3]


def test_a_walk_into_a_cycle_keeps_the_entries_up_to_the_first_met_again() -> None:
    # D's parent C and C's parent B form a loop D's walk enters from outside; A is no part
    text = doc(header(), user(A, None), user(B, C), user(C, B), user(D, C))
    ctx = session_context(analyze(text))
    assert ctx.cycle and ctx.path == [2, 3, 4] and ctx.leaf == 4
    assert [line for _, line in roles(ctx)] == [2, 3, 4]
    # an entry that is its own parent is a cycle of one
    ctx = session_context(analyze(doc(header(), user(A, None), user(B, B))))
    assert ctx.cycle and ctx.path == [2]
    # a path through every entry without a cycle is no cycle
    ctx = session_context(analyze(doc(header(), user(A, None), user(B, A), user(C, B))))
    assert not ctx.cycle and ctx.path == [1, 2, 3]


def test_a_message_entry_whose_message_is_no_object_gives_it_as_it_is() -> None:
    # pi: `message.role` of a string, number or array is undefined: [message], unchanged
    values: list[object] = ["text", 7, ["x"], False]
    lines = [header(), user(A, None)]
    for n, value in enumerate(values):
        lines.append(raw(type="message", id=f"{n}" * 8, parentId=A if n == 0 else f"{n - 1}" * 8,
                         message=value))
    ctx = session_context(analyze(doc(*lines)))
    assert [m.message for m in ctx.messages][1:] == values
    assert [m.role for m in ctx.messages] == ["user", None, None, None, None]
    assert message_title(ctx.messages[1]) == "(not a message)" and ctx.messages[1].text is None


def test_duplicate_ids_resolve_to_the_last_entry() -> None:
    text = doc(header(), user(A, None, "first"), user(A, None, "second"), user(B, A))
    ctx = session_context(analyze(text))
    assert roles(ctx) == [("user", 2), ("user", 3)]


def test_v1_file_is_migrated_in_memory() -> None:
    text = doc(
        header(None),
        user(None, False, "one"),
        "not json",
        assistant(None, False),
        user(None, False, "two"),
        entry("compaction", None, False, summary="s", firstKeptEntryIndex=3, tokensBefore=1),
        user(None, False, "three"),
    )
    ctx = session_context(analyze(text))
    assert roles(ctx) == [("compactionSummary", 5), ("user", 4), ("user", 6)]
    assert roles(session_context(analyze(text), leaf_line=3)) == [("user", 1), ("assistant", 3)]


def test_v2_hook_message_becomes_custom() -> None:
    text = doc(header(2), user(A, None), hook(B, A))
    assert roles(session_context(analyze(text))) == [("user", 1), ("custom", 2)]


def test_tool_results_and_json_shape() -> None:
    text = doc(header(), user(A, None), assistant(B, A, calls=("t",)), result(C, B, "t"))
    ctx = session_context(analyze(text))
    out = context_json(ctx)
    assert out["thinkingLevel"] == "off"
    assert out["model"] == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
    assert [m["role"] for m in out["messages"]] == ["user", "assistant", "toolResult"]
    assert [m["line"] for m in out["messages"]] == [1, 2, 3]
    assert out["messages"][2]["title"].startswith("toolResult bash")


def test_missing_values_are_undefined_not_errors() -> None:
    text = doc(header(), entry("thinking_level_change", A, None), entry("model_change", B, A))
    ctx = session_context(analyze(text))
    assert ctx.thinking_level is UNDEFINED
    assert context_json(ctx)["thinkingLevel"] is None
    assert context_json(ctx)["model"] == {"provider": None, "modelId": None}
    assert ctx.model == {"provider": UNDEFINED, "modelId": UNDEFINED}  # pi's undefined
    turn = js({"type": "message", "id": C, "parentId": B, "timestamp": TS,
               "message": {"role": "assistant", "content": [], "timestamp": 1}})
    ctx = session_context(analyze(doc(header(), entry("model_change", B, None), turn)))
    assert ctx.model == {"provider": UNDEFINED, "modelId": UNDEFINED}


def bash(ident: str, parent: str | None, **fields: object) -> str:
    message = {"role": "bashExecution", "command": "ls", "output": "", "exitCode": 0,
               "cancelled": False, "truncated": False, "timestamp": 1, **fields}
    return entry("message", ident, parent, message=message)


def test_json_names_the_edit_and_why_a_message_is_dropped() -> None:
    text = doc(
        header(),
        user(A, None, "original"),
        edit(B, A, A, {"content": "edited"}),
        bash(C, B, excludeFromContext=True),
        hook(D, C),  # a v2 role pi 1.6 does not know: convertToLlm leaves it out
    )
    out = context_json(session_context(analyze(text)))["messages"]
    assert [m.get("edited") for m in out] == [2, None, None]
    assert "edited" not in out[1] and "edited" not in out[2]
    assert out[1]["dropped"].startswith("excludeFromContext")
    assert out[2]["dropped"].startswith("convertToLlm knows no such role")
    assert "dropped" not in out[0]


def test_json_of_an_empty_session_has_no_leaf() -> None:
    ctx = session_context(analyze(doc(header())))
    out = context_json(ctx)
    assert out["leaf"] is None and out["messages"] == []
    assert not ctx.cycle  # `pi-lsp context` warns of a cycle only when there is one


def test_bash_text_without_output_and_cancelled() -> None:
    text = doc(
        header(),
        bash(A, None, exitCode=1, cancelled=True),
        bash(B, A, output="x", exitCode=0),
        bash(C, B, output="x", exitCode=None, truncated=True, fullOutputPath="/tmp/o"),
    )
    texts = [m.text for m in session_context(analyze(text)).messages]
    # cancelled wins over the exit code; exit code 0 and null say nothing
    assert texts == [
        "Ran `ls`\n(no output)\n\n(command cancelled)",
        "Ran `ls`\n```\nx\n```",
        "Ran `ls`\n```\nx\n```\n\n[Output truncated. Full output: /tmp/o]",
    ]


def test_content_text_keeps_text_blocks_only() -> None:
    text = doc(
        header(),
        entry("custom_message", A, None, customType="x", display=True, content=[
            {"type": "text", "text": "a"},
            {"type": "image", "text": "not text", "data": "AAAA", "mimeType": "image/png"},
            {"type": "text", "text": "b"},
        ]),
        entry("custom_message", B, A, customType="x", display=True, content={"text": "x"}),
    )
    texts = [m.text for m in session_context(analyze(text)).messages]
    # content that is neither a string nor a list has no text (pi itself throws there)
    assert texts == ["a\nb", ""]


def test_timestamps_with_any_zone_or_none_are_read_as_pi_reads_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TZ", "America/New_York")  # a zone-less time is UTC on any machine
    time.tzset()
    try:
        stamps = ["2026-01-02T03:04:05.678Z", "2026-01-02T05:04:05.678+02:00",
                  "2026-01-02T03:04:05.678", "not a date"]
        text = doc(header(), *(
            entry("custom_message", f"{n}" * 8, None if n == 0 else f"{n - 1}" * 8,
                  customType="x", content="c", display=True)
            .replace(f'"timestamp":"{TS}"', f'"timestamp":"{stamp}"')
            for n, stamp in enumerate(stamps)
        ))
        got = [m.message["timestamp"] for m in session_context(analyze(text)).messages]
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert got == [1767323045678, 1767323045678, 1767323045678, None]


def raw(**obj: object) -> str:
    return js({"timestamp": TS, **obj})


def message(ident: object, parent: object, text: str) -> str:
    return raw(type="message", id=ident, parentId=parent,
               message={"role": "user", "content": text, "timestamp": 1})


def test_ids_are_looked_up_as_a_javascript_map_does() -> None:
    # numbers by value (1 and 1.0 are one key), never equal to a string, a boolean or null
    cases = [(1, 1.0, True), (1, "1", False), (1, True, False), ("x", "x", True),
             (True, True, True), (False, 0, False), ({}, {}, False), ([1], [1], False),
             # a falsy parentId ends the walk, even where an entry has that id
             (None, None, False), ("", "", False), (0, 0, False), (False, False, False)]
    for ident, parent, linked in cases:
        text = doc(header(), message(ident, None, "root"), message("z", parent, "leaf"))
        got = [m.message["content"] for m in session_context(analyze(text)).messages]
        assert got == (["root", "leaf"] if linked else ["leaf"]), (ident, parent)


def test_a_context_edit_targets_null_and_undefined_ids_apart() -> None:
    def omitted(target: object, ident: object) -> bool:
        leaf = {"id": ident} if ident is not UNDEFINED else {}
        text = doc(
            header(),
            user(A, None),
            raw(type="context_edit", id=B, parentId=A, replacement=None,
                **({"targetId": target} if target is not UNDEFINED else {})),
            raw(type="message", **leaf, parentId=B,
                message={"role": "user", "content": "leaf", "timestamp": 1}),
        )
        return [m.line for m in session_context(analyze(text)).messages] == [1]

    assert omitted(None, None) and omitted(UNDEFINED, UNDEFINED)
    assert not omitted(None, UNDEFINED) and not omitted(UNDEFINED, None)


def test_a_compaction_with_an_object_id_is_found_by_identity() -> None:
    text = doc(
        header(),
        user(A, None),
        assistant(B, A),
        raw(type="compaction", id={"k": 1}, parentId=B, summary="s", firstKeptEntryId=B,
            tokensBefore=1),
    )
    assert roles(session_context(analyze(text))) == [("compactionSummary", 3), ("assistant", 2)]


def test_text_blocks_join_as_javascript_joins_them() -> None:
    blocks = [{"type": "text", "text": "a"}, {"type": "text"}, {"type": "text", "text": None},
              {"type": "text", "text": 5}, {"type": "text", "text": [1, None, "b"]}]
    text = doc(header(), entry("custom_message", A, None, customType="x", display=True,
                               content=blocks))
    assert session_context(analyze(text)).messages[0].text == "a\n\n\n5\n1,,b"


def test_arrays_nested_deeper_than_pythons_recursion_limit_join_as_javascript_joins_them() -> None:
    deep = '"end"'
    for n in range(1000):  # orjson parses up to 1024 levels; Python recursed 1000 at most
        deep = f"[{deep},null]" if n % 2 else f"[{n},{deep}]"
    blocks = [{"type": "text", "text": "DEEP"}]
    line = entry("custom_message", A, None, customType="x", display=True, content=blocks)
    text = doc(header(), line.replace('"DEEP"', deep))
    (message,) = session_context(analyze(text)).messages
    # String(array) in node on the same value: "998,996,...", 2,448 characters, 1,000 commas
    assert message.text.startswith("998,996,994,")
    assert (len(message.text), message.text.count(",")) == (2448, 1000)


def test_bash_text_interpolates_values_as_javascript_strings_them() -> None:
    commands = [None, True, False, 2.0, 2.5, {"a": 1}, [1, None, "a", [2, True]], "ls"]
    codes: list[object] = ["0", False, 0.0, 2.0, None, 0, 0, 0]
    lines = [header()]
    for n, (command, code) in enumerate(zip(commands, codes, strict=True)):
        lines.append(bash(f"{n}" * 8, None if n == 0 else f"{n - 1}" * 8, command=command,
                          output="", exitCode=code))
    lines.append(raw(type="message", id="u" * 8, parentId="7" * 8, message={
        "role": "bashExecution", "output": "o", "truncated": False,
        "fullOutputPath": "/tmp/o", "timestamp": 1}))  # no command; not truncated
    lines.append(bash("v" * 8, "u" * 8, truncated=True))  # truncated, but no path
    texts = [m.text for m in session_context(analyze(doc(*lines))).messages]
    assert texts == [
        "Ran `null`\n(no output)\n\nCommand exited with code 0",  # "0" is no number
        "Ran `true`\n(no output)\n\nCommand exited with code false",
        "Ran `false`\n(no output)",  # 0.0 is 0
        "Ran `2`\n(no output)\n\nCommand exited with code 2",
        "Ran `2.5`\n(no output)",
        "Ran `[object Object]`\n(no output)",
        "Ran `1,,a,2,true`\n(no output)",
        "Ran `ls`\n(no output)",
        "Ran `undefined`\n```\no\n```",
        "Ran `ls`\n(no output)",
    ]


def grown(*more: str) -> tuple[SessionContext | None, SessionContext]:
    """The context of a session extended by ``more`` from the one before, and the one pi builds."""
    base = [header(), entry("thinking_level_change", A, None, thinkingLevel="low"),
            user(B, A), assistant(C, B, calls=("t",))]
    before = entries_of(analyze(doc(*base)))
    entries = entries_of(analyze(doc(*base, *more)))
    ctx = build_context(before)
    return extend_context(ctx, entries, entry_index(entries), len(before)), build_context(entries)


def test_a_context_extended_by_children_of_the_leaf_is_the_one_pi_builds() -> None:
    more = (result(D, C, "t"), entry("model_change", E, D, provider="p", modelId="m"),
            entry("thinking_level_change", F, E, thinkingLevel="high"), assistant(G, F, model="m2"))
    got, want = grown(*more)
    assert got == want
    assert got is not None and got.thinking_level == "high" and got.leaf == 7
    assert got.model == {"provider": "anthropic", "modelId": "m2"}
    assert [m.line for m in got.messages] == [2, 3, 4, 7] and got.path == list(range(1, 8))


def test_a_context_extended_by_entries_that_change_no_setting_keeps_them() -> None:
    got, want = grown(result(D, C, "t"), entry("label", E, D, targetId=B, label="x"))
    assert got == want
    assert got is not None and got.thinking_level == "low" and got.leaf == 5
    assert got.model == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
    assert [m.line for m in got.messages] == [2, 3, 4] and got.entries == list(range(1, 6))


def test_the_messages_of_a_context_are_context_messages_with_every_field() -> None:
    # every field of the messages the projection builds
    text = doc(header(), user(A, None), assistant(B, A, "long"), edit(C, B, B, {"content": "x"}))
    ctx = session_context(analyze(text))
    edited = {**ctx.messages[1].message}
    assert ctx.messages == [
        ContextMessage(1, ctx.messages[0].message, None),
        ContextMessage(2, edited, 3),
    ]
    assert repr(ctx.messages[0]).startswith("ContextMessage(line=1, message={")


def test_an_extended_context_keeps_the_edits_of_the_one_it_grows() -> None:
    base = [header(), user(A, None), assistant(B, A, "long answer"),
            edit(C, B, B, {"content": "short"})]
    before = entries_of(analyze(doc(*base)))
    entries = entries_of(analyze(doc(*base, user(D, C, "next"))))
    got = extend_context(build_context(before), entries, entry_index(entries), len(before))
    assert got == build_context(entries)
    assert got is not None and got.edits == {2: 3}
    assert [(m.line, m.edited) for m in got.messages] == [(1, None), (2, 3), (4, None)]


def test_a_context_is_not_extended_past_what_changes_earlier_messages() -> None:
    assert grown()[0] == grown()[1]  # nothing appended: the same context
    for more in (
        (entry("compaction", D, C, summary="s", firstKeptEntryId=C, tokensBefore=1),),
        (edit(D, C, B, None),),
        (user(D, B),),  # a sibling of the leaf: another branch
        (user(D, None),),  # a new root
        (entry("message", D, False, message={"role": "user", "content": "x"}),),  # no parent
        (user(D, C), user(D, C)),  # the id taken again by the next entry
    ):
        got, want = grown(*more)
        assert got is None, more
        assert want.leaf == 3 + len(more)
    # a context pi cannot build (a cycle) or with no leaf is not extended: built anew
    entries = entries_of(analyze(doc(header(), user(A, C), user(B, A), user(C, B), user(D, C))))
    looped = build_context(entries[:3])
    assert looped.cycle and extend_context(looped, entries, entry_index(entries), 3) is None
    null_leaf = build_context(entries[:3], None)
    assert extend_context(null_leaf, entries, entry_index(entries), 3) is None
    assert extend_context(build_context([]), entries, entry_index(entries), 0) is None


def test_every_role_convert_to_llm_passes_on_keeps_its_text() -> None:
    # convertToLlm returns system, user, assistant and toolResult messages as they are and
    # a custom message as user content; any other role (case counts) is left out
    blocks = [
        {"type": "text", "text": "t1"},
        {"type": "toolCall", "id": "c"},
        {"type": "text", "text": "t2"},
    ]
    for role in ("custom", "system", "user", "assistant", "toolResult"):
        assert llm_text({"role": role, "content": blocks}) == "t1\nt2", role
        assert llm_text({"role": role, "content": "plain"}) == "plain", role
    for role in ("System", "ASSISTANT", "toolresult", "tool", "", None):
        assert llm_text({"role": role, "content": "plain"}) is None, role
    assert llm_text({"content": "plain"}) is None and llm_text("user") is None


def test_an_edit_replaces_content_by_role_as_project_context_entry_does() -> None:
    # a string becomes one text block for assistant and toolResult messages only; user and
    # custom messages take it as it is; summaries and system messages keep their content
    text = doc(
        header(),
        assistant(A, None, calls=("t",)),
        result(B, A, "t"),
        entry("custom_message", C, B, customType="x", content="old", display=True),
        entry("branch_summary", D, C, fromId=A, summary="left"),
        entry("message", E, D, message={"role": "system", "content": "sys", "timestamp": 1}),
        user(F, E, "old"),
        edit(G, F, B, {"content": "new"}),
        edit("h" * 8, G, C, {"content": "new"}),
        edit("i" * 8, "h" * 8, D, {"content": "new"}),
        edit("j" * 8, "i" * 8, E, {"content": "new"}),
        edit("k" * 8, "j" * 8, F, {"content": [{"type": "text", "text": "new"}]}),
    )
    got = {m.role: m.message for m in session_context(analyze(text)).messages}
    block = [{"type": "text", "text": "new"}]
    assert got["toolResult"]["content"] == block and got["toolResult"]["toolCallId"] == "t"
    assert got["custom"]["content"] == "new" and got["custom"]["customType"] == "x"
    assert got["user"]["content"] == block
    assert got["branchSummary"]["summary"] == "left" and "content" not in got["branchSummary"]
    assert got["system"]["content"] == "sys"
    assert got["assistant"]["content"][0] == {"type": "text", "text": "hi"}  # not edited


def test_entries_become_the_messages_session_entry_to_context_messages_makes() -> None:
    def message(ident: str, parent: str | None, **fields: object) -> str:
        return entry("message", ident, parent, message={"timestamp": 1, **fields})

    text = doc(
        header(),
        message(A, None, role="system"),  # missing content: ""
        message(B, A, role="assistant", content=None),  # null content: []
        message(C, B, role="toolResult"),
        message(D, C, role="custom", content=None),  # other roles keep it as it is
        entry(
            "custom_message", E, D, customType="ext", content=["c"], display=False,
            details={"k": 1},
        ),
    )
    msgs = [m.message for m in session_context(analyze(text)).messages]
    assert msgs[0] == {"timestamp": 1, "role": "system", "content": ""}
    assert msgs[1] == {"timestamp": 1, "role": "assistant", "content": []}
    assert msgs[2] == {"timestamp": 1, "role": "toolResult", "content": []}
    assert msgs[3] == {"timestamp": 1, "role": "custom", "content": None}
    assert msgs[4] == {
        "role": "custom", "customType": "ext", "content": ["c"], "display": False,
        "details": {"k": 1}, "timestamp": 1767323045678,
    }
    summary = {
        "role": "compactionSummary", "summary": "s", "tokensBefore": 7,
        "timestamp": 1767323045678,
    }
    # a checkpoint opens the context only when it is truthy: an empty object is, "" is not
    for checkpoint, want in (({}, [{}, summary]), ("", [summary]), (None, [summary])):
        text2 = doc(
            header(),
            user(A, None),
            entry(
                "compaction", B, A, summary="s", firstKeptEntryId=A, tokensBefore=7,
                systemMessage=checkpoint,
            ),
        )
        got = [m.message for m in session_context(analyze(text2)).messages]
        assert got[:-1] == want and got[-1]["role"] == "user", checkpoint


def test_an_edit_of_the_compaction_keeps_its_checkpoint_and_summary() -> None:
    # neither a system checkpoint nor a summary has content an edit replaces: both stay
    checkpoint = {"role": "system", "content": "you are pi", "timestamp": 5}
    text = doc(
        header(),
        user(A, None),
        entry(
            "compaction", B, A, summary="s", firstKeptEntryId=A, tokensBefore=1,
            systemMessage=checkpoint,
        ),
        edit(C, B, B, {"content": "new"}),
    )
    ctx = session_context(analyze(text))
    assert roles(ctx) == [("system", 2), ("compactionSummary", 2), ("user", 1)]
    assert ctx.messages[0].message == checkpoint and ctx.messages[1].message["summary"] == "s"
    assert ctx.edits == {2: 3}


def test_a_value_that_is_no_object_is_an_entry_nothing_links_to() -> None:
    """pi keeps a parsed line that is no object as an entry without id or type: nothing
    links to it, and as the last line it is the leaf of an empty context."""
    for odd in ("7", "true", '"text"', "[1, 2]", "[]"):
        middle = doc(header(), user(A, None), odd, user(B, A))
        ctx = session_context(analyze(middle))
        assert ctx.path == [1, 3] and [m.line for m in ctx.messages] == [1, 3], odd
        last = session_context(analyze(doc(header(), user(A, None), user(B, A), odd)))
        assert (last.leaf, last.path, last.messages) == (3, [3], []), odd


def test_a_context_is_extended_by_a_child_without_an_id() -> None:
    """The last entry without an id is the one ``byId`` holds for ``undefined``."""
    got, want = grown(raw(type="message", parentId=C, message={"role": "user", "content": "x"}))
    assert got is not None and got == want
    assert got.leaf == 4 and got.leaf_id is UNDEFINED and [m.line for m in got.messages] == [2, 3, 4]


def test_older_compaction_inside_the_kept_range_adds_nothing_under_an_edit() -> None:
    """The same with a context edit on the path (the projection that applies edits)."""
    text = doc(*OLDER_COMPACTION_KEPT, edit(F, E, E, {"content": "edited"}))
    ctx = session_context(analyze(text))
    assert roles(ctx) == [("compactionSummary", 4), ("user", 3), ("user", 5)]
    assert ctx.messages[0].message["summary"] == "new" and ctx.edits == {5: 6}
    assert ctx.messages[2].message["content"] == "edited"


def test_a_message_entry_without_a_message_gives_undefined() -> None:
    """pi's ``[entry.message]`` of an entry with no ``message``: ``undefined``, not null."""
    text = doc(header(), user(A, None), raw(type="message", id=B, parentId=A))
    ctx = session_context(analyze(text))
    assert ctx.messages[1].line == 2 and ctx.messages[1].message is UNDEFINED
    assert [m.role for m in ctx.messages] == ["user", None]
