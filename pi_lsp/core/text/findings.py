"""What the analysis reports: spans, severities, related locations and findings.

A :class:`Span` lies inside one line and counts code points; protocol layers convert it
to their own units at the edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, NamedTuple


class Severity(IntEnum):
    """Diagnostic severity, numbered as in LSP."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        """Lower-case name used in text output (``error``, ``warning``, ...)."""
        return self.name.lower()


class Span(NamedTuple):
    """A range ``[start, end)`` of code points inside line ``line`` (0-based)."""

    line: int
    start: int
    end: int


class Related(NamedTuple):
    """The other end of a broken relation; ``path`` is set when it is in another file."""

    span: Span
    message: str
    path: str | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found in a document.

    ``data`` carries what a quick fix needs (for instance the id a fix should use);
    it is published as the diagnostic's ``data``.
    """

    code: str
    severity: Severity
    span: Span
    message: str
    related: tuple[Related, ...] = ()
    data: dict[str, Any] | None = field(default=None, compare=False)


def sort_key(finding: Finding) -> tuple[int, int, str]:
    """Stable order for findings: by line, then column, then code."""
    return (finding.span.line, finding.span.start, finding.code)
