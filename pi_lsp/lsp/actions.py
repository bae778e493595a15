"""``textDocument/codeAction``: quick fixes, fix-all (migrate) and refactorings on an entry.

- Quick fixes (``quickfix``) for the pi-lsp diagnostics in the request's context, from
  :mod:`pi_lsp.core.repairs`, each attached to its diagnostic.
- ``source.fixAll.pi-lsp``: migrate the session to v3 (in v3: rename every
  ``hookMessage``).
- On the entry under the cursor: "Branch from here", "Add label" / "Clear label", "Name
  this session" (``refactor.rewrite``, edits appending one entry) and "Fork to a new
  session file" (``refactor.extract``, the ``pi-lsp.fork`` command, which writes a file).
- Book-dialect files: :func:`~pi_lsp.lsp.book_actions.book_code_actions` (pygls allows
  one handler per method, so they are answered here).

Edits are computed on ``codeAction/resolve`` when the client resolves edits lazily (a
migration rewrites every line; listing actions must stay cheap), else right away. Core
edits become LSP edits only here, in the negotiated position encoding, inside a
versioned ``TextDocumentEdit`` when the client accepts document changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsprotocol import types

from pi_lsp.core import refactor, repairs
from pi_lsp.core.analysis import Analysis
from pi_lsp.core.describe import clip, content_preview, entry_title
from pi_lsp.core.document import Document
from pi_lsp.core.edits import TextEdit
from pi_lsp.core.lines import Kind
from pi_lsp.core.report import SOURCE
from pi_lsp.core.text import Encoding, to_units

from .book_actions import book_code_actions
from .safety import isolated
from .server import PiLanguageServer

FIX_ALL = "source.fixAll.pi-lsp"
KINDS = [
    types.CodeActionKind.QuickFix,
    types.CodeActionKind.SourceFixAll,
    FIX_ALL,
    types.CodeActionKind.Refactor,
    types.CodeActionKind.RefactorRewrite,
    types.CodeActionKind.RefactorExtract,
]
FORK_COMMAND = "pi-lsp.fork"
DEFAULT_SUMMARY = "Summary of the branch left at line {line}: {title}"


# -- core edits -> LSP ----------------------------------------------------------------------


def _position(lines: list[str], line: int, column: int, encoding: Encoding) -> types.Position:
    text = lines[line] if 0 <= line < len(lines) else ""
    return types.Position(line=line, character=to_units(text, column, encoding))


def lsp_edits(
    lines: list[str], edits: Sequence[TextEdit], encoding: Encoding
) -> list[types.TextEdit]:
    """Core edits as LSP text edits (positions in ``encoding`` code units)."""
    return [
        types.TextEdit(
            range=types.Range(
                start=_position(lines, e.start[0], e.start[1], encoding),
                end=_position(lines, e.end[0], e.end[1], encoding),
            ),
            new_text=e.text,
        )
        for e in edits
    ]


def workspace_edit(
    ls: PiLanguageServer, doc: Document, edits: Sequence[TextEdit]
) -> types.WorkspaceEdit:
    """A workspace edit of the open ``doc``: versioned when the client takes document changes."""
    changes = lsp_edits(doc.lines, edits, ls.encoding)
    caps = ls.client_capabilities.workspace
    if caps and caps.workspace_edit and caps.workspace_edit.document_changes:
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=doc.uri, version=doc.version
                    ),
                    edits=list(changes),
                )
            ]
        )
    return types.WorkspaceEdit(changes={doc.uri: changes})


# -- what is offered ------------------------------------------------------------------------


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    if not only:
        return True
    return any(kind == k or kind.startswith(f"{k}.") for k in only)


def _lazy(ls: PiLanguageServer) -> bool:
    """True when the client resolves a code action's ``edit`` (codeAction/resolve)."""
    text = ls.client_capabilities.text_document
    action = text.code_action if text else None
    support = action.resolve_support if action else None
    return bool(support and "edit" in support.properties)


def _action(
    ls: PiLanguageServer,
    doc: Document,
    title: str,
    kind: str,
    data: dict[str, Any],
    diagnostics: list[types.Diagnostic] | None = None,
    preferred: bool | None = None,
) -> types.CodeAction:
    action = types.CodeAction(
        title=title,
        kind=kind,
        diagnostics=diagnostics,
        is_preferred=preferred,
        data={"uri": doc.uri, "version": doc.version, **data},
    )
    if not _lazy(ls):
        edits = _edits_for(doc.analysis, action.data)
        if edits is None:
            return action
        action.edit = workspace_edit(ls, doc, edits)
    return action


def _quick_fixes(
    ls: PiLanguageServer, doc: Document, params: types.CodeActionParams
) -> list[types.CodeAction]:
    out = []
    a = doc.analysis
    for diag in params.context.diagnostics:
        if diag.source != SOURCE or not isinstance(diag.code, str):
            continue
        line = diag.range.start.line
        for fix in repairs.fixes(a, diag.code, line):
            out.append(
                _action(
                    ls,
                    doc,
                    fix.title,
                    types.CodeActionKind.QuickFix,
                    {"op": "fix", "code": diag.code, "line": line, "title": fix.title},
                    [diag],
                    fix.preferred or None,
                )
            )
    return out


def _fix_all(ls: PiLanguageServer, doc: Document) -> list[types.CodeAction]:
    fix = repairs.fix_all(doc.analysis)
    if fix is None:
        return []
    return [_action(ls, doc, fix.title, FIX_ALL, {"op": "fixAll"})]


def _entry_line(a: Analysis, line: int) -> int | None:
    if 0 <= line < len(a.infos) and a.infos[line].kind is Kind.ENTRY:
        return line
    return None


def _session_name_default(a: Analysis) -> str:
    for line in a.tree.entries:
        message = a.infos[line].obj.get("message")
        if isinstance(message, dict) and message.get("role") == "user":
            text = content_preview(message.get("content"), 60)
            if text:
                return text
    return "Unnamed session"


def _refactorings(
    ls: PiLanguageServer, doc: Document, params: types.CodeActionParams
) -> list[types.CodeAction]:
    a = doc.analysis
    if a.fmt != "pi" or a.header_line is None:
        return []
    only = [str(k) for k in params.context.only or ()]
    rewrite = _wanted(types.CodeActionKind.RefactorRewrite.value, only)
    extract = _wanted(types.CodeActionKind.RefactorExtract.value, only)
    line = _entry_line(a, params.range.start.line)
    out: list[types.CodeAction] = []
    ident = a.infos[line].obj.get("id") if line is not None else None
    # v1 entries are named by line: ids appear only with the migration the fork runs first
    target = line if a.version < 2 else ident if isinstance(ident, str) else None
    if line is not None and extract and doc.path is not None and target is not None:
        out.append(
            types.CodeAction(
                title="Fork to a new session file (the path up to this entry)",
                kind=types.CodeActionKind.RefactorExtract,
                command=types.Command(
                    title="Fork to a new session file",
                    command=FORK_COMMAND,
                    arguments=[doc.uri, target],
                ),
            )
        )
    if a.version < 2 or not rewrite:
        return out
    if line is not None and isinstance(ident, str):
        out.append(
            _action(
                ls,
                doc,
                "Branch from here (append a branch_summary)",
                "refactor.rewrite",
                {"op": "branch", "line": line},
            )
        )
        labels = refactor.current_labels(a)
        current = labels.get(ident)
        default = f"checkpoint-{len(labels) + 1}"
        out.append(
            _action(
                ls,
                doc,
                f'Add label "{default}"'
                if current is None
                else f'Change label "{current[0]}" to "{default}"',
                "refactor.rewrite",
                {"op": "label", "line": line, "label": default},
            )
        )
        if current is not None:
            out.append(
                _action(
                    ls,
                    doc,
                    f'Clear label "{current[0]}"',
                    "refactor.rewrite",
                    {"op": "label", "line": line, "label": None},
                )
            )
    name = _session_name_default(a)
    out.append(
        _action(
            ls,
            doc,
            f'Name this session "{clip(name, 60)}"',
            "refactor.rewrite",
            {"op": "name", "name": name},
        )
    )
    return out


def _edits_for(a: Analysis, data: Any) -> list[TextEdit] | None:
    """The edits of an action described by its ``data`` (None when it no longer applies)."""
    if not isinstance(data, dict):
        return None
    op = data.get("op")
    if op == "fix":
        found = [
            f
            for f in repairs.fixes(a, data.get("code", ""), data.get("line", -1))
            if f.title == data.get("title")
        ]
        return found[0].edits() if found else None
    if op == "fixAll":
        fix = repairs.fix_all(a)
        return fix.edits() if fix is not None else None
    try:
        if op == "branch":
            line = data["line"]
            return refactor.branch(a, line, default_summary(a))
        if op == "label":
            return refactor.label(a, data["line"], data.get("label"))
        if op == "name":
            return refactor.name(a, str(data.get("name", "")))
    except refactor.RefactorError:
        return None
    return None


def default_summary(a: Analysis) -> str:
    """The summary "Branch from here" writes: which branch was left (editable afterwards)."""
    leaf = a.tree.leaf
    if leaf is None:
        return "Summary of the branch left behind"
    return DEFAULT_SUMMARY.format(line=leaf + 1, title=entry_title(a, leaf))


@isolated(default=None)
def _code_actions(
    ls: PiLanguageServer, params: types.CodeActionParams
) -> list[types.CodeAction] | None:
    doc = ls.document(params.text_document.uri)
    if doc is None:
        return None
    only = [str(k) for k in params.context.only or ()]
    out: list[types.CodeAction] = []
    if _wanted(types.CodeActionKind.QuickFix.value, only):
        out.extend(_quick_fixes(ls, doc, params))
    if _wanted(FIX_ALL, only):
        out.extend(_fix_all(ls, doc))
    out.extend(_refactorings(ls, doc, params))
    out.extend(book_code_actions(ls, params))
    return out


@isolated(default=None)
def _resolved(ls: PiLanguageServer, action: types.CodeAction) -> types.CodeAction | None:
    data = action.data
    if action.edit is not None or not isinstance(data, dict):
        return None
    doc = ls.document(str(data.get("uri")))
    if doc is None:
        return None
    edits = _edits_for(doc.analysis, data)
    if edits is None:
        return None
    action.edit = workspace_edit(ls, doc, edits)
    return action


def register(server: PiLanguageServer) -> None:
    """Register ``textDocument/codeAction`` and ``codeAction/resolve``."""

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=KINDS, resolve_provider=True),
    )
    def code_action(
        ls: PiLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        return _code_actions(ls, params)

    @server.feature(types.CODE_ACTION_RESOLVE)
    def resolve(ls: PiLanguageServer, action: types.CodeAction) -> types.CodeAction:
        return _resolved(ls, action) or action
