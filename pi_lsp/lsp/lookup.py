"""Shared plumbing for read-only features: find the open document and convert positions.

Core services speak ``(line, code-point column)``; these helpers turn LSP positions into
that and core spans and line ranges back into LSP ranges in the negotiated encoding.
"""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types

from pi_lsp.core.analysis import Analysis
from pi_lsp.core.document import Document
from pi_lsp.core.findings import Span
from pi_lsp.core.text import to_units

from . import convert
from .server import PiLanguageServer


@dataclass(frozen=True, slots=True)
class At:
    """An open document, its analysis, and a position as ``(line, code-point column)``."""

    doc: Document
    analysis: Analysis
    line: int
    column: int


def document(ls: PiLanguageServer, uri: str) -> tuple[Document, Analysis] | None:
    """The open document at ``uri`` and its current analysis."""
    doc = ls.documents.get(uri)
    if doc is None:
        return None
    return doc, doc.analysis


def at(ls: PiLanguageServer, uri: str, position: types.Position) -> At | None:
    """The document at ``uri`` with ``position`` converted to core coordinates."""
    found = document(ls, uri)
    if found is None:
        return None
    doc, analysis = found
    line, column = convert.from_position(doc, position, ls.encoding)
    return At(doc, analysis, line, column)


def span_range(
    ls: PiLanguageServer, lines: list[str], line: int, start: int, end: int
) -> types.Range:
    """The LSP range of columns ``start``..``end`` (code points) on ``line``."""
    return convert.to_range(lines, Span(line, start, end), ls.encoding)


def lines_range(ls: PiLanguageServer, lines: list[str], first: int, last: int) -> types.Range:
    """The LSP range from the start of line ``first`` to the end of line ``last``."""
    last = min(max(last, first), len(lines) - 1)
    end = to_units(lines[last], len(lines[last]), ls.encoding)
    return types.Range(
        start=types.Position(line=first, character=0),
        end=types.Position(line=last, character=end),
    )
