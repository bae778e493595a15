"""The edge: core coordinates and results to LSP types and back (rust-analyzer's to_proto).

The core speaks ``(line, code-point column)`` and :class:`~pi_lsp.core.text.findings.Span`;
the client speaks positions in the negotiated encoding (UTF-16 unless agreed otherwise).
Every conversion between the two happens here, and nowhere else in the server:
positions, ranges, text edits, workspace edits and diagnostics (whose plain-JSON half,
shared with ``pi-lsp check``, is :mod:`pi_lsp.lsp.wire`).

A :class:`Frame` converts the positions of one answer. Its answer is computed on a
snapshot whose analysis may be of an older text: the frame takes the analysis's lines to
the client's text through the snapshot's line map, and a line edited since converts to
None, which the feature drops (or answers ContentModified for).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter

from pi_lsp.core.checks.document import Snapshot
from pi_lsp.core.text.findings import Span
from pi_lsp.core.text.lineindex import Encoding, Lines, clamp, to_units
from pi_lsp.core.text.textedit import TextEdit

_converter = get_converter()

FILE_START = types.Range(
    start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
)
"""The range a link to another file points at: its start."""


def whole_line(line: int) -> types.Range:
    """Line ``line`` of a file the server has not open, from its start to the next line's
    (line starts need no conversion of columns)."""
    return types.Range(
        start=types.Position(line=line, character=0),
        end=types.Position(line=line + 1, character=0),
    )


@dataclass(frozen=True, slots=True)
class Frame:
    """How one answer converts positions: the analysis's lines, the client's, the encoding.

    ``lines`` are the lines of the analysis the answer is computed from; ``snapshot`` is
    set when they are older than the client's text (lines then move through its map).
    """

    lines: Lines
    encoding: Encoding
    snapshot: Snapshot | None = None

    @classmethod
    def of(cls, snap: Snapshot, encoding: Encoding) -> Frame:
        """The frame of answers computed on ``snap``."""
        return cls(snap.analysis.lines, encoding, None if snap.current else snap)

    @property
    def text(self) -> Lines:
        """The lines of the client's text."""
        return self.lines if self.snapshot is None else self.snapshot.text.lines

    def cursor(self, position: types.Position) -> tuple[int, int]:
        """A client position as ``(line, column)`` of the client's text, clamped into it."""
        return clamp(self.text, position.line, position.character, self.encoding)

    def at(self, position: types.Position) -> tuple[int, int] | None:
        """A client position as analysis ``(line, column)``; None on a line edited since."""
        line, column = self.cursor(position)
        if self.snapshot is None:
            return line, column
        old = self.snapshot.to_analysis(line)
        return None if old is None else (old, column)

    def near(self, line: int) -> int:
        """Where client ``line`` is among the analysis's lines: itself when unchanged, else
        just after the nearest unchanged line before it."""
        if self.snapshot is None:
            return line
        for n in range(line, -1, -1):
            old = self.snapshot.to_analysis(n)
            if old is not None:
                return old + (n < line)
        return 0

    def text_range(self, line: int, start: int, end: int) -> types.Range:
        """Columns ``start``..``end`` of a line of the client's text as a client range."""
        text = self.text[line]
        return types.Range(
            start=types.Position(line=line, character=to_units(text, start, self.encoding)),
            end=types.Position(line=line, character=to_units(text, max(start, end), self.encoding)),
        )

    def lines_within(self, first: int, last: int) -> tuple[int, int] | None:
        """The analysis lines of client lines ``first``..``last`` (the unchanged ones at
        either end); None when every one of them was edited since."""
        if self.snapshot is None:
            return first, last
        snap = self.snapshot
        last = min(last, len(snap.text.lines) - 1)
        start = next(
            (n for n in range(max(first, 0), last + 1) if snap.to_analysis(n) is not None), None
        )
        if start is None:
            return None
        end = next(n for n in range(last, start - 1, -1) if snap.to_analysis(n) is not None)
        old_start, old_end = snap.to_analysis(start), snap.to_analysis(end)
        assert old_start is not None and old_end is not None
        return old_start, old_end

    def line(self, line: int) -> int | None:
        """The client's line for an analysis line (None: edited since, or outside)."""
        if not 0 <= line < len(self.lines):
            return None
        return line if self.snapshot is None else self.snapshot.to_text(line)

    def position(self, line: int, column: int) -> types.Position | None:
        """An analysis ``(line, column)`` as a client position."""
        moved = self.line(line)
        if moved is None:
            return None
        return types.Position(
            line=moved, character=to_units(self.lines[line], column, self.encoding)
        )

    def range(self, line: int, start: int, end: int) -> types.Range | None:
        """Columns ``start``..``end`` of an analysis line as a client range."""
        first = self.position(line, start)
        last = self.position(line, max(start, end))
        if first is None or last is None:
            return None
        return types.Range(start=first, end=last)

    def span(self, span: Span) -> types.Range | None:
        """A core span as a client range."""
        return self.range(span.line, span.start, span.end)

    def block(self, first: int, last: int) -> types.Range | None:
        """From the start of analysis line ``first`` to the end of line ``last``."""
        last = min(max(last, first), len(self.lines) - 1)
        start = self.position(first, 0)
        end = self.position(last, len(self.lines[last])) if last >= 0 else None
        if start is None or end is None:
            return None
        return types.Range(start=start, end=end)

    def text_edits(self, edits: Sequence[TextEdit]) -> list[types.TextEdit]:
        """Core edits as LSP text edits (of a current analysis: edits are never mapped)."""
        assert self.snapshot is None, "edits are computed on the current text only"
        out = []
        for e in edits:
            start = self._edge(*e.start)
            end = self._edge(*e.end)
            out.append(types.TextEdit(range=types.Range(start=start, end=end), new_text=e.text))
        return out

    def _edge(self, line: int, column: int) -> types.Position:
        """An edit's end, which may lie on the line after the last (appends)."""
        text = self.lines[line] if 0 <= line < len(self.lines) else ""
        return types.Position(line=line, character=to_units(text, column, self.encoding))


def workspace_edit(
    caps: types.ClientCapabilities, uri: str, version: int | None, edits: list[types.TextEdit]
) -> types.WorkspaceEdit:
    """Edits of one document: a versioned ``TextDocumentEdit`` when the client takes them."""
    workspace = caps.workspace
    if workspace and workspace.workspace_edit and workspace.workspace_edit.document_changes:
        identifier = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
        return types.WorkspaceEdit(
            document_changes=[types.TextDocumentEdit(text_document=identifier, edits=list(edits))]
        )
    return types.WorkspaceEdit(changes={uri: list(edits)})


def from_wire(items: list[dict[str, Any]]) -> list[types.Diagnostic]:
    """Diagnostics built by :mod:`pi_lsp.lsp.wire` (LSP JSON) as lsprotocol objects."""
    return [_converter.structure(d, types.Diagnostic) for d in items]
