"""The one place where every LSP feature module is registered on the server.

Each feature module exposes ``register(server)``; registration order does not matter.
"""

from __future__ import annotations

from types import ModuleType

from . import (
    actions,
    book_actions,
    completion,
    config,
    diagnostics,
    edit_commands,
    folding,
    hover,
    inlay,
    lens,
    links,
    navigation,
    rename,
    selection,
    stats_chart,
    symbols,
    sync,
    tree_commands,
    workspace_symbols,
)
from .server import PiLanguageServer

FEATURES: tuple[ModuleType, ...] = (
    sync,
    diagnostics,
    config,
    book_actions,
    hover,
    navigation,
    symbols,
    lens,
    inlay,
    folding,
    completion,
    rename,
    links,
    selection,
    tree_commands,
    actions,
    edit_commands,
    stats_chart,
    workspace_symbols,
)


def register_all(server: PiLanguageServer) -> None:
    """Register every feature module's handlers on ``server``."""
    for module in FEATURES:
        module.register(server)
