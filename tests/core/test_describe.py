"""Entry titles, previews, per-entry facts, session totals and hover texts."""

from __future__ import annotations

import base64

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.views.describe import (
    TITLE_LIMIT,
    clip,
    content_preview,
    entry_facts,
    entry_title,
    session_totals,
)
from pi_lsp.core.views.hovers import hover_at

from .features_sample import LINES, PATH, TEXT

A = analyze(TEXT, PATH)


@pytest.mark.parametrize(
    ("line", "title"),
    [
        (0, "session v3: sess-1"),
        (1, "model: anthropic/claude"),
        (2, "user: hello world"),
        (3, "assistant: reading → read(/src/a.ts)"),
        (4, "toolResult read: file body"),
        (5, 'label: "start" → line 3'),
        (6, "branch_summary: tried reading"),
        (7, "user: again"),
        (8, "compaction: we read a file"),
        (9, 'session name: "My session"'),
    ],
)
def test_titles(line: int, title: str) -> None:
    assert entry_title(A, line) == title


def test_titles_of_lines_that_are_not_entries() -> None:
    a = analyze(LINES[0] + "\n\n{broken\n[1]\n")
    assert [entry_title(a, n) for n in range(1, 4)] == [
        "(blank line)",
        "(invalid JSON)",
        "(not an entry)",
    ]
    assert entry_title(a, 99) == ""


def test_clip_is_one_line_bounded_and_hides_base64() -> None:
    blob = base64.b64encode(bytes(range(256)) * 4).decode()
    assert clip(f"see {blob} here") == "see [base64] here"
    assert clip("a\u2028b\u2029c\n\td") == "a b c d"
    long = clip("word " * 10_000, 50)
    assert len(long) == 50 and long.endswith("…")


def test_huge_strings_are_never_read_whole() -> None:
    text = "x " * 30_000_000  # 60 MB
    preview = content_preview([{"type": "text", "text": text}], 40)
    assert len(preview) <= 40 and preview.endswith("…")


def test_images_and_thinking_in_previews() -> None:
    image = {"type": "image", "data": "A" * 5000, "mimeType": "image/png"}
    assert content_preview([image, image]) == "[2 images]"
    assert content_preview([{"type": "thinking", "thinking": "hmm"}]) == "(thinking) hmm"
    assert "AAAA" not in content_preview([{"type": "text", "text": "look"}, image])


def test_title_is_bounded_on_a_huge_line() -> None:
    big = LINES[2].replace("hello\u2028world", "z" * 2_000_000 + " tail")
    a = analyze("\n".join([LINES[0], LINES[1], big]))
    title = entry_title(a, 2)
    assert len(title) <= TITLE_LIMIT and title.startswith("user: ")


def test_facts_of_a_branch_point_with_a_label() -> None:
    facts = entry_facts(A, 2)
    assert facts is not None
    assert (facts.type, facts.role, facts.id, facts.parent_id) == ("message", "user", "u1", "m1")
    assert (facts.parent, facts.depth, facts.children) == (1, 1, (3, 6))
    assert (facts.label, facts.label_lines) == ("start", (5,))
    assert facts.on_active_path and not facts.is_leaf and not facts.in_cycle
    assert facts.timestamp == "2026-01-01T00:00:02.000Z"


def test_facts_of_an_assistant_message() -> None:
    facts = entry_facts(A, 3)
    assert facts is not None
    assert facts.model == "anthropic/claude" and facts.stop_reason == "toolUse"
    assert facts.usage is not None
    assert (facts.usage.total, facts.usage.cost) == (18, 0.3)
    assert not facts.on_active_path
    assert entry_facts(A, 0) is None


def test_session_totals() -> None:
    t = session_totals(A)
    assert (t.fmt, t.version, t.id, t.name, t.cwd) == ("pi", 3, "sess-1", "My session", "/work")
    assert (t.entries, t.branches, t.leaves, t.roots, t.compactions) == (9, 1, 2, 1, 1)
    assert (t.tool_calls, t.active_path) == (1, 6)
    assert t.roles == {"user": 2, "assistant": 1, "toolResult": 1}
    assert t.models == ("anthropic/claude",)
    assert (t.usage.total, t.usage.cost) == (18, 0.3)
    assert t.duration == 9.0
    data = t.as_json()
    assert data["tokens"] == {
        "input": 10,
        "output": 5,
        "cacheRead": 1,
        "cacheWrite": 2,
        "total": 18,
    }
    assert data["parentSession"] == "../parent.jsonl" and data["branchPoints"] == 1


def _col(line: int, needle: str, offset: int = 1) -> int:
    return LINES[line].index(needle) + offset


def test_hover_on_an_entry_starts_with_its_role() -> None:
    found = hover_at(A, 2, _col(2, "hello"))
    assert found is not None
    assert found.markdown.startswith("**user** · message · `u1` · 🏷 start")
    assert "children: lines 4, 7 (branch point)" in found.markdown
    assert "on the active path" in found.markdown
    assert found.span == (0, len(LINES[2]))


def test_hover_on_a_key_shows_its_schema_description() -> None:
    found = hover_at(A, 3, _col(3, '"stopReason"'))
    assert found is not None
    assert found.markdown.startswith("**assistant** · `message.stopReason`")
    assert "must never be persisted" in found.markdown
    start = LINES[3].index('"stopReason"')
    assert found.span == (start, start + len('"stopReason"'))


def test_hover_on_an_assistant_content_block_type_uses_the_assistant_branch() -> None:
    col = LINES[3].index('"type":"toolCall"') + 2
    found = hover_at(A, 3, col)
    assert found is not None and '"toolCall"' in found.markdown


def test_hover_on_a_reference_previews_the_target() -> None:
    found = hover_at(A, 4, _col(4, '"parentId":"a1"', 13))
    assert found is not None
    assert found.markdown.startswith("**assistant** · message · `a1`")
    assert found.markdown.endswith("*parentId → line 4*")


def test_hover_on_a_dangling_reference() -> None:
    a = analyze("\n".join([LINES[0], LINES[1].replace('"parentId":null', '"parentId":"zz"')]))
    found = hover_at(a, 1, a.lines[1].index('"zz"') + 1)
    assert found is not None and found.markdown == "**parentId** `zz` names no entry in this file"


def test_hover_on_the_header_shows_totals() -> None:
    found = hover_at(A, 0, _col(0, '"/work"'))
    assert found is not None
    md = found.markdown
    assert md.startswith("**session** · pi v3 · `sess-1`")
    for part in ("**My session**", "entries: 9", "1 branch point", "2 leaves", "compactions: 1"):
        assert part in md
    assert "tokens: 18" in md and "$0.3000" in md and "duration: 9s" in md


def test_hover_on_tool_ids() -> None:
    result = hover_at(A, 4, _col(4, '"call_1"'))
    assert result is not None and result.markdown.startswith("**toolCall** `read` · line 4")
    call = hover_at(A, 3, _col(3, '"call_1"'))
    assert call is not None and "answered by: line 5" in call.markdown


def test_hover_never_echoes_base64() -> None:
    blob = base64.b64encode(b"\x00\x01" * 300_000).decode()
    line = LINES[2].replace('"hello\u2028world"', f'[{{"type":"text","text":"{blob}"}}]')
    a = analyze("\n".join([LINES[0], LINES[1], line]))
    found = hover_at(a, 2, 3 + line.index(blob))
    assert found is not None and blob[:64] not in found.markdown
    assert len(found.markdown) < 2000
