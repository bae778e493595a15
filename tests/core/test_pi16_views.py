"""What the views say about the kinds pi 1.6 writes: titles, hovers, links, rename, outline."""

from __future__ import annotations

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.edits.rename import rename
from pi_lsp.core.pi.context_edits import effect
from pi_lsp.core.views.describe import entry_title
from pi_lsp.core.views.hovers import hover_at
from pi_lsp.core.views.outline import outline
from pi_lsp.core.views.refs import line_sites, references_to, resolve

from .pi_sessions import TS, assistant, doc, entry, header, js, user

A, B, C, D, E, F = (c * 8 for c in "abcdef")
USAGE = {
    "input": 10,
    "output": 2,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 12,
    "cost": {"input": 0.1, "output": 0.02, "cacheRead": 0, "cacheWrite": 0, "total": 0.12},
}


def system(ident: str, parent: str | None, **fields: object) -> str:
    return entry(
        "message",
        ident,
        parent,
        message={"role": "system", "content": "", **fields, "timestamp": 1},
    )


def usage(ident: str, parent: str, kind: str) -> str:
    obj = {"type": "usage", "id": ident, "parentId": parent, "timestamp": TS, "kind": kind}
    return js({**obj, "provider": "anthropic", "model": "m", "usage": USAGE})


def edit(ident: str, parent: str, target: str, replacement: object) -> str:
    return entry("context_edit", ident, parent, targetId=target, replacement=replacement)


SESSION = doc(
    header(),
    system(
        A,
        None,
        sections={"preamble": "You are pi.", "cwd": None},
        toolsAdded=[{"name": "read", "description": "r", "parameters": {}}],
        toolsRemoved=[{"name": "write"}],
    ),
    user(B, A, "original question"),
    assistant(C, B, "answer"),
    edit(D, C, B, {"content": "shorter question"}),
    usage(E, D, "cache_warm"),
    edit(F, E, C, None),
)


def hover_text(text: str, line: int) -> str:
    """The hover on an entry's timestamp value (the entry's own hover, not a key's)."""
    a = analyze(text)
    found = hover_at(a, line, a.lines[line].index(TS) + 2)
    assert found is not None
    return found.markdown


def test_titles_of_new_kinds() -> None:
    a = analyze(SESSION)
    assert entry_title(a, 1) == "system: sections preamble; removes cwd; tools +read -write"
    assert entry_title(a, 4) == "context edit: replace: shorter question → line 3"
    assert entry_title(a, 5) == "usage cache_warm: m · $0.1200"
    assert entry_title(a, 6) == "context edit: omit → line 4"


def test_hover_on_system_message_lists_sections_and_tools() -> None:
    md = hover_text(SESSION, 1)
    assert "sections preamble" in md and "removes cwd" in md and "+read" in md and "-write" in md


def test_hover_on_context_edits_says_what_they_do() -> None:
    assert "replaces the content of line 3 with: shorter question" in hover_text(SESSION, 4)
    assert "omits line 4 from the context" in hover_text(SESSION, 6)
    broken = doc(header(), user(A, None), user(B, A), edit(C, B, "0badf00d", None))
    assert "names no entry" in hover_text(broken, 3)
    off = doc(header(), user(A, None), user(B, A), user(C, A), edit(D, C, B, None))
    assert "not on this edit's path" in hover_text(off, 4)


def test_effect_of_edits() -> None:
    a = analyze(SESSION)
    first, second = effect(a, 4), effect(a, 6)
    assert first is not None and (first.target, first.action) == (2, "replace")
    assert second is not None and (second.target, second.action) == (3, "omit")
    assert effect(a, 2) is None
    # an edit of a message the newest compaction summarised away does nothing
    text = doc(
        header(),
        user(A, None),
        assistant(B, A),
        entry("compaction", C, B, summary="s", firstKeptEntryId=C, tokensBefore=1),
        edit(D, C, A, {"content": "x"}),
    )
    late = effect(analyze(text), 4)
    assert late is not None and (late.action, late.reason, late.compaction) == (
        "none",
        "summarised",
        3,
    )


def test_target_id_is_a_link_for_definition_references_and_rename() -> None:
    a = analyze(SESSION)
    site = next(s for s in line_sites(a, 4) if s.field == "targetId")
    assert [t.line for t in resolve(a, site)] == [2]
    assert [(s.line, s.field) for s in references_to(a, 2)] == [(3, "parentId"), (4, "targetId")]
    column = a.lines[2].index(B) + 1
    edits = rename(a, 2, column, "12345678")
    assert sorted({e.start[0] for e in edits}) == [2, 3, 4]


def test_outline_hides_usage_entries_as_pi_does() -> None:
    a = analyze(SESSION)

    def lines(nodes: list) -> list[int]:  # type: ignore[type-arg]
        return [n.line for node in nodes for n in [node, *node.children]]

    shown = lines(outline(a, 100))
    assert 5 not in shown and {1, 2, 3, 4, 6} <= set(shown)
    # the leaf is shown even when it is a usage entry
    leaf_usage = doc(header(), user(A, None), usage(B, A, "k"))
    assert 2 in lines(outline(analyze(leaf_usage), 100))


def test_hover_names_the_pi_release_that_introduced_a_kind() -> None:
    assert "Written by pi 0.86.0 and later." in hover_text(SESSION, 1)  # system message
    assert "Written by pi 0.87.0 and later." in hover_text(SESSION, 4)  # context edit
    assert "Written by pi 0.86.0 and later." in hover_text(SESSION, 5)  # usage entry
    assert "Written by pi" not in hover_text(SESSION, 2)  # a user message is as old as pi


def test_since_annotations_agree_with_the_descriptions() -> None:
    import json
    import re
    from pathlib import Path

    schema = json.loads(
        (Path(__file__).resolve().parents[2] / "schemas" / "session.v3.schema.json").read_text()
    )
    annotated = {k: d for k, d in schema["$defs"].items() if "x-pi-since" in d}
    assert {"usage", "context_edit", "SystemMessage"} <= set(annotated)
    for name, d in annotated.items():
        assert re.search(rf"\bpi {re.escape(d['x-pi-since'])}\b", d["description"]), name
