"""SARIF 2.1.0 for ``pi-lsp check --format sarif`` (code-scanning uploads).

Files under the working directory get URIs relative to ``%SRCROOT%`` (declared in
``originalUriBaseIds``), others absolute ``file://`` URIs. Related information becomes
``relatedLocations``; the run's ``invocations`` say whether every file could be read, the
exit status, and what could not be read.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlparse

from pi_lsp import __version__
from pi_lsp.core.text.codes import CODES

SRCROOT = "%SRCROOT%"
LEVELS = {1: "error", 2: "warning", 3: "note", 4: "note"}


def artifact(path: str, cwd: Path) -> dict[str, str]:
    """An ``artifactLocation`` for ``path``: relative to ``%SRCROOT%`` (= ``cwd``) if inside."""
    if path == "-":
        return {"uri": "-"}
    full = Path(os.path.abspath(path))
    try:
        rel = full.relative_to(cwd)
    except ValueError:
        return {"uri": full.as_uri()}
    return {"uri": quote(rel.as_posix()), "uriBaseId": SRCROOT}


def _folder_uri(folder: Path) -> str:
    uri = folder.as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _region(rng: dict[str, Any]) -> dict[str, int]:
    return {
        "startLine": rng["start"]["line"] + 1,
        "startColumn": rng["start"]["character"] + 1,
        "endLine": rng["end"]["line"] + 1,
        "endColumn": rng["end"]["character"] + 1,
    }


def _related(d: dict[str, Any], path: str, own_uri: str, cwd: Path) -> list[dict[str, Any]]:
    out = []
    for n, info in enumerate(d.get("relatedInformation", ())):
        uri = info["location"]["uri"]
        where = path if uri == own_uri else unquote(urlparse(uri).path)
        out.append(
            {
                "id": n + 1,
                "message": {"text": info["message"]},
                "physicalLocation": {
                    "artifactLocation": artifact(where, cwd),
                    "region": _region(info["location"]["range"]),
                },
            }
        )
    return out


def sarif_log(
    files: list[tuple[str, str, list[dict[str, Any]]]],
    notifications: list[str],
    exit_code: int,
    cwd: Path,
) -> dict[str, Any]:
    """The SARIF log for ``(path, uri, diagnostics)`` per file and the I/O problems met."""
    results = []
    used: dict[str, int] = {}
    for path, uri, diagnostics in files:
        for d in diagnostics:
            used.setdefault(d["code"], len(used))
            result: dict[str, Any] = {
                "ruleId": d["code"],
                "ruleIndex": used[d["code"]],
                "level": LEVELS[d["severity"]],
                "message": {"text": d["message"]},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": artifact(path, cwd),
                            "region": _region(d["range"]),
                        }
                    }
                ],
            }
            related = _related(d, path, uri, cwd)
            if related:
                result["relatedLocations"] = related
            results.append(result)
    rules = [
        {
            "id": code,
            "shortDescription": {"text": CODES[code].title if code in CODES else code},
            "defaultConfiguration": {
                "level": LEVELS[int(CODES[code].severity)] if code in CODES else "warning"
            },
        }
        for code in used
    ]
    invocation: dict[str, Any] = {
        "executionSuccessful": not notifications,
        "exitCode": exit_code,
        "workingDirectory": {"uri": _folder_uri(cwd)},
    }
    if notifications:
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": text}} for text in notifications
        ]
    return {
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
                "originalUriBaseIds": {SRCROOT: {"uri": _folder_uri(cwd)}},
                "invocations": [invocation],
                "columnKind": "utf16CodeUnits",
                "results": results,
            }
        ],
    }
