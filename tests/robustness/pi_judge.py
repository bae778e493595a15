"""What pi makes of a session file, judged by node, in batches (no pi install needed).

It mirrors pi 1.6.0's ``loadEntriesFromFile`` (split at ``\\n`` with no trim, skip
``!line.trim()``, keep what ``JSON.parse`` accepts of each line as it is; pi 0.73.1 trimmed
the whole file first) and its check that the first kept entry is a
``{"type":"session","id":<string>}`` header. Each file's verdict names, per physical line
(counted in ``\\n`` of the original text), whether pi keeps it, skips it as blank, or drops
it as invalid JSON.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass

from pi_lsp.core.checks.analysis import analyze

SCRIPT = r"""
const files = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = files.map((content) => {
  const verdicts = {};
  const entries = [];
  content.split("\n").forEach((line, i) => {
    if (!line.trim()) { verdicts[i] = "blank"; return; }
    try { entries.push(JSON.parse(line)); verdicts[i] = "valid"; }
    catch (e) { verdicts[i] = "invalid"; }
  });
  const first = entries[0];
  const accepts = !!first && typeof first === "object" && first.type === "session"
    && typeof first.id === "string";
  return { verdicts, accepts };
});
process.stdout.write(JSON.stringify(out));
"""


@dataclass
class Verdict:
    verdicts: dict[int, str]
    accepts: bool


def node_path() -> str | None:
    return shutil.which("node")


def judge(node: str, texts: list[str]) -> list[Verdict]:
    proc = subprocess.run(
        [node, "-e", SCRIPT],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return [
        Verdict({int(k): v for k, v in item["verdicts"].items()}, item["accepts"])
        for item in json.loads(proc.stdout)
    ]


def disagreements(text: str, verdict: Verdict) -> list[str]:
    """Where pi-lsp's view of ``text`` differs from pi's (``text`` without lone CRs).

    Line-level: a line pi drops as invalid JSON is reported PI001/PI002 (or, for a header
    behind whitespace JSON.parse rejects, PI100 on that whitespace), a line pi keeps or
    skips as blank is not. File-level: pi refuses the file exactly when PI100 is reported
    (pi-format files only: pi-lsp reads the second dialect's header itself).
    """
    a = analyze(text)
    invalid = {f.span.line for f in a.findings if f.code in ("PI001", "PI002")}
    invalid |= {line for line, info in enumerate(a.infos) if info.edge_space is not None}
    out = []
    lines = text.split("\n")
    for line, v in verdict.verdicts.items():
        shown = lines[line][:80] if line < len(lines) else "?"
        if v == "invalid" and line not in invalid:
            out.append(
                f"line {line}: pi drops it as invalid JSON, pi-lsp does not say so: {shown!r}"
            )
        elif v != "invalid" and line in invalid:
            out.append(
                f"line {line}: pi {'keeps' if v == 'valid' else 'skips'} it, pi-lsp reports PI001/PI002: {shown!r}"
            )
    refused = any(f.code == "PI100" for f in a.findings)
    # an empty or blank file too: pi leaves it out of /resume (and opens no session from it)
    if a.fmt == "pi" and refused == verdict.accepts:
        out.append(
            f"pi {'accepts' if verdict.accepts else 'refuses'} the file, PI100 reported: {refused}"
        )
    return out
