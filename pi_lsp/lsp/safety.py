"""Error isolation for feature handlers: a failing feature is logged, never fatal."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

log = logging.getLogger("pi_lsp")


def isolated(default: Any = None) -> Callable[[F], F]:
    """Wrap a handler so an exception is logged (with traceback at debug) and ``default`` returned."""

    def wrap(handler: F) -> F:
        @functools.wraps(handler)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return handler(*args, **kwargs)
            except Exception as exc:  # a bug in one feature must not take the server down
                log.error("%s failed: %s: %s", handler.__qualname__, type(exc).__name__, exc)
                log.debug("traceback", exc_info=True)
                return default

        return run  # type: ignore[return-value]

    return wrap
