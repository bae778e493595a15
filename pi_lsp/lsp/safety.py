"""Error isolation for feature handlers: a failing feature is logged, never fatal."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from pygls.exceptions import JsonRpcException

F = TypeVar("F", bound=Callable[..., Any])

log = logging.getLogger("pi_lsp")


def _report(handler: Callable[..., Any], exc: Exception) -> None:
    log.error("%s failed: %s: %s", handler.__qualname__, type(exc).__name__, exc)
    log.debug("traceback", exc_info=True)


def isolated(default: Any = None) -> Callable[[F], F]:
    """Wrap a handler (plain or async) so an exception is logged and ``default`` returned.

    JSON-RPC errors raised on purpose still reach the client as error answers.
    """

    def wrap(handler: F) -> F:
        if inspect.iscoroutinefunction(handler):

            @functools.wraps(handler)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await handler(*args, **kwargs)
                except JsonRpcException:
                    raise  # a deliberate error answer (bad arguments, refused rename)
                except Exception as exc:  # a bug in one feature must not take the server down
                    _report(handler, exc)
                    return default

            return run_async  # type: ignore[return-value]

        @functools.wraps(handler)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return handler(*args, **kwargs)
            except JsonRpcException:
                raise  # a deliberate error answer (bad arguments, refused rename)
            except Exception as exc:  # a bug in one feature must not take the server down
                _report(handler, exc)
                return default

        return run  # type: ignore[return-value]

    return wrap
