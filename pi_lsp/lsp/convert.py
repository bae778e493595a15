"""Core results → LSP types, in the negotiated position encoding.

Diagnostics are built from the same dictionaries ``pi-lsp check --format json`` prints
(:mod:`pi_lsp.core.report`), structured into lsprotocol types, so both agree exactly.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter

from pi_lsp.core.document import Document, Position
from pi_lsp.core.findings import Finding, Span
from pi_lsp.core.report import diagnostic, lsp_range
from pi_lsp.core.text import Encoding

_converter = get_converter()


def to_range(lines: list[str], span: Span, encoding: Encoding) -> types.Range:
    """A core span as an LSP range."""
    raw = lsp_range(lines, span, encoding)
    return types.Range(
        start=types.Position(line=raw["start"]["line"], character=raw["start"]["character"]),
        end=types.Position(line=raw["end"]["line"], character=raw["end"]["character"]),
    )


def line_range(lines: list[str], line: int, encoding: Encoding) -> types.Range:
    """The range of a whole line."""
    return to_range(
        lines, Span(line, 0, len(lines[line]) if 0 <= line < len(lines) else 0), encoding
    )


def to_diagnostics(
    doc: Document, findings: list[Finding], encoding: Encoding
) -> list[types.Diagnostic]:
    """Findings as LSP diagnostics (identical to the command line's JSON)."""
    return [
        _converter.structure(diagnostic(f, doc.lines, doc.uri, encoding), types.Diagnostic)
        for f in findings
    ]


def diagnostic_dicts(
    doc: Document, findings: list[Finding], encoding: Encoding
) -> list[dict[str, Any]]:
    """Findings as plain LSP-shaped dicts."""
    return [diagnostic(f, doc.lines, doc.uri, encoding) for f in findings]


def from_position(doc: Document, position: types.Position, encoding: Encoding) -> tuple[int, int]:
    """An LSP position as a core ``(line, code-point column)``, clamped into the document."""
    return doc.offset(Position(position.line, position.character), encoding)
