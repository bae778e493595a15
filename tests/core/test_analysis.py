"""The analysis pipeline (core/checks/analysis.py): the header and version it finds, the slim
values of long lines, and the parses it reuses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pi_lsp.core.checks.analysis as analysis_module
import pi_lsp.core.checks.line_checks as line_checks_module
import pi_lsp.core.entries.lines as lines_module
import pi_lsp.core.entries.slim as slim_module
from pi_lsp.core.checks import gcpause, links
from pi_lsp.core.checks.analysis import analyze, analyze_file
from pi_lsp.core.checks.pairing import message_of
from pi_lsp.core.entries.lines import Kind, LineInfo
from pi_lsp.core.entries.model import SLIM_KEEP, SLIM_LINE, Cancelled, Options
from pi_lsp.core.pi.sent import entry_calls
from pi_lsp.core.views import refs

from .pi_sessions import assistant, doc, entry, header, js, result, user

A, B = "a" * 8, "b" * 8


def test_a_header_below_an_entry_still_gives_the_version() -> None:
    # pi refuses the file (PI100), but the entries are still checked as the version the
    # misplaced header names, not as the v1 an entry without ``version`` would imply
    a = analyze(doc(user(A, None), header(3), user(B, A)))
    assert (a.fmt, a.version, a.header_line) == ("pi", 3, 1)
    assert "PI100" in {f.code for f in a.findings}


def test_without_a_header_entries_with_ids_make_a_v3_session() -> None:
    a = analyze(doc(user(A, None), user(B, A)))
    assert (a.fmt, a.version, a.header_line) == ("pi", 3, None)


def test_without_a_header_entries_without_ids_make_a_v1_session() -> None:
    # an ``id`` on a line that is no entry (no ``type``) does not count
    a = analyze(doc(user(None, False), '{"id":"x"}', user(None, False)))
    assert (a.fmt, a.version, a.header_line) == ("pi", 1, None)


@pytest.mark.parametrize("above", [[], ["not json"]])
def test_a_header_whose_version_is_no_number_lets_the_entries_decide(above: list[str]) -> None:
    # on the first line, or below an invalid line (then every line is parsed first)
    top = js({**json.loads(header()), "version": "3"})
    line = len(above)
    a = analyze(doc(*above, top, user(A, None)))
    assert (a.version, a.header_line) == (3, line)
    a = analyze(doc(*above, top, user(None, False)))
    assert (a.version, a.header_line) == (1, line)


def _nested(depth: int, value: object) -> object:
    for _ in range(depth):
        value = [value]
    return value


def test_a_long_line_cuts_long_strings_down_to_64_levels_deep() -> None:
    # the entry is level 0, ``details`` level 1, its ``cut`` level 2: a string inside 62
    # more lists is on level 64 and cut; one level deeper it is kept whole (no deeper
    # recursion)
    text = "y" * SLIM_LINE
    details = {"cut": _nested(62, text), "kept": _nested(63, text)}
    obj = {**json.loads(user(B, A)), "details": details}
    a = analyze(doc(header(), user(A, None), js(obj)))
    entry = a.entry(2)
    assert entry["details"]["cut"] == _nested(62, text[:SLIM_KEEP])
    assert entry["details"]["kept"] == _nested(63, text)
    assert a.value(2) == obj


def test_a_new_header_version_parses_again_only_the_edge_lines_and_huge_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every line is checked again under the new version, but the parse of an unchanged
    # line is reused; a huge line's kept parse is slim, so that line is parsed in full again
    huge = js({**json.loads(user(B, A)), "details": "z" * SLIM_LINE})
    lines = [header(3), user(A, None), huge, user("c" * 8, B), user("d" * 8, "c" * 8)]
    first = analyze(doc(*lines))
    parsed: list[str] = []
    parse, parse_stored = lines_module.parse, lines_module.parse_stored

    def counting(text: str, **kwargs: bool) -> LineInfo:
        parsed.append(text)
        return parse(text, **kwargs)

    def counting_stored(item: str) -> LineInfo | None:
        found = parse_stored(item)
        if found is not None:  # else the line is parsed from its text
            parsed.append(item)
        return found

    monkeypatch.setattr(analysis_module, "parse", counting)
    monkeypatch.setattr(analysis_module, "parse_stored", counting_stored)
    second = analyze(doc(header(2), *lines[1:]), previous=first)
    assert second.version == 2
    assert sorted(parsed) == sorted([header(2), header(2), huge, lines[-1]])
    assert second.entry(2)["details"] == "z" * SLIM_KEEP


@pytest.mark.parametrize(
    ("version", "lines", "lone"),
    [
        (2, [user(A, None), entry("bookmark", B, None)], True),
        (3, [user(A, None), entry("bookmark", B, A)], False),
        (None, [entry("bookmark", None, False)], False),
        (None, [user(None, False), entry("bookmark", None, False)], False),
    ],
)
def test_an_unknown_last_root_is_where_pi_resumes_from_v2_on(
    version: int | None, lines: list[str], lone: bool
) -> None:
    # v2 and v3 resume from the last entry: a root of an unknown type leaves the context
    # empty; a v1 session is one linear list
    a = analyze(doc(header(version), *lines))
    (finding,) = [f for f in a.findings if f.code == "PI004"]
    assert finding.span.line == len(lines)
    assert ("pi resumes with an empty context" in finding.message) is lone


@pytest.mark.parametrize("blanks", [0, 1, 2, 3])
def test_below_blank_lines_a_header_is_read_before_the_rest_is_parsed(
    monkeypatch: pytest.MonkeyPatch, blanks: int
) -> None:
    # one pass: the version comes from the header alone, so the entries are parsed and
    # checked line by line instead of all parsed first
    events: list[tuple[str, str]] = []
    parse, parse_stored, check = lines_module.parse, lines_module.parse_stored, line_checks_module.check

    def parsing(text: str, **kwargs: bool) -> LineInfo:
        events.append(("parse", text))
        return parse(text, **kwargs)

    def parsing_stored(item: str) -> LineInfo | None:
        events.append(("parse", item))
        return parse_stored(item)

    def checking(text: str, *args: Any) -> Any:
        events.append(("check", text))
        return check(text, *args)

    monkeypatch.setattr(analysis_module, "parse", parsing)
    monkeypatch.setattr(analysis_module, "parse_stored", parsing_stored)
    monkeypatch.setattr(analysis_module, "check", checking)
    lines = [*[""] * blanks, header(2), user(A, None), user(B, A), user("c" * 8, B)]
    a = analyze(doc(*lines))
    assert (a.version, a.header_line) == (2, blanks)
    first_check = next(i for i, (what, _) in enumerate(events) if what == "check")
    assert events.index(("parse", user(A, None))) > first_check


@pytest.mark.parametrize("text", ["", "\n", "\n  \n\t\n"])
def test_a_document_of_blank_lines_is_a_v1_session_without_header(text: str) -> None:
    a = analyze(text)
    assert (a.fmt, a.version, a.header_line) == ("pi", 1, None)


def test_a_file_is_analysed_under_its_name_and_options(tmp_path: Any) -> None:
    text = doc(header(), user(A, None, "x" * 300))
    path = tmp_path / "2026-01-02T03-04-05-678Z_other-id.jsonl"
    path.write_text(text, encoding="utf-8")
    options = Options(large_line=200)
    got = analyze_file(str(path), options)
    want = analyze(text, str(path), options)
    assert got.path == str(path) and got.options == options
    assert {"PI104", "PI500"} <= {f.code for f in got.findings}
    assert got.findings == want.findings


def test_a_file_that_grew_is_analysed_from_the_previous_analysis(tmp_path: Any) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(doc(header(), user(A, None), user(B, A)), encoding="utf-8")
    before = analyze_file(str(path))
    with path.open("a", encoding="utf-8") as out:
        out.write(user("c" * 8, B) + "\n")
    after = analyze_file(str(path), previous=before)
    assert after.infos[1] is before.infos[1]  # kept, not parsed and checked again
    assert after.findings == analyze_file(str(path)).findings


def test_emptying_the_last_line_makes_the_line_above_the_last_one() -> None:
    # a line cut off mid-object is PI001 inside the file, PI002 as its last line
    torn = user(A, None)[:-9]
    before = analyze(doc(header(), torn, user(B, A)))
    text = doc(header(), torn, "")
    after = analyze(text, previous=before)
    assert [f.code for f in after.findings if f.span.line == 1] == ["PI002"]
    assert after.findings == analyze(text).findings


def test_entries_written_below_a_lone_header_give_a_fresh_analysis() -> None:
    before = analyze(doc(header()))
    text = doc(header(), user(A, None), user(B, A), user("c" * 8, "x" * 8))
    after = analyze(text, previous=before)
    fresh = analyze(text)
    assert after.findings == fresh.findings and after.tree == fresh.tree


def test_typing_in_a_message_keeps_the_links_and_their_views(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = doc(header(), user(A, None, "hello"), user(B, A), user("c" * 8, B))
    before = analyze(text)
    index = refs.index(before)

    def again(a: Any) -> Any:
        raise AssertionError("the links were analysed again")

    monkeypatch.setattr(links, "check", again)
    after = analyze(text.replace("hello", "hello there"), previous=before)
    assert after.tree is before.tree and after.link_findings is before.link_findings
    assert refs.index(after) is index


@pytest.mark.parametrize("with_header", [True, False], ids=["header", "no-header"])
@pytest.mark.parametrize("extra", [0, 1])
def test_progress_polls_once_a_tick_of_new_text_is_done(
    monkeypatch: pytest.MonkeyPatch, with_header: bool, extra: int
) -> None:
    # entries of one length L; the first and last non-blank lines are parsed apart (as pi
    # trims them) and count no text; a tick of L polls after every other line, of L + 1
    # after every second one, each time with the number of lines done
    entries = [user(f"{n:08x}", f"{n + 100:08x}") for n in range(12)]
    monkeypatch.setattr(analysis_module, "_TICK", len(entries[0]) + extra)
    lines = [header(), *entries] if with_header else entries
    reports: list[tuple[int, int]] = []
    text = doc(*lines)
    analyze(text, progress=lambda done, total: reports.append((done, total)))
    total = len(text.split("\n"))
    once = [(i + 1, total) for i in range(1, len(lines) - 1) if i % (1 + extra) == 0]
    assert reports == once * (1 if with_header else 2)  # parsed, then checked


@pytest.mark.parametrize("polls", [1, 14], ids=["while-parsing", "while-checking"])
def test_an_analysis_cancelled_on_the_way_is_finished_from_what_it_did(
    monkeypatch: pytest.MonkeyPatch, polls: int
) -> None:
    # without a header every line is parsed first (about 10 polls here), then checked
    monkeypatch.setattr(analysis_module, "_TICK", 300)
    text = doc(*(user(f"{n:08x}", f"{n + 100:08x}") for n in range(20)))
    asked = 0

    def cancelled() -> bool:
        nonlocal asked
        asked += 1
        return asked == polls

    with pytest.raises(Cancelled) as stopped:
        analyze(text, cancelled=cancelled)
    assert analyze(text, partial=stopped.value).findings == analyze(text).findings


def test_slim_copies_only_the_containers_on_a_path_to_a_cut() -> None:
    long = "x" * (SLIM_KEEP + 1)
    value = {
        "type": "message",
        "message": {"role": "user", "content": [{"type": "text", "text": long}, {"type": "image"}]},
        "label": long,
        "usage": {"input": 1},
    }
    before = json.loads(json.dumps(value))
    slim = slim_module.slim_value(value)
    assert value == before  # nothing cut in place: the value may be another analysis's
    assert slim["message"]["content"][0]["text"] == long[:SLIM_KEEP]
    assert slim["label"] == long  # no text key: kept whole
    assert slim["usage"] is value["usage"] and slim["message"]["content"][1] is value["message"]["content"][1]
    untouched = {"type": "message", "message": {"role": "user", "content": "short"}}
    assert slim_module.slim_value(untouched) is untouched


def _reference_slim(value: Any, key: str | None = None, free: bool = False) -> Any:
    """What ``_slim`` computes, said plainly: every string that is a text (under a text
    key, or anywhere in a free-form value) longer than SLIM_KEEP is cut."""
    if isinstance(value, dict):
        return {
            k: _reference_slim(v, k, free or k in slim_module._FREE_KEYS)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_reference_slim(v, key, free) for v in value]
    if isinstance(value, str) and len(value) > SLIM_KEEP and (
        free or key in slim_module._TEXT_KEYS
    ):
        return slim_module._cut(value)
    return value


_SLIM_KEYS = st.sampled_from(["text", "arguments", "details", "content", "id", "type", "x"])
_SLIM_LEAVES = st.one_of(
    st.sampled_from([1, 2.5, True, None]),
    st.sampled_from([SLIM_KEEP - 1, SLIM_KEEP, SLIM_KEEP + 1, 3 * SLIM_KEEP]).map(
        lambda n: " " * (n % 3) + "y" * n
    ),
)
_SLIM_VALUES = st.recursive(
    _SLIM_LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_SLIM_KEYS, inner, max_size=4),
    max_leaves=30,
)


def _long_texts(value: Any, key: str | None = None, free: bool = False) -> int:
    """How many texts longer than SLIM_KEEP ``value`` holds (see ``_reference_slim``)."""
    if isinstance(value, dict):
        return sum(
            _long_texts(v, k, free or k in slim_module._FREE_KEYS) for k, v in value.items()
        )
    if isinstance(value, list):
        return sum(_long_texts(v, key, free) for v in value)
    long = isinstance(value, str) and len(value) > SLIM_KEEP
    return int(long and (free or key in slim_module._TEXT_KEYS))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_SLIM_KEYS, _SLIM_VALUES, max_size=4))
def test_slim_cuts_every_long_text_and_copies_nothing_else(value: dict[str, Any]) -> None:
    before = json.dumps(value)
    slim = slim_module.slim_value(value)
    assert slim == _reference_slim(value)
    assert json.dumps(value) == before  # nothing cut in place
    assert (slim is value) == (_long_texts(value) == 0)  # copied only on a path to a cut
    for k, v in value.items():
        if isinstance(v, dict | list) and _long_texts(v, k, k in slim_module._FREE_KEYS) == 0:
            assert slim[k] is v


def test_each_line_carries_the_role_and_calls_its_value_holds() -> None:
    # read once at parse time for the link passes: they must be what the value says, also
    # for a parse reused under another header version
    turn = json.loads(assistant("c" * 8, B, calls=("t1", "t2")))
    turn["message"]["content"].insert(1, {"type": "toolCall", "id": 7})
    lines = [
        header(3),
        user(A, None),
        user(B, A, "😀"),
        js(turn),
        result("d" * 8, "c" * 8, "t1"),
        js({**json.loads(user("e" * 8, "d" * 8)), "message": ["user"]}),
        js({**json.loads(user("f" * 8, "e" * 8)), "message": {"content": "no role"}}),
        js({**turn, "type": "custom"}),  # holds a message, but is no message entry
        js({"message": turn["message"]}),  # no type: not an entry
        "{not json",
    ]
    first = analyze(doc(*lines))
    again = analyze(doc(header(2), *lines[1:]), previous=first)
    for a in (first, again):
        facts = [(i.role, i.calls) for i in a.infos]
        expected = [
            (message_of(i.obj).get("role") if i.kind is Kind.ENTRY else None, entry_calls(i.obj))
            for i in a.infos
        ]
        assert facts == expected
    assert first.infos[3].calls == ((2, "t1"), (3, "t2"))
    assert [i.role for i in first.infos[1:5]] == ["user", "user", "assistant", "toolResult"]


def _utf8_lines() -> list[str]:
    """A session whose lines are all stored as UTF-8 (an emoji in each), one of each kind a
    line held as bytes can be: clean entries, findings of every line-local sort, lines
    that are no entry, and a long line (slim, and over a small ``large_line``)."""
    smile = "😀"
    bad_time = {**json.loads(user("e" * 8, "d" * 8, smile)), "timestamp": 5}
    hook = json.loads(user("f" * 8, "e" * 8, smile))
    hook["message"]["role"] = "hookMessage"
    return [
        header(3, cwd=smile),
        user(A, None, smile),
        user(B, A, smile * 700),  # 2,800 bytes, 700 characters: slim as stored
        user("c" * 8, B, smile + "x" * 5000),  # over large_line=4000 (PI500)
        js(bad_time),  # PI200
        js(hook),  # PI301
        '{"type":"message","id":"' + smile,  # PI001
        " " + user("d" * 8, B, smile),  # leading space: decoded, parsed as text
        js({smile: 1}),  # an object with no type
        js([smile]),
        user("g" * 8, "f" * 8, smile + "한국어"),  # 0xED 0x95...: Hangul, no surrogate
    ]


def test_a_line_stored_as_utf8_gets_the_results_of_its_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = doc(*_utf8_lines())
    options = Options(large_line=4000)
    a = analyze(text, options=options)
    assert all(isinstance(a.text.lines.raw(n), bytes) for n in range(len(a.infos) - 1))
    codes = {(f.span.line, f.code) for f in a.line_findings}
    assert {(3, "PI500"), (4, "PI200"), (5, "PI301"), (6, "PI001"), (8, "PI003"), (9, "PI003")} <= codes
    # the same analysis with every line handled as text (decoded first, fully checked)
    monkeypatch.setattr(analysis_module, "parse_stored", lambda item: None)
    monkeypatch.setattr(analysis_module, "plain", analysis_module.unpack)
    b = analyze(text, options=options)
    assert a.findings == b.findings
    assert [(i.kind, i.value, i.issues) for i in a.infos] == [
        (i.kind, i.value, i.issues) for i in b.infos
    ]
    assert a.entry(2) != json.loads(_utf8_lines()[2])  # slim: its text is cut
    assert a.value(2) == json.loads(_utf8_lines()[2])


def test_a_one_shot_analysis_gets_the_same_results_and_keeps_no_line_by_text() -> None:
    long_one = user("c" * 8, B, "x" * 5000)  # a long line, twice (same text, same results)
    long_bad = json.dumps({**json.loads(long_one), "id": "d" * 8, "timestamp": 5})  # PI200
    lines = [header(), user(A, None), user(B, A), long_one, long_one, long_bad, user(B, A)]
    text = doc(*lines, user("e" * 8, "c" * 8))
    kept, once = analyze(text), analyze(text, reuse=False)
    assert once.findings == kept.findings
    assert [(i.kind, i.value, i.issues) for i in once.infos] == [
        (i.kind, i.value, i.issues) for i in kept.infos
    ]
    assert any(f.code == "PI200" and f.span.line == 5 for f in once.findings)
    # by text, all but the edge lines (the header, the last entry); the empty line 8 too
    assert set(kept.cache) == {once.lines.raw(n) for n in (1, 2, 3, 5, 8)}
    assert once.cache == {}  # no line: no later analysis reuses it
    assert once.infos[3] is not once.infos[4] and kept.infos[3] is kept.infos[4]
    # a later analysis of the one-shot one still gets the same results
    again = analyze(text + user("f" * 8, "e" * 8) + "\n", previous=once)
    assert again.findings == analyze(text + user("f" * 8, "e" * 8) + "\n").findings


@pytest.mark.parametrize("text", ["😀\udc80", "😀\udcff", "é\udc80", "한\udc80"])
def test_a_lone_surrogate_gets_its_pi001_however_the_line_is_stored(text: str) -> None:
    # an undecodable byte (read as U+DC80-U+DCFF) beside an emoji: the line is stored as
    # UTF-8 bytes, and the check of a clean line trusts stored bytes without 0xED, so a
    # surrogate (0xED ...) must still reach the full check
    a = analyze(doc(header(), user(A, None, text), user(B, A, "😀")))
    assert [(f.code, f.span.line) for f in a.findings if f.code == "PI001"] == [("PI001", 1)]


def test_what_an_analysis_built_is_frozen_until_collect_frozen() -> None:
    """No collection walks an analysis once it ends (it is frozen, not aged into the old
    generation, where every full collection would walk it again); collect_frozen gives
    it back to the collector."""
    import gc

    gcpause.collect_frozen()
    a = analyze(doc(header(), user("a1", None), user("a2", "a1")))
    try:
        assert gc.get_freeze_count() > 0
        assert all(o is not a.infos for o in gc.get_objects())
    finally:
        gcpause.collect_frozen()
    assert gc.get_freeze_count() == 0
    assert any(o is a.infos for o in gc.get_objects())
