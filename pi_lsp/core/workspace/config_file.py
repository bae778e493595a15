"""``pi-lsp.toml``: configuration files shared by the command line and the server.

Two files are read, the second on top of the first: the user's
(``$XDG_CONFIG_HOME/pi-lsp/pi-lsp.toml``, default ``~/.config/pi-lsp/pi-lsp.toml``;
``%APPDATA%\\pi-lsp\\pi-lsp.toml`` on Windows) and the nearest ``pi-lsp.toml`` found upward
from the checked file (command line) or the workspace folder (server). Client settings and
command-line options then go on top (see :func:`pi_lsp.core.workspace.settings.merge`). Example::

    select = ["PI"]                  # codes or prefixes to report (default: all)
    ignore = ["PI005", "PI5"]        # codes or prefixes not to report
    large-line-threshold = 2097152   # bytes; PI500 above it
    outline-cap = 5000               # entries in the editor's outline
    diagnostic-mode = "auto"         # server: auto, push, pull or both

    [severity]                       # per code or prefix: error, warning, information, hint, off
    PI103 = "information"
    PI4 = "warning"
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..text.files import cannot_read
from .settings import Settings, merge, parse_settings

FILE_NAME = "pi-lsp.toml"

_KEYS = {
    "severity": "severity",
    "select": "select",
    "ignore": "ignore",
    "large-line-threshold": "largeLineThreshold",
    "outline-cap": "outlineCap",
    "diagnostic-mode": "diagnosticMode",
}


class ConfigError(ValueError):
    """A configuration file that cannot be read or holds something pi-lsp does not know."""


def user_config() -> Path:
    """Where the user's configuration file lives (it may not exist)."""
    if sys.platform == "win32" and os.environ.get("APPDATA"):
        base = Path(os.environ["APPDATA"])
    elif os.environ.get("XDG_CONFIG_HOME"):
        base = Path(os.environ["XDG_CONFIG_HOME"])
    else:
        base = Path.home() / ".config"
    return base / "pi-lsp" / FILE_NAME


def find_project_config(start: Path) -> Path | None:
    """The nearest ``pi-lsp.toml`` in ``start`` (a file's folder, or a folder) or above it."""
    folder = start.absolute()  # a file holds no pi-lsp.toml: the walk goes on to its folder
    for candidate in (folder, *folder.parents):
        path = candidate / FILE_NAME
        if path.is_file():
            return path
    return None


@lru_cache(maxsize=64)
def _read_cached(path: Path, mtime_ns: int, size: int) -> dict[str, Any]:
    import tomllib  # only when there is a configuration file

    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"{cannot_read(path, exc)}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    raw: dict[str, Any] = {}
    for key, value in data.items():
        if key not in _KEYS:
            known = ", ".join(_KEYS)
            raise ConfigError(f"{path}: unknown key {key!r} (known: {known})")
        raw[_KEYS[key]] = value
    _, problems = parse_settings(raw)
    if problems:
        problem = problems[0]
        for key, name in _KEYS.items():  # name the key as the file spells it
            if problem.startswith(name):
                problem = key + problem[len(name) :]
                break
        raise ConfigError(f"{path}: {problem}")
    return raw


def read_config(path: Path) -> dict[str, Any]:
    """One file's settings in the client's JSON form; :class:`ConfigError` when it is wrong."""
    try:
        st = path.stat()
    except OSError as exc:
        raise ConfigError(f"{cannot_read(path, exc)}") from exc
    return dict(_read_cached(path, st.st_mtime_ns, st.st_size))


def file_settings(start: Path | None) -> dict[str, Any]:
    """The user's file, then the nearest project file above ``start``, merged (raw settings).

    :class:`ConfigError` when one of them is wrong.
    """
    used = []
    user = user_config()
    if user.is_file():
        used.append(user)
    project = find_project_config(start) if start is not None else None
    if project is not None and project not in used:
        used.append(project)
    return merge(*(read_config(path) for path in used))


def layered_settings(start: Path | None, over: dict[str, Any]) -> Settings:
    """The files' settings (see :func:`file_settings`) with ``over`` on top: the options
    on the command line, the client's settings in the server.

    Problems in ``over`` are left to the caller (``parse_settings(over)`` lists them);
    :class:`ConfigError` when a file is wrong.
    """
    settings, _ = parse_settings(merge(file_settings(start), over))
    return settings
