"""Go to definition from link values and find references of entries and tool calls."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from pi_lsp.core.checks.document import Snapshot
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.pi.sent import entry_calls
from pi_lsp.core.views.refs import (
    Subject,
    Target,
    references_to,
    resolve,
    span_of,
    subject_at,
    tool_sites,
)

from .. import proto, requests
from ..proto import Frame
from ..server import PiLanguageServer


def _span(a: Analysis, frame: Frame, line: int, path: tuple[str | int, ...]) -> types.Range | None:
    return frame.span(span_of(a, line, path) if path else a.line_span(line))


def _link(
    a: Analysis, frame: Frame, uri: str, target: Target, origin: types.Range | None, links: bool
) -> types.Location | types.LocationLink | None:
    """A target as a LocationLink when the client supports it, else a Location."""
    if target.file is not None:
        file_uri = Path(target.file).as_uri()
        if links:
            return types.LocationLink(
                target_uri=file_uri,
                target_range=proto.FILE_START,
                target_selection_range=proto.FILE_START,
                origin_selection_range=origin,
            )
        return types.Location(uri=file_uri, range=proto.FILE_START)
    assert target.line is not None
    if target.path[:2] == ("message", "content"):
        # a toolCall block: the block itself, its id selected
        full = _span(a, frame, target.line, target.path)
        selection = _span(a, frame, target.line, (*target.path, "id"))
    else:
        full = frame.block(target.line, target.line)
        selection = _span(a, frame, target.line, target.path)
    if full is None or selection is None:
        return None
    if links:
        return types.LocationLink(
            target_uri=uri,
            target_range=full,
            target_selection_range=selection,
            origin_selection_range=origin,
        )
    return types.Location(uri=uri, range=full if target.path[:1] == ("message",) else selection)


def _location(
    a: Analysis, frame: Frame, uri: str, line: int, path: tuple[str | int, ...]
) -> list[types.Location]:
    where = _span(a, frame, line, path)
    return [] if where is None else [types.Location(uri=uri, range=where)]


def _entry_references(
    a: Analysis, frame: Frame, uri: str, line: int, declaration: bool
) -> list[types.Location]:
    out = []
    if declaration:
        out += _location(a, frame, uri, line, ("id",) if line in a.tree.id_of else ())
    for site in references_to(a, line):
        out += _location(a, frame, uri, site.line, site.path)
    for _, ident in entry_calls(a.infos[line].obj):
        for result in tool_sites(a, ident)[1]:
            if any(t.line == line for t in resolve(a, result)):
                out += _location(a, frame, uri, result.line, result.path)
    return out


def _tool_references(
    a: Analysis, frame: Frame, uri: str, subject: Subject, declaration: bool
) -> list[types.Location]:
    calls, results = tool_sites(a, subject.tool_id or "")
    out = []
    if declaration:
        for n, b in calls:
            out += _location(a, frame, uri, n, ("message", "content", b, "id"))
    for site in results:
        out += _location(a, frame, uri, site.line, site.path)
    return out


def _link_support(ls: PiLanguageServer) -> bool:
    text = ls.client_capabilities.text_document
    return bool(text and text.definition and text.definition.link_support)


def register(server: PiLanguageServer) -> None:
    """Register textDocument/definition and textDocument/references."""

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def definition(
        ls: PiLanguageServer, params: types.DefinitionParams
    ) -> list[types.Location] | list[types.LocationLink] | None:
        uri = params.text_document.uri
        links = _link_support(ls)

        def work(
            snap: Snapshot, frame: Frame
        ) -> list[types.Location] | list[types.LocationLink] | None:
            a = snap.analysis
            line, column = requests.at(frame, params.position, uri)
            subject = subject_at(a, line, column)
            if subject is None or subject.site is None:
                return None
            origin = frame.range(line, *subject.span)
            found = [_link(a, frame, uri, t, origin, links) for t in resolve(a, subject.site)]
            if links:
                return [f for f in found if isinstance(f, types.LocationLink)] or None
            return [f for f in found if isinstance(f, types.Location)] or None

        return await requests.on_snapshot(ls, uri, work)

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def references(
        ls: PiLanguageServer, params: types.ReferenceParams
    ) -> list[types.Location] | None:
        uri = params.text_document.uri
        declaration = params.context.include_declaration

        def work(snap: Snapshot, frame: Frame) -> list[types.Location] | None:
            a = snap.analysis
            line, column = requests.at(frame, params.position, uri)
            subject = subject_at(a, line, column)
            if subject is None or subject.kind == "file":
                return None
            if subject.kind == "tool":
                return _tool_references(a, frame, uri, subject, declaration)
            if subject.line is None:
                return []
            return _entry_references(a, frame, uri, subject.line, declaration)

        return await requests.on_snapshot(ls, uri, work)
