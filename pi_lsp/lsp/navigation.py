"""Go to definition from link values and find references of entries and tool calls."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from pi_lsp.core.analysis import Analysis
from pi_lsp.core.refs import (
    Site,
    Subject,
    Target,
    references_to,
    resolve,
    span_of,
    subject_at,
    tool_calls,
    tool_sites,
)

from . import lookup
from .safety import isolated
from .server import PiLanguageServer

ZERO = types.Range(
    start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
)


def _span(ls: PiLanguageServer, a: Analysis, line: int, path: tuple[str | int, ...]) -> types.Range:
    span = span_of(a, line, path) if path else a.line_span(line)
    return lookup.span_range(ls, a.lines, line, span.start, span.end)


def _link(
    ls: PiLanguageServer, a: Analysis, uri: str, target: Target, origin: types.Range
) -> types.Location | types.LocationLink:
    """A target as a LocationLink when the client supports it, else a Location."""
    text = ls.client_capabilities.text_document
    links = bool(text and text.definition and text.definition.link_support)
    if target.file is not None:
        file_uri = Path(target.file).as_uri()
        if links:
            return types.LocationLink(
                target_uri=file_uri,
                target_range=ZERO,
                target_selection_range=ZERO,
                origin_selection_range=origin,
            )
        return types.Location(uri=file_uri, range=ZERO)
    assert target.line is not None
    if target.path[:2] == ("message", "content"):
        # a toolCall block: the block itself, its id selected
        full = _span(ls, a, target.line, target.path)
        selection = _span(ls, a, target.line, (*target.path, "id"))
    else:
        full = lookup.lines_range(ls, a.lines, target.line, target.line)
        selection = _span(ls, a, target.line, target.path)
    if links:
        return types.LocationLink(
            target_uri=uri,
            target_range=full,
            target_selection_range=selection,
            origin_selection_range=origin,
        )
    return types.Location(uri=uri, range=full if target.path[:1] == ("message",) else selection)


def _site_location(ls: PiLanguageServer, a: Analysis, uri: str, site: Site) -> types.Location:
    return types.Location(uri=uri, range=_span(ls, a, site.line, site.path))


def _entry_references(
    ls: PiLanguageServer, a: Analysis, uri: str, line: int, declaration: bool
) -> list[types.Location]:
    out = []
    if declaration:
        path: tuple[str | int, ...] = ("id",) if line in a.tree.id_of else ()
        out.append(types.Location(uri=uri, range=_span(ls, a, line, path)))
    out += [_site_location(ls, a, uri, site) for site in references_to(a, line)]
    for _, ident in tool_calls(a.infos[line].obj):
        for result in tool_sites(a, ident)[1]:
            if any(t.line == line for t in resolve(a, result)):
                out.append(_site_location(ls, a, uri, result))
    return out


def _tool_references(
    ls: PiLanguageServer, a: Analysis, uri: str, subject: Subject, declaration: bool
) -> list[types.Location]:
    calls, results = tool_sites(a, subject.tool_id or "")
    out = []
    if declaration:
        out += [
            types.Location(uri=uri, range=_span(ls, a, n, ("message", "content", b, "id")))
            for n, b in calls
        ]
    return out + [_site_location(ls, a, uri, site) for site in results]


def register(server: PiLanguageServer) -> None:
    """Register textDocument/definition and textDocument/references."""

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @isolated()
    def definition(
        ls: PiLanguageServer, params: types.DefinitionParams
    ) -> list[types.Location] | list[types.LocationLink] | None:
        uri = params.text_document.uri
        where = lookup.at(ls, uri, params.position)
        if where is None:
            return None
        a = where.analysis
        subject = subject_at(a, where.line, where.column)
        if subject is None or subject.site is None:
            return None
        origin = lookup.span_range(ls, a.lines, where.line, *subject.span)
        found = [_link(ls, a, uri, t, origin) for t in resolve(a, subject.site)]
        if not found:
            return None
        if isinstance(found[0], types.LocationLink):
            return [f for f in found if isinstance(f, types.LocationLink)]
        return [f for f in found if isinstance(f, types.Location)]

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @isolated()
    def references(
        ls: PiLanguageServer, params: types.ReferenceParams
    ) -> list[types.Location] | None:
        uri = params.text_document.uri
        where = lookup.at(ls, uri, params.position)
        if where is None:
            return None
        a = where.analysis
        subject = subject_at(a, where.line, where.column)
        declaration = params.context.include_declaration
        if subject is None or subject.kind == "file":
            return None
        if subject.kind == "tool":
            return _tool_references(ls, a, uri, subject, declaration)
        if subject.line is None:
            return []
        return _entry_references(ls, a, uri, subject.line, declaration)
