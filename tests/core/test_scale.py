"""Big inputs are checked without error: 100,000 entries, a 20 MB line, long cycles, deep nesting.

Timings are printed (run with ``-s`` to see them) but not asserted: they depend on the
machine. Nothing here may hang or crash.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.text.files import read_text

pytestmark = pytest.mark.slow  # 100,000 entries, 20 MB lines, 200,000-deep nesting

ROOT = Path(__file__).resolve().parents[2]
TS = "2026-03-01T10:00:00.000Z"


def dumps(o: object) -> str:
    return json.dumps(o, separators=(",", ":"), ensure_ascii=False)


HEADER = dumps(
    {
        "type": "session",
        "version": 3,
        "id": "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        "timestamp": TS,
        "cwd": "/home/user/project",
    }
)
USAGE = {
    "input": 10,
    "output": 5,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 15,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def message(ident: str, parent: str | None, n: int, content: object) -> str:
    role = "user" if n % 2 == 0 else "assistant"
    msg: dict[str, object] = {"role": role, "content": content, "timestamp": 1772359200000 + n}
    if role == "assistant":
        msg = {
            "role": "assistant",
            "content": [{"type": "text", "text": str(content)}],
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": USAGE,
            "stopReason": "stop",
            "timestamp": 1772359200000 + n,
        }
    return dumps(
        {"type": "message", "id": ident, "parentId": parent, "timestamp": TS, "message": msg}
    )


def report(what: str, seconds: float) -> None:
    print(f"\n[scale] {what}: {seconds:.2f} s", flush=True)


def timed_check(path: Path) -> tuple[float, dict[str, object]]:
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pi_lsp", "check", "--format", "json", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=1800,
        check=False,
    )
    elapsed = time.perf_counter() - t
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1), proc.stderr
    (file_report,) = json.loads(proc.stdout)["files"]
    return elapsed, file_report


@pytest.fixture(scope="module")
def chain_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    n = 100_000
    lines = [HEADER]
    parent = None
    for i in range(n):
        ident = f"{i:08x}"
        lines.append(message(ident, parent, i, f"turn {i}: 日本語 🚀 " + "x" * (i % 50)))
        parent = ident
    path = tmp_path_factory.mktemp("scale") / "chain-100k.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_100k_entries_core(chain_file: Path) -> None:
    text = read_text(chain_file)
    t = time.perf_counter()
    a = analyze(text, path=str(chain_file))
    report("analyze 100,000-entry chain", time.perf_counter() - t)
    assert a.findings == []
    assert len(a.tree.entries) == 100_000
    assert a.tree.leaf == 100_000
    assert len(a.tree.active) == 100_000
    assert a.tree.depth[100_000] == 99_999


def test_100k_entries_cli(chain_file: Path) -> None:
    elapsed, file_report = timed_check(chain_file)
    report("pi-lsp check 100,000-entry chain", elapsed)
    assert file_report["diagnostics"] == []
    assert file_report["version"] == 3


@pytest.fixture(scope="module")
def big_line_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = ("iVBORw0KGgoAAAANSUhEUgAA" * (20 * 1024 * 1024 // 24 + 1))[: 20 * 1024 * 1024]
    image = dumps(
        {
            "type": "message",
            "id": "1a2b3c4d",
            "parentId": None,
            "timestamp": TS,
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": "what is in this screenshot? 🖼"},
                    {"type": "image", "data": data, "mimeType": "image/png"},
                ],
                "timestamp": 1772359200000,
            },
        }
    )
    after = message("2b3c4d5e", "1a2b3c4d", 1, "A screenshot.")
    path = tmp_path_factory.mktemp("scale") / "image-20mb.jsonl"
    path.write_text("\n".join([HEADER, image, after]) + "\n", encoding="utf-8")
    return path


def test_20mb_line_core(big_line_file: Path) -> None:
    text = read_text(big_line_file)
    t = time.perf_counter()
    a = analyze(text)
    report("analyze 20 MB line", time.perf_counter() - t)
    assert [(f.code, f.span.line) for f in a.findings] == [("PI500", 1)]
    assert a.tree.active == [1, 2]


def test_20mb_line_cli(big_line_file: Path) -> None:
    elapsed, file_report = timed_check(big_line_file)
    report("pi-lsp check 20 MB line", elapsed)
    diags = file_report["diagnostics"]
    assert isinstance(diags, list)
    assert [(d["code"], d["range"]["start"]["line"]) for d in diags] == [("PI500", 1)]


def test_20mb_line_with_a_problem_after_the_image(tmp_path: Path) -> None:
    """A field located after 20 MB of base64 still gets its exact range."""
    data = "A" * (20 * 1024 * 1024)
    line = dumps(
        {
            "type": "message",
            "id": "1a2b3c4d",
            "timestamp": TS,
            "message": {
                "role": "user",
                "content": [{"type": "image", "data": data, "mimeType": "image/png"}],
            },
            "parentId": "deadbeef",
        }
    )
    t = time.perf_counter()
    a = analyze("\n".join([HEADER, line]) + "\n")
    report("analyze 20 MB line with a dangling parent after the image", time.perf_counter() - t)
    pi400 = [f for f in a.findings if f.code == "PI400"]
    start = line.index('"deadbeef"')
    assert [(f.span.line, f.span.start, f.span.end) for f in pi400] == [(1, start, start + 10)]


def test_5000_entry_cycle_reports_pi402(tmp_path: Path) -> None:
    n = 5_000
    lines = [HEADER] + [message(f"{i:08x}", f"{(i - 1) % n:08x}", i, f"turn {i}") for i in range(n)]
    text = "\n".join(lines) + "\n"
    t = time.perf_counter()
    a = analyze(text)
    report("analyze 5,000-entry parentId cycle", time.perf_counter() - t)
    codes = {f.code for f in a.findings}
    assert codes == {"PI402"}
    assert len(a.findings) == n
    assert len(a.tree.cycle) == n
    path = tmp_path / "cycle.jsonl"
    path.write_text(text, encoding="utf-8")
    elapsed, file_report = timed_check(path)
    report("pi-lsp check 5,000-entry parentId cycle", elapsed)
    diags = file_report["diagnostics"]
    assert isinstance(diags, list)
    assert len(diags) == n and {d["code"] for d in diags} == {"PI402"}


@pytest.mark.parametrize("depth", [20_000, 200_000])
def test_deeply_nested_array_line_does_not_crash(depth: int) -> None:
    deep = "[" * depth + "]" * depth
    t = time.perf_counter()
    a = analyze(
        "\n".join(
            [
                HEADER,
                message("1a2b3c4d", None, 0, "hi"),
                deep,
                message("2b3c4d5e", "1a2b3c4d", 1, "ok"),
            ]
        )
        + "\n"
    )
    report(f"analyze {depth}-deep nested array line", time.perf_counter() - t)
    # an array is not an entry: PI003 on its line, and the rest of the file is fine
    assert [(f.code, f.span.line) for f in a.findings] == [("PI003", 2)]
    f = a.findings[0]
    assert (f.span.start, f.span.end) == (0, 2 * depth)


def test_deeply_nested_invalid_line_does_not_crash() -> None:
    deep = "[" * 20_000 + "]" * 19_999
    a = analyze("\n".join([HEADER, deep, message("1a2b3c4d", None, 0, "hi")]) + "\n")
    assert [(f.code, f.span.line) for f in a.findings] == [("PI001", 1)]


def test_deeply_nested_value_inside_a_valid_entry_keeps_the_entry() -> None:
    deep = "[" * 20_000 + "]" * 20_000
    entry = dumps(
        {
            "type": "custom",
            "id": "1a2b3c4d",
            "parentId": None,
            "timestamp": TS,
            "customType": "x",
            "data": 0,
        }
    )
    entry = entry.replace('"data":0', f'"data":{deep}')
    child = message("2b3c4d5e", "1a2b3c4d", 0, "hi")
    a = analyze("\n".join([HEADER, entry, child]) + "\n")
    assert [(f.code, f.span.line) for f in a.findings] == []
    assert a.tree.active == [1, 2]
