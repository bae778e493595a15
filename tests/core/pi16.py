"""Run a snippet of JavaScript against pi 1.6 (``@earendil-works/pi-coding-agent``), if installed.

pi 1.6 needs Node 22+. It is looked for in ``$PI_LSP_PI16_MODULES`` (a ``node_modules``
directory) or in a ``pi16/node_modules`` beside the repository or one of its parents; node
is the one bundled there (npm package ``node``) or the one on PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def find_pi16() -> tuple[str, Path] | None:
    """``(node, node_modules)`` for pi 1.6, or None when it is not installed."""
    env = os.environ.get("PI_LSP_PI16_MODULES")
    candidates = [Path(env)] if env else [p / "pi16" / "node_modules" for p in ROOT.parents]
    for modules in candidates:
        if (modules / "@earendil-works" / "pi-coding-agent" / "package.json").is_file():
            bundled = modules / "node" / "bin" / "node"
            node = str(bundled) if bundled.is_file() else shutil.which("node")
            if node:
                return node, modules
    return None


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
