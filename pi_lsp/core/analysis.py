"""Whole-document analysis: lines, format and version, the tree, and every finding.

:func:`analyze` is the one entry point. It is built for documents of hundreds of MB and
for re-analysis after small edits:

- Line-local work (parsing, schema validation, line checks) is cached per line text and
  format context, so re-analysing an edited document only parses and validates the lines
  whose text changed. The context (format and version) is read from the header before the
  lines are checked, so each line is visited once.
- The tree and the link findings are reused from the previous analysis when no changed
  line differs in anything the link analysis reads (:func:`link_facts`) and no link
  finding points into a changed line; otherwise they are recomputed (dictionary work
  over ids, linear in the number of entries).
- Spans inside a line are computed only for findings (:meth:`Analysis.span_of`).
- Lines of :data:`HUGE_LINE` characters or more (embedded images) keep a *slim* parsed
  value: strings longer than :data:`SLIM_KEEP` characters are cut to their first
  :data:`SLIM_KEEP` characters, so a 2 MB base64 string is not held twice (once in the
  text, once parsed). :meth:`Analysis.value` re-parses such a line in full on demand.
- ``cancelled()`` is polled about every MiB of text that is not reused from earlier
  results; when it returns true the analysis stops with :class:`Cancelled`, which
  carries the line results finished so far for the next run to reuse.
- The cyclic garbage collector is paused while an analysis runs (:func:`gc_paused`).
"""

from __future__ import annotations

import contextlib
import gc
import math
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from . import links
from .findings import Finding, Related, Severity, Span, sort_key
from .jsonl import locate
from .jsontext import dumps
from .lines import MIB, Context, Kind, LineInfo, check, glued_entries, is_blank, parse, space_names
from .memo import Views
from .text import SplitText, split_lines
from .tree import Tree

_FILE_NAME = re.compile(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_(.+)\.jsonl")
"""How pi names a session file: ``<ISO time with ':' and '.' as '-'>_<session id>.jsonl``."""

HUGE_LINE = 256 * 1024
"""Lines at least this long (in code points) keep a slim parsed value."""

SLIM_KEEP = 8192
"""In a slim value, strings longer than this keep only their first ``SLIM_KEEP`` characters."""

_TICK = MIB
"""Characters of newly analysed text between two polls of ``cancelled`` / ``progress`` calls."""

_REUSE_LIMIT = 256
"""Above this many changed lines the link analysis is recomputed without comparing facts."""


@dataclass(frozen=True, slots=True)
class Options:
    """Analysis settings that change findings (severity overrides are applied later)."""

    large_line: int = MIB


class Cancelled(Exception):
    """Raised by :func:`analyze` when ``cancelled()`` became true.

    ``partial`` maps the text of every line finished so far to its results under
    ``context``; pass it back as ``partial=`` to the next :func:`analyze` call.
    """

    def __init__(self, context: Context | None, partial: dict[str, LineInfo]) -> None:
        super().__init__("analysis cancelled")
        self.context = context
        self.partial = partial


@dataclass(slots=True)
class Analysis:
    """Everything known about one document.

    ``cache`` maps each line text to its :class:`LineInfo` under ``context`` (the format
    context every line was checked with). ``link_findings`` are the findings of the link
    analysis (also part of ``findings``), kept so the next analysis can reuse them.
    ``views`` memoises views of this analysis; ``link_views`` is shared by successive
    analyses whose lines are at the same positions and agree in every :func:`link_facts`
    (views of the links kept there stay valid).
    """

    text: SplitText
    infos: list[LineInfo]
    fmt: str
    version: int
    header_line: int | None
    tree: Tree
    findings: list[Finding]
    path: str | None = None
    options: Options = field(default_factory=Options)
    cache: dict[str, LineInfo] = field(default_factory=dict, repr=False)
    context: Context | None = None
    link_findings: list[Finding] = field(default_factory=list, repr=False)
    views: Views = field(default_factory=Views, repr=False, compare=False)
    link_views: Views = field(default_factory=Views, repr=False, compare=False)

    @property
    def lines(self) -> list[str]:
        """The document's lines, without terminators."""
        return self.text.lines

    def line_span(self, line: int) -> Span:
        """A span covering the whole text of ``line`` (without leading whitespace)."""
        text = self.text.lines[line]
        start = len(text) - len(text.lstrip())
        return Span(line, start, len(text.rstrip(" \t\r\n")))

    def span_of(self, line: int, path: tuple[str | int, ...], key: bool = False) -> Span:
        """The span of a JSON path inside ``line`` (its key when ``key`` and it exists)."""
        loc = locate(self.text.lines[line], path)
        if key and loc.key is not None and loc.depth == len(path):
            return Span(line, *loc.key)
        return Span(line, *loc.value)

    def entry(self, line: int) -> dict[str, Any]:
        """The parsed object on ``line`` (empty when the line is not an object).

        On a line of :data:`HUGE_LINE` characters or more this is the slim value; see
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
        if info.value is None or len(self.text.lines[line]) < HUGE_LINE:
            return info.value
        return parse(self.text.lines[line]).value

    @property
    def header(self) -> dict[str, Any]:
        """The parsed header, or an empty dict."""
        return self.entry(self.header_line) if self.header_line is not None else {}


def _detect(infos: list[LineInfo]) -> tuple[str, int, int | None]:
    """Find the header (the first line that parses, as pi does) and read format/version."""
    first = next((i for i, info in enumerate(infos) if info.parsed), None)
    header_line = None
    if first is not None and infos[first].kind is Kind.HEADER:
        header_line = first
    else:
        header_line = next((i for i, info in enumerate(infos) if info.kind is Kind.HEADER), None)
    if header_line is None:
        has_ids = any(info.kind is Kind.ENTRY and "id" in info.obj for info in infos)
        return "pi", 3 if has_ids else 1, None
    return _read_header(infos[header_line].obj, header_line, infos)


def whole_number(value: Any) -> int | None:
    """``value`` as an int when JavaScript sees a whole number (``3`` or ``3.0``), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _read_header(
    header: dict[str, Any], header_line: int, infos: list[LineInfo] | None
) -> tuple[str, int, int | None]:
    """Format and version from a header; None for ``infos`` means "not parsed yet".

    Raises LookupError when the version cannot be told without every line (it is not
    an integer: then entries carrying ids decide).
    """
    if header.get("type") == "session_header":
        return "book", 1, header_line
    version = whole_number(header.get("version", 1))
    if version is None:
        if infos is None:
            raise LookupError("version needs every line")
        has_ids = any(info.kind is Kind.ENTRY and "id" in info.obj for info in infos)
        return "pi", 3 if has_ids else 1, header_line
    return "pi", min(max(version, 1), 3), header_line


_SLIM_DEPTH = 64
"""Below this depth a slim value is kept as it is (no recursion on pathological nesting)."""


def _slim(value: Any, depth: int = 0) -> Any:
    """``value`` with every string longer than :data:`SLIM_KEEP` cut to that length."""
    if isinstance(value, str):
        return value[:SLIM_KEEP] if len(value) > SLIM_KEEP else value
    if depth >= _SLIM_DEPTH:
        return value
    if isinstance(value, dict):
        return {k: _slim(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_slim(v, depth + 1) for v in value]
    return value


def _lookup(tables: list[dict[str, LineInfo]], text: str, huge: bool) -> LineInfo | None:
    """A known parse of ``text`` (on a huge line only one without a slim value)."""
    for table in tables:
        found = table.get(text)
        if found is not None and not (huge and found.value is not None):
            return found
    return None


class _Lines:
    """One pass over the lines: parse and check each distinct text once, reusing old results."""

    def __init__(
        self,
        lines: list[str],
        sources: list[tuple[Context | None, dict[str, LineInfo]]],
        cancelled: Callable[[], bool] | None,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        self.lines = lines
        self.sources = sources
        self.cancelled = cancelled
        self.progress = progress
        # pi trims the file's text: the first non-blank line is parsed without leading
        # whitespace (a BOM), and never shares cached results with other lines
        self.first = next((i for i, text in enumerate(lines) if not is_blank(text)), -1)
        self.last = next(
            (i for i in range(len(lines) - 1, -1, -1) if not is_blank(lines[i])), -1
        )

    def edge(self, i: int, text: str) -> LineInfo | None:
        """A fresh parse of the first or last non-blank line (trimmed as pi trims), else None."""
        if i != self.first and i != self.last:
            return None
        return parse(text, first=i == self.first, last=i == self.last)

    def parse_only(self, upto: int | None = None) -> list[LineInfo]:
        """Parse results of the first ``upto`` lines (all by default), unchecked."""
        lines = self.lines if upto is None else self.lines[:upto]
        known = [d for _, d in self.sources]
        out: list[LineInfo] = []
        mine: dict[str, LineInfo] = {}
        budget = _TICK
        for i, text in enumerate(lines):
            edge = self.edge(i, text)
            if edge is not None:
                out.append(edge)
                continue
            info = mine.get(text)
            if info is None:
                info = _lookup(known, text, len(text) >= HUGE_LINE)
                if info is None:
                    info = parse(text)
                    budget -= len(text)
                mine[text] = info
            out.append(info)
            if budget <= 0 and upto is None:
                budget = _TICK
                self._tick(i + 1, len(lines), None, {})
        return out

    def checked(
        self, ctx: Context, parsed: list[LineInfo] | None
    ) -> tuple[list[LineInfo], dict[str, LineInfo]]:
        """Every line checked under ``ctx``; ``parsed`` are full parse results of every line."""
        same = [d for c, d in self.sources if c == ctx]
        other = [d for c, d in self.sources if c != ctx]
        cache: dict[str, LineInfo] = {}
        infos: list[LineInfo] = []
        total = len(self.lines)
        budget = _TICK
        for i, text in enumerate(self.lines):
            edge = parsed[i] if parsed and i in (self.first, self.last) else self.edge(i, text)
            if edge is not None:
                infos.append(self._check(text, ctx, [], edge))
                continue
            info = cache.get(text)
            if info is None:
                for d in same:
                    info = d.get(text)
                    if info is not None:
                        break
                if info is None:
                    info = self._check(text, ctx, other, parsed[i] if parsed else None)
                    budget -= len(text)
                cache[text] = info
            infos.append(info)
            if budget <= 0:
                budget = _TICK
                self._tick(i + 1, total, ctx, cache)
        return infos, cache

    def _tick(self, done: int, total: int, ctx: Context | None, cache: dict[str, LineInfo]) -> None:
        if self.progress is not None:
            self.progress(done, total)
        if self.cancelled is not None and self.cancelled():
            raise Cancelled(ctx, cache)

    @staticmethod
    def _check(
        text: str, ctx: Context, other: list[dict[str, LineInfo]], base: LineInfo | None
    ) -> LineInfo:
        huge = len(text) >= HUGE_LINE
        if base is None:
            base = _lookup(other, text, huge)
        if base is None:
            info = parse(text)
        else:
            info = LineInfo(base.kind, base.value, base.type, base.error, edge_space=base.edge_space)
        info.issues = check(text, info, ctx)
        if huge and info.value is not None:
            info.value = _slim(info.value)
        return info


_gc_lock = threading.Lock()
_gc_users = 0
_gc_resume = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while big acyclic structures are built.

    Parsed JSON, line results, trees and findings hold no reference cycles, yet on a
    500 MB session the collector's repeated passes over their millions of objects cost a
    third of the analysis. Uses from several threads are counted: the collector resumes
    when the last one ends, after moving what was built meanwhile out of the young
    generations in one pass.
    """
    global _gc_users, _gc_resume
    with _gc_lock:
        if _gc_users == 0:
            _gc_resume = gc.isenabled()
            gc.disable()
        _gc_users += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_users -= 1
            if _gc_users == 0 and _gc_resume:
                gc.enable()
                gc.collect(1)


def analyze(
    source: str | SplitText,
    path: str | None = None,
    options: Options | None = None,
    previous: Analysis | None = None,
    progress: Callable[[int, int], None] | None = None,
    *,
    cancelled: Callable[[], bool] | None = None,
    partial: Cancelled | None = None,
) -> Analysis:
    """Analyse a whole document; reuse ``previous``'s results where text is unchanged.

    ``progress(done, total)`` (in lines) is called about every MiB of newly analysed
    text; ``cancelled()`` is polled as often and stops the analysis with :class:`Cancelled`.
    ``partial`` is such an exception from an earlier, superseded run: its finished lines
    are reused too.
    """
    with gc_paused():
        return _analyze(source, path, options, previous, progress, cancelled, partial)


def _analyze(
    source: str | SplitText,
    path: str | None,
    options: Options | None,
    previous: Analysis | None,
    progress: Callable[[int, int], None] | None,
    cancelled: Callable[[], bool] | None,
    partial: Cancelled | None,
) -> Analysis:
    options = options or Options()
    split = split_lines(source) if isinstance(source, str) else source
    lines = split.lines
    sources: list[tuple[Context | None, dict[str, LineInfo]]] = []
    if partial is not None:
        sources.append((partial.context, partial.partial))
    if previous is not None:
        sources.append((previous.context, previous.cache))
    run = _Lines(lines, sources, cancelled, progress)
    fmt, version, header_line, parsed = _context(run, lines)
    ctx = Context(fmt, version, options.large_line)
    infos, cache = run.checked(ctx, parsed)
    analysis = Analysis(
        split, infos, fmt, version, header_line, Tree(), [], path, options, cache, ctx
    )
    if _links_reusable(analysis, previous):
        assert previous is not None
        analysis.tree = previous.tree
        analysis.link_findings = previous.link_findings
        analysis.link_views = previous.link_views
    else:
        analysis.tree = links.build_tree(infos, fmt, version, header_line)
        links.check(analysis)
        analysis.link_findings = analysis.findings
        analysis.findings = []
    findings = analysis.findings
    tree = analysis.tree
    leaf = tree.leaf
    lone_leaf = leaf if leaf is not None and version >= 2 and tree.parent.get(leaf) is None else None
    _line_findings(split, infos, header_line, version, lone_leaf, findings)
    _header_findings(analysis)
    findings.extend(analysis.link_findings)
    findings.sort(key=sort_key)
    return analysis


def _context(run: _Lines, lines: list[str]) -> tuple[str, int, int | None, list[LineInfo] | None]:
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
            return (*_read_header(head[-1].obj, len(head) - 1, None), None)
        except LookupError:
            pass
    parsed = run.parse_only()
    return (*_detect(parsed), parsed)


def link_facts(info: LineInfo) -> tuple[Any, ...]:
    """Everything about one line that :mod:`pi_lsp.core.links` and :func:`refs.index` read.

    Two lines with equal facts contribute identically to the tree and to the link
    findings. Keep this in step with ``links.py``: a field read there must appear here.
    """
    obj = info.obj
    message = obj.get("message")
    role = call_id = stop = None
    calls: tuple[tuple[int, Any], ...] = ()
    if isinstance(message, dict):
        role, call_id, stop = (
            _tagged(message.get("role")),
            _tagged(message.get("toolCallId")),
            _tagged(message.get("stopReason")),
        )
        content = message.get("content")
        if isinstance(content, list):
            calls = tuple(
                (n, _tagged(block.get("id")))
                for n, block in enumerate(content)
                if isinstance(block, dict) and block.get("type") == "toolCall"
            )
    replacement = obj.get("replacement", 0)
    replaced = replacement.get("content") if isinstance(replacement, dict) else None
    return (
        info.kind,
        info.value is not None,
        isinstance(message, dict),
        # what the context pi sends depends on (pairing.py, context_edits.py)
        replacement is None,
        _block_ids(replaced),
        isinstance(message, dict) and bool(message.get("excludeFromContext")),
        bool(obj.get("summary")),
        "systemMessage" in obj,
        *(
            _tagged(obj.get(key))
            for key in (
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
        role,
        call_id,
        stop,
        calls,
    )


def _block_ids(content: Any) -> tuple[Any, ...]:
    """The ``(type, id)`` of each block of a content list (tool calls a replacement keeps)."""
    if not isinstance(content, list):
        return ("text",) if isinstance(content, str) else ()
    return tuple(
        (_tagged(b.get("type")), _tagged(b.get("id"))) if isinstance(b, dict) else None
        for b in content
    )


def _tagged(value: Any) -> tuple[type, Any]:
    """A value with its type, so that ``True``, ``1`` and ``1.0`` stay apart."""
    return (value.__class__, value)


def _links_reusable(a: Analysis, previous: Analysis | None) -> bool:
    """True when ``previous``'s tree and link findings are exactly what ``a`` would compute."""
    if (
        previous is None
        or a.fmt != "pi"
        or previous.context != a.context
        or previous.header_line != a.header_line
        or len(previous.infos) != len(a.infos)
    ):
        return False
    changed = []
    for i, (new, old) in enumerate(zip(a.infos, previous.infos, strict=True)):
        if new is not old:
            changed.append(i)
            if len(changed) > _REUSE_LIMIT:
                return False
    if not changed:
        return True
    touched: set[int] = set()
    for finding in previous.link_findings:
        touched.add(finding.span.line)
        touched.update(rel.span.line for rel in finding.related if rel.path is None)
    return all(
        i not in touched and link_facts(a.infos[i]) == link_facts(previous.infos[i])
        for i in changed
    )


def _line_findings(
    split: SplitText,
    infos: list[LineInfo],
    header_line: int | None,
    version: int,
    lone_leaf: int | None,
    out: list[Finding],
) -> None:
    """Findings of single lines; ``lone_leaf`` is the leaf when it has no parent (a root)."""
    lines = split.lines
    last_content = len(infos) - 1
    while last_content >= 0 and infos[last_content].kind is Kind.BLANK:
        last_content -= 1
    blank, invalid, header, entry = Kind.BLANK, Kind.INVALID, Kind.HEADER, Kind.ENTRY
    first = next((i for i, info in enumerate(infos) if info.parsed), -1)
    for i, info in enumerate(infos):
        kind = info.kind
        if kind is entry and not info.issues:
            continue
        for issue in info.issues:
            message = issue.message
            if issue.code == "PI004" and i == lone_leaf:
                message = (
                    f"unknown entry type '{info.type}' for this format; pi keeps the line, and "
                    "as the last entry with no parent it is where pi resumes: the path from it "
                    "holds only this entry, which pi does not send, so pi resumes with an "
                    "empty context"
                )
            out.append(
                Finding(
                    issue.code,
                    issue.severity,
                    Span(i, issue.start, issue.end),
                    message,
                    data=issue.data,
                )
            )
        if kind is blank:
            if i < last_content:
                out.append(
                    Finding(
                        "PI005",
                        Severity.INFORMATION,
                        Span(i, 0, len(lines[i])),
                        "blank line inside the file; pi skips it",
                    )
                )
        elif kind is invalid and info.error is not None:
            last = i == last_content
            unterminated = last and split.terminators[i] == ""
            out.append(_syntax_finding(lines[i], i, info, last, unterminated, version))
        elif kind is header and header_line is not None and (i != header_line or i != first):
            span = Span(i, *locate(lines[i], ("type",)).value)
            if i == header_line:
                message = (
                    "a session header after other lines; pi reads the first line that parses "
                    f"(line {first + 1}) as the header, and that is no session header"
                )
                related = (Related(Span(first, 0, len(lines[first])), "the first line"),)
            else:
                message = (
                    "a second session header inside the file; pi ignores it (only the first "
                    "header counts), so the session it was meant to start is merged into this one"
                )
                related = (Related(Span(header_line, 0, len(lines[header_line])), "the session header"),)
            out.append(Finding("PI101", Severity.ERROR, span, message, related))


def _syntax_finding(
    text: str, line: int, info: LineInfo, is_last: bool, unterminated: bool, version: int
) -> Finding:
    assert info.error is not None
    error = info.error
    end = len(text.rstrip(" \t\r\n"))
    if info.edge_space is not None:
        return _edge_space_finding(text, line, info.edge_space)
    if is_last and error.at_end and text.lstrip().startswith("{"):
        message = (
            "last line is cut off mid-object (the writer stopped before finishing it); pi "
            "skips it, so this entry is lost"
        )
        if unterminated:
            message += (
                "; pi 1.6 (since 0.84.4) starts the next entry on a new line, while older "
                "releases appended it to this line and lost it too"
            )
        return Finding("PI002", Severity.ERROR, Span(line, 0, end), message)
    bad = text[error.offset : error.offset + 1]
    glued = glued_entries(text)
    if bad and 0xDC80 <= ord(bad) <= 0xDCFF:
        message = (
            f"invalid UTF-8 (byte 0x{ord(bad) - 0xDC00:02X}); pi decodes it as U+FFFD and "
            "skips the line if that breaks the JSON"
        )
    elif glued is not None:
        message = _glued_message(glued, version)
    else:
        message = f"line is not valid JSON ({error.message}); pi skips this line"
    start = min(error.offset, max(end - 1, 0)) if end else 0
    return Finding(
        "PI001", Severity.ERROR, Span(line, start, max(end, start + 1) if end else 0), message
    )


def _edge_space_finding(text: str, line: int, space: tuple[int, int]) -> Finding:
    """A line pi 1.6 skips for whitespace at the file's edge that pi 0.73 trimmed off."""
    where = "before the JSON at the start" if space[0] == 0 else "after the JSON at the end"
    return Finding(
        "PI001",
        Severity.ERROR,
        Span(line, *space),
        f"line is not valid JSON as pi 1.6 reads it: {space_names(text[space[0] : space[1]])} "
        f"{where} of the file; pi 1.6 gives each line to JSON.parse as it is, which rejects "
        "it, so pi skips this line and the entry is lost; pi 0.73 trimmed the whole file and "
        "read it",
    )


_GLUE_RELEASES = " (releases before 0.84.4 did; pi 1.6 adds the missing newline first)"


def _glued_message(pieces: list[tuple[int, bool]], version: int) -> str:
    """What pi does with a line holding several entries glued together."""
    complete = sum(1 for _, whole in pieces if whole)
    if complete == len(pieces):
        what = (
            f"{len(pieces)} JSON objects glued together on one line: pi wrote an entry without "
            "its line break (it crashed mid-write, or the file lacked its final newline) and "
            f"appended the next one to it{_GLUE_RELEASES}"
        )
    else:
        what = (
            f"{len(pieces) - complete} entr{'y' if len(pieces) - complete == 1 else 'ies'} cut "
            f"off mid-write with {complete} complete one{'' if complete == 1 else 's'} glued "
            "after it: pi crashed while writing and appended the next entry to the same "
            f"line{_GLUE_RELEASES}"
        )
    message = (
        f"line is not valid JSON: {what}; JSON.parse rejects the whole line, so pi skips it and "
        f"{'both' if len(pieces) == 2 else 'all'} entries are lost"
    )
    if version < 3:
        return (
            message + f"; when pi migrates this v{version} session it rewrites the file "
            "without this line, so they are lost for good"
        )
    return message + " (they are still in the file: splitting the line restores them)"


_NO_HEADER = (
    "pi 1.6 (since 0.80.3) leaves the session out of /resume and refuses to open the file (\"not "
    "a valid pi session\"), leaving it untouched; pi 0.73 treated the file as empty and "
    "overwrote it with a new session, losing everything"
)
"""What pi does with a non-empty file whose first parsed line is not a header with a string id."""


def _header_findings(a: Analysis) -> None:
    lines = a.text.lines
    first = next((i for i, info in enumerate(a.infos) if info.parsed), None)
    if first is None:
        if any(info.kind is not Kind.BLANK for info in a.infos):
            line = next(i for i, info in enumerate(a.infos) if info.kind is not Kind.BLANK)
            a.findings.append(
                Finding(
                    "PI100",
                    Severity.ERROR,
                    Span(line, 0, len(lines[line])),
                    f"no line of this file parses, so there is no session header; {_NO_HEADER}",
                )
            )
        return
    if a.header_line != first:
        a.findings.append(
            Finding(
                "PI100",
                Severity.ERROR,
                a.line_span(first),
                'the first line that parses is not a session header ({"type":"session",...}); '
                + _NO_HEADER,
            )
        )
        return
    header = a.header
    hl = a.header_line
    assert hl is not None
    if a.fmt == "pi" and not isinstance(header.get("id"), str):
        a.findings.append(
            Finding(
                "PI100",
                Severity.ERROR,
                a.span_of(hl, ("id",)) if "id" in header else a.span_of(hl, ("type",)),
                f"the session header has no string 'id'; {_NO_HEADER}",
            )
        )
    if a.fmt != "pi":
        return
    _version_findings(a, hl, header)
    _file_name_finding(a, hl, header)


def _version_findings(a: Analysis, hl: int, header: dict[str, Any]) -> None:
    raw = header.get("version")
    has_version = "version" in header
    version_span = a.span_of(hl, ("version",)) if has_version else a.span_of(hl, ("type",))
    number = whole_number(raw)
    if has_version and (number is None or number < 1):
        a.findings.append(
            Finding(
                "PI102",
                Severity.ERROR,
                version_span,
                f"unsupported session version {clip_json(raw)} (expected an integer 1-3); "
                f"{_js_migration(raw)}",
            )
        )
        return
    if number is not None and number > 3:
        a.findings.append(
            Finding(
                "PI102",
                Severity.WARNING,
                version_span,
                f"session version {number} is newer than this checker knows (3); pi 0.73 "
                "loads it without migration; checked as v3",
            )
        )
        return
    if a.version < 3:
        a.findings.append(
            Finding(
                "PI103",
                Severity.WARNING,
                version_span,
                f"session is v{a.version}, not migrated to v3; pi migrates it when it opens the "
                "session and rewrites the whole file"
                + (" with new random ids" if a.version == 1 else "")
                + " (quick fix: migrate)",
                data={"version": a.version},
            )
        )
    if a.version == 1:
        with_ids = [
            i for i in a.tree.entries if "id" in a.infos[i].obj or "parentId" in a.infos[i].obj
        ]
        if with_ids:
            a.findings.append(
                Finding(
                    "PI303",
                    Severity.WARNING,
                    version_span,
                    f"header says v1 but {len(with_ids)} entries carry ids (half-migrated); pi "
                    "will migrate again and replace every id and parent link",
                    (Related(a.span_of(with_ids[0], ("id",)), "first entry with an id"),),
                    data={"entries": len(with_ids)},
                )
            )


def clip_json(value: Any, limit: int = 60) -> str:
    """A value as JSON text for a message (what the user wrote, not Python's repr), clipped."""
    text = dumps(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _js_number(value: Any) -> float:
    """JavaScript's numeric coercion of a header version (``null`` counts as 1, via ``??``)."""
    if value is None:
        return 1.0
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return 0.0
        try:
            return float(text)
        except ValueError:
            return math.nan
    return math.nan


def _js_migration(raw: Any) -> str:
    """What pi 0.73's ``version >= 3`` / ``< 2`` / ``< 3`` tests do with an odd version."""
    number = _js_number(raw)
    if number >= 3:
        return "pi compares it as a number, reads it as v3 and does not migrate"
    if number < 2:
        return "pi compares it as a number and migrates the file as v1, replacing every id and parent link"
    if number < 3:
        return "pi compares it as a number and migrates the file as v2 (renaming hookMessage)"
    return "pi cannot compare it with a number and neither migrates nor rejects the file"


def _file_name_finding(a: Analysis, hl: int, header: dict[str, Any]) -> None:
    """PI104: the id in a file name of pi's form is not the header id, exactly.

    pi names a file after the header id verbatim, and finds sessions by the header id only,
    case-sensitively (``findById`` compares ``header.id !== id``; ``--session`` prefixes
    use ``startsWith``). So any difference, case included, means the id a user reads off
    the file name does not find the session. A name not in pi's form says nothing.
    """
    if a.path is None:
        return
    m = _FILE_NAME.fullmatch(PurePath(a.path).name)
    ident = header.get("id")
    if m and isinstance(ident, str) and m.group(1) != ident:
        named = m.group(1)
        case = " (they differ only in letter case)" if named.lower() == ident.lower() else ""
        found = "finds this file only as a prefix" if ident.startswith(named) else "does not find this file"
        a.findings.append(
            Finding(
                "PI104",
                Severity.HINT,
                a.span_of(hl, ("id",)),
                f"file name says session '{named}' but the header id is '{ident}'{case}; pi names "
                "files after the header id and finds sessions by it alone, case-sensitively, so "
                f"`pi --session {named}` {found}",
            )
        )
