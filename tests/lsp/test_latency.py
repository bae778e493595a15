"""Requests are answered while a 40 MiB session is re-analysed (timed, over stdio).

The real server (``python -m pi_lsp``) gets a generated 40 MiB session of the benchmark's
shape (:mod:`tests.lsp.big_session`, written to the test's tmp dir) and a small one.
When both are analysed and the server is idle, a line of the big one is removed: its
tree, links and reference index are recomputed (0.5 to 2.7 s here). Right after
that change, a hover on the big document (on an entry *after* the removed line, so it
moved up) and a hover on the small one are sent, in that order:

- the hover on the other document answers within :data:`BUDGET` plus the idle latency;
- the hover on the edited document answers as fast, from its snapshot (the analysis of
  the text before the change, mapped through the removal), and names the right entry
  with its new line number.

Both are meaningful only when the re-analysis takes longer than the budget: that is
asserted too. 40 MiB because a smaller session re-analyses too fast to tell an answer
from the snapshot from one that waited. The machine is shared: a round may be slowed by
other processes, so up to three rounds are tried (each removes one more line); the first
round within budget passes, and the failure message lists every round.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.robustness.lspclient import LspClient, start_stdio

from .big_session import big_session

BUDGET = 0.1
"""Seconds a hover may take beyond the idle latency while another analysis runs."""

SIZE_MIB = 40
ROUNDS = 3


def _hover(client: LspClient, uri: str, line: int, character: int) -> tuple[int, Any]:
    return client.request_async(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}},
    )


def _timed(client: LspClient, sent: float, ident: int, pending: Any) -> tuple[float, Any]:
    answer = client.wait(ident, pending, timeout=300)
    return time.perf_counter() - sent, answer


def _id_column(line: str) -> int:
    return line.index('"id":"') + len('"id":"') + 2


@pytest.mark.slow
def test_hovers_answer_during_the_reanalysis_of_a_big_session(tmp_path: Path) -> None:
    text = big_session(SIZE_MIB)
    big = tmp_path / "big.jsonl"
    big.write_text(text, encoding="utf-8")
    lines = text.split("\n")
    small_text = "\n".join(lines[:40]) + "\n"
    small = tmp_path / "small.jsonl"
    small.write_text(small_text, encoding="utf-8")
    big_uri, small_uri = big.as_uri(), small.as_uri()
    ask_small = (5, _id_column(lines[5]))
    rounds: list[dict[str, Any]] = []
    with start_stdio(["utf-16"]) as client:
        client.open(small_uri, small_text, 1)
        client.diagnostics_for(small_uri, 1)
        client.open(big_uri, text, 1)
        client.diagnostics_for(big_uri, 1, timeout=600)
        time.sleep(2)  # the warm-up (reference index) runs 0.5 s after the diagnostics
        idle = 1.0
        for _ in range(5):
            sent = time.perf_counter()
            took, _ = _timed(client, sent, *_hover(client, small_uri, *ask_small))
            idle = min(idle, took)
        removed: list[int] = []
        for version in range(2, 2 + ROUNDS):
            cut = 200 + 50 * version  # remove this line (an entry)
            removed.append(cut)
            kept = [line for n, line in enumerate(lines) if n not in removed]
            ask = len(lines) // 2  # an entry far below the cut: it moves up one line per round
            target = json.loads(lines[ask])
            now = ask - len(removed)
            assert kept[now] == lines[ask]
            change = time.perf_counter()
            client.change(
                big_uri,
                version,
                [
                    {
                        "range": {
                            "start": {"line": cut - len(removed) + 1, "character": 0},
                            "end": {"line": cut - len(removed) + 2, "character": 0},
                        },
                        "text": "",
                    }
                ],
            )
            sent_same = time.perf_counter()
            same = _hover(client, big_uri, now, _id_column(lines[ask]))
            sent_other = time.perf_counter()
            other = _hover(client, small_uri, *ask_small)
            same_took, same_answer = _timed(client, sent_same, *same)
            other_took, _ = _timed(client, sent_other, *other)
            client.diagnostics_for(big_uri, version, timeout=600)
            reanalysis = time.perf_counter() - change
            value = (same_answer or {}).get("contents", {}).get("value", "")
            rounds.append(
                {
                    "idle": round(idle, 4),
                    "other": round(other_took, 4),
                    "same": round(same_took, 4),
                    "reanalysis": round(reanalysis, 3),
                    "right entry": f"`{target['id']}`" in value and f"line {now + 1} " in value,
                }
            )
            time.sleep(1)
            if (
                rounds[-1]["right entry"]
                and max(other_took, same_took) <= BUDGET + idle
                and reanalysis > BUDGET + idle
            ):
                break
    print(f"\nlatency during the re-analysis of {SIZE_MIB} MiB (seconds): {rounds}")
    best = rounds[-1]
    assert all(r["right entry"] for r in rounds), rounds
    assert best["reanalysis"] > BUDGET + idle, f"the re-analysis is too fast to tell: {rounds}"
    assert best["other"] <= BUDGET + idle, rounds
    assert best["same"] <= BUDGET + idle, rounds
