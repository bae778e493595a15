"""The conversation model and its rendering (issue 42): what is sent and what is not, where
the newest compaction stands, branches, escaping, folding and redaction."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.views.conversation import UnknownLeaf, conversation
from pi_lsp.core.views.redact import redact
from pi_lsp.core.views.render import MAX_LINES, html_fragment, markdown
from tests.core.pi_sessions import TS, assistant, doc, entry, header, js, result, user
from tests.robustness.settings import bounded

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def conv(*lines: str, leaf: str | None = None):  # type: ignore[no-untyped-def]
    return conversation(analyze(doc(header(), *lines)), leaf)


def kinds(c) -> list[tuple[int, str, str | None]]:  # type: ignore[no-untyped-def]
    return [(i.line, i.kind, i.not_sent) for i in c.items]


def test_compaction_stands_before_what_it_keeps() -> None:
    c = conv(
        user("u1", None, "old"),
        assistant("a1", "u1", "old answer"),
        user("u2", "a1", "kept"),
        assistant("a2", "u2", "kept answer"),
        entry("compaction", "c1", "a2", summary="we talked", firstKeptEntryId="u2", tokensBefore=9),
        user("u3", "c1", "after"),
    )
    assert [(line, kind) for line, kind, _ in kinds(c)] == [
        (1, "user"),
        (2, "assistant"),
        (5, "compaction"),
        (3, "user"),
        (4, "assistant"),
        (6, "user"),
    ]
    assert [i.not_sent for i in c.items[:2]] == ["before the newest compaction"] * 2
    assert all(i.not_sent is None for i in c.items[2:])
    sent = [m.line for i in c.items for m in i.messages]
    assert sent == [m.line for m in c.context.messages] == [5, 3, 4, 6]


def test_context_edits_error_turns_and_markers() -> None:
    c = conv(
        user("u1", None, "secret plan"),
        assistant("a1", "u1", "broken", stop="error"),
        user("u2", "a1", "long question"),
        entry("context_edit", "e1", "u2", targetId="u1", replacement=None),
        entry("context_edit", "e2", "e1", targetId="u2", replacement={"content": "short"}),
        entry("model_change", "m1", "e2", provider="openai", modelId="gpt-5"),
    )
    by_line = {i.line: i for i in c.items}
    assert by_line[1].not_sent == "omitted by the context edit on line 5"
    assert by_line[2].not_sent == "pi-ai drops failed and aborted turns"
    assert by_line[3].not_sent is None and by_line[3].edited == 5
    assert by_line[6].kind == "model-change" and by_line[6].not_sent is None
    md, _ = markdown(c)
    assert "short" in md and "long question" not in md  # what pi sends
    assert "content replaced by the context edit on line 6" in md
    html = html_fragment(c)
    assert html.count("pi-not-sent") == 2
    assert 'class="pi-item pi-model-change pi-marker"' in html


def test_branches_and_leaf_switching() -> None:
    lines = (
        user("u1", None, "root"),
        assistant("a1", "u1"),
        user("u2", "a1", "one"),
        entry("label", "l1", "a1", targetId="a1", label="x"),
        user("u3", "l1", "two"),
        js(
            {
                "type": "usage",
                "id": "g1",
                "parentId": "u3",
                "timestamp": TS,
                "kind": "x",
                "usage": {},
            }
        ),
    )
    c = conv(*lines)
    assert c.leaf == 6 and c.leaf_id == c.resumed_id == "u3"  # usage entries: hidden, as in /tree
    assert [i.line for i in c.items] == [1, 2, 4, 5]
    [point] = c.branches
    assert point.line == 2
    assert [(b.id, b.title, b.current) for b in point.leaves] == [
        ("u2", "user: one", False),
        ("u3", "user: two", True),  # named by its first message, not by the label
    ]
    other = conv(*lines, leaf="u2")
    assert [i.line for i in other.items] == [1, 2, 3]
    with pytest.raises(UnknownLeaf):
        conv(*lines, leaf="nope")
    with pytest.raises(UnknownLeaf):
        conv(*lines, leaf="L0")  # the header is no entry


def test_markdown_item_starts() -> None:
    c = conv(
        user("u1", None, "a\n\nb"),
        assistant("a1", "u1", "c"),
        entry("label", "l1", "a1", targetId="u1"),
    )
    md, starts = markdown(c)
    lines = md.split("\n")
    assert [lines[s] for s in starts] == [
        "## User · line 2",
        "## Assistant · line 3 · claude-sonnet-4-5 · in 10 · out 5",
        "*label: (cleared) → line 2 · line 4*",
    ]


def test_untrusted_text_is_escaped_and_loads_nothing() -> None:
    text = (
        "<img src=x onerror=alert(1)> [site](https://evil.example/a) "
        "![pic](https://evil.example/p.png) <script>x</script>"
    )
    c = conv(
        user("u1", None, text),
        entry("label", "l1", "u1", targetId="u1", label="<script>l</script>"),
        entry("model_change", "m1", "l1", provider="<b>p</b>", modelId="<script>m</script>"),
        entry("custom_message", "c1", "m1", customType="<i>t</i>", content="<script>c</script>"),
    )
    for html in (html_fragment(c), html_fragment(c, bodies=set())):  # whole, and as stubs
        assert "<script>" not in html and "<img src=x" not in html
        assert "<b>" not in html and "<i>" not in html
    html = html_fragment(c)
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html)
    assert 'class="pi-link"' in html and "evil.example" in html  # shown, not linked


def test_images_tool_output_and_fences() -> None:
    image_user = entry(
        "message",
        "u1",
        None,
        message={
            "role": "user",
            "content": [
                {"type": "text", "text": "see"},
                {"type": "image", "data": PNG, "mimeType": "image/png"},
            ],
        },
    )
    long_output = "\n".join(f"row {n}" for n in range(MAX_LINES + 50))
    c = conv(
        image_user,
        assistant("a1", "u1", "look ````` here", calls=("c1",)),
        result("r1", "a1", "c1", long_output),
    )
    html = html_fragment(c)
    assert f'src="data:image/png;base64,{PNG}"' in html
    md, _ = markdown(c)
    assert PNG not in md and "[image image/png" in md
    assert f"row {MAX_LINES - 1}" in md and f"row {MAX_LINES}\n" not in md
    assert "… 50 more lines" in md and "<details><summary>Output (250 lines)</summary>" in md
    assert '<details class="pi-output">' in html
    bad = conv(
        entry(
            "message",
            "u1",
            None,
            message={
                "role": "user",
                "content": [{"type": "image", "data": 'AAAA"><script>', "mimeType": "image/png"}],
            },
        )
    )
    assert "<script>" not in html_fragment(bad) and "data:" not in html_fragment(bad)


def test_highlighted_code_fence() -> None:
    c = conv(assistant("a1", None, "```python\ndef f(): return '<b>'\n```"))
    html = html_fragment(c)
    assert '<span class="k">def</span>' in html and "&lt;b&gt;" in html and "<b>" not in html


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("key sk-ant-api03-abcdefghijklmnopqrstu end", "key sk-ant-[redacted] end"),
        ("export OPENAI_API_KEY=abcd1234efgh5678", "export OPENAI_API_KEY=[redacted]"),
        ('{"access_token": "zzzzzzzzzzzzz"}', '{"access_token": "[redacted]"}'),
        ("Authorization: Bearer abc.def.ghijklmnop", "Authorization: Bearer [redacted]"),
        ("ghp_" + "a" * 36, "ghp_[redacted]"),
        ("AKIAIOSFODNN7EXAMPLE", "AKIA[redacted]"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY----- [redacted]",
        ),
        (
            "max_tokens=16000000 task-management-system",
            "max_tokens=16000000 task-management-system",
        ),
    ],
)
def test_redact(text: str, masked: str) -> None:
    assert redact(text) == masked


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from(["", "x", "<script>x</script>", "sk-ant-" + "k" * 20, "```", "\u2028"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["type", "text", "data", "arguments", "content"]), inner, max_size=3
        )
    ),
    max_leaves=8,
)
_BLOCK = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "thinking", "toolCall", "image", "other"])},
    optional={
        "text": _JSON,
        "thinking": _JSON,
        "name": _JSON,
        "arguments": _JSON,
        "data": _JSON,
        "mimeType": st.sampled_from(["image/png", "text/html", 3]),
    },
)
_MESSAGE = st.fixed_dictionaries(
    {
        "role": st.sampled_from(
            [
                "user",
                "assistant",
                "toolResult",
                "bashExecution",
                "custom",
                "hookMessage",
                "system",
                "branchSummary",
                "compactionSummary",
                "odd",
                7,
            ]
        )
    },
    optional={
        "content": st.one_of(_JSON, st.lists(_BLOCK, max_size=4)),
        "usage": _JSON,
        "stopReason": _JSON,
        "command": _JSON,
        "output": _JSON,
        "exitCode": _JSON,
        "summary": _JSON,
        "toolName": _JSON,
        "customType": _JSON,
        "model": _JSON,
    },
)


@st.composite
def odd_sessions(draw: st.DrawFn) -> str:
    """Sessions of a few entries of every type, with message fields of any JSON shape."""
    lines = [header()]
    for n in range(draw(st.integers(0, 7))):
        parent = draw(st.sampled_from([None, *[f"e{k}" for k in range(n)], "ghost"]))
        kind = draw(
            st.sampled_from(
                [
                    "message",
                    "message",
                    "compaction",
                    "branch_summary",
                    "custom_message",
                    "context_edit",
                    "model_change",
                    "label",
                    "usage",
                    "weird",
                ]
            )
        )
        obj = {"type": kind, "id": f"e{n}", "parentId": parent, "timestamp": TS}
        if kind == "message":
            obj["message"] = draw(_MESSAGE)
        else:
            obj.update(
                draw(
                    st.dictionaries(
                        st.sampled_from(
                            [
                                "summary",
                                "firstKeptEntryId",
                                "targetId",
                                "replacement",
                                "content",
                                "tokensBefore",
                                "label",
                                "modelId",
                                "fromId",
                            ]
                        ),
                        _JSON | st.sampled_from([f"e{k}" for k in range(n + 1)]),
                        max_size=3,
                    )
                )
            )
        lines.append(js(obj))
    return doc(*lines)


@bounded(examples=80)
@given(odd_sessions())
def test_any_session_renders_without_raising(text: str) -> None:
    a = analyze(text)
    leaves = [None, *(f"e{n}" for n in range(text.count("\n") - 1))]
    for leaf in leaves:
        try:
            c = conversation(a, leaf)
        except UnknownLeaf:
            continue
        html = html_fragment(c, redact)
        md, starts = markdown(c)
        assert "<script" not in html and "sk-ant-k" not in html
        assert len(starts) == len(c.items) and all(0 <= s < md.count("\n") for s in starts)


def test_long_tool_arguments_read_as_code() -> None:
    call = {
        "type": "toolCall",
        "id": "c1",
        "name": "write",
        "arguments": {"path": "src/app.py", "content": "def f():\n    return 1\n"},
    }
    c = conv(entry("message", "a1", None, message={"role": "assistant", "content": [call]}))
    md, _ = markdown(c)
    assert (
        '"path": "src/app.py"' in md and "*content:*\n\n```python\ndef f():\n    return 1\n" in md
    )
    assert '<div class="pi-arg-name">content</div>' in html_fragment(c)
    assert '<span class="k">def</span>' in html_fragment(c)


def test_unanswered_call_is_said() -> None:
    c = conv(
        user("u1", None),
        assistant("a1", "u1", calls=("c1", "c2")),
        result("r1", "a1", "c1"),
        user("u2", "r1"),
    )
    assert [i.unanswered for i in c.items] == [[], ["c2"], [], []]
    md, _ = markdown(c)
    assert 'unanswered call c2: pi-ai sends "No result provided"' in md


def test_read_result_highlighted_as_its_file() -> None:
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "src/a.py"}}
    c = conv(
        entry("message", "a1", None, message={"role": "assistant", "content": [call]}),
        result("r1", "a1", "c1", "def f():\n    pass"),
        result("r2", "r1", "c9", "def g():\n    pass"),  # answers no read call: plain
    )
    assert [i.source for i in c.items] == [None, "src/a.py", None]
    md, _ = markdown(c)
    assert "```python\ndef f():" in md and "```\ndef g():" in md
    html = html_fragment(c)
    assert html.count('<span class="k">def</span>') == 1


def test_a_parent_cycle_is_said() -> None:
    c = conv(user("a", "b", "x"), user("b", "a", "y"))
    assert c.context.cycle and [i.line for i in c.items] == [1, 2]
    assert "the path is a parent cycle: pi would hang here" in markdown(c)[0].split("\n")[0]


def test_an_open_fence_is_closed_before_the_next_item() -> None:
    c = conv(user("u1", None, "look:\n```py\nx = 1"), user("u2", "u1", "after"))
    md, starts = markdown(c)
    lines = md.split("\n")
    assert lines[starts[1] - 3 : starts[1]] == ["x = 1", "```", ""]
