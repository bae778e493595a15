"""Fixtures for conformance tests against pi's own implementation.

- ``pi_oracle``: a callable ``(args) -> dict`` running ``pi_oracle.mjs`` (see that file
  for the subcommands and output shapes); skips when pi (node + npm package) is absent.
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

from pi_install import find_pi, run_oracle  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"

Oracle = Callable[[Sequence[str | os.PathLike[str]]], dict[str, Any]]


@pytest.fixture(scope="session")
def pi_modules() -> Path:
    modules = find_pi()
    if modules is None:
        pytest.skip("pi (npm) not available")
    return modules


@pytest.fixture(scope="session")
def pi_oracle(pi_modules: Path) -> Oracle:
    def call(args: Sequence[str | os.PathLike[str]]) -> dict[str, Any]:
        return run_oracle(list(args), modules=pi_modules)

    return call


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    if not FIXTURES.is_dir():
        pytest.skip(f"shared fixtures not found at {FIXTURES}")
    return FIXTURES
