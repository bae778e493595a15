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
``L<line>`` (how entries without ids, as in v1 files, are named). Edits to an open document go to the client through
``workspace/applyEdit`` as a versioned ``TextDocumentEdit``; a document that is not open
is read from disk and written back atomically, refusing when it changed meanwhile (a
migration keeps a ``.bak``). The fork is written next to the file, never over one.
Bad arguments are answered with an InvalidParams error. A failure of the command itself
is logged and never fatal: ``fork`` and ``context`` (synchronous) answer null, like every
``@isolated`` handler; the editing commands (asynchronous: they wait for the client to
apply the edit) answer with an error.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.uris import to_fs_path

from pi_lsp.core import migrate, refactor
from pi_lsp.core.analysis import Analysis, analyze
from pi_lsp.core.context import session_context
from pi_lsp.core.document import Document
from pi_lsp.core.edits import (
    FileChanged,
    Snapshot,
    TextEdit,
    apply_edits,
    encode,
    read_snapshot,
    write_atomic,
    write_new,
)
from pi_lsp.core.migrate import UNDEFINED

from .actions import workspace_edit
from .safety import isolated
from .server import PiLanguageServer

log = logging.getLogger("pi_lsp")

MIGRATE = "pi-lsp.migrate"
FORK = "pi-lsp.fork"
BRANCH = "pi-lsp.branch"
LABEL = "pi-lsp.label"
NAME = "pi-lsp.name"
CONTEXT = "pi-lsp.context"


@dataclass(slots=True)
class _Source:
    """A session to edit: the open document, or a file read from disk."""

    analysis: Analysis
    doc: Document | None
    path: str | None
    text: str | None = None
    snapshot: Snapshot | None = None


def _invalid(message: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(message)


def _source(ls: PiLanguageServer, uri: Any) -> _Source:
    if not isinstance(uri, str):
        raise _invalid("the first argument must be the document URI")
    doc = ls.document(uri)
    path = to_fs_path(uri) if uri.startswith("file:") else None
    if doc is not None:
        return _Source(doc.analysis, doc, path)
    if path is None:
        raise _invalid(f"{uri} is not open and not a file")
    try:
        text, snapshot = read_snapshot(Path(path))
    except OSError as exc:
        raise _invalid(f"cannot read {path}: {exc.strerror or exc}") from exc
    return _Source(analyze(text, path, ls.options), None, path, text, snapshot)


_LINE_ID = re.compile(r"L(\d+)")


def _entry(a: Analysis, entry: Any) -> str | int:
    """An entry reference as an id or a 0-based line.

    Besides ids and line numbers, accepts the ``pi-lsp.tree`` node ids ``L<line>`` given
    to entries without a usable id (every entry of a v1 file).
    """
    if isinstance(entry, int) and not isinstance(entry, bool):
        return entry
    if not isinstance(entry, str):
        raise _invalid("the entry must be an id (or a 0-based line number)")
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
        raise _invalid(str(exc)) from exc


async def _apply(
    ls: PiLanguageServer, src: _Source, edits: list[TextEdit], label: str, backup: bool = False
) -> bool:
    """Apply ``edits``: through the client for an open document, else to the file on disk."""
    if src.doc is not None:
        result = await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=workspace_edit(ls, src.doc, edits), label=label)
        )
        if not result.applied:
            log.warning("%s: the client did not apply the edit: %s", label, result.failure_reason)
        return result.applied
    assert src.path is not None and src.text is not None
    try:
        write_atomic(
            Path(src.path),
            encode(apply_edits(src.text, edits)),
            expect=src.snapshot,
            backup=backup,
        )
    except FileChanged as exc:
        raise _invalid(str(exc)) from exc
    return True


def _guarded(
    fn: Callable[..., Awaitable[dict[str, Any]]],
) -> Callable[..., Awaitable[dict[str, Any]]]:
    """Like :func:`~pi_lsp.lsp.safety.isolated`, but a command that fails must say so: a
    bug is logged to the client and answered as an error, not as an empty result."""

    @functools.wraps(fn)
    async def run(*args: Any) -> dict[str, Any]:
        try:
            return await fn(*args)
        except JsonRpcException:
            raise
        except Exception as exc:
            log.error("%s failed: %s: %s", fn.__qualname__, type(exc).__name__, exc)
            log.debug("traceback", exc_info=True)
            raise

    return run


def _answer(result: dict[str, Any] | JsonRpcException | None) -> dict[str, Any] | None:
    """Raise an argument error caught inside an ``@isolated`` command; else the result."""
    if isinstance(result, JsonRpcException):
        raise result
    return result


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
    src = _source(ls, args[0] if args else None)
    plan = migrate.plan(src.analysis)
    if plan is None:
        return {"applied": False, "from": None}
    applied = await _apply(ls, src, plan.edits, "Migrate session to v3", backup=True)
    return {"applied": applied, "from": plan.from_version}


def _refactor(
    fn: Callable[[Analysis, list[Any]], list[TextEdit]], label: str, arity: int
) -> Callable[..., Awaitable[dict[str, Any]]]:
    async def command(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
        if len(args) != arity:
            raise _invalid(f"{label} expects {arity} arguments, got {len(args)}")
        src = _source(ls, args[0])
        try:
            edits = fn(src.analysis, list(args[1:]))
        except refactor.RefactorError as exc:
            raise _invalid(str(exc)) from exc
        applied = await _apply(ls, src, edits, label)
        return {"applied": applied, "id": _appended_id(edits)}

    command.__qualname__ = label
    return command


def _branch(a: Analysis, rest: list[Any]) -> list[TextEdit]:
    entry, summary = rest
    if not isinstance(summary, str):
        raise _invalid("the summary must be a string")
    return refactor.branch(a, _line(a, entry), summary)


def _label(a: Analysis, rest: list[Any]) -> list[TextEdit]:
    entry, text = rest
    if text is not None and not isinstance(text, str):
        raise _invalid("the label must be a string or null")
    return refactor.label(a, _line(a, entry), text)


def _name(a: Analysis, rest: list[Any]) -> list[TextEdit]:
    (text,) = rest
    if not isinstance(text, str):
        raise _invalid("the name must be a string")
    return refactor.name(a, text)


@isolated()
def fork_command(ls: PiLanguageServer, *args: Any) -> dict[str, Any] | JsonRpcException:
    """``pi-lsp.fork [uri, entryId]``: write the fork next to the file; return its path."""
    try:
        return _fork(ls, args)
    except JsonRpcException as exc:
        return exc


def _fork(ls: PiLanguageServer, args: tuple[Any, ...]) -> dict[str, Any]:
    if len(args) != 2:
        raise _invalid(f"{FORK} expects [uri, entryId]")
    src = _source(ls, args[0])
    if src.path is None:
        raise _invalid("only a file on disk can be forked (the fork is written beside it)")
    entry = _entry(src.analysis, args[1])
    try:
        result = refactor.fork(src.analysis, entry, src.path)
    except refactor.RefactorError as exc:
        raise _invalid(str(exc)) from exc
    target = Path(refactor.fork_path(src.path, result))
    try:
        write_new(target, encode(result.text))
    except OSError as exc:
        raise _invalid(f"cannot write {target}: {exc.strerror or exc}") from exc
    return {"path": str(target)}


@isolated()
def context_command(ls: PiLanguageServer, *args: Any) -> dict[str, Any] | JsonRpcException:
    """``pi-lsp.context [uri, leafId|null]``: the messages pi would send from that leaf."""
    try:
        return _context(ls, args)
    except JsonRpcException as exc:
        return exc


def _context(ls: PiLanguageServer, args: tuple[Any, ...]) -> dict[str, Any]:
    if not 1 <= len(args) <= 2:
        raise _invalid(f"{CONTEXT} expects [uri, leafId|null]")
    src = _source(ls, args[0])
    leaf = args[1] if len(args) == 2 else None
    if not migrate.pi_accepts(src.analysis):
        raise _invalid("pi refuses this file (its first line is not a session header)")
    if isinstance(leaf, str):
        leaf = _entry(src.analysis, leaf)
        if isinstance(leaf, str) and leaf not in src.analysis.tree.ids:
            raise _invalid(f"no entry with id {leaf!r} in this session")
    if isinstance(leaf, int) and not isinstance(leaf, bool):
        if leaf not in src.analysis.tree.parent:
            raise _invalid(f"line {leaf + 1} holds no entry")
        ctx = session_context(src.analysis, leaf_line=leaf)
    elif leaf is None or isinstance(leaf, str):
        ctx = session_context(src.analysis, UNDEFINED if leaf is None else leaf)
    else:
        raise _invalid("the leaf must be an id, a 0-based line number or null")
    return ctx.to_json()


def register(server: PiLanguageServer) -> None:
    """Register the edit and context commands."""
    server.command(MIGRATE)(_guarded(migrate_command))
    server.command(BRANCH)(_guarded(_refactor(_branch, BRANCH, 3)))
    server.command(LABEL)(_guarded(_refactor(_label, LABEL, 3)))
    server.command(NAME)(_guarded(_refactor(_name, NAME, 2)))

    @server.command(FORK)
    def fork(ls: PiLanguageServer, *args: Any) -> dict[str, Any] | None:
        return _answer(fork_command(ls, *args))

    @server.command(CONTEXT)
    def context(ls: PiLanguageServer, *args: Any) -> dict[str, Any] | None:
        return _answer(context_command(ls, *args))
