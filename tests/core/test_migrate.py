"""Migration to v3 as minimal edits: pi's values, every other byte kept."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.pi import migrate
from pi_lsp.core.text.findings import Severity

from .pi_sessions import assistant, changed_lines, doc, entry, header, hook, result, user

DATA = Path(__file__).resolve().parents[1] / "data"

V1 = [
    header(None, provider="anthropic", modelId="claude", thinkingLevel="off"),
    user(None, False, "first \u2028 line"),
    assistant(None, False, "answer", calls=("c1",)),
    "",
    "{not json",
    result(None, False, "c1"),
    entry("compaction", None, False, summary="S", firstKeptEntryIndex=3, tokensBefore=9),
    user(None, False, "after"),
]
# pi's parsed list: 0 header, 1 user, 2 assistant, 3 result, 4 compaction, 5 user


def migrated(text: str) -> tuple[migrate.Migration, str]:
    a = analyze(text)
    m = migrate.plan(a)
    assert m is not None
    return m, migrate.migrated_text(a, m)


_INSERTED = re.compile(r',"id":"[0-9a-f]{8}","parentId":(?:null|"[0-9a-f]{8}")')


def test_v1_entries_get_ids_right_after_type() -> None:
    text = doc(*V1)
    m, out = migrated(text)
    old, new = text.split("\n"), out.split("\n")
    assert len(old) == len(new)
    assert new[0] == V1[0].replace('{"type":"session",', '{"type":"session","version":3,')
    for i in (1, 2, 5, 7):
        assert _INSERTED.search(new[i])
        assert new[i].startswith('{"type":"message","id":')
        assert _INSERTED.sub("", new[i], count=1) == old[i]  # every other byte kept
    assert new[3] == "" and new[4] == "{not json"  # blank and unparsable lines untouched
    ids = [json.loads(new[i])["id"] for i in (1, 2, 5, 6, 7)]
    parents = [json.loads(new[i])["parentId"] for i in (1, 2, 5, 6, 7)]
    assert parents == [None, *ids[:-1]]  # a chain over the parsed entries
    assert len(set(ids)) == 5
    assert m.ids == dict(zip((1, 2, 5, 6, 7), ids, strict=True))


def test_v1_first_kept_index_counts_parsed_lines_only() -> None:
    m, out = migrated(doc(*V1))
    compaction = out.split("\n")[6]
    obj = json.loads(compaction)
    # index 3 = the toolResult (line 5): blank and broken lines are not in pi's list
    assert obj["firstKeptEntryId"] == m.ids[5]
    assert "firstKeptEntryIndex" not in obj
    # the index member was replaced in place
    assert compaction.endswith(f'"summary":"S","firstKeptEntryId":"{m.ids[5]}","tokensBefore":9}}')
    assert m.first_kept == {6: m.ids[5]} and m.dropped_index == {6}


@pytest.mark.parametrize(
    ("index", "kept_id"),
    [
        (0, None),  # the header: pi drops the index and sets nothing
        (99, None),  # outside the list
        (-1, None),
        (4, "self"),  # the compaction itself (its new id is already set)
        (5, None),  # a later entry: it has no id yet when pi converts
        (2.0, "line2"),  # a JS number: 2.0 is 2
    ],
)
def test_v1_first_kept_index_edge_cases(index: float, kept_id: str | None) -> None:
    lines = list(V1)
    lines[6] = entry(
        "compaction", None, False, summary="S", firstKeptEntryIndex=index, tokensBefore=9
    )
    m, out = migrated(doc(*lines))
    obj = json.loads(out.split("\n")[6])
    assert "firstKeptEntryIndex" not in obj
    if kept_id is None:  # absent, not null: pi's undefined disappears from the JSON
        assert "firstKeptEntryId" not in obj
    else:
        assert obj["firstKeptEntryId"] == {"self": m.ids[6], "line2": m.ids[2]}[kept_id]


@pytest.mark.parametrize(
    ("index", "kept"),
    [
        (6, True),  # just past pi's list (it has 6 entries): no entry there
        (99, True),
        (-1, True),
        (1.5, True),  # no array index: entries[1.5] is undefined
        (0, True),  # the header: pi sets nothing
        (5, False),  # a later entry: pi assigns its id, still undefined, so the member goes
        (3, False),  # an earlier entry: its new id replaces the old one
    ],
)
def test_v1_index_naming_no_entry_keeps_an_existing_first_kept_id(index: float, kept: bool) -> None:
    """pi assigns ``firstKeptEntryId`` only when the index names an entry, and always drops
    the index: a compaction that already had an id keeps it otherwise."""
    lines = list(V1)
    lines[6] = entry(
        "compaction",
        None,
        False,
        summary="S",
        firstKeptEntryIndex=index,
        firstKeptEntryId="earlier1",
    )
    m, out = migrated(doc(*lines))
    obj = json.loads(out.split("\n")[6])
    assert "firstKeptEntryIndex" not in obj
    if kept:
        assert obj["firstKeptEntryId"] == "earlier1"
    elif index == 3:
        assert obj["firstKeptEntryId"] == m.ids[5]
    else:
        assert "firstKeptEntryId" not in obj
    assert m.dropped_index == {6}
    assert migrate.migrated_values(analyze(doc(*lines)), m)[4][1] == obj


def test_v1_non_numeric_index_is_left_alone() -> None:
    lines = list(V1)
    lines[6] = entry("compaction", None, False, summary="S", firstKeptEntryIndex="3")
    _, out = migrated(doc(*lines))
    obj = json.loads(out.split("\n")[6])
    assert obj["firstKeptEntryIndex"] == "3" and "firstKeptEntryId" not in obj


def test_v1_forward_index_keeps_the_stale_id_of_a_half_migrated_target() -> None:
    lines = [
        header(None),
        entry("compaction", None, False, summary="S", firstKeptEntryIndex=2),
        user("old12345", "x"),
    ]
    m, out = migrated(doc(*lines))
    new = out.split("\n")
    assert json.loads(new[1])["firstKeptEntryId"] == "old12345"  # what pi does, stale
    assert json.loads(new[2])["id"] == m.ids[2] != "old12345"


def test_half_migrated_v1_ids_are_replaced_in_place() -> None:
    lines = [header(1), user("aaaaaaaa", None), assistant("bbbbbbbb", "aaaaaaaa")]
    text = doc(*lines)
    m, out = migrated(text)
    new = out.split("\n")
    assert new[0] == lines[0].replace('"version":1', '"version":3')
    for i in (1, 2):
        expected = lines[i]
        old_id = json.loads(lines[i])["id"]
        expected = expected.replace(f'"id":"{old_id}"', f'"id":"{m.ids[i]}"')
        parent = json.loads(lines[i])["parentId"]
        new_parent = "null" if m.parents[i] is None else f'"{m.parents[i]}"'
        old_parent = "null" if parent is None else f'"{parent}"'
        expected = expected.replace(f'"parentId":{old_parent}', f'"parentId":{new_parent}')
        assert new[i] == expected


def test_v1_object_without_type_gets_ids_like_pi() -> None:
    lines = [header(None), user(None, False), '{"note":"no type"}', user(None, False)]
    m, out = migrated(doc(*lines))
    new = out.split("\n")
    assert new[2] == f'{{"id":"{m.ids[2]}","parentId":"{m.ids[1]}","note":"no type"}}'
    assert json.loads(new[3])["parentId"] == m.ids[2]


def test_v1_hook_message_is_renamed_too() -> None:
    _, out = migrated(doc(header(None), hook(None, False)))
    assert json.loads(out.split("\n")[1])["message"]["role"] == "custom"


def test_v2_changes_only_header_and_roles() -> None:
    lines = [
        header(2),
        user("aaaaaaaa", None),
        hook("bbbbbbbb", "aaaaaaaa"),
        assistant("cccccccc", "bbbbbbbb"),
    ]
    text = doc(*lines)
    m, out = migrated(text)
    assert changed_lines(text, out) == {0, 2}
    assert out.split("\n")[2] == lines[2].replace('"role":"hookMessage"', '"role":"custom"')
    assert m.renamed == [2] and m.from_version == 2


def test_v2_does_not_touch_v1_fields_or_missing_ids() -> None:
    lines = [
        header(2),
        user("aaaaaaaa", None),
        entry("compaction", "cccccccc", "aaaaaaaa", firstKeptEntryIndex=1),
        user(None, False),
    ]
    text = doc(*lines)
    _, out = migrated(text)
    assert changed_lines(text, out) == {0}


@pytest.mark.parametrize(
    "text",
    [
        doc(header(3), user("aaaaaaaa", None)),  # already v3
        doc(user(None, False)),  # no header: pi refuses the file
        doc('{"type":"session","version":"2","id":"x"}', user("a", None)),  # not a number
        doc('{"type":"session"}', user(None, False)),  # header without id
        doc("{broken", header(None), user(None, False)),  # first parsed line is the header,
        doc(user(None, False), user(None, False), header(None)),  # entries before the header
        "",  # nothing at all
        doc("", "{broken"),  # no line pi can parse
        (DATA / "book-valid.jsonl").read_text(encoding="utf-8"),  # the other dialect
    ],
)
def test_no_migration(text: str) -> None:
    a = analyze(text)
    if a.header_line == 1:  # the broken first line is skipped by pi: this one migrates
        assert migrate.plan(a) is not None
        return
    assert migrate.plan(a) is None


def test_null_version_is_v1_to_pi() -> None:
    a = analyze(doc('{"type":"session","version":null,"id":"s"}', user(None, False)))
    m = migrate.plan(a)
    assert m is not None and m.from_version == 1
    assert migrate.migrated_text(a, m).startswith('{"type":"session","version":3,"id":"s"}')


def test_crlf_and_missing_final_newline_are_kept() -> None:
    text = "\r\n".join([header(None), user(None, False), user(None, False)])
    _, out = migrated(text)
    assert out.count("\r\n") == 2 and not out.endswith("\n")


@pytest.mark.parametrize(
    "text",
    [
        doc(*V1, hook(None, False)),
        # v2: an entry without id or parentId stays without them (pi adds none)
        doc(header(2), user("aaaaaaaa", None), user(None, False), hook("bbbbbbbb", "aaaaaaaa")),
        doc("", "{broken", header(None), user(None, False)),  # the header is not line 0
    ],
    ids=["v1", "v2", "header-later"],
)
def test_migrated_values_match_the_migrated_text(text: str) -> None:
    a = analyze(text)
    m = migrate.plan(a)
    assert m is not None
    new = migrate.migrated_text(a, m).split("\n")
    for line, value in migrate.migrated_values(a, m):
        assert value == json.loads(new[line])


@pytest.mark.parametrize(
    "text",
    [
        doc(*V1, hook(None, False)),
        doc(header(2), user("aaaaaaaa", None), user(None, False), hook("bbbbbbbb", "aaaaaaaa")),
        doc(
            header(None),
            user(None, False),
            entry("compaction", None, False, summary="S", firstKeptEntryIndex=1),
            entry("compaction", None, False, summary="T", firstKeptEntryIndex=9),
            entry("compaction", None, False, summary="U", firstKeptEntryIndex=0.5),
            entry(
                "compaction", None, False, firstKeptEntryIndex=1, firstKeptEntryId="old"
            ),
        ),
    ],
    ids=["v1", "v2", "v1-compactions"],
)
def test_a_plan_without_edits_migrates_the_values_alike(text: str) -> None:
    """The link pass migrates values only (``edits=False``): same values, but for the
    fresh ids, which map one to one."""
    a = analyze(text)
    full, values = migrate.plan(a), migrate.plan(a, edits=False)
    assert full is not None and values is not None
    assert full.edits and not values.edits
    rename = {values.ids[line]: full.ids[line] for line in values.ids}
    assert sorted(rename.values()) == sorted(full.ids.values())  # one to one
    for key in ("parents", "first_kept"):
        assert {
            line: rename.get(v, v) if isinstance(v, str) else v
            for line, v in getattr(values, key).items()
        } == getattr(full, key)
    assert (values.dropped_index, values.renamed) == (full.dropped_index, full.renamed)
    for (line, got), (_, want) in zip(
        migrate.migrated_values(a, values), migrate.migrated_values(a, full), strict=True
    ):
        if isinstance(got, dict) and line in values.ids:
            got = {**got, "id": full.ids[line], "parentId": full.parents[line]}
            if line in full.first_kept and isinstance(full.first_kept[line], str):
                got["firstKeptEntryId"] = full.first_kept[line]
        assert got == want


def test_migrated_file_is_clean_and_keeps_the_chain() -> None:
    text = doc(*[line for line in V1 if line not in ("", "{not json")])
    _, out = migrated(text)
    b = analyze(out)
    assert b.version == 3
    # the only problem left is the session's own: its compaction keeps the tool result
    # (index 3) but not the call before it, so the context pi sends starts with an orphan
    problems = [(f.code, f.span.line) for f in b.findings if f.severity <= Severity.WARNING]
    assert problems == [("PI423", 4)]
    assert b.tree.active == b.tree.entries  # one chain, in file order


def test_v1_index_naming_a_later_array_line_drops_the_first_kept_id() -> None:
    """An array is in pi's list and is truthy, so pi assigns its ``id`` (not set yet, as the
    array comes later): the compaction's existing ``firstKeptEntryId`` disappears."""
    lines = [
        header(None),
        user(None, False, "hi"),
        entry("compaction", None, False, summary="S", firstKeptEntryIndex=3, firstKeptEntryId="x1"),
        "[1,2]",
    ]
    _, out = migrated(doc(*lines))
    obj = json.loads(out.split("\n")[2])
    assert "firstKeptEntryIndex" not in obj and "firstKeptEntryId" not in obj
    assert out.split("\n")[3] == "[1,2]"


def test_v1_index_on_an_entry_that_is_no_compaction_is_left_alone() -> None:
    """pi converts ``firstKeptEntryIndex`` on compactions only."""
    message = {"role": "user", "content": "x", "timestamp": 1}
    lines = [
        header(None),
        user(None, False),
        entry("message", None, False, message=message, firstKeptEntryIndex=1),
    ]
    m, out = migrated(doc(*lines))
    obj = json.loads(out.split("\n")[2])
    assert obj["firstKeptEntryIndex"] == 1 and "firstKeptEntryId" not in obj
    assert m.dropped_index == set() and m.first_kept == {}
