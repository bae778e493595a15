"""Findings as LSP-shaped JSON diagnostics, shared by the server and ``pi-lsp check``.

The dictionaries built here have exactly the shape of an LSP ``Diagnostic`` (0-based
range in the requested encoding's code units, numeric severity, string code), so the
command line prints what the server publishes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .findings import Finding, Span
from .text import Encoding, to_units

SOURCE = "pi-lsp"


def lsp_range(lines: list[str], span: Span, encoding: Encoding = "utf-16") -> dict[str, Any]:
    """An LSP range for a span, clamped inside the document."""
    if not lines:
        zero = {"line": 0, "character": 0}
        return {"start": zero, "end": dict(zero)}
    line = min(max(span.line, 0), len(lines) - 1)
    text = lines[line]
    start = to_units(text, span.start, encoding)
    end = to_units(text, max(span.end, span.start), encoding)
    return {
        "start": {"line": line, "character": start},
        "end": {"line": line, "character": end},
    }


def path_uri(path: str) -> str:
    """A ``file://`` URI for a local path."""
    return Path(path).resolve().as_uri()


def diagnostic(
    finding: Finding,
    lines: list[str],
    uri: str,
    encoding: Encoding = "utf-16",
    other_lines: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """One finding as an LSP ``Diagnostic`` dict; ``uri`` is the document's own URI."""
    out: dict[str, Any] = {
        "range": lsp_range(lines, finding.span, encoding),
        "severity": int(finding.severity),
        "code": finding.code,
        "source": SOURCE,
        "message": finding.message,
    }
    if finding.related:
        related = []
        for rel in finding.related:
            target_lines = lines
            target_uri = uri
            if rel.path is not None:
                target_uri = path_uri(rel.path)
                target_lines = (other_lines or {}).get(rel.path, [])
            related.append(
                {
                    "location": {
                        "uri": target_uri,
                        "range": lsp_range(target_lines, rel.span, encoding),
                    },
                    "message": rel.message,
                }
            )
        out["relatedInformation"] = related
    if finding.data is not None:
        out["data"] = finding.data
    return out


def diagnostics(
    findings: list[Finding], lines: list[str], uri: str, encoding: Encoding = "utf-16"
) -> list[dict[str, Any]]:
    """All findings as LSP ``Diagnostic`` dicts."""
    return [diagnostic(f, lines, uri, encoding) for f in findings]
