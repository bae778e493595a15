"""``pi-lsp check [PATH ...]``: report problems in session files.

Every file is analysed by the same core as the server, and its diagnostics are built by
:mod:`pi_lsp.lsp.wire`, so ``--format json`` prints what the server publishes.
Settings come from ``pi-lsp.toml`` files (:mod:`pi_lsp.core.workspace.config_file`: the user's, then
the nearest one above each checked file) with the options on top. Many files are checked
in parallel (:mod:`pi_lsp.cli.batch`). Exit status: 0 no errors (or ``--exit-zero``), 1 errors found, 2 usage error,
a configuration file in error, or a PATH that could not be read (the others are still
checked and reported).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from pi_lsp.core.checks import helper
from pi_lsp.core.checks.analysis import analyze, analyze_file
from pi_lsp.core.checks.gcpause import gc_paused
from pi_lsp.core.entries.model import Analysis, Options
from pi_lsp.core.text.codes import CODES
from pi_lsp.core.text.files import cannot_read, decode
from pi_lsp.core.text.findings import Severity
from pi_lsp.core.text.jsontext import dumps
from pi_lsp.core.text.lineindex import split_lines
from pi_lsp.core.workspace.config_file import ConfigError, layered_settings
from pi_lsp.core.workspace.settings import Settings, parse_settings
from pi_lsp.lsp import wire

from .. import fix, sarif
from ..batch import add_file_arguments, in_process, named_or_default, run_all
from ..paths import STDIN, Shown, Targets, resolve
from ..pipes import quiet_broken_pipe
from ..terminal import COLOR_CHOICES, Style, counted, use_color

SEVERITY_NAMES = {1: "error", 2: "warning", 3: "information", 4: "hint"}
_SEVERITY_STYLE = {1: "red", 2: "yellow", 3: "blue", 4: "cyan"}
_PLURALS = {3: "information"}
_OPTION_OF = {
    "severity": "--severity",
    "select": "--select",
    "ignore": "--ignore",
    "largeLineThreshold": "--large-line",
}


def add_parser(sub: Any) -> None:
    """Register the ``check`` subcommand."""
    p = sub.add_parser(
        "check",
        description="Check pi session files and report problems. Settings come from "
        "pi-lsp.toml (the user's, then the nearest one above each file); options win.",
    )
    add_file_arguments(p)
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    p.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="CODES",
        help="report only these codes or code prefixes (comma-separated, e.g. PI4,PI001)",
    )
    p.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="CODES",
        help="do not report these codes or code prefixes (comma-separated)",
    )
    p.add_argument(
        "--severity",
        action="append",
        default=[],
        metavar="CODE=LEVEL",
        help="report a code or code prefix as error, warning (warn), information (info), "
        "hint or off; repeatable",
    )
    p.add_argument("--large-line", type=int, default=None, metavar="BYTES", help="PI500 threshold")
    p.add_argument(
        "--isolated", action="store_true", help="ignore pi-lsp.toml files (options only)"
    )
    p.add_argument(
        "--statistics", action="store_true", help="print how often each code was found instead"
    )
    p.add_argument(
        "-q", "--quiet", action="store_true", help="print the diagnostics only: no summary"
    )
    p.add_argument(
        "--color",
        choices=COLOR_CHOICES,
        default="auto",
        help="colour the text output (auto: on a terminal, unless NO_COLOR is set)",
    )
    p.add_argument(
        "-o", "--output-file", type=Path, metavar="FILE", help="write the report to FILE"
    )
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when errors are found")
    p.add_argument(
        "--stdin-filename",
        metavar="NAME",
        help="the name to report (and to look up pi-lsp.toml from) for - (standard input)",
    )
    fix.add_arguments(p)
    p.set_defaults(run=run)


class FileReport(NamedTuple):
    """The result of checking one file: diagnostics as LSP dicts, or an I/O error."""

    path: str
    version: int | None
    diagnostics: list[dict[str, Any]]
    error: str | None = None
    uri: str = ""


def check_file(path: str, settings: Settings, helped: bool = False) -> FileReport:
    """Analyse one file from disk; never raises for a bad file. ``helped``: a large file's
    lines may be checked on another core (:mod:`pi_lsp.core.checks.helper`)."""
    options = Options(large_line=settings.large_line)
    aide = helper.start(path, options) if helped else None
    try:
        with aide or contextlib.nullcontext():
            checks_from = aide.issues if aide is not None else None
            analysis = analyze_file(path, options, reuse=False, checks_from=checks_from)
    except OSError as exc:
        return FileReport(path, None, [], cannot_read(path, exc))
    return _report(path, analysis, settings)


def _report(shown: str, analysis: Analysis, settings: Settings) -> FileReport:
    version = analysis.version if analysis.header_line is not None else None
    uri = wire.path_uri(analysis.path) if analysis.path is not None else "-"
    return FileReport(shown, version, wire.report(analysis, settings, uri), uri=uri)


def _check_stdin(name: str | None, settings: Settings) -> FileReport:
    text = split_lines(decode(sys.stdin.buffer.read()))
    analysis = analyze(
        text, path=name, options=Options(large_line=settings.large_line), reuse=False
    )
    return _report(name or STDIN, analysis, settings)


def _option_raw(args: argparse.Namespace) -> dict[str, Any] | str:
    """The options as raw settings, or a usage error."""
    raw: dict[str, Any] = {}
    if args.severity:
        raw["severity"] = {}
        for item in args.severity:
            code, sep, level = str(item).partition("=")
            if not sep:
                return f"--severity expects CODE=LEVEL, got {item!r}"
            raw["severity"][code.strip().upper()] = level.strip().lower()
    for key in ("select", "ignore"):
        items = [c.strip() for arg in getattr(args, key) for c in str(arg).split(",")]
        if items:
            raw[key] = [c for c in items if c]
    if args.large_line is not None:
        raw["largeLineThreshold"] = args.large_line
    _, problems = parse_settings(raw)
    if problems:
        key = next((k for k in _OPTION_OF if problems[0].startswith(k)), "")
        return _OPTION_OF.get(key, "") + problems[0][len(key) :]
    return raw


class _SettingsFor:
    """Settings for each checked file: config files above it, then the options."""

    def __init__(self, options: dict[str, Any], isolated: bool) -> None:
        self.options = options
        self.isolated = isolated
        self.by_folder: dict[Path, Settings] = {}

    def __call__(self, start: Path) -> Settings:
        folder = (start if start.is_dir() else start.parent).absolute()
        if folder not in self.by_folder:
            if self.isolated:
                self.by_folder[folder] = parse_settings(self.options)[0]
            else:
                self.by_folder[folder] = layered_settings(folder, self.options)
        return self.by_folder[folder]


def run(args: argparse.Namespace) -> int:
    """Check every target and print the report; return the exit status."""
    err = sys.stderr
    options = _option_raw(args)
    if isinstance(options, str):
        print(f"pi-lsp check: {options}", file=err)
        return 2
    if args.statistics and args.format == "sarif":
        print("pi-lsp check: --statistics prints text or JSON, not SARIF", file=err)
        return 2
    paths = named_or_default(args.paths, "check")
    if paths is None:
        return 2
    if paths.count(STDIN) > 1:
        print("pi-lsp check: - (standard input) can be named once", file=err)
        return 2
    targets = resolve(paths)
    if fix.wanted(args):
        return _repair(args, targets)
    problems = [f"{m}: no such file or directory" for m in targets.missing]
    for folder in targets.empty:
        print(f"pi-lsp check: {folder}: no session files (*.jsonl) found", file=err)
    settings_for = _SettingsFor(options, args.isolated)
    stdin_name = args.stdin_filename
    stdin_start = Path(stdin_name) if stdin_name else Path.cwd()
    try:
        work = [(p, settings_for(stdin_start if p == STDIN else Path(p))) for p in targets.files]
    except ConfigError as exc:
        print(f"pi-lsp check: {exc}", file=err)
        return 2
    # one pause of the collector for the whole run, not one per file: each analysis is
    # freed by reference counting (it holds no cycles), so the collection that ends each
    # pause would only walk every parsed value of the file once more
    with gc_paused():
        reports = _check_all(work, stdin_name, args.jobs)
    problems += [r.error for r in reports if r.error is not None]
    found_errors = any(d["severity"] == Severity.ERROR for r in reports for d in r.diagnostics)
    status = 2 if problems else 0 if args.exit_zero or not found_errors else 1
    for problem in problems:
        print(f"pi-lsp check: {problem}", file=err)
    written = _write(args, reports, problems, status, Shown(paths))
    if written is not None:
        return written
    if args.format == "text" and not args.quiet:
        print(_summary(reports), file=err)
    return status


def _repair(args: argparse.Namespace, targets: Targets) -> int:
    """``--fix`` / ``--diff``: repair the files (then, with ``--fix``, check them again)."""
    if STDIN in targets.files:
        print("pi-lsp check: --fix and --diff repair files, not - (standard input)", file=sys.stderr)
        return 2
    status = fix.run(args, [Path(p) for p in targets.files], run)
    if args.diff and targets.missing:  # --fix reports them through the check that follows
        for m in targets.missing:
            print(f"pi-lsp check: {m}: no such file or directory", file=sys.stderr)
        return 2
    return status


def _write(
    args: argparse.Namespace,
    reports: list[FileReport],
    problems: list[str],
    status: int,
    names: Shown,
) -> int | None:
    """Print the report where asked; an exit status when the output file cannot be written.

    Text lines show paths as ``names`` says; JSON and SARIF keep them as found.
    """
    try:
        out: TextIO = (
            args.output_file.open("w", encoding="utf-8", errors="backslashreplace", newline="")
            if args.output_file is not None
            else sys.stdout
        )
    except OSError as exc:
        print(
            f"pi-lsp check: {args.output_file}: cannot write: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
    try:
        good = [r for r in reports if r.error is None]
        if args.statistics:
            _print_statistics(good, out, args.format)
        elif args.format == "json":
            shown = [
                {"path": r.path, "version": r.version, "diagnostics": r.diagnostics} for r in good
            ]
            out.write(dumps({"files": shown}, indent=True) + "\n")
        elif args.format == "sarif":
            files = [(r.path, r.uri, r.diagnostics) for r in good]
            log = sarif.sarif_log(files, problems, status, Path.cwd())
            out.write(dumps(log, indent=True) + "\n")
        else:
            _print_text(good, out, Style(use_color(args.color, out)), names)
        out.flush()
    except BrokenPipeError:
        quiet_broken_pipe()  # `check | head`: the status still says what was found
    finally:
        if out is not sys.stdout:
            out.close()
    return None


def _check_all(
    work: list[tuple[str, Settings]], stdin_name: str | None, jobs: int
) -> list[FileReport]:
    """Every file checked with its settings (files sharing settings in one parallel run)."""
    results: dict[str, FileReport] = {}
    groups: dict[int, tuple[Settings, list[str]]] = {}
    for path, settings in work:
        if path == STDIN:
            results[path] = _check_stdin(stdin_name, settings)
        else:
            groups.setdefault(id(settings), (settings, []))[1].append(path)
    for settings, paths in groups.values():
        helped = jobs != 1 and in_process(len(paths), jobs)  # a pool already uses the cores
        each = functools.partial(check_file, settings=settings, helped=helped)
        reports = run_all(each, paths, jobs)
        results.update(zip(paths, reports, strict=True))
    return [results[path] for path, _ in work]


def _print_text(reports: list[FileReport], out: TextIO, style: Style, names: Shown) -> None:
    for report in reports:
        path = style(names(report.path), "bold")
        for d in report.diagnostics:
            start = d["range"]["start"]
            severity = d["severity"]
            out.write(
                f"{path}:{start['line'] + 1}:{start['character'] + 1}: "
                f"{style(SEVERITY_NAMES[severity], _SEVERITY_STYLE[severity])} "
                f"{style(d['code'], 'bold')} {d['message']}\n"
            )


def _summary(reports: list[FileReport]) -> str:
    """``N files checked: 2 errors, 1 warning`` (or ``no problems``); ``no file checked``."""
    n = len([r for r in reports if r.error is None])
    if not n:
        return "no file checked"
    counts = Counter(d["severity"] for r in reports for d in r.diagnostics)
    found = ", ".join(
        counted(counts[s], SEVERITY_NAMES[s], _PLURALS.get(s)) for s in sorted(counts)
    )
    return f"{counted(n, 'file')} checked: {found or 'no problems'}"


def _print_statistics(reports: list[FileReport], out: TextIO, fmt: str) -> None:
    counts = Counter((d["code"], d["severity"]) for r in reports for d in r.diagnostics)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if fmt == "json":
        stats = [
            {"code": code, "severity": severity, "count": n, "title": _title(code)}
            for (code, severity), n in rows
        ]
        out.write(dumps({"statistics": stats}, indent=True) + "\n")
        return
    width = max((len(str(n)) for _, n in rows), default=1)
    for (code, severity), n in rows:
        out.write(f"{n:>{width}}  {code}  {SEVERITY_NAMES[severity]:<11}  {_title(code)}\n")


def _title(code: str) -> str:
    return CODES[code].title if code in CODES else ""
