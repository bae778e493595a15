"""Session stats in detail: which fields pi's counting reads, times, model keys, branches."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.pi.loading import analysis_refusal
from pi_lsp.core.pi.stats import read_file, totals
from pi_lsp.core.workspace.stats_report import build, file_json, groups

HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2025-03-01T09:00:00.000Z", "cwd": "/w"}
STAMP = "2025-03-01T10:00:00.000Z"


def _write(tmp_path: Path, entries: list[dict[str, Any]], header: dict[str, Any] | None = None) -> str:
    path = tmp_path / "s.jsonl"
    lines = [json.dumps(header if header is not None else HEADER), *(json.dumps(e) for e in entries)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _msg(ident: str, parent: str | None, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "message", "id": ident, "parentId": parent, "timestamp": STAMP, "message": message, **extra}


def _asst(usage: Any, **extra: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": [], "provider": "anthropic", "model": "claude", "usage": usage, **extra}


def test_cache_tokens_are_summed_and_read_by_their_names(tmp_path: Path) -> None:
    u1 = {"input": 1, "output": 2, "cacheRead": 30, "cacheWrite": 400, "cost": {"total": 1}}
    u2 = {"input": 1, "output": 2, "cacheRead": 5, "cacheWrite": 60, "cost": {"total": 1}}
    fs = read_file(_write(tmp_path, [_msg("a", None, _asst(u1)), _msg("b", "a", _asst(u2))]))
    t = totals(fs.counted).as_json()
    assert (t["cacheRead"], t["cacheWrite"]) == (35, 460)
    # without totalTokens the context is the sum of all four counts
    assert [c.context for c in fs.counted] == [433, 68]


def test_odd_numbers_and_costs_count_as_zero(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    big = '{"input": 1e400, "output": 3, "cacheRead": 0, "cacheWrite": 0, "cost": 7}'
    none = '{"input": 2, "output": 0, "cacheRead": 0, "cacheWrite": 0}'
    path.write_text(
        json.dumps(HEADER) + "\n"
        + f'{{"type":"message","id":"a","parentId":null,"timestamp":"{STAMP}","message":'
        + f'{{"role":"assistant","content":[],"usage":{big}}}}}\n'
        + f'{{"type":"message","id":"b","parentId":"a","timestamp":"{STAMP}","message":'
        + f'{{"role":"assistant","content":[],"usage":{none}}}}}\n',
        encoding="utf-8",
    )
    t = totals(read_file(str(path)).counted).as_json()
    # an infinite input and a cost that is no object (or missing) add nothing
    assert (t["input"], t["output"], t["cost"]) == (2, 3, 0)


def test_integral_float_sums_print_as_integers(tmp_path: Path) -> None:
    half = {"input": 2.5, "output": 1.5, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0}}
    fs = read_file(_write(tmp_path, [_msg("a", None, _asst(half)), _msg("b", "a", _asst(half))]))
    t = totals(fs.counted).as_json()
    assert t["input"] == 5 and isinstance(t["input"], int)
    assert t["output"] == 3 and isinstance(t["output"], int)
    one = totals(fs.counted[:1]).as_json()
    assert one["input"] == 2.5 and one["output"] == 1.5


def test_every_tool_result_and_only_the_usage_pi_reads(tmp_path: Path) -> None:
    usage = {"input": 10, "output": 0, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 1}}
    entries = [
        _msg("u", None, {"role": "user", "content": "hi", "usage": usage}),  # pi ignores a user's usage
        _msg("a", "u", _asst(usage)),
        _msg("t1", "a", {"role": "toolResult", "toolCallId": "x", "content": []}),
        _msg("t2", "t1", {"role": "toolResult", "toolCallId": "y", "content": [], "usage": usage}),
        # only a message entry is a message: another entry's "message" is not counted
        {"type": "custom", "id": "c", "parentId": "t2", "timestamp": STAMP, "customType": "x",
         "message": {"role": "user", "content": "no"}},
    ]
    report = build([read_file(_write(tmp_path, entries))])
    t = report.total()
    assert (t.user_messages, t.assistant_messages, t.tool_results) == (1, 1, 2)
    assert t.usage.input == 20
    rows = {g.key: g.totals for g in groups(report, "model")}
    # a tool result without usage belongs to the model in effect, one with usage to pi's bucket
    assert rows["anthropic/claude"].tool_results == 1
    assert rows["Tools/summaries"].tool_results == 1


def test_model_keys(tmp_path: Path) -> None:
    usage = {"input": 1, "output": 0, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 1}}
    entries = [
        {"type": "model_change", "id": "m", "parentId": None, "timestamp": STAMP, "provider": "openai", "modelId": "gpt"},
        _msg("u", "m", {"role": "user", "content": "hi"}),
        _msg("a", "u", _asst(usage, responseModel="claude-resolved")),
        {"type": "model_change", "id": "m2", "parentId": "a", "timestamp": STAMP, "modelId": "other"},
        _msg("u2", "m2", {"role": "user", "content": "again"}),
        {"type": "model_change", "id": "m3", "parentId": "u2", "timestamp": STAMP, "provider": "x"},
        _msg("u3", "m3", {"role": "user", "content": "and"}),
        _msg("a2", "u3", {"role": "assistant", "content": [], "model": 5, "usage": usage}),
        {"type": "usage", "id": "g", "parentId": "a2", "timestamp": STAMP, "kind": "web", "model": "search",
         "usage": usage},
    ]
    fs = read_file(_write(tmp_path, entries))
    assert [c.model for c in fs.counted] == [
        "openai/gpt",  # said after a model change: that model
        "anthropic/claude-resolved",  # pi keys an answer by responseModel when it has one
        "undefined/other",  # a model change without provider, as pi's template prints it
        "undefined/other",  # a model change without modelId changes nothing
        "undefined/5",
        "undefined/search",
    ]


def test_times_of_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        usage = {"input": 1, "output": 0, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 1}}
        entries = [
            {"type": "message", "id": "a", "parentId": None, "message": {"role": "user", "content": "x", "timestamp": 1740823200500}},
            {"type": "message", "id": "b", "parentId": "a", "message": {"role": "user", "content": "x", "timestamp": 0}},
            {"type": "message", "id": "c", "parentId": "b", "timestamp": "2025-03-01T10:00:00", "message": {"role": "user", "content": "x"}},
            {"type": "message", "id": "d", "parentId": "c", "timestamp": "2025-03-01T12:00:00+02:00", "message": {"role": "user", "content": "x"}},
            {"type": "usage", "id": "e", "parentId": "d", "model": "m", "usage": usage},
            {"type": "message", "id": "f", "parentId": "e", "timestamp": "2025-03-01T10:00:00.000000000000000000000Z",
             "message": {"role": "user", "content": "x"}},
        ]
        fs = read_file(_write(tmp_path, entries))
        ten = 1740823200.0  # 2025-03-01T10:00:00Z
        assert [c.time for c in fs.counted] == [ten + 0.5, None, ten, ten, None, None]
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_header_fields(tmp_path: Path) -> None:
    header = {**HEADER, "parentSession": "/old.jsonl"}
    fs = read_file(_write(tmp_path, [], header))
    assert fs.parent_session == "/old.jsonl" and fs.version == 3
    assert read_file(_write(tmp_path, [], {**HEADER, "parentSession": 5})).parent_session is None
    assert read_file(_write(tmp_path, [], {**HEADER, "version": 0})).version == 1


def test_session_name_not_a_string(tmp_path: Path) -> None:
    entries = [{"type": "session_info", "id": "i", "parentId": None, "timestamp": STAMP, "name": 5}]
    assert read_file(_write(tmp_path, entries)).name is None


@pytest.mark.parametrize(
    "first",
    [
        '{"type":"message","id":"x","parentId":null,"message":{"role":"user","content":"x"}}',
        '{"type":"session_header","version":1,"session_id":"b","id":"b"}',
    ],
)
def test_first_line_must_be_a_pi_header(tmp_path: Path, first: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(first + "\n" + json.dumps(HEADER) + "\n", encoding="utf-8")
    fs = read_file(str(path))
    refused = analysis_refusal(analyze(path.read_text(encoding="utf-8")))
    assert refused is not None and fs.error == refused.reason


def test_unreadable_names_the_file_and_the_reason(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.jsonl")
    fs = read_file(missing)
    assert fs.path == missing
    assert fs.error == f"cannot read: {os.strerror(2)}"


def _usage_entry(ident: str, parent: str | None, stamp: str = STAMP) -> dict[str, Any]:
    usage = {"input": 1, "output": 0, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 2}}
    return {"type": "usage", "id": ident, "parentId": parent, "timestamp": stamp, "model": "m", "usage": usage}


def test_a_usage_entry_copied_by_fork_counts_once(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    original = _write(tmp_path / "a", [_usage_entry("g", None)])
    header = {**HEADER, "id": "s2", "timestamp": "2025-03-05T00:00:00.000Z", "parentSession": original}
    fork = _write(tmp_path / "b", [_usage_entry("g", None)], header)
    assert build([read_file(original), read_file(fork)]).total().usage.cost == 2


def test_branches_markers_and_separate_roots(tmp_path: Path) -> None:
    usage = {"input": 1, "output": 0, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 1}}
    entries = [
        # line 1: an abandoned separate root, with a branch point and a compaction on it
        _msg("r", None, {"role": "user", "content": "x"}),
        _msg("ra", "r", _asst(usage)),
        _msg("rb", "r", _asst(usage)),
        {"type": "compaction", "id": "k", "parentId": "ra", "timestamp": STAMP, "summary": "s",
         "firstKeptEntryId": "ra", "tokensBefore": 5},
        # a cycle, on no path from a root
        _msg("c1", "c2", {"role": "user", "content": "x"}),
        _msg("c2", "c1", {"role": "user", "content": "x"}),
        # the active path
        _msg("u", None, {"role": "user", "content": "x"}),
        _msg("a", "u", _asst(usage)),
    ]
    fs = read_file(_write(tmp_path, entries))
    data = file_json(build([fs]).files[0])
    assert data["branches"][0]["firstLine"] == 8 and data["branches"][0]["forkedAtTurn"] == 0
    by_first = {b["firstLine"]: b for b in data["branches"][1:]}
    assert by_first[2]["forkedAtLine"] is None and by_first[2]["forkedAtTurn"] == 0
    cycle = [b for b in data["branches"][1:] if b["firstLine"] in (6, 7)]
    assert len(cycle) == 1 and cycle[0]["forkedAtLine"] is None  # a cycle hangs below nothing
    abandoned = by_first[2]["index"]
    assert data["branchPoints"] == [{"line": 2, "branch": abandoned, "turn": 0, "children": 2}]
    assert data["compactions"] == [{"line": 5, "branch": abandoned, "turn": 1, "tokensBefore": 5}]
    branch = {c.line: c.branch for c in fs.counted}
    assert branch[5] == branch[6] == cycle[0]["index"] and branch[8] == 0
    assert {t["line"]: t["turn"] for t in data["turns"]} == {3: 1, 4: 1, 9: 1}


def _cost(total: float) -> dict[str, Any]:
    return {"input": 1, "output": 0, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": total}}


def test_a_parent_on_a_later_line_carries_its_turns_cost_and_model(tmp_path: Path) -> None:
    # pi follows parentId wherever the parent is: "b" (line 2) answers after "a" (line 3)
    entries = [
        _msg("u", None, {"role": "user", "content": "x"}),
        _msg("b", "a", _asst(_cost(2))),
        _msg("a", "m", _asst(_cost(1))),
        {"type": "model_change", "id": "m", "parentId": "u", "timestamp": STAMP,
         "provider": "openai", "modelId": "gpt"},
        _msg("q", "b", {"role": "user", "content": "y"}),
    ]
    fs = read_file(_write(tmp_path, entries))
    by_line = {c.line: c for c in fs.counted}
    assert [c.line for c in fs.counted] == [1, 2, 3, 5]  # still listed in file order
    assert by_line[3].turn == 1 and by_line[3].path_cost == 1
    assert by_line[2].turn == 2 and by_line[2].path_cost == 3
    assert by_line[5].turn == 2 and by_line[5].path_cost == 3
    assert by_line[5].model == "anthropic/claude"  # the model of its parent's answer
    assert {t["line"]: t["turn"] for t in file_json(build([fs]).files[0])["turns"]} == {3: 2, 4: 1}


def test_a_cycle_of_answers_counts_from_nothing(tmp_path: Path) -> None:
    entries = [
        _msg("u", None, {"role": "user", "content": "x"}),
        _msg("c1", "c2", _asst(_cost(1))),
        _msg("c2", "c1", _asst(_cost(1))),
    ]
    fs = read_file(_write(tmp_path, entries))
    answers = [c for c in fs.counted if c.role == "assistant"]
    assert sorted(c.turn for c in answers) == [1, 2]
    assert sorted(c.path_cost for c in answers) == [1, 2]


def test_a_header_only_session_has_an_empty_active_path_at_its_header(tmp_path: Path) -> None:
    data = file_json(build([read_file(_write(tmp_path, []))]).files[0])
    assert [(b["firstLine"], b["forkedAtLine"]) for b in data["branches"]] == [(1, None)]
    assert data["turns"] == [] and data["total"]["cost"] == 0


def test_a_header_after_an_entry_is_not_a_pi_session_in_the_editor(tmp_path: Path) -> None:
    from pi_lsp.core.checks.analysis import analyze
    from pi_lsp.core.pi.stats import analysis_stats
    from pi_lsp.core.text.files import read_lines

    user = _msg("u", None, {"role": "user", "content": "x"})
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(user) + "\n" + json.dumps(HEADER) + "\n", encoding="utf-8")
    a = analyze(read_lines(path), str(path))
    assert a.header_line == 1
    fs = analysis_stats(a)
    assert fs.error is not None and fs.counted == []
    path.write_text(json.dumps(HEADER) + "\n" + json.dumps(user) + "\n", encoding="utf-8")
    fs = analysis_stats(analyze(read_lines(path), str(path)))
    assert fs.error is None and len(fs.counted) == 1


def test_timestamps_of_up_to_40_characters_are_read() -> None:
    from pi_lsp.core.pi.stats import parse_stamp

    stamp = "2025-03-01T10:00:00.000000+00:00:00.0000"  # the offset with seconds and a fraction
    assert len(stamp) == 40 and parse_stamp(stamp) is not None
    assert parse_stamp(stamp + "0") is None  # 41 characters: not parsed, though Python could


def test_markers_are_listed_in_file_order_when_a_parent_is_on_a_later_line(tmp_path: Path) -> None:
    def compaction(ident: str, parent: str, before: int) -> dict[str, Any]:
        return {"type": "compaction", "id": ident, "parentId": parent, "timestamp": STAMP,
                "summary": "s", "firstKeptEntryId": parent, "tokensBefore": before}

    entries = [
        _msg("u", None, {"role": "user", "content": "x"}),
        compaction("k2", "k3", 2),  # line 2 hangs below line 3
        compaction("k3", "u", 3),
        _msg("x1", "k2", {"role": "user", "content": "x"}),
        _msg("x2", "k2", {"role": "user", "content": "x"}),
        _msg("x3", "k3", {"role": "user", "content": "x"}),
    ]
    data = file_json(build([read_file(_write(tmp_path, entries))]).files[0])
    assert [(c["line"], c["tokensBefore"]) for c in data["compactions"]] == [(3, 2), (4, 3)]
    assert [(b["line"], b["children"]) for b in data["branchPoints"]] == [(3, 2), (4, 2)]
