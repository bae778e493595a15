"""``workspace/executeCommand``: the edits and views of the code actions, as commands.

=====================  =================================  ==================================
command                arguments                          result
=====================  =================================  ==================================
``pi-lsp.migrate``     ``[uri]``                          ``{"applied", "from"}``
``pi-lsp.fork``        ``[uri, entryId]``                 ``{"path"}`` (the new file)
``pi-lsp.branch``      ``[uri, entryId, summary]``        ``{"applied", "id"}``
``pi-lsp.label``       ``[uri, entryId, label | null]``   ``{"applied", "id"}``
``pi-lsp.name``        ``[uri, name]``                    ``{"applied", "id"}``
``pi-lsp.context``     ``[uri, leafId | null]``           ``{"messages": [{"role", "line",
                                                          "title"}], "thinkingLevel", "model"}``
=====================  =================================  ==================================

An ``entryId`` may also be a 0-based line number or the ``pi-lsp.tree`` node id
``L<line>`` (how entries without ids, as in v1 files, are named). Every command reads its
session with :meth:`PiLanguageServer.source` (the open document, else the file on disk)
and does its work in a request thread. Edits to an open document go to the client
through ``workspace/applyEdit`` as a versioned ``TextDocumentEdit``; a document that is
not open is written back atomically, refusing when it changed meanwhile (a migration
keeps a ``.bak``). The fork is written next to the file, never over one. Bad arguments
are answered with InvalidParams, a failure of the command itself with an error.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from pi_lsp.core.edits import refactor
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.pi import migrate
from pi_lsp.core.pi.context import session_context
from pi_lsp.core.pi.loading import UNDEFINED, analysis_refusal
from pi_lsp.core.text.textedit import (
    FileChanged,
    TextEdit,
    apply_edits,
    encode,
    write_atomic,
    write_new,
)
from pi_lsp.core.views.context_view import context_json

from .. import commands, proto, requests
from ..server import PiLanguageServer, Source

log = logging.getLogger("pi_lsp")

_LINE_ID = re.compile(r"L(\d+)")


def _entry(a: Analysis, entry: Any) -> str | int:
    """An entry reference as an id or a 0-based line.

    Besides ids and line numbers, accepts the ``pi-lsp.tree`` node ids ``L<line>`` given
    to entries without a usable id (every entry of a v1 file).
    """
    if isinstance(entry, int) and not isinstance(entry, bool):
        return entry
    if not isinstance(entry, str):
        raise JsonRpcInvalidParams("the entry must be an id (or a 0-based line number)")
    if entry not in a.tree.ids and (m := _LINE_ID.fullmatch(entry)):
        return int(m.group(1))
    return entry


def _line(a: Analysis, entry: Any) -> int:
    """The line of an entry named by id (or by a 0-based line number)."""
    entry = _entry(a, entry)
    if isinstance(entry, int):
        return entry
    try:
        return refactor.line_of(a, entry)
    except refactor.RefactorError as exc:
        raise JsonRpcInvalidParams(str(exc)) from exc


async def apply(
    ls: PiLanguageServer, src: Source, edits: list[TextEdit], label: str, backup: bool = False
) -> bool:
    """Apply ``edits``: through the client for an open document, else to the file on disk."""
    if src.is_open:
        requests.still(ls, src.uri, src.text)
        frame = proto.Frame(src.analysis.lines, ls.encoding)
        edit = proto.workspace_edit(
            ls.client_capabilities, src.uri, src.version, frame.text_edits(edits)
        )
        result = await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=edit, label=label)
        )
        if not result.applied:
            log.warning("%s: the client did not apply the edit: %s", label, result.failure_reason)
        return result.applied
    assert src.path is not None
    try:
        write_atomic(
            Path(src.path),
            encode(apply_edits(src.text, edits)),
            expect=src.stamp,
            backup=backup,
        )
    except FileChanged as exc:
        raise JsonRpcInvalidParams(str(exc)) from exc
    return True


def _appended_id(edits: list[TextEdit]) -> str | None:
    """The id of the entry an append edit adds."""
    try:
        value = orjson.loads(edits[-1].text.strip())
    except orjson.JSONDecodeError:
        return None
    ident = value.get("id") if isinstance(value, dict) else None
    return ident if isinstance(ident, str) else None


async def migrate_command(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
    """``pi-lsp.migrate [uri]``."""
    src = await ls.source(args[0] if args else None)
    plan = await ls.scheduler.compute(lambda: migrate.plan(src.analysis))
    if plan is None:
        return {"applied": False, "from": None}
    applied = await apply(ls, src, plan.edits, "Migrate session to v3", backup=True)
    return {"applied": applied, "from": plan.from_version}


Refactoring = Callable[[Analysis, list[Any]], list[TextEdit]]


def _refactor(fn: Refactoring, label: str, arity: int) -> Callable[..., Awaitable[dict[str, Any]]]:
    async def command(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
        if len(args) != arity:
            raise JsonRpcInvalidParams(f"{label} expects {arity} arguments, got {len(args)}")
        src = await ls.source(args[0])

        def edit() -> list[TextEdit]:
            try:
                return fn(src.analysis, list(args[1:]))
            except refactor.RefactorError as exc:
                raise JsonRpcInvalidParams(str(exc)) from exc

        edits = await ls.scheduler.compute(edit)
        applied = await apply(ls, src, edits, label)
        return {"applied": applied, "id": _appended_id(edits)}

    command.__qualname__ = label
    return command


def _branch(a: Analysis, rest: list[Any]) -> list[TextEdit]:
    entry, summary = rest
    if not isinstance(summary, str):
        raise JsonRpcInvalidParams("the summary must be a string")
    return refactor.branch(a, _line(a, entry), summary)


def _label(a: Analysis, rest: list[Any]) -> list[TextEdit]:
    entry, text = rest
    if text is not None and not isinstance(text, str):
        raise JsonRpcInvalidParams("the label must be a string or null")
    return refactor.label(a, _line(a, entry), text)


def _name(a: Analysis, rest: list[Any]) -> list[TextEdit]:
    (text,) = rest
    if not isinstance(text, str):
        raise JsonRpcInvalidParams("the name must be a string")
    return refactor.name(a, text)


async def fork_command(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
    """``pi-lsp.fork [uri, entryId]``: write the fork next to the file; return its path."""
    if len(args) != 2:
        raise JsonRpcInvalidParams(f"{commands.FORK} expects [uri, entryId]")
    src = await ls.source(args[0])
    if src.path is None:
        raise JsonRpcInvalidParams(
            "only a file on disk can be forked (the fork is written beside it)"
        )
    path = src.path
    return await ls.scheduler.compute(lambda: _fork(src.analysis, path, args[1]))


def _fork(a: Analysis, path: str, entry: Any) -> dict[str, Any]:
    try:
        result = refactor.fork(a, _entry(a, entry), path)
    except refactor.RefactorError as exc:
        raise JsonRpcInvalidParams(str(exc)) from exc
    target = Path(refactor.fork_path(path, result))
    try:
        write_new(target, encode(result.text))
    except OSError as exc:
        raise JsonRpcInvalidParams(f"cannot write {target}: {exc.strerror or exc}") from exc
    return {"path": str(target)}


async def context_command(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
    """``pi-lsp.context [uri, leafId|null]``: the messages pi would send from that leaf."""
    if not 1 <= len(args) <= 2:
        raise JsonRpcInvalidParams(f"{commands.CONTEXT} expects [uri, leafId|null]")
    src = await ls.source(args[0])
    leaf = args[1] if len(args) == 2 else None
    return await ls.scheduler.compute(lambda: _context(src.analysis, leaf))


def _context(a: Analysis, leaf: Any) -> dict[str, Any]:
    refused = analysis_refusal(a)
    if refused is not None:
        raise JsonRpcInvalidParams(refused.reason)
    if isinstance(leaf, str):
        leaf = _entry(a, leaf)
        if isinstance(leaf, str) and leaf not in a.tree.ids:
            raise JsonRpcInvalidParams(f"no entry with id {leaf!r} in this session")
    if isinstance(leaf, int) and not isinstance(leaf, bool):
        if leaf not in a.tree.parent:
            raise JsonRpcInvalidParams(f"line {leaf + 1} holds no entry")
        ctx = session_context(a, leaf_line=leaf)
    elif leaf is None or isinstance(leaf, str):
        ctx = session_context(a, UNDEFINED if leaf is None else leaf)
    else:
        raise JsonRpcInvalidParams("the leaf must be an id, a 0-based line number or null")
    return context_json(ctx)


def register(server: PiLanguageServer) -> None:
    """Register the edit and context commands."""
    server.command(commands.MIGRATE)(migrate_command)
    server.command(commands.BRANCH)(_refactor(_branch, commands.BRANCH, 3))
    server.command(commands.LABEL)(_refactor(_label, commands.LABEL, 3))
    server.command(commands.NAME)(_refactor(_name, commands.NAME, 2))
    server.command(commands.FORK)(fork_command)
    server.command(commands.CONTEXT)(context_command)
