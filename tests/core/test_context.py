"""buildSessionContext as pi 0.73.1 (plus retainedTail): path, compaction, settings."""

from __future__ import annotations

from pi_lsp.core.analysis import analyze
from pi_lsp.core.context import SessionContext, session_context
from pi_lsp.core.migrate import UNDEFINED

from .pi_sessions import assistant, doc, entry, header, hook, result, user

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


def test_retained_tail_replaces_the_kept_entries() -> None:
    tail = [{"role": "user", "content": "kept"}, {"role": "assistant", "content": []}]
    text = doc(
        header(),
        user(A, None),
        user(B, A),
        entry(
            "compaction", C, B, summary="s", tokensBefore=3, retainedTail=tail, firstKeptEntryId=A
        ),
        user(D, C),
    )
    ctx = session_context(analyze(text))
    assert roles(ctx) == [
        ("compactionSummary", 3),
        ("user", 3),
        ("assistant", 3),
        ("user", 4),
    ]
    assert ctx.messages[1].message == tail[0]


def test_cycle_stops_the_walk() -> None:
    text = doc(header(), user(A, C), user(B, A), user(C, B))
    ctx = session_context(analyze(text))
    assert ctx.cycle
    assert [line for _, line in roles(ctx)] == [1, 2, 3]


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
    out = ctx.to_json()
    assert out["thinkingLevel"] == "off"
    assert out["model"] == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
    assert [m["role"] for m in out["messages"]] == ["user", "assistant", "toolResult"]
    assert [m["line"] for m in out["messages"]] == [1, 2, 3]
    assert out["messages"][2]["title"].startswith("toolResult bash")


def test_missing_values_are_undefined_not_errors() -> None:
    text = doc(header(), entry("thinking_level_change", A, None), entry("model_change", B, A))
    ctx = session_context(analyze(text))
    assert ctx.thinking_level is UNDEFINED
    assert ctx.to_json()["thinkingLevel"] is None
    assert ctx.to_json()["model"] == {"provider": None, "modelId": None}
