"""The analysis pipeline: lines, format and version, the tree, and every finding.

:func:`analyze` is the one entry point; it builds an :class:`~pi_lsp.core.entries.model.Analysis`
from the line results (:mod:`pi_lsp.core.entries.lines`), the tree and link findings
(:mod:`pi_lsp.core.checks.links`, :mod:`pi_lsp.core.checks.book`) and the findings about the file's
lines and header (:mod:`pi_lsp.core.checks.file_findings`). It is built for documents of
hundreds of MB and for re-analysis after small edits:

- Line-local work (parsing, schema validation, line checks) is cached per line text and
  format context, so re-analysing an edited document only parses and validates the lines
  whose text changed. The context (format and version) is read from the header before the
  lines are checked, so each line is visited once. The caches are keyed by the lines as
  :class:`~pi_lsp.core.text.lineindex.Lines` stores them, and a line is decoded only to be parsed.
  An edit inside the file (:meth:`_LinePass.patched`) keeps the previous results of the lines
  around it without a pass over them.
- The tree and the link findings are reused from the previous analysis when no changed
  line differs in anything the link analysis reads (:func:`link_facts`) and no link
  finding points into a changed line; the links are not checked again when the lines
  added or removed are all blank or unparseable and there was no link finding
  (:func:`_only_unparsed_moved`). When the text only grew (:func:`appended`) they are
  extended from the previous analysis where the new entries change no earlier one
  (:func:`pi_lsp.core.checks.links.grow`), and the lines kept keep their line findings;
  otherwise they are recomputed (dictionary work over ids, linear in the number of
  entries).
- Spans inside a line are computed only for findings (:meth:`Analysis.span_of`).
- Lines of :data:`SLIM_LINE` or more, as stored (characters, or bytes of a line stored
  as UTF-8), keep a *slim* parsed value: each text
  (a string under a key of :data:`_TEXT_KEYS`, or anywhere inside tool call arguments and
  result details) longer than :data:`SLIM_KEEP` characters is cut to its first
  :data:`SLIM_KEEP` characters after any leading whitespace, so long texts (tool output,
  base64 images) are not held twice (once in the text, once parsed). Every string the
  links, the context or the findings compare (ids, types, roles) is kept whole; a cut text
  keeps its truthiness and whether it is blank. :meth:`Analysis.value` re-parses such a
  line in full on demand.
- ``cancelled()`` is polled about every MiB of text that is not reused from earlier
  results; when it returns true the analysis stops with :class:`Cancelled`, which
  carries the line results finished so far for the next run to reuse.
- The cyclic garbage collector is paused while an analysis runs (:func:`~pi_lsp.core.checks.gcpause.gc_paused`).
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..entries.header import read_header
from ..entries.lines import Issue, Kind, LineInfo, LineRules, is_blank, parse, parse_stored
from ..entries.model import SLIM_LINE, Analysis, Cancelled, Options
from ..entries.slim import slim_value
from ..entries.tree import Tree, build_tree
from ..pi.loading import js_truthy
from ..text.files import read_lines
from ..text.findings import Finding, Span, sort_key
from ..text.limits import MIB
from ..text.lineindex import (
    Lines,
    SplitText,
    Stored,
    identical_ends,
    plain,
    split_lines,
    unpack,
    utf8_of,
)
from . import links, sizes
from .file_findings import header_findings, line_findings
from .gcpause import gc_paused
from .line_checks import check

_TICK = MIB
"""Characters of newly analysed text between two polls of ``cancelled`` / ``progress`` calls
(a line stored as bytes counts its bytes)."""

_PATCH_LIMIT = 64
"""At most this many lines, removed or added, between the unchanged head and tail of an
edited text are checked on their own (:meth:`_LinePass.patched`); more are checked as a
whole text."""

_REUSE_LIMIT = 256
"""Above this many changed lines the link analysis is recomputed without comparing facts."""

Region = tuple[int, int, int]
"""The lines an edit (:meth:`_LinePass.patched`) or an append (:func:`appended`) re-checked:
from ``head`` up to ``end`` in the new text, up to ``old_end`` in the old; the results of
the lines before and after are the same objects."""

LineChecks = Callable[[LineRules, int], "dict[int, tuple[Issue, ...]] | None"]
"""Where a one-shot analysis takes its line checks from (:func:`analyze`'s ``checks_from``):
called with the context and the number of lines, it gives the issues of every line that
has any, as :func:`line_issues` finds them, or None when it has none to give."""


def _detect(infos: list[LineInfo]) -> tuple[str, int, int | None]:
    """Find the header (the first header line: pi takes the first line that parses, and
    refuses the file when that is no header, PI100) and read format/version."""
    header_line = next((i for i, info in enumerate(infos) if info.kind is Kind.HEADER), None)
    if header_line is None:
        has_ids = any(info.kind is Kind.ENTRY and "id" in info.obj for info in infos)
        return "pi", 3 if has_ids else 1, None
    return read_header(infos[header_line].obj, header_line, infos)


def _lookup(tables: list[dict[Stored, LineInfo]], text: Stored, slim: bool) -> LineInfo | None:
    """A known parse of ``text`` (on a line of :data:`SLIM_LINE` or more as stored, only
    one without a value, which may be slim)."""
    for table in tables:
        found = table.get(text)
        if found is not None and not (slim and found.held is not None):
            return found
    return None


class _LinePass:
    """One pass over the lines: parse and check each distinct text once, reusing old results."""

    def __init__(
        self,
        lines: Lines,
        sources: list[tuple[LineRules | None, dict[Stored, LineInfo]]],
        cancelled: Callable[[], bool] | None,
        progress: Callable[[int, int], None] | None,
        reuse: bool = True,
        checks: bool = True,
    ) -> None:
        self.lines = lines
        self.sources = sources
        self.cancelled = cancelled
        self.progress = progress
        self.reuse = reuse
        self.checks = checks  # false: lines are parsed only, their issues come from elsewhere
        self.ids: dict[str, str] = {}  # each id string met, for the lines to share
        self.keep_values = False  # the short lines keep their values (see _keeps_values)
        # pi trims the file's text: the first non-blank line is parsed without leading
        # whitespace (a BOM), and never shares cached results with other lines
        self.first = next((i for i, text in enumerate(lines) if not is_blank(text)), -1)
        self.last = next(
            (i for i in range(len(lines) - 1, -1, -1) if not is_blank(lines[i])), -1
        )

    def edge(self, i: int, key: Stored) -> LineInfo | None:
        """A fresh parse of the first or last non-blank line (trimmed as pi trims), else None."""
        if i != self.first and i != self.last:
            return None
        return parse(unpack(key), first=i == self.first, last=i == self.last)

    def parse_only(self, upto: int | None = None) -> list[LineInfo]:
        """Parse results of the first ``upto`` lines (all by default), unchecked."""
        lines = self.lines if upto is None else self.lines[:upto]
        known = [d for _, d in self.sources]
        out: list[LineInfo] = []
        mine: dict[Stored, LineInfo] = {}
        budget = _TICK
        for i, key in enumerate(lines.iter_raw()):
            edge = self.edge(i, key)
            if edge is not None:
                out.append(edge)
                continue
            info = mine.get(key)
            if info is None:
                text = unpack(key)
                info = _lookup(known, key, len(key) >= SLIM_LINE)
                if info is None:
                    info = parse(text, data=utf8_of(key))
                    budget -= len(key)
                mine[key] = info
            out.append(info)
            if budget <= 0 and upto is None:
                budget = _TICK
                self._tick(i + 1, len(lines), None, {})
        return out

    def checked(
        self, ctx: LineRules, parsed: list[LineInfo] | None, start: int = 0
    ) -> tuple[list[LineInfo], dict[Stored, LineInfo]]:
        """Lines from ``start`` on checked under ``ctx``; ``parsed`` are full parse results
        of every line."""
        same = [d for c, d in self.sources if c == ctx]
        other = [d for c, d in self.sources if c != ctx]
        cache: dict[Stored, LineInfo] = {}
        infos: list[LineInfo] = []
        total = len(self.lines)
        # a one-shot analysis keeps no line by text: no later analysis reuses it, and
        # hashing a text costs more than checking it again where it repeats (rarely)
        one_shot = not self.reuse
        budget = _TICK
        first, last = self.first, self.last
        for i, key in enumerate(itertools.islice(self.lines.iter_raw(), start, None), start):
            if i in (first, last):
                edge = parsed[i] if parsed else self.edge(i, key)
                infos.append(self._check(key, ctx, [], edge, keep=True))
                continue
            if one_shot:
                infos.append(self._check(key, ctx, other, parsed[i] if parsed else None))
                budget -= len(key)
            else:
                info = cache.get(key)
                if info is None:
                    for d in same:
                        info = d.get(key)
                        if info is not None:
                            break
                    if info is None:
                        info = self._check(key, ctx, other, parsed[i] if parsed else None)
                        budget -= len(key)
                    cache[key] = info
                infos.append(info)
            if budget <= 0:
                budget = _TICK
                self._tick(i + 1, total, ctx, cache)
        return infos, cache

    def patched(
        self, ctx: LineRules, previous: Analysis
    ) -> tuple[list[LineInfo], dict[Stored, LineInfo], Region] | None:
        """:meth:`checked` of every line, from ``previous`` (checked under ``ctx``) when
        these lines are its lines but for at most :data:`_PATCH_LIMIT` lines between a
        head and a tail of the same line objects that hold the first and last non-blank
        lines (an edit): ``previous``'s results are kept for the head and the tail (a
        C-level copy), only the lines between are looked up or checked. Else None.
        The :data:`Region` says which lines those were.

        The cache holds what :meth:`checked` would: the results of every line but the
        first and last non-blank ones, by text (the keys of removed lines that no other
        line has are dropped).
        """
        lines, old = self.lines, previous.lines
        head, tail = lines.same_ends(old)
        end, old_end = len(lines) - tail, len(old) - tail
        if (
            not 0 <= self.first < head
            or self.last < end
            or max(end, old_end) - head > _PATCH_LIMIT
        ):
            return None
        cache = dict(previous.cache)
        middle = []
        for i in range(head, end):
            key = lines.raw(i)
            info = cache.get(key)
            if info is None:
                info = cache[key] = self._check(key, ctx, [], None)
            middle.append(info)
        self.drop(cache, old[head:old_end], head, end)
        return previous.infos[:head] + middle + previous.infos[old_end:], cache, (head, end, old_end)

    def drop(self, cache: dict[Stored, LineInfo], removed: Lines, start: int, end: int) -> None:
        """Take the results of the ``removed`` lines, replaced by lines ``start`` to ``end``,
        out of ``cache``, but those of texts that a line other than the first and last
        non-blank ones still has (looked for among the new lines first)."""
        lines = self.lines
        edges = [lines.raw(i) for i in {self.first, self.last} if i >= 0]
        new = {lines.raw(i) for i in range(start, end) if i != self.first and i != self.last}
        for key in removed.iter_raw():
            if key in cache and key not in new and lines.count_raw(key) == edges.count(key):
                del cache[key]

    def _tick(
        self, done: int, total: int, ctx: LineRules | None, cache: dict[Stored, LineInfo]
    ) -> None:
        if self.progress is not None:
            self.progress(done, total)
        if self.cancelled is not None and self.cancelled():
            raise Cancelled(ctx, cache)

    def _check(
        self,
        key: Stored,
        ctx: LineRules,
        other: list[dict[Stored, LineInfo]],
        base: LineInfo | None,
        keep: bool = False,
    ) -> LineInfo:
        """The results of line ``key`` under ``ctx`` (from ``base``'s parse, else one found in
        ``other``, else a parse of its own). The value is kept slim on a line of
        :data:`SLIM_LINE` or more, parsed again on demand on a shorter one (where it takes
        several times the line's size) but where ``keep`` says the line is the first or last
        non-blank one (parsed trimmed)."""
        slim = len(key) >= SLIM_LINE
        known = None  # an earlier analysis's result of this text, under another context
        if base is None and other:
            base = known = _lookup(other, key, slim)
        line = plain(key)  # a line stored as UTF-8 is decoded only when need be
        if base is not None:
            info = base.unchecked()
        else:
            found = parse_stored(line)
            info = found if found is not None else parse(unpack(line), data=utf8_of(line))
        if self.checks:
            info.issues = check(line, info, ctx)
        if slim:
            if info.held is not None:
                info.value = slim_value(info.value)
        elif not keep and not self.keep_values:
            info.parsed_on_demand(key)
        if known is not None and info.issues == known.issues and info.held is known.held:
            self._know_ids(known)  # the same result: shared, not held twice
            return known
        self._share_ids(info)
        return info

    def _know_ids(self, info: LineInfo) -> None:
        """Let the lines after it share the id strings ``info`` keeps (it stays as it is:
        an earlier analysis holds it too)."""
        ids = self.ids
        for ident in (info.ident, info.parent, info.tool_call_id):
            if type(ident) is str:
                ids.setdefault(ident, ident)
        for _, ident in info.calls:
            ids.setdefault(ident, ident)

    def _share_ids(self, info: LineInfo) -> None:
        """Make the id strings ``info`` keeps (its id, parentId, tool call ids) the objects
        an earlier line keeps for the same id: each id once, not once per line naming it."""
        ids = self.ids
        if type(info.ident) is str:
            info.ident = ids.setdefault(info.ident, info.ident)
        if type(info.parent) is str:
            info.parent = ids.setdefault(info.parent, info.parent)
        if info.calls:
            info.calls = tuple([(n, ids.setdefault(ident, ident)) for n, ident in info.calls])
        if type(info.tool_call_id) is str:
            info.tool_call_id = ids.setdefault(info.tool_call_id, info.tool_call_id)


def analyze(
    source: str | SplitText,
    path: str | None = None,
    options: Options | None = None,
    previous: Analysis | None = None,
    progress: Callable[[int, int], None] | None = None,
    *,
    cancelled: Callable[[], bool] | None = None,
    partial: Cancelled | None = None,
    reuse: bool = True,
    checks_from: LineChecks | None = None,
) -> Analysis:
    """Analyse a whole document; reuse ``previous``'s results where text is unchanged.

    ``progress(done, total)`` (in lines) is called about every MiB of newly analysed
    text; ``cancelled()`` is polled as often and stops the analysis with :class:`Cancelled`.
    ``partial`` is such an exception from an earlier, superseded run: its finished lines
    are reused too. ``reuse=False`` says no later analysis will reuse this one (a one-shot
    check): its ``cache`` then stays empty.

    ``checks_from`` (with no ``previous`` nor ``partial``) says the line checks run
    elsewhere (:mod:`pi_lsp.core.checks.helper`): the lines are only parsed, and their issues are
    asked of it once the links are checked; when it gives none, the analysis runs again
    with its own checks.
    """
    if checks_from is not None and (previous is not None or partial is not None):
        checks_from = None
    with gc_paused():
        return _analyze(
            source, path, options, previous, progress, cancelled, partial, reuse, checks_from
        )


def analyze_file(
    path: str,
    options: Options | None = None,
    previous: Analysis | None = None,
    *,
    reuse: bool = True,
    checks_from: LineChecks | None = None,
) -> Analysis:
    """Read ``path`` line by line and analyse it (from ``previous``'s end when it only grew;
    ``reuse`` and ``checks_from`` as :func:`analyze` takes them).

    The text is never held as one ``str`` (up to 4 bytes a character). Raises OSError when
    the file cannot be read.
    """
    return analyze(
        read_lines(Path(path)), path, options, previous, reuse=reuse, checks_from=checks_from
    )


def line_issues(split: SplitText, options: Options) -> tuple[LineRules, dict[int, tuple[Issue, ...]]]:
    """The context of a one-shot analysis of ``split`` and the issues of each of its lines
    that has any, exactly as that analysis checks them; one parsed value is held at a time
    (see :mod:`pi_lsp.core.checks.helper`)."""
    lines = split.lines
    run = _LinePass(lines, [], None, None, reuse=False)
    fmt, version, _, parsed = _context(run, lines)
    ctx = LineRules(fmt, version, options.large_line)
    found: dict[int, tuple[Issue, ...]] = {}
    for i, key in enumerate(lines.iter_raw()):
        issues = run._check(key, ctx, [], parsed[i] if parsed else run.edge(i, key)).issues
        if issues:
            found[i] = issues
    return ctx, found


def streamed_line_issues(
    items: Iterable[Stored], options: Options
) -> tuple[LineRules, dict[int, tuple[Issue, ...]], int] | None:
    """:func:`line_issues` of the lines ``items`` gives one at a time, and their number,
    holding one line and one parsed value at a time; None when the file's first line that
    is not blank (as pi and as Python see it) is no header naming its version, read as a
    first line that is not the last (then its context needs every line, or knowing which is
    the last: use :func:`line_issues`)."""
    found: dict[int, tuple[Issue, ...]] = {}
    ctx: LineRules | None = None
    blanks: list[tuple[int, Stored]] = []  # blank lines before the header, checked after it
    first = -1  # the header: the first line that is not blank
    held: tuple[int, Stored] | None = None  # the last line not blank so far, checked later
    count = 0
    for i, key in enumerate(items):
        count = i + 1
        blank = key[:1] not in ("{", b"{") and is_blank(unpack(key))
        if ctx is None:
            if not unpack(key).strip():  # as _context skips lines before the header
                if not blank:
                    return None
                blanks.append((i, key))
                continue
            head = parse(unpack(key), first=True)
            if blank or head.kind is not Kind.HEADER:
                return None
            try:
                fmt, version, _ = read_header(head.obj, i, None)
            except LookupError:
                return None
            ctx, first = LineRules(fmt, version, options.large_line), i
            for n, line in blanks:
                if issues := _line_check(line, ctx, None):
                    found[n] = issues
        elif blank:
            if issues := _line_check(key, ctx, None):
                found[i] = issues
            continue
        if held is not None:  # not the last line: the first is parsed as pi trims it
            n, line = held
            if issues := _line_check(line, ctx, parse(unpack(line), first=True) if n == first else None):
                found[n] = issues
        held = (i, key)
    if ctx is None or held is None:
        return None
    n, line = held
    if issues := _line_check(line, ctx, parse(unpack(line), first=n == first, last=True)):
        found[n] = issues
    return ctx, found, count


def _line_check(key: Stored, ctx: LineRules, base: LineInfo | None) -> tuple[Issue, ...]:
    """The issues of line ``key`` under ``ctx`` (of ``base``, its parse, when given), as
    :meth:`_LinePass._check` finds them."""
    line = plain(key)
    if base is None:
        base = parse_stored(line) or parse(unpack(line), data=utf8_of(line))
    return check(line, base, ctx)


def _analyze(
    source: str | SplitText,
    path: str | None,
    options: Options | None,
    previous: Analysis | None,
    progress: Callable[[int, int], None] | None,
    cancelled: Callable[[], bool] | None,
    partial: Cancelled | None,
    reuse: bool,
    checks_from: LineChecks | None,
) -> Analysis:
    options = options or Options()
    split = split_lines(source) if isinstance(source, str) else source
    lines = split.lines
    sources: list[tuple[LineRules | None, dict[Stored, LineInfo]]] = []
    if partial is not None:
        sources.append((partial.context, partial.partial))
    if previous is not None:
        sources.append((previous.context, previous.cache))
    run = _LinePass(lines, sources, cancelled, progress, reuse, checks=checks_from is None)
    fmt, version, header_line, parsed = _context(run, lines)
    ctx = LineRules(fmt, version, options.large_line)
    start = None if parsed is not None else appended(previous, run, ctx, header_line)
    run.keep_values = _keeps_values(lines, ctx, previous, start)
    region: Region | None = None
    if start is None:
        patched = None
        if parsed is None and partial is None and previous is not None and previous.context == ctx:
            patched = run.patched(ctx, previous)
        if patched is None:
            infos, cache = run.checked(ctx, parsed)
        else:
            infos, cache, region = patched
    else:
        assert previous is not None
        infos, cache = run.checked(ctx, None, start)
        infos = previous.infos[:start] + infos
        cache = {**previous.cache, **cache}
        run.drop(cache, previous.lines[start:], start, len(lines))  # blanks after its last entry
        region = (start, len(infos), len(previous.infos))
    analysis = Analysis(
        split, infos, fmt, version, header_line, path=path, options=options, cache=cache,
        context=ctx, keeps_values=run.keep_values,
    )  # fmt: skip
    changed = _links_changed(analysis, previous)
    grown = None
    if changed is None and start is not None and previous is not None:
        grown = links.grow(analysis, previous, start)
    if changed is not None:
        assert previous is not None
        analysis.tree = previous.tree
        analysis.link_findings = previous.link_findings
        analysis.link_views = previous.link_views
        # what an append extends holds values and spans of the lines, and some line always
        # changed (the header, as the first non-blank line, is checked afresh): drop it
        analysis.link_state = None
    elif grown is not None:
        assert previous is not None
        analysis.tree = grown[0]
        analysis.link_findings, analysis.link_state = links.extend(analysis, previous, grown[1])
    else:
        if previous is not None and _same_tree(analysis, previous):
            analysis.tree = previous.tree
        else:
            analysis.tree = build_tree(infos, fmt, version)
        if _only_unparsed_moved(analysis, previous):
            analysis.link_findings, analysis.link_state = [], None
        else:
            analysis.link_findings, analysis.link_state = links.check(analysis)
    if checks_from is not None:
        found = checks_from(ctx, len(lines))
        if found is None:
            return _analyze(split, path, options, None, progress, cancelled, None, reuse, None)
        for line, issues in found.items():
            infos[line].issues = issues
    lone_leaf = _lone_leaf(analysis.tree, version)
    kept = None
    if region is not None:
        assert previous is not None
        kept = _kept_line_findings(analysis, previous, region, lone_leaf)
    if kept is None:
        kept = line_findings(split, infos, header_line, version, lone_leaf)
    analysis.line_findings = kept
    findings = list(analysis.line_findings)
    findings += header_findings(analysis)
    findings += sizes.check(analysis)
    findings += analysis.link_findings
    findings.sort(key=sort_key)
    analysis.findings = findings
    return analysis


def _kept_line_findings(
    a: Analysis, previous: Analysis, region: Region, lone_leaf: int | None
) -> list[Finding] | None:
    """The line findings of ``a``, made from ``previous`` by checking only the lines of
    ``region``: ``previous``'s are kept for the lines before it and after it (moved by the
    lines it gained or lost), the region's lines are found afresh, and so are the old and
    new lone leaf's (its PI004 says so). None when the header is in the region: a PI101
    elsewhere relates to the header's whole line.

    What else a line's findings read from elsewhere, an edit (:meth:`_LinePass.patched`) and
    an append (:func:`appended`, which has no lines after the region) keep as it was: the
    context (format and version); the header line (for an edit, the first line Python's
    ``strip`` leaves anything of, and the first that parses); the last non-blank line,
    after the region (as far from the end of the text, and ending with a line break in
    both texts or in neither).
    """
    head, end, old_end = region
    if a.header_line is not None and a.header_line >= head:
        return None
    delta = end - old_end
    old_leaf = _lone_leaf(previous.tree, a.version)
    if old_leaf is not None and old_leaf >= old_end:
        old_leaf += delta
    elif old_leaf is not None and old_leaf >= head:
        old_leaf = None  # a line of the region: found afresh with it
    redo = {line for line in (old_leaf, lone_leaf) if line is not None and not head <= line < end}
    out = []
    for f in previous.line_findings:
        line = f.span.line
        if line >= old_end:
            line += delta
        elif line >= head:
            continue  # found afresh
        if line in redo:
            continue
        out.append(f if line == f.span.line else _moved(f, old_end, delta))
    return out + line_findings(
        a.text, a.infos, a.header_line, a.version, lone_leaf, [*sorted(redo), *range(head, end)]
    )


def _moved(f: Finding, at: int, delta: int) -> Finding:
    """``f`` with each of its spans on line ``at`` or later moved down ``delta`` lines."""

    def move(span: Span) -> Span:
        return span._replace(line=span.line + delta) if span.line >= at else span

    related = tuple(r._replace(span=move(r.span)) if r.path is None else r for r in f.related)
    return Finding(f.code, f.severity, move(f.span), f.message, related, f.data)


def _only_unparsed_moved(a: Analysis, previous: Analysis | None) -> bool:
    """Whether ``a`` has no link findings because ``previous`` had none and the two differ
    only in lines ``JSON.parse`` rejects or that are blank (an inserted or removed blank
    line moves every later line).

    Such lines are nobody's entry: pi skips them, so its entries, their order, ids and
    parents and everything sent stay the same, and every link check compares entries by
    their values and their order in the file, never by the distance between their lines
    (v1's ``firstKeptEntryIndex`` counts parsed lines only). So a check of the links of
    ``a`` finds nothing, as it found nothing in ``previous``. The line results of the two
    are told apart by identity, at both ends (C-level passes): a result kept from
    ``previous`` is the same object.
    """
    if (
        previous is None
        or previous.link_findings
        or a.fmt != "pi"
        or previous.context != a.context
        or previous.header_line != a.header_line
    ):
        return False
    new, old = a.infos, previous.infos
    head, tail = identical_ends(new, old)
    if a.header_line is not None and a.header_line >= head:
        return False
    moved = itertools.chain(
        itertools.islice(new, head, len(new) - tail), itertools.islice(old, head, len(old) - tail)
    )
    return not any(info.parsed for info in moved)


def _lone_leaf(tree: Tree, version: int) -> int | None:
    """The leaf, when it is a root of a v2+ session (its PI004 says so)."""
    leaf = tree.leaf
    return leaf if leaf is not None and version >= 2 and tree.parent.get(leaf) is None else None


def _context(run: _LinePass, lines: Lines) -> tuple[str, int, int | None, list[LineInfo] | None]:
    """Format, version and header line; parse results when every line had to be parsed.

    Usually the header is the first line that parses and names its version, and only the
    lines up to it are parsed here; otherwise every line is parsed first (as pi reads the
    whole file before it looks at the header).
    """
    upto = 0
    while upto < len(lines) and not lines[upto].strip():
        upto += 1
    head = run.parse_only(min(upto + 1, len(lines)))
    if head[-1].kind is Kind.HEADER:
        try:
            return (*read_header(head[-1].obj, len(head) - 1, None), None)
        except LookupError:
            pass
    parsed = run.parse_only()
    return (*_detect(parsed), parsed)


def appended(
    previous: Analysis | None, run: _LinePass, ctx: LineRules, header_line: int | None
) -> int | None:
    """The first line to check when the text only grew past ``previous``'s, else None.

    The append path: when ``previous`` was checked under the same context and header,
    and every line of it before its last non-blank line is unchanged (pi appended lines,
    or rewrote a torn last line), only the lines from there on are checked; the others
    keep their results, which are exactly what checking them again would give (a line's
    results depend on its text, the context and whether it is the file's first or last
    non-blank line). ``ctx`` and ``header_line`` must come from the header alone (the
    header is the first non-blank line).
    """
    if (
        previous is None
        or header_line is None
        or previous.context != ctx
        or previous.header_line != header_line
    ):
        return None
    old = previous.lines
    last = len(old) - 1
    while last > header_line and is_blank(old[last]):
        last -= 1
    if last <= header_line or run.last < last:
        return None
    return last if run.lines[:last] == old[:last] else None


def link_facts(info: LineInfo) -> tuple[Any, ...]:
    """Everything about one line that :mod:`pi_lsp.core.checks.links` and :func:`refs.index` read.

    Two lines with equal facts contribute identically to the tree and to the link
    findings. Keep this in step with ``links.py``: a field read there must appear here.
    """
    obj = info.obj
    message = obj.get("message")
    replacement = obj.get("replacement", 0)
    replaced = replacement.get("content") if isinstance(replacement, dict) else None
    checkpoint = obj.get("systemMessage")
    return (
        info.kind,
        info.value is not None,
        # what the context pi sends depends on (pairing.py, context_edits.py, sent.py)
        replacement is None,
        _block_ids(replaced),
        js_truthy(obj.get("summary")),
        _message_facts(message),
        js_truthy(checkpoint) and _message_facts(checkpoint),
        *(
            _tagged(obj.get(key))
            for key in (
                "version",  # the header's: pi migrates (or not) by it (migrate.source_version)
                "type",
                "id",
                "parentId",
                "firstKeptEntryId",
                "firstKeptEntryIndex",
                "targetId",
                "fromId",
                "label",
                "parentSession",
            )
        ),
        "id" in obj,
        "parentId" in obj,
    )


def _message_facts(message: Any) -> tuple[Any, ...] | None:
    """What the links read of a message (an entry's, or a compaction's checkpoint): its
    role, result id, stop reason, exclusion and the position and id of each tool call."""
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    calls: tuple[tuple[int, Any], ...] = ()
    if isinstance(content, list):
        calls = tuple(
            (n, _tagged(block.get("id")))
            for n, block in enumerate(content)
            if isinstance(block, dict) and block.get("type") == "toolCall"
        )
    return (
        _tagged(message.get("role")),
        _tagged(message.get("toolCallId")),
        _tagged(message.get("stopReason")),
        js_truthy(message.get("excludeFromContext")),
        calls,
    )


def _block_ids(content: Any) -> tuple[Any, ...]:
    """The ``(type, id)`` of each block of a content list (tool calls a replacement keeps);
    content of any other kind holds no tool call."""
    if not isinstance(content, list):
        return ()
    return tuple(
        (_tagged(b.get("type")), _tagged(b.get("id"))) if isinstance(b, dict) else None
        for b in content
    )


def _tagged(value: Any) -> tuple[type, Any]:
    """A value with its type, so that ``True``, ``1`` and ``1.0`` stay apart."""
    return (value.__class__, value)


_VALUE_PATH = ("context_edit", "hookMessage")
"""What a session whose context pi builds from the values names (a v2 session's hook
messages are renamed by the migration)."""


def _keeps_values(
    lines: Lines, ctx: LineRules, previous: Analysis | None, start: int | None
) -> bool:
    """Whether the short lines' results keep their values: when pi's context of the session
    is built from them (``context.lean_lines`` is None: a v1 session, a v2 one with a hook
    message, one holding a context edit), which would parse each line again otherwise. A
    line that only names one of them in a text keeps them too (memory, never a result). An
    edit keeps what the last analysis decided; an append looks at the new lines only."""
    if ctx.version == 1:
        return True
    names = _VALUE_PATH if ctx.version == 2 else _VALUE_PATH[:1]
    if previous is not None and previous.context == ctx:
        if previous.keeps_values or start is None:
            return previous.keeps_values
        return _names_any(lines, start, names)
    return _names_any(lines, 0, names)


def _names_any(lines: Lines, start: int, names: tuple[str, ...]) -> bool:
    """Whether a line from ``start`` on holds one of ``names`` (a C-level search of each)."""
    encoded = [name.encode() for name in names]
    for item in itertools.islice(lines.iter_raw(), start, None):
        if isinstance(item, str):
            if any(name in item for name in names):
                return True
        elif any(name in item for name in encoded):
            return True
    return False


def _same_tree(a: Analysis, previous: Analysis) -> bool:
    """Whether :func:`build_tree` of ``a`` would build ``previous``'s tree again: the same
    dialect, both chained (pi's v1) or both linked by ``parentId``, and every line's entry
    kind, id and parent the same (a C-level pass finds the results that are other objects;
    a header change, which checks every line again, keeps most of them)."""
    if (a.fmt, a.version == 1) != (previous.fmt, previous.version == 1):
        return False
    if len(a.infos) != len(previous.infos):
        return False
    old = previous.infos
    for i in itertools.compress(range(len(a.infos)), map(operator.is_not, a.infos, old)):
        new = a.infos[i]
        if (new.kind, new.ident, new.parent) != (old[i].kind, old[i].ident, old[i].parent):
            return False
    return True


def _links_changed(a: Analysis, previous: Analysis | None) -> list[int] | None:
    """The lines whose results changed when ``previous``'s tree and link findings are
    exactly what ``a`` would compute, else None."""
    if (
        previous is None
        or a.fmt != "pi"
        or previous.context != a.context
        or previous.header_line != a.header_line
        or len(previous.infos) != len(a.infos)
    ):
        return None
    # the lines whose result is another object (a C-level pass: an edit runs it over all)
    changed = list(
        itertools.compress(range(len(a.infos)), map(operator.is_not, a.infos, previous.infos))
    )
    if len(changed) > _REUSE_LIMIT:
        return None
    if not changed:
        return changed
    touched: set[int] = set()
    for finding in previous.link_findings:
        touched.add(finding.span.line)
        touched.update(rel.span.line for rel in finding.related if rel.path is None)
    if all(
        i not in touched and link_facts(a.infos[i]) == link_facts(previous.infos[i])
        for i in changed
    ):
        return changed
    return None
