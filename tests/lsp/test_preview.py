"""``pi-lsp.preview`` end to end: the conversation along a leaf, as the editors receive it."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from tests.core.pi_sessions import assistant, doc, entry, header, user
from tests.lsp.conftest import open_document

URI = "file:///tmp/pi-lsp-test/preview.jsonl"

# header, u1 → a1 → (u2 → a2 | u3 → a3): a branch point at a1; the last line (a3) is the leaf
TEXT = doc(
    header(),
    user("u1", None, "first <script>alert(1)</script> question"),
    assistant("a1", "u1", "an **answer**"),
    user("u2", "a1", "left branch"),
    assistant("a2", "u2", "left answer"),
    user("u3", "a1", "right branch"),
    assistant("a3", "u3", "right answer"),
    entry("label", "l1", "a3", targetId="zzzzzzzz", label="x"),
)


async def preview(client: LanguageClient, *args: Any) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="pi-lsp.preview", arguments=list(args))
    )


async def test_html_fragment_items_and_branches(client: LanguageClient) -> None:
    await open_document(client, TEXT, URI)
    out = await preview(client, URI)
    assert out["uri"] == URI and out["version"] == 1
    assert out["leafId"] == out["resumedLeafId"] == "l1"
    assert [(i["line"], i["kind"]) for i in out["items"]] == [
        (1, "user"),
        (2, "assistant"),
        (5, "user"),
        (6, "assistant"),
        (7, "label"),
    ]
    assert all(i["previewLine"] == -1 for i in out["items"])
    assert out["markdown"] == ""
    html = out["html"]
    assert '<section class="pi-item pi-user" data-line="1"' in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<strong>answer</strong>" in html
    assert '<a class="pi-branch pi-current" data-leaf="l1"' in html
    assert 'data-leaf="a2"' in html
    assert 'class="pi-finding pi-' in html and 'data-code="PI' in html  # the dangling label
    assert out["branches"] == [
        {
            "line": 2,
            "id": "a1",
            "leaves": [
                {"id": "a2", "title": "user: left branch", "current": False},
                {"id": "l1", "title": "user: right branch", "current": True},
            ],
        }
    ]


async def test_markdown_and_switching_leaf(client: LanguageClient) -> None:
    await open_document(client, TEXT, URI)
    out = await preview(client, URI, {"leaf": "a2", "format": "markdown"})
    assert out["leafId"] == "a2" and out["resumedLeafId"] == "l1"
    assert [i["line"] for i in out["items"]] == [1, 2, 3, 4]
    lines = out["markdown"].split("\n")
    for item in out["items"]:
        assert f"line {item['line'] + 1}" in lines[item["previewLine"]]
    assert "left answer" in out["markdown"] and "right answer" not in out["markdown"]
    assert out["html"] == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([URI, {"leaf": "nope"}], "no entry with id 'nope'"),
        ([URI, {"format": "pdf"}], "format must be"),
        ([URI, {"around": "12"}], "around must be"),
        ([URI, {"leaf": 3}], "leaf must be"),
        ([URI, "a2"], "options must be an object"),
        (["file:///tmp/pi-lsp-test/missing.jsonl"], "missing.jsonl"),
    ],
)
async def test_invalid_params(client: LanguageClient, args: list[Any], message: str) -> None:
    await open_document(client, TEXT, URI)
    with pytest.raises(JsonRpcInvalidParams, match=message):
        await preview(client, *args)


async def test_follows_an_append(client: LanguageClient) -> None:
    await open_document(client, TEXT, URI)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=2),
            content_changes=[
                types.TextDocumentContentChangeWholeDocument(
                    text=TEXT + user("u4", "l1", "appended later") + "\n"
                )
            ],
        )
    )
    out = await preview(client, URI)
    assert out["version"] == 2
    assert out["items"][-1] == {"line": 8, "kind": "user", "previewLine": -1, "rendered": True}
    assert "appended later" in out["html"]


async def test_long_conversation_renders_a_window(client: LanguageClient) -> None:
    chain = [user("e0", None, "turn 0")]
    chain += [user(f"e{n}", f"e{n - 1}", f"turn {n}") for n in range(1, 500)]
    await open_document(client, doc(header(), *chain), URI)
    end = await preview(client, URI, {"format": "markdown"})
    rendered = [i["line"] for i in end["items"] if i["rendered"]]
    assert len(end["items"]) == 500 and rendered == list(range(101, 501))
    assert "turn 499" in end["markdown"] and "\nturn 10\n" not in end["markdown"]
    middle = await preview(client, URI, {"around": 50})
    rendered = [i["line"] for i in middle["items"] if i["rendered"]]
    assert rendered == list(range(1, 401))
    assert (
        "<p>turn 10</p>" in middle["html"] and 'class="pi-item pi-user pi-stub"' in middle["html"]
    )
