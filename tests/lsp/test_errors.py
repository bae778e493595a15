"""The error policy: a failure is one log line and an error answer; a refusal is only an answer.

In process, on :meth:`PiLanguageServer.report_server_error` (pygls calls it for every
handler that raises): an InternalError (a bug in a request or a notification handler) is
logged once, as one line naming the method, with the traceback at debug level; a
deliberate error answer (InvalidParams, RequestFailed, ContentModified) is not logged.
Nothing is ever shown as a popup (``window/showMessage``). The end-to-end side (a request
whose params do not deserialize gets InvalidParams) is
``tests/robustness/test_protocol_hostile.py::test_malformed_requests_get_an_error_answer``.
"""

from __future__ import annotations

import logging
import sys

import pytest
from lsprotocol import types
from pygls.exceptions import (
    FeatureNotificationError,
    FeatureRequestError,
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
)

from pi_lsp.lsp import server
from pi_lsp.lsp.requests import content_modified
from pi_lsp.lsp.server import PiLanguageServer


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def logged() -> list[logging.LogRecord]:
    handler = _Records()
    log = logging.getLogger("pi_lsp")
    level = log.level
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    yield handler.records
    log.removeHandler(handler)
    log.setLevel(level)


def _bug() -> JsonRpcInternalError:
    try:
        {}["missing"]
    except KeyError:
        return JsonRpcInternalError.of(sys.exc_info())
    raise AssertionError


@pytest.mark.parametrize("source", [FeatureRequestError, FeatureNotificationError])
def test_a_bug_is_one_line_naming_the_method(
    logged: list[logging.LogRecord], source: type[Exception], monkeypatch: pytest.MonkeyPatch
) -> None:
    ls = PiLanguageServer()
    shown: list[object] = []
    monkeypatch.setattr(ls, "window_show_message", shown.append)
    token = server._method.set("textDocument/hover")  # what PiProtocol records per message
    try:
        ls.report_server_error(_bug(), source)
    finally:
        server._method.reset(token)
    errors = [r for r in logged if r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in errors] == ["textDocument/hover failed: KeyError: 'missing'"]
    assert "\n" not in errors[0].getMessage() and errors[0].exc_info is None
    assert any("traceback" in r.getMessage() for r in logged if r.levelno == logging.DEBUG)
    assert shown == []


@pytest.mark.parametrize(
    "refusal",
    [
        JsonRpcInvalidParams("the first argument must be the document URI"),
        JsonRpcException(message="refused", code=types.LSPErrorCodes.RequestFailed),
        content_modified("file:///x.jsonl"),
    ],
)
def test_a_deliberate_answer_is_not_logged(
    logged: list[logging.LogRecord], refusal: JsonRpcException
) -> None:
    PiLanguageServer().report_server_error(refusal, FeatureRequestError)
    assert logged == []
