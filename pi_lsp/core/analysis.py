"""Whole-document analysis: lines, format and version, the tree, and every finding.

:func:`analyze` is the one entry point. Line-local work (parsing, schema validation)
is cached per line text, so re-analysing an edited document only parses and validates
the lines whose text changed; the link analysis over the tree is recomputed, which is
dictionary work over ids.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from . import links
from .findings import Finding, Related, Severity, Span, sort_key
from .jsonl import locate
from .lines import MIB, Context, Kind, LineInfo, check, parse
from .text import SplitText, split_lines
from .tree import Tree

_FILE_UUID = re.compile(
    r"_([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$"
)


@dataclass(frozen=True, slots=True)
class Options:
    """Analysis settings that change findings (severity overrides are applied later)."""

    large_line: int = MIB


@dataclass(slots=True)
class Analysis:
    """Everything known about one document."""

    text: SplitText
    infos: list[LineInfo]
    fmt: str
    version: int
    header_line: int | None
    tree: Tree
    findings: list[Finding]
    path: str | None = None
    options: Options = field(default_factory=Options)
    cache: dict[tuple[Context, str], LineInfo] = field(default_factory=dict, repr=False)

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
        """The parsed object on ``line`` (empty when the line is not an object)."""
        if 0 <= line < len(self.infos):
            return self.infos[line].obj
        return {}

    @property
    def header(self) -> dict[str, Any]:
        """The parsed header, or an empty dict."""
        return self.entry(self.header_line) if self.header_line is not None else {}


def _detect(infos: list[LineInfo]) -> tuple[str, int, int | None]:
    """Find the header (the first line that parses, as pi does) and read format/version."""
    first = next((i for i, info in enumerate(infos) if info.value is not None), None)
    header_line = None
    if first is not None and infos[first].kind is Kind.HEADER:
        header_line = first
    else:
        header_line = next((i for i, info in enumerate(infos) if info.kind is Kind.HEADER), None)
    if header_line is None:
        has_ids = any(info.kind is Kind.ENTRY and "id" in info.obj for info in infos)
        return "pi", 3 if has_ids else 1, None
    header = infos[header_line].obj
    if header.get("type") == "session_header":
        return "book", 1, header_line
    version = header.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int):
        has_ids = any(info.kind is Kind.ENTRY and "id" in info.obj for info in infos)
        return "pi", 3 if has_ids else 1, header_line
    return "pi", min(max(version, 1), 3), header_line


def analyze(
    source: str | SplitText,
    path: str | None = None,
    options: Options | None = None,
    previous: Analysis | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """Analyse a whole document; reuse ``previous``'s per-line results where text is unchanged.

    ``progress(done, total)`` is called every few thousand lines during line analysis.
    """
    options = options or Options()
    split = split_lines(source) if isinstance(source, str) else source
    old_cache = previous.cache if previous is not None else {}
    old_parse: dict[str, LineInfo] = {}
    if previous is not None:
        old_parse = {text: info for (_, text), info in previous.cache.items()}
    lines = split.lines
    total = len(lines)
    parsed: list[LineInfo] = []
    for i, text in enumerate(lines):
        cached = old_parse.get(text)
        parsed.append(cached if cached is not None else parse(text))
        if progress is not None and i % 5000 == 4999:
            progress(i + 1, 2 * total)
    fmt, version, header_line = _detect(parsed)
    ctx = Context(fmt, version, options.large_line)
    cache: dict[tuple[Context, str], LineInfo] = {}
    infos: list[LineInfo] = []
    for i, text in enumerate(lines):
        key = (ctx, text)
        info = cache.get(key) or old_cache.get(key)
        if info is None:
            base = parsed[i]
            info = LineInfo(base.kind, base.value, base.type, base.error)
            info.issues = check(text, info, ctx)
        cache[key] = info
        infos.append(info)
        if progress is not None and i % 5000 == 4999:
            progress(total + i + 1, 2 * total)
    findings: list[Finding] = []
    _line_findings(split, infos, header_line, findings)
    tree = links.build_tree(infos, fmt, version, header_line)
    analysis = Analysis(
        split, infos, fmt, version, header_line, tree, findings, path, options, cache
    )
    _header_findings(analysis)
    links.check(analysis)
    findings.sort(key=sort_key)
    return analysis


def _line_findings(
    split: SplitText, infos: list[LineInfo], header_line: int | None, out: list[Finding]
) -> None:
    lines = split.lines
    last_content = max(
        (i for i, info in enumerate(infos) if info.kind is not Kind.BLANK), default=-1
    )
    for i, info in enumerate(infos):
        for issue in info.issues:
            out.append(
                Finding(
                    issue.code,
                    issue.severity,
                    Span(i, issue.start, issue.end),
                    issue.message,
                    data=issue.data,
                )
            )
        if info.kind is Kind.BLANK:
            if i < last_content:
                out.append(
                    Finding(
                        "PI005",
                        Severity.INFORMATION,
                        Span(i, 0, len(lines[i])),
                        "blank line inside the file; pi skips it",
                    )
                )
        elif info.kind is Kind.INVALID and info.error is not None:
            out.append(_syntax_finding(lines[i], i, info, i == last_content))
        elif info.kind is Kind.HEADER and header_line is not None and i != header_line:
            span = Span(i, *locate(lines[i], ("type",)).value)
            out.append(
                Finding(
                    "PI101",
                    Severity.ERROR,
                    span,
                    "a second session header inside the file; pi ignores it (only the first "
                    "header counts), so the session it was meant to start is merged into this one",
                    (Related(Span(header_line, 0, len(lines[header_line])), "the session header"),),
                )
            )


def _syntax_finding(text: str, line: int, info: LineInfo, is_last: bool) -> Finding:
    assert info.error is not None
    error = info.error
    end = len(text.rstrip(" \t\r\n"))
    if is_last and error.at_end and text.lstrip().startswith("{"):
        return Finding(
            "PI002",
            Severity.ERROR,
            Span(line, 0, end),
            "last line is cut off mid-object (the writer stopped before finishing it); pi "
            "skips it, so this entry is lost",
        )
    bad = text[error.offset : error.offset + 1]
    if bad and 0xDC80 <= ord(bad) <= 0xDCFF:
        message = (
            f"invalid UTF-8 (byte 0x{ord(bad) - 0xDC00:02X}); pi decodes it as U+FFFD and "
            "skips the line if that breaks the JSON"
        )
    else:
        message = f"line is not valid JSON ({error.message}); pi skips this line"
    start = min(error.offset, max(end - 1, 0)) if end else 0
    return Finding(
        "PI001", Severity.ERROR, Span(line, start, max(end, start + 1) if end else 0), message
    )


def _header_findings(a: Analysis) -> None:
    lines = a.text.lines
    first = next((i for i, info in enumerate(a.infos) if info.value is not None), None)
    if first is None:
        if any(info.kind is not Kind.BLANK for info in a.infos):
            line = next(i for i, info in enumerate(a.infos) if info.kind is not Kind.BLANK)
            a.findings.append(
                Finding(
                    "PI100",
                    Severity.ERROR,
                    Span(line, 0, len(lines[line])),
                    "no line of this file parses, so there is no session header; pi refuses the file",
                )
            )
        return
    if a.header_line != first:
        a.findings.append(
            Finding(
                "PI100",
                Severity.ERROR,
                a.line_span(first),
                'the first line is not a session header ({"type":"session",...}); pi refuses '
                "to load this file",
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
                "the session header has no string 'id'; pi refuses to load this file",
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
    if has_version and (isinstance(raw, bool) or not isinstance(raw, int) or raw < 1):
        a.findings.append(
            Finding(
                "PI102",
                Severity.ERROR,
                version_span,
                f"unsupported session version {raw!r} (expected an integer 1-3); pi skips "
                "migration and reads the entries as they are",
            )
        )
        return
    if isinstance(raw, int) and raw > 3:
        a.findings.append(
            Finding(
                "PI102",
                Severity.WARNING,
                version_span,
                f"session version {raw} is newer than this checker knows (3); checked as v3",
            )
        )
        return
    if a.version < 3:
        a.findings.append(
            Finding(
                "PI103",
                Severity.WARNING,
                version_span,
                f"session is v{a.version}, not migrated to v3; pi migrates it in memory on every "
                "load and rewrites the file (quick fix: migrate)",
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


def _file_name_finding(a: Analysis, hl: int, header: dict[str, Any]) -> None:
    if a.path is None:
        return
    m = _FILE_UUID.search(PurePath(a.path).name)
    ident = header.get("id")
    if m and isinstance(ident, str) and m.group(1).lower() != ident.lower():
        a.findings.append(
            Finding(
                "PI104",
                Severity.HINT,
                a.span_of(hl, ("id",)),
                f"file name says session {m.group(1)} but the header id is {ident}; pi lists the "
                "session by the header id",
            )
        )
