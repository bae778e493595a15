"""Document links: header fields that name another session file.

``parentSession`` (v3, the session this one was forked from) and ``branchedFrom`` (v1)
become links to that file; relative paths resolve against this file's folder.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..entries.model import Analysis
from ..text.findings import Span
from .refs import session_path, span_of

LINK_FIELDS = ("parentSession", "branchedFrom")


@dataclass(frozen=True, slots=True)
class DocLink:
    """A link from ``span`` (the string value without its quotes) to the file at ``path``."""

    span: Span
    path: str
    field: str


def document_links(a: Analysis) -> list[DocLink]:
    """The links of the header line (empty without a header)."""
    if a.header_line is None:
        return []
    out = []
    for name in LINK_FIELDS:
        value = a.header.get(name)
        if isinstance(value, str) and value:
            span = span_of(a, a.header_line, (name,))
            # a non-empty string: at least one character between the quotes
            inner = Span(span.line, span.start + 1, span.end - 1)
            out.append(DocLink(inner, session_path(a, value), name))
    return out
