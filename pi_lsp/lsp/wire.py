"""Diagnostics as LSP JSON, shared by the server and ``pi-lsp check --format json``.

The dictionaries built here have exactly the shape of an LSP ``Diagnostic`` (0-based
range in the requested encoding's code units, numeric severity, string code), so the
command line prints what the server publishes. This is the part of the edge conversion
(:mod:`pi_lsp.lsp.proto`) that needs no lsprotocol: the command line imports it without
paying for lsprotocol's start-up.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.text.findings import Finding, Span
from pi_lsp.core.text.lineindex import Encoding, to_units
from pi_lsp.core.workspace.settings import Settings

from .commands import FOR_CODE

SOURCE = "pi-lsp"


def lsp_range(lines: Sequence[str], span: Span, encoding: Encoding = "utf-16") -> dict[str, Any]:
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
    finding: Finding, lines: Sequence[str], uri: str, encoding: Encoding = "utf-16"
) -> dict[str, Any]:
    """One finding as an LSP ``Diagnostic`` dict; ``uri`` is the document's own URI.

    A related location in another file (``parentSession``) points at its first line.
    """
    out: dict[str, Any] = {
        "range": lsp_range(lines, finding.span, encoding),
        "severity": int(finding.severity),
        "code": finding.code,
        "source": SOURCE,
        "message": finding.message,
    }
    if finding.related:
        out["relatedInformation"] = [
            {
                "location": {
                    "uri": uri if rel.path is None else path_uri(rel.path),
                    "range": lsp_range(lines if rel.path is None else [], rel.span, encoding),
                },
                "message": rel.message,
            }
            for rel in finding.related
        ]
    data = finding.data
    if finding.code in FOR_CODE:
        data = {**(data or {}), "command": FOR_CODE[finding.code]}
    if data is not None:
        out["data"] = data
    return out


def diagnostics(
    findings: list[Finding], lines: Sequence[str], uri: str, encoding: Encoding = "utf-16"
) -> list[dict[str, Any]]:
    """All findings as LSP ``Diagnostic`` dicts."""
    return [diagnostic(f, lines, uri, encoding) for f in findings]


def report(
    analysis: Analysis, settings: Settings, uri: str, encoding: Encoding = "utf-16"
) -> list[dict[str, Any]]:
    """An analysis's findings under ``settings`` as LSP diagnostics: what the server
    publishes for a document, what workspace diagnostics report for a file on disk and
    what ``pi-lsp check --format json`` prints, all three built here."""
    return diagnostics(settings.apply(analysis.findings), analysis.lines, uri, encoding)
