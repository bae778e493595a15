"""Workspace commands ``pi-lsp.tree`` and ``pi-lsp.stats``: the tree and the totals as JSON.

Both take a document URI; a file that is not open is read from disk. An unreadable
URI is an error response; any other failure is logged and answered with null.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from pi_lsp.core.analysis import Analysis, analyze
from pi_lsp.core.describe import session_totals
from pi_lsp.core.files import read_lines
from pi_lsp.core.treedata import tree_json

from .safety import isolated
from .server import PiLanguageServer

TREE = "pi-lsp.tree"
STATS = "pi-lsp.stats"


class _Unreadable(ValueError):
    """The URI names no open document and no readable file."""


def _analysis(ls: PiLanguageServer, uri: str) -> Analysis:
    doc = ls.documents.get(uri)
    if doc is not None:
        return doc.analysis
    if not uri.startswith("file:"):
        raise _Unreadable(f"{uri} is not open and not a file")
    path = to_fs_path(uri) or uri
    try:
        lines = read_lines(Path(path))
    except OSError as exc:
        raise _Unreadable(f"cannot read {path}: {exc.strerror}") from exc
    return analyze(lines, path, ls.options)


@isolated()
def _tree(ls: PiLanguageServer, uri: str) -> dict[str, Any] | _Unreadable:
    try:
        a = _analysis(ls, uri)
    except _Unreadable as exc:
        return exc
    return {"uri": uri, **tree_json(a)}


@isolated()
def _stats(ls: PiLanguageServer, uri: str) -> dict[str, Any] | _Unreadable:
    try:
        a = _analysis(ls, uri)
    except _Unreadable as exc:
        return exc
    return {"uri": uri, **session_totals(a).as_json()}


def _answer(result: dict[str, Any] | _Unreadable | None) -> dict[str, Any] | None:
    if isinstance(result, _Unreadable):
        raise JsonRpcInvalidParams(str(result))
    return result


def register(server: PiLanguageServer) -> None:
    """Register the pi-lsp.tree and pi-lsp.stats commands (argument: the document URI)."""

    @server.command(TREE)
    def tree(ls: PiLanguageServer, uri: str) -> dict[str, Any] | None:
        return _answer(_tree(ls, uri))

    @server.command(STATS)
    def stats(ls: PiLanguageServer, uri: str) -> dict[str, Any] | None:
        return _answer(_stats(ls, uri))
