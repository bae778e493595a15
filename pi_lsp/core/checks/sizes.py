"""PI500 on the header of a session that nears pi 0.73.1's file limit, naming the entries
that weigh most (the limits themselves: :mod:`pi_lsp.core.text.limits`)."""

from __future__ import annotations

import heapq
from typing import Any, NamedTuple

from ..entries.model import Analysis
from ..text import limits
from ..text.findings import Finding, Related, Severity
from ..text.limits import HEAVIEST, line_bytes, mib, stored_bytes


class Weight(NamedTuple):
    """An entry's size in bytes (its line, UTF-8) and the images it embeds."""

    line: int
    size: int
    images: int

    def describe(self, shown_as: int | None = None) -> str:
        """``line 12: 4.2 MiB (2 images)``: the line as ``shown_as`` (by default its 1-based
        number in the analysed text, as a finding's message gives it)."""
        number = self.line + 1 if shown_as is None else shown_as
        text = f"line {number}: {mib(self.size)}"
        if self.images:
            text += f" ({self.images} image{'s' if self.images != 1 else ''})"
        return text


def _images(obj: dict[str, Any]) -> int:
    """Image blocks in an entry's content (a message's, or a custom message's)."""
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else obj.get("content")
    if not isinstance(content, list):
        return 0
    return sum(1 for b in content if isinstance(b, dict) and b.get("type") == "image")


def heaviest(a: Analysis, count: int = HEAVIEST) -> list[Weight]:
    """The ``count`` entries with the longest lines, heaviest first: among the lines PI500
    reports when there are any (cheap), else among all entries."""
    large = {f.span.line for f in a.findings if f.code == "PI500"} & set(a.tree.entries)
    pool = large or a.tree.entries
    top = heapq.nlargest(count, pool, key=lambda line: len(a.lines[line]))
    weights = [Weight(n, line_bytes(a.lines[n]), _images(a.infos[n].obj)) for n in top]
    return sorted(weights, key=lambda w: -w.size)


def file_bytes(a: Analysis) -> int:
    """The size of the document in UTF-8 bytes (of one far below :data:`~pi_lsp.core.text.limits.NEAR_FILE`, a count
    as far below it)."""
    terms = sum(map(len, a.text.terminators))
    # a line stored as its str or as its UTF-8 bytes is no shorter than its characters,
    # and a character takes at most 4 bytes (no line is decoded here)
    stored = sum(map(len, a.lines.iter_raw())) + terms
    if stored * 4 < limits.NEAR_FILE:
        return stored
    return sum(map(stored_bytes, a.lines.iter_raw())) + terms


def check(a: Analysis) -> list[Finding]:
    """PI500 on the header of a file that nears or passes pi 0.73.1's limit."""
    if a.header_line is None or a.fmt != "pi":
        return []
    size = file_bytes(a)
    if size < limits.NEAR_FILE:
        return []
    top = heaviest(a)
    verdict = (
        "pi 0.73.1 cannot load it"
        if size > limits.PI073_MAX_FILE
        else f"pi 0.73.1 cannot load a session over {limits.PI073_MAX_FILE:,} bytes"
    )
    message = (
        f"the session is {mib(size)}: {verdict} (it reads the file into one string); pi 1.6 "
        "reads it line by line. Heaviest entries: " + "; ".join(w.describe() for w in top)
    )
    span = a.span_of(a.header_line, ("type",))  # a header always has its "type"
    related = tuple(Related(a.line_span(w.line), w.describe()) for w in top)
    return [Finding("PI500", Severity.WARNING, span, message, related)]
