"""Helpers for the read-only feature tests: the sample session, its URI, and positions in
any encoding computed from the line text (never hard-coded)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from pi_lsp.core.text.lineindex import Encoding, to_units

from ..core.features_sample import LINES, PATH, TEXT

URI = Path(PATH).as_uri()
FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"

__all__ = ["FIXTURES", "LINES", "TEXT", "URI", "doc_id", "pos", "span", "value"]


def pos(line: int, column: int, encoding: Encoding = "utf-16") -> types.Position:
    """The client position of code-point ``column`` on sample line ``line``."""
    return types.Position(line=line, character=to_units(LINES[line], column, encoding))


def span(line: int, start: int, end: int, encoding: Encoding = "utf-16") -> types.Range:
    """The client range of code points ``start``..``end`` on sample line ``line``."""
    return types.Range(start=pos(line, start, encoding), end=pos(line, end, encoding))


def value(line: int, text: str, encoding: Encoding = "utf-16", nth: int = 0) -> types.Range:
    """The range of the JSON string ``"text"`` (quotes included), its ``nth`` occurrence."""
    start = -1
    for _ in range(nth + 1):
        start = LINES[line].index(f'"{text}"', start + 1)
    return span(line, start, start + len(text) + 2, encoding)


def doc_id(uri: str = URI) -> types.TextDocumentIdentifier:
    """A text document identifier."""
    return types.TextDocumentIdentifier(uri=uri)
