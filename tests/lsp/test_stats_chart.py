"""``pi-lsp.statsChart``: the stats page of one session, for the VS Code Session Chart."""

from __future__ import annotations

import json
import re

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from .conftest import open_document

pytestmark = pytest.mark.slow  # one server per case

SESSION = "\n".join(
    json.dumps(e)
    for e in [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00Z", "cwd": "/"},
        {"type": "message", "id": "u1", "parentId": None, "timestamp": "2025-01-01T00:00:01Z",
         "message": {"role": "user", "content": "hi"}},
        {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2025-01-01T00:00:02Z",
         "message": {"role": "assistant", "content": [], "provider": "p", "model": "m",
                     "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.25}}}},
    ]
)


async def test_the_page_of_an_open_document(client: LanguageClient) -> None:
    uri = "file:///tmp/pi-lsp-test/chart.jsonl"
    await open_document(client, SESSION, uri)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="pi-lsp.statsChart", arguments=[uri])
    )
    assert result["uri"] == uri
    data = re.search(r'id="pi-lsp-stats">(.*?)</script>', result["html"], re.S)
    assert data is not None
    file = json.loads(data.group(1))["files"][0]
    assert file["total"]["cost"] == 0.25 and file["turns"][0]["context"] == 15


async def test_a_file_that_cannot_be_read_is_an_error(client: LanguageClient) -> None:
    with pytest.raises(JsonRpcException, match="cannot read"):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="pi-lsp.statsChart", arguments=["file:///no/such/file.jsonl"])
        )
