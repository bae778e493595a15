"""How long pi 1.6 takes to resume a session with the package and without it.

    python tests/pi/measure_resume.py [--turns N] [--runs N]

Writes a clean session with pi's SessionManager, and one grown to N turns of 50 kB tool
results; starts pi in RPC mode (as the tests do: temporary HOME, this checkout's pi-lsp)
with ``-e editors/pi`` and with an empty extension, and prints the median time from
``switch_session`` to its answer for each. Not a test: figures for README "Inside pi".
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pi_rpc
from pi_rpc import Pi, clean_session, pi16, pi_lsp_wrapper

USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2}
COST = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}


def grow(clean: Path, turns: int, out: Path) -> Path:
    """``clean`` followed by ``turns`` tool calls, each answered with 50 kB of text."""
    lines = clean.read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])["id"]
    when = json.loads(lines[-1])["timestamp"]
    for i in range(turns):
        call = {
            "role": "assistant",
            "content": [{"type": "toolCall", "id": f"t{i}", "name": "bash", "arguments": {}}],
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": {**USAGE, "cost": COST},
            "stopReason": "toolUse",
            "timestamp": 1,
        }
        result = {
            "role": "toolResult",
            "toolCallId": f"t{i}",
            "toolName": "bash",
            "content": [{"type": "text", "text": "x" * 50_000}],
            "isError": False,
            "timestamp": 2,
        }
        for kind, message in (("a", call), ("r", result)):
            entry_id = f"{kind}{i:07x}"
            entry = {"type": "message", "id": entry_id, "parentId": last, "timestamp": when}
            lines.append(json.dumps({**entry, "message": message}))
            last = entry_id
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def resume_times(node: str, modules: Path, home: Path, wrapper: Path, path: Path, runs: int):
    """Seconds from ``switch_session`` to its answer, once per fresh pi."""
    times = []
    for _ in range(runs):
        pi = Pi(node, modules, home, wrapper)
        try:
            pi.call("get_state")
            start = time.monotonic()
            pi.call("switch_session", timeout=300, sessionPath=str(path))
            times.append(time.monotonic() - start)
        finally:
            pi.close()
    return times


def main() -> None:
    """Print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=2000, help="turns of the big session")
    parser.add_argument("--runs", type=int, default=3, help="pi starts per case")
    args = parser.parse_args()
    found = pi16()
    if found is None:
        sys.exit("pi 1.6.0 (npm) or Node 22+ not available")
    node, modules = found
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for d in ("home", "project", "sessions", "empty"):
            (base / d).mkdir()
        (base / "empty" / "index.ts").write_text("export default function () {}\n")
        wrapper = pi_lsp_wrapper(base)
        clean = clean_session(node, modules, base / "sessions", base / "project")
        big = grow(clean, args.turns, base / "sessions" / "big.jsonl")
        print(f"big session: {big.stat().st_size / 1e6:.0f} MB")
        for label, package in (("without", base / "empty"), ("with", pi_rpc.PACKAGE)):
            pi_rpc.PACKAGE = package  # what Pi loads with -e
            for name, path in (("clean", clean), ("big", big)):
                times = resume_times(node, modules, base / "home", wrapper, path, args.runs)
                shown = ", ".join(f"{t:.3f}" for t in times)
                print(
                    f"{label} the package, {name}: median {statistics.median(times):.3f} s ({shown})"
                )


if __name__ == "__main__":
    main()
