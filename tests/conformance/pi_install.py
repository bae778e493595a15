"""Locate (and if needed install) pi's reference implementation for conformance tests.

pi's own ``parseSessionEntries`` / ``migrateSessionEntries`` / ``buildSessionContext``
(npm package ``@mariozechner/pi-coding-agent@0.73.1``) are the reference behaviour.
``find_pi()`` returns a ``node_modules`` directory that contains that exact version:

1. ``$PI_LSP_PI_MODULES`` when set (a ``node_modules`` dir, or a prefix dir holding one);
   nothing else is tried then;
2. else the cache ``${XDG_CACHE_HOME:-~/.cache}/pi-lsp/npm/node_modules``, installing it
   there once with ``npm install`` when ``npm`` and ``node`` are on PATH.

``run_oracle(args)`` runs ``pi_oracle.mjs`` (beside this file) under node and returns
the JSON document it prints. Importable without pytest.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

PI_PACKAGE = "@mariozechner/pi-coding-agent"
PI_VERSION = "0.73.1"
ORACLE = Path(__file__).resolve().with_name("pi_oracle.mjs")

INSTALL_TIMEOUT_S = float(os.environ.get("PI_LSP_NPM_TIMEOUT", "600"))
# After a failed install, do not try again (from any process) for this long.
FAILURE_TTL_S = 3600.0

_MARKER = f".installed-{PI_VERSION}"
_FAILED = f".install-failed-{PI_VERSION}"


class PiUnavailable(RuntimeError):
    """pi (node + the npm package) cannot be found or installed."""


class OracleError(RuntimeError):
    """The oracle ran but reported a usage error or crashed."""


def cache_dir() -> Path:
    """``${XDG_CACHE_HOME:-~/.cache}/pi-lsp/npm``: the npm prefix used for pi."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pi-lsp" / "npm"


def _pi_version_in(modules: Path) -> str | None:
    try:
        pkg = json.loads((modules / PI_PACKAGE / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = pkg.get("version") if isinstance(pkg, dict) else None
    return version if isinstance(version, str) else None


def _has_pi(modules: Path) -> bool:
    return _pi_version_in(modules) == PI_VERSION


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``path`` (no-op where fcntl is missing)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _recent_failure(prefix: Path) -> bool:
    try:
        age = time.time() - (prefix / _FAILED).stat().st_mtime
    except OSError:
        return False
    return age < FAILURE_TTL_S


def _install(prefix: Path) -> Path | None:
    modules = prefix / "node_modules"
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        return None
    try:
        prefix.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    with _locked(prefix / ".install.lock"):
        # Another process may have finished (or failed) while we waited.
        if _has_pi(modules) and (prefix / _MARKER).exists():
            return modules.resolve()
        if _recent_failure(prefix):
            return None
        cmd = [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--save-exact",
            "--prefix",
            str(prefix),
            f"{PI_PACKAGE}@{PI_VERSION}",
        ]
        env = dict(os.environ, npm_config_update_notifier="false")
        ok = False
        log = prefix / "install.log"
        try:
            with open(log, "wb") as out:
                proc = subprocess.run(
                    cmd,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=env,
                    timeout=INSTALL_TIMEOUT_S,
                    check=False,
                )
            ok = proc.returncode == 0 and _has_pi(modules)
        except (OSError, subprocess.SubprocessError):
            ok = False
        if not ok:
            with contextlib.suppress(OSError):
                (prefix / _FAILED).write_text(f"see {log}\n", encoding="utf-8")
            return None
        with contextlib.suppress(OSError):
            (prefix / _FAILED).unlink()
        (prefix / _MARKER).write_text(f"{PI_PACKAGE}@{PI_VERSION}\n", encoding="utf-8")
        return modules.resolve()


def find_pi(*, install: bool = True) -> Path | None:
    """The ``node_modules`` dir holding ``@mariozechner/pi-coding-agent@0.73.1``, or None.

    With ``install=False`` the cache is only looked at, never filled.
    """
    env = os.environ.get("PI_LSP_PI_MODULES")
    if env:
        for cand in (Path(env), Path(env) / "node_modules"):
            if _has_pi(cand):
                return cand.resolve()
        return None
    prefix = cache_dir()
    modules = prefix / "node_modules"
    if _has_pi(modules) and (prefix / _MARKER).exists():
        return modules.resolve()
    if not install:
        return None
    try:
        return _install(prefix)
    except Exception:
        return None


def run_oracle(
    args: Sequence[str | os.PathLike[str]],
    *,
    modules: Path | None = None,
    timeout: float = 300.0,
) -> dict[str, Any]:
    """Run ``node pi_oracle.mjs ARGS`` with pi resolved and return its JSON output.

    Raises PiUnavailable when pi or node is missing, OracleError when the oracle
    fails (usage error, crash, no JSON). A pi exception during load/fork is not a
    failure: it comes back as the document's ``"error"`` member.
    """
    if modules is None:
        modules = find_pi()
        if modules is None:
            raise PiUnavailable("pi (npm) not available")
    node = shutil.which("node")
    if node is None:
        raise PiUnavailable("node not on PATH")
    env = dict(os.environ, PI_LSP_PI_MODULES=str(modules))
    cmd = [node, str(ORACLE), *(os.fspath(a) for a in args)]
    try:
        proc = subprocess.run(
            cmd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=env,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise OracleError(f"oracle timed out after {timeout}s: {cmd}") from exc
    stdout = proc.stdout.decode("utf-8", errors="replace").strip()
    stderr = proc.stderr.decode("utf-8", errors="replace").strip()
    try:
        # One document; never split it on lines: pi text may hold raw U+2028.
        result = json.loads(stdout) if stdout else None
    except ValueError:
        result = None
    if not isinstance(result, dict):
        raise OracleError(
            f"oracle printed no JSON object (exit {proc.returncode}): {cmd}\n"
            f"stdout: {stdout[:2000]}\nstderr: {stderr[:2000]}"
        )
    if proc.returncode != 0 or "oracle_error" in result:
        raise OracleError(f"{result.get('oracle_error', 'oracle failed')}\nstderr: {stderr[:2000]}")
    return result


if __name__ == "__main__":  # pragma: no cover - manual use: print where pi is
    import sys

    found = find_pi()
    print(found if found else "pi not available", file=sys.stdout if found else sys.stderr)
    sys.exit(0 if found else 1)
