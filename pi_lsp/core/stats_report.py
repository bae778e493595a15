"""Stats over many session files: forks counted once, date ranges, breakdowns, output.

``/fork`` and ``/clone`` copy entries verbatim (same ``id`` and ``timestamp``) into a new
file. :func:`build` counts such a copy once: in the file created first (its header
``timestamp``; the path breaks ties), so the older session keeps what it spent and a fork
adds only what happened after it was made. Within one file every line counts, as in pi.

Dates are local days; ``since``/``until`` take ``YYYY-MM-DD`` (whole local days, both
inclusive) or an ISO date-time. An entry without a timestamp is left out when a range is
given.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Literal

from .stats import TOTAL_KEYS, Counted, FileStats, Totals, split_by_path, totals

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
    """One file's counted entries after fork de-duplication and the date range."""

    stats: FileStats
    kept: list[Counted]
    copies: int

    def total(self, branch: int | None = None) -> Totals:
        """Totals of the kept entries (of one branch when given)."""
        if branch is None:
            return totals(self.kept)
        return totals([c for c in self.kept if c.branch == branch])


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
    seen: set[tuple[str, str]] = set()
    reports: dict[int, FileReport] = {}
    for n in order:
        fs = files[n]
        own = [c for c in fs.counted if c.key is None or c.key not in seen]
        copies = len(fs.counted) - len(own)
        seen.update(c.key for c in fs.counted if c.key is not None)
        if since is not None or until is not None:
            own = [c for c in own if _in_range(c.time, since, until)]
        reports[n] = FileReport(fs, own, copies)
    return Report([reports[n] for n in range(len(files))])


def _in_range(stamp: float | None, since: float | None, until: float | None) -> bool:
    if stamp is None:
        return False
    return (since is None or stamp >= since) and (until is None or stamp < until)


@dataclass(slots=True)
class Group:
    """One row of a breakdown: its key, extra JSON fields and totals."""

    key: str
    totals: Totals = field(default_factory=Totals)
    extra: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """``{"key", ...extra, ...totals}``."""
        return {"key": self.key, **self.extra, **self.totals.as_json()}


def _line(line: int | None) -> int | None:
    return None if line is None else line + 1


def groups(report: Report, by: GroupBy) -> list[Group]:
    """The breakdown of ``report`` by model, local day, session file or branch."""
    out: dict[Any, Group] = {}
    if by in ("session", "branch"):
        for fr in report.files:
            fs = fr.stats
            if by == "session":
                out[fs.path] = Group(fs.path, fr.total(), {"id": fs.id, "name": fs.name})
                continue
            for b in fs.branches:
                if b.index == 0:
                    where = "active path"
                elif b.forked_at is None:
                    where = f"abandoned from line {b.first_line + 1} (a separate root)"
                else:
                    where = f"abandoned from line {b.first_line + 1} (branching off line {b.forked_at + 1})"
                out[(fs.path, b.index)] = Group(
                    f"{fs.path}: {where}",
                    fr.total(b.index),
                    {
                        "path": fs.path,
                        "branch": "active path" if b.index == 0 else "abandoned",
                        "firstLine": _line(b.first_line),
                        "forkedAtLine": _line(b.forked_at),
                    },
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
            "copies": fr.copies,
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
                    "cost": c.usage.cost if c.usage is not None else 0,
                    "pathCost": c.path_cost,
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


def report_text(report: Report, by: GroupBy) -> str:
    """A table of the breakdown and the total, for people."""
    rows = [(g.key, _cells(g.totals)) for g in groups(report, by)]
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
    counted = sum(1 for fr in report.files if fr.stats.error is None)
    copies = sum(fr.copies for fr in report.files)
    note = f"{counted} session{'s' if counted != 1 else ''}"
    if copies:
        note += f"; {copies:,} entries copied by /fork or /clone counted once"
    lines.append(note)
    return "\n".join(lines) + "\n"


def report_csv(report: Report, by: GroupBy) -> str:
    """The breakdown and the total as CSV (one header row, ``total`` last)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([by, *TOTAL_KEYS])
    rows: Iterable[tuple[str, Totals]] = [(g.key, g.totals) for g in groups(report, by)]
    for key, t in [*rows, ("total", report.total())]:
        data = t.as_json()
        writer.writerow([key, *(data[k] for k in TOTAL_KEYS)])
    return buf.getvalue()
