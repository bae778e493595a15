"""User settings shared by the server and the command line: severities, thresholds, caps."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .findings import Finding, Severity
from .limits import MIB

DIAGNOSTIC_MODES = ("auto", "push", "pull", "both")
"""How diagnostics reach the client: ``auto`` pulls when the client can, else pushes."""

_SEVERITY_NAMES = {
    "error": Severity.ERROR,
    "warning": Severity.WARNING,
    "information": Severity.INFORMATION,
    "info": Severity.INFORMATION,
    "hint": Severity.HINT,
}


@dataclass(frozen=True, slots=True)
class Settings:
    """Settings of section ``piLsp``; ``severity`` maps a code to a severity or None (off).

    ``diagnostic_mode`` is one of :data:`DIAGNOSTIC_MODES`.
    """

    severity: dict[str, Severity | None] = field(default_factory=dict)
    large_line: int = MIB
    outline_cap: int = 2000
    diagnostic_mode: str = "auto"

    def apply(self, findings: list[Finding]) -> list[Finding]:
        """Findings with severity overrides applied and switched-off codes removed."""
        if not self.severity:
            return findings
        out = []
        for finding in findings:
            if finding.code not in self.severity:
                out.append(finding)
                continue
            level = self.severity[finding.code]
            if level is not None:
                out.append(dataclasses.replace(finding, severity=level))
        return out


def parse_settings(raw: Any) -> tuple[Settings, list[str]]:
    """Read settings from a client's JSON (``initializationOptions`` or configuration).

    Returns the settings and a list of human-readable problems with what was ignored.
    """
    problems: list[str] = []
    if not isinstance(raw, dict):
        return Settings(), problems if raw is None else ["settings are not an object"]
    severity: dict[str, Severity | None] = {}
    for code, name in (raw.get("severity") or {}).items():
        if name == "off" or name is None:
            severity[str(code)] = None
        elif isinstance(name, str) and name.lower() in _SEVERITY_NAMES:
            severity[str(code)] = _SEVERITY_NAMES[name.lower()]
        else:
            problems.append(f"severity for {code}: unknown level {name!r}")
    large = raw.get("largeLineThreshold", MIB)
    if isinstance(large, bool) or not isinstance(large, int) or large < 1:
        problems.append(f"largeLineThreshold: expected a positive integer, got {large!r}")
        large = MIB
    cap = raw.get("outlineCap", 2000)
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
        problems.append(f"outlineCap: expected a positive integer, got {cap!r}")
        cap = 2000
    mode = raw.get("diagnosticMode", "auto")
    if mode not in DIAGNOSTIC_MODES:
        problems.append(f"diagnosticMode: expected one of {', '.join(DIAGNOSTIC_MODES)}, got {mode!r}")
        mode = "auto"
    return Settings(severity, large, cap, mode), problems
