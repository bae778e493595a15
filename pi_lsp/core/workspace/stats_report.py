"""Stats over many session files: forks counted once, date ranges, breakdowns, output.

``/fork`` and ``/clone`` copy entries verbatim (same ``id`` and ``timestamp``) into a new
file. :func:`build` counts such a copy once: in the file created first (its header
``timestamp``; the path breaks ties), so the older session keeps what it spent and a fork
adds only what happened after it was made. Within one file every line counts, as in pi.
Each file's report keeps its copies too, with the file each one is counted in, so that every
output can say what a fork's row leaves out ("152 copied entries counted in X").

Dates are local days; ``since``/``until`` take ``YYYY-MM-DD`` (whole local days, both
inclusive) or an ISO date-time. An entry without a timestamp is left out when a range is
given.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Literal

from ..pi.stats import TOTAL_KEYS, Counted, FileStats, Totals, money, split_by_path, totals

GroupBy = Literal["model", "day", "session", "branch"]
GROUPINGS: tuple[GroupBy, ...] = ("model", "day", "session", "branch")


def parse_bound(text: str, end: bool = False) -> float:
    """Epoch seconds for a ``--since`` (start of the day) or ``--until`` (end of the day).

    Raises ValueError for text that is neither a date nor an ISO date-time.
    """
    text = text.strip()
    if len(text) == 10:
        day = date.fromisoformat(text)
        if end:
            day += timedelta(days=1)
        return datetime(day.year, day.month, day.day).timestamp()
    stamp = datetime.fromisoformat(text)
    return stamp.timestamp()


def local_day(stamp: float | None) -> str:
    """The local date of epoch seconds, ``YYYY-MM-DD`` (``(no date)`` when unknown)."""
    return datetime.fromtimestamp(stamp).date().isoformat() if stamp is not None else "(no date)"


@dataclass(slots=True)
class FileReport:
    """One file's counted entries after fork de-duplication and the date range.

    ``copied`` holds the entries counted in another file instead (an older file holding the
    same entry), each with that file's path.
    """

    stats: FileStats
    kept: list[Counted]
    copied: list[tuple[Counted, str]] = field(default_factory=list)

    @property
    def copies(self) -> int:
        """How many of the file's entries are counted in another file."""
        return len(self.copied)

    def total(self, branch: int | None = None) -> Totals:
        """Totals of the kept entries (of one branch when given)."""
        if branch is None:
            return totals(self.kept)
        return totals([c for c in self.kept if c.branch == branch])

    def counted_in(self, branch: int | None = None) -> list[CountedIn]:
        """Where the copied entries (of one branch when given) are counted, most first."""
        out: dict[str, CountedIn] = {}
        for item, path in self.copied:
            if branch is None or item.branch == branch:
                where = out.setdefault(path, CountedIn(path))
                where.entries += 1
                where.cost += item.usage.cost if item.usage is not None else 0.0
        return sorted(out.values(), key=lambda c: (-c.entries, c.path))


@dataclass(slots=True)
class CountedIn:
    """Copied entries of a file that another file (``path``) counts: how many, what they cost."""

    path: str
    entries: int = 0
    cost: float = 0.0

    def as_json(self) -> dict[str, Any]:
        """``{"path", "entries", "cost"}``."""
        return {"path": self.path, "entries": self.entries, "cost": money(self.cost)}


@dataclass(slots=True)
class Report:
    """Every file's report, in the order the files were given."""

    files: list[FileReport] = field(default_factory=list)

    def total(self) -> Totals:
        """Totals over every file (each forked entry once)."""
        out = Totals()
        for report in self.files:
            for item in report.kept:
                out.add(item)
        return out


def build(files: Sequence[FileStats], since: float | None = None, until: float | None = None) -> Report:
    """Count ``files`` together: copies of another file's entries once, only in the range."""
    order = sorted(
        range(len(files)),
        key=lambda n: (files[n].started is None, files[n].started or 0.0, files[n].path),
    )
    counted_by: dict[tuple[str, str], str] = {}  # an entry's key: the file counting it
    reports: dict[int, FileReport] = {}
    ranged = since is not None or until is not None
    for n in order:
        fs = files[n]
        report = reports[n] = FileReport(fs, [])
        for c in fs.counted:
            if ranged and not _in_range(c.time, since, until):
                continue
            where = counted_by.get(c.key) if c.key is not None else None
            if where is None:
                report.kept.append(c)
            else:
                report.copied.append((c, where))
        for c in fs.counted:
            if c.key is not None:
                counted_by.setdefault(c.key, fs.path)
    return Report([reports[n] for n in range(len(files))])


def _in_range(stamp: float | None, since: float | None, until: float | None) -> bool:
    if stamp is None:
        return False
    return (since is None or stamp >= since) and (until is None or stamp < until)


@dataclass(slots=True)
class Group:
    """One row of a breakdown: its key, extra JSON fields and totals.

    A row of one session file or branch also says where its copied entries are counted
    (``counted_in``; None for rows by model or day, which count no file's copies).
    """

    key: str
    totals: Totals = field(default_factory=Totals)
    extra: dict[str, Any] = field(default_factory=dict)
    counted_in: list[CountedIn] | None = None

    def as_json(self) -> dict[str, Any]:
        """``{"key", ...extra, ...totals}``, then ``copies`` and ``countedIn`` for a file's row."""
        out = {"key": self.key, **self.extra, **self.totals.as_json()}
        if self.counted_in is not None:
            out.update(_copies_json(self.counted_in))
        return out


def _copies_json(counted_in: list[CountedIn]) -> dict[str, Any]:
    return {
        "copies": sum(c.entries for c in counted_in),
        "countedIn": [c.as_json() for c in counted_in],
    }


def _line(line: int | None) -> int | None:
    return None if line is None else line + 1


def _as_is(path: str) -> str:
    return path


def groups(report: Report, by: GroupBy, show: Callable[[str], str] = _as_is) -> list[Group]:
    """The breakdown of ``report`` by model, local day, session file or branch.

    ``show`` gives the path a row's key shows for a file (the ``path`` fields stay whole).
    """
    out: dict[Any, Group] = {}
    if by in ("session", "branch"):
        for fr in report.files:
            fs = fr.stats
            if by == "session":
                out[fs.path] = Group(
                    show(fs.path), fr.total(), {"id": fs.id, "name": fs.name}, fr.counted_in()
                )
                continue
            for b in fs.branches:
                if b.index == 0:
                    where = "active path"
                elif b.forked_at is None:
                    where = f"abandoned from line {b.first_line + 1} (a separate root)"
                else:
                    where = f"abandoned from line {b.first_line + 1} (branching off line {b.forked_at + 1})"
                out[(fs.path, b.index)] = Group(
                    f"{show(fs.path)}: {where}",
                    fr.total(b.index),
                    {
                        "path": fs.path,
                        "branch": "active path" if b.index == 0 else "abandoned",
                        "firstLine": _line(b.first_line),
                        "forkedAtLine": _line(b.forked_at),
                    },
                    fr.counted_in(b.index),
                )
        return list(out.values())
    key: Callable[[Counted], str] = (
        (lambda c: c.model or "(unknown)") if by == "model" else (lambda c: local_day(c.time))
    )
    for fr in report.files:
        for item in fr.kept:
            k = key(item)
            group = out.get(k)
            if group is None:
                group = out[k] = Group(k)
            group.totals.add(item)
    rows = list(out.values())
    if by == "model":
        rows.sort(key=lambda g: (-g.totals.usage.cost, g.key))
    else:
        rows.sort(key=lambda g: g.key)
    return rows


def file_json(fr: FileReport) -> dict[str, Any]:
    """One file of ``stats --format json``: totals (active path, abandoned) and the series."""
    fs = fr.stats
    out: dict[str, Any] = {
        "path": fs.path,
        "id": fs.id,
        "name": fs.name,
        "version": fs.version,
        "parentSession": fs.parent_session,
    }
    if fs.error is not None:
        out["error"] = fs.error
    active, abandoned = split_by_path(fr.kept)
    whole = fr.total()
    out.update(
        {
            **_copies_json(fr.counted_in()),
            "total": whole.as_json(),
            "activePath": active.as_json(),
            "abandoned": abandoned.as_json(),
            "branches": [
                {
                    "index": b.index,
                    "firstLine": _line(b.first_line),
                    "forkedAtLine": _line(b.forked_at),
                    "forkedAtTurn": b.forked_turn,
                    "total": fr.total(b.index).as_json(),
                    **_copies_json(fr.counted_in(b.index)),
                }
                for b in fs.branches
            ],
            "turns": [
                {
                    "line": c.line + 1,
                    "branch": c.branch,
                    "turn": c.turn,
                    "model": c.model,
                    "context": c.context,
                    "cost": money(c.usage.cost) if c.usage is not None else 0,
                    "pathCost": money(c.path_cost),
                }
                for c in fs.counted
                if c.role == "assistant"
            ],
            "compactions": [
                {"line": m.line + 1, "branch": m.branch, "turn": m.turn, "tokensBefore": m.value}
                for m in fs.compactions
            ],
            "branchPoints": [
                {"line": m.line + 1, "branch": m.branch, "turn": m.turn, "children": int(m.value)}
                for m in fs.branch_points
            ],
        }
    )
    return out


def report_json(report: Report, by: GroupBy) -> dict[str, Any]:
    """The document ``stats --format json`` prints: ``{"total", "groups", "files"}``."""
    return {
        "total": report.total().as_json(),
        "by": by,
        "groups": [g.as_json() for g in groups(report, by)],
        "files": [file_json(fr) for fr in report.files],
    }


_HEADINGS = ("user", "assistant", "results", "calls", "input", "output", "cache read", "cache write", "cost")


def _cells(t: Totals) -> list[str]:
    u = t.usage
    numbers = (
        t.user_messages,
        t.assistant_messages,
        t.tool_results,
        t.tool_calls,
        u.input,
        u.output,
        u.cache_read,
        u.cache_write,
    )
    return [f"{n:,.0f}" for n in numbers] + [f"${u.cost:,.4f}"]


def report_text(report: Report, by: GroupBy, show: Callable[[str], str] = _as_is) -> str:
    """A table of the breakdown and the total, for people; ``show`` shortens paths.

    Below the row of a file (or branch) holding copies: how many, what they cost and
    which file counts them.
    """
    found = groups(report, by, show)
    rows = [(g.key, _cells(g.totals)) for g in found]
    rows.append(("total", _cells(report.total())))
    width = max(len(by), *(len(k) for k, _ in rows))
    widths = [max(len(h), *(len(c[i]) for _, c in rows)) for i, h in enumerate(_HEADINGS)]
    lines = [by.ljust(width) + "  " + "  ".join(h.rjust(w) for h, w in zip(_HEADINGS, widths, strict=True))]
    for n, (key, cells) in enumerate(rows):
        if n == len(rows) - 1:
            lines.append("-" * len(lines[0]))
        lines.append(
            key.ljust(width) + "  " + "  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True))
        )
        if n < len(found):
            lines.extend(f"  {_copied_text(c, show)}" for c in found[n].counted_in or ())
    counted = sum(1 for fr in report.files if fr.stats.error is None)
    copies = sum(fr.copies for fr in report.files)
    note = f"{counted} session{'s' if counted != 1 else ''}"
    if copies:
        note += f"; {copies:,} entries copied by /fork or /clone counted once"
    lines.append(note)
    return "\n".join(lines) + "\n"


def _copied_text(c: CountedIn, show: Callable[[str], str]) -> str:
    """``152 copied entries ($0.5500) counted in X``."""
    entries = "entry" if c.entries == 1 else "entries"
    return f"{c.entries:,} copied {entries} (${c.cost:,.4f}) counted in {show(c.path)}"


_COPY_COLUMNS = ("copies", "copiesCost", "countedIn")


def report_csv(report: Report, by: GroupBy) -> str:
    """The breakdown and the total as CSV (one header row, ``total`` last).

    Rows of files or branches end with what their copies are: how many, their cost and the
    files that count them (paths separated by ``; ``).
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    per_file = by in ("session", "branch")
    writer.writerow([by, *TOTAL_KEYS, *(_COPY_COLUMNS if per_file else ())])
    every: list[CountedIn] = []
    for g in groups(report, by):
        copies = _csv_copies(g.counted_in or []) if per_file else []
        writer.writerow([g.key, *_csv_cells(g.totals), *copies])
        every.extend(g.counted_in or ())
    copies = [*_csv_copies(every)[:2], ""] if per_file else []
    writer.writerow(["total", *_csv_cells(report.total()), *copies])
    return buf.getvalue()


def _csv_cells(t: Totals) -> list[Any]:
    data = t.as_json()
    return [data[k] for k in TOTAL_KEYS]


def _csv_copies(counted_in: list[CountedIn]) -> list[Any]:
    return [
        sum(c.entries for c in counted_in),
        money(sum(c.cost for c in counted_in)),
        "; ".join(c.path for c in counted_in),
    ]
