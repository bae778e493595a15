"""Tests of the JSON Schemas themselves (schemas/*.schema.json), independent of pi_lsp code."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
FIXTURES = ROOT.parent / "shared" / "fixtures"
BOOK_SAMPLE = ROOT / "tests" / "data" / "book-valid.jsonl"

PI_FILES = {v: f"session.v{v}.schema.json" for v in (1, 2, 3)}
BOOK_FILE = "session-book.v1.schema.json"
ALL_FILES = [*PI_FILES.values(), BOOK_FILE]

PI_ENTRY_TYPES = [
    "message",
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
]
# entry types pi 0.86.0-0.87.0 added to v3 without changing the version number
PI_V3_ENTRY_TYPES = [*PI_ENTRY_TYPES, "usage", "context_edit"]
BOOK_ENTRY_TYPES = [
    "user_message",
    "assistant_message",
    "tool_call",
    "tool_result",
    "compaction",
    "branch_summary",
    "thinking",
]


def load(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


SCHEMA_DOCS = {name: load(name) for name in ALL_FILES}
REGISTRY: Registry = Registry().with_resources(
    (doc["$id"], Resource.from_contents(doc)) for doc in SCHEMA_DOCS.values()
)


def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(SCHEMA_DOCS[name], registry=REGISTRY)


def def_validator(name: str, def_name: str) -> Draft202012Validator:
    """How the core validates a line: a bare $ref to the entry's definition."""
    ref = {"$ref": f"{SCHEMA_DOCS[name]['$id']}#/$defs/{def_name}"}
    return Draft202012Validator(ref, registry=REGISTRY)


def error_paths(v: Draft202012Validator, instance: Any) -> list[tuple[Any, ...]]:
    return [tuple(e.absolute_path) for e in v.iter_errors(instance)]


def pi_def_name(line: dict[str, Any]) -> str:
    return "header" if line["type"] == "session" else line["type"]


# ----------------------------------------------------------------------------- sample lines

USAGE = {
    "input": 10,
    "output": 20,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 30,
    "cost": {"input": 0.1, "output": 0.2, "cacheRead": 0, "cacheWrite": 0, "total": 0.3},
}
ASSISTANT = {
    "role": "assistant",
    "content": [
        {"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig", "redacted": False},
        {"type": "text", "text": "Running it."},
        {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "ls"}},
    ],
    "api": "anthropic-messages",
    "provider": "anthropic",
    "model": "claude-sonnet-4-5",
    "usage": USAGE,
    "stopReason": "toolUse",
    "timestamp": 1764477846056,
}
TS = "2026-11-30T04:24:06.056Z"


def msg_entry(message: Any, **extra: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "a1b2c3d4",
        "parentId": None,
        "timestamp": TS,
        "message": message,
        **extra,
    }


def v3_entry(entry_type: str, **fields: Any) -> dict[str, Any]:
    return {"type": entry_type, "id": "b2c3d4e5", "parentId": "a1b2c3d4", "timestamp": TS, **fields}


SYSTEM = {
    "role": "system",
    "content": "",
    "sections": {"preamble": "You are pi.", "cwd": "/p"},
    "toolsAdded": [{"name": "read", "description": "read a file", "parameters": {"type": "object"}}],
    "timestamp": 1,
}
# what pi 1.6.0 writes (shapes from its types and its own SessionManager)
PI16_V3 = [
    {"type": "session", "version": 3, "id": "my-run.7", "timestamp": TS, "cwd": "/p"},
    msg_entry(SYSTEM),
    msg_entry(
        {
            "role": "system",
            "content": [{"type": "text", "text": "also this"}],
            "sections": {"cwd": None},
            "toolsRemoved": [{"name": "write"}],
            "timestamp": 2,
        }
    ),
    msg_entry(
        {
            **ASSISTANT,
            "content": [
                {"type": "toolCall", "id": "c", "name": "t", "arguments": {}, "namespace": "ns"},
                {"type": "toolCall", "id": "d", "name": "t", "arguments": {}, "argumentsError": "x"},
            ],
            "thinkingLevel": "max",
            "providerThinkingLevel": "max",
            "rawStopReason": "end_turn",
            "endTurn": True,
            "durationMs": 1200,
            "usage": {
                **USAGE,
                "cacheWrite1h": 0,
                "reasoning": 5,
                "cost": {**USAGE["cost"], "totalFromProvider": True},  # type: ignore[dict-item]
            },
        }
    ),
    msg_entry(
        {
            **ASSISTANT,
            "content": [],
            "stopReason": "deferred",
            "deferred": {"provider": "openai", "modelId": "m", "api": "openai-responses", "id": "r"},
        }
    ),
    msg_entry(
        {
            "role": "toolResult",
            "toolCallId": "c",
            "toolName": "codemode",
            "content": [{"type": "text", "text": "out"}],
            "usage": USAGE,
            "nestedCalls": {
                "calls": [{"id": "n1", "name": "read", "argumentsBytes": 9, "status": "ok"}],
                "complete": True,
            },
            "isError": False,
            "durationMs": 30,
            "timestamp": 3,
        }
    ),
    v3_entry("thinking_level_change", thinkingLevel="max"),
    v3_entry("usage", kind="cache_warm", provider="anthropic", model="m", usage=USAGE),
    v3_entry("usage", kind="anything-new", provider="p", model="m", usage=USAGE, note="n"),
    v3_entry("context_edit", targetId="a1b2c3d4", replacement=None),
    v3_entry("context_edit", targetId="a1b2c3d4", replacement={"content": "shorter"}),
    v3_entry(
        "context_edit",
        targetId="a1b2c3d4",
        replacement={"content": [{"type": "text", "text": "x"}, {"type": "thinking", "thinking": "t"}]},
    ),
    # retain-none: the compaction names itself; a system checkpoint and the summary's usage
    v3_entry(
        "compaction",
        summary="s",
        firstKeptEntryId="b2c3d4e5",
        tokensBefore=9,
        usage=USAGE,
        systemMessage=SYSTEM,
    ),
    v3_entry("branch_summary", fromId="a1b2c3d4", summary="s", usage=USAGE),
    v3_entry("branch_summary", fromId=None, summary="s"),
]

VALID_V3 = [
    {"type": "session", "version": 3, "id": "uuid-1", "timestamp": TS, "cwd": "/p"},
    {
        "type": "session",
        "version": 3,
        "id": "uuid-1",
        "timestamp": TS,
        "cwd": "/p",
        "parentSession": "/sessions/other.jsonl",
    },
    msg_entry({"role": "user", "content": "Hello"}),
    msg_entry(
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            ],
            "timestamp": 1,
        }
    ),
    msg_entry(ASSISTANT),
    msg_entry({**ASSISTANT, "stopReason": "pending"}),  # PI201 is a separate diagnostic
    msg_entry(
        {
            **ASSISTANT,
            "stopReason": "error",
            "errorMessage": "boom",
            "responseId": "r1",
            "usage": {k: v for k, v in USAGE.items() if k != "totalTokens"},
        }
    ),
    msg_entry(
        {
            "role": "toolResult",
            "toolCallId": "call_1",
            "toolName": "bash",
            "content": [{"type": "text", "text": "out"}],
            "isError": False,
            "details": {"x": 1},
            "timestamp": 2,
        }
    ),
    msg_entry(
        {
            "role": "bashExecution",
            "command": "ls",
            "output": "a\n",
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "timestamp": 3,
        }
    ),
    msg_entry(
        {
            "role": "bashExecution",
            "command": "sleep 9",
            "output": "",
            "cancelled": True,
            "truncated": False,
            "excludeFromContext": True,
        }
    ),
    msg_entry(
        {"role": "custom", "customType": "ext", "content": "ctx", "display": True, "timestamp": 4}
    ),
    msg_entry({"role": "hookMessage", "customType": "ext", "content": "ctx", "display": False}),
    msg_entry({"role": "branchSummary", "summary": "s", "fromId": "root", "timestamp": 5}),
    msg_entry({"role": "compactionSummary", "summary": "s", "tokensBefore": 9}),
    msg_entry({"role": "user", "content": "hi", "futureField": {"a": 1}}, futureEntryField=1),
    v3_entry("model_change", provider="openai", modelId="gpt-4o"),
    v3_entry("thinking_level_change", thinkingLevel="xhigh"),
    v3_entry(
        "compaction",
        summary="s",
        firstKeptEntryId="a1b2c3d4",
        tokensBefore=5000,
        details={"readFiles": [], "modifiedFiles": []},
        fromHook=False,
        usage=USAGE,
    ),
    v3_entry(
        "compaction",
        summary="s",
        tokensBefore=5000,
        retainedTail=[{"role": "user", "content": "latest request"}, ASSISTANT],
    ),
    # firstKeptEntryIndex in v3 is PI302's business, not the schema's
    v3_entry("compaction", summary="s", tokensBefore=5000, firstKeptEntryIndex=3),
    v3_entry("branch_summary", fromId="root", summary="s", details={}, fromHook=True, usage=USAGE),
    v3_entry("custom", customType="ext", data={"count": 42}),
    v3_entry("custom", customType="ext"),
    v3_entry("custom_message", customType="ext", content="Injected", display=True),
    v3_entry(
        "custom_message",
        customType="ext",
        content=[{"type": "text", "text": "x"}],
        display=False,
        details={"k": 1},
    ),
    v3_entry("label", targetId="a1b2c3d4", label="checkpoint-1"),
    v3_entry("label", targetId="a1b2c3d4"),
    v3_entry("session_info", name="Refactor auth module"),
    # missing id/parentId is PI300's business, not the schema's
    {"type": "label", "timestamp": TS, "targetId": "a1b2c3d4", "label": "x"},
    # unknown entry types are PI004's business
    {"type": "some_future_entry", "whatever": [1, 2]},
    *PI16_V3,
]


# ----------------------------------------------------------------------------- structure


@pytest.mark.parametrize("name", ALL_FILES)
def test_schema_is_valid_2020_12(name: str) -> None:
    doc = SCHEMA_DOCS[name]
    Draft202012Validator.check_schema(doc)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert doc["$id"] == f"https://pi-lsp.dev/schemas/{name}"
    for key in ("title", "description", "$defs"):
        assert doc[key], key


@pytest.mark.parametrize(
    ("name", "entry_types"),
    [
        (PI_FILES[1], PI_ENTRY_TYPES),
        (PI_FILES[2], PI_ENTRY_TYPES),
        (PI_FILES[3], PI_V3_ENTRY_TYPES),
        (BOOK_FILE, BOOK_ENTRY_TYPES),
    ],
)
def test_defs_follow_naming_convention(name: str, entry_types: list[str]) -> None:
    defs = SCHEMA_DOCS[name]["$defs"]
    assert "header" in defs
    for entry_type in entry_types:
        assert entry_type in defs, entry_type
        # each entry definition pins its own discriminator
        assert defs[entry_type]["properties"]["type"]["const"] == entry_type
    # the top level dispatches with if/then (never oneOf/anyOf) to every definition
    top = SCHEMA_DOCS[name]
    assert "oneOf" not in top and "anyOf" not in top
    targets = {
        branch["if"]["properties"]["type"]["const"]: branch["then"]["$ref"]
        for branch in top["allOf"]
    }
    header_type = "session" if name in PI_FILES.values() else "session_header"
    assert targets.pop(header_type) == "#/$defs/header"
    assert targets == {t: f"#/$defs/{t}" for t in entry_types}


@pytest.mark.parametrize("name", PI_FILES.values())
def test_pi_shared_defs(name: str) -> None:
    defs = SCHEMA_DOCS[name]["$defs"]
    for shared in (
        "AgentMessage",
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "BashExecutionMessage",
        "CustomMessage",
        "HookMessage",
        "BranchSummaryMessage",
        "CompactionSummaryMessage",
        "TextContent",
        "ImageContent",
        "ThinkingContent",
        "ToolCall",
        "Usage",
        "Cost",
    ):
        assert shared in defs, shared


def _walk(node: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{path}/{i}")


@pytest.mark.parametrize("name", ALL_FILES)
def test_every_property_and_def_has_a_description(name: str) -> None:
    missing = []
    for path, node in _walk(SCHEMA_DOCS[name], ""):
        for key in ("properties", "$defs"):
            for prop, sub in (node.get(key) or {}).items():
                if not (
                    isinstance(sub, dict)
                    and isinstance(sub.get("description"), str)
                    and sub["description"].strip()
                ):
                    missing.append(f"{path}/{key}/{prop}")
    assert missing == []


# ----------------------------------------------------------------------------- valid input


def _fixture_cases() -> list[Any]:
    if not FIXTURES.is_dir():
        return []
    versions = {"real-v1-": 1, "pi-v2-": 2, "pi-v3-": 3}
    cases = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        for prefix, version in versions.items():
            if path.name.startswith(prefix):
                cases.append(pytest.param(path, version, id=path.name))
    return cases


@pytest.mark.parametrize(("path", "version"), _fixture_cases())
def test_fixture_lines_validate(path: Path, version: int) -> None:
    top = validator(PI_FILES[version])
    failures = []
    with path.open(encoding="utf-8", newline="") as fh:
        text = fh.read()
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        obj = json.loads(line)
        per_def = def_validator(PI_FILES[version], pi_def_name(obj))
        for v in (top, per_def):
            failures += [
                (lineno, list(e.absolute_path), e.message[:120]) for e in v.iter_errors(obj)
            ]
    assert failures == []


def test_fixtures_present_or_skip() -> None:
    if not FIXTURES.is_dir():
        pytest.skip(f"{FIXTURES} is absent")
    assert _fixture_cases()


@pytest.mark.parametrize("line", VALID_V3, ids=lambda o: o["type"])
def test_valid_v3_lines(line: dict[str, Any]) -> None:
    assert error_paths(validator(PI_FILES[3]), line) == []


@pytest.mark.parametrize("version", [1, 2])
def test_valid_lines_in_older_versions(version: int) -> None:
    v = validator(PI_FILES[version])
    header: dict[str, Any] = {"type": "session", "id": "u", "timestamp": TS, "cwd": "/p"}
    if version == 1:
        header.update(
            provider="anthropic", modelId="m", thinkingLevel="off", branchedFrom="/x.jsonl"
        )
        entries: list[dict[str, Any]] = [
            {"type": "message", "timestamp": TS, "message": ASSISTANT},
            {
                "type": "compaction",
                "timestamp": TS,
                "summary": "s",
                "firstKeptEntryIndex": 1,
                "tokensBefore": 10,
            },
            {"type": "thinking_level_change", "timestamp": TS, "thinkingLevel": "minimal"},
        ]
    else:
        header["version"] = 2
        entries = [
            msg_entry(
                {
                    "role": "hookMessage",
                    "customType": "e",
                    "content": "c",
                    "display": True,
                    "timestamp": 1,
                }
            ),
            v3_entry("compaction", summary="s", firstKeptEntryId="a1b2c3d4", tokensBefore=1),
        ]
    for line in [header, *entries]:
        assert error_paths(v, line) == [], line
        assert error_paths(def_validator(PI_FILES[version], pi_def_name(line)), line) == []


def test_book_sample_validates() -> None:
    v = validator(BOOK_FILE)
    lines = [
        json.loads(raw)
        for raw in BOOK_SAMPLE.read_text(encoding="utf-8").splitlines()
        if raw.strip()
    ]
    assert lines[0]["type"] == "session_header"
    seen = set()
    for line in lines:
        seen.add(line["type"])
        def_name = "header" if line["type"] == "session_header" else line["type"]
        assert error_paths(v, line) == [], line
        assert error_paths(def_validator(BOOK_FILE, def_name), line) == [], line
    assert seen == {"session_header", *BOOK_ENTRY_TYPES}


# ----------------------------------------------------------------------------- invalid input


def _with(obj: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """Deep copy of obj with the value at path replaced (or deleted when value is DELETE)."""
    out = copy.deepcopy(obj)
    target = out
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


DELETE = object()
ASSISTANT_ENTRY = msg_entry(ASSISTANT)
COMPACTION = v3_entry(
    "compaction",
    summary="s",
    firstKeptEntryId="a1b2c3d4",
    tokensBefore=1,
    retainedTail=[{"role": "user", "content": "x"}],
)

# (version, line, expected absolute_path of the single error)
INVALID: list[tuple[str, int, dict[str, Any], tuple[Any, ...]]] = [
    (
        "usage-input-string",
        3,
        _with(ASSISTANT_ENTRY, ("message", "usage", "input"), "10"),
        ("message", "usage", "input"),
    ),
    (
        "cost-total-string",
        3,
        _with(ASSISTANT_ENTRY, ("message", "usage", "cost", "total"), "0.3"),
        ("message", "usage", "cost", "total"),
    ),
    (
        "usage-missing-cost",
        3,
        _with(ASSISTANT_ENTRY, ("message", "usage", "cost"), DELETE),
        ("message", "usage"),
    ),
    ("unknown-role", 3, _with(ASSISTANT_ENTRY, ("message", "role"), "robot"), ("message", "role")),
    ("role-not-string", 2, _with(ASSISTANT_ENTRY, ("message", "role"), 7), ("message", "role")),
    (
        "bad-stop-reason",
        3,
        _with(ASSISTANT_ENTRY, ("message", "stopReason"), "done"),
        ("message", "stopReason"),
    ),
    (
        "unknown-block-type",
        3,
        _with(ASSISTANT_ENTRY, ("message", "content", 1, "type"), "video"),
        ("message", "content", 1, "type"),
    ),
    (
        "image-in-assistant",
        3,
        _with(
            ASSISTANT_ENTRY,
            ("message", "content", 1),
            {"type": "image", "data": "x", "mimeType": "image/png"},
        ),
        ("message", "content", 1, "type"),
    ),
    (
        "toolcall-args-string",
        3,
        _with(ASSISTANT_ENTRY, ("message", "content", 2, "arguments"), "{}"),
        ("message", "content", 2, "arguments"),
    ),
    (
        "thinking-not-string",
        1,
        _with(ASSISTANT_ENTRY, ("message", "content", 0, "thinking"), ["x"]),
        ("message", "content", 0, "thinking"),
    ),
    (
        "text-missing",
        3,
        _with(ASSISTANT_ENTRY, ("message", "content", 1, "text"), DELETE),
        ("message", "content", 1),
    ),
    (
        "assistant-content-string",
        3,
        _with(ASSISTANT_ENTRY, ("message", "content"), "hi"),
        ("message", "content"),
    ),
    ("user-content-number", 3, msg_entry({"role": "user", "content": 5}), ("message", "content")),
    (
        "user-block-unknown",
        3,
        msg_entry(
            {
                "role": "user",
                "content": [{"type": "toolCall", "id": "a", "name": "b", "arguments": {}}],
            }
        ),
        ("message", "content", 0, "type"),
    ),
    ("message-not-object", 3, msg_entry("hello"), ("message",)),
    (
        "content-item-not-object",
        3,
        msg_entry({"role": "user", "content": ["plain string"]}),
        ("message", "content", 0),
    ),
    (
        "tail-item-not-object",
        3,
        _with(COMPACTION, ("retainedTail", 0), "x"),
        ("retainedTail", 0),
    ),
    ("message-missing", 3, _with(ASSISTANT_ENTRY, ("message",), DELETE), ()),
    ("parentId-number", 3, _with(ASSISTANT_ENTRY, ("parentId",), 5), ("parentId",)),
    ("id-number", 2, _with(ASSISTANT_ENTRY, ("id",), 12345678), ("id",)),
    ("timestamp-number", 3, _with(ASSISTANT_ENTRY, ("timestamp",), 17), ("timestamp",)),
    (
        "message-timestamp-string",
        3,
        _with(ASSISTANT_ENTRY, ("message", "timestamp"), TS),
        ("message", "timestamp"),
    ),
    (
        "toolresult-no-call-id",
        3,
        msg_entry({"role": "toolResult", "toolName": "bash", "content": [], "isError": False}),
        ("message",),
    ),
    (
        "bash-exitcode-string",
        3,
        msg_entry({"role": "bashExecution", "command": "ls", "output": "", "exitCode": "0"}),
        ("message", "exitCode"),
    ),
    (
        "custom-display-string",
        3,
        msg_entry({"role": "custom", "customType": "e", "content": "c", "display": "yes"}),
        ("message", "display"),
    ),
    (
        "hookmessage-bad-content",
        2,
        msg_entry({"role": "hookMessage", "customType": "e", "content": 1, "display": True}),
        ("message", "content"),
    ),
    (
        "thinking-level",
        3,
        v3_entry("thinking_level_change", thinkingLevel="extreme"),
        ("thinkingLevel",),
    ),
    (
        "thinking-level-v1",
        1,
        {"type": "thinking_level_change", "timestamp": TS, "thinkingLevel": "max"},
        ("thinkingLevel",),
    ),
    ("model-change-no-model", 3, v3_entry("model_change", provider="openai"), ()),
    (
        "compaction-v3-no-first-kept",
        3,
        _with(_with(COMPACTION, ("firstKeptEntryId",), DELETE), ("retainedTail",), DELETE),
        (),
    ),
    ("compaction-tail-null", 3, _with(COMPACTION, ("retainedTail",), None), ("retainedTail",)),
    ("compaction-v2-no-first-kept", 2, _with(COMPACTION, ("firstKeptEntryId",), DELETE), ()),
    (
        "compaction-tail-bad-role",
        3,
        _with(COMPACTION, ("retainedTail", 0, "role"), "nobody"),
        ("retainedTail", 0, "role"),
    ),
    ("compaction-tokens-string", 3, _with(COMPACTION, ("tokensBefore",), "5"), ("tokensBefore",)),
    (
        "compaction-v1-negative-index",
        1,
        {
            "type": "compaction",
            "timestamp": TS,
            "summary": "s",
            "firstKeptEntryIndex": -1,
            "tokensBefore": 1,
        },
        ("firstKeptEntryIndex",),
    ),
    (
        "compaction-v1-no-index",
        1,
        {"type": "compaction", "timestamp": TS, "summary": "s", "tokensBefore": 1},
        (),
    ),
    ("branch-summary-fromId", 3, v3_entry("branch_summary", fromId=7, summary="s"), ("fromId",)),
    ("label-number", 3, v3_entry("label", targetId="a", label=5), ("label",)),
    (
        "custom-message-content",
        3,
        v3_entry("custom_message", customType="e", content=[{"type": "text", "text": 1}]),
        ("content", 0, "text"),
    ),
    ("session-info-name", 3, v3_entry("session_info", name=["x"]), ("name",)),
    ("header-id-missing", 3, {"type": "session", "version": 3, "timestamp": TS, "cwd": "/"}, ()),
    ("system-section-number", 3, msg_entry({**SYSTEM, "sections": {"a": 1}}), ("message", "sections", "a")),
    ("system-unknown-v2", 2, msg_entry(SYSTEM), ("message", "role")),
    ("usage-entry-no-usage", 3, v3_entry("usage", kind="k", provider="p", model="m"), ()),
    (
        "context-edit-content-number",
        3,
        v3_entry("context_edit", targetId="a", replacement={"content": 1}),
        ("replacement", "content"),
    ),
    ("context-edit-no-replacement", 3, v3_entry("context_edit", targetId="a"), ()),
    ("stop-reason-unknown", 3, _with(ASSISTANT_ENTRY, ("message", "stopReason"), "paused"), ("message", "stopReason")),
    (
        "header-parent-session",
        3,
        {
            "type": "session",
            "version": 3,
            "id": "u",
            "timestamp": TS,
            "cwd": "/",
            "parentSession": 5,
        },
        ("parentSession",),
    ),
    (
        "header-v1-thinking",
        1,
        {"type": "session", "id": "u", "timestamp": TS, "cwd": "/", "thinkingLevel": "max"},
        ("thinkingLevel",),
    ),
    (
        "header-cwd-number",
        2,
        {"type": "session", "version": 2, "id": "u", "timestamp": TS, "cwd": 1},
        ("cwd",),
    ),
]


@pytest.mark.parametrize(
    ("version", "line", "expected"),
    [pytest.param(v, line, exp, id=name) for name, v, line, exp in INVALID],
)
def test_invalid_line_points_at_offending_field(
    version: int, line: dict[str, Any], expected: tuple[Any, ...]
) -> None:
    name = PI_FILES[version]
    assert error_paths(validator(name), line) == [expected]
    assert error_paths(def_validator(name, pi_def_name(line)), line) == [expected]


def test_required_error_names_the_missing_field() -> None:
    line = _with(ASSISTANT_ENTRY, ("message", "usage", "cost"), DELETE)
    (error,) = validator(PI_FILES[3]).iter_errors(line)
    assert error.validator == "required"
    assert "'cost'" in error.message


BOOK_ASSISTANT = {
    "type": "assistant_message",
    "id": "entry-002",
    "parentId": "entry-001",
    "timestamp": "2026-07-31T12:00:03Z",
    "modelId": "m",
    "content": [
        {"type": "text", "text": "ok"},
        {"type": "tool_use", "id": "tc_1", "name": "write", "input": {}},
    ],
    "usage": {"inputTokens": 1, "outputTokens": 2},
}

BOOK_INVALID = [
    (
        "usage-string",
        _with(BOOK_ASSISTANT, ("usage", "inputTokens"), "1"),
        ("usage", "inputTokens"),
    ),
    (
        "block-unknown",
        _with(BOOK_ASSISTANT, ("content", 0, "type"), "toolCall"),
        ("content", 0, "type"),
    ),
    ("tool-use-no-name", _with(BOOK_ASSISTANT, ("content", 1, "name"), DELETE), ("content", 1)),
    ("parent-number", _with(BOOK_ASSISTANT, ("parentId",), 1), ("parentId",)),
    (
        "header-version",
        {"type": "session_header", "version": 2, "createdAt": TS, "cwd": "/"},
        ("version",),
    ),
    (
        "image-source",
        {
            "type": "user_message",
            "id": "e",
            "parentId": None,
            "timestamp": TS,
            "content": [
                {"type": "image", "source": {"type": "url", "mediaType": "image/png", "data": "x"}}
            ],
        },
        ("content", 0, "source", "type"),
    ),
]


@pytest.mark.parametrize(
    ("line", "expected"),
    [pytest.param(line, exp, id=name) for name, line, exp in BOOK_INVALID],
)
def test_book_invalid_line_points_at_offending_field(
    line: dict[str, Any], expected: tuple[Any, ...]
) -> None:
    def_name = "header" if line["type"] == "session_header" else line["type"]
    assert error_paths(validator(BOOK_FILE), line) == [expected]
    assert error_paths(def_validator(BOOK_FILE, def_name), line) == [expected]


def _property_nodes(doc: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, node in _walk(doc, ""):
        for prop, sub in (node.get("properties") or {}).items():
            yield f"{path}/properties/{prop}", sub
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            yield f"{path}/additionalProperties", extra


def test_every_v3_property_says_what_pi_does_with_a_bad_value() -> None:
    """PI200 is graded by these annotations: each names a severity and a consequence."""
    doc = SCHEMA_DOCS[PI_FILES[3]]
    ungraded = []
    for path, node in _property_nodes(doc):
        if "/if/" in path:  # the dispatch conditions are not properties of a line
            continue
        for key in ("x-pi-consequence", "x-pi-consequence-if-missing"):
            grade = node.get(key)
            if grade is None and key == "x-pi-consequence-if-missing":
                continue
            if not (
                isinstance(grade, dict)
                and grade.get("severity") in ("error", "warning", "information")
                and isinstance(grade.get("text"), str)
                and grade["text"].strip()
            ):
                ungraded.append(f"{path}:{key}")
    # an array item that is not even an object is graded on the definition it refers to
    defs = doc["$defs"]
    for path, node in _walk(doc, ""):
        ref = node.get("items", {}).get("$ref") if isinstance(node.get("items"), dict) else None
        if isinstance(ref, str) and "x-pi-consequence" not in defs[ref.rsplit("/", 1)[-1]]:
            ungraded.append(f"{path}/items -> {ref}")
    assert ungraded == []


# (definition, property) pairs pi added to v3 after 0.73.1, and the release that added each
ADDED_AFTER_0_73_1 = {
    ("usage", None): "0.86.0",
    ("context_edit", None): "0.87.0",
    ("SystemMessage", None): "0.86.0",
    ("compaction", "systemMessage"): "0.86.0",
    ("compaction", "usage"): "0.81.0",
    ("compaction", "firstKeptEntryId"): "0.87.0",  # retain-none
    ("branch_summary", "usage"): "0.81.0",
    ("branch_summary", "fromId"): "0.84.3",
    ("thinking_level_change", "thinkingLevel"): "0.80.6",  # "max"
    ("AssistantMessage", "thinkingLevel"): "0.99.0",
    ("AssistantMessage", "providerThinkingLevel"): "0.85.0",
    ("AssistantMessage", "rawStopReason"): "0.83.0",
    ("AssistantMessage", "endTurn"): "0.84.2",
    ("AssistantMessage", "stopReason"): "0.84.0",  # "deferred"
    ("AssistantMessage", "deferred"): "0.84.0",
    ("AssistantMessage", "durationMs"): "1.3.0",
    ("DeferredHandle", None): "0.84.0",
    ("Usage", "cacheWrite1h"): "0.79.4",
    ("Usage", "reasoning"): "0.80.3",
    ("Cost", "totalFromProvider"): "1.5.0",
    ("ToolCall", "namespace"): "0.84.2",
    ("ToolCall", "argumentsError"): "1.3.0",
    ("ToolResultMessage", "usage"): "0.81.0",
    ("ToolResultMessage", "nestedCalls"): "0.99.0",
    ("ToolResultMessage", "durationMs"): "1.1.0",
    ("NestedToolCalls", None): "0.99.0",
    ("header", "id"): "0.76.0",  # custom session ids
}


# kinds pi added after 0.73.1: every field of theirs names the release too
NEW_KINDS = {
    "usage": "0.86.0",
    "context_edit": "0.87.0",
    "SystemMessage": "0.86.0",
    "Tool": "0.86.0",
    "ToolReference": "0.86.0",
    "DeferredHandle": "0.84.0",
    "NestedToolCalls": "0.99.0",
    "NestedToolCallRecord": "0.99.0",
}
SHARED_FIELDS = {"type", "id", "parentId", "timestamp", "role", "replace"}
for _kind, _version in NEW_KINDS.items():
    for _prop in SCHEMA_DOCS[PI_FILES[3]]["$defs"][_kind]["properties"]:
        if _prop not in SHARED_FIELDS:
            ADDED_AFTER_0_73_1[(_kind, _prop)] = _version


@pytest.mark.parametrize(("where", "version"), ADDED_AFTER_0_73_1.items(), ids=str)
def test_fields_added_after_0_73_1_name_their_pi_version(
    where: tuple[str, str | None], version: str
) -> None:
    def_name, prop = where
    node = SCHEMA_DOCS[PI_FILES[3]]["$defs"][def_name]
    if prop is not None:
        node = node["properties"][prop]
    assert f"pi {version}" in node["description"]


def test_hookmessage_role_differs_only_in_name() -> None:
    defs = SCHEMA_DOCS[PI_FILES[3]]["$defs"]
    hook = copy.deepcopy(defs["HookMessage"]["properties"])
    custom = copy.deepcopy(defs["CustomMessage"]["properties"])
    assert hook.pop("role")["const"] == "hookMessage"
    assert custom.pop("role")["const"] == "custom"
    assert {k: v["type"] for k, v in hook.items() if "type" in v} == {
        k: v["type"] for k, v in custom.items() if "type" in v
    }
