"""Fixtures for the tests of the pi package in ``editors/pi`` against the real pi 1.6.0.

pi 1.6.0 and Node 24 come from ``tests/conformance/pi_install.py`` (installed into the
test cache with npm when missing); the tests skip when they cannot be had.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:  # works whatever pytest's import mode is
    sys.path.insert(0, str(_HERE))

from pi_rpc import Pi, Place, pi16, pi_lsp_wrapper  # noqa: E402


@pytest.fixture(scope="session")
def pi16_install() -> tuple[str, Path]:
    found = pi16()
    if found is None:
        pytest.skip("pi 1.6.0 (npm) or Node 22+ not available")
    return found


@pytest.fixture
def place(pi16_install: tuple[str, Path], tmp_path: Path) -> Place:
    node, modules = pi16_install
    dirs = [tmp_path / d for d in ("home", "project", "sessions")]
    for d in dirs:
        d.mkdir()
    return Place(node, modules, *dirs, pi_lsp_wrapper(tmp_path))


@pytest.fixture
def start(place: Place) -> Iterator[Callable[..., Pi]]:
    """Start pi in RPC mode with the package (extra CLI args, extra environment). The
    check's time budget is a minute unless a test sets it: a loaded machine must not turn
    a dialog into "still checking"."""
    started: list[Pi] = []

    def run(*args: str, **env: str) -> Pi:
        env = {"PI_LSP_DOCTOR_BUDGET_MS": "60000", **env}
        pi = Pi(place.node, place.modules, place.home, place.pi_lsp, *args, **env)
        started.append(pi)
        return pi

    yield run
    for pi in started:
        pi.close()
