"""The one place where the server is built: its state wired, every feature registered.

:func:`create_server` is the only code with process-wide effects (the orjson message
decoder, the log handlers) and the only place that connects the scheduler to the
features it serves (publishing diagnostics, warming up views, showing progress). Each
feature module exposes ``register(server)``; registration order does not matter. A new
feature is one module and one line in :data:`FEATURES`.
"""

from __future__ import annotations

import functools
import sys
from types import ModuleType

from .. import logs, progress, transport
from ..scheduler import Scheduler
from ..server import PiLanguageServer
from . import (
    actions,
    book_actions,
    completion,
    config,
    diagnostics,
    document_links,
    edit_commands,
    folding,
    hover,
    inlay,
    lens,
    navigation,
    preview,
    rename,
    selection,
    stats_chart,
    symbols,
    sync,
    tree_commands,
    workspace_diagnostics,
    workspace_symbols,
)

SWITCH_INTERVAL = 0.001
"""Seconds a thread holds the GIL while another waits for it (Python's default: 0.005).

The event loop (which reads stdin) and a request thread take turns with a running
analysis at every message; shorter turns answer a request during an analysis sooner."""

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
    document_links,
    selection,
    tree_commands,
    preview,
    actions,
    edit_commands,
    stats_chart,
    workspace_symbols,
    workspace_diagnostics,
)


def create_server() -> PiLanguageServer:
    """A server with its state wired and every feature registered."""
    transport.install()
    sys.setswitchinterval(SWITCH_INTERVAL)
    server = PiLanguageServer()
    logs.install(server)
    server.scheduler = Scheduler(
        server.documents,
        on_ready=functools.partial(diagnostics.publish, server),
        warm=diagnostics.warm,
        follow=functools.partial(progress.follow, server),
        prepare=functools.partial(diagnostics.prepare, server),
        ahead=diagnostics.ahead,
    )
    for module in FEATURES:
        module.register(server)
    return server
