"""PI003 on a line that holds a JSON value other than an object says what pi really does.

Each case is a small session with one such line; pi 1.6.0 loads it through its own
``loadEntriesFromFile`` + ``migrateSessionEntries`` + projection (``pi_oracle.mjs load``),
and the words of our message are checked against that: "does not open" exactly when pi
throws, "skips it" exactly when pi drops the line, and the v1 array's broken link exactly
when pi's migration gives the array's id to the next entry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.core.checks.analysis import analyze

Oracle = Any

HEADER = {"type": "session", "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}


def _message(n: int, v1: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "message", "timestamp": "2026-01-01T00:00:01.000Z"}
    if not v1:
        entry |= {"id": f"e{n}", "parentId": f"e{n - 1}" if n else None}
    entry["message"] = {"role": "user", "content": f"turn {n}", "timestamp": n}
    return entry


def _session(tmp_path: Path, odd: str, v1: bool) -> Path:
    header = HEADER if v1 else {**HEADER, "version": 3}
    lines = [json.dumps(header), json.dumps(_message(0, v1)), odd, json.dumps(_message(1, v1))]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


CASES = ["null", "false", "0", '""', '"text"', "7", "true", "[1, 2]", "[]"]


@pytest.mark.parametrize("v1", [True, False], ids=["v1", "v3"])
@pytest.mark.parametrize("odd", CASES)
def test_pi003_says_what_pi_16_does(pi16_oracle: Oracle, tmp_path: Path, odd: str, v1: bool) -> None:
    path = _session(tmp_path, odd, v1)
    (finding,) = [f for f in analyze(path.read_text(encoding="utf-8")).findings if f.code == "PI003"]
    assert finding.span.line == 2
    pi = pi16_oracle(["load", str(path)])
    kept = {e["line"]: e for e in pi["entries"]}
    assert ("does not open" in finding.message) == ("error" in pi), (finding.message, pi.get("error"))
    if "error" in pi:
        return
    assert ("pi skips it" in finding.message) == (2 not in kept), finding.message
    # the oracle lists a non-object without an id: a parent that is no listed entry's id is
    # the one pi's migration gave the odd line, which JSON.stringify does not write back
    parent, ids = kept[3]["parentId"], {e["id"] for e in kept.values() if e["id"]}
    linked_to_odd = 2 in kept and parent is not None and parent not in ids
    assert ("links the next entry to it" in finding.message) == linked_to_odd, finding.message


def test_a_null_line_crashed_pi_073(pi_oracle: Oracle, tmp_path: Path) -> None:
    """The older release read every parsed value as an entry: null stopped the load."""
    path = _session(tmp_path, "null", v1=False)
    (finding,) = [f for f in analyze(path.read_text(encoding="utf-8")).findings if f.code == "PI003"]
    assert "pi 0.73.1 and older crashed on it" in finding.message
    assert "null" in pi_oracle(["load", str(path)])["error"]["message"]
