"""``pi-lsp check [PATH ...] [--format text|json|sarif]``: report problems in session files.

Every file is analysed by the same core as the server, and its diagnostics are built by
:mod:`pi_lsp.lsp.wire`, so ``--format json`` prints what the server publishes.
Many files are checked in parallel on all cores.
"""

from __future__ import annotations

import argparse
import functools
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from pi_lsp import __version__
from pi_lsp.core.analysis import analyze
from pi_lsp.core.files import read_lines
from pi_lsp.core.findings import Severity
from pi_lsp.core.jsontext import dumps
from pi_lsp.core.model import Options
from pi_lsp.core.settings import Settings, parse_settings
from pi_lsp.lsp.wire import diagnostics, path_uri

from . import fix
from .batch import add_file_arguments, run_all, targets

SEVERITY_NAMES = {1: "error", 2: "warning", 3: "information", 4: "hint"}


def add_parser(sub: Any) -> None:
    """Register the ``check`` subcommand."""
    p = sub.add_parser("check", help="check session files and report problems")
    add_file_arguments(p)
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    p.add_argument(
        "--severity",
        action="append",
        default=[],
        metavar="CODE=LEVEL",
        help="override a code's severity (error, warning, information, hint, off); repeatable",
    )
    p.add_argument("--large-line", type=int, default=None, metavar="BYTES", help="PI500 threshold")
    fix.add_arguments(p)
    p.set_defaults(run=run)


@dataclass(frozen=True, slots=True)
class FileReport:
    """The result of checking one file: diagnostics as LSP dicts, or an I/O error."""

    path: str
    version: int | None
    diagnostics: list[dict[str, Any]]
    error: str | None = None


def check_file(path: str, settings: Settings) -> FileReport:
    """Analyse one file from disk; never raises for a bad file."""
    try:
        # line by line: never the whole text as one str (up to 4 bytes per character)
        lines = read_lines(Path(path))
    except OSError as exc:
        return FileReport(path, None, [], f"{path}: cannot read: {exc.strerror or exc}")
    analysis = analyze(lines, path=path, options=Options(large_line=settings.large_line))
    findings = settings.apply(analysis.findings)
    version = analysis.version if analysis.header_line is not None else None
    return FileReport(path, version, diagnostics(findings, analysis.lines, path_uri(path)))


def _settings(args: argparse.Namespace) -> Settings | str:
    raw: dict[str, Any] = {"severity": {}}
    for item in args.severity:
        code, sep, level = str(item).partition("=")
        if not sep:
            return f"--severity expects CODE=LEVEL, got {item!r}"
        raw["severity"][code.strip().upper()] = level.strip().lower()
    if args.large_line is not None:
        raw["largeLineThreshold"] = args.large_line
    settings, problems = parse_settings(raw)
    return problems[0] if problems else settings


def run(args: argparse.Namespace) -> int:
    """Check every target and print the report; return the exit status."""
    settings = _settings(args)
    if isinstance(settings, str):
        print(f"pi-lsp check: {settings}", file=sys.stderr)
        return 2
    files = targets(args.paths, "check")
    if files is None:
        return 2
    if fix.wanted(args):
        return fix.run(args, files, run)
    reports = run_all(functools.partial(check_file, settings=settings), [str(p) for p in files], args.jobs)
    out = sys.stdout
    if args.format == "json":
        _print_json(reports, out)
    elif args.format == "sarif":
        _print_sarif(reports, out)
    else:
        _print_text(reports, out)
    io_error = False
    for report in reports:
        if report.error is not None:
            io_error = True
            print(f"pi-lsp check: {report.error}", file=sys.stderr)
    if io_error:
        return 2
    errors = any(d["severity"] == Severity.ERROR for r in reports for d in r.diagnostics)
    return 1 if errors else 0


def _print_text(reports: list[FileReport], out: TextIO) -> None:
    counts = {1: 0, 2: 0, 3: 0, 4: 0}
    for report in reports:
        for d in report.diagnostics:
            start = d["range"]["start"]
            counts[d["severity"]] += 1
            out.write(
                f"{report.path}:{start['line'] + 1}:{start['character'] + 1}: "
                f"{SEVERITY_NAMES[d['severity']]} {d['code']} {d['message']}\n"
            )
    if len(reports) > 1 or any(r.diagnostics for r in reports):
        summary = ", ".join(
            f"{n} {SEVERITY_NAMES[s]}{_plural(n, s)}" for s, n in counts.items() if n
        )
        print(
            f"{len(reports)} file{'s' if len(reports) != 1 else ''} checked: {summary or 'no problems'}",
            file=sys.stderr,
        )


def _print_json(reports: list[FileReport], out: TextIO) -> None:
    files = [
        {"path": r.path, "version": r.version, "diagnostics": r.diagnostics}
        for r in reports
        if r.error is None
    ]
    out.write(dumps({"files": files}, indent=True) + "\n")


_SARIF_LEVEL = {1: "error", 2: "warning", 3: "note", 4: "note"}


def _print_sarif(reports: list[FileReport], out: TextIO) -> None:
    from pi_lsp.core.codes import CODES

    results = []
    used: dict[str, int] = {}
    for report in reports:
        for d in report.diagnostics:
            rng = d["range"]
            used.setdefault(d["code"], len(used))
            results.append(
                {
                    "ruleId": d["code"],
                    "ruleIndex": used[d["code"]],
                    "level": _SARIF_LEVEL[d["severity"]],
                    "message": {"text": d["message"]},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": path_uri(report.path)},
                                "region": {
                                    "startLine": rng["start"]["line"] + 1,
                                    "startColumn": rng["start"]["character"] + 1,
                                    "endLine": rng["end"]["line"] + 1,
                                    "endColumn": rng["end"]["character"] + 1,
                                },
                            }
                        }
                    ],
                }
            )
    rules = [
        {
            "id": code,
            "shortDescription": {"text": CODES[code].title if code in CODES else code},
            "defaultConfiguration": {
                "level": _SARIF_LEVEL[int(CODES[code].severity)] if code in CODES else "warning"
            },
        }
        for code in used
    ]
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "pi-lsp",
                        "version": __version__,
                        "informationUri": "https://github.com/pi-lsp/pi-lsp",
                        "rules": rules,
                    }
                },
                "columnKind": "utf16CodeUnits",
                "results": results,
            }
        ],
    }
    out.write(dumps(sarif, indent=True) + "\n")


def _plural(n: int, severity: int) -> str:
    return "" if n == 1 or severity == Severity.INFORMATION else "s"
