"""Code actions and edit commands through a real LSP client.

Every quick fix is requested for its diagnostic, resolved, applied to the text here (the
client's side of ``WorkspaceEdit``), and the document re-checked: the diagnostic is gone,
no error was added, and only the lines the fix must change differ.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from pi_lsp.core.text.lineindex import Encoding, from_units, split_lines
from pi_lsp.core.text.textedit import TextEdit, apply_edits
from tests.core.pi_sessions import (
    assistant,
    changed_lines,
    doc,
    entry,
    header,
    hook,
    result,
    user,
)

from .conftest import SERVER, change_all, open_document

pytestmark = pytest.mark.slow  # one server per code action or command, 31 cases

A, B, C, D, E = (c * 8 for c in "abcde")

# ------------------------------------------------------------------------------ helpers


def apply_workspace_edit(
    text: str, edit: types.WorkspaceEdit, uri: str, encoding: Encoding = "utf-16"
) -> str:
    """What a client does with a workspace edit of one document."""
    changes: list[types.TextEdit] = []
    if edit.document_changes:
        for change in edit.document_changes:
            assert isinstance(change, types.TextDocumentEdit)
            assert change.text_document.uri == uri
            changes.extend(e for e in change.edits if isinstance(e, types.TextEdit))
    else:
        assert edit.changes is not None
        changes.extend(edit.changes[uri])
    split = split_lines(text)

    def pos(p: types.Position) -> tuple[int, int]:
        return p.line, from_units(split.lines[p.line], p.character, encoding)

    core = [TextEdit(pos(c.range.start), pos(c.range.end), c.new_text) for c in changes]
    return apply_edits(split, core)


def accept_edits(client: LanguageClient) -> list[types.ApplyWorkspaceEditParams]:
    """Answer workspace/applyEdit with success and record the requests."""
    received: list[types.ApplyWorkspaceEditParams] = []

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        received.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    return received


def _command_or_action(obj: Any, _: type) -> types.Command | types.CodeAction:
    """lsprotocol's hook takes every item with a ``command`` member for a ``Command``, even
    a ``CodeAction`` whose ``command`` is an object; real clients tell them apart."""
    converter = _converters[0]
    if isinstance(obj.get("command"), str):
        return converter.structure(obj, types.Command)
    return converter.structure(obj, types.CodeAction)


_converters: list[Any] = []


def _parse_code_actions_properly(client: LanguageClient) -> None:
    converter = client.protocol._converter
    if not _converters or _converters[0] is not converter:
        _converters[:] = [converter]
        converter.register_structure_hook(
            Union[types.Command, types.CodeAction],  # noqa: UP007 (the hook's exact key)
            _command_or_action,
        )


async def actions_at(
    client: LanguageClient,
    uri: str,
    rng: types.Range,
    diagnostics: list[types.Diagnostic],
    only: list[str] | None = None,
) -> list[types.CodeAction]:
    _parse_code_actions_properly(client)
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=rng,
            context=types.CodeActionContext(diagnostics=diagnostics, only=only),
        )
    )
    return [a for a in found or [] if isinstance(a, types.CodeAction)]


async def resolved(client: LanguageClient, action: types.CodeAction) -> types.WorkspaceEdit:
    if action.edit is None:
        action = await client.code_action_resolve_async(action)
    assert action.edit is not None, action.title
    return action.edit


def errors(diags: list[types.Diagnostic]) -> Counter[str]:
    return Counter(str(d.code) for d in diags if d.severity == types.DiagnosticSeverity.Error)


# ---------------------------------------------------------------------------- quick fixes


@dataclass
class Case:
    name: str
    text: str
    code: str
    line: int
    title: str
    replaced: set[int] = field(default_factory=set)
    deleted: set[int] = field(default_factory=set)


CASES = [
    Case(
        "PI002",
        doc(header(), user(A, None)) + '{"type":"message","id":"b',
        "PI002",
        2,
        "cut-off",
        deleted={2},
    ),
    Case("PI005", doc(header(), "", user(A, None)), "PI005", 1, "this blank", deleted={1}),
    Case(
        "PI103",
        doc(header(None), user(None, False), assistant(None, False)),
        "PI103",
        0,
        "Migrate",
        replaced={0, 1, 2},
    ),
    Case(
        "PI201",
        doc(
            header(),
            user(A, None),
            assistant(B, A, calls=("t",), stop="pending"),
            result(C, B, "t"),
            user(D, C),
        ),
        "PI201",
        2,
        "Remove the pending",
        deleted={2, 3},
        replaced={4},
    ),
    Case(
        "PI201-aborted",
        doc(header(), user(A, None), assistant(B, A, stop="pending")),
        "PI201",
        2,
        "aborted",
        replaced={2},
    ),
    Case(
        "PI300",
        doc(header(), user(A, None), user(None, False)),
        "PI300",
        2,
        "fresh id",
        replaced={2},
    ),
    Case(
        "PI301", doc(header(), user(A, None), hook(B, A)), "PI301", 2, "Rename role", replaced={2}
    ),
    Case(
        "PI302",
        doc(
            header(),
            user(A, None),
            entry("compaction", B, A, summary="s", firstKeptEntryIndex=1, tokensBefore=1),
        ),
        "PI302",
        2,
        "Convert",
        replaced={2},
    ),
    Case(
        "PI303",
        doc(header(1), user(A, None), user(B, A)),
        "PI303",
        0,
        "keeping the existing ids",
        replaced={0},
    ),
    Case(
        "PI400",
        doc(header(), user(A, None), user(B, "ghost123")),
        "PI400",
        2,
        "previous",
        replaced={2},
    ),
    Case(
        "PI400-root",
        doc(header(), user(A, None), user(B, "ghost123")),
        "PI400",
        2,
        "root",
        replaced={2},
    ),
    Case(
        "PI401",
        doc(header(), user(A, None), user(A, A, "dup"), user(C, A)),
        "PI401",
        2,
        "re-point",
        replaced={2, 3},
    ),
    Case(
        "PI402",
        doc(header(), user(A, None), user(B, C), user(C, B)),
        "PI402",
        2,
        "previous",
        replaced={2},
    ),
    Case(
        "PI420",
        doc(header(), user(A, None), result(B, A, "none"), user(C, B)),
        "PI420",
        2,
        "orphaned",
        deleted={2},
        replaced={3},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_quick_fix_through_the_server(client: LanguageClient, case: Case) -> None:
    uri = f"file:///tmp/pi-lsp-test/fix-{case.name}.jsonl"
    diags = await open_document(client, case.text, uri)
    [diag] = [d for d in diags if d.code == case.code and d.range.start.line == case.line]
    actions = await actions_at(client, uri, diag.range, [diag])
    fixes = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
    [action] = [a for a in fixes if case.title in a.title]
    assert list(action.diagnostics or []) == [diag]
    edit = await resolved(client, action)
    if edit.document_changes:
        [change] = edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.version == 1
    out = apply_workspace_edit(case.text, edit, uri)
    assert changed_lines(case.text, out, case.deleted) == case.replaced
    after = await change_all(client, uri, out, 2)
    codes = Counter(str(d.code) for d in after)
    assert codes[case.code] < Counter(str(d.code) for d in diags)[case.code]
    assert not errors(after) - errors(diags), after


# ----------------------------------------------------- eager edits, UTF-8, no documentChanges


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def eager_client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    """A client that does not resolve code actions, speaks UTF-8 and takes plain changes."""
    caps = client_capabilities("visual-studio-code")
    assert caps.text_document and caps.text_document.code_action and caps.workspace
    caps.text_document.code_action.resolve_support = None
    caps.general = types.GeneralClientCapabilities(
        position_encodings=[types.PositionEncodingKind.Utf8]
    )
    assert caps.workspace.workspace_edit
    caps.workspace.workspace_edit.document_changes = False
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=caps, root_uri=None, process_id=None)
    )
    yield
    await lsp_client.shutdown_session()


async def test_edits_come_eagerly_in_utf8(eager_client: LanguageClient) -> None:
    uri = "file:///tmp/pi-lsp-test/eager.jsonl"
    text = doc(header(), user(A, None, "日本語 🚀 \u2028 x"), user(B, "ghost123", "ü🚀"))
    diags = await open_document(eager_client, text, uri)
    [diag] = [d for d in diags if d.code == "PI400"]
    actions = await actions_at(eager_client, uri, diag.range, [diag], only=["quickfix"])
    action = next(a for a in actions if "previous" in a.title)
    assert action.edit is not None and action.edit.changes is not None
    out = apply_workspace_edit(text, action.edit, uri, "utf-8")
    assert changed_lines(text, out) == {2}
    assert json.loads(out.split("\n")[2])["parentId"] == A


# ------------------------------------------------------------------- fix all, refactorings


async def test_fix_all_migrates(client: LanguageClient) -> None:
    uri = "file:///tmp/pi-lsp-test/fixall.jsonl"
    text = doc(header(2), user(A, None), hook(B, A))
    await open_document(client, text, uri)
    rng = types.Range(
        start=types.Position(line=1, character=0), end=types.Position(line=1, character=0)
    )
    actions = await actions_at(client, uri, rng, [], only=["source.fixAll"])
    [action] = actions
    assert action.kind == "source.fixAll.pi-lsp" and action.title == "Migrate session v2 to v3"
    out = apply_workspace_edit(text, await resolved(client, action), uri)
    assert changed_lines(text, out) == {0, 2}
    assert await change_all(client, uri, out, 2) == []


async def test_a_fix_is_named_by_a_stable_id_and_refused_once_stale(
    client: LanguageClient,
) -> None:
    uri = "file:///tmp/pi-lsp-test/stale.jsonl"
    text = doc(header(), user(A, None), user(B, "ghost"))
    diags = await open_document(client, text, uri)
    [dangling] = [d for d in diags if d.code == "PI400"]
    actions = await actions_at(client, uri, dangling.range, [dangling])
    [reparent] = [a for a in actions if a.title.startswith("Re-parent")]
    assert isinstance(reparent.data, dict)
    assert (reparent.data["fix"], reparent.data["version"]) == ("reparent", 1)
    # the title is for people: resolving finds the fix by code, line and key
    reparent.title = "something else"
    out = apply_workspace_edit(text, await resolved(client, reparent), uri)
    assert json.loads(out.split("\n")[2])["parentId"] == A
    # once the document has moved on, an action offered for version 1 is refused
    await change_all(client, uri, text.replace("ghost", "ghost2"), 2)
    reparent.edit = None
    with pytest.raises(JsonRpcException) as refused:
        await client.code_action_resolve_async(reparent)
    assert refused.value.code == types.LSPErrorCodes.ContentModified


async def test_refactorings_on_an_entry(client: LanguageClient) -> None:
    uri = "file:///tmp/pi-lsp-test/refactor.jsonl"
    text = doc(
        header(),
        user(A, None, "first question"),
        assistant(B, A),
        entry("label", C, B, targetId=A, label="start"),
        user(D, C, "second"),
    )
    await open_document(client, text, uri)
    rng = types.Range(
        start=types.Position(line=1, character=5), end=types.Position(line=1, character=5)
    )
    actions = await actions_at(client, uri, rng, [])
    titles = [(a.title, a.kind) for a in actions]
    assert titles == [
        ("Fork to a new session file (the path up to this entry)", "refactor.extract"),
        ("Branch from here (append a branch_summary)", "refactor.rewrite"),
        ('Change label "start" to "checkpoint-2"', "refactor.rewrite"),
        ('Clear label "start"', "refactor.rewrite"),
        ('Name this session "first question"', "refactor.rewrite"),
    ]
    fork = actions[0]
    assert fork.command is not None and list(fork.command.arguments or ()) == [uri, A]
    version = 1
    for title, _ in titles[1:]:
        # actions are offered anew for each version: one of an older version is refused
        [action] = [a for a in await actions_at(client, uri, rng, []) if a.title == title]
        out = apply_workspace_edit(text, await resolved(client, action), uri)
        assert out.startswith(text) and out.count("\n") == text.count("\n") + 1
        appended = json.loads(out.split("\n")[-2])
        if appended["type"] == "branch_summary":  # a child of the entry, from the leaf
            assert (appended["parentId"], appended["fromId"]) == (A, D)
        else:  # appended under the current leaf
            assert appended["parentId"] == D
        version += 1
        after = await change_all(client, uri, out, version)
        assert not errors(after)
        version += 1
        await change_all(client, uri, text, version)


async def test_only_refactor_kinds(client: LanguageClient) -> None:
    uri = "file:///tmp/pi-lsp-test/only.jsonl"
    text = doc(header(), user(A, None), user(B, "ghost123"))
    diags = await open_document(client, text, uri)
    rng = diags[0].range
    kinds = {a.kind for a in await actions_at(client, uri, rng, diags, only=["refactor.extract"])}
    assert kinds == {"refactor.extract"}
    kinds = {a.kind for a in await actions_at(client, uri, rng, diags, only=["quickfix"])}
    assert kinds == {"quickfix"}


async def test_v1_offers_fork_by_line_and_migration_only(client: LanguageClient) -> None:
    uri = "file:///tmp/pi-lsp-test/v1.jsonl"
    text = doc(header(None), user(None, False), assistant(None, False))
    await open_document(client, text, uri)
    rng = types.Range(
        start=types.Position(line=2, character=0), end=types.Position(line=2, character=0)
    )
    actions = await actions_at(client, uri, rng, [])
    assert [a.title for a in actions] == [
        "Migrate session v1 to v3",
        "Fork to a new session file (the path up to this entry)",
    ]
    assert actions[1].command is not None and list(actions[1].command.arguments or ()) == [uri, 2]


# -------------------------------------------------------------------------------- commands


async def run(client: LanguageClient, command: str, *args: object) -> object:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=list(args))
    )


async def test_edit_commands_on_an_open_document(client: LanguageClient) -> None:
    received = accept_edits(client)
    uri = "file:///tmp/pi-lsp-test/commands.jsonl"
    text = doc(header(2), user(A, None), hook(B, A), assistant(C, B))
    await open_document(client, text, uri, version=7)
    assert await run(client, "pi-lsp.migrate", uri) == {"applied": True, "from": 2}
    [params] = received
    [change] = params.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit) and change.text_document.version == 7
    migrated = apply_workspace_edit(text, params.edit, uri)
    assert changed_lines(text, migrated) == {0, 2}
    await change_all(client, uri, migrated, 8)

    for command, args, kind in [
        ("pi-lsp.branch", [A, "went elsewhere"], "branch_summary"),
        ("pi-lsp.label", [B, "here"], "label"),
        ("pi-lsp.label", [B, None], "label"),
        ("pi-lsp.name", ["  My session "], "session_info"),
    ]:
        received.clear()
        answer = await run(client, command, uri, *args)
        assert isinstance(answer, dict) and answer["applied"] is True
        [params] = received
        out = apply_workspace_edit(migrated, params.edit, uri)
        obj = json.loads(out.split("\n")[-2])
        assert obj["type"] == kind and obj["id"] == answer["id"]
        assert out.startswith(migrated)
    assert obj["name"] == "My session"

    context = await run(client, "pi-lsp.context", uri, None)
    assert context == {
        "leaf": {"line": 3, "id": "cccccccc"},
        "messages": [
            {"role": "user", "text": "hello", "line": 1, "title": "user: hello"},
            {"role": "custom", "text": "injected", "line": 2, "title": "custom ext: injected"},
            {"role": "assistant", "text": "hi", "line": 3, "title": "assistant: hi"},
        ],
        "thinkingLevel": "off",
        "model": {"provider": "anthropic", "modelId": "claude-sonnet-4-5"},
        "sent": [
            {"role": "user", "line": 1},
            {"role": "user", "line": 2},
            {"role": "assistant", "line": 3, "toolCallIds": []},
        ],
    }
    context = await run(client, "pi-lsp.context", uri, A)
    assert isinstance(context, dict) and [m["line"] for m in context["messages"]] == [1]


async def test_fork_command_writes_beside_the_file(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "2026-01-01T00-00-00-000Z_x.jsonl"
    text = doc(header(), user(A, None), assistant(B, A), user(C, B))
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    await open_document(client, text, uri)
    answer = await run(client, "pi-lsp.fork", uri, B)
    assert isinstance(answer, dict)
    new = Path(answer["path"])
    assert new.parent == tmp_path and new.name.endswith(".jsonl") and new.exists()
    lines = new.read_text(encoding="utf-8").split("\n")
    assert json.loads(lines[0])["parentSession"] == str(path)
    assert [json.loads(x)["id"] for x in lines[1:-1]] == [A, B]
    assert path.read_text(encoding="utf-8") == text


async def test_v1_entries_by_tree_node_id(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "v1.jsonl"
    text = doc(header(None), user(None, False), assistant(None, False), user(None, False))
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    await open_document(client, text, uri)
    context = await run(client, "pi-lsp.context", uri, "L2")
    assert isinstance(context, dict) and [m["line"] for m in context["messages"]] == [1, 2]
    answer = await run(client, "pi-lsp.fork", uri, "L2")
    assert isinstance(answer, dict)
    lines = Path(answer["path"]).read_text(encoding="utf-8").split("\n")
    assert [json.loads(x)["message"]["role"] for x in lines[1:-1]] == ["user", "assistant"]


async def test_commands_on_a_file_that_is_not_open(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "closed.jsonl"
    text = doc(header(None), user(None, False), assistant(None, False))
    path.write_text(text, encoding="utf-8")
    assert await run(client, "pi-lsp.migrate", path.as_uri()) == {"applied": True, "from": 1}
    assert (tmp_path / "closed.jsonl.bak").read_text(encoding="utf-8") == text
    migrated = path.read_text(encoding="utf-8")
    assert json.loads(migrated.split("\n")[0])["version"] == 3
    answer = await run(client, "pi-lsp.name", path.as_uri(), "closed")
    assert isinstance(answer, dict) and answer["applied"] is True
    assert path.read_text(encoding="utf-8").startswith(migrated)


@pytest.mark.parametrize(
    ("command", "args", "message"),
    [
        ("pi-lsp.label", ["ghost123", "x"], "no entry"),
        ("pi-lsp.branch", [A], "expects 3 arguments"),
        ("pi-lsp.name", [5], "must be a string"),
        ("pi-lsp.fork", [A], "only a file on disk"),
        ("pi-lsp.context", [{"x": 1}], "leaf must be"),
        ("pi-lsp.context", ["ghost123"], "no entry with id 'ghost123'"),
        ("pi-lsp.context", [99], "line 100 holds no entry"),
    ],
)
async def test_command_argument_errors(
    client: LanguageClient, command: str, args: list[object], message: str
) -> None:
    uri = "untitled:session.jsonl"
    await open_document(client, doc(header(), user(A, None)), uri)
    with pytest.raises(JsonRpcException, match=message):
        await run(client, command, uri, *args)
