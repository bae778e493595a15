"""Reading session files from disk: decoding, discovery and the sessions directory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path


def read_text(path: Path) -> str:
    """Read a file as UTF-8; undecodable bytes survive as lone surrogates (reported as PI001)."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", "surrogateescape")


def sessions_dir() -> Path:
    """pi's sessions directory: ``$PI_CODING_AGENT_DIR/sessions`` or ``~/.pi/agent/sessions``."""
    base = os.environ.get("PI_CODING_AGENT_DIR")
    root = Path(base).expanduser() if base else Path.home() / ".pi" / "agent"
    return root / "sessions"


def expand(paths: list[Path]) -> Iterator[Path]:
    """Files named, and ``*.jsonl`` files under directories named (recursive, sorted)."""
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.jsonl") if p.is_file())
        else:
            yield path
