"""pi-lsp's migration, context and fork against pi itself (through pi_oracle.mjs).

Each test runs against pi 0.73.1 and today's pi 1.6.0 where both read the files.

- Migration: for every v1/v2 fixture, our minimally edited file gives, line by line, the
  parents, ``firstKeptEntryId`` targets, leaf and context that pi's own
  ``migrateSessionEntries`` + ``buildSessionContext`` give; apart from ids, version and
  the renamed role no content changes; and pi loads the migrated file as v3 (no
  migration) with the same result.
- Context: ``pi-lsp context --json`` gives pi's roles, order and texts (what
  ``convertToLlm`` sends), thinking level and model on every fixture and from several
  leaves (pi 1.6 also on the files it wrote).
- Fork: our fork has the entries and labels of pi's ``createBranchedSession``; parents
  are relinked past dropped label entries as pi 1.6 does (pi 0.73.1 left them dangling).
- Sessions pi writes in the test (``write-sample``) analyse clean and agree too, and
  entries we append (branch, label, name) load in pi with the leaf and context we expect.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.cli import main
from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.edits import refactor
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.pi import migrate
from pi_lsp.core.pi.context import session_context
from pi_lsp.core.text.findings import Severity
from pi_lsp.core.text.textedit import apply_edits

MIGRATABLE = ["real-v1-compactions.jsonl", "real-v1-large.jsonl", "pi-v2-hookmessage.jsonl"]
ALL = [*MIGRATABLE, "pi-v3-branched.jsonl", "pi-v3-long.jsonl"]
PI16_ONLY = ["pi16-features.jsonl", "pi16-long.jsonl"]  # pi 0.73.1 cannot read these right
Oracle = Any


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def objects(text: str) -> dict[int, Any]:
    """Line → parsed value of every line JSON accepts (lines split at \\n, as pi does)."""
    out = {}
    for n, line in enumerate(text.split("\n")):
        if line.strip():
            try:
                out[n] = json.loads(line)
            except ValueError:
                continue
    return out


def parent_lines(entries: list[dict[str, Any]]) -> dict[int, int | None]:
    """Oracle entries → {line: line of the parent} (None: root or unresolved)."""
    line_of = {e["id"]: e["line"] for e in entries if e["type"] != "session"}
    return {
        e["line"]: line_of.get(e["parentId"]) if e["parentId"] else None
        for e in entries
        if e["type"] != "session"
    }


def messages(ctx: dict[str, Any]) -> list[tuple[Any, Any]]:
    return [(m["role"], m["line"]) for m in ctx["messages"]]


def sent_texts(ctx: dict[str, Any]) -> list[tuple[Any, Any, Any]]:
    """Per message: role, line and the text pi sends (None when convertToLlm drops it)."""
    return [
        (m["role"], m["line"], None if "dropped" in m or m.get("text") is None else m["text"])
        for m in ctx["messages"]
    ]


def is_pi16(pi: dict[str, Any]) -> bool:
    return str(pi["pi_version"]).startswith("1.")


def problems(a: Analysis) -> list[tuple[str, int]]:
    """Errors and warnings other than "not migrated"."""
    return [
        (f.code, f.span.line)
        for f in a.findings
        if f.severity <= Severity.WARNING and f.code != "PI103"
    ]


# ---------------------------------------------------------------------------- migration


@pytest.mark.parametrize("name", MIGRATABLE)
def test_migration_matches_pi(
    any_pi_oracle: Oracle, fixtures_dir: Path, tmp_path: Path, name: str
) -> None:
    pi_oracle = any_pi_oracle
    source = fixtures_dir / name
    text = read(source)
    a = analyze(text, path=str(source))
    plan = migrate.plan(a)
    assert plan is not None
    out = migrate.migrated_text(a, plan)
    pi = pi_oracle(["load", source])
    assert "error" not in pi and pi["version_after"] == 3

    new = objects(out)
    ours = [
        {"line": n, "type": o.get("type"), "id": o.get("id"), "parentId": o.get("parentId"), **o}
        for n, o in sorted(new.items())
    ]
    assert parent_lines(ours) == parent_lines(pi["entries"])
    our_line_of = {o["id"]: o["line"] for o in ours if o["type"] != "session"}
    pi_line_of = {e["id"]: e["line"] for e in pi["entries"] if e["type"] != "session"}
    kept = [e for e in pi["entries"] if "firstKeptEntryId" in e]
    assert len(kept) == sum("firstKeptEntryId" in o for o in ours)
    for e in kept:
        target = new[e["line"]]["firstKeptEntryId"]
        assert our_line_of[target] == pi_line_of[e["firstKeptEntryId"]]
    assert "firstKeptEntryIndex" not in out.split("\n")[0]

    # apart from ids, version and the renamed role, nothing changes
    original = objects(text)
    assert set(original) == set(new)
    for n, before in original.items():
        after = dict(new[n])
        before = dict(before)
        for key in ("id", "parentId", "firstKeptEntryIndex", "firstKeptEntryId", "version"):
            before.pop(key, None)
            after.pop(key, None)
        if (
            isinstance(before.get("message"), dict)
            and before["message"].get("role") == "hookMessage"
        ):
            before["message"] = {**before["message"], "role": "custom"}
        assert after == before, f"line {n + 1} changed"

    # pi loads the migrated file as v3, unchanged, with the same tree, leaf and context
    migrated = tmp_path / name
    migrated.write_text(out, encoding="utf-8")
    again = pi_oracle(["load", migrated])
    assert again["version_before"] == 3 and "error" not in again
    assert [e["id"] for e in again["entries"][1:]] == [o["id"] for o in ours[1:]]
    assert parent_lines(again["entries"]) == parent_lines(pi["entries"])
    assert again["leafLine"] == pi["leafLine"]
    assert messages(again["context"]) == messages(pi["context"])
    assert again["context"]["thinkingLevel"] == pi["context"]["thinkingLevel"]
    assert again["context"]["model"] == pi["context"]["model"]
    assert problems(analyze(out)) == []


# ------------------------------------------------------------------------------ context


def _leaves(a: Analysis) -> list[str]:
    """A few interesting leaves: branch tips, a branch point, an early entry."""
    tree = a.tree
    picks = [*tree.leaves[:2], *tree.branch_points[:1], tree.entries[len(tree.entries) // 3]]
    return [tree.id_of[line] for line in dict.fromkeys(picks) if line in tree.id_of]


def our_context(capsys: pytest.CaptureFixture[str], path: Path, *extra: str) -> dict[str, Any]:
    """``pi-lsp context --json``, its lines (1-based, as ``--leaf-line`` takes them) counted
    from 0 as the oracle counts them."""
    assert main(["context", str(path), "--json", *extra]) == 0
    result: dict[str, Any] = json.loads(capsys.readouterr().out)
    for item in [result["leaf"] or {}, *result["messages"], *result["sent"]]:
        for key in ("line", "edited"):
            if item.get(key) is not None:
                item[key] -= 1
    return result


@pytest.mark.parametrize("name", ALL + PI16_ONLY)
@pytest.mark.slow
def test_context_matches_pi(
    any_pi_oracle: Oracle, fixtures_dir: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    source = fixtures_dir / name
    pi = any_pi_oracle(["load", source])
    if name in PI16_ONLY and not is_pi16(pi):
        pytest.skip("written by pi 1.6: pi 0.73.1 does not know its entry types")
    ours = our_context(capsys, source)
    assert sent_texts(ours) == sent_texts(pi["context"])
    assert ours["thinkingLevel"] == pi["context"]["thinkingLevel"]
    assert ours["model"] == pi["context"]["model"]
    assert ours["leaf"]["line"] == pi["leafLine"]
    a = analyze(read(source), path=str(source))
    if a.version < 2:
        return  # ids are random per load: leaves can only be named by line
    for leaf in _leaves(a):
        pi = any_pi_oracle(["load", source, "--leaf", leaf])
        ours = our_context(capsys, source, "--leaf", leaf)
        assert sent_texts(ours) == sent_texts(pi["context"]), leaf
        assert ours["model"] == pi["context"]["model"]


# --------------------------------------------------------------------------------- fork


def _fork_points(a: Analysis) -> list[int]:
    tree = a.tree
    labels = [line for line in tree.entries if a.infos[line].obj.get("type") == "label"]
    picks = [tree.entries[len(tree.entries) // 2], tree.entries[-1], *labels[:1], *tree.leaves[:1]]
    return list(dict.fromkeys(picks))


def kept_at(entry: dict[str, Any], position: dict[str, int]) -> Any:
    """Where a compaction's firstKeptEntryId points: "self" (retain-none) or a position."""
    kept = entry["firstKeptEntryId"]
    return "self" if kept == entry["id"] else position.get(kept, kept)


def check_fork(pi: dict[str, Any], result: refactor.Fork, source: Path, by_line: bool) -> None:
    """Our fork against pi's: same entries, labels, header; parents relinked past labels."""
    assert "error" not in pi
    ours = [json.loads(line) for line in result.text.split("\n")[:-1]]
    theirs = pi["entries"]
    assert ours[0]["version"] == 3 and ours[0]["parentSession"] == str(source)
    assert theirs[0]["parentSession"] == str(source)
    assert len(ours) == len(theirs)
    body = [(o, t) for o, t in zip(ours[1:], theirs[1:], strict=True) if t["type"] != "label"]
    position = {o["id"]: n for n, (o, _) in enumerate(body)}
    pi_position = {t["id"]: n for n, (_, t) in enumerate(body)}
    for n, (o, t) in enumerate(body):
        assert o["type"] == t["type"]
        assert (o.get("message") or {}).get("role") == t.get("role")
        if not by_line:
            assert o["id"] == t["id"]
        # ours is the previous kept entry, as pi 1.6 relinks; pi 0.73.1 kept the parent a
        # dropped label entry had
        expected = body[n - 1][0]["id"] if n else None
        assert o["parentId"] == expected
        if is_pi16(pi):
            assert (pi_position.get(t["parentId"]) if t["parentId"] else None) == (
                n - 1 if n else None
            )
            if t["type"] == "compaction":
                assert kept_at(o, position) == kept_at(t, pi_position)
        elif t["parentId"] in pi_position:
            assert pi_position[t["parentId"]] == n - 1
    labels = [(position[o["targetId"]], o["label"]) for o in ours[1 + len(body) :]]
    pi_labels = [(pi_position[t["targetId"]], t["label"]) for t in theirs[1 + len(body) :]]
    assert labels == pi_labels
    assert all(o["type"] == "label" for o in ours[1 + len(body) :])


@pytest.mark.parametrize("name", ALL + PI16_ONLY)
@pytest.mark.slow
def test_fork_matches_pi(
    any_pi_oracle: Oracle, fixtures_dir: Path, tmp_path: Path, name: str
) -> None:
    pi_oracle = any_pi_oracle
    source = fixtures_dir / name
    if name in PI16_ONLY and not is_pi16(pi_oracle(["version"])):
        pytest.skip("written by pi 1.6: pi 0.73.1 does not know its entry types")
    a = analyze(read(source), path=str(source))
    by_line = a.version < 2
    for line in _fork_points(a):
        if by_line:
            pi = pi_oracle(["fork", source, "--at-line", str(line), "--dir", tmp_path])
            result = refactor.fork(a, line, str(source))
        else:
            ident = a.tree.id_of[line]
            pi = pi_oracle(["fork", source, "--at", ident, "--dir", tmp_path])
            result = refactor.fork(a, ident, str(source))
        check_fork(pi, result, source, by_line)
        broken = [p for p in problems(analyze(result.text)) if p[0] in ("PI400", "PI401", "PI402")]
        assert broken == []  # relinked: no dangling parent where pi 0.73.1 leaves one


# -------------------------------------------------------------- sessions pi writes here


@pytest.fixture(params=[False, True], ids=["sample", "sample-with-reset"])
def sample(request: pytest.FixtureRequest, pi_oracle: Oracle, tmp_path: Path) -> dict[str, Any]:
    args = ["write-sample", tmp_path / "pi"] + (["--with-reset"] if request.param else [])
    written: dict[str, Any] = pi_oracle(args)
    return written


@pytest.mark.slow
def test_sample_analyses_clean_and_agrees(
    sample: dict[str, Any], pi_oracle: Oracle, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = Path(sample["path"])
    a = analyze(read(path), path=str(path))
    assert problems(a) == []
    assert a.tree.leaf is not None and a.tree.id_of[a.tree.leaf] == sample["leafId"]
    ids = sample["ids"]
    for leaf in [None, ids["a4"], ids["a6"], ids["u3"], ids["r3"], ids["a11"]]:
        extra = [] if leaf is None else ["--leaf", leaf]
        pi = pi_oracle(["load", path, *extra])
        ours = our_context(capsys, path, *extra)
        assert messages(ours) == messages(pi["context"]), leaf
        assert ours["thinkingLevel"] == pi["context"]["thinkingLevel"]
        assert ours["model"] == pi["context"]["model"]
    for at in [
        ids["a2"],
        ids["label1"],
        ids["a6"],
        ids["compaction"],
        ids["a11"],
        sample["leafId"],
    ]:
        pi = pi_oracle(["fork", path, "--at", at, "--dir", tmp_path / "forks"])
        check_fork(pi, refactor.fork(a, at, str(path)), path, by_line=False)


def test_our_appends_load_in_pi(sample: dict[str, Any], pi_oracle: Oracle, tmp_path: Path) -> None:
    path = Path(sample["path"])
    ids = sample["ids"]
    text = read(path)
    a = analyze(text, path=str(path))
    steps = [
        lambda a: refactor.label(a, a.tree.ids[ids["u2"]], "picked"),
        lambda a: refactor.name(a, " Renamed "),
        lambda a: refactor.branch(a, a.tree.ids[ids["a2"]], "left the filter approach"),
    ]
    for step in steps:
        text = apply_edits(a.text, step(a))
        a = analyze(text, path=str(path))
    path.write_text(text, encoding="utf-8")
    pi = pi_oracle(["load", path])
    assert pi["pi_accepts"] and "error" not in pi and pi["version_before"] == 3
    last = pi["entries"][-1]
    assert last["type"] == "branch_summary" and last["line"] == a.tree.leaf
    assert last["fromId"] == a.tree.id_of[a.tree.leaf - 1]  # the leaf we branched away from
    assert parent_lines(pi["entries"])[a.tree.leaf] == a.tree.ids[ids["a2"]]
    assert messages(pi["context"]) == [(m.role, m.line) for m in session_context(a).messages]
    assert messages(pi["context"])[-1] == ("branchSummary", a.tree.leaf)
    labels = [e for e in pi["entries"] if e["type"] == "label"]
    assert (labels[-1]["targetId"], labels[-1]["label"]) == (ids["u2"], "picked")
    assert problems(a) == []
    assert re.fullmatch(r"[0-9a-f]{8}", last["id"])
