"""An analysis keeps facts, not parsed values, of its short lines; the resumed context built
on those facts is the one built from the values (``context.lean_context``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.checks.pairing import resumed_request
from pi_lsp.core.entries.lines import ABSENT, parse_stored
from pi_lsp.core.entries.model import SLIM_LINE
from pi_lsp.core.pi import context
from pi_lsp.core.pi.sent import request
from pi_lsp.core.pi.stats import analysis_stats, analysis_totals, split_by_path, totals
from pi_lsp.core.text.files import read_lines

from .pi_sessions import assistant, doc, entry, header, result, user

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT.parent / "shared" / "fixtures"
FILES = sorted(
    [
        *(FIXTURES.glob("*.jsonl") if FIXTURES.is_dir() else []),
        *(ROOT / "examples").glob("*.jsonl"),
        *(ROOT / "tests" / "data").rglob("*.jsonl"),
    ]
)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_context_built_on_facts_is_the_one_built_from_values(path: Path) -> None:
    a = analyze(read_lines(path))
    lines = context.lean_lines(a)
    if lines is None:
        pytest.skip("built from values (migrated, or with context edits)")
    by_id = context.lean_index(a, lines)
    assert dict(by_id) == context.entry_index(context.entries_of(a))
    ctx = context.lean_context(a, lines, by_id)
    want = context.build_context(context.entries_of(a))
    assert ctx == want
    sent, fresh = request(ctx), request(want)
    assert (sent.messages, sent.dropped) == (fresh.messages, fresh.dropped)
    assert sent.synthetic == fresh.synthetic


def test_an_analysis_holds_no_value_of_a_short_line_but_its_facts() -> None:
    text = doc(
        header(),
        user("a" * 8, None),
        assistant("b" * 8, "a" * 8, calls=("c1",)),
        result("r" * 8, "b" * 8, "c1"),
        entry("custom", "u" * 8, "r" * 8, customType="x"),
        user("e" * 8, "u" * 8),
    )
    a = analyze(text)
    held = [n for n in range(2, 5) if a.infos[n].held is not None and a.infos[n].source is None]
    assert held == []  # lines 2-4: neither the first nor the last non-blank line, all short
    assert all(len(a.lines.raw(n)) < SLIM_LINE for n in range(2, 5))
    # ... and what they hold is what their values say
    for n in range(1, 6):
        value, info = a.value(n), a.infos[n]
        assert info.ident == value.get("id", ABSENT)
        assert info.parent == value.get("parentId", ABSENT)
    assert a.infos[2].stop_reason == a.value(2)["message"]["stopReason"]
    assert a.infos[3].tool_call_id == "c1"
    # the id an entry names as its parent is kept once
    assert a.infos[3].parent is a.infos[2].ident
    # the resumed leaf's messages are kept by the lines' results, and read in full
    paired = a.link_state.pairing if a.link_state is not None else None  # type: ignore[attr-defined]
    assert paired is not None and paired.entries is None
    kept = [m for m in paired.resumed.messages if m.source is not None]
    assert [m.line for m in kept] == [1, 2, 3, 5]
    assert kept[1].message == a.value(2)["message"]
    sent = [m.role for m in resumed_request(paired).messages]
    assert sent == ["user", "assistant", "toolResult", "user"]  # a custom entry is not sent


def test_a_v1_analysis_keeps_its_values_which_the_migration_reads() -> None:
    """pi migrates a v1 session from its entries' values (ids made up, parents chained): an
    analysis of one keeps them, so the migration, pi's entries and its context do not parse
    each line again (a v1 session is an old one: small)."""
    text = doc(header(1), user(None, False), assistant(None, False), user(None, False))
    a = analyze(text)
    assert a.version == 1
    assert all(a.infos[n].held is not None and a.infos[n].source is None for n in range(1, 4))


def test_a_session_whose_context_is_built_from_values_keeps_them() -> None:
    """A context edit (or, in v2, a hook message pi renames) makes pi's context be built
    from the entries' values: the analysis keeps them rather than parse each line again; an
    append that adds such an entry keeps them from there on (the same results)."""
    lean = [header(), user("a", None), assistant("b", "a"), user("c", "b")]
    edited = [*lean, entry("context_edit", "e", "c", targetId="b", replacement=None), user("d", "e")]
    kept = analyze(doc(*edited))
    assert kept.keeps_values and context.lean_lines(kept) is None
    assert all(kept.infos[n].source is None for n in range(1, 6))
    plain = analyze(doc(*lean, user("d", "c")))
    assert not plain.keeps_values and plain.infos[2].source is not None
    grown = analyze(doc(*edited), previous=plain)  # an append from plain's last line: its new lines decide
    assert grown.keeps_values and grown.findings == kept.findings


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_totals_counted_without_records_are_the_sums_of_the_records(path: Path) -> None:
    a = analyze(read_lines(path))
    stats = analysis_stats(a)
    whole, split = analysis_totals(a)
    assert whole == totals(stats.counted)
    active, abandoned = split_by_path(stats.counted)
    want = (active.usage, abandoned.usage, len(stats.branches) - 1)
    assert split == (want if len(stats.branches) > 1 else None)


def test_results_are_equal_when_their_values_are_however_each_keeps_it() -> None:
    x = '{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}'
    y = x.replace('"x"', '"y"')
    kept, again, other = parse_stored(x), parse_stored(x), parse_stored(y)
    assert kept is not None and again is not None and other is not None
    again.parsed_on_demand(x)
    other.parsed_on_demand(y)
    assert again == kept and again.value == kept.value and again.value is not again.value
    assert other != again  # both parsed on demand, from different lines


def test_a_message_list_holds_what_a_list_of_context_messages_holds() -> None:
    """Messages kept by their line's result (12 bytes each) and others (kept whole) come
    back equal, in order, through every way of reading them."""
    kept = parse_stored('{"type":"message","message":{"role":"user","content":"hi"}}')
    assert kept is not None
    items = [
        context.ContextMessage(3, None, None, kept),
        context.ContextMessage(4, {"role": "assistant", "content": []}),
        context.ContextMessage(5, {"role": "user", "content": "x"}, edited=9),
        context.ContextMessage(6, None, None, kept),
    ]
    held = context.MessageList(items)
    assert held == items and list(held) == items and len(held) == 4
    assert [held[n] for n in range(-4, 4)] == items + items
    assert held[1:3] == items[1:3] and isinstance(held[1:3], context.MessageList)
    assert [m.line for m in held] == [3, 4, 5, 6]
    assert held[0].source is kept and held[0].message == {"role": "user", "content": "hi"}
    assert held[2].edited == 9 and held[1] is items[1]  # a message kept whole is the same object
    grown = held[:2]
    grown.extend(held[2:])
    grown.add_kept(7, kept)
    assert grown == [*items, context.ContextMessage(7, None, None, kept)]
    assert held == items  # a slice is a copy
    with pytest.raises(IndexError):
        held[4]


def test_the_entry_index_reads_the_tree_when_every_entry_has_a_string_id() -> None:
    """Ids repeat (pi's ``byId`` keeps the last); one entry without an id makes it a dict."""
    text = doc(header(), user("a", None), user("b", "a"), user("a", "b"), user("c", "a"))
    a = analyze(text)
    lines = context.lean_lines(a)
    assert lines is not None
    by_id = context.lean_index(a, lines)
    assert isinstance(by_id, context.EntryIds)
    assert dict(by_id) == {"a": 2, "b": 1, "c": 3} == context.entry_index(context.entries_of(a))
    assert [by_id.get(k) for k in ("a", "zz", 7, None)] == [2, None, None, None]
    b = analyze(doc(header(), user("a", None), user(None, "a")))
    plain = context.lean_index(b, context.lean_lines(b) or [])
    assert not isinstance(plain, context.EntryIds)
    assert plain == context.entry_index(context.entries_of(b))
