"""pi-lsp against today's pi (1.6.0) on sessions pi 1.6's own SessionManager writes here.

``write-sample --seed N`` writes a session with every kind pi 1.6 adds (system messages
and patches, usage entries, context edits that omit and replace, thinking level ``max``,
compactions that keep a range and keep none, each with a system checkpoint, a second root)
in shapes that vary with the seed. Each must analyse with no error or warning, and agree
with pi 1.6 on parents, leaf and context (roles, lines, texts) from several leaves, on
fork (``createBranchedSession``) and on an appended branch (``branchWithSummary``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_conformance import (
    ALL,
    PI16_ONLY,
    check_fork,
    our_context,
    parent_lines,
    problems,
    read,
    sent_texts,
)

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.edits import refactor
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.pi.context import session_context
from pi_lsp.core.pi.loading import UNDEFINED
from pi_lsp.core.pi.sent import pairing_faults, request, sent_json
from pi_lsp.core.text.textedit import apply_edits
from pi_lsp.core.views.context_view import context_json

pytestmark = pytest.mark.slow  # 47 cases, each runs pi 1.6 in node several times

Oracle = Any
SAMPLES = [(1, False), (2, True), (3, False), (4, True), (5, False), (6, True)]


@pytest.fixture(params=SAMPLES, ids=lambda p: f"seed{p[0]}{'-reset' if p[1] else ''}")
def sample16(request: pytest.FixtureRequest, pi16_oracle: Oracle, tmp_path: Path) -> dict[str, Any]:
    seed, reset = request.param
    args = ["write-sample", tmp_path / "pi", "--seed", str(seed)] + (
        ["--with-reset"] if reset else []
    )
    written: dict[str, Any] = pi16_oracle(args)
    assert written["pi_version"].startswith("1.")
    return written


def _our_parents(a: Analysis) -> dict[int, int | None]:
    return {line: a.tree.parent.get(line) for line in a.tree.entries}


def _leaves(a: Analysis, ids: dict[str, str]) -> list[str | None]:
    """The default leaf, every tip, and entries where something happens (edits, compactions)."""
    named = [ids[k] for k in ids if k.startswith(("edit", "compaction", "usage", "system", "u9"))]
    tips = [a.tree.id_of[line] for line in a.tree.leaves if line in a.tree.id_of]
    return [None, *dict.fromkeys([*tips, *named])]


def test_sample_checks_clean(sample16: dict[str, Any]) -> None:
    path = Path(sample16["path"])
    a = analyze(read(path), path=str(path))
    assert problems(a) == []
    # pi's appendContextEdit refuses what PI414/PI415 report: never on a file pi wrote
    assert [f for f in a.findings if f.code in ("PI414", "PI415")] == []
    kinds = {a.infos[line].obj.get("type") for line in a.tree.entries}
    assert {"usage", "context_edit", "compaction"} <= kinds
    roles = {(a.infos[line].obj.get("message") or {}).get("role") for line in a.tree.entries}
    assert "system" in roles


def test_sample_tree_and_context_agree(
    sample16: dict[str, Any], pi16_oracle: Oracle, capsys: pytest.CaptureFixture[str]
) -> None:
    path = Path(sample16["path"])
    a = analyze(read(path), path=str(path))
    pi = pi16_oracle(["load", path])
    assert pi["pi_accepts"] and "error" not in pi
    assert parent_lines(pi["entries"]) == _our_parents(a)
    assert pi["leafLine"] == a.tree.leaf
    for leaf in _leaves(a, sample16["ids"]):
        extra = [] if leaf is None else ["--leaf", leaf]
        pi = pi16_oracle(["load", path, *extra])
        ours = our_context(capsys, path, *extra)
        assert sent_texts(ours) == sent_texts(pi["context"]), leaf
        assert ours["thinkingLevel"] == pi["context"]["thinkingLevel"], leaf
        assert ours["model"] == pi["context"]["model"], leaf
        assert ours["leaf"]["line"] == pi["leafLine"], leaf
        ctx = session_context(a, leaf if leaf is not None else session_context(a).leaf_id)
        assert ctx.entries == pi["context"]["entry_lines"], leaf


def test_sample_fork_agrees(sample16: dict[str, Any], pi16_oracle: Oracle, tmp_path: Path) -> None:
    path = Path(sample16["path"])
    a = analyze(read(path), path=str(path))
    ids = sample16["ids"]
    picks = [
        ids[k] for k in ("a2", "label1", "edit1", "compaction", "compaction2", "a11") if k in ids
    ]
    for at in [*picks, sample16["leafId"]]:
        pi = pi16_oracle(["fork", path, "--at", at, "--dir", tmp_path / "forks"])
        if not pi.get("written", True):
            continue  # pi defers writing a path without a conversation
        result = refactor.fork(a, at, str(path))
        check_fork(pi, result, path, by_line=False)
        assert problems(analyze(result.text)) == []


def test_sample_branch_agrees(sample16: dict[str, Any], pi16_oracle: Oracle) -> None:
    path = Path(sample16["path"])
    text = read(path)
    a = analyze(text, path=str(path))
    ids = sample16["ids"]
    left = a.tree.id_of[a.tree.leaf] if a.tree.leaf is not None else None
    text = apply_edits(a.text, refactor.branch(a, a.tree.ids[ids["u2"]], "left the regex idea"))
    a = analyze(text, path=str(path))
    path.write_text(text, encoding="utf-8")
    pi = pi16_oracle(["load", path])
    last = pi["entries"][-1]
    assert last["type"] == "branch_summary" and last["line"] == a.tree.leaf
    assert last["fromId"] == left
    assert parent_lines(pi["entries"])[a.tree.leaf] == a.tree.ids[ids["u2"]]
    ours = context_json(session_context(a))
    assert sent_texts(ours) == sent_texts(pi["context"])
    assert problems(a) == []


# ------------------------------------------------------------- what the provider receives

DATA = Path(__file__).resolve().parents[1] / "data"
PAIRING_CASES = sorted(p.name for p in (DATA / "broken").glob("pi42[345]-*.jsonl"))


def ours_sent(path: Path, leaf: str | None = None) -> list[dict[str, Any]]:
    """Our request for the leaf, in the oracle's ``sent`` shape."""
    a = analyze(read(path), path=str(path))
    return sent_json(request(session_context(a, UNDEFINED if leaf is None else leaf)))


@pytest.mark.parametrize(
    "path",
    [
        *(pytest.param(("fixtures", n), id=n) for n in ALL + PI16_ONLY),
        *(pytest.param((d, n), id=f"{d}-{n}") for n in PAIRING_CASES for d in ("broken", "fixed")),
    ],
)
def test_request_matches_pi(pi16_oracle: Oracle, fixtures_dir: Path, path: tuple[str, str]) -> None:
    folder, name = path
    source = fixtures_dir / name if folder == "fixtures" else DATA / folder / name
    pi = pi16_oracle(["load", source])
    assert ours_sent(source) == pi["sent"]
    faults = pairing_faults(request(session_context(analyze(read(source)))).messages)
    # pi-v3-long's real problem: its newest compaction keeps an orphaned tool result
    broken = name == "pi-v3-long.jsonl" or (folder == "broken" and name.startswith("pi423"))
    assert bool(faults) == broken


def test_sample_request_matches_pi(sample16: dict[str, Any], pi16_oracle: Oracle) -> None:
    path = Path(sample16["path"])
    a = analyze(read(path), path=str(path))
    for leaf in _leaves(a, sample16["ids"]):
        pi = pi16_oracle(["load", path, *([] if leaf is None else ["--leaf", leaf])])
        assert ours_sent(path, leaf) == pi["sent"], leaf
        ctx = session_context(a, UNDEFINED if leaf is None else leaf)
        assert pairing_faults(request(ctx).messages) == []
