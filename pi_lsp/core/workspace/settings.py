"""User settings shared by the server and the command line: severities, selection, thresholds.

The raw form is the client's JSON (section ``piLsp``): ``severity`` maps a code or a code
prefix (``PI4`` = every PI4xx code) to a level, ``select`` / ``ignore`` list codes or
prefixes to report or not, ``largeLineThreshold``, ``outlineCap``, ``diagnosticMode`` and
``sessionsFolder`` (the folder whose sessions workspace diagnostics report).
The most specific entry wins: ``severity = {PI4: "warning", PI401: "off"}`` turns PI401 off
and every other PI4xx into a warning; ``select = ["PI4"], ignore = ["PI40"]`` reports PI41x
and PI42x only. Configuration files (:mod:`pi_lsp.core.workspace.config_file`) and command-line
options are turned into this form too, so every front end reads settings one way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ..text.codes import CODES
from ..text.findings import Finding, Severity
from ..text.limits import MIB

DIAGNOSTIC_MODES = ("auto", "push", "pull", "both")
"""How diagnostics reach the client: ``auto`` pulls when the client can, else pushes."""

LEVELS: dict[str, Severity | None] = {
    "error": Severity.ERROR,
    "warning": Severity.WARNING,
    "warn": Severity.WARNING,
    "information": Severity.INFORMATION,
    "info": Severity.INFORMATION,
    "hint": Severity.HINT,
    "off": None,
}
"""Level names accepted for ``severity`` (case-insensitive); ``off`` removes the code."""


def known_selector(selector: str) -> bool:
    """Whether ``selector`` (upper case) is a code or the prefix of at least one code."""
    return any(code.startswith(selector) for code in CODES) if selector else False


def _specificity(code: str, selectors: Iterable[str]) -> int:
    """Length of the longest selector that ``code`` starts with; -1 when none does."""
    return max((len(s) for s in selectors if code.startswith(s)), default=-1)


@dataclass(frozen=True, slots=True)
class Settings:
    """Settings of section ``piLsp`` (see the module docstring).

    ``severity`` maps a code or prefix to a severity or None (off); ``select`` empty means
    every code; ``diagnostic_mode`` is one of :data:`DIAGNOSTIC_MODES`.
    """

    severity: dict[str, Severity | None] = field(default_factory=dict)
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    large_line: int = MIB
    outline_cap: int = 2000
    diagnostic_mode: str = "auto"
    sessions_folder: str | None = None

    def reports(self, code: str) -> bool:
        """Whether ``code`` is selected and not ignored (the more specific selector wins)."""
        chosen = _specificity(code, self.select) if self.select else 0
        return chosen >= 0 and chosen > _specificity(code, self.ignore)

    def level(self, code: str, default: Severity) -> Severity | None:
        """The severity ``code`` is reported with (None: not reported)."""
        if not self.reports(code):
            return None
        best = _specificity(code, self.severity)
        if best < 0:
            return default
        return self.severity[code[:best]]

    def apply(self, findings: list[Finding]) -> list[Finding]:
        """Findings with severity overrides applied and unselected or switched-off codes removed."""
        if not (self.severity or self.select or self.ignore):
            return findings
        memo: dict[tuple[str, Severity], Severity | None] = {}
        out = []
        for finding in findings:
            key = (finding.code, finding.severity)
            if key not in memo:
                memo[key] = self.level(finding.code, finding.severity)
            level = memo[key]
            if level is None:
                continue
            out.append(finding if level == finding.severity else replace(finding, severity=level))
        return out


def _selectors(raw: Any, name: str, problems: list[str]) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str) or not isinstance(raw, list):
        problems.append(f"{name}: expected a list of codes or code prefixes, got {raw!r}")
        return ()
    out: list[str] = []
    for item in raw:
        selector = item.strip().upper() if isinstance(item, str) else ""
        if known_selector(selector):
            out.append(selector)
        else:
            problems.append(
                f"{name}: {item!r} is no code and no prefix of one (codes: PI001…PI500)"
            )
    return tuple(out)


def _severity(raw: Any, problems: list[str]) -> dict[str, Severity | None]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        problems.append(f"severity: expected an object of CODE: level, got {raw!r}")
        return {}
    out: dict[str, Severity | None] = {}
    names = ", ".join(LEVELS)
    for key, name in raw.items():
        selector = str(key).strip().upper()
        if not known_selector(selector):
            problems.append(
                f"severity: {key!r} is no code and no prefix of one (codes: PI001…PI500)"
            )
        elif name is None:
            out[selector] = None
        elif isinstance(name, str) and name.strip().lower() in LEVELS:
            out[selector] = LEVELS[name.strip().lower()]
        else:
            problems.append(f"severity for {key}: unknown level {name!r} (one of {names})")
    return out


def _positive(raw: dict[str, Any], key: str, default: int, problems: list[str]) -> int:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        problems.append(f"{key}: expected a positive integer, got {value!r}")
        return default
    return value


def parse_settings(raw: Any) -> tuple[Settings, list[str]]:
    """Read settings from a client's JSON (``initializationOptions`` or configuration).

    Returns the settings and a list of human-readable problems with what was ignored.
    """
    problems: list[str] = []
    if not isinstance(raw, dict):
        return Settings(), problems if raw is None else ["settings are not an object"]
    severity = _severity(raw.get("severity"), problems)
    select = _selectors(raw.get("select"), "select", problems)
    ignore = _selectors(raw.get("ignore"), "ignore", problems)
    large = _positive(raw, "largeLineThreshold", MIB, problems)
    cap = _positive(raw, "outlineCap", 2000, problems)
    mode = raw.get("diagnosticMode", "auto")
    if mode not in DIAGNOSTIC_MODES:
        problems.append(
            f"diagnosticMode: expected one of {', '.join(DIAGNOSTIC_MODES)}, got {mode!r}"
        )
        mode = "auto"
    folder = raw.get("sessionsFolder")
    if folder is not None and (not isinstance(folder, str) or not folder.strip()):
        problems.append(f"sessionsFolder: expected a folder's path, got {folder!r}")
        folder = None
    return Settings(severity, select, ignore, large, cap, mode, folder), problems


def merge(*layers: dict[str, Any]) -> dict[str, Any]:
    """Raw settings layered in order (later ones win): ``severity`` merges code by code,
    ``ignore`` lists add up, every other key is replaced."""
    out: dict[str, Any] = {}
    for layer in layers:
        for key, value in layer.items():
            if key == "severity" and isinstance(value, dict) and isinstance(out.get(key), dict):
                out[key] = {**out[key], **value}
            elif key == "ignore" and isinstance(value, list) and isinstance(out.get(key), list):
                out[key] = [*out[key], *value]
            else:
                out[key] = value
    return out
