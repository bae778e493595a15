"""Fast decoding of incoming LSP messages: orjson instead of the standard ``json`` module.

pygls decodes every message body with ``json.loads(body, object_hook=...)``. A didOpen of
a 100 MB session is a 100 MB JSON string full of escapes, which ``json`` decodes at about
half orjson's speed. :func:`install` makes pygls's stdio/TCP reader decode with orjson
and then apply the same hook; bodies orjson rejects (lone surrogate escapes, which
JavaScript clients may send) still go through ``json``, so nothing is decoded differently.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson
import pygls.io_


class _Decoder:
    """Stands in for the ``json`` module inside :mod:`pygls.io_` (only ``loads`` is used)."""

    @staticmethod
    def loads(body: bytes | str, object_hook: Callable[[dict[str, Any]], Any] | None = None) -> Any:
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            return json.loads(body, object_hook=object_hook)
        # pygls's hook only structures the top-level message (the one with "jsonrpc")
        if object_hook is not None and isinstance(data, dict):
            return object_hook(data)
        return data


def install() -> None:
    """Decode incoming messages with orjson from now on (idempotent)."""
    pygls.io_.json = _Decoder  # type: ignore[assignment,attr-defined]
