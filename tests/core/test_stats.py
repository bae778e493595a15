"""Session stats: pi 1.6's counting, branches, turns, forks counted once, dates and output."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.pi.loading import analysis_refusal
from pi_lsp.core.pi.stats import TOTAL_KEYS, read_file, totals
from pi_lsp.core.workspace.stats_report import (
    build,
    groups,
    parse_bound,
    report_csv,
    report_json,
    report_text,
)


def _usage(inp: int, out: int, cost: float, **extra: Any) -> dict[str, Any]:
    return {"input": inp, "output": out, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": cost}, **extra}


def _msg(ident: str, parent: str | None, message: dict[str, Any], stamp: str = "2025-03-01T10:00:00.000Z") -> dict[str, Any]:
    return {"type": "message", "id": ident, "parentId": parent, "timestamp": stamp, "message": message}


def _assistant(text: str, usage: Any, calls: int = 0, **extra: Any) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    content += [{"type": "toolCall", "id": f"c{n}", "name": "read", "arguments": {}} for n in range(calls)]
    return {"role": "assistant", "content": content, "provider": "anthropic", "model": "claude", "usage": usage, **extra}


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2025-03-01T09:00:00.000Z", "cwd": "/w"}


def _write(path: Path, entries: list[dict[str, Any]], header: dict[str, Any] = HEADER) -> str:
    path.write_text("\n".join(json.dumps(e) for e in [header, *entries]) + "\n", encoding="utf-8")
    return str(path)


def _session() -> list[dict[str, Any]]:
    """A root turn, then two branches from the first answer; the second is active."""
    return [
        _msg("u1", None, _user("hello")),
        _msg("a1", "u1", _assistant("hi", _usage(100, 10, 0.5, totalTokens=120), calls=1)),
        _msg("t1", "a1", {"role": "toolResult", "toolCallId": "c0", "content": [], "usage": _usage(5, 0, 0.01)}),
        # abandoned branch
        _msg("u2", "t1", _user("try this")),
        _msg("a2", "u2", _assistant("tried", _usage(200, 20, 1.0))),
        {"type": "branch_summary", "id": "b1", "parentId": "t1", "timestamp": "2025-03-02T10:00:00.000Z",
         "fromId": "a2", "summary": "tried", "usage": _usage(7, 3, 0.25)},
        {"type": "usage", "id": "g1", "parentId": "b1", "timestamp": "2025-03-02T10:00:00.000Z",
         "kind": "web_search", "provider": "openai", "model": "search", "usage": _usage(1, 1, 0.125)},
        _msg("u3", "g1", _user("other way"), "2025-03-02T10:00:01.000Z"),
        _msg("a3", "u3", _assistant("aborted", _usage(50, 0, 0.0625), stopReason="aborted"), "2025-03-02T10:00:02.000Z"),
        {"type": "compaction", "id": "k1", "parentId": "a3", "timestamp": "2025-03-02T10:00:03.000Z",
         "summary": "s", "firstKeptEntryId": "u3", "tokensBefore": 999, "usage": _usage(2, 2, 0.5)},
        _msg("a4", "k1", _assistant("done", {"input": "many", "cost": {}}), "2025-03-02T10:00:04.000Z"),
    ]


def test_counts_what_pi_counts(tmp_path: Path) -> None:
    fs = read_file(_write(tmp_path / "s.jsonl", _session()))
    t = totals(fs.counted).as_json()
    assert list(t) == list(TOTAL_KEYS)
    assert t == {
        "userMessages": 3,
        "assistantMessages": 4,
        "toolResults": 1,
        "toolCalls": 1,
        # assistant 100+200+50 (+0: "many" is no number), toolResult 5, summary 7, usage 1, compaction 2
        "input": 365,
        "output": 10 + 20 + 0 + 3 + 1 + 2,
        "cacheRead": 0,
        "cacheWrite": 0,
        "cost": 0.5 + 0.01 + 1.0 + 0.25 + 0.125 + 0.0625 + 0.5,
    }


def test_branches_turns_and_context(tmp_path: Path) -> None:
    fs = read_file(_write(tmp_path / "s.jsonl", _session()))
    by_id = {json.loads(line).get("id"): n for n, line in enumerate((tmp_path / "s.jsonl").read_text().splitlines())}
    assert [(b.index, b.first_line, b.forked_at) for b in fs.branches] == [
        (0, by_id["u1"], None),
        (1, by_id["u2"], by_id["t1"]),
    ]
    branch = {c.line: c.branch for c in fs.counted}
    assert branch[by_id["a2"]] == 1 and branch[by_id["a4"]] == 0 and branch[by_id["b1"]] == 0
    turns = {c.line: (c.turn, c.context) for c in fs.counted if c.role == "assistant"}
    assert turns[by_id["a1"]] == (1, 120)  # totalTokens wins
    assert turns[by_id["a2"]] == (2, 220)  # input + output when totalTokens is missing
    assert turns[by_id["a3"]] == (2, None)  # aborted: pi does not trust its usage
    assert turns[by_id["a4"]] == (3, None)
    assert [(m.line, m.turn, m.value) for m in fs.compactions] == [(by_id["k1"], 2, 999)]
    assert [(m.line, m.value) for m in fs.branch_points] == [(by_id["t1"], 2)]
    # cost along each path: the abandoned branch does not add to the active path
    path_cost = {c.line: c.path_cost for c in fs.counted}
    assert path_cost[by_id["a2"]] == pytest.approx(1.51)
    assert path_cost[by_id["a4"]] == pytest.approx(0.51 + 0.25 + 0.125 + 0.0625 + 0.5)
    active = totals([c for c in fs.counted if c.branch == 0]).usage.cost
    abandoned = totals([c for c in fs.counted if c.branch == 1]).usage.cost
    assert active + abandoned == pytest.approx(totals(fs.counted).usage.cost)
    assert abandoned == pytest.approx(1.0)


def test_models_follow_pis_breakdown_keys(tmp_path: Path) -> None:
    report = build([read_file(_write(tmp_path / "s.jsonl", _session()))])
    rows = {g.key: g.totals for g in groups(report, "model")}
    assert set(rows) == {"anthropic/claude", "Tools/summaries", "openai/search"}
    assert rows["Tools/summaries"].usage.cost == pytest.approx(0.01 + 0.25 + 0.5)
    # messages without usage belong to the model in effect on their path
    assert rows["anthropic/claude"].user_messages == 3


def test_a_model_key_from_values_that_are_no_strings_is_javascripts(tmp_path: Path) -> None:
    deep = "[" * 1000 + '"x",null' + "]" * 1000  # nested deeper than Python's recursion limit
    entries = [
        _msg("u1", None, _user("hello")),
        _msg("a1", "u1", _assistant("hi", _usage(1, 1, 0.5), provider="DEEP", model=True)),
    ]
    path = tmp_path / "s.jsonl"
    _write(path, entries)
    path.write_text(path.read_text(encoding="utf-8").replace('"DEEP"', deep), encoding="utf-8")
    report = build([read_file(str(path))])
    assert {g.key for g in groups(report, "model")} == {"x,/true"}  # `${provider}/${model}`


def _fork(tmp_path: Path) -> tuple[str, str]:
    entries = _session()
    original = _write(tmp_path / "a.jsonl", entries)
    header = {**HEADER, "id": "s2", "timestamp": "2025-03-05T00:00:00.000Z", "parentSession": original}
    copied = [dict(e, parentId=None) if n == 0 else e for n, e in enumerate(entries[:3])]
    later = _msg("n1", "t1", _assistant("new", _usage(1000, 0, 2.0)), "2025-03-05T00:00:01.000Z")
    # same id, other timestamp: a different entry, counted
    same_id = _msg("a1", "n1", _assistant("again", _usage(1, 0, 4.0)), "2025-03-05T00:00:02.000Z")
    return original, _write(tmp_path / "0-fork.jsonl", [*copied, later, same_id], header)


def test_a_fork_counts_only_what_it_added(tmp_path: Path) -> None:
    original, fork = _fork(tmp_path)
    alone = build([read_file(original)]).total().usage.cost
    for order in ([original, fork], [fork, original]):  # the older file keeps its entries
        report = build([read_file(p) for p in order])
        files = {fr.stats.path: fr for fr in report.files}
        assert files[fork].copies == 3 and files[original].copies == 0
        assert files[fork].total().usage.cost == pytest.approx(6.0)
        assert report.total().usage.cost == pytest.approx(alone + 6.0)


def test_date_range_and_days(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        files = [read_file(_write(tmp_path / "s.jsonl", _session()))]
        days = {g.key: g.totals.assistant_messages for g in groups(build(files), "day")}
        assert days == {"2025-03-01": 2, "2025-03-02": 2}
        one_day = build(files, parse_bound("2025-03-02"), parse_bound("2025-03-02", end=True))
        assert one_day.total().assistant_messages == 2
        assert build(files, None, parse_bound("2025-03-01", end=True)).total().user_messages == 2
        assert build(files, parse_bound("2025-03-02T10:00:02+00:00"), None).total().assistant_messages == 2
        with pytest.raises(ValueError):
            parse_bound("yesterday")
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_v1_is_one_chain(tmp_path: Path) -> None:
    header = {"type": "session", "id": "v1", "timestamp": "2025-01-01T00:00:00Z", "cwd": "/", "provider": "anthropic", "modelId": "old"}
    entries = [
        {"type": "message", "timestamp": "2025-01-01T00:00:01Z", "message": _user("hi")},
        {"type": "message", "timestamp": "2025-01-01T00:00:02Z", "message": _assistant("yo", _usage(3, 4, 0.5))},
    ]
    fs = read_file(_write(tmp_path / "v1.jsonl", entries, header))
    assert fs.error is None and fs.version == 1 and len(fs.branches) == 1
    assert [c.key for c in fs.counted] == [None, None]  # no ids: never taken for a copy
    assert [c.model for c in fs.counted] == ["anthropic/old", "anthropic/claude"]


@pytest.mark.parametrize(
    "text",
    ['{"type":"message","id":"x","parentId":null,"message":{"role":"user"}}\n', "", "not json\n",
     '{"type":"session_header","version":1,"session_id":"b"}\n'],
)
def test_not_a_pi_session(tmp_path: Path, text: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(text, encoding="utf-8")
    fs = read_file(str(path))
    refused = analysis_refusal(analyze(text))  # the one verdict: check's PI100 says the same
    assert refused is not None and fs.error == refused.reason and not fs.counted


def test_unreadable(tmp_path: Path) -> None:
    fs = read_file(str(tmp_path / "missing.jsonl"))
    assert fs.error is not None and fs.error.startswith("cannot read")


@pytest.fixture
def report(tmp_path: Path) -> Iterator[Any]:
    original, fork = _fork(tmp_path)
    yield build([read_file(original), read_file(fork)])


def test_json_shape(report: Any) -> None:
    data = report_json(report, "branch")
    assert list(data) == ["total", "by", "groups", "files"]
    assert list(data["total"]) == list(TOTAL_KEYS)
    assert sum(g["cost"] for g in data["groups"]) == pytest.approx(data["total"]["cost"])
    first = data["files"][0]
    assert first["activePath"]["cost"] + first["abandoned"]["cost"] == pytest.approx(first["total"]["cost"])
    assert [t["turn"] for t in first["turns"] if t["branch"] == 0] == [1, 2, 3]
    assert first["compactions"] == [{"line": 11, "branch": 0, "turn": 2, "tokensBefore": 999}]


def test_text_and_csv(report: Any) -> None:
    text = report_text(report, "model")
    assert text.splitlines()[0].split()[:3] == ["model", "user", "assistant"]
    assert "2 sessions; 3 entries copied by /fork or /clone counted once" in text
    total_row = next(line for line in text.splitlines() if line.startswith("total"))
    assert total_row.endswith(f"${report.total().usage.cost:,.4f}")
    rows = report_csv(report, "session").splitlines()
    assert rows[0] == "session," + ",".join(TOTAL_KEYS) + ",copies,copiesCost,countedIn"
    assert rows[-1].startswith("total,3,6,1,1,") and len(rows) == 4


def test_header_hover_and_lens_show_the_stats_of_the_file(tmp_path: Path) -> None:
    from pi_lsp.core.checks.analysis import analyze
    from pi_lsp.core.text.files import read_lines
    from pi_lsp.core.views.hovers import hover_at
    from pi_lsp.core.views.lens import code_lenses

    path = _write(tmp_path / "s.jsonl", _session())
    data = report_json(build([read_file(path)]), "model")["files"][0]
    a = analyze(read_lines(Path(path)), path)
    found = hover_at(a, 0, a.lines[0].index('"cwd"') + 8)
    assert found is not None
    t, active, abandoned = data["total"], data["activePath"], data["abandoned"]
    tokens = t["input"] + t["output"] + t["cacheRead"] + t["cacheWrite"]
    assert f"tokens: {tokens:,} (in {t['input']:,} · out {t['output']:,}" in found.markdown
    assert f"cost ${t['cost']:.4f}" in found.markdown
    assert f"tool calls: {t['toolCalls']}" in found.markdown
    assert f"active path ${active['cost']:.4f}" in found.markdown
    assert f"1 abandoned branch ${abandoned['cost']:.4f}" in found.markdown
    lens = code_lenses(a)[0].title
    assert lens.endswith(
        f"{tokens:,} tokens · ${t['cost']:.4f} · active path ${active['cost']:.4f} · "
        f"1 abandoned branch ${abandoned['cost']:.4f}"
    )
