"""``textDocument/codeAction``: quick fixes, fix-all (migrate) and refactorings on an entry.

- Quick fixes (``quickfix``) for the pi-lsp diagnostics in the request's context, from
  :mod:`pi_lsp.core.edits.repairs`, each attached to its diagnostic.
- ``source.fixAll.pi-lsp``: migrate the session to v3 (in v3: rename every
  ``hookMessage``).
- On the entry under the cursor: "Branch from here", "Add label" / "Clear label", "Name
  this session" (``refactor.rewrite``, edits appending one entry) and "Fork to a new
  session file" (``refactor.extract``, the ``pi-lsp.fork`` command, which writes a file).
- Book-dialect files: :func:`~pi_lsp.lsp.features.book_actions.book_code_actions` (pygls allows
  one handler per method, so they are answered here).

Actions edit the document, so they are computed on the analysis of the current text.
Edits are computed on ``codeAction/resolve`` when the client resolves edits lazily (a
migration rewrites every line; listing actions must stay cheap), else right away. An
action's ``data`` names it by a stable id (the fix's code, line and key; or the
refactoring and its entry) and the document version it was offered for: resolve refuses
an action of an older version with ContentModified.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from pi_lsp.core.checks.document import Snapshot
from pi_lsp.core.edits import refactor, repairs
from pi_lsp.core.entries.lines import Kind
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.text.textedit import TextEdit
from pi_lsp.core.views.describe import clip, content_preview, entry_title

from .. import commands, proto, requests
from ..server import PiLanguageServer
from ..wire import SOURCE
from .book_actions import book_code_actions

FIX_ALL = "source.fixAll.pi-lsp"
KINDS = [
    types.CodeActionKind.QuickFix,
    types.CodeActionKind.SourceFixAll,
    FIX_ALL,
    types.CodeActionKind.Refactor,
    types.CodeActionKind.RefactorRewrite,
    types.CodeActionKind.RefactorExtract,
]
DEFAULT_SUMMARY = "Summary of the branch left at line {line}: {title}"


# -- what is offered ------------------------------------------------------------------------


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    if not only:
        return True
    return any(kind == k or kind.startswith(f"{k}.") for k in only)


def _lazy(caps: types.ClientCapabilities) -> bool:
    """True when the client resolves a code action's ``edit`` (codeAction/resolve)."""
    text = caps.text_document
    action = text.code_action if text else None
    support = action.resolve_support if action else None
    return bool(support and "edit" in support.properties)


@dataclass(frozen=True, slots=True)
class _Offer:
    """What the actions of one request are computed from."""

    snap: Snapshot
    frame: proto.Frame
    caps: types.ClientCapabilities

    @property
    def analysis(self) -> Analysis:
        return self.snap.analysis

    def edit(self, edits: Sequence[TextEdit]) -> types.WorkspaceEdit:
        """``edits`` of this document as a workspace edit stamped with its version."""
        return proto.workspace_edit(
            self.caps, self.snap.uri, self.snap.version, self.frame.text_edits(edits)
        )

    def action(
        self,
        title: str,
        kind: str,
        data: dict[str, Any],
        diagnostics: list[types.Diagnostic] | None = None,
        preferred: bool | None = None,
    ) -> types.CodeAction:
        """An action named by ``data`` (its edit now, or on resolve for a lazy client)."""
        action = types.CodeAction(
            title=title,
            kind=kind,
            diagnostics=diagnostics,
            is_preferred=preferred,
            data={"uri": self.snap.uri, "version": self.snap.version, **data},
        )
        if not _lazy(self.caps):
            edits = _edits_for(self.analysis, action.data)
            if edits is not None:
                action.edit = self.edit(edits)
        return action


def _quick_fixes(offer: _Offer, params: types.CodeActionParams) -> list[types.CodeAction]:
    out = []
    for diag in params.context.diagnostics:
        if diag.source != SOURCE or not isinstance(diag.code, str):
            continue
        line = diag.range.start.line
        for fix in repairs.fixes(offer.analysis, diag.code, line):
            out.append(
                offer.action(
                    fix.title,
                    types.CodeActionKind.QuickFix,
                    {"op": "fix", "code": diag.code, "line": line, "fix": fix.key},
                    [diag],
                    fix.preferred or None,
                )
            )
    return out


def _fix_all(offer: _Offer) -> list[types.CodeAction]:
    fix = repairs.fix_all(offer.analysis)
    if fix is None:
        return []
    return [offer.action(fix.title, FIX_ALL, {"op": "fixAll"})]


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


def _refactorings(offer: _Offer, params: types.CodeActionParams) -> list[types.CodeAction]:
    a = offer.analysis
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
    if line is not None and extract and a.path is not None and target is not None:
        out.append(
            types.CodeAction(
                title="Fork to a new session file (the path up to this entry)",
                kind=types.CodeActionKind.RefactorExtract,
                command=types.Command(
                    title="Fork to a new session file",
                    command=commands.FORK,
                    arguments=[offer.snap.uri, target],
                ),
            )
        )
    if a.version < 2 or not rewrite:
        return out
    if line is not None and isinstance(ident, str):
        out.append(
            offer.action(
                "Branch from here (append a branch_summary)",
                "refactor.rewrite",
                {"op": "branch", "line": line},
            )
        )
        labels = refactor.current_labels(a)
        current = labels.get(ident)
        default = f"checkpoint-{len(labels) + 1}"
        out.append(
            offer.action(
                f'Add label "{default}"'
                if current is None
                else f'Change label "{current[0]}" to "{default}"',
                "refactor.rewrite",
                {"op": "label", "line": line, "label": default},
            )
        )
        if current is not None:
            out.append(
                offer.action(
                    f'Clear label "{current[0]}"',
                    "refactor.rewrite",
                    {"op": "label", "line": line, "label": None},
                )
            )
    name = _session_name_default(a)
    out.append(
        offer.action(
            f'Name this session "{clip(name, 60)}"',
            "refactor.rewrite",
            {"op": "name", "name": name},
        )
    )
    return out


def _edits_for(a: Analysis, data: Any) -> list[TextEdit] | None:
    """The edits of an action named by its ``data`` (None when it no longer applies)."""
    if not isinstance(data, dict):
        return None
    op = data.get("op")
    if op == "fix":
        found = [
            f
            for f in repairs.fixes(a, str(data.get("code", "")), _int(data.get("line")))
            if f.key == data.get("fix")
        ]
        return found[0].edits() if found else None
    if op == "fixAll":
        fix = repairs.fix_all(a)
        return fix.edits() if fix is not None else None
    try:
        if op == "branch":
            return refactor.branch(a, _int(data.get("line")), default_summary(a))
        if op == "label":
            label = data.get("label")
            return refactor.label(
                a, _int(data.get("line")), label if isinstance(label, str) else None
            )
        if op == "name":
            return refactor.name(a, str(data.get("name", "")))
    except refactor.RefactorError:
        return None
    return None


def _int(value: Any) -> int:
    """A line number from an action's data (-1, which names nothing, when it is none)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def default_summary(a: Analysis) -> str:
    """The summary "Branch from here" writes: which branch was left (editable afterwards)."""
    leaf = a.tree.leaf
    if leaf is None:
        return "Summary of the branch left behind"
    return DEFAULT_SUMMARY.format(line=leaf + 1, title=entry_title(a, leaf))


def register(server: PiLanguageServer) -> None:
    """Register ``textDocument/codeAction`` and ``codeAction/resolve``."""

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=KINDS, resolve_provider=True),
    )
    async def code_action(
        ls: PiLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        caps = ls.client_capabilities
        only = [str(k) for k in params.context.only or ()]

        def work(snap: Snapshot, frame: proto.Frame) -> list[types.CodeAction]:
            offer = _Offer(snap, frame, caps)
            out: list[types.CodeAction] = []
            if _wanted(types.CodeActionKind.QuickFix.value, only):
                out.extend(_quick_fixes(offer, params))
            if _wanted(FIX_ALL, only):
                out.extend(_fix_all(offer))
            out.extend(_refactorings(offer, params))
            out.extend(book_code_actions(snap, frame, params, caps))
            return out

        return await requests.on_current(ls, params.text_document.uri, work)

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(ls: PiLanguageServer, action: types.CodeAction) -> types.CodeAction:
        data = action.data
        if action.edit is not None or not isinstance(data, dict):
            return action
        uri = str(data.get("uri"))
        doc = ls.documents.get(uri)
        if doc is None:
            return action
        if data.get("version") != doc.version:
            raise requests.content_modified(uri)
        caps = ls.client_capabilities

        def work(snap: Snapshot, frame: proto.Frame) -> types.CodeAction:
            if snap.version != data.get("version"):
                raise requests.content_modified(uri)
            edits = _edits_for(snap.analysis, data)
            if edits is not None:
                action.edit = _Offer(snap, frame, caps).edit(edits)
            return action

        return await requests.on_current(ls, uri, work) or action
