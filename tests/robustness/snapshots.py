"""Snapshots of a directory tree: every file's size, mtime and content hash."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

Snapshot = dict[str, tuple[int, int, str]]


def snapshot(root: Path) -> Snapshot:
    """``{relative path: (size, mtime_ns, sha256)}`` for every entry under ``root``
    (directories and links included, symlinks not followed)."""
    out: Snapshot = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            st = path.lstat()
            if path.is_symlink():
                out[rel] = (0, st.st_mtime_ns, "link:" + os.readlink(path))
            elif path.is_dir():
                out[rel] = (0, 0, "dir")
            else:
                out[rel] = (
                    st.st_size,
                    st.st_mtime_ns,
                    hashlib.sha256(path.read_bytes()).hexdigest(),
                )
    return out


def changes(before: Snapshot, after: Snapshot) -> list[str]:
    """Human-readable differences between two snapshots."""
    out = []
    for rel in sorted(set(before) | set(after)):
        if rel not in before:
            out.append(f"created {rel}")
        elif rel not in after:
            out.append(f"removed {rel}")
        elif before[rel] != after[rel]:
            out.append(f"changed {rel}")
    return out
