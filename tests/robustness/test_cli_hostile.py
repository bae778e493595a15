"""Hostile files through the command line: ``check`` (and tree/context/migrate/fork).

Invariants: no traceback, ``check`` exits 0 or 1 for every readable file (1 exactly
when an error is reported), ``--format json`` is valid JSON whose ranges lie inside the
file, and no command writes anything it was not asked to write.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pi_lsp.cli import build_parser
from pi_lsp.core.checks.analysis import analyze

from . import hostile, invariants, known
from .drive import check_cli_result, disk_text, run_cli_inproc
from .lspclient import ROOT
from .snapshots import snapshot

FUZZ_CASES = int(os.environ.get("PI_LSP_FUZZ_CLI_CASES", "80"))


def _commands() -> set[str]:
    parser = build_parser()
    for action in parser._actions:
        if action.choices and isinstance(action.choices, dict):
            return set(action.choices)
    return set()


COMMANDS = _commands()


def _check(path: Path, data: bytes | None = None) -> list[str]:
    result = run_cli_inproc(["check", "--format", "json", str(path)])
    text = disk_text(data) if data is not None else None
    return check_cli_result(result, path, text)


def _no_traceback(argv: list[str]) -> list[str]:
    """Run any other command: it may refuse (exit 1/2) but must not crash."""
    result = run_cli_inproc(argv)
    problems = []
    if result.code == -1 or invariants.TRACEBACK in result.stderr:
        problems.append(f"{argv[0]}: traceback: {invariants.traceback_summary(result.stderr)}")
    elif result.code not in (0, 1, 2):
        problems.append(f"{argv[0]}: exit code {result.code}")
    elif result.code != 0 and not result.stderr.strip():
        problems.append(f"{argv[0]}: exit code {result.code} without a message on stderr")
    return problems


def _other_commands(path: Path, rng: random.Random) -> list[str]:
    problems: list[str] = []
    if "tree" in COMMANDS:
        problems += _no_traceback(["tree", str(path)])
    if "context" in COMMANDS:
        problems += _no_traceback(["context", str(path)])
        problems += _no_traceback(
            ["context", "--json", "--leaf-line", str(rng.randint(0, 8)), str(path)]
        )
        problems += _no_traceback(
            ["context", "--leaf", rng.choice(["u0000001", "ghost", "", "0"]), str(path)]
        )
    if "migrate" in COMMANDS:
        problems += _no_traceback(["migrate", str(path)])  # to stdout: writes nothing
    return problems


def test_fuzzed_files_through_the_cli(tmp_path: Path) -> None:
    rng = random.Random(1234)
    work = tmp_path / "sessions"
    work.mkdir()
    problems: list[str] = []
    for n, (name, data) in enumerate(hostile.cases(rng, FUZZ_CASES)):
        path = work / f"case{n}.jsonl"
        path.write_bytes(data)
        before = snapshot(tmp_path)
        found = _check(path, data)
        if n % 3 == 0:
            found += _other_commands(path, rng)
        if snapshot(tmp_path) != before:
            found.append("a read-only command changed files on disk")
        problems += [f"{name}: {p}" for p in found]
        path.unlink()
    problems = known.unknown(problems)
    assert not problems, "\n".join(problems[:30])


# -- pathological files ------------------------------------------------------------------

Maker = Callable[[], bytes]


def _text(make: Callable[[], str]) -> Maker:
    return lambda: make().encode("utf-8", "surrogateescape")


PATHOLOGICAL_FAST: dict[str, Maker] = {
    "deep-20000": _text(lambda: hostile.deep_nesting(20_000)),
    "deep-20000-unclosed": _text(lambda: hostile.deep_nesting(20_000, closed=False)),
    "cycle-300": _text(lambda: hostile.parent_cycle(300)),
    "chain-1000": _text(lambda: hostile.chain(1000)),
    "wide-300": _text(lambda: hostile.wide_branches(300)),
    "huge-line-3MB": _text(lambda: hostile.huge_line(3 * 1024 * 1024)),
    "huge-line-3MB-unicode": _text(lambda: hostile.huge_line(3 * 1024 * 1024, ascii_only=False)),
    "empty": lambda: b"",
    "blank": lambda: b"\n\n  \n\t\n",
    "only-newline": lambda: b"\n",
    "lone-cr": lambda: hostile.v3_session().replace("\n", "\r").encode(),
    "crlf": lambda: hostile.v3_session().replace("\n", "\r\n").encode(),
    "mixed-endings": lambda: (
        hostile.v3_session().replace("\n", "\r\n", 3).replace("\n", "\r", 2).encode()
    ),
    "bom": lambda: b"\xef\xbb\xbf" + hostile.v3_session().encode(),
    "bom-only": lambda: b"\xef\xbb\xbf",
    "nul-bytes": lambda: (
        hostile.v3_session().encode().replace(b"hello", b"he\x00llo").replace(b"}\n", b"}\x00\n", 2)
    ),
    "nul-only": lambda: b"\x00" * 100,
    "invalid-utf8": lambda: (
        hostile.v3_session().encode().replace(b"please", b"pl\xffe\xc3a\xed\xa0\x80se")
    ),
    "invalid-utf8-header": lambda: b"\xff\xfe" + hostile.v3_session().encode(),
    "utf16-file": lambda: hostile.v3_session().encode("utf-16"),
    "binary": lambda: random.Random(5).randbytes(64 * 1024),
    "lone-surrogate-escapes": lambda: (
        hostile.v3_session().replace("hello", "\\ud800\\udfff\\ud83d").encode()
    ),
    "nan-infinity": lambda: (
        hostile.v3_session()
        .replace('"input":10', '"input":NaN')
        .replace('"output":5', '"output":-Infinity')
        .replace('"tokensBefore":1000', '"tokensBefore":1e400')
        .encode()
    ),
    "duplicate-keys": lambda: (
        hostile.v3_session()
        .replace('{"type":"message",', '{"type":"message","id":"dup","type":"message",')
        .encode()
    ),
    "raw-separators": lambda: (
        hostile.v3_session().replace("hello", "\u2028\u2029\u0085\x0b\x0c\x1c\x1d\x1e").encode()
    ),
    "second-header": lambda: (
        hostile.v3_session() + hostile.header(3) + "\n" + hostile.user("z1", "u0000003")
    ).encode(),
    "header-not-first": lambda: "\n".join(
        [*hostile.v3_session().split("\n")[1:3], hostile.header(3)]
    ).encode(),
    "no-trailing-newline-cut": lambda: hostile.v3_session().encode()[:-40],
    "long-id": lambda: hostile.v3_session().replace("u0000001", "u" * 100_000).encode(),
}

PATHOLOGICAL_SLOW: dict[str, Maker] = {
    "huge-line-50MB": _text(lambda: hostile.huge_line(50 * 1024 * 1024)),
    "cycle-5000": _text(lambda: hostile.parent_cycle(5000)),
    "chain-100000": _text(lambda: hostile.chain(100_000)),
    "wide-5000": _text(lambda: hostile.wide_branches(5000)),
    "deep-200000": _text(lambda: hostile.deep_nesting(200_000)),
}

# seconds for check on the full-size files (generous: 2 slow cores)
SLOW_BUDGET = float(os.environ.get("PI_LSP_SLOW_BUDGET", "60"))


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL_FAST))
def test_pathological_file_check(name: str, tmp_path: Path) -> None:
    data = PATHOLOGICAL_FAST[name]()
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(data)
    before = snapshot(tmp_path)
    problems = _check(path, data) + _other_commands(path, random.Random(name))
    assert snapshot(tmp_path) == before, "a read-only command changed files on disk"
    problems = known.unknown(problems)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PATHOLOGICAL_SLOW))
def test_pathological_file_check_full_size(name: str, tmp_path: Path) -> None:
    data = PATHOLOGICAL_SLOW[name]()
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(data)
    start = time.monotonic()
    problems = _check(path, data)
    elapsed = time.monotonic() - start
    assert not problems, "\n".join(problems)
    assert elapsed < SLOW_BUDGET, f"check took {elapsed:.1f}s on {name} (budget {SLOW_BUDGET:g}s)"


def test_directory_input_survives_odd_entries(tmp_path: Path) -> None:
    """A directory holding a symlink loop, a dangling link, a directory named *.jsonl and
    an unreadable-as-UTF-8 file: check walks it without hanging or crashing."""
    root = tmp_path / "sessions"
    (root / "a" / "dir.jsonl").mkdir(parents=True)
    (root / "a" / "loop").symlink_to(root, target_is_directory=True)
    (root / "a" / "dangling.jsonl").symlink_to(root / "missing.jsonl")
    (root / "a" / "s.jsonl").write_bytes(b"\xff\xfe\x00garbage")
    (root / "ok.jsonl").write_text(hostile.v3_session(), encoding="utf-8")
    result = run_cli_inproc(["check", "--format", "json", str(root)])
    assert invariants.TRACEBACK not in result.stderr and result.code != -1, result.stderr
    assert result.code in (0, 1, 2), result
    paths = {Path(f["path"]).name for f in json.loads(result.stdout)["files"]}
    assert {"ok.jsonl", "s.jsonl"} <= paths


# -- the real executable ---------------------------------------------------------------------


def test_real_cli_processes_on_hostile_files(tmp_path: Path) -> None:
    """A few hostile files through ``python -m pi_lsp check`` as a separate process (the
    parallel path too: 8+ files go to a process pool), in every output format."""
    names = [
        "deep-20000",
        "invalid-utf8",
        "nul-bytes",
        "lone-cr",
        "bom",
        "binary",
        "huge-line-3MB-unicode",
        "lone-surrogate-escapes",
        "cycle-300",
        "empty",
    ]
    paths = []
    for name in names:
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(PATHOLOGICAL_FAST[name]())
        paths.append(str(path))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for fmt in ("json", "text", "sarif"):
        proc = subprocess.run(
            [sys.executable, "-m", "pi_lsp", "check", "--format", fmt, *paths],
            capture_output=True,
            timeout=120,
            env=env,
            cwd=tmp_path,
        )
        stderr = proc.stderr.decode("utf-8", "replace")
        assert invariants.TRACEBACK not in stderr, stderr
        assert proc.returncode == 1, (fmt, proc.returncode, stderr[-2000:])
        if fmt != "text":
            json.loads(proc.stdout)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(Path(p).name for p in paths)


# -- regressions -----------------------------------------------------------------------------
# check --format json/sarif used to die with a traceback (orjson TypeError "str is not valid
# UTF-8: surrogates not allowed") when a message or the file name carried undecodable bytes.


@pytest.mark.parametrize("fmt", ["json", "sarif"])
@pytest.mark.parametrize(
    "line",
    [
        hostile.user("u1", "gh@st").encode().replace(b"gh@st", b"gh\xffst"),
        b'{"type":"wei\xffrd","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}',
    ],
    ids=["parentId", "type"],
)
def test_check_json_output_with_undecodable_bytes(tmp_path: Path, fmt: str, line: bytes) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(hostile.header(3).encode() + b"\n" + line + b"\n")
    result = run_cli_inproc(["check", "--format", fmt, str(path)])
    assert result.code == 1 and invariants.TRACEBACK not in result.stderr, result.stderr[-800:]
    report = json.loads(result.stdout)
    assert report


def test_check_json_output_with_undecodable_file_name(tmp_path: Path) -> None:
    name = os.fsdecode(b"na\xffme.jsonl")
    (tmp_path / name).write_text(hostile.v3_session(), encoding="utf-8")
    result = run_cli_inproc(["check", "--format", "json", str(tmp_path)])
    assert result.code == 0 and invariants.TRACEBACK not in result.stderr, result.stderr[-800:]
    assert len(json.loads(result.stdout)["files"]) == 1


# Regression: context --json died with orjson's TypeError on undecodable bytes
# ("surrogates not allowed") and on values nested ~1000+ deep ("Recursion limit reached").
@pytest.mark.skipif("context" not in COMMANDS, reason="no context command yet")
@pytest.mark.parametrize(
    "line",
    [
        hostile.user("u1", None, "pl@ease").encode().replace(b"@", b"\xff"),
        hostile.user("u1", None, "x")
        .encode()
        .replace(b'"role":"user"', b'"role":' + b"[" * 1500 + b"]" * 1500),
    ],
    ids=["undecodable", "deep"],
)
def test_context_json_with_unusual_content(tmp_path: Path, line: bytes) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(hostile.header(3).encode() + b"\n" + line + b"\n")
    result = run_cli_inproc(["context", "--json", str(path)])
    assert result.code == 0 and invariants.TRACEBACK not in result.stderr, result.stderr[-800:]
    assert json.loads(result.stdout)["messages"]


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("PI_LSP_SLOW", "") in ("", "0"), reason="PI_LSP_SLOW=1: fuzz at length")
def test_long_fuzz_run() -> None:
    """The fuzz harness at length (every target; PI_LSP_FUZZ_COUNT cases, default 2000)."""
    from .fuzz import main

    count = os.environ.get("PI_LSP_FUZZ_COUNT", "2000")
    assert main(["--count", count, "--seed", "20260731", "--server-every", "2"]) == 0


_NEST = "[" * 1000 + "]" * 1000


@pytest.mark.skipif("tree" not in COMMANDS, reason="no tree command yet")
@pytest.mark.parametrize(
    ("old", "new"),
    [('"version":3', '"version":' + _NEST), ('"label":"start"', '"label":' + _NEST)],
    ids=["version", "label"],
)
def test_tree_with_a_deeply_nested_header_version(tmp_path: Path, old: str, new: str) -> None:
    path = tmp_path / "s.jsonl"
    text = hostile.v3_session().replace(old, new, 1)
    assert text != hostile.v3_session()
    path.write_text(text)
    result = run_cli_inproc(["tree", str(path)])
    assert result.code in (0, 1) and invariants.TRACEBACK not in result.stderr, (
        invariants.traceback_summary(result.stderr)
    )


@pytest.mark.skipif("migrate" not in COMMANDS, reason="no migrate command yet")
def test_book_conversion_with_a_deeply_nested_block_type(tmp_path: Path) -> None:
    book = hostile.book_session()
    text = book.replace(
        '"content":[{"type":"text","text":"I\'ll create the endpoint."}',
        '"content":[{"type":' + _NEST + ',"text":"I\'ll create the endpoint."}',
        1,
    )
    assert text != book
    path = tmp_path / "s.jsonl"
    path.write_text(text)
    result = run_cli_inproc(["migrate", str(path)])
    assert result.code in (0, 1) and invariants.TRACEBACK not in result.stderr, (
        invariants.traceback_summary(result.stderr)
    )


@pytest.mark.skipif("migrate" not in COMMANDS, reason="no migrate command yet")
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"parentId":"entry-002a"', '"parentId":["entry-002a"]'),
        ('{"type":"tool_use","id":"tc_001"', '{"type":"tool_use","id":["tc_001"]'),
    ],
    ids=["parentId", "tool_use-id"],
)
def test_book_conversion_with_non_string_ids(tmp_path: Path, old: str, new: str) -> None:
    book = hostile.book_session()
    text = book.replace(old, new, 1)
    assert text != book
    path = tmp_path / "s.jsonl"
    path.write_text(text)
    result = run_cli_inproc(["migrate", str(path)])
    assert result.code in (0, 1) and invariants.TRACEBACK not in result.stderr, (
        invariants.traceback_summary(result.stderr)
    )


@pytest.mark.skipif("fork" not in COMMANDS, reason="no fork command yet")
def test_fork_with_a_deeply_nested_header_field(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(hostile.v3_session().replace('"cwd":"/home/u/p"', '"cwd":' + _NEST, 1))
    result = run_cli_inproc(
        ["fork", str(path), "--at", "a0000002", "-o", str(tmp_path / "f.jsonl")]
    )
    assert result.code in (0, 1, 2) and invariants.TRACEBACK not in result.stderr, (
        invariants.traceback_summary(result.stderr)
    )


@pytest.mark.skipif("fork" not in COMMANDS, reason="no fork command yet")
def test_fork_of_a_file_pi_refuses(tmp_path: Path) -> None:
    lines = hostile.v2_session().split("\n")
    # entries first (the first one after a BOM), the v2 header last
    text = "\n\ufeff" + "\n".join(lines[1:]) + lines[0] + "\n"
    path = tmp_path / "s.jsonl"
    path.write_text(text, encoding="utf-8")
    assert "PI100" in {f.code for f in analyze(text).findings}
    out = tmp_path / "f.jsonl"
    result = run_cli_inproc(["fork", str(path), "--at", "h1", "-o", str(out)])
    assert invariants.TRACEBACK not in result.stderr
    if result.code == 0:
        forked = analyze(out.read_text(encoding="utf-8"))
        assert [f.code for f in forked.findings if int(f.severity) <= 2] == []
