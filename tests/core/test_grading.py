"""PI200 is graded by what pi does with the violation, and says so.

Error only where pi or pi-ai breaks or loses data, warning where pi loads the entry but
something is off, information where nothing is lost. The grades are the v3 schema's
``x-pi-consequence`` annotations; the last tests check the claims behind the main ones
against pi 1.6's own code where it is installed.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.text.findings import Finding, Severity
from tests.core.pi16 import find_pi16, module_url, run
from tests.core.pi_sessions import assistant, header, js, user
from tests.core.test_schemas import DELETE, _with

E, W, N = Severity.ERROR, Severity.WARNING, Severity.INFORMATION
U1 = user("1a2b3c4d", None)
A1 = json.loads(assistant("2b3c4d5e", "1a2b3c4d"))


def changed(entry: dict[str, Any], path: tuple[str | int, ...], value: Any) -> str:
    return js(_with(entry, path, value))


def pi200(line: str) -> list[Finding]:
    a = analyze("\n".join([header(), U1, line]) + "\n")
    return [f for f in a.findings if f.code == "PI200" and f.span.line == 2]


# (path in the assistant entry, new value or DELETE, severity, message, where the range starts:
# a token and the text it follows). A missing property's range is its parent's key (the
# entry's type at the top level, the block itself inside an array); a wrong value's is
# the value.
CASES = [
    (("message", "stopReason"), DELETE, N, r"^assistant message has no 'stopReason'; pi only compares stopReason with \"error\" and \"aborted\"", ('"message"', '"timestamp":')),
    (("message", "stopReason"), "paused", N, r"^assistant message 'stopReason' must be one of .*, not 'paused'; pi only compares", ('"paused"', "")),
    (("message", "usage", "cost", "input"), DELETE, N, r"^assistant message usage\.cost has no 'input'; pi sums cost\.total only", ('"cost"', "")),
    (("message", "usage", "cost", "total"), DELETE, W, r"^assistant message usage\.cost has no 'total'; pi adds cost\.total to the session cost, which becomes NaN", ('"cost"', "")),
    (("message", "usage", "input"), "12", W, r"^assistant message usage 'input' must be a number, not a string; .*token totals", ('"12"', "")),
    (("message", "usage", "cost"), DELETE, E, r"^assistant message usage has no 'cost'; pi's footer and session statistics add usage\.cost\.total and throw", ('"usage"', "")),
    (("message", "usage"), DELETE, E, r"^assistant message has no 'usage'; pi's footer and session statistics .* throw", ('"message"', '"timestamp":')),
    (("message", "usage"), "lots", E, r"^assistant message 'usage' must be an object, not a string; .* throw", ('"lots"', "")),
    (("message", "content"), "hi", E, r"^assistant message 'content' must be an array or null, not a string; pi-ai's transformMessages calls content\.flatMap and throws", ('"hi"', "")),
    (("message", "content"), DELETE, N, r"^assistant message has no 'content'; pi and pi-ai read a missing content as empty", ('"message"', '"timestamp":')),
    (("message", "content", 0, "text"), DELETE, E, r"^assistant message content\[0\] has no 'text'; pi-ai's provider adapters call text\.trim\(\) and throw", ("{", '"content":[')),
    (("message", "content", 0, "type"), "video", W, r"leave blocks of a kind they do not know out of the request", ('"video"', "")),
    (("message", "role"), "oracle", W, r"^message 'role' must be one of .*, not 'oracle'; pi keeps the entry but never sends", ('"oracle"', "")),
    (("message", "model"), DELETE, W, r"^assistant message has no 'model'; pi restores the session's model", ('"message"', '"timestamp":')),
    (("message", "thinkingLevel"), "ultra", N, r"only keeps it as a record", ('"ultra"', "")),
    (("parentId",), 7, E, r"^message entry 'parentId' must be a string or null, not a number; pi follows only string parent ids", ("7", '"parentId":')),
    (("timestamp",), DELETE, N, r"^message entry has no 'timestamp'; pi only uses it to order sibling branches", ('"message"', '"type":')),
    (("message",), None, E, r"^message entry 'message' must be an object, not null; pi reads message\.role of every message entry", ("null", '"message":')),
]


@pytest.mark.parametrize(
    ("path", "value", "severity", "message", "at"),
    CASES,
    ids=[f"{'.'.join(map(str, c[0]))}={'drop' if c[1] is DELETE else c[1]}" for c in CASES],
)
def test_assistant_violations_are_graded(
    path: tuple[str | int, ...],
    value: Any,
    severity: Severity,
    message: str,
    at: tuple[str, str],
) -> None:
    line = changed(A1, path, value)
    (f,) = pi200(line)
    assert f.severity is severity
    assert re.search(message, f.message), f.message
    token, after = at
    start = line.index(token, line.index(after) + len(after) if after else 0)
    assert f.span.start == start, line[f.span.start : f.span.end]
    if token != "{":
        assert f.span.end == start + len(token)


@pytest.mark.parametrize(
    ("line", "severity", "message"),
    [
        (js({"type": "message", "id": "m", "parentId": "2b3c4d5e", "timestamp": "t", "message": {"role": "user", "content": [5]}}),
         E, r"^user message content item 0 must be an object, not a number; .*as an image, and the provider rejects it"),
        (changed(A1, ("message", "content"), [7]), W, r"^assistant message content item 0 must be an object, not a number; .*leave a block they cannot read out"),
    ],
    ids=["user", "assistant"],
)
def test_content_items_that_are_no_blocks(line: str, severity: Severity, message: str) -> None:
    (f,) = pi200(line)
    assert f.severity is severity and re.search(message, f.message), f.message


def test_a_missing_top_level_property_points_at_the_entry_type() -> None:
    (f,) = pi200(js({"type": "model_change", "id": "x", "parentId": "2b3c4d5e", "timestamp": "t", "provider": "p"}))
    assert f.message.startswith("model_change entry has no 'modelId'")
    assert f.severity is W


def test_session_name_that_is_no_string_drops_the_session_from_resume() -> None:
    (f,) = pi200(js({"type": "session_info", "id": "x", "parentId": "2b3c4d5e", "timestamp": "t", "name": 5}))
    assert f.severity is E and "name.trim()" in f.message


def test_pi16_lines_are_valid_and_unknown_kinds_stay_warnings() -> None:
    system = {
        "role": "system",
        "content": "",
        "sections": {"cwd": None, "skills": "<skills/>"},
        "toolsAdded": [{"name": "grep", "description": "grep", "parameters": {"type": "object"}}],
        "timestamp": 1,
    }
    lines = [
        js({"type": "message", "id": "s1", "parentId": "2b3c4d5e", "timestamp": "t", "message": system}),
        js({"type": "usage", "id": "u1", "parentId": "s1", "timestamp": "t", "kind": "cache_warm", "provider": "p", "model": "m", "usage": A1["message"]["usage"]}),
        js({"type": "context_edit", "id": "e1", "parentId": "u1", "timestamp": "t", "targetId": "1a2b3c4d", "replacement": None}),
        js({"type": "thinking_level_change", "id": "t1", "parentId": "e1", "timestamp": "t", "thinkingLevel": "max"}),
        js({"type": "a_future_kind", "id": "f1", "parentId": "t1", "timestamp": "t"}),
        js({"type": "message", "id": "m1", "parentId": "f1", "timestamp": "t", "message": {"role": "a_future_role"}}),
    ]
    a = analyze("\n".join([header(), U1, js(A1), *lines]) + "\n")
    got = [(f.code, f.span.line, f.severity) for f in a.findings]
    assert got == [("PI004", 7, W), ("PI200", 8, W)]


def test_the_book_dialect_keeps_its_plain_schema_messages() -> None:
    book = [
        js({"type": "session_header", "version": 1, "sessionId": "s", "createdAt": "t", "cwd": "/"}),
        js({"type": "user_message", "id": "e1", "parentId": None, "timestamp": "t", "content": 5}),
    ]
    a = analyze("\n".join(book) + "\n")
    found = [f for f in a.findings if f.code == "PI200"]
    assert found and all(f.severity is E and "user_message schema v1" in f.message for f in found)


# ----------------------------------------------------------------------------- pi 1.6 itself


@pytest.fixture(scope="module")
def pi16() -> dict[str, Any]:
    """What pi 1.6's own code does with the main violations graded above."""
    found = find_pi16()
    if found is None:
        pytest.skip("pi 1.6 (@earendil-works/pi-coding-agent) is not installed beside the repo")
    node, modules = found
    totals = module_url(modules, "pi-coding-agent", "dist/core/usage-totals.js")
    messages = module_url(modules, "pi-coding-agent", "dist/core/messages.js")
    transform = module_url(modules, "pi-ai", "dist/api/transform-messages.js")
    usage = A1["message"]["usage"]
    script = f"""
import {{ addUsageToTotals, createUsageTotals }} from {totals};
import {{ convertToLlm }} from {messages};
import {{ transformMessages }} from {transform};
const out = {{}};
const attempt = (name, fn) => {{ try {{ out[name] = fn(); }} catch (e) {{ out[name] = "throws"; }} }};
const usage = {json.dumps(usage)};
const sum = (u) => {{ const t = createUsageTotals(); addUsageToTotals(t, u); return String(t.cost); }};
attempt("no usage", () => sum(undefined));
attempt("no cost", () => sum({{ ...usage, cost: undefined }}));
attempt("no cost.total", () => sum({{ ...usage, cost: {{ ...usage.cost, total: undefined }} }}));
attempt("no cost.input", () => sum({{ ...usage, cost: {{ ...usage.cost, input: undefined }} }}));
const model = {{ provider: "anthropic", api: "anthropic-messages", id: "claude-sonnet-4-5", input: ["text"] }};
const turn = {json.dumps(A1["message"])};
attempt("string content", () => transformMessages([{{ ...turn, content: "hi" }}], model).length);
attempt("no content", () => transformMessages([{{ ...turn, content: undefined }}], model).length);
attempt("no stopReason", () => transformMessages([{{ ...turn, stopReason: undefined }}], model).length);
attempt("unknown role", () => convertToLlm([{{ role: "oracle", content: "x" }}]).length);
console.log(JSON.stringify(out));
"""
    result: dict[str, Any] = json.loads(run(node, script))
    return result


def test_pi16_throws_where_pi200_is_an_error(pi16: dict[str, Any]) -> None:
    assert pi16["no usage"] == "throws"
    assert pi16["no cost"] == "throws"
    assert pi16["string content"] == "throws"


def test_pi16_goes_on_where_pi200_is_a_warning_or_information(pi16: dict[str, Any]) -> None:
    assert pi16["no cost.total"] == "NaN"  # warning: the session cost becomes NaN
    assert pi16["no cost.input"] == str(A1["message"]["usage"]["cost"]["total"])  # nothing lost
    assert pi16["no content"] == 1  # read as empty
    assert pi16["no stopReason"] == 1  # replayed as a finished turn
    assert pi16["unknown role"] == 0  # never sent to the model (warning)
