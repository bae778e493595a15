"""Hover texts (pi_lsp.core.views.hovers): what a hover says about entries, links, keys and the header."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.model import Analysis, Options
from pi_lsp.core.pi.stats import analysis_stats, analysis_totals, split_by_path, totals
from pi_lsp.core.views.hovers import code, heaviest_text, hover_at, md_escape, split_text

from .features_sample import LINES, PATH, TEXT
from .pi_sessions import TS, assistant, doc, entry, header, js, result, user

A = analyze(TEXT, PATH)
BOOK = (Path(__file__).resolve().parents[1] / "data" / "book-from-doc.jsonl").read_text(
    encoding="utf-8"
)


def at(a: Analysis, line: int, needle: str, offset: int = 1) -> tuple[str, tuple[int, int]]:
    """The hover's Markdown and span with the cursor ``offset`` into ``needle`` on ``line``."""
    found = hover_at(a, line, a.lines[line].index(needle) + offset)
    assert found is not None and found.line == line
    return found.markdown, found.span


def entry_hover(a: Analysis, line: int) -> str:
    """The entry's own hover: the cursor on its timestamp value (no key, no link)."""
    return at(a, line, '"timestamp":"', 14)[0]


# ----------------------------------------------------------------------------- escaping


def test_md_escape_escapes_markdown_but_not_underscores_inside_words() -> None:
    assert md_escape("branch_summary") == "branch_summary"
    assert md_escape("_a a_ x_") == "\\_a a\\_ x\\_"
    assert md_escape("a*b`c[d]<e>|f#g\\h") == "a\\*b\\`c\\[d\\]\\<e\\>\\|f\\#g\\\\h"


def test_code_is_inline_code_bounded_and_without_backticks() -> None:
    assert code("a`b") == "`a'b`"
    long = code("word " * 40)
    assert long.startswith("`word word") and long.endswith("`") and len(long) < 90


def test_code_keeps_eighty_characters() -> None:
    text = "ab cd " * 13 + "ef"  # 80 characters
    assert code(text) == f"`{text}`"
    assert code(text + "g") == f"`{text[:79]}…`"


# ----------------------------------------------------------------------------- entries


def test_whole_hover_of_an_assistant_entry() -> None:
    md, span = at(A, 3, '"timestamp":"', 14)
    assert span == (0, len(LINES[3]))
    assert md == "\n".join(
        [
            "**assistant** · message · `a1`",
            "",
            "> reading → read(/src/a.ts)",
            "",
            "- line 4 · depth 2 · not on the active path",
            "- parent: line 3 (user: hello world)",
            "- children: line 5",
            "- model: anthropic/claude · stopReason: toolUse",
            "- tokens: 18 (in 10 · out 5 · cache read 1 · cache write 2) · cost $0.3000",
            "- time: 2026-01-01T00:00:03.000Z",
        ]
    )


def test_hover_of_a_root_and_of_the_leaf() -> None:
    root = entry_hover(A, 1)
    assert root.startswith("**model_change** · `m1`\n\n- line 2 · depth 0 · on the active path\n")
    assert "- parent: none (a root)\n- children: line 3\n" in root
    assert "\n- model: anthropic/claude\n" in root  # no stopReason on a model change
    leaf = entry_hover(A, 9)
    assert "- line 10 · depth 5 · on the active path · **leaf** (pi resumes here)\n" in leaf
    assert "children" not in leaf


def test_hover_of_a_branch_point_and_a_labelled_entry() -> None:
    md = entry_hover(A, 2)
    assert md.startswith("**user** · message · `u1` · 🏷 start\n\n> hello world\n\n")
    assert "- children: lines 4, 7 (branch point)\n- labelled by: line 6\n" in md


def test_many_children_and_labels_are_cut_at_twelve() -> None:
    kids = [user(f"k{n}", "root", f"child {n}") for n in range(14)]
    labels = [entry("label", f"l{n}", "k0", targetId="root", label=f"x{n}") for n in range(13)]
    a = analyze(doc(header(), user("root", None, "top"), *kids, *labels))
    md = entry_hover(a, 1)
    shown = ", ".join(str(n) for n in range(3, 15))
    assert f"- children: lines {shown} and 2 more (branch point)\n" in md
    assert f"- labelled by: line {', '.join(str(n) for n in range(17, 29))}\n" in md
    assert "· 🏷 x12" in md.splitlines()[0]  # the newest label is the entry's label


def test_a_single_child_is_no_branch_point() -> None:
    a = analyze(doc(header(), user("u", None), assistant("b", "u")))
    assert "- children: line 3\n" in entry_hover(a, 1)


def test_dangling_parent_and_cycle() -> None:
    a = analyze(doc(header(), user("u", "nowhere")))
    assert "- parent: `nowhere` names no entry in this file\n" in entry_hover(a, 1)
    cyc = analyze(doc(header(), user("x", "y"), user("y", "x")))
    md = entry_hover(cyc, 1)
    assert "\n- **in a parentId cycle**\n" in md
    assert "- parent: line 3 (user: hello)\n" in md


def test_a_v1_entry_has_no_parent_line() -> None:
    a = analyze(doc(header(None), user(None, False, "first"), user(None, False, "second")))
    first = entry_hover(a, 1)
    assert "parent:" not in first and "**user** · message\n" in first
    assert "- parent: line 2 (user: first)\n" in entry_hover(a, 2)


def test_label_text_in_the_head_is_escaped_and_clipped() -> None:
    label = "a*b " + "ab " * 40
    a = analyze(doc(header(), user("u", None), entry("label", "l", "u", targetId="u", label=label)))
    head = entry_hover(a, 1).splitlines()[0]
    assert head.startswith("**user** · message · `u` · 🏷 a\\*b ab ab")
    assert len(head) < 100


def test_markdown_in_model_stop_reason_and_time_is_escaped() -> None:
    line = assistant("a", None, model="m*1", stop="err_")
    line = line.replace(TS, "T*1")
    a = analyze(doc(header(), line))
    md = at(a, 1, '"text":"hi"', 9)[0]
    assert "- model: anthropic/m\\*1 · stopReason: err\\_\n" in md
    assert md.endswith("- time: T\\*1")


# ----------------------------------------------------------------------------- kind notes


def _edit(ident: str, parent: str, target: str, replacement: object = None) -> str:
    return entry("context_edit", ident, parent, targetId=target, replacement=replacement)


def test_context_edit_notes() -> None:
    a = analyze(
        doc(
            header(),
            user("u", None, "question"),
            assistant("b", "u"),
            _edit("e1", "b", "u", {"content": [{"type": "text", "text": "short*er"}]}),
            _edit("e2", "e1", "b"),
            _edit("e3", "e2", "missing"),
            entry("model_change", "m", "e3", provider="p", modelId="x"),
            _edit("e4", "m", "m"),
        )
    )
    assert "\n\nContext edit: replaces the content of line 2 with: short\\*er\n\n" in entry_hover(
        a, 3
    )
    assert "Context edit: omits line 3 from the context pi sends." in entry_hover(a, 4)
    assert "Context edit of missing names no entry: pi ignores it." in entry_hover(a, 5)
    assert (
        "Context edit of line 7 has no effect: its target adds no message to the context."
        in entry_hover(a, 7)
    )


def test_context_edits_without_effect_say_why() -> None:
    a = analyze(
        doc(
            header(),
            user("u", None, "question"),
            assistant("b", "u"),
            entry("branch_summary", "s", "b", fromId="b", summary="went elsewhere"),
            _edit("e1", "s", "s", {"content": "x"}),
            _edit("e2", "u", "b"),
            entry("compaction", "c", "e1", summary="S", firstKeptEntryId="e1", tokensBefore=5),
            _edit("e3", "c", "u"),
        )
    )
    assert (
        "Context edit of line 4 has no effect: pi replaces the content of user, assistant, "
        "tool-result and custom messages only." in entry_hover(a, 4)
    )
    assert "Context edit of line 3 has no effect: its target is not on this edit's path." in (
        entry_hover(a, 5)
    )
    assert (
        "Context edit of line 2 has no effect: its target lies before the newest compaction's "
        "kept range." in entry_hover(a, 7)
    )


def test_a_replacement_preview_is_cut_at_120() -> None:
    text = "ab cd " * 20  # 120 characters
    a = analyze(doc(header(), user("u", None), _edit("e", "u", "u", {"content": text + "e"})))
    assert f"with: {text.rstrip()[:119]}…\n" in entry_hover(a, 2)
    a = analyze(doc(header(), user("u", None), _edit("e", "u", "u", {"content": text[:-1]})))
    assert f"with: {text[:-1]}\n" in entry_hover(a, 2)


def test_a_replacement_without_content_previews_nothing() -> None:
    a = analyze(doc(header(), user("u", None), _edit("e", "u", "u", "not an object")))
    md = entry_hover(a, 2)
    assert "Context edit: replaces the content of line 2 with: " in md


def test_system_message_without_changes() -> None:
    line = entry("message", "s", None, message={"role": "system", "content": "", "timestamp": 1})
    md = entry_hover(analyze(doc(header(), line)), 1)
    assert "System prompt and tools: no section or tool changes. pi replays system messages" in md
    assert re.search(r"\n\nWritten by pi 0\.[0-9.]+ and later\.\n\n", md)


def test_system_message_lists_its_changes() -> None:
    message = {
        "role": "system",
        "content": "",
        "sections": {"preamble": "You are pi.", "cwd": None},
        "toolsAdded": [{"name": "read", "description": "r", "parameters": {}}],
        "timestamp": 1,
    }
    md = entry_hover(analyze(doc(header(), entry("message", "s", None, message=message))), 1)
    assert (
        "\n\nSystem prompt and tools: sections preamble; removes cwd; tools +read. pi replays "
        "system messages in order; a compaction checkpoint replaces them.\n\n"
    ) in md


def test_usage_entry_note() -> None:
    obj = {"type": "usage", "id": "u", "parentId": None, "timestamp": TS, "kind": "x"}
    md = entry_hover(analyze(doc(header(), js(obj))), 1)
    assert (
        "\n\nUsage entry: counted in the session's tokens and cost; not in the context, hidden "
        "from pi's tree.\n\n"
    ) in md


def test_an_old_kind_has_no_notes() -> None:
    md = entry_hover(analyze(doc(header(), user("u", None, "plain"))), 1)
    assert md.split("\n\n")[1:3] == [
        "> plain",
        "- line 2 · depth 0 · on the active path · **leaf** (pi resumes here)\n- parent: none (a root)\n- time: "
        + TS,
    ]


# ----------------------------------------------------------------------------- header


def test_whole_hover_of_the_header() -> None:
    md, span = at(A, 0, '"/work"')
    assert span == (0, len(LINES[0]))
    assert md == "\n".join(
        [
            "**session** · pi v3 · `sess-1`",
            "",
            "**My session**",
            "",
            "- cwd: /work",
            "- forked from: ../parent.jsonl",
            "- entries: 9 (messages: assistant 1, toolResult 1, user 2)",
            "- tree: 1 root, 1 branch point, 2 leaves; active path 6 entries",
            "- compactions: 1 · tool calls: 1",
            "- tokens: 18 (in 10 · out 5 · cache read 1 · cache write 2) · cost $0.3000",
            "- active path $0.0000 (0 tokens) · 1 abandoned branch $0.3000 (18 tokens)",
            "- models: anthropic/claude",
            "- duration: 9s (2026-01-01T00:00:00Z → 2026-01-01T00:00:09Z)",
        ]
    )


def test_header_of_a_bare_session() -> None:
    line = js({"type": "session", "version": 3, "id": "", "timestamp": TS})
    a = analyze(doc(line, entry("model_change", "m", None, provider="p", modelId="x")))
    md = at(a, 0, '"session"')[0]
    assert md == "\n".join(
        [
            "**session** · pi v3",
            "",
            "- entries: 1",
            "- tree: 1 root, 0 branch points, 1 leaf; active path 1 entries",
            "- compactions: 0 · tool calls: 0",
            "- tokens: 0 (in 0 · out 0 · cache read 0 · cache write 0) · cost $0.0000",
            "- models: p/x",
            f"- duration: 0s ({TS[:19]}.678000Z → {TS[:19]}.678000Z)",
        ]
    )


def test_header_counts_in_plural_and_models_cut_at_ten() -> None:
    models = [
        entry("model_change", f"m{n}", None, provider="p", modelId=f"x{n}") for n in range(12)
    ]
    kids = [user("a", "m0"), user("b", "m0"), user("c", "m1"), user("d", "m1")]
    a = analyze(doc(header(), *models, *kids))
    md = at(a, 0, '"session"')[0]
    assert "- tree: 12 roots, 2 branch points, 14 leaves; " in md
    assert "- models: " + ", ".join(f"p/x{n}" for n in range(10)) + "\n" in md + "\n"


def test_duration_in_hours_and_minutes() -> None:
    times = ["2026-01-01T00:00:00.000Z", "2026-01-01T02:03:04.000Z"]
    lines = [user("u", None), user("v", "u")]
    lines = [ln.replace(TS, t) for ln, t in zip(lines, times, strict=True)]
    md = at(analyze(doc(header(timestamp=times[0]), *lines)), 0, '"session"')[0]
    assert "- duration: 2h 03m 04s (" in md
    lines[1] = lines[1].replace(times[1], "2026-01-01T00:03:04.000Z")
    md = at(analyze(doc(header(timestamp=times[0]), *lines)), 0, '"session"')[0]
    assert "- duration: 3m 04s (" in md


def test_path_split_names_the_abandoned_branches() -> None:
    lines = [user("u", None), assistant("a", "u"), assistant("b", "u"), assistant("c", "u")]
    a = analyze(doc(header(), *lines))
    whole, split = analysis_totals(a)
    text = split_text(split)
    assert text == "active path $0.0000 (15 tokens) · 2 abandoned branches $0.0000 (30 tokens)"
    assert split_text(split, tokens=False) == (
        "active path $0.0000 · 2 abandoned branches $0.0000"
    )
    # the sums of the records analysis_stats keeps per entry, without keeping them
    stats = analysis_stats(a)
    active, abandoned = split_by_path(stats.counted)
    assert whole == totals(stats.counted)
    assert split == (active.usage, abandoned.usage, len(stats.branches) - 1)
    assert split_text(analysis_totals(analyze(doc(header(), *lines[:2])))[1]) is None


# ----------------------------------------------------------------------------- keys


def test_hover_on_a_header_key() -> None:
    md, span = at(A, 0, '"cwd"')
    start = LINES[0].index('"cwd"')
    assert span == (start, start + 5)
    assert md.startswith("**session** · `cwd`\n\n")


def test_hover_on_a_key_follows_the_branch_of_the_line() -> None:
    """The role of the message selects the branch: an assistant's blocks may be tool calls."""
    md, _ = at(A, 3, '"type":"toolCall"', 2)
    assert md == (
        "**assistant** · `message.content.1.type`\n\n"
        'Kind of content block; one of "text", "thinking", "toolCall".'
    )


def test_hover_on_a_key_of_the_second_dialect_uses_its_schema() -> None:
    a = analyze(BOOK)
    md, span = at(a, 1, '"content"')
    assert md.startswith("**user_message** · `content`\n\n") and len(md) > 35
    start = a.lines[1].index('"content"')
    assert span == (start, start + len('"content"'))
    md, _ = at(a, 0, '"cwd"')  # its header is a session's too
    assert md.startswith("**session** · `cwd`\n\n") and len(md) > 30


def test_hover_on_a_key_of_an_unknown_type_is_the_entry_hover() -> None:
    a = analyze(doc(header(), entry("mystery", "q", None, extra=1)))
    md, span = at(a, 1, '"extra"')
    assert md.startswith("**mystery** · `q`") and span == (0, len(a.lines[1]))


def test_hover_on_a_key_without_a_description_is_the_entry_hover() -> None:
    a = analyze(doc(header(), user("u", None).replace('"timestamp":1', '"zzz":1')))
    md, span = at(a, 1, '"zzz"')
    assert md.startswith("**user** · message · `u`") and span == (0, len(a.lines[1]))


# ----------------------------------------------------------------------------- links


def test_parent_session_link(tmp_path: Path) -> None:
    parent = tmp_path / "parent.jsonl"
    parent.write_text("", encoding="utf-8")
    a = analyze(doc(header(parentSession=str(parent)), user("u", None)))
    md, span = at(a, 0, str(parent))
    assert md == f"**parentSession** → {parent} (exists)"
    start = a.lines[0].index(str(parent)) - 1
    assert span == (start, start + len(str(parent)) + 2)
    gone = analyze(doc(header(parentSession=str(tmp_path / "gone[x].jsonl")), user("u", None)))
    assert (
        at(gone, 0, "gone[x]")[0]
        == f"**parentSession** → {tmp_path}/gone\\[x\\].jsonl (**not found**)"
    )


def test_dangling_links_of_each_kind() -> None:
    lines = [
        user("u", None),
        entry("branch_summary", "b", "u", fromId="root", summary="s"),
        entry("branch_summary", "c", "b", fromId="gone", summary="s"),
    ]
    a = analyze(doc(header(), *lines))
    assert at(a, 2, '"root"')[0] == '**fromId** `"root"`: the abandoned branch started at the root'
    assert at(a, 3, '"gone"')[0] == "**fromId** `gone` names no entry in this file"
    v1 = analyze(
        doc(
            header(None),
            user(None, False),
            js({"type": "compaction", "timestamp": TS, "summary": "s", "firstKeptEntryIndex": 9}),
        )
    )
    assert (
        at(v1, 2, '"firstKeptEntryIndex":', 22)[0]
        == "**firstKeptEntryIndex** `9` names no line in this file"
    )


def test_index_zero_names_the_header_not_an_entry() -> None:
    v1 = analyze(
        doc(
            header(None),
            user(None, False),
            js({"type": "compaction", "timestamp": TS, "summary": "s", "firstKeptEntryIndex": 0}),
        )
    )
    assert at(v1, 2, '"firstKeptEntryIndex":', 22)[0] == (
        "**firstKeptEntryIndex** `0` names no line in this file"
    )


def test_declaration_counts_its_references() -> None:
    md, span = at(A, 2, '"u1"')
    start = LINES[2].index('"u1"')
    assert span == (start, start + 4)
    assert md == entry_hover(A, 2) + "\n- referenced by 3 links"  # the entry's hover and more
    one = analyze(doc(header(), user("u", None), user("v", "u")))
    assert at(one, 1, '"u"')[0].endswith("\n- referenced by 1 link")
    none = analyze(doc(header(), user("u", None)))
    assert at(none, 1, '"u"')[0].endswith("\n- referenced by 0 links")


# ----------------------------------------------------------------------------- tool calls


def test_tool_call_without_a_result() -> None:
    a = analyze(doc(header(), user("u", None), assistant("a", "u", calls=("c1",))))
    md, span = at(a, 2, '"c1"')
    start = a.lines[2].index('"c1"')
    assert span == (start, start + 4)
    assert md == (
        '**toolCall** `bash` · line 3\n\n> {"command":"ls"}\n\n- no toolResult answers this call'
    )


def test_tool_result_of_an_unknown_call() -> None:
    a = analyze(doc(header(), user("u", None), result("r", "u", "nocall")))
    assert at(a, 2, '"nocall"')[0] == "**toolCallId** `nocall` names no entry in this file"


def test_tool_call_answered_by_many_results() -> None:
    results = [result(f"r{n}", "a", "c1", f"out {n}") for n in range(8)]
    a = analyze(doc(header(), user("u", None), assistant("a", "u", calls=("c1",)), *results))
    md = at(a, 2, '"c1"')[0]
    answered = ", ".join(f"line {n} (toolResult bash: out {n - 4})" for n in range(4, 10))
    assert md.endswith(f"\n\n- answered by: {answered}")


def test_tool_call_with_odd_name_and_arguments() -> None:
    line = assistant("a", "u", calls=("c1",)).replace('"name":"bash"', '"name":7')
    line = line.replace('"arguments":{"command":"ls"}', '"arguments":"ls"')
    a = analyze(doc(header(), user("u", None), line, result("r", "a", "c1")))
    assert at(a, 3, '"c1"')[0] == "**toolCall** `?` · line 3"


def test_result_hover_shows_up_to_three_calls() -> None:
    calls = [assistant(f"a{n}", f"a{n - 1}" if n else "u", calls=("c1",)) for n in range(4)]
    a = analyze(doc(header(), user("u", None), *calls, result("r", "a3", "c1")))
    md = at(a, 6, '"c1"')[0]
    calls = [f'**toolCall** `bash` · line {n}\n\n> {{"command":"ls"}}' for n in (3, 4, 5)]
    assert md == "\n\n".join(calls)  # the first three, in file order


def test_book_tool_ids_and_summarized_ids() -> None:
    a = analyze(BOOK)
    call = '**toolCall** `write` · line 4\n\n> {"path":"src/routes/users.ts","content":"..."}'
    assert at(a, 4, '"tc_001"')[0] == call
    assert at(a, 5, '"tc_001"')[0] == call
    md = at(a, 3, '"tc_001"')[0]
    assert md == call + (
        "\n\n- answered by: line 5 (tool_call: write), line 6 (tool_result: write)"
    )
    assert at(a, 9, '"entry-006"')[0].endswith("\n\n*summarizedEntryIds → line 8*")


# ----------------------------------------------------------------------------- no hover


@pytest.mark.parametrize("line", [-1, 10, 11])
def test_no_hover_outside_the_file(line: int) -> None:
    assert hover_at(A, line, 0) is None


def test_no_hover_on_lines_that_are_not_entries_or_past_the_end() -> None:
    a = analyze('{"type":"session","version":3,"id":"s","timestamp":"t"}\n\n{oops\n[1]\n')
    assert [hover_at(a, n, 1) for n in (1, 2, 3)] == [None, None, None]
    assert hover_at(A, 2, len(LINES[2]) + 5) is None


def test_twelve_children_need_no_more() -> None:
    kids = [user(f"k{n}", "root") for n in range(12)]
    md = entry_hover(analyze(doc(header(), user("root", None), *kids)), 1)
    shown = ", ".join(str(n) for n in range(3, 15))
    assert f"- children: lines {shown} (branch point)\n" in md
    kids.append(user("k12", "root"))
    md = entry_hover(analyze(doc(header(), user("root", None), *kids)), 1)
    assert f"- children: lines {shown} and 1 more (branch point)\n" in md


def test_a_v2_root_is_called_a_root() -> None:
    a = analyze(doc(header(2), user("u", None), user("v", "u")))
    assert "\n- parent: none (a root)\n" in entry_hover(a, 1)


def test_parent_titles_and_labels_are_cut_at_sixty() -> None:
    text = "x" + "ab cd " * 9 + "efg"  # 58 characters: the title "user: " + it is 64
    a = analyze(
        doc(
            header(),
            user("u", None, text),
            user("v", "u"),
            entry("label", "l", "v", targetId="v", label=text + "ij"),
            entry("label", "m", "l", targetId="u", label=text + "i"),
        )
    )
    title = f"user: {text}"[:59] + "…"
    assert f"\n- parent: line 2 ({title})\n" in entry_hover(a, 2)
    assert entry_hover(a, 2).splitlines()[0].endswith(f" · 🏷 {text}ij")  # 60: kept
    assert entry_hover(a, 1).splitlines()[0].endswith(f" · 🏷 {text}i")
    b = analyze(
        doc(header(), user("u", None), entry("label", "l", "u", targetId="u", label=text + "ijk"))
    )
    assert entry_hover(b, 1).splitlines()[0].endswith(f" · 🏷 {text}i…")


def test_a_long_parent_session_path_is_cut_at_300(tmp_path: Path) -> None:
    name = "/".join(["a dir"] * 60) + ".jsonl"  # 365 characters
    a = analyze(doc(header(parentSession=name), user("u", None)))
    md = at(a, 0, name[:20])[0]
    assert md == f"**parentSession** → {name[:299]}… (**not found**)"
    short = name[-300:]
    a = analyze(doc(header(parentSession=short), user("u", None)), str(tmp_path / "s.jsonl"))
    assert at(a, 0, short[:20])[0] == f"**parentSession** → {short} (**not found**)"


def test_tool_call_arguments_are_cut_at_240() -> None:
    value = "ab cd " * 6 + "ab"  # 38 characters: shallow() keeps it whole
    args = {f"k{n:02d}": value for n in range(6)}  # 283 characters as compact JSON
    text = json.dumps(args, separators=(",", ":"))
    line = assistant("a", "u", calls=("c1",)).replace('{"command":"ls"}', text)
    a = analyze(doc(header(), user("u", None), line, result("r", "a", "c1")))
    md = at(a, 3, '"c1"')[0]
    assert md == f"**toolCall** `bash` · line 3\n\n> {text[:239]}…"
    args = {f"k{n:02d}": value for n in range(5)}  # 236 characters
    text = json.dumps(args, separators=(",", ":"))
    line = assistant("a", "u", calls=("c1",)).replace('{"command":"ls"}', text)
    a = analyze(doc(header(), user("u", None), line, result("r", "a", "c1")))
    assert at(a, 3, '"c1"')[0] == f"**toolCall** `bash` · line 3\n\n> {text}"


def test_header_hover_ends_with_the_largest_entries() -> None:
    text = doc(header(), user("u", None, "big words " * 300), assistant("a", "u"))
    a = analyze(text, options=Options(large_line=1000))
    summary = heaviest_text(a)
    assert summary is not None and summary.startswith("largest entries: line 2: ")
    assert at(a, 0, '"session"')[0] == at(analyze(text), 0, '"session"')[0] + f"\n- {summary}"
