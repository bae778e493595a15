"""The whole-file repair (``check --fix``) never makes the context worse (issue 43).

After :func:`pi_lsp.core.edits.autofix.repair`, every tool result pi sent for the resumed leaf
before (paired with its call, as :mod:`pi_lsp.core.pi.sent` computes the request) is still
sent, with the same ``toolCallId`` and the same content, and every entry the file held is
still there (ids and links aside: the repairs renumber and re-point them); and pi-ai
answers no call with "No result provided" whose result is in the file unless it did so
before or ``check`` still reports its result (PI420, PI421 or PI423: no safe repair
applies), in a file not reordered by hand (PI403). Checked on every fixture, example and broken sample, and on sessions Hypothesis
builds with planted faults: dangling parents, duplicate ids, cycles, parents on later
lines, branches that leave a result behind, a result whose id a later entry takes while
the entry after it names no parent (the README's example), and a cut-off last line.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.edits import autofix
from pi_lsp.core.entries.lines import Kind
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.pi.context import session_context
from pi_lsp.core.pi.sent import pairing_faults, request
from tests.robustness.settings import bounded

from .pi_sessions import assistant, doc, entry, header, js, result, user

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT.parent / "shared" / "fixtures"
FILES = sorted(
    [
        *(FIXTURES.glob("*.jsonl") if FIXTURES.is_dir() else []),
        *(ROOT / "examples").glob("*.jsonl"),
        *(ROOT / "tests" / "data" / "broken").glob("*.jsonl"),
    ]
)

LINKS = ("id", "parentId", "targetId", "fromId", "firstKeptEntryId")
"""Members the repairs may change: ids and the links between entries."""


def sent_results(a: Analysis) -> Counter[tuple[Any, str]]:
    """``(toolCallId, content)`` of each real tool result the provider receives, paired
    with its call, in the request for the leaf pi resumes from."""
    ctx = session_context(a)
    if ctx.cycle:  # pi hangs: nothing is sent
        return Counter()
    messages = request(ctx).messages
    faulty = {f.index for f in pairing_faults(messages)}
    by_line = {m.line: m.message for m in ctx.messages}
    out: Counter[tuple[Any, str]] = Counter()
    for n, m in enumerate(messages):
        if m.role == "toolResult" and not m.synthetic and n not in faulty:
            content = by_line[m.line].get("content")
            out[(m.answers, json.dumps(content, sort_keys=True))] += 1
    return out


def buried(a: Analysis) -> set[Any]:
    """The calls pi-ai answers with "No result provided" in the request for the resumed
    leaf although a result for them is in the file."""
    ctx = session_context(a)
    if ctx.cycle:
        return set()
    in_file = {
        message.get("toolCallId")
        for info in a.infos
        if info.kind is Kind.ENTRY
        and isinstance(message := info.obj.get("message"), dict)
        and message.get("role") == "toolResult"
    }
    return {m.answers for m in request(ctx).messages if m.synthetic and m.answers in in_file}


def still_reported(a: Analysis) -> set[Any]:
    """The calls whose result ``check`` still reports as not sent after its call: PI420
    (no call on the result's path), PI421 (the result on another branch) and PI423 (the
    result sent apart from its call), for what no safe repair mends."""
    found = [f for f in a.findings if f.code in ("PI420", "PI421", "PI423")]
    lines = {f.span.line for f in found} | {r.span.line for f in found for r in f.related}
    return {
        message.get("toolCallId")
        for line in lines
        if isinstance(message := a.infos[line].obj.get("message"), dict)
        and message.get("role") == "toolResult"
    }


def entries(a: Analysis) -> Counter[str]:
    """Every entry of ``a``, without its ids and links."""
    return Counter(
        json.dumps({k: v for k, v in info.obj.items() if k not in LINKS}, sort_keys=True)
        for info in a.infos
        if info.kind is Kind.ENTRY
    )


def assert_no_worse(text: str, path: str | None = None) -> autofix.Repaired:
    """Repair ``text``; every result sent before is sent after, no entry is lost."""
    before = analyze(text, path=path)
    fixed = autofix.repair(text, path)
    after = fixed.analysis
    lost = sent_results(before) - sent_results(after)
    assert not lost, f"tool results no longer sent: {lost}; repairs: {fixed.actions}"
    gone = entries(before) - entries(after)
    assert not gone, f"entries lost: {gone}"
    if any(f.code == "PI403" for f in after.findings):
        return fixed  # reordered by hand: a result may precede its call, no safe move fixes it
    worse = buried(after) - buried(before) - still_reported(after)
    assert not worse, f"results left on another branch: {worse}; repairs: {fixed.actions}"
    return fixed


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_repair_of_a_sample_sends_every_result_it_sent(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", errors="surrogateescape")
    assert_no_worse(text, str(path))


def test_the_readme_example_sends_its_tool_result_after_the_repair() -> None:
    """The property holds on the example because its result is sent after, not only
    because nothing was sent before (line 6's parent names no entry there)."""
    path = ROOT / "examples" / "broken-session.jsonl"
    fixed = assert_no_worse(path.read_text(encoding="utf-8"), str(path))
    assert ("toolu_01", 4) in [(m.answers, m.line) for m in request(session_context(fixed.analysis)).messages]


# -- generated sessions with planted faults ---------------------------------------------------


def _id(n: int) -> str:
    return f"{n:08x}"


@st.composite
def sessions(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A v3 session of a few turns (calls answered in order), some of them branching off
    an earlier entry, as pi writes them: parents before children."""
    objs: list[dict[str, Any]] = [json.loads(user(_id(1), None, "start"))]
    calls = 0
    for _ in range(draw(st.integers(1, 5))):
        parent = objs[-1]["id"]
        if len(objs) > 1 and draw(st.booleans()):
            parent = objs[draw(st.integers(0, len(objs) - 1))]["id"]  # /tree, then a prompt
        objs.append(json.loads(user(_id(len(objs) + 1), parent, f"ask {len(objs)}")))
        names = tuple(f"call_{calls + k}" for k in range(draw(st.integers(0, 2))))
        calls += len(names)
        objs.append(json.loads(assistant(_id(len(objs) + 1), objs[-1]["id"], calls=names)))
        turn = objs[-1]["id"]
        for name in names:
            objs.append(json.loads(result(_id(len(objs) + 1), objs[-1]["id"], name, name)))
        if names and draw(st.booleans()):
            objs.append(json.loads(assistant(_id(len(objs) + 1), objs[-1]["id"], "done")))
        if draw(st.booleans()):
            label = entry("label", _id(len(objs) + 1), objs[-1]["id"], targetId=turn, label="x")
            objs.append(json.loads(label))
    return objs


FAULTS = ("dangling", "duplicate", "cycle", "later-parent", "branch-at-call", "shadowed-result")


def plant(draw: st.DrawFn, objs: list[dict[str, Any]], fault: str) -> None:
    """Plant ``fault`` in ``objs`` (in place)."""
    n = draw(st.integers(1, len(objs) - 1)) if len(objs) > 1 else 0
    target = objs[n]
    if fault == "dangling":
        target["parentId"] = "ffff" + target["id"][4:]
    elif fault == "duplicate" and n > 0:
        # a later entry takes an earlier one's id; the entries written after it name it so
        old, new = target["id"], objs[draw(st.integers(0, n - 1))]["id"]
        target["id"] = new
        for later in objs[n + 1 :]:
            if later.get("parentId") == old:
                later["parentId"] = new
    elif fault == "cycle" and n < len(objs) - 1:
        target["parentId"] = objs[draw(st.integers(n, len(objs) - 1))]["id"]
    elif fault == "later-parent" and n < len(objs) - 1:
        target["parentId"] = objs[draw(st.integers(n + 1, len(objs) - 1))]["id"]
    elif fault == "shadowed-result":
        _shadow_result(objs, n)
    elif fault == "branch-at-call":
        # the entry after a result follows the call instead: the result is left behind
        for k in range(n, len(objs)):
            message = objs[k].get("message", {})
            if message.get("role") == "toolResult" and k + 1 < len(objs):
                turn = objs[k]["parentId"]
                objs[k + 1]["parentId"] = turn
                break


def _shadow_result(objs: list[dict[str, Any]], n: int) -> None:
    """The first result from ``n`` on: the entry after it names no entry as its parent,
    and a later entry takes the result's id (its children name it so)."""
    for k in range(n, len(objs) - 2):
        if objs[k].get("message", {}).get("role") == "toolResult":
            objs[k + 1]["parentId"] = "ffff" + objs[k + 1]["id"][4:]
            old, new = objs[k + 2]["id"], objs[k]["id"]
            objs[k + 2]["id"] = new
            for later in objs[k + 3 :]:
                if later.get("parentId") == old:
                    later["parentId"] = new
            return


@st.composite
def broken_sessions(draw: st.DrawFn) -> str:
    """A generated session with up to three planted faults, and maybe a cut-off last line."""
    objs = draw(sessions())
    for fault in draw(st.lists(st.sampled_from(FAULTS), max_size=3)):
        plant(draw, objs, fault)
    text = doc(header(), *(js(o) for o in objs))
    if draw(st.booleans()):
        last = js(objs[-1])
        text = text.rstrip("\n")[: len(text) - 1 - len(last) + draw(st.integers(1, len(last) - 1))]
    return text


@bounded(examples=150)
@given(broken_sessions())
def test_the_repair_of_a_generated_session_sends_every_result_it_sent(text: str) -> None:
    assert_no_worse(text)
