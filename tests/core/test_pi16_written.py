"""A session written by pi 1.6's own SessionManager gets no false line, schema or link report.

Every kind pi 1.6 writes (system messages with sections and tool changes, usage entries,
context edits of both kinds, thinking level "max", compactions of both kinds with their
checkpoint, a branch summary, a custom session id, a second root) is written by pi itself,
then checked. Skipped where pi 1.6 is not installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.text.findings import Severity
from tests.core.pi16 import find_pi16, module_url, run

# the codes of the line, header, schema and tree checks (the context checks, PI41x/PI42x,
# are checked by the conformance tests)
CODES = {
    "PI001", "PI002", "PI003", "PI004", "PI005", "PI100", "PI101", "PI102", "PI103", "PI104",
    "PI200", "PI201", "PI300", "PI301", "PI302", "PI303", "PI400", "PI401", "PI402", "PI403",
}  # fmt: skip

SCRIPT = """
import {{ SessionManager }} from {manager};
const usage = {{ input: 10, output: 5, cacheRead: 100, cacheWrite: 0, cacheWrite1h: 0,
  reasoning: 2, totalTokens: 115,
  cost: {{ input: 0.1, output: 0.2, cacheRead: 0.01, cacheWrite: 0, total: 0.31,
    totalFromProvider: false }} }};
const turn = (text, extra = {{}}) => ({{ role: "assistant",
  content: [{{ type: "thinking", thinking: "hm", thinkingSignature: "s" }}, {{ type: "text", text }}],
  api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage,
  stopReason: "stop", thinkingLevel: "max", providerThinkingLevel: "max", rawStopReason: "end_turn",
  endTurn: true, durationMs: 12, timestamp: 2, ...extra }});
const sm = SessionManager.create("/home/user/project", {folder}, {{ id: "nightly-run.7" }});
sm.appendMessage({{ role: "system", content: "", sections: {{ preamble: "You are pi.", cwd: "/p" }},
  toolsAdded: [{{ name: "read", description: "read", parameters: {{ type: "object", properties: {{}} }} }}],
  timestamp: 1 }});
const u1 = sm.appendMessage({{ role: "user", content: "list the files", timestamp: 1 }});
const a1 = sm.appendMessage(turn("Running it.", {{ content: [{{ type: "toolCall", id: "c1",
  name: "read", arguments: {{ path: "a" }}, namespace: "fs" }}], stopReason: "toolUse" }}));
const r1 = sm.appendMessage({{ role: "toolResult", toolCallId: "c1", toolName: "read",
  content: [{{ type: "text", text: "a" }}], usage, isError: false, durationMs: 3,
  nestedCalls: {{ calls: [{{ id: "n1", name: "grep", status: "ok" }}], complete: true }}, timestamp: 3 }});
sm.appendMessage(turn("Done."));
sm.appendThinkingLevelChange("max");
sm.appendUsage("cache_warm", "anthropic", "claude-sonnet-4-5", usage, "idle");
sm.appendContextEdit(r1, {{ content: "shorter" }});
sm.appendContextEdit(u1, null);
sm.appendMessage({{ role: "system", content: "", sections: {{ cwd: null }}, toolsRemoved: [{{ name: "read" }}],
  timestamp: 4 }});
const u2 = sm.appendMessage({{ role: "user", content: "and now?", timestamp: 5 }});
sm.appendMessage(turn("Now this."));
sm.appendCompaction("summary", u2, 5000, {{ readFiles: [] }}, false, usage);
sm.appendMessage({{ role: "user", content: "more", timestamp: 6 }});
sm.appendCompaction("all of it", null, 6000, undefined, false, usage);
sm.appendMessage(turn("After the retain-none compaction."));
sm.branchWithSummary(a1, "left the branch", undefined, false, usage);
sm.appendMessage({{ role: "user", content: "other way", timestamp: 7 }});
sm.appendLabelChange(u1, "start");
sm.appendSessionInfo("features");
sm.resetLeaf();
sm.appendMessage({{ role: "user", content: "a second root", timestamp: 8 }});
sm.appendMessage(turn("Fresh start."));
console.log(JSON.stringify({{ file: sm.getSessionFile() }}));
"""


def test_a_session_pi16_wrote_checks_clean(tmp_path: Path) -> None:
    found = find_pi16()
    if found is None:
        pytest.skip("pi 1.6 (@earendil-works/pi-coding-agent) is not installed beside the repo")
    node, modules = found
    manager = module_url(modules, "pi-coding-agent", "dist/core/session-manager.js")
    out = run(node, SCRIPT.format(manager=manager, folder=json.dumps(str(tmp_path))))
    path = Path(json.loads(out)["file"])
    assert path.name.endswith("_nightly-run.7.jsonl")
    text = path.read_text(encoding="utf-8")
    kinds = {json.loads(line)["type"] for line in text.splitlines()}
    assert {"usage", "context_edit", "compaction", "branch_summary", "label"} <= kinds
    a = analyze(text, path=str(path))
    problems = [
        (f.code, f.span.line + 1, f.message)
        for f in a.findings
        if f.code in CODES and f.severity in (Severity.ERROR, Severity.WARNING)
    ]
    assert problems == []
    # nor anything at all from the schema, the header or the file name
    assert [f.code for f in a.findings if f.code in ("PI200", "PI104", "PI004")] == []
