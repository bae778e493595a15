"""One line on its own (:mod:`pi_lsp.core.entries.lines`): what it is, and what is wrong with it.

The line-local findings (PI001 for a bad byte, PI003, PI004, PI100 for space before the
header, PI200, PI201, PI301, PI302) are read here in full: the message a user sees, its
severity and the text it points at.
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from pi_lsp.core.checks import line_checks
from pi_lsp.core.entries import lines
from pi_lsp.core.entries.lines import Kind, LineRules
from pi_lsp.core.schemas import schema
from pi_lsp.core.text import limits
from pi_lsp.core.text.findings import Severity
from pi_lsp.core.text.lineindex import pack, plain, unpack

from .pi_sessions import TS, assistant, entry, header, hook, js, user

E, W, N = Severity.ERROR, Severity.WARNING, Severity.INFORMATION
V3 = LineRules("pi", 3)
UNUSABLE = (
    "pi keeps it as an entry it cannot use (no type, no id: nothing links to it); as the "
    "last line it becomes the leaf and pi resumes with an empty context"
)


def issues(text: str, ctx: LineRules = V3, **where: bool) -> list[tuple[str, Severity, str, str]]:
    """Each finding of the line: code, severity, the text it points at, message."""
    info = lines.parse(text, **where)
    return [
        (i.code, i.severity, text[i.start : i.end], i.message) for i in line_checks.check(text, info, ctx)
    ]


def changed(line: str, **fields: Any) -> str:
    return js({**json.loads(line), **fields})


# ----------------------------------------------------------------------------- parse


@pytest.mark.parametrize("text", ["", " \t", "\ufeff", " \u00a0\u2028\u3000 "])
def test_blank_lines(text: str) -> None:
    assert lines.is_blank(text)
    assert lines.parse(text).kind is Kind.BLANK
    assert not lines.parse(text).parsed


@pytest.mark.parametrize("text", ["{", " x", "{}", "\u00a0."])
def test_lines_that_are_not_blank(text: str) -> None:
    assert not lines.is_blank(text)


def test_what_a_line_holds() -> None:
    assert lines.parse("{").kind is Kind.INVALID
    for text in ("[1]", "null", '{"a":1}', '{"type":1}'):
        info = lines.parse(text)
        assert (info.kind, info.value, info.type, info.parsed) == (
            Kind.OTHER,
            json.loads(text),
            None,
            True,
        )
    assert lines.parse("[1]").obj == {}
    for kind in ("session", "session_header"):
        info = lines.parse(js({"type": kind, "id": "x"}))
        assert (info.kind, info.type, info.obj) == (Kind.HEADER, kind, {"type": kind, "id": "x"})
    info = lines.parse(user("a", None))
    assert (info.kind, info.type, info.edge_space) == (Kind.ENTRY, "message", None)


def test_space_json_parse_rejects_at_the_edges_of_the_file() -> None:
    head, line = header(), user("a", None)
    # a byte-order mark before the header: pi 1.6 finds no header, the rest is still read
    info = lines.parse("\ufeff" + head, first=True)
    assert (info.kind, info.type, info.edge_space) == (Kind.HEADER, "session", (0, 1))
    assert info.value == json.loads(head)
    info = lines.parse("\ufeff\u00a0" + head + "\u00a0", first=True, last=True)
    assert (info.kind, info.edge_space) == (Kind.HEADER, (0, 2))
    # before an entry, or after the last line: pi 1.6 skips the line
    for text, where, space in (
        ("\ufeff" + line, {"first": True}, (0, 1)),
        (line + "\u00a0\u2028", {"last": True}, (len(line), len(line) + 2)),
        (head + "\u00a0", {"last": True, "first": True}, (len(head), len(head) + 1)),
        ("\ufeff[1]", {"first": True}, (0, 1)),
    ):
        info = lines.parse(text, **where)
        assert (info.kind, info.edge_space, info.value) == (Kind.INVALID, space, None), text
        assert info.error is not None
    # elsewhere it is an ordinary syntax error, and so is a line still broken once trimmed
    for text, where in (
        ("\ufeff" + line, {"last": True}),
        (line + "\u00a0", {"first": True}),
        ("\ufeff{", {"first": True}),
        ("{\u00a0", {"last": True}),
    ):
        info = lines.parse(text, **where)
        assert (info.kind, info.edge_space) == (Kind.INVALID, None), text


def test_space_names() -> None:
    assert line_checks.space_names("\u00a0 \t\r\n\u00a0\u2028\u3000") == (
        "U+00A0 (a no-break space), U+2028 (a line separator), U+3000 (whitespace)"
    )
    assert line_checks.space_names("\x0b\x0c\u2029\ufeff") == (
        "U+000B (a vertical tab), U+000C (a form feed), U+2029 (a paragraph separator), "
        "U+FEFF (a byte-order mark)"
    )
    assert line_checks.space_names(" \t") == ""


# ----------------------------------------------------------------------------- glued entries

A = '{"type":"a","id":"1"}'
B = '{"type":"b","v":[1]}'


def test_whole_entries_glued_together() -> None:
    assert lines.glued_entries(A + B) == [(0, True), (len(A), True)]
    assert lines.glued_entries(f" \t{A} \t{B}{A}  \r") == [
        (2, True),
        (len(A) + 4, True),
        (len(A) + 4 + len(B), True),
    ]


def test_one_entry_or_something_else_is_not_glued() -> None:
    for text in (A, A + "  ", "[" + A + "]", '{"id":"1"}' + A, A + "[1]", A + B + ","):
        assert lines.glued_entries(text) is None, text


def test_an_entry_cut_off_before_the_next_one() -> None:
    cut = '{"type":"message","message":{"content":[{"type":"text","text":"hal'
    assert lines.glued_entries(cut + A) == [(0, False), (len(cut), True)]
    # a content block opening with {"type": inside the cut-off entry is tried and rejected
    cut = '{"type":"message","message":{"content":[{"type":"text","text":"x"},{"type":"te'
    assert lines.glued_entries(cut + A + B) == [(0, False), (len(cut), True), (len(cut + A), True)]
    assert lines.glued_entries(cut) is None
    assert lines.glued_entries(cut + A + "x") is None


def test_glued_entries_are_looked_for_a_thousand_times_at_most() -> None:
    def cut(blocks: int) -> str:
        return '{"type":"m","c":[' + '{"type":"t"},' * blocks

    assert lines.glued_entries(cut(999) + A) == [(0, False), (len(cut(999)), True)]
    assert lines.glued_entries(cut(1000) + A) is None


def test_an_entry_nested_deeper_than_json_reads_is_not_glued() -> None:
    deep = '{"type":' + "[" * 100_000 + "]" * 100_000 + "}"
    assert lines.glued_entries(A + deep) is None
    assert lines.glued_entries(A + A + deep) is None


# ----------------------------------------------------------------------------- findings


def test_no_finding_for_a_sound_line() -> None:
    for text in (header(), user("a", None), assistant("b", "a"), "   "):
        assert issues(text) == []
    assert issues("{") == []  # a syntax error is the file's finding, not the line's


def test_space_before_the_header() -> None:
    assert issues("\ufeff\u00a0" + header(), first=True) == [
        (
            "PI100",
            E,
            "\ufeff\u00a0",
            "the file starts with U+FEFF (a byte-order mark), U+00A0 (a no-break space) before "
            "the session header; pi 1.6 gives each line to JSON.parse as it is, which rejects "
            "it, so it finds no header: it leaves the session out of /resume and refuses to "
            'open the file ("not a valid pi session"); pi 0.73 trimmed the whole file and read it',
        )
    ]


def test_invalid_utf8_inside_a_string() -> None:
    text = '{"type":"message","note":"caf\udce9 ok \udcff"}'
    assert [i for i in issues(text) if i[0] == "PI001"] == [
        (
            "PI001",
            E,
            "\udce9",
            "invalid UTF-8 (byte 0xE9); pi decodes it as U+FFFD, so the original bytes are lost "
            "on the next rewrite",
        )
    ]
    assert issues(changed(user("a", None), note="caf\u00e9 \U0001f600")) == []


def test_invalid_utf8_in_a_string_of_a_sound_entry() -> None:
    """The bad byte is the only finding of an entry the schema finds sound: no schema looks
    into the strings it lies in (an unknown field, tool call arguments)."""
    text = changed(user("a", None), note="caf\udce9")
    assert [i[:3] for i in issues(text)] == [("PI001", E, "\udce9")]
    call = json.loads(assistant("a", None, calls=("t",)))
    call["message"]["content"][1]["arguments"] = {"command": "ls caf\udce9"}
    assert [i[:3] for i in issues(js(call))] == [("PI001", E, "\udce9")]


def test_invalid_utf8_outside_a_string_is_the_syntax_error_only() -> None:
    assert issues('{"type":"message"\udcff}') == []
    # a bad byte in a string of a line broken elsewhere is still reported
    text = '{"type":"message","a":"\udcff",}'
    assert [i[:3] for i in issues(text)] == [("PI001", E, "\udcff")]


def test_a_line_that_is_an_object_but_no_entry() -> None:
    assert issues('{"id":"x"}') == [
        ("PI003", E, '{"id":"x"}', f"line is an object without a 'type'; {UNUSABLE}")
    ]
    assert issues('{"type":7,"id":"x"}') == [
        ("PI003", E, "7", f"entry 'type' is not a string; {UNUSABLE}")
    ]


SKIPPED = "pi skips it like a line it cannot parse"
CRASHED = " (pi 0.73.1 and older crashed on it, and the session did not open)"


@pytest.mark.parametrize(
    ("text", "what", "v3", "v1"),
    [
        ("null", "JSON null, not an entry", SKIPPED + CRASHED, SKIPPED + CRASHED),
        ("false", "a JSON boolean", SKIPPED, SKIPPED + CRASHED),
        ("0", "a JSON number", SKIPPED, SKIPPED + CRASHED),
        ('""', "a JSON string", SKIPPED, SKIPPED + CRASHED),
        (
            "[]",
            "a JSON array",
            UNUSABLE,
            "pi's migration of this v1 session links the next entry to it, then rewrites the "
            "file without the id it gave it: from the next load on, every entry before it drops "
            "out of the resumed context (pi-lsp's migration skips it)",
        ),
        (
            "1.5",
            "a JSON number",
            UNUSABLE,
            "pi's migration of this v1 session fails on it (\"Cannot create property 'id' on "
            "number\") and the session does not open (pi-lsp's migration skips it)",
        ),
        (
            "true",
            "a JSON boolean",
            UNUSABLE,
            "pi's migration of this v1 session fails on it (\"Cannot create property 'id' on boolean\")",
        ),
        (
            '"x"',
            "a JSON string",
            UNUSABLE,
            "pi's migration of this v1 session fails on it (\"Cannot create property 'id' on string\")",
        ),
    ],
)
def test_a_line_that_is_no_object(text: str, what: str, v3: str, v1: str) -> None:
    for ctx, fate in (
        (V3, v3),
        (LineRules("pi", 2), v3),
        (LineRules("book", 1), v3),
        (LineRules("pi", 1), v1),
    ):
        ((code, severity, at, message),) = issues(text, ctx)
        assert (code, severity, at) == ("PI003", E, text)
        assert message.startswith(f"line is {what}, not an object; {fate}"), (ctx, message)
        assert len(message) == len(f"line is {what}, not an object; {fate}") or fate != v3


def test_unknown_entry_type() -> None:
    message = (
        "unknown entry type 'bookmark' for this format; pi keeps the line in the tree but adds "
        "nothing of it to the model's context"
    )
    line = js({"type": "bookmark", "id": "a", "parentId": None})
    for ctx in (V3, LineRules("pi", 1), LineRules("book", 1)):
        assert issues(line, ctx) == [("PI004", W, '"bookmark"', message)]
    # a v3 entry type is known to pi whatever the version; a book knows its own types only
    usage = js({"type": "usage", "id": "a", "parentId": None, "timestamp": TS, "kind": "k"})
    assert "PI004" not in [i[0] for i in issues(usage, LineRules("pi", 1))]
    assert [i[0] for i in issues(usage, LineRules("book", 1))] == ["PI004"]
    assert "PI004" not in [i[0] for i in issues(js({"type": "thinking"}), LineRules("book", 1))]
    assert [i[0] for i in issues(js({"type": "message"}), LineRules("book", 1))] == ["PI004"]


def test_pending_assistant_turn() -> None:
    line = assistant("a", None, stop="pending")
    assert [i for i in issues(line) if i[0] == "PI201"] == [
        (
            "PI201",
            W,
            '"pending"',
            'assistant stopReason is "pending", which marks an unfinished stream and must never '
            "be persisted; pi resends this partial turn to the model as if complete",
        )
    ]
    other = json.loads(line)
    other["message"]["role"] = "user"
    assert "PI201" not in [i[0] for i in issues(js(other))]
    assert "PI201" not in [i[0] for i in issues(changed(line, type="custom_message"))]
    assert "PI201" not in [i[0] for i in issues(changed(line, message="pending"))]


def test_v1_field_in_a_later_session() -> None:
    line = entry(
        "compaction",
        "c",
        None,
        summary="s",
        firstKeptEntryId="a",
        firstKeptEntryIndex=2,
        tokensBefore=1,
    )
    for version in (2, 3):
        assert [i for i in issues(line, LineRules("pi", version)) if i[0] == "PI302"] == [
            (
                "PI302",
                W,
                '"firstKeptEntryIndex"',
                f"'firstKeptEntryIndex' is a v1 field; in a v{version} session pi ignores it and "
                "only reads 'firstKeptEntryId'",
            )
        ]
    assert "PI302" not in [i[0] for i in issues(line, LineRules("pi", 1))]
    label = entry("label", "c", None, targetId="a", firstKeptEntryIndex=2)
    assert "PI302" not in [i[0] for i in issues(label)]


def test_hook_message_in_a_v3_session() -> None:
    line = hook("a", None)
    assert [i for i in issues(line) if i[0] == "PI301"] == [
        (
            "PI301",
            W,
            '"hookMessage"',
            "role 'hookMessage' was renamed 'custom' in v3; pi does not migrate a v3 file again, "
            "so this message is not treated as an extension message",
        )
    ]
    assert "PI301" not in [i[0] for i in issues(line, LineRules("pi", 2))]
    assert "PI301" not in [i[0] for i in issues(changed(line, message="hookMessage"))]


def test_schema_findings_name_the_object_at_fault() -> None:
    # graded by the v3 schema: what pi does with it
    obj = json.loads(assistant("a", None))
    obj["message"]["content"][0]["text"] = 5
    obj["message"]["usage"]["cost"]["total"] = "x"
    got = issues(js(obj))
    assert [(i[1], i[2], i[3].split(";")[0]) for i in got] == [
        (E, "5", "assistant message content[0] 'text' must be a string, not a number"),
        (W, '"x"', "assistant message usage.cost 'total' must be a number, not a string"),
    ]
    assert all(i[0] == "PI200" and "; pi" in i[3] for i in got)
    obj = json.loads(user("a", None))
    del obj["message"]["content"]
    ((code, severity, at, message),) = issues(js(obj))
    assert (code, severity, at) == ("PI200", N, '"message"')
    assert message.startswith("user message has no 'content'; pi")
    obj["message"]["role"] = 5
    assert issues(js(obj))[0][3].startswith("message 'role' must be one of ")
    head = json.loads(header())
    del head["id"]
    assert issues(js(head))[0][:3] == ("PI200", E, '"session"')
    assert issues(js(head))[0][3].startswith("session header has no 'id'; pi")
    label = entry("label", "a", None, targetId=5)
    assert issues(label)[0][2:] == (
        "5",
        "label entry 'targetId' must be a string, not a number; pi labels no entry",
    )


def test_schema_findings_without_a_grade() -> None:
    """The v1 and v2 schemas grade nothing: the finding says which schema it broke."""
    obj = json.loads(user("a", None))
    del obj["message"]["content"]
    assert issues(js(obj), LineRules("pi", 2)) == [
        (
            "PI200",
            E,
            '"message"',
            "user message has no 'content' (message schema v2); pi may misread this entry",
        )
    ]
    obj = json.loads(user("a", None))
    obj["message"]["content"] = 5
    ((_, _, at, message),) = issues(js(obj), LineRules("pi", 2))
    assert at == "5" and message.startswith("user message 'content' must be ")
    head = json.loads(header(2))
    head["id"] = 5
    ((_, _, at, message),) = issues(js(head), LineRules("pi", 2))
    assert (at, message) == (
        "5",
        "session header 'id' must be a string, not a number (header schema v2); pi may misread this entry",
    )


def test_schema_finding_data_is_the_path() -> None:
    obj = json.loads(assistant("a", None))
    obj["message"]["content"][0]["text"] = 5
    text = js(obj)
    (issue,) = line_checks.check(text, lines.parse(text), V3)
    assert issue.data == {"path": ["message", "content", 0, "text"]}


def test_schema_findings_point_at_the_key_that_lacks_a_field() -> None:
    obj = json.loads(assistant("a", None))
    del obj["message"]["usage"]["cost"]
    ((code, _, at, message),) = issues(js(obj))
    assert (code, at) == ("PI200", '"usage"')
    assert message.startswith("assistant message usage has no 'cost'; pi")


def test_schema_findings_name_an_item_and_the_role_at_fault() -> None:
    obj = json.loads(assistant("a", None))
    obj["message"]["content"] = ["x"]
    ((_, _, at, message),) = issues(js(obj))
    assert (at, message.split(";")[0]) == (
        '"x"',
        "assistant message content item 0 must be an object, not a string",
    )
    obj = json.loads(user("a", None))
    obj["message"]["role"] = "bogus"
    ((_, _, at, message),) = issues(js(obj))
    assert at == '"bogus"' and message.startswith("message 'role' must be one of ")
    # a field "message" outside a message entry, or a field beside the message, is the entry's
    label = entry("label", "a", None, targetId=5, message={"role": "user"})
    assert issues(label)[0][3].startswith("label entry 'targetId' must be a string")
    stamp = changed(user("a", None), timestamp=5)
    assert issues(stamp)[0][3].startswith("message entry 'timestamp' must be a string")


def test_schema_findings_say_what_pi_does_for_the_role_of_the_message() -> None:
    """The grade follows the line's own value (its role's branch of the schema)."""
    obj = json.loads(assistant("a", None))
    obj["message"]["content"][0]["text"] = 5
    ((_, severity, _, message),) = issues(js(obj))
    assert severity is E
    assert message.endswith(
        "pi-ai's provider adapters call text.trim() and throw, so every request on this branch fails"
    )
    obj = json.loads(assistant("a", None))
    del obj["message"]["usage"]["cost"]
    assert issues(js(obj))[0][3].endswith(
        "pi's footer and session statistics add usage.cost.total and throw"
    )


def test_an_empty_entry_type_is_unknown() -> None:
    assert issues(js({"type": "", "id": "a", "parentId": None}))[0][2:] == (
        '""',
        "unknown entry type '' for this format; pi keeps the line in the tree but adds nothing "
        "of it to the model's context",
    )


def test_space_before_the_header_is_the_span_of_the_space() -> None:
    text = "\ufeff\u00a0" + header()
    (issue,) = line_checks.check(text, lines.parse(text, first=True), V3)
    assert (issue.code, issue.start, issue.end) == ("PI100", 0, 2)


def test_a_line_over_the_size_limit() -> None:
    text = user("a", None, "x" * 200)
    ctx = LineRules("pi", 3, large_line=100)
    found = limits.line_size(text, 100)
    assert found is not None
    (issue,) = line_checks.check(text, lines.parse(text), ctx)
    assert (issue.code, issue.severity, issue.start, issue.end, issue.message) == (
        "PI500",
        found[0],
        0,
        len(text),
        found[1],
    )
    assert line_checks.check(text, lines.parse(text), LineRules("pi", 3, large_line=len(text))) == ()


def test_an_assistant_block_at_fault_is_graded_as_an_assistant_block() -> None:
    """pi-ai leaves an assistant block it cannot read out; a user one it sends as an image."""
    obj = json.loads(assistant("a", None))
    obj["message"]["content"] = ["x"]
    ((_, severity, _, message),) = issues(js(obj))
    assert severity is W
    assert message.endswith(
        "pi-ai's provider adapters leave a block they cannot read out of the request"
    )
    obj = json.loads(assistant("a", None))
    del obj["message"]["content"][0]["type"]
    found = [
        i for i in issues(js(obj)) if i[3].startswith("assistant message content[0] has no 'type'")
    ]
    ((_, severity, at, message),) = found
    assert (severity, at) == (W, '{"text":"hi"}')  # an item has no key: the block itself
    assert message.endswith(
        "pi-ai's provider adapters leave blocks of a kind they do not know out of the request"
    )


def test_a_schema_definition_that_is_no_entry_type_is_an_unknown_entry_type() -> None:
    """pi knows no entry of type ``Cost``, though the schema defines a ``Cost`` object: a
    line that is a valid ``Cost`` is PI004 (the fast path checks the format's entry types)."""
    text = js({"type": "Cost", "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0})
    assert [i[0] for i in issues(text)] == ["PI004"]


@pytest.mark.parametrize("role", [["user"], {"name": "user"}, 1, None])
def test_a_message_whose_role_is_no_string_is_judged_by_the_schema(role: Any) -> None:
    """No role's own validator applies (an array or object role is not even a key)."""
    obj = json.loads(user("a", None))
    obj["message"]["role"] = role
    found = issues(js(obj))
    assert found and all(code == "PI200" for code, *_ in found), found


@pytest.mark.parametrize(
    ("text", "fast"),
    [
        (user("a1", None), True),
        (assistant("a2", "a1", calls=("c1",)), True),
        (user("a1", None, "😀"), True),  # stored as UTF-8
        (user("a1", None, "日本語"), True),  # stored as UTF-8 (shorter than the str)
        (user("a1", None, "한국어"), True),  # 0xED 0x95: Hangul, no surrogate
        (user("a1", None, "é"), False),  # Latin-1: a str orjson would have to encode
        (header(), True),
        ('{"x":1}', True),  # an object without a type
        (" " + user("a1", None), False),  # not at "{": maybe blank, parsed as text
        ("[1]", False),
        ("", False),
        ('{"type":"message",', False),  # orjson refuses it: parse decides
        ('{"a":"\\ud800"}', False),  # a lone surrogate escape: orjson refuses it
        (user("a1", None, "😀\udc80"), False),  # an undecodable byte: stored with 0xED
    ],
)
def test_parse_stored_is_parse_for_the_lines_it_takes(text: str, fast: bool) -> None:
    stored = pack(text)
    item = plain(stored)
    found = lines.parse_stored(item)
    assert (found is not None) == fast
    if found is not None:
        expected = lines.parse(unpack(item))
        assert (found.kind, found.value, found.type, found.role, found.calls) == (
            expected.kind,
            expected.value,
            expected.type,
            expected.role,
            expected.calls,
        )


def test_prepare_checks_compiles_every_validator_a_clean_line_uses() -> None:
    """Each entry type's and message role's verdict validator and the header's are
    compiled at once, not when a line first needs one (the server does so at start)."""
    line_checks._entry_validators.cache_clear()
    schema.validator.cache_clear()
    try:
        by_type, by_role = line_checks._entry_validators("pi", 3)
        assert not by_type and not by_role  # compiled on demand otherwise
        line_checks.prepare_checks("pi", 3)
        assert set(by_type) == line_checks.pi_entry_types()
        assert all(by_type[name] is not None for name in ("message", "compaction", "label"))
        roles = set(schema.message_roles("pi.3"))
        assert {"user", "assistant", "toolResult", "custom"} <= roles
        assert set(by_role) == roles
        hits = schema.validator.cache_info().hits
        assert schema.validator("pi.3", "header") is not None
        assert schema.validator.cache_info().hits == hits + 1  # compiled already
    finally:
        line_checks._entry_validators.cache_clear()


def test_prepare_checks_stops_when_told() -> None:
    """One validator at a time, asking ``stop`` before each: the header's comes first."""
    line_checks._entry_validators.cache_clear()
    schema.validator.cache_clear()
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 1

    try:
        line_checks.prepare_checks("pi", 3, stop)
        by_type, by_role = line_checks._entry_validators("pi", 3)
        assert asked == [1, 1]
        assert schema.validator.cache_info().currsize == 1
        assert not by_type and not by_role
    finally:
        line_checks._entry_validators.cache_clear()


def test_a_validator_is_compiled_once_when_threads_miss_it_at_once() -> None:
    made: list[str] = []
    started = threading.Barrier(4)

    def make(name: str) -> Any:
        made.append(name)
        time.sleep(0.05)  # long enough for every thread to miss the name
        return object()

    compiled = line_checks._Compiled(None, make)

    def ask() -> Any:
        started.wait()
        return compiled["message"]

    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda _: ask(), range(4)))
    assert made == ["message"] and len({id(v) for v in got}) == 1
