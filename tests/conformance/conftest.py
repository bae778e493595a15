"""Fixtures for conformance tests against pi's own implementation.

- ``pi_oracle``: a callable ``(args) -> dict`` running ``pi_oracle.mjs`` against pi 0.73.1
  (see that file for the subcommands and output shapes); skips when pi (node + npm
  package) is absent. ``pi16_oracle``: the same against today's pi 1.6.0 (installed with
  Node 24 from npm); ``any_pi_oracle`` is parametrized over both.
- ``fixtures_dir``: ``../shared/fixtures`` beside the repository; skips when absent.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:  # works whatever pytest's import mode is
    sys.path.insert(0, str(_HERE))

from pi_install import PI_073, PI_16, PiRelease, find_pi, node_for, run_oracle  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"

Oracle = Callable[[Sequence[str | os.PathLike[str]]], dict[str, Any]]


def _modules(release: PiRelease) -> Path:
    modules = find_pi(release)
    if modules is None:
        pytest.skip(f"{release.label} (npm) not available")
    if node_for(release, modules) is None:
        pytest.skip(f"no node {release.node_major}+ for {release.label}")
    return modules


def _oracle(release: PiRelease, modules: Path) -> Oracle:
    def call(args: Sequence[str | os.PathLike[str]]) -> dict[str, Any]:
        return run_oracle(list(args), modules=modules, release=release)

    return call


@pytest.fixture(scope="session")
def pi_modules() -> Path:
    return _modules(PI_073)


@pytest.fixture(scope="session")
def pi_oracle(pi_modules: Path) -> Oracle:
    return _oracle(PI_073, pi_modules)


@pytest.fixture(scope="session")
def pi16_modules() -> Path:
    return _modules(PI_16)


@pytest.fixture(scope="session")
def pi16_oracle(pi16_modules: Path) -> Oracle:
    return _oracle(PI_16, pi16_modules)


@pytest.fixture(scope="session", params=[PI_073, PI_16], ids=lambda r: r.label.replace(" ", ""))
def any_pi_oracle(request: pytest.FixtureRequest) -> Oracle:
    release: PiRelease = request.param
    return _oracle(release, _modules(release))


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    if not FIXTURES.is_dir():
        pytest.skip(f"shared fixtures not found at {FIXTURES}")
    return FIXTURES
