"""Settings shared by every test tier."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def _no_user_config(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No test, and no server or command a test starts, reads the user's own
    ``pi-lsp.toml``: ``$XDG_CONFIG_HOME`` is an empty folder for the whole run (tests of
    the user's file set their own)."""
    patch = pytest.MonkeyPatch()
    patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
    yield
    patch.undo()
