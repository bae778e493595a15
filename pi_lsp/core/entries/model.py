"""The model of one analysed document: :class:`Analysis`, its :class:`Options`, and
:class:`Cancelled` (an analysis stopped half way, with the lines it finished).

An ``Analysis`` is built by :func:`pi_lsp.core.checks.analysis.analyze` and never changes after
it is returned; views derived from it are memoised beside it (``views``, ``link_views``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..text.findings import Finding, Span
from ..text.jsonl import Walked, locate
from ..text.limits import MIB
from ..text.lineindex import Lines, SplitText, Stored
from .lines import LineInfo, LineRules, parse
from .memo import Views
from .tree import Tree

SLIM_LINE = 2048
"""Lines at least this long, as :class:`~pi_lsp.core.text.lineindex.Lines` stores them (code points
of a ``str``, bytes of a line stored as UTF-8), keep a slim parsed value."""

SLIM_KEEP = 512
"""In a slim value, a text longer than this keeps only its first ``SLIM_KEEP`` characters
(after any leading whitespace)."""


class Options(NamedTuple):
    """Analysis settings that change findings (severity overrides are applied later)."""

    large_line: int = MIB


class Cancelled(Exception):
    """Raised by :func:`~pi_lsp.core.checks.analysis.analyze` when ``cancelled()`` became true.

    ``partial`` maps every line finished so far (as :class:`~pi_lsp.core.text.lineindex.Lines`
    stores it) to its results under ``context``; pass it back as ``partial=`` to the next
    ``analyze`` call.
    """

    def __init__(self, context: LineRules | None, partial: dict[Stored, LineInfo]) -> None:
        super().__init__("analysis cancelled")
        self.context = context
        self.partial = partial


@dataclass(slots=True)
class Analysis:
    """Everything known about one document.

    ``cache`` maps each line, as :class:`~pi_lsp.core.text.lineindex.Lines` stores it (never the
    decoded text of a line stored as bytes), to its :class:`LineInfo` under ``context`` (the
    format context every line was checked with). ``link_findings`` are the findings of the link
    analysis (also part of ``findings``), kept so the next analysis can reuse them;
    ``link_state`` is what an append extends them from (a
    :class:`pi_lsp.core.checks.links.LinkState`, opaque to the model; None when there is none),
    ``line_findings`` the findings of single lines (those of the lines an append keeps are
    kept).
    ``views`` memoises views of this analysis; ``link_views`` is shared by successive
    analyses whose lines are at the same positions and agree in every :func:`~pi_lsp.core.checks.analysis.link_facts`
    (views of the links kept there stay valid). ``walked`` keeps, per line, the containers
    :meth:`span_of` has walked (:data:`~pi_lsp.core.text.jsonl.Walked`), so many spans in one long
    line cost one walk of it. ``keeps_values``: the short lines' results keep their values
    (pi builds this session's context from them; see ``analysis._keeps_values``).
    """

    text: SplitText
    infos: list[LineInfo]
    fmt: str
    version: int
    header_line: int | None
    tree: Tree = field(default_factory=Tree)
    findings: list[Finding] = field(default_factory=list)
    path: str | None = None
    options: Options = field(default_factory=Options)
    cache: dict[Stored, LineInfo] = field(default_factory=dict, repr=False)
    context: LineRules | None = None
    keeps_values: bool = field(default=False, repr=False, compare=False)
    link_findings: list[Finding] = field(default_factory=list, repr=False)
    link_state: object = field(default=None, repr=False, compare=False)
    line_findings: list[Finding] = field(default_factory=list, repr=False, compare=False)
    views: Views = field(default_factory=Views, repr=False, compare=False)
    link_views: Views = field(default_factory=Views, repr=False, compare=False)
    walked: dict[int, Walked] = field(default_factory=dict, repr=False, compare=False)

    @property
    def lines(self) -> Lines:
        """The document's lines, without terminators."""
        return self.text.lines

    def line_span(self, line: int) -> Span:
        """A span covering the whole text of ``line`` (without leading whitespace)."""
        text = self.text.lines[line]
        start = len(text) - len(text.lstrip())
        return Span(line, start, len(text.rstrip(" \t\r\n")))

    def span_of(self, line: int, path: tuple[str | int, ...]) -> Span:
        """The span of the value at a JSON path inside ``line``."""
        return Span(line, *locate(self.text.lines[line], path, self.walked.setdefault(line, {})).value)

    def entry(self, line: int) -> dict[str, Any]:
        """The parsed object on ``line`` (empty when the line is not an object).

        On a line of :data:`SLIM_LINE` or more (as stored) this is the slim value; see
        :meth:`value` for the full one.
        """
        if 0 <= line < len(self.infos):
            return self.infos[line].obj
        return {}

    def value(self, line: int) -> Any:
        """The full parsed value of ``line`` (None when it does not parse), re-parsed if slim."""
        if not 0 <= line < len(self.infos):
            return None
        info = self.infos[line]
        if info.held is None:
            return None
        if len(self.text.lines.raw(line)) < SLIM_LINE:
            return info.value
        # as the line was parsed: a header keeps its value after a BOM (only a first line
        # parses with one, and only a line that parsed gets here)
        return parse(self.text.lines[line], first=True).value

    @property
    def header(self) -> dict[str, Any]:
        """The parsed header, or an empty dict."""
        return self.entry(self.header_line) if self.header_line is not None else {}
