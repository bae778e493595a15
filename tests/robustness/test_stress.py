"""Stress: bursts of edits interleaved with requests, and cancellation.

- hundreds of ``didChange`` notifications (incremental, some full) sent without waiting,
  with requests in between: every request answers (a result, ContentModified or
  RequestCancelled), published versions never go backwards, and the last diagnostics are
  those of the final text (equal to a fresh open of that text);
- ``$/cancelRequest`` right after a request: it answers RequestCancelled or a result,
  never hangs, and the server keeps answering.
"""

from __future__ import annotations

import json
import os
import random
import re
from typing import Any

import pytest

from . import hostile, invariants
from .lspclient import CONTENT_MODIFIED, REQUEST_CANCELLED, LspClient, ResponseError, start_stdio
from .settings import REQUEST_TIMEOUT

pytestmark = pytest.mark.slow  # 200 rapid changes per case through a server

BURST = int(os.environ.get("PI_LSP_STRESS_CHANGES", "200"))
_EDITS = ["", "x", "\n", "\r\n", "🚀", "\u2028", '"', "}", "{", ",", "ghost", "\r", "é"]


@pytest.fixture
def client(shared_server: LspClient) -> LspClient:
    return shared_server


def _random_change(
    text: str, rng: random.Random, encoding: str = "utf-16"
) -> tuple[dict[str, Any], str]:
    """A random incremental change (positions in ``encoding``) and the text after it."""
    lines = invariants.split(text)
    starts = [0]
    for m in re.finditer(r"\r\n|\r|\n", text):
        starts.append(m.end())
    line = rng.randrange(len(lines))
    col = rng.randint(0, len(lines[line]))
    end_line = min(len(lines) - 1, line + (1 if rng.random() < 0.1 else 0))
    end_col = (
        rng.randint(0, len(lines[end_line]))
        if end_line != line
        else min(len(lines[line]), col + rng.randint(0, 4))
    )
    a, b = starts[line] + col, starts[end_line] + end_col
    if b < a:
        a, b = b, a
        line, col, end_line, end_col = end_line, end_col, line, col
    new = rng.choice(_EDITS)
    end_char = invariants.unit_len(lines[end_line][:end_col], encoding)
    if end_col == len(lines[end_line]) and rng.random() < 0.3:
        end_char += rng.randint(1, 50)  # past the end of the line: means its end (LSP)
    change = {
        "range": {
            "start": {"line": line, "character": invariants.unit_len(lines[line][:col], encoding)},
            "end": {"line": end_line, "character": end_char},
        },
        "text": new,
    }
    return change, text[:a] + new + text[b:]


def _answer_ok(client: LspClient, ident: int, pending: Any) -> str | None:
    try:
        client.wait(ident, pending, REQUEST_TIMEOUT)
    except ResponseError as err:
        if err.code not in (REQUEST_CANCELLED, CONTENT_MODIFIED):
            return f"{pending.method}: error {err}"
    except AssertionError as exc:
        return f"{pending.method}: {exc}"
    return None


def _without_uri(diags: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for d in diags:
        d = dict(d)
        if "relatedInformation" in d:
            d["relatedInformation"] = [
                {**r, "location": {**r["location"], "uri": "-"}} for r in d["relatedInformation"]
            ]
        out.append(d)
    return out


def test_burst_of_changes_ends_with_the_final_version(client: LspClient) -> None:
    rng = random.Random(2024)
    uri = "file:///tmp/pi-lsp-robustness/burst.jsonl"
    text = hostile.v3_session() + "".join(
        hostile.user(f"z{i:07d}", f"z{i - 1:07d}" if i else "u0000003", f"m{i}") + "\n"
        for i in range(200)
    )
    client.open(uri, text, 1)
    client.diagnostics_for(uri, 1)
    waiting = []
    caps = client.capabilities
    for version in range(2, BURST + 2):
        if rng.random() < 0.03:
            text = hostile.decode(hostile.mutate(text.encode(), rng)[0])
            client.change(uri, version, [{"text": text}])
        else:
            changes = []
            for _ in range(rng.randint(1, 3)):
                change, text = _random_change(text, rng)
                changes.append(change)
            client.change(uri, version, changes)
        if rng.random() < 0.3:
            lines = invariants.split(text)
            line = rng.randrange(len(lines))
            pos = {
                "textDocument": {"uri": uri},
                "position": {"line": line, "character": rng.randint(0, 40)},
            }
            method = rng.choice(
                [
                    "textDocument/hover",
                    "textDocument/definition",
                    "textDocument/documentSymbol",
                    "textDocument/foldingRange",
                    "textDocument/inlayHint",
                ]
            )
            cap = {
                "textDocument/hover": "hoverProvider",
                "textDocument/definition": "definitionProvider",
                "textDocument/documentSymbol": "documentSymbolProvider",
                "textDocument/foldingRange": "foldingRangeProvider",
                "textDocument/inlayHint": "inlayHintProvider",
            }[method]
            if not caps.get(cap):
                continue
            params: dict[str, Any] = pos
            if method in ("textDocument/documentSymbol", "textDocument/foldingRange"):
                params = {"textDocument": {"uri": uri}}
            elif method == "textDocument/inlayHint":
                params = {
                    "textDocument": {"uri": uri},
                    "range": {
                        "start": {"line": 0, "character": 0},
                        "end": {"line": line, "character": 0},
                    },
                }
            waiting.append(client.request_async(method, params))
    final = BURST + 1
    problems = [p for p in (_answer_ok(client, i, pend) for i, pend in waiting) if p]
    assert not problems, "\n".join(problems[:20])
    diags = client.diagnostics_for(uri, final)
    versions = [p.get("version") for p in client.published(uri)]
    assert versions == sorted(versions), f"published versions went backwards: {versions}"
    assert max(versions) == final
    # a fresh open of the final text gives the same diagnostics
    fresh = "file:///tmp/pi-lsp-robustness/burst-fresh.jsonl"
    client.open(fresh, text, 1)
    assert _without_uri(client.diagnostics_for(fresh, 1)) == _without_uri(diags)
    assert _views(client, uri) == _views(client, fresh)
    client.close_doc(fresh)
    client.close_doc(uri)
    assert client.alive


def test_cancelled_requests_answer(client: LspClient) -> None:
    uri = "file:///tmp/pi-lsp-robustness/cancel.jsonl"
    text = hostile.wide_branches(400)
    client.open(uri, text, 1)
    caps = client.capabilities
    methods = [
        m
        for m, cap in (
            ("textDocument/documentSymbol", "documentSymbolProvider"),
            ("textDocument/foldingRange", "foldingRangeProvider"),
            ("textDocument/codeLens", "codeLensProvider"),
            ("textDocument/hover", "hoverProvider"),
            ("textDocument/references", "referencesProvider"),
        )
        if caps.get(cap)
    ]
    if not methods:
        pytest.skip("no read features yet")
    waiting = []
    for n in range(60):
        method = methods[n % len(methods)]
        params: dict[str, Any] = {"textDocument": {"uri": uri}}
        if method in ("textDocument/hover", "textDocument/references"):
            params["position"] = {"line": 1, "character": 12}
            params["context"] = {"includeDeclaration": True}
        ident, pending = client.request_async(method, params)
        if n % 2 == 0:
            client.cancel(ident)
        if n % 10 == 0:  # a change in the middle makes pending answers stale
            client.change(
                uri, n + 2, [{"text": text + hostile.user(f"c{n:07d}", "root0001") + "\n"}]
            )
        waiting.append((ident, pending))
    problems = [p for p in (_answer_ok(client, i, pend) for i, pend in waiting) if p]
    assert not problems, "\n".join(problems[:20])
    client.cancel(10**9)  # cancelling an unknown request is harmless
    assert (
        client.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
        )
        is not None
        or True
    )
    client.close_doc(uri)
    assert client.alive


def test_pulled_diagnostics_follow_the_last_change() -> None:
    with start_stdio(["utf-16"], pull_diagnostics=True) as c:
        if not c.capabilities.get("diagnosticProvider"):
            pytest.skip("no pull diagnostics")
        rng = random.Random(8)
        uri = "file:///tmp/pi-lsp-robustness/pull.jsonl"
        text = hostile.v3_session()
        c.open(uri, text, 1)
        pulls = []
        for version in range(2, 120):
            change, text = _random_change(text, rng)
            c.change(uri, version, [change])
            if version % 15 == 0:
                pulls.append(
                    c.request_async("textDocument/diagnostic", {"textDocument": {"uri": uri}})
                )
        problems = [p for p in (_answer_ok(c, i, pend) for i, pend in pulls) if p]
        assert not problems, problems
        last = c.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        fresh = "file:///tmp/pi-lsp-robustness/pull-fresh.jsonl"
        c.open(fresh, text, 1)
        again = c.request("textDocument/diagnostic", {"textDocument": {"uri": fresh}})
        assert _without_uri(last["items"]) == _without_uri(again["items"])


@pytest.mark.parametrize("encoding", ["utf-8", "utf-32"])
def test_burst_in_other_encodings(encoding: str) -> None:
    """Incremental sync in UTF-8 and UTF-32: text full of multi-unit characters, edited
    at positions in that encoding; the final diagnostics equal a fresh open's."""
    rng = random.Random(encoding)
    text = hostile.v3_session().replace("e", "é🚀").replace("a", "\u2028a")
    with start_stdio([encoding]) as c:
        assert c.encoding == encoding
        uri = "file:///tmp/pi-lsp-robustness/burst-enc.jsonl"
        c.open(uri, text, 1)
        for version in range(2, 62):
            change, text = _random_change(text, rng, encoding)
            c.change(uri, version, [change])
        diags = c.diagnostics_for(uri, 61)
        fresh = "file:///tmp/pi-lsp-robustness/burst-enc-fresh.jsonl"
        c.open(fresh, text, 1)
        assert _without_uri(c.diagnostics_for(fresh, 1)) == _without_uri(diags)
        assert _views(c, uri) == _views(c, fresh)


def _views(client: LspClient, uri: str) -> list[Any]:
    """Position-bearing answers that depend on the whole text (to compare two documents)."""
    out = []
    for cap, method in (
        ("documentSymbolProvider", "textDocument/documentSymbol"),
        ("foldingRangeProvider", "textDocument/foldingRange"),
    ):
        if client.capabilities.get(cap):
            answer = client.request(method, {"textDocument": {"uri": uri}})
            out.append(json.loads(json.dumps(answer).replace(uri, "-")))
    return out
