"""Fixtures for the real-editor tests (marker ``editors``); data lives in editors_support.py."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:  # works whatever pytest's import mode is
    sys.path.insert(0, str(_HERE))

from editors_support import Session, make_session, server_command  # noqa: E402


@pytest.fixture
def broken_session(tmp_path: Path) -> Session:
    return make_session(tmp_path)


@pytest.fixture(scope="session")
def server_cmd() -> list[str]:
    if importlib.util.find_spec("pi_lsp") is None:
        pytest.skip("pi_lsp is not importable (pip install -e .)")
    return server_command()
