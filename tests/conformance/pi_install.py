"""Locate (and if needed install) pi's reference implementations for conformance tests.

Two pi releases are the reference (see ``../shared/SPEC.md``): :data:`PI_073`
(``@mariozechner/pi-coding-agent@0.73.1``, for the older files people still have) and
:data:`PI_16` (``@earendil-works/pi-coding-agent@1.6.0``, today's pi; it needs Node 22+,
which the npm package ``node@24`` provides and is installed with it).
``find_pi(release)`` returns a ``node_modules`` directory that contains that exact version:

1. the release's environment override when set (``$PI_LSP_PI_MODULES`` for 0.73.1,
   ``$PI_LSP_PI16_MODULES`` for 1.6: a ``node_modules`` dir, or a prefix dir holding one);
   nothing else is tried then;
2. else the cache ``${XDG_CACHE_HOME:-~/.cache}/pi-lsp/<prefix>/node_modules``, installing
   it there once with ``npm install`` when ``npm`` and ``node`` are on PATH.

``node_for(release, modules)`` is the node binary that can run it, and ``run_oracle(args)``
runs ``pi_oracle.mjs`` (beside this file) under it and returns the JSON document it
prints. Importable without pytest.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class PiRelease:
    """One pi release: npm package and version, what else to install, how to find it."""

    package: str
    version: str
    node_major: int
    extra: tuple[str, ...]
    env: str
    prefix: str

    @property
    def label(self) -> str:
        """``pi 0.73.1`` / ``pi 1.6.0``."""
        return f"pi {self.version}"


PI_073 = PiRelease("@mariozechner/pi-coding-agent", "0.73.1", 18, (), "PI_LSP_PI_MODULES", "npm")
PI_16 = PiRelease(
    "@earendil-works/pi-coding-agent", "1.6.0", 22, ("node@24",), "PI_LSP_PI16_MODULES", "npm-pi16"
)
RELEASES = (PI_073, PI_16)

PI_PACKAGE = PI_073.package
PI_VERSION = PI_073.version
ORACLE = Path(__file__).resolve().with_name("pi_oracle.mjs")

INSTALL_TIMEOUT_S = float(os.environ.get("PI_LSP_NPM_TIMEOUT", "600"))
# After a failed install, do not try again (from any process) for this long.
FAILURE_TTL_S = 3600.0


class PiUnavailable(RuntimeError):
    """pi (node + the npm package) cannot be found or installed."""


class OracleError(RuntimeError):
    """The oracle ran but reported a usage error or crashed."""


def cache_dir(release: PiRelease = PI_073) -> Path:
    """``${XDG_CACHE_HOME:-~/.cache}/pi-lsp/<prefix>``: the npm prefix used for a release."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pi-lsp" / release.prefix


def _version_in(modules: Path, package: str) -> str | None:
    try:
        pkg = json.loads((modules / package / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = pkg.get("version") if isinstance(pkg, dict) else None
    return version if isinstance(version, str) else None


def _has_pi(modules: Path, release: PiRelease) -> bool:
    return _version_in(modules, release.package) == release.version


def _marker(release: PiRelease) -> str:
    return f".installed-{release.version}"


def _failed(release: PiRelease) -> str:
    return f".install-failed-{release.version}"


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


def _recent_failure(prefix: Path, release: PiRelease) -> bool:
    try:
        age = time.time() - (prefix / _failed(release)).stat().st_mtime
    except OSError:
        return False
    return age < FAILURE_TTL_S


def _install(prefix: Path, release: PiRelease) -> Path | None:
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
        if _has_pi(modules, release) and (prefix / _marker(release)).exists():
            return modules.resolve()
        if _recent_failure(prefix, release):
            return None
        cmd = [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--save-exact",
            "--prefix",
            str(prefix),
            f"{release.package}@{release.version}",
            *release.extra,
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
            ok = proc.returncode == 0 and _has_pi(modules, release)
        except (OSError, subprocess.SubprocessError):
            ok = False
        if not ok:
            with contextlib.suppress(OSError):
                (prefix / _failed(release)).write_text(f"see {log}\n", encoding="utf-8")
            return None
        with contextlib.suppress(OSError):
            (prefix / _failed(release)).unlink()
        (prefix / _marker(release)).write_text(
            f"{release.package}@{release.version}\n", encoding="utf-8"
        )
        return modules.resolve()


def find_pi(release: PiRelease = PI_073, *, install: bool = True) -> Path | None:
    """The ``node_modules`` dir holding ``release``, or None.

    With ``install=False`` the cache is only looked at, never filled.
    """
    env = os.environ.get(release.env)
    if env:
        for cand in (Path(env), Path(env) / "node_modules"):
            if _has_pi(cand, release):
                return cand.resolve()
        return None
    prefix = cache_dir(release)
    modules = prefix / "node_modules"
    if _has_pi(modules, release) and (prefix / _marker(release)).exists():
        return modules.resolve()
    if not install:
        return None
    try:
        return _install(prefix, release)
    except Exception:
        return None


def _node_major(node: str) -> int:
    try:
        out = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    m = re.match(r"v(\d+)", out.strip())
    return int(m.group(1)) if m else 0


def node_for(release: PiRelease, modules: Path) -> str | None:
    """A node binary new enough for ``release``: the ``node`` npm package beside pi, else PATH's."""
    for cand in (modules / "node" / "bin" / "node", modules / ".bin" / "node"):
        if (
            cand.is_file()
            and os.access(cand, os.X_OK)
            and _node_major(str(cand)) >= release.node_major
        ):
            return str(cand)
    node = shutil.which("node")
    if node is not None and _node_major(node) >= release.node_major:
        return node
    return None


def run_oracle(
    args: Sequence[str | os.PathLike[str]],
    *,
    modules: Path | None = None,
    release: PiRelease = PI_073,
    timeout: float = 300.0,
    script: Path = ORACLE,
) -> dict[str, Any]:
    """Run ``node pi_oracle.mjs ARGS`` (or another ``script`` of that shape) against
    ``release`` and return its JSON output.

    Raises PiUnavailable when pi or a new enough node is missing, OracleError when the
    oracle fails (usage error, crash, no JSON). A pi exception during load/fork is not a
    failure: it comes back as the document's ``"error"`` member.
    """
    if modules is None:
        modules = find_pi(release)
        if modules is None:
            raise PiUnavailable(f"{release.label} (npm) not available")
    node = node_for(release, modules)
    if node is None:
        raise PiUnavailable(f"no node {release.node_major}+ for {release.label}")
    env = dict(os.environ, PI_LSP_PI_MODULES=str(modules), PI_LSP_PI_PACKAGE=release.package)
    cmd = [node, str(script), *(os.fspath(a) for a in args)]
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

    missing = 0
    for rel in RELEASES:
        found = find_pi(rel)
        print(f"{rel.label}: {found or 'not available'}")
        missing += found is None
    sys.exit(1 if missing else 0)
