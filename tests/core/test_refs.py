"""Link sites, targets, the reverse index, the cursor under a column, and the fast scanners."""

from __future__ import annotations

import json
import random
from itertools import pairwise
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.text.cursor import cursor_at
from pi_lsp.core.text.jsonl import Walked, locate, skip_value
from pi_lsp.core.views.refs import (
    Site,
    Target,
    labels,
    line_sites,
    references_to,
    resolve,
    session_path,
    subject_at,
    tool_sites,
)

from .features_sample import LINES, PATH, TEXT
from .pi_sessions import header, user

A = analyze(TEXT, PATH)
FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"


def test_sites_of_each_line() -> None:
    assert line_sites(A, 0) == [Site(0, "parentSession", ("parentSession",), "../parent.jsonl")]
    assert line_sites(A, 1) == []  # a null parentId is not a link
    assert line_sites(A, 4) == [
        Site(4, "parentId", ("parentId",), "a1"),
        Site(4, "toolCallId", ("message", "toolCallId"), "call_1"),
    ]
    assert [s.field for s in line_sites(A, 5)] == ["parentId", "targetId"]
    assert [s.field for s in line_sites(A, 6)] == ["parentId", "fromId"]
    assert [s.field for s in line_sites(A, 8)] == ["parentId", "firstKeptEntryId"]


def test_targets() -> None:
    sites = {s.field: s for n in range(len(LINES)) for s in line_sites(A, n)}
    assert resolve(A, sites["targetId"]) == [Target(2, ("id",))]
    assert resolve(A, sites["fromId"]) == [Target(5, ("id",))]
    assert resolve(A, sites["firstKeptEntryId"]) == [Target(7, ("id",))]
    assert resolve(A, sites["toolCallId"]) == [Target(3, ("message", "content", 1))]
    parent = resolve(A, sites["parentSession"])
    assert parent == [Target(None, (), "/tmp/pi-lsp-features/parent.jsonl")]


def test_reverse_index() -> None:
    refs = [(s.line, s.field) for s in references_to(A, 2)]
    assert refs == [(3, "parentId"), (5, "targetId"), (6, "parentId")]
    assert [(s.line, s.field) for s in references_to(A, 7)] == [
        (8, "parentId"),
        (8, "firstKeptEntryId"),
    ]
    calls, results = tool_sites(A, "call_1")
    assert calls == [(3, 1)] and [s.line for s in results] == [4]
    assert labels(A) == {2: "start"}


def test_a_later_label_entry_clears_the_label() -> None:
    clear = '{"type":"label","id":"l2","parentId":"s1","timestamp":"x","targetId":"u1"}'
    a = analyze(TEXT + clear + "\n")
    assert labels(a) == {}


def test_subjects_under_the_cursor() -> None:
    line = LINES[5]
    on_target = subject_at(A, 5, line.index('"u1"') + 1)
    assert on_target is not None and on_target.kind == "entry" and on_target.line == 2
    assert on_target.site is not None and on_target.site.field == "targetId"
    start = line.index('"u1"')
    assert on_target.span == (start, start + 4)
    own = subject_at(A, 2, LINES[2].index('"u1"') + 2)
    assert own is not None and own.declaration and own.line == 2
    call = subject_at(A, 3, LINES[3].index('"call_1"'))
    assert call is not None and (call.kind, call.tool_id, call.declaration) == (
        "tool",
        "call_1",
        True,
    )
    elsewhere = subject_at(A, 3, LINES[3].index("reading"))
    assert elsewhere is not None and elsewhere.line == 3 and elsewhere.site is None
    assert subject_at(A, 10, 0) is None  # the empty last line


def test_v1_first_kept_entry_index_counts_parsed_lines() -> None:
    header = '{"type":"session","id":"s","timestamp":"t","cwd":"/"}'
    user = (
        '{"type":"message","timestamp":"t","message":{"role":"user","content":"hi","timestamp":1}}'
    )
    compaction = '{"type":"compaction","timestamp":"t","summary":"s","firstKeptEntryIndex":2,"tokensBefore":1}'
    a = analyze("\n".join([header, user, "", "{broken", user, compaction]) + "\n")
    site = line_sites(a, 5)[0]
    assert site.field == "firstKeptEntryIndex"
    assert resolve(a, site) == [Target(4, ())]  # header=0, line 1=1, line 4=2
    assert [s.line for s in references_to(a, 4)] == [5]


def test_session_paths() -> None:
    assert session_path(A, "/abs/x.jsonl") == "/abs/x.jsonl"
    assert session_path(A, "sib.jsonl") == "/tmp/pi-lsp-features/sessions/sib.jsonl"


def test_cursor_chain() -> None:
    line = LINES[3]
    col = line.index("/src/a.ts")
    cur = cursor_at(line, col)
    assert cur is not None and not cur.on_key
    assert cur.path == ("message", "content", 1, "arguments", "path")
    assert [n.path for n in cur.chain][:3] == [(), ("message",), ("message", "content")]
    key = cursor_at(line, line.index('"stopReason"') + 3)
    assert key is not None and key.on_key and key.path == ("message", "stopReason")
    assert cursor_at(line, len(line) + 5) is None
    assert cursor_at("   ", 1) is None


def test_cursor_counts_code_points_after_emoji_and_u2028() -> None:
    line = LINES[7]
    cur = cursor_at(line, line.index('"b1"') + 1)
    assert cur is not None and cur.path == ("parentId",)
    assert cur.node.value == (line.index('"b1"'), line.index('"b1"') + 4)
    line = LINES[2]
    cur = cursor_at(line, line.index("world"))
    assert cur is not None and cur.path == ("message", "content")


def _fixture_lines() -> list[str]:
    path = FIXTURES / "pi-v3-branched.jsonl"
    if not path.exists():
        return LINES
    return path.read_text(encoding="utf-8").splitlines()[:60]


def _paths(value: object, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for n, item in enumerate(value):
            out += _paths(item, (*prefix, n))
    return out


def _at(value: object, path: tuple[str | int, ...]) -> object:
    for item in path:
        value = value[item]  # type: ignore[index]
    return value


def _check_spans(line: str, value: object) -> None:
    """Every path's value span holds exactly that value, and skip_value ends it."""
    for path in _paths(value):
        loc = locate(line, path)
        assert loc.depth == len(path)
        start, end = loc.value
        assert json.loads(line[start:end]) == _at(value, path), (line[:60], path)
        assert skip_value(line, start) == end
        if path and isinstance(path[-1], str):
            assert loc.key is not None
            assert json.loads(line[loc.key[0] : loc.key[1]]) == path[-1]


def test_locate_finds_every_value_of_real_lines() -> None:
    for line in [*LINES, *_fixture_lines()]:
        _check_spans(line, orjson.loads(line))
        assert locate(line, ("nope",)).depth == 0
        assert locate(line, ("message", 99)).depth <= 1


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab"\\\u2028é🚀{}[]:,'),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(alphabet='k"\\{', max_size=3), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_locate_finds_every_value_of_random_json(value: object) -> None:
    text = json.dumps({"v": value}, ensure_ascii=False, separators=(", ", ": "))
    _check_spans(text, json.loads(text))


@settings(max_examples=150, deadline=None)
@given(json_values, st.randoms(use_true_random=False))
def test_locate_with_walked_containers_finds_what_a_fresh_walk_finds(
    value: object, rnd: random.Random
) -> None:
    """One memo of walked containers, shared by every lookup in a line, changes no answer:
    for every path, a path that goes past a value, and indexes out of range, in any order."""
    text = json.dumps({"v": value, "v ": [value]}, ensure_ascii=False, separators=(",", ":"))
    paths = _paths(json.loads(text))
    paths += [(*p, q) for p in paths for q in ("missing", 7, -1)]
    rnd.shuffle(paths)
    walked: Walked = {}
    for path in paths:
        assert locate(text, path, walked) == locate(text, path), path


def test_spans_of_many_tool_calls_in_one_line_walk_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A finding on each of n tool calls of one message costs O(n) scanning, not O(n²)."""
    import pi_lsp.core.text.jsonl as jsonl

    def scans(n: int) -> int:
        calls = [{"type": "toolCall", "id": f"c{i}", "name": "read", "arguments": {}} for i in range(n)]
        text = "\n".join(
            [
                header(3),
                user("u1", None),
                json.dumps(
                    {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "t",
                     "message": {"role": "assistant", "content": calls, "stopReason": "toolUse"}}
                ),
            ]
        )
        count = 0
        real = jsonl.skip_value

        def counted(line: str, start: int) -> int:
            nonlocal count
            count += 1
            return real(line, start)

        monkeypatch.setattr(jsonl, "skip_value", counted)
        a = analyze(text)
        assert sum(f.code == "PI421" for f in a.findings) == n
        monkeypatch.setattr(jsonl, "skip_value", real)
        return count

    small, large = scans(100), scans(400)
    assert large < 6 * small, (small, large)  # linear: about 4x; one walk per finding: 16x


@pytest.mark.parametrize("column", range(0, 40))
def test_every_column_of_a_small_line_has_a_consistent_chain(column: int) -> None:
    line = '{"a": [1, {"b": "x\\"y"}], "c": null}'
    cur = cursor_at(line, column)
    if cur is None:
        assert column >= len(line)
        return
    for outer, inner in pairwise(cur.chain):
        assert outer.value[0] <= inner.value[0] and inner.value[1] <= outer.value[1]
    node = cur.node
    span = node.key if cur.on_key and node.key else node.value
    assert span[0] <= column <= span[1]


@pytest.mark.parametrize(
    ("column", "path", "on_key"),
    [
        (5, ("a",), False),  # at the opening quote of "bc"
        (9, ("a",), False),  # just past its closing quote: still on it (a word typed there)
        (15, ("d", 0), False),  # on the first character of an element
        (19, ("d", 1), False),  # just past 22
        (10, ("d",), True),  # on the key's opening quote
        (11, ("d",), True),  # inside the key "d"
        (13, ("d",), True),  # just past the key's closing quote
        (21, (), False),  # past the closing brace: the whole line
    ],
)
def test_cursor_just_past_a_value_is_on_that_value(
    column: int, path: tuple[object, ...], on_key: bool
) -> None:
    line = '{"a":"bc","d":[1,22]}'
    cur = cursor_at(line, column)
    assert cur is not None and (cur.path, cur.on_key) == (path, on_key)


def test_cursor_on_an_empty_line_is_none() -> None:
    assert cursor_at("", 0) is None


def test_cursor_chain_stops_64_levels_below_the_line() -> None:
    """A line nested thousands deep (pi can write one) costs a bounded walk."""
    line = "[" * 3000 + "]" * 3000
    cur = cursor_at(line, 2999)
    assert cur is not None and len(cur.chain) == 1 + 64
    assert cur.path == (0,) * 64


def test_the_entry_types_the_links_check_are_those_the_index_reads_fields_of() -> None:
    """A reference field of its own (refs.ID_FIELDS) is what the link check looks at
    (links.REFERRING): a type added to one and not the other would go unseen there."""
    from pi_lsp.core.checks.links import REFERRING
    from pi_lsp.core.views.refs import ID_FIELDS

    assert {t for types in ID_FIELDS.values() for t in types} == REFERRING
