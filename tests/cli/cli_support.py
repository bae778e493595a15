"""Running the real ``pi-lsp`` command from the tests of the command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_cli(
    *args: str | Path,
    cwd: Path = ROOT,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    **kw: Any,
) -> subprocess.CompletedProcess[str]:
    """``python -m pi_lsp ARGS`` with its output as text (never raises on a failed run)."""
    return subprocess.run(
        [sys.executable, "-m", "pi_lsp", *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=cwd,
        env=env,
        input=stdin.decode("utf-8") if stdin is not None else None,
        timeout=600,
        check=False,
        **kw,
    )
