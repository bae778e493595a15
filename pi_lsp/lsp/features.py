"""The one place where every LSP feature module is registered on the server.

Each feature module exposes ``register(server)``; registration order does not matter.
"""

from __future__ import annotations

from types import ModuleType

from . import config, diagnostics, sync
from .server import PiLanguageServer

FEATURES: tuple[ModuleType, ...] = (sync, diagnostics, config)


def register_all(server: PiLanguageServer) -> None:
    """Register every feature module's handlers on ``server``."""
    for module in FEATURES:
        module.register(server)
