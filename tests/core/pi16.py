"""Run a snippet of JavaScript against pi 1.6 (``@earendil-works/pi-coding-agent``), if installed.

pi 1.6 and the Node 22+ it needs come from the conformance installer
(``tests/conformance/pi_install.py``: ``$PI_LSP_PI16_MODULES``, else the test cache, filled
from npm once).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "tests" / "conformance") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests" / "conformance"))

from pi_install import PI_16, find_pi, node_for  # noqa: E402


def find_pi16() -> tuple[str, Path] | None:
    """``(node, node_modules)`` for pi 1.6, or None when it cannot be found or installed."""
    modules = find_pi(PI_16)
    node = node_for(PI_16, modules) if modules is not None else None
    return (node, modules) if node is not None and modules is not None else None


def module_url(modules: Path, package: str, path: str) -> str:
    """A ``file://`` URL of ``path`` inside ``@earendil-works/<package>``, for an import."""
    return json.dumps((modules / "@earendil-works" / package / path).as_uri())


def run(node: str, script: str) -> str:
    """Run an ES-module ``script`` with ``node``; its stdout (fails on a non-zero exit)."""
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
