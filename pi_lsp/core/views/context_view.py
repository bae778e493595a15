"""The context pi sends, as people and editors see it: a title per message and the JSON of
the ``pi-lsp.context`` command and ``pi-lsp context --json``."""

from __future__ import annotations

from typing import Any

from ..pi.context import ContextMessage, SessionContext, dropped_reason
from ..pi.loading import UNDEFINED
from ..pi.sent import NOT_SENT, request, sent_json
from .describe import object_title


def message_title(m: ContextMessage) -> str:
    """A one-line description of a message of the context."""
    if not isinstance(m.message, dict):
        return "(not a message)"
    return object_title({"type": "message", "message": m.message})


def _plain(value: Any) -> Any:
    return None if value is UNDEFINED else value


def context_json(ctx: SessionContext, first_line: int = 0) -> dict[str, Any]:
    """The shape of the ``pi-lsp.context`` command and ``pi-lsp context --json``.

    Per message: ``role`` (pi's role), ``text`` (what pi sends, ``""`` when nothing),
    ``line`` (of the source entry) and a ``title``; ``edited`` names the line
    of the context edit that replaced it, ``dropped`` says why ``convertToLlm`` leaves
    it out, ``notSent`` why pi-ai's ``transformMessages`` does. ``sent`` is what the
    provider receives (:func:`pi_lsp.core.pi.sent.sent_json`: synthetic results marked).
    Every line counts from ``first_line``: 0 for the server's command (LSP positions),
    1 for the command line (what ``--leaf-line`` takes).
    """
    req = request(ctx)
    unsent = set(req.dropped)
    messages = []
    for m in ctx.messages:
        text = m.text
        item: dict[str, Any] = {
            "role": _plain(m.role),
            "text": text or "",
            "line": m.line + first_line,
            "title": message_title(m),
        }
        if m.edited is not None:
            item["edited"] = m.edited + first_line
        if text is None:
            item["dropped"] = dropped_reason(m.message)
        if m.role == "assistant" and m.line in unsent:
            item["notSent"] = NOT_SENT
        messages.append(item)
    return {
        "leaf": None if ctx.leaf is None else {"line": ctx.leaf + first_line, "id": _plain(ctx.leaf_id)},
        "messages": messages,
        "thinkingLevel": _plain(ctx.thinking_level),
        "model": None if ctx.model is None else {k: _plain(v) for k, v in ctx.model.items()},
        "sent": sent_json(req, first_line),
    }
