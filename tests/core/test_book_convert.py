"""Conversion of book-dialect files to pi v3 (pi_lsp.core.edits.book_convert).

The converted text must analyse clean with pi-lsp's own analysis, keep the tree, the
order and the leaf, and (where node and pi 0.73.1 are available) load in pi's own
``parseSessionEntries`` / ``buildSessionContext`` with the expected context.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.edits.book_convert import CUSTOM_TYPE, NotBookError, convert, convert_text
from pi_lsp.core.entries.model import Analysis

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
DOC_SAMPLE = (DATA / "book-from-doc.jsonl").read_text(encoding="utf-8")
CHAIN_SAMPLE = (DATA / "book-valid.jsonl").read_text(encoding="utf-8")
MODEL = "claude-sonnet-4-20250514"

HEADER = {"type": "session_header", "version": 1, "createdAt": "2026-08-01T09:00:00Z", "cwd": "/w"}


def entry(kind: str, ident: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "id": ident,
        "parentId": parent,
        "timestamp": "2026-08-01T09:00:01Z",
    } | fields


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def use(ident: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": ident, "name": name, "input": args}


def result_block(ident: str, out: str) -> dict[str, Any]:
    return {"type": "tool_result", "toolUseId": ident, "content": [text(out)], "isError": False}


def render(objs: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in objs)


# Tool results the Anthropic way (blocks in the next user message), a tool_call entry
# without a tool_use, and an echo of an answered result.
API_STYLE = render(
    [
        HEADER,
        entry("user_message", "u1", None, content=[text("List files and show the README")]),
        entry(
            "assistant_message",
            "a1",
            "u1",
            modelId="claude-3-5-sonnet",
            content=[use("t1", "bash", command="ls"), use("t2", "read", path="README.md")],
        ),
        entry(
            "user_message",
            "u2",
            "a1",
            content=[result_block("t1", "a b"), result_block("t2", "# readme"), text("Summarise.")],
        ),
        entry(
            "assistant_message",
            "a2",
            "u2",
            modelId="claude-3-5-sonnet",
            content=[use("t3", "bash", command="make")],
        ),
        entry("user_message", "u3", "a2", content=[result_block("t3", "ok")]),
        entry("user_message", "u4", "u3", content=[result_block("t3", "ok again")]),
        entry(
            "assistant_message", "a3", "u4", modelId="claude-3-5-sonnet", content=[text("Now pwd.")]
        ),
        entry("tool_call", "c4", "a3", toolName="bash", toolCallId="t4", input={"command": "pwd"}),
        entry("tool_result", "r4", "c4", toolCallId="t4", output={"content": [text("/")]}),
        entry(
            "assistant_message", "a4", "r4", modelId="claude-3-5-sonnet", content=[text("In /.")]
        ),
    ]
)


def lines_of(converted: str) -> list[dict[str, Any]]:
    assert converted.endswith("\n")
    return [json.loads(line) for line in converted[:-1].split("\n")]


def by_id(objs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["id"]: o for o in objs if "id" in o and o.get("type") != "session"}


def tree_shape(a: Analysis) -> list[tuple[str, str | None]]:
    """(id, parent id) of every entry, in file order."""
    tree = a.tree
    return [
        (tree.id_of[line], tree.id_of.get(p) if (p := tree.parent[line]) is not None else None)
        for line in tree.entries
    ]


# ----------------------------------------------------------------------------- clean output


@pytest.mark.parametrize(
    "source", [DOC_SAMPLE, CHAIN_SAMPLE, API_STYLE], ids=["doc", "chain", "api"]
)
def test_converted_file_checks_clean(source: str) -> None:
    out = convert_text(source)
    a = analyze(out)
    assert (a.fmt, a.version) == ("pi", 3)
    assert [(f.code, f.span.line, f.message) for f in a.findings] == []


@pytest.mark.parametrize("source", [DOC_SAMPLE, CHAIN_SAMPLE], ids=["doc", "chain"])
def test_tree_order_and_leaf_are_preserved(source: str) -> None:
    before, after = analyze(source), analyze(convert_text(source))
    assert tree_shape(after) == tree_shape(before)
    assert before.tree.leaf is not None and after.tree.leaf is not None
    assert after.tree.id_of[after.tree.leaf] == before.tree.id_of[before.tree.leaf]
    assert len(after.lines) == len(before.lines)


def test_conversion_is_deterministic_and_idempotent_in_id() -> None:
    assert convert_text(DOC_SAMPLE) == convert_text(DOC_SAMPLE)
    named = "/s/--w--/2026-08-01T10-00-00-000Z_0190f3a2-aaaa-7bbb-8ccc-0123456789ab.jsonl"
    c = convert(DOC_SAMPLE, named)
    assert c.session_id == "0190f3a2-aaaa-7bbb-8ccc-0123456789ab"
    assert lines_of(c.text)[0]["id"] == c.session_id
    assert not [f for f in analyze(c.text, named).findings if f.code == "PI104"]


def test_an_id_nested_deeper_than_pythons_recursion_limit_converts() -> None:
    header, first, *rest = CHAIN_SAMPLE.split("\n")
    ident = json.loads(first)["id"]
    deep = first.replace(json.dumps(ident), "[" * 1000 + "]" * 1000, 1)  # no Python repr
    text = convert_text("\n".join([header, deep, *rest]))
    assert text.count("\n") > 1 and "\"role\":\"user\"" in text


def test_not_a_book_file() -> None:
    with pytest.raises(NotBookError):
        convert_text('{"type":"session","version":3,"id":"s","timestamp":"t"}\n')


# ----------------------------------------------------------------------------- the mapping


def test_header() -> None:
    head = lines_of(convert_text(DOC_SAMPLE))[0]
    assert head == {
        "type": "session",
        "version": 3,
        "id": head["id"],
        "timestamp": "2026-07-31T12:00:00Z",
        "cwd": "/Users/wuzhiguo/projects/my-app",
        "provider": "anthropic",
        "modelId": MODEL,
        "thinkingLevel": "medium",
    }


def test_assistant_message_with_folded_sibling_thinking() -> None:
    objs = by_id(lines_of(convert_text(DOC_SAMPLE)))
    a = objs["entry-002"]
    assert (a["type"], a["parentId"]) == ("message", "entry-001")
    assert a["message"] == {
        "role": "assistant",
        "content": [
            {
                "type": "thinking",
                "thinking": "The user wants a REST API. I should check the existing project "
                "structure first.",
                "thinkingSignature": "...",
            },
            text("I'll create the endpoint."),
            {
                "type": "toolCall",
                "id": "tc_001",
                "name": "write",
                "arguments": {"path": "src/routes/users.ts", "content": "..."},
            },
        ],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": MODEL,
        "usage": {
            "input": 1500,
            "output": 120,
            "cacheRead": 200,
            "cacheWrite": 0,
            "totalTokens": 1820,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.005},
        },
        "stopReason": "toolUse",
        "timestamp": 1785499203000,
    }
    assert objs["entry-002a"] == {
        "type": "thinking_level_change",
        "id": "entry-002a",
        "parentId": "entry-001",
        "timestamp": "2026-07-31T12:00:02Z",
        "thinkingLevel": "medium",
    }


def test_thinking_folds_into_its_child_assistant() -> None:
    objs = by_id(lines_of(convert_text(CHAIN_SAMPLE)))
    assert objs["entry-002"]["parentId"] == "entry-002a"
    assert [b["type"] for b in objs["entry-002"]["message"]["content"]] == [
        "thinking",
        "text",
        "toolCall",
    ]


def test_thinking_without_an_assistant_or_a_level_becomes_a_placeholder() -> None:
    think = [{"type": "thinking", "text": "hmm", "signature": "s"}]
    source = render(
        [
            HEADER,
            entry("user_message", "u", None, content=[text("hi")]),
            entry("thinking", "t1", "u", content=think),
            entry("assistant_message", "a", "t1", content=[text("yes")]),
            entry("thinking", "t2", "a", content=think, thinkingLevel="high"),
        ]
    )
    objs = by_id(lines_of(convert_text(source)))
    assert objs["t1"]["customType"] == CUSTOM_TYPE
    assert objs["t1"]["data"] == {"type": "thinking", "foldedInto": "a"}
    assert objs["a"]["message"]["content"][0] == {
        "type": "thinking",
        "thinking": "hmm",
        "thinkingSignature": "s",
    }
    assert objs["t2"]["type"] == "custom"
    assert objs["t2"]["data"] == {"type": "thinking", "content": think, "thinkingLevel": "high"}


def test_tool_result_entry_and_tool_call_placeholder() -> None:
    objs = by_id(lines_of(convert_text(DOC_SAMPLE)))
    assert objs["entry-004"]["message"] == {
        "role": "toolResult",
        "toolCallId": "tc_001",
        "toolName": "write",
        "content": [text("File written successfully: src/routes/users.ts (45 lines)")],
        "details": {"bytesWritten": 1200, "lines": 45},
        "isError": False,
        "timestamp": 1785499204000,
    }
    assert objs["entry-003"] == {
        "type": "custom",
        "id": "entry-003",
        "parentId": "entry-002",
        "timestamp": "2026-07-31T12:00:03Z",
        "customType": CUSTOM_TYPE,
        "data": {
            "type": "tool_call",
            "toolName": "write",
            "toolCallId": "tc_001",
            "input": {
                "path": "src/routes/users.ts",
                "content": "import express from 'express';\n...",
            },
        },
    }


def test_compaction_and_branch_summary() -> None:
    objs = by_id(lines_of(convert_text(DOC_SAMPLE)))
    comp = objs["entry-010"]
    # entry-008 is the last summarized entry on the compaction's path; entry-009 follows it
    assert comp["firstKeptEntryId"] == "entry-009"
    assert comp["tokensBefore"] == 1500 + 45 + 200
    assert comp["details"] == {
        "modelId": MODEL,
        "summarizedEntryIds": [f"entry-00{n}" for n in range(1, 9)],
        "filesMentioned": ["src/routes/users.ts", "src/models/User.ts", "src/routes/users.test.ts"],
        "tokenCount": 350,
    }
    branch = objs["entry-015"]
    assert (branch["fromId"], branch["parentId"]) == ("entry-005", "entry-005")
    assert branch["details"] == {"modelId": MODEL, "summarizedEntryIds": ["entry-006", "entry-007"]}


@pytest.mark.parametrize(
    ("summarized", "kept"),
    [(None, "c"), (["elsewhere"], "u"), (["u", "a"], "c"), (["u"], "a")],
)
def test_first_kept_entry(summarized: list[str] | None, kept: str) -> None:
    comp = entry("compaction", "c", "a", summary="s")
    if summarized is not None:
        comp["summarizedEntryIds"] = summarized
    source = render(
        [
            HEADER,
            entry("user_message", "u", None, content=[text("hi")]),
            entry("assistant_message", "a", "u", content=[text("yes")]),
            comp,
            entry("user_message", "elsewhere", None, content=[text("other root")]),
        ]
    )
    out = convert_text(source)
    assert by_id(lines_of(out))["c"]["firstKeptEntryId"] == kept
    assert analyze(out).findings == []


def test_tool_results_in_user_messages_are_split_out() -> None:
    conversion = convert(API_STYLE)
    objs = lines_of(conversion.text)
    kinds = [(o.get("id"), o.get("parentId"), o.get("message", {}).get("role")) for o in objs[1:]]
    split1, split2 = kinds[2][0], kinds[3][0]
    assert kinds == [
        ("u1", None, "user"),
        ("a1", "u1", "assistant"),
        (split1, "a1", "toolResult"),
        (split2, split1, "toolResult"),
        ("u2", split2, "user"),
        ("a2", "u2", "assistant"),
        ("u3", "a2", "toolResult"),  # only a tool result: the split takes the id
        ("u4", "u3", None),  # only an echo of an answered result: a placeholder
        ("a3", "u4", "assistant"),
        ("c4", "a3", None),
        ("r4", "c4", "toolResult"),
        ("a4", "r4", "assistant"),
    ]
    assert objs[3]["message"] == {
        "role": "toolResult",
        "toolCallId": "t1",
        "toolName": "bash",
        "content": [text("a b")],
        "isError": False,
        "timestamp": 1785574801000,
    }
    assert objs[5]["message"]["content"] == [text("Summarise.")]
    assert objs[8]["data"]["content"] == [result_block("t3", "ok again")]
    assert objs[2]["message"]["provider"] == "anthropic"  # guessed from the model id


def test_tool_call_without_tool_use_is_folded_into_the_assistant() -> None:
    assert {f.code for f in analyze(API_STYLE).findings} == {"PI105", "PI420"}
    objs = by_id(lines_of(convert_text(API_STYLE)))
    message = objs["a3"]["message"]
    assert message["content"][-1] == {
        "type": "toolCall",
        "id": "t4",
        "name": "bash",
        "arguments": {"command": "pwd"},
    }
    assert message["stopReason"] == "toolUse"
    assert objs["c4"]["data"]["foldedInto"] == "a3"
    assert objs["r4"]["message"]["toolName"] == "bash"


def test_what_is_not_carried_over_is_listed() -> None:
    assert [str(loss) for loss in convert(DOC_SAMPLE).losses] == [
        "line 3: modelId: no pi field for a thinking level change",
        "line 4: durationMs: no pi field for an assistant message",
        "line 4: thinkingLevel: no pi field for an assistant message",
        "line 6: durationMs: no pi field for a tool result",
        "line 8: durationMs: no pi field for an assistant message",
        "line 12: durationMs: no pi field for an assistant message",
        "line 15: durationMs: no pi field for an assistant message",
    ]
    chain = [str(loss) for loss in convert(CHAIN_SAMPLE).losses]
    assert (
        "line 7: content[0]: dropped: a tool result for 'tc_001' already answers this call (line 6)"
        in chain
    )


def test_broken_lines_are_kept_and_listed() -> None:
    source = DOC_SAMPLE + "[1,2]\n" + '{"type":"user_message","id":"x"'
    conversion = convert(source)
    assert conversion.text.endswith('[1,2]\n{"type":"user_message","id":"x"\n')
    assert [str(loss) for loss in conversion.losses][-2:] == [
        "line 16: (line): kept as is: not a book entry (pi skips such lines)",
        "line 17: (line): kept as is: not a book entry (pi skips such lines)",
    ]


def test_odd_blocks_are_dropped_and_listed() -> None:
    source = render(
        [
            HEADER | {"extra": 1},
            entry(
                "user_message",
                "u",
                None,
                content=[text("hi"), {"type": "thinking", "text": "?"}],
            ),
            entry(
                "assistant_message",
                "a",
                "u",
                content=[
                    {
                        "type": "image",
                        "source": {"type": "base64", "mediaType": "image/png", "data": "AA=="},
                    },
                    text("ok"),
                ],
                usage={"inputTokens": 1, "outputTokens": 2, "reasoningTokens": 3},
            ),
        ]
    )
    conversion = convert(source)
    assert [str(loss) for loss in conversion.losses] == [
        "line 1: extra: no pi header field",
        "line 2: content[1]: a thinking block has no place in pi's user and tool result "
        "content: dropped",
        "line 3: content[0]: a image block has no place in pi's assistant content: dropped",
        "line 3: usage.reasoningTokens: no pi usage field",
    ]
    assert analyze(conversion.text).findings == []


def test_huge_lines_are_converted_in_full() -> None:
    data = "A" * 600_000
    image = {"type": "image", "source": {"type": "base64", "mediaType": "image/png", "data": data}}
    source = render([HEADER, entry("user_message", "u", None, content=[text("look"), image])])
    [_, user] = lines_of(convert_text(source))
    assert user["message"]["content"][1] == {"type": "image", "data": data, "mimeType": "image/png"}


# ----------------------------------------------------------------------------- pi's own loader


def _oracle() -> Any:
    sys.path.insert(0, str(ROOT / "tests" / "conformance"))
    try:
        import pi_install
    except ImportError:
        pytest.skip("tests/conformance/pi_install.py not available")
    finally:
        sys.path.pop(0)
    modules = pi_install.find_pi()
    if modules is None:
        pytest.skip("pi (node + npm package) not available")

    def run(path: Path, leaf: str | None = None) -> dict[str, Any]:
        args: list[str | os.PathLike[str]] = ["load", path]
        if leaf is not None:
            args += ["--leaf", leaf]
        result: dict[str, Any] = pi_install.run_oracle(args, modules=modules)
        return result

    return run


def roles(result: dict[str, Any]) -> list[tuple[str, int | None]]:
    return [(m["role"], m["line"]) for m in result["context"]["messages"]]


PI_MODEL = {"provider": "anthropic", "modelId": MODEL}


@pytest.mark.parametrize(
    ("leaf", "expected", "thinking"),
    [
        (
            None,
            [("compactionSummary", 12), ("assistant", 11), ("user", 13), ("assistant", 14)],
            "off",
        ),
        (
            "entry-007",
            [
                ("user", 1),
                ("assistant", 3),
                ("toolResult", 5),
                ("user", 6),
                ("assistant", 7),
                ("user", 8),
            ],
            "off",
        ),
        (
            "entry-009",
            [
                ("user", 1),
                ("assistant", 3),
                ("toolResult", 5),
                ("user", 6),
                ("branchSummary", 9),
                ("user", 10),
                ("assistant", 11),
            ],
            "off",
        ),
    ],
)
def test_pi_loads_the_converted_doc_sample(
    tmp_path: Path, leaf: str | None, expected: list[tuple[str, int]], thinking: str
) -> None:
    run = _oracle()
    path = tmp_path / "converted.jsonl"
    path.write_text(convert_text(DOC_SAMPLE), encoding="utf-8")
    result = run(path, leaf)
    assert result["pi_accepts"] is True
    assert (result["version_before"], result["version_after"]) == (3, 3)
    assert "error" not in result
    assert result["leafId"] == (leaf or "entry-012")
    assert roles(result) == expected
    assert result["context"]["thinkingLevel"] == thinking
    assert result["context"]["model"] == PI_MODEL
    messages = result["context"]["messages"]
    if leaf == "entry-009":
        assert messages[4]["fromId"] == "entry-005"
        assert messages[1]["toolCallIds"] == ["tc_001"]
        assert messages[1]["content_types"] == ["thinking", "text", "toolCall"]


def test_pi_loads_the_converted_chain_and_api_samples(tmp_path: Path) -> None:
    run = _oracle()
    chain = tmp_path / "chain.jsonl"
    chain.write_text(convert_text(CHAIN_SAMPLE), encoding="utf-8")
    result = run(chain, "entry-006")
    assert [m["role"] for m in result["context"]["messages"]] == [
        "user",
        "assistant",
        "toolResult",
        "user",
        "assistant",
    ]
    assert result["context"]["thinkingLevel"] == "medium"  # the thinking entry is on the path

    api = tmp_path / "api.jsonl"
    api.write_text(convert_text(API_STYLE), encoding="utf-8")
    result = run(api)
    got = [
        (m["role"], m.get("toolCallId") or m.get("toolCallIds"))
        for m in result["context"]["messages"]
    ]
    assert got == [
        ("user", None),
        ("assistant", ["t1", "t2"]),
        ("toolResult", "t1"),
        ("toolResult", "t2"),
        ("user", None),
        ("assistant", ["t3"]),
        ("toolResult", "t3"),
        ("assistant", ["t4"]),
        ("toolResult", "t4"),
        ("assistant", []),
    ]
    assert result["context"]["model"] == {"provider": "anthropic", "modelId": "claude-3-5-sonnet"}


# ----------------------------------------------------------------------------- mutation tests
# (tests/MUTATION.md): behaviour the tests above do not pin.

NAMED = "/s/--w--/2026-08-01T10-00-00-000Z_0190f3a2-aaaa-7bbb-8ccc-0123456789ab.jsonl"


def test_convert_text_keeps_the_id_in_the_file_name() -> None:
    assert lines_of(convert_text(DOC_SAMPLE, NAMED))[0]["id"] == (
        "0190f3a2-aaaa-7bbb-8ccc-0123456789ab"
    )


def test_not_a_book_file_says_why() -> None:
    # the LSP's convert command shows this message to the user
    with pytest.raises(NotBookError, match=r"^not a book-dialect session file \(no session_header"):
        convert_text('{"type":"session","version":3,"id":"s","timestamp":"t"}\n')


def test_session_id_without_a_name_is_a_uuid_of_the_text() -> None:
    first, second = convert(DOC_SAMPLE).session_id, convert(CHAIN_SAMPLE).session_id
    assert first != second
    assert str(uuid.UUID(first)) == first and uuid.UUID(first).version == 5
    assert convert(DOC_SAMPLE, "/s/not-a-pi-name.jsonl").session_id == first


def test_a_lone_surrogate_is_converted() -> None:
    # a file read with surrogate escapes (undecodable bytes) holds lone surrogates
    source = render([HEADER]) + '{"type":"user_message","id":"u\udcff","parentId":null}\n'
    conversion = convert(source)
    assert uuid.UUID(conversion.session_id)
    assert lines_of(conversion.text)[1]["id"] == "u\udcff"


def test_a_block_of_a_container_type_is_named_as_json() -> None:
    source = render(
        [
            HEADER,
            entry("user_message", "u", None, content=[{"type": {"k": "v"}}, {"type": ["x"]}]),
        ]
    )
    assert [str(loss) for loss in convert(source).losses] == [
        'line 2: content[0]: a {"k":"v"} block has no place in pi\'s user and tool result '
        "content: dropped",
        'line 2: content[1]: a ["x"] block has no place in pi\'s user and tool result '
        "content: dropped",
    ]


def test_thinking_at_the_root_folds_into_the_next_root_assistant() -> None:
    think = [{"type": "thinking", "text": "hmm"}]
    source = render(
        [
            HEADER,
            entry("thinking", "t", None, content=think, thinkingLevel="low"),
            entry("assistant_message", "a", None, content=[text("yes")]),
        ]
    )
    objs = by_id(lines_of(convert_text(source)))
    assert objs["t"] == {
        "type": "thinking_level_change",
        "id": "t",
        "parentId": None,
        "timestamp": "2026-08-01T09:00:01Z",
        "thinkingLevel": "low",
    }
    assert objs["a"]["message"]["content"] == [{"type": "thinking", "thinking": "hmm"}, text("yes")]


def test_missing_or_odd_usage_numbers_count_as_zero() -> None:
    source = render(
        [
            HEADER,
            entry("user_message", "u", None, content=[text("hi")]),
            entry(
                "assistant_message",
                "a",
                "u",
                content=[text("yes")],
                usage={"inputTokens": 5, "outputTokens": True, "cacheReadTokens": "7"},
            ),
        ]
    )
    usage = by_id(lines_of(convert_text(source)))["a"]["message"]["usage"]
    assert usage == {
        "input": 5,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 5,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


@pytest.mark.parametrize(
    ("stamp", "millis"),
    [
        ("2026-08-01T09:00:01Z", 1785574801000),
        ("2026-08-01T09:00:01", 1785574801000),  # no zone: UTC
        ("2026-08-01T11:00:01+02:00", 1785574801000),
        ("2026-08-01T09:00:01.250Z", 1785574801250),
        ("yesterday", None),
        (1785574801000, None),
    ],
)
def test_message_timestamps_are_unix_milliseconds(stamp: Any, millis: int | None) -> None:
    user = entry("user_message", "u", None, content=[text("hi")])
    user["timestamp"] = stamp
    [_, out] = lines_of(convert_text(render([HEADER, user])))
    assert out["timestamp"] == stamp  # the entry keeps the book's
    assert out["message"].get("timestamp") == millis


def test_every_block_kind_and_what_each_loses() -> None:
    source = render(
        [
            HEADER,
            entry(
                "user_message",
                "u",
                None,
                mood="x",
                content=[
                    {"type": "text", "text": "hi", "cache": 1},
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "mediaType": "image/jpeg",
                            "data": "AA==",
                            "url": "x",
                        },
                    },
                    {"type": "image", "source": {"data": "BB==", "mediaType": 5}},
                    {"type": "image", "source": {"mediaType": "image/png"}},
                    {"type": "image"},
                    "bare",
                    {"text": "no type"},
                ],
            ),
            entry(
                "assistant_message",
                "a",
                "u",
                content=[
                    {"type": "text", "text": "ok", "citations": []},
                    {"type": "thinking", "thinking": "deep", "signature": "sig", "redacted": False},
                    {"type": "thinking", "text": 5},
                    {"type": "tool_use", "id": "t1", "name": "bash", "input": "ls", "cache": {}},
                    {"type": "text", "text": 7},
                    "junk",
                ],
            ),
            entry(
                "user_message",
                "u2",
                "a",
                content=[
                    {
                        "type": "tool_result",
                        "toolUseId": "t1",
                        "content": [{"type": "text", "text": "out", "x": 1}, {"type": "video"}],
                        "isError": True,
                        "hint": 2,
                    }
                ],
            ),
            entry(
                "thinking",
                "th",
                "u2",
                note=1,
                thinkingLevel="high",
                content=[
                    {"type": "text", "text": "plan", "signature": "s2", "extra": 1},
                    {"type": "image"},
                    3,
                ],
            ),
            entry("assistant_message", "a2", "th", content=[text("done")]),
        ]
    )
    conversion = convert(source)
    objs = by_id(lines_of(conversion.text))
    assert objs["u"]["message"]["content"] == [
        text("hi"),
        {"type": "image", "data": "AA==", "mimeType": "image/jpeg"},
        {"type": "image", "data": "BB==", "mimeType": "image/png"},
    ]
    assert objs["a"]["message"]["content"] == [
        text("ok"),
        {"type": "thinking", "thinking": "deep", "thinkingSignature": "sig"},
        {"type": "thinking", "thinking": ""},
        {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {}},
        text(""),
    ]
    assert objs["a"]["message"]["stopReason"] == "toolUse"
    assert objs["u2"]["message"] == {
        "role": "toolResult",
        "toolCallId": "t1",
        "toolName": "bash",
        "content": [text("out")],
        "isError": True,
        "timestamp": 1785574801000,
    }
    assert objs["th"]["type"] == "thinking_level_change"
    assert objs["a2"]["message"]["content"] == [
        {"type": "thinking", "thinking": "plan", "thinkingSignature": "s2"},
        text("done"),
    ]
    assert [str(loss) for loss in conversion.losses] == [
        "line 2: content[0].cache: no pi field",
        "line 2: content[1].source.url: no pi field",
        "line 2: content[3]: image without base64 data: dropped",
        "line 2: content[4]: image without base64 data: dropped",
        "line 2: content[5]: a malformed block has no place in pi's user and tool result "
        "content: dropped",
        "line 2: content[6]: a malformed block has no place in pi's user and tool result "
        "content: dropped",
        "line 2: mood: no pi field for a user message",
        "line 3: content[0].citations: no pi field",
        "line 3: content[1].redacted: no pi field",
        "line 3: content[3].cache: no pi field",
        "line 3: content[5]: a malformed block has no place in pi's assistant content: dropped",
        "line 4: content[0].hint: no pi field",
        "line 4: content[0].content[0].x: no pi field",
        "line 4: content[0].content[1]: a video block has no place in pi's user and tool result "
        "content: dropped",
        "line 5: content[0].extra: no pi field",
        "line 5: content[1]: a image block in a thinking entry: dropped",
        "line 5: content[2]: a malformed block in a thinking entry: dropped",
        "line 5: note: no pi field for a thinking level change",
    ]


def test_summaries_and_unknown_entries() -> None:
    source = render(
        [
            HEADER,
            entry("user_message", "u", None, content=[text("hi")]),
            entry(
                "assistant_message",
                "a",
                "u",
                content=[text("yes")],
                usage={
                    "inputTokens": 1,
                    "outputTokens": 2,
                    "cacheReadTokens": 4,
                    "cacheWriteTokens": 8,
                },
            ),
            entry("compaction", "c", "a", summary="what happened"),
            entry("branch_summary", "b1", "c", summary="left", branchRootId="u"),
            entry("branch_summary", "b2", "c", summary=5),
            entry("branch_summary", "b3", None),
            entry("compaction", "c2", None, summary=None),
            entry("bookmark", "k", "b1", label="here"),
        ]
    )
    objs = by_id(lines_of(convert_text(source)))
    assert objs["c"] == {
        "type": "compaction",
        "id": "c",
        "parentId": "a",
        "timestamp": "2026-08-01T09:00:01Z",
        "summary": "what happened",
        "firstKeptEntryId": "c",
        "tokensBefore": 15,  # the context at the last assistant message: every usage count
    }
    assert objs["c2"] | {"timestamp": None} == {
        "type": "compaction",
        "id": "c2",
        "parentId": None,
        "timestamp": None,
        "summary": "",
        "firstKeptEntryId": "c2",
        "tokensBefore": 0,  # no assistant message before it
    }
    assert [(objs[b]["fromId"], objs[b]["summary"]) for b in ("b1", "b2", "b3")] == [
        ("u", "left"),
        ("c", ""),
        ("root", ""),
    ]
    assert objs["k"] == {
        "type": "custom",
        "id": "k",
        "parentId": "b1",
        "timestamp": "2026-08-01T09:00:01Z",
        "customType": CUSTOM_TYPE,
        "data": {"type": "bookmark", "label": "here"},
    }


def test_compaction_keeps_the_first_split_tool_result() -> None:
    # the kept entry is a user message whose tool result is split out before it: pi keeps
    # from the split, the first line the user message became
    source = render(
        [
            HEADER,
            entry("user_message", "u", None, content=[text("go")]),
            entry("assistant_message", "a", "u", content=[use("t1", "bash")]),
            entry("user_message", "u2", "a", content=[result_block("t1", "x"), text("and?")]),
            entry("compaction", "c", "u2", summary="s", summarizedEntryIds=["u", "a"]),
        ]
    )
    objs = lines_of(convert_text(source))
    split = objs[3]
    assert (split["parentId"], split["message"]["role"], objs[4]["id"]) == ("a", "toolResult", "u2")
    assert objs[5]["firstKeptEntryId"] == split["id"] != "u2"


def test_tool_result_entries() -> None:
    source = render(
        [
            HEADER,
            entry("user_message", "u", None, content=[text("go")]),
            entry("assistant_message", "a", "u", content=[use("t1", "read")]),
            entry("tool_call", "c", "a", toolCallId="t2", input={"x": 1}),
            entry(
                "tool_result", "r1", "c", toolCallId="t1", isError=True, extra=1, output={"meta": 2}
            ),
            entry("tool_result", "r2", "r1", toolCallId="t2", output="text"),
            entry(
                "tool_result",
                "r3",
                "r2",
                toolCallId="t3",
                output={"content": [text("a"), {"type": "audio"}, text("b")]},
            ),
        ]
    )
    conversion = convert(source)
    objs = by_id(lines_of(conversion.text))
    messages = [objs[r]["message"] for r in ("r1", "r2", "r3")]
    assert [(m["toolName"], m["isError"], m["content"]) for m in messages] == [
        ("read", True, []),  # the name of its tool_use
        ("unknown", False, []),  # its tool_call has no name
        ("unknown", False, [text("a"), text("b")]),
    ]
    # the tool_call entry without a tool_use is added to the assistant message
    assert objs["a"]["message"]["content"][-1] == {
        "type": "toolCall",
        "id": "t2",
        "name": "unknown",
        "arguments": {"x": 1},
    }
    assert [str(loss) for loss in conversion.losses] == [
        "line 5: output.meta: no pi field",
        "line 5: extra: no pi field for a tool result",
        "line 6: output: not an object: dropped",
        "line 7: output.content[1]: a audio block has no place in pi's user and tool result "
        "content: dropped",
    ]


def test_tool_calls_folded_into_the_assistant_above() -> None:
    source = render(
        [
            HEADER,
            entry("tool_call", "c0", None, toolName="bash", toolCallId="t0"),
            entry("user_message", "u", "c0", content=[text("go")]),
            entry("assistant_message", "a", "u", content=[use("t1", "read")]),
            entry("tool_call", "c1", "a", toolName="read", toolCallId="t1"),  # has its tool_use
            entry("tool_call", "c2", "c1", toolName="bash", toolCallId="t2", input="ls"),
            entry("tool_call", "c3", "c2", toolName="bash", toolCallId="t2", input={"a": 1}),
            entry("tool_result", "r9", "c3", toolCallId="t9", output={"content": [text("?")]}),
            entry("tool_call", "c4", "r9", toolName="grep", toolCallId="t4", input={"p": "x"}),
        ]
    )
    conversion = convert(source)
    objs = by_id(lines_of(conversion.text))
    assert objs["a"]["message"]["content"] == [
        {"type": "toolCall", "id": "t1", "name": "read", "arguments": {}},
        {"type": "toolCall", "id": "t2", "name": "bash", "arguments": {}},  # once
        {"type": "toolCall", "id": "t4", "name": "grep", "arguments": {"p": "x"}},
    ]
    assert [objs[c]["data"].get("foldedInto") for c in ("c0", "c1", "c2", "c3", "c4")] == [
        None,
        None,
        "a",
        "a",
        "a",
    ]
    assert [str(loss) for loss in conversion.losses] == [
        "line 2: toolCallId: no tool_use with this id and no assistant_message above to add "
        "the call to",
    ]


def test_provider_and_model_of_an_assistant_message() -> None:
    def provider_model(header: dict[str, Any], **fields: Any) -> tuple[Any, ...]:
        source = render(
            [header, entry("assistant_message", "a", None, content=[text("x")], **fields)]
        )
        message = lines_of(convert_text(source))[1]["message"]
        return message.get("api"), message["provider"], message["model"]

    assert provider_model(HEADER) == (None, "unknown", "unknown")
    assert provider_model(HEADER, modelId="openrouter/anthropic/claude-x") == (
        "anthropic-messages",
        "anthropic",
        "openrouter/anthropic/claude-x",
    )
    assert provider_model(HEADER, modelId="Grok 4") == (None, "xai", "Grok 4")
    assert provider_model(HEADER | {"model": "gemini-2.5-pro"}) == (
        "google-generative-ai",
        "google",
        "gemini-2.5-pro",
    )
    assert provider_model(HEADER | {"model": "m", "provider": "openai"}, modelId="n") == (
        "openai-responses",
        "openai",
        "n",
    )
    assert provider_model(HEADER | {"provider": "acme"}, modelId="gpt-5") == (None, "acme", "gpt-5")


def _split_ids(objs: list[dict[str, Any]]) -> list[str]:
    return [o["id"] for o in objs if o.get("message", {}).get("role") == "toolResult"]


def test_split_tool_result_ids_are_fresh_stable_pi_ids() -> None:
    calls = entry("assistant_message", "a", "u", content=[use("t1", "bash"), use("t2", "bash")])
    late = entry(
        "user_message", "u2", "a", content=[result_block("t1", "x"), result_block("t2", "y")]
    )
    base = [HEADER, entry("user_message", "u", None, content=[text("go")]), calls, late]
    ids = _split_ids(lines_of(convert_text(render(base))))
    assert len(ids) == 2 and ids[1] == "u2"  # nothing else left: the last takes the id
    assert re.fullmatch("[0-9a-f]{8}", ids[0])  # pi's own ids are 8 hex digits
    # another message's splits before it do not change its ids
    early = [
        entry("assistant_message", "a0", None, content=[use("t0", "bash")]),
        entry("user_message", "u0", "a0", content=[result_block("t0", "z"), text("more")]),
    ]
    both = lines_of(convert_text(render([HEADER, *early, *base[1:]])))
    assert _split_ids(both)[1:] == ids
    # an id already in the file is not given twice
    taken = entry("user_message", ids[0], None, content=[text("mine")])
    again = lines_of(convert_text(render([*base, taken])))
    assert len({o["id"] for o in again[1:]}) == len(again) - 1
    assert _split_ids(again)[0] not in (ids[0], "u2")


def test_split_ids_of_a_message_whose_id_has_a_lone_surrogate() -> None:
    source = render(
        [HEADER, entry("assistant_message", "a", None, content=[use("t1", "bash")])]
    ) + (
        '{"type":"user_message","id":"u\\udcff","parentId":"a","content":['
        '{"type":"tool_result","toolUseId":"t1","content":[]},{"type":"text","text":"k"}]}\n'
    )
    objs = lines_of(convert_text(source))
    assert [o["id"] for o in objs[2:]][1] == "u\udcff"
    assert re.fullmatch("[0-9a-f]{8}", objs[2]["id"])


def test_repeated_and_answered_tool_results() -> None:
    source = render(
        [
            HEADER,
            entry("assistant_message", "a", None, content=[use("t1", "bash")]),
            # on another branch: answers t1 there, not here
            entry("user_message", "x", "a", content=[result_block("t1", "other")]),
            entry(
                "user_message",
                "u",
                "a",
                content=[result_block("t1", "once"), result_block("t1", "twice")],
            ),
        ]
    )
    conversion = convert(source)
    objs = by_id(lines_of(conversion.text))
    assert objs["u"]["message"]["content"] == [text("once")]
    assert objs["x"]["message"]["content"] == [text("other")]
    assert [str(loss) for loss in conversion.losses] == [
        "line 4: content[1]: dropped: a tool result for 't1' already answers this call "
        "(this message)",
    ]


def test_null_fields_that_are_lost() -> None:
    source = render(
        [
            HEADER,
            entry("user_message", "u", None, content=[text("hi")], modelId=None, mood=None),
            entry("user_message", "v", "u", content=[text("hi")], modelId="m"),
        ]
    )
    assert [str(loss) for loss in convert(source).losses] == [
        "line 2: mood: no pi field for a user message",  # a null modelId is no loss
        "line 3: modelId: no pi field for a user message",
    ]


def test_which_assistant_a_thinking_entry_folds_into() -> None:
    think = [{"type": "thinking", "text": "hmm"}]
    source = render(
        [
            HEADER,
            entry("user_message", "u", None, content=[text("hi")]),
            # no assistant after it: not folded (a later user sibling does not count)
            entry("thinking", "t0", "u", thinkingLevel="low", content=think),
            entry("user_message", "s", "u", content=[text("sibling")]),
            # folded into the next assistant sibling, after one that is not folded
            entry("thinking", "t1", "s", thinkingLevel="low"),
            entry("thinking", "t2", "s", thinkingLevel="high", content=think),
            entry("assistant_message", "a", "s", content=[text("yes")]),
            # odd parent ids: nothing to fold into
            entry("thinking", "t3", [1], content=think),
            entry("assistant_message", "b", [1], content=[text("odd")]),
        ]
    )
    objs = by_id(lines_of(convert_text(source)))
    assert objs["t0"]["type"] == "custom" and objs["t0"]["data"]["content"] == think
    assert [objs[t]["type"] for t in ("t1", "t2")] == ["thinking_level_change"] * 2
    # t1 (no blocks) and t2 both precede a; a placeholder keeps no folded blocks
    assert objs["a"]["message"]["content"] == [
        {"type": "thinking", "thinking": "hmm"},
        text("yes"),
    ]
    assert objs["t3"]["type"] == "custom"
    assert objs["b"]["message"]["content"] == [text("odd")]


def test_a_folded_thinking_entry_without_a_level_keeps_no_content() -> None:
    source = render(
        [
            HEADER,
            entry("thinking", "t", None),
            entry("assistant_message", "a", "t", content=[text("yes")]),
        ]
    )
    objs = by_id(lines_of(convert_text(source)))
    assert objs["t"]["data"] == {"type": "thinking", "foldedInto": "a"}


def test_the_thinking_text_of_a_block_is_not_listed_as_lost() -> None:
    # a block may carry its text as the book's `text` or as Anthropic's `thinking`: the one
    # used is carried over, only a `thinking` beside a `text` is lost
    blocks = [
        {"type": "thinking", "thinking": "a"},
        {"type": "thinking", "text": "b", "thinking": "c"},
    ]
    source = render(
        [
            HEADER,
            entry("thinking", "t", None, thinkingLevel="low", content=blocks),
            entry("assistant_message", "a", "t", content=blocks),
        ]
    )
    conversion = convert(source)
    thinking = [{"type": "thinking", "thinking": "a"}, {"type": "thinking", "thinking": "b"}]
    assert by_id(lines_of(conversion.text))["a"]["message"]["content"] == thinking * 2
    assert [str(loss) for loss in conversion.losses] == [
        "line 2: content[1].thinking: no pi field",
        "line 3: content[1].thinking: no pi field",
    ]


def test_a_timestamp_without_a_zone_is_utc_in_any_local_zone() -> None:
    user = entry("user_message", "u", None, content=[text("hi")])
    user["timestamp"] = "2026-08-01T09:00:01"
    source = render([HEADER, user])
    old = os.environ.get("TZ")
    os.environ["TZ"] = "America/New_York"
    time.tzset()
    try:
        [_, out] = lines_of(convert_text(source))
    finally:
        if old is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = old
        time.tzset()
    assert out["message"]["timestamp"] == 1785574801000


def test_messages_with_one_id_get_different_split_ids() -> None:
    calls = entry("assistant_message", "a", None, content=[use("t1", "bash"), use("t2", "bash")])
    results = [result_block("t1", "x"), result_block("t2", "y"), text("k")]
    source = render(
        [
            HEADER,
            calls,
            entry("user_message", "u", "a", content=results),
            entry("user_message", "u", "a", content=results),
        ]
    )
    ids = _split_ids(lines_of(convert_text(source)))
    assert len(ids) == 4 == len(set(ids))


def test_odd_entries_keep_all_their_fields() -> None:
    source = render(
        [
            HEADER,
            {"type": "session_header", "createdAt": 5},  # a second header: no entry
            entry("bookmark", "k", None, content=[text("kept")]),
            entry("tool_call", "c", "k", toolName="bash", toolCallId="t", content="x"),
            entry("assistant_message", "a", "c", content=[text("no call")]),
            entry("compaction", 7, "a", summary="s"),
        ]
    )
    objs = lines_of(convert_text(source))
    assert objs[1] == {"type": "session_header", "createdAt": 5}  # copied as it is
    assert objs[2]["data"] == {"type": "bookmark", "content": [text("kept")]}
    assert objs[3]["data"]["content"] == "x"
    assert objs[4]["message"]["stopReason"] == "stop"
    assert "firstKeptEntryId" not in objs[5]  # an id that is no string names no entry


def test_a_header_without_a_creation_time() -> None:
    head = lines_of(convert_text(render([{"type": "session_header", "createdAt": 5}])))[0]
    assert head["timestamp"] == ""


def test_a_tool_result_entry_keeps_its_own_tool_name() -> None:
    source = render(
        [
            HEADER,
            entry("assistant_message", "a", None, content=[use("t1", "read")]),
            entry("tool_result", "r", "a", toolCallId="t1", toolName="cat", output={"content": []}),
        ]
    )
    assert by_id(lines_of(convert_text(source)))["r"]["message"]["toolName"] == "cat"


def test_a_huge_assistant_message_gets_no_second_tool_call() -> None:
    # the analysis keeps a long line's texts cut short (model.SLIM_KEEP) but its ids whole,
    # so the long tool_use id there is found for the tool_call entry below it
    big, ident = text("A" * 600_000), "t" * 9000
    source = render(
        [
            HEADER,
            entry("assistant_message", "a", None, content=[big, use(ident, "bash")]),
            entry("tool_call", "c", "a", toolName="bash", toolCallId=ident),
        ]
    )
    content = by_id(lines_of(convert_text(source)))["a"]["message"]["content"]
    assert [b["type"] for b in content] == ["text", "toolCall"]


def test_content_that_is_no_list_is_listed_as_lost() -> None:
    source = render(
        [
            HEADER,
            entry("user_message", "u", None, content="hi"),
            entry("thinking", "t", "u", thinkingLevel="low", content={"text": "hmm"}),
            entry("assistant_message", "a", "t", content="yes", modelId=None),
            entry(
                "user_message",
                "u2",
                "a",
                content=[{"type": "tool_result", "toolUseId": "t9", "content": "out"}],
            ),
            entry("tool_result", "r", "u2", toolCallId="t8", output={"content": 5}),
            entry("user_message", "u3", "r", content=None),
        ]
    )
    conversion = convert(source)
    objs = by_id(lines_of(conversion.text))
    assert [objs[i]["message"]["content"] for i in ("u", "a", "u2", "r", "u3")] == [[]] * 5
    assert objs["u2"]["message"]["toolName"] == "unknown"  # no tool_use has its id
    assert [str(loss) for loss in conversion.losses] == [
        "line 2: content: not a list of blocks: dropped",
        "line 3: content: not a list of blocks: dropped",
        "line 4: content: not a list of blocks: dropped",
        "line 5: content[0].content: not a list of blocks: dropped",
        "line 6: output.content: not a list of blocks: dropped",
    ]


def test_results_after_a_repeated_one_are_still_split_out() -> None:
    source = render(
        [
            HEADER,
            entry("assistant_message", "a", None, content=[use("t1", "bash"), use("t2", "bash")]),
            entry(
                "user_message",
                "u",
                "a",
                content=[result_block("t1", "x"), result_block("t1", "y"), result_block("t2", "z")],
            ),
        ]
    )
    objs = lines_of(convert_text(source))
    assert [(o["message"]["toolCallId"], o["message"]["content"]) for o in objs[2:]] == [
        ("t1", [text("x")]),
        ("t2", [text("z")]),
    ]


def test_a_split_id_skips_every_id_already_taken() -> None:
    calls = entry("assistant_message", "a", None, content=[use("t1", "bash")])
    user = entry("user_message", "u", "a", content=[result_block("t1", "x"), text("k")])
    base = [HEADER, calls, user]
    taken: list[str] = []
    for _ in range(3):
        extra = [entry("user_message", i, None, content=[text("mine")]) for i in taken]
        [split] = _split_ids(lines_of(convert_text(render(base + extra))))
        assert split not in taken
        taken.append(split)
