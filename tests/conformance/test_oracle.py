"""The oracle itself: pi_oracle.mjs must report what pi 0.73.1 does, with the right lines.

Also checks bench/generate.mjs writes sessions pi loads and that its fast writer
matches pi's own SessionManager entry for entry.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pi_install import PI_VERSION, cache_dir, find_pi

pytestmark = pytest.mark.slow  # the oracle's own tests, each starts node

REPO = Path(__file__).resolve().parents[2]
GENERATOR = REPO / "bench" / "generate.mjs"
HEX8 = re.compile(r"^[0-9a-f]{8}$")

FIXTURE_NAMES = [
    "pi-v2-hookmessage.jsonl",
    "pi-v3-branched.jsonl",
    "pi-v3-long.jsonl",
    "real-v1-compactions.jsonl",
    "real-v1-large.jsonl",
]


def raw_lines(path: Path) -> list[str]:
    """Physical lines split on "\\n" only (what pi splits on)."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def non_header(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in entries if e["type"] != "session"]


def children_count(entries: list[dict[str, Any]]) -> Counter[str]:
    return Counter(e["parentId"] for e in non_header(entries) if e["parentId"] is not None)


def test_version(pi_oracle: Any) -> None:
    out = pi_oracle(["version"])
    assert out["pi_version"] == PI_VERSION


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_load_fixture(pi_oracle: Any, fixtures_dir: Path, name: str) -> None:
    path = fixtures_dir / name
    lines = raw_lines(path)
    out = pi_oracle(["load", path])
    entries = out["entries"]
    assert out["pi_accepts"] is True
    assert "error" not in out
    # Every line of these files is a valid JSON object: one entry per line, in order.
    assert [e["line"] for e in entries] == list(range(len(lines)))
    assert entries[0]["type"] == "session"
    assert len(non_header(entries)) == len(lines) - 1
    for e, raw in zip(entries, lines, strict=True):
        assert e["type"] == json.loads(raw)["type"]
    # After migration every entry has an id and a parentId that resolves (or null).
    ids = [e["id"] for e in non_header(entries)]
    assert all(isinstance(i, str) and i for i in ids)
    assert len(set(ids)) == len(ids)
    known = set(ids)
    assert all(e["parentId"] is None or e["parentId"] in known for e in non_header(entries))
    assert out["version_after"] == 3
    # Context: non-empty, leaf = last line.
    assert out["leafLine"] == len(lines) - 1
    assert out["context"]["messages"]
    assert out["path_lines"][-1] == len(lines) - 1
    # Every context message is traced back to an entry on the path.
    on_path = set(out["path_lines"])
    assert all(m["line"] in on_path for m in out["context"]["messages"])


@pytest.mark.parametrize("name", ["real-v1-compactions.jsonl", "real-v1-large.jsonl"])
def test_v1_migration_ids(pi_oracle: Any, fixtures_dir: Path, name: str) -> None:
    path = fixtures_dir / name
    raw = [json.loads(line) for line in raw_lines(path)]
    out = pi_oracle(["load", path])
    assert out["version_before"] == 1
    body = non_header(out["entries"])
    # v1 -> v2: fresh 8-hex ids, each entry's parent is the previous entry.
    assert all(HEX8.match(e["id"]) for e in body)
    assert body[0]["parentId"] is None
    for prev, cur in itertools.pairwise(body):
        assert cur["parentId"] == prev["id"]
    # firstKeptEntryIndex (index into the file's entries, header = 0) -> firstKeptEntryId.
    by_id = {e["id"]: e for e in body}
    for e in body:
        if e["type"] != "compaction":
            continue
        index = raw[e["line"]]["firstKeptEntryIndex"]
        assert "firstKeptEntryIndex" not in e
        assert by_id[e["firstKeptEntryId"]]["line"] == index


def test_real_v1_compactions_context(pi_oracle: Any, fixtures_dir: Path) -> None:
    out = pi_oracle(["load", fixtures_dir / "real-v1-compactions.jsonl"])
    msgs = out["context"]["messages"]
    assert msgs[0]["role"] == "compactionSummary"
    compactions = [e for e in out["entries"] if e["type"] == "compaction"]
    assert msgs[0]["line"] == compactions[-1]["line"]
    # Kept messages start at the last compaction's first kept entry.
    first_kept = next(e for e in out["entries"] if e["id"] == compactions[-1]["firstKeptEntryId"])
    assert msgs[1]["line"] == first_kept["line"]
    assert out["context"]["model"] is not None


def test_v2_hookmessage_renamed(pi_oracle: Any, fixtures_dir: Path) -> None:
    path = fixtures_dir / "pi-v2-hookmessage.jsonl"
    raw = [json.loads(line) for line in raw_lines(path)]
    hook_lines = [
        i
        for i, r in enumerate(raw)
        if r.get("type") == "message" and r["message"]["role"] == "hookMessage"
    ]
    assert hook_lines
    out = pi_oracle(["load", path])
    assert out["version_before"] == 2
    for e in out["entries"]:
        if e["line"] in hook_lines:
            assert e["role"] == "custom"
    # ids are untouched by v2 -> v3
    assert [e["id"] for e in non_header(out["entries"])] == [r["id"] for r in raw[1:]]


def test_leaf_option(pi_oracle: Any, fixtures_dir: Path) -> None:
    path = fixtures_dir / "pi-v3-long.jsonl"
    full = pi_oracle(["load", path])
    # Pick an entry with two children: a branch point; go down the first child.
    counts = children_count(full["entries"])
    branch_point = next(pid for pid, n in counts.items() if n >= 2)
    first_child = next(e for e in full["entries"] if e.get("parentId") == branch_point)
    out = pi_oracle(["load", path, "--leaf", first_child["id"]])
    assert out["leafId"] == first_child["id"]
    assert out["leafLine"] == first_child["line"]
    assert out["path_lines"][-1] == first_child["line"]
    # Unknown leaf: pi falls back to the last entry.
    out = pi_oracle(["load", path, "--leaf", "nope"])
    assert out["leafLine"] == full["leafLine"]
    # Explicit null leaf: empty context.
    out = pi_oracle(["load", path, "--leaf-null"])
    assert out["context"] == {"messages": [], "thinkingLevel": "off", "model": None}


HEADER = (
    '{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x"}'
)


def entry(id_: str, parent: str | None, text: str) -> str:
    return json.dumps(
        {
            "type": "message",
            "id": id_,
            "parentId": parent,
            "timestamp": "2025-01-01T00:00:00.000Z",
            "message": {"role": "user", "content": text, "timestamp": 1},
        },
        ensure_ascii=False,
    )


def test_line_mapping_leading_blank_lines(pi_oracle: Any, tmp_path: Path) -> None:
    # trim() drops the leading blank lines: lines must still be physical.
    text = (
        "\n\n   \n"  # lines 0-2 blank
        + HEADER
        + "\r\n"  # 3
        + entry("a", None, "one\u2028two")  # 4 (U+2028 is not a line break)
        + "\r\n"
        + "{not json\n"  # 5 skipped by pi
        + "\n"  # 6 blank
        + entry("b", "a", "three")  # 7
        + "\n\n"
    )
    f = tmp_path / "s.jsonl"
    f.write_bytes(text.encode("utf-8"))
    out = pi_oracle(["load", f])
    assert [(e["line"], e["id"]) for e in out["entries"]] == [(3, "s1"), (4, "a"), (7, "b")]
    assert [m["line"] for m in out["context"]["messages"]] == [4, 7]
    assert out["context"]["messages"][0]["text_prefix"] == "one\u2028two"


def test_bom_and_prefix_codepoints(pi_oracle: Any, tmp_path: Path) -> None:
    long_text = "🚀" * 100 + "tail"
    f = tmp_path / "s.jsonl"
    f.write_bytes(("\ufeff" + HEADER + "\n" + entry("a", None, long_text) + "\n").encode("utf-8"))
    out = pi_oracle(["load", f])
    assert out["pi_accepts"] is True
    assert [e["line"] for e in out["entries"]] == [0, 1]
    # text_prefix is cut at 80 code points (not UTF-16 units): same as Python's s[:80].
    assert out["context"]["messages"][0]["text_prefix"] == long_text[:80]


def test_cycle_and_crashes_are_reported(pi_oracle: Any, tmp_path: Path) -> None:
    f = tmp_path / "cycle.jsonl"
    f.write_text("\n".join([HEADER, entry("a", "b", "x"), entry("b", "a", "y")]) + "\n")
    out = pi_oracle(["load", f])
    assert out["context"] is None
    assert out["error"]["stage"] == "context" and out["error"]["name"] == "Hang"

    f = tmp_path / "null.jsonl"
    f.write_text(HEADER + "\nnull\n")
    out = pi_oracle(["load", f])
    assert out["entries"][1]["json_type"] == "null"
    assert out["error"]["name"] == "TypeError"

    f = tmp_path / "noheader.jsonl"
    f.write_text(entry("a", None, "x") + "\n")
    out = pi_oracle(["load", f])
    assert out["pi_accepts"] is False


def test_write_sample_has_everything(pi_oracle: Any, tmp_path: Path) -> None:
    sample = pi_oracle(["write-sample", tmp_path / "sessions"])
    path = Path(sample["path"])
    assert path.is_file() and path.parent == tmp_path / "sessions"
    out = pi_oracle(["load", path])
    entries = out["entries"]
    assert "error" not in out
    assert [e["line"] for e in entries] == list(range(len(raw_lines(path))))
    types = Counter(e["type"] for e in entries)
    for t in (
        "session",
        "message",
        "model_change",
        "thinking_level_change",
        "label",
        "session_info",
        "custom",
        "custom_message",
        "compaction",
        "branch_summary",
    ):
        assert types[t] >= 1, t
    roles = Counter(e.get("role") for e in entries)
    for r in ("user", "assistant", "toolResult", "bashExecution"):
        assert roles[r] >= 1, r
    # Branches: some entry has two or more children.
    assert max(children_count(entries).values()) >= 2
    # A cleared label has no "label".
    assert any(e["type"] == "label" and e["label"] is None for e in entries)
    msgs = out["context"]["messages"]
    assert msgs[0]["role"] == "compactionSummary"
    assert msgs[1]["role"] == "branchSummary"
    assert out["leafId"] == sample["leafId"]


def test_write_sample_with_reset_has_two_roots(pi_oracle: Any, tmp_path: Path) -> None:
    sample = pi_oracle(["write-sample", tmp_path, "--with-reset"])
    out = pi_oracle(["load", sample["path"]])
    roots = [e for e in non_header(out["entries"]) if e["parentId"] is None]
    assert len(roots) == 2
    assert len(out["context"]["messages"]) == 2


def test_fork(pi_oracle: Any, tmp_path: Path) -> None:
    sample = pi_oracle(["write-sample", tmp_path / "src"])
    src = Path(sample["path"])
    before = src.read_bytes()
    at = sample["ids"]["a6"]  # on the regex branch, labelled ancestors on the path
    out = pi_oracle(["fork", src, "--at", at, "--dir", tmp_path / "forks"])
    assert out["written"] is True
    assert src.read_bytes() == before
    new = Path(out["path"])
    assert new.parent == tmp_path / "forks"
    assert out["header"]["parentSession"] == str(src)
    assert out["header"]["version"] == 3
    body = non_header(out["entries"])
    # The path root..at, without the old label entries, then the labels re-created.
    non_labels = [e for e in body if e["type"] != "label"]
    assert non_labels[-1]["id"] == at
    labels = [e for e in body if e["type"] == "label"]
    assert {lab["targetId"] for lab in labels} == {sample["ids"]["u3"]}
    assert body[-1]["type"] == "label" and body[-1]["parentId"] == at
    loaded = pi_oracle(["load", new])
    assert [e["id"] for e in loaded["entries"]] == [e["id"] for e in out["entries"]]

    bad = pi_oracle(["fork", src, "--at", "nope", "--dir", tmp_path / "forks"])
    assert bad["error"]["stage"] == "fork"

    # No assistant message on the path: pi defers writing the file.
    early = pi_oracle(["fork", src, "--at", sample["ids"]["u1"], "--dir", tmp_path / "early"])
    assert early["written"] is False
    assert [e["type"] for e in early["entries"]] == [
        "session",
        "model_change",
        "thinking_level_change",
        "message",
    ]


def test_fork_v1_by_line_leaves_source_alone(
    pi_oracle: Any, fixtures_dir: Path, tmp_path: Path
) -> None:
    src = tmp_path / "v1.jsonl"
    shutil.copyfile(fixtures_dir / "real-v1-large.jsonl", src)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    out = pi_oracle(["fork", src, "--at-line", "50", "--dir", tmp_path / "forks"])
    assert out["source_migrated_by_pi"] is True
    assert hashlib.sha256(src.read_bytes()).hexdigest() == digest
    assert out["header"]["parentSession"] == str(src)
    body = non_header(out["entries"])
    assert len(body) == 50 and body[-1]["id"] == out["at"]
    assert body[0]["parentId"] is None


def test_time(pi_oracle: Any, fixtures_dir: Path) -> None:
    out = pi_oracle(["time", fixtures_dir / "pi-v3-branched.jsonl", "--repeat", "3"])
    assert len(out["runs_ms"]) == 3
    assert out["best_ms"] == min(out["runs_ms"]) and out["best_ms"] > 0
    assert out["entries"] == len(raw_lines(fixtures_dir / "pi-v3-branched.jsonl"))


# --- bench/generate.mjs -------------------------------------------------------


def run_generator(args: list[str], env_extra: dict[str, str]) -> dict[str, Any]:
    node = shutil.which("node")
    assert node
    proc = subprocess.run(
        [node, str(GENERATOR), *args, "--quiet"],
        capture_output=True,
        text=True,
        env={**os.environ, **env_extra},
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def structure(path: Path) -> list[tuple[list[str], dict[str, Any], dict[str, Any]]]:
    """Each line without ids/timestamps; references replaced by the target's line."""
    rows = [json.loads(line) for line in raw_lines(path)]
    index = {r["id"]: i for i, r in enumerate(rows)}
    out = []
    for r in rows:
        d = {k: v for k, v in r.items() if k not in ("id", "timestamp")}
        refs = {}
        for k in ("parentId", "targetId", "firstKeptEntryId", "fromId"):
            if k in d:
                v = d.pop(k)
                refs[k] = index.get(v, v)
        out.append((list(r.keys()), d, refs))
    return out


def test_generator_fast_matches_pi(pi_modules: Path, pi_oracle: Any, tmp_path: Path) -> None:
    env = {"PI_LSP_PI_MODULES": str(pi_modules)}
    args = ["--mb", "3", "--images", "--seed", "11"]
    fast = run_generator([*args, "--backend", "fast", "--out", str(tmp_path / "f.jsonl")], env)
    pi = run_generator([*args, "--backend", "pi", "--out", str(tmp_path / "p.jsonl")], env)
    assert fast["backend"] == "fast" and pi["backend"] == "pi"
    a = structure(Path(fast["path"]))
    b = structure(Path(pi["path"]))
    assert len(a) == len(b)
    # Same keys in the same order, same content, same tree (ids/timestamps aside).
    assert a[0][0] == b[0][0]
    assert a[1:] == b[1:]

    out = pi_oracle(["load", fast["path"]])
    assert "error" not in out
    assert len(out["entries"]) == fast["lines"]
    assert [e["line"] for e in out["entries"]] == list(range(fast["lines"]))


def test_generator_session_shape(pi_oracle: Any, tmp_path: Path) -> None:
    # No pi needed for the fast backend; deterministic for a seed.
    env = {"PI_LSP_PI_MODULES": str(tmp_path / "none"), "XDG_CACHE_HOME": str(tmp_path / "none")}
    args = ["--mb", "4", "--seed", "5", "--backend", "fast"]
    one = run_generator([*args, "--out", str(tmp_path / "a.jsonl")], env)
    run_generator([*args, "--out", str(tmp_path / "b.jsonl")], env)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert one["bytes"] >= 4 * 1024 * 1024
    assert one["branches"] + one["branchSummaries"] >= 1 and one["compactions"] >= 1

    out = pi_oracle(["load", one["path"]])
    entries = out["entries"]
    assert "error" not in out and out["pi_accepts"]
    body = non_header(entries)
    assert all(HEX8.match(e["id"]) for e in body)
    line_of = {e["id"]: e["line"] for e in body}
    # Parents precede children; references resolve.
    for e in body:
        if e["parentId"] is not None:
            assert line_of[e["parentId"]] < e["line"]
        if e["type"] == "label":
            assert e["targetId"] in line_of
        if e["type"] == "compaction":
            assert e["firstKeptEntryId"] in line_of
    assert max(children_count(entries).values()) >= 2
    # Every toolResult on the active path answers a toolCall earlier on it.
    calls: set[str] = set()
    for m in out["context"]["messages"]:
        if m["role"] == "assistant":
            calls.update(m["toolCallIds"])
        if m["role"] == "toolResult":
            assert m["toolCallId"] in calls
    assert out["leafLine"] == len(entries) - 1


@pytest.mark.skipif(
    os.environ.get("PI_LSP_TEST_COLD_INSTALL") != "1",
    reason="set PI_LSP_TEST_COLD_INSTALL=1 to install pi from npm into a fresh cache",
)
def test_cold_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_LSP_PI_MODULES", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "pi-lsp" / "npm"
    assert find_pi(install=False) is None
    modules = find_pi()
    assert modules == (tmp_path / "pi-lsp" / "npm" / "node_modules").resolve()
    assert find_pi(install=False) == modules


def test_find_pi_env_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # An explicit PI_LSP_PI_MODULES that holds no pi: None, and nothing is installed.
    monkeypatch.setenv("PI_LSP_PI_MODULES", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert find_pi() is None
    assert not (tmp_path / "cache").exists()
    # A prefix dir holding node_modules/ is accepted as well as the node_modules dir.
    pkg = tmp_path / "node_modules" / "@mariozechner" / "pi-coding-agent"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text(json.dumps({"version": PI_VERSION}))
    assert find_pi() == (tmp_path / "node_modules").resolve()
    monkeypatch.setenv("PI_LSP_PI_MODULES", str(tmp_path / "node_modules"))
    assert find_pi() == (tmp_path / "node_modules").resolve()
    (pkg / "package.json").write_text(json.dumps({"version": "0.1.0"}))
    assert find_pi() is None
