"""The ids of every ``workspace/executeCommand`` command pi-lsp serves, in one place."""

from __future__ import annotations

TREE = "pi-lsp.tree"
STATS = "pi-lsp.stats"
STATS_CHART = "pi-lsp.statsChart"
CONTEXT = "pi-lsp.context"
MIGRATE = "pi-lsp.migrate"
CONVERT = "pi-lsp.convert"
FORK = "pi-lsp.fork"
BRANCH = "pi-lsp.branch"
LABEL = "pi-lsp.label"
NAME = "pi-lsp.name"
PREVIEW = "pi-lsp.preview"

FOR_CODE: dict[str, str] = {"PI105": CONVERT}
"""Diagnostics whose ``data`` names the command that fixes them (``data.command``)."""
