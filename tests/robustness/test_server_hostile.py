"""Hostile documents through the language server, in every position encoding.

Each case opens a document, then sends every read request the server advertises at
random and awkward positions (past the end of lines and of the document, inside
surrogate pairs and UTF-8 sequences). Invariants: every request answers within the
timeout, no error answer (other than cancellation / a refused rename), every range
lies inside the document in the negotiated encoding, no feature logs an error, no
traceback on stderr, and the server still answers afterwards. Pushed diagnostics also
equal what ``pi-lsp check --format json`` prints for the same file.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import drive, hostile, invariants, known
from .lspclient import LspClient, start_stdio
from .settings import REQUEST_TIMEOUT

CASES = int(os.environ.get("PI_LSP_FUZZ_SERVER_CASES", "12"))
ENCODINGS = ["utf-16", "utf-8", "utf-32"]


@pytest.fixture(scope="module")
def _other_encodings() -> Iterator[dict[str, LspClient]]:
    servers: dict[str, LspClient] = {}
    yield servers
    for client in servers.values():
        assert client.close() == 0


@pytest.fixture(params=ENCODINGS)
def server(
    request: pytest.FixtureRequest, shared_server: LspClient, _other_encodings: dict[str, LspClient]
) -> LspClient:
    """A server per position encoding (UTF-16: the shared one)."""
    encoding = request.param
    if encoding == "utf-16":
        return shared_server
    client = _other_encodings.get(encoding)
    if client is None or not client.alive:
        client = start_stdio([encoding])
        _other_encodings[encoding] = client
    assert client.encoding == encoding, client.capabilities.get("positionEncoding")
    return client


def _run_cases(server: LspClient, items: list[tuple[str, str]], seed: int) -> list[str]:
    rng = random.Random(seed)
    problems = []
    for n, (name, text) in enumerate(items):
        uri = f"file:///tmp/pi-lsp-robustness/s{seed}-{n}.jsonl"
        outcome = drive.exercise_server(server, text, rng, uri=uri, timeout=REQUEST_TIMEOUT)
        problems += [f"{name}: {p}" for p in outcome.problems]
        assert server.alive, f"server died on {name}: {server.stderr[-3000:]}"
    return known.unknown(problems)


@pytest.mark.slow
def test_fuzzed_sessions(server: LspClient) -> None:
    rng = random.Random(99)
    count = CASES if server.encoding == "utf-16" else max(1, CASES // 2)
    items = [(name, hostile.decode(data)) for name, data in hostile.cases(rng, count)]
    problems = _run_cases(server, items, 99)
    assert not problems, "\n".join(problems[:30])


def _surrogate_escaped(data: bytes) -> str:
    """Undecodable bytes as lone surrogates, as a client could send them."""
    return data.decode("utf-8", "surrogateescape")


PATHOLOGICAL: dict[str, object] = {
    "deep-20000": lambda: hostile.deep_nesting(20_000),
    "deep-unclosed": lambda: hostile.deep_nesting(20_000, closed=False),
    "cycle-200": lambda: hostile.parent_cycle(200),
    "huge-line-2MB-unicode": lambda: hostile.huge_line(2 * 1024 * 1024, ascii_only=False),
    "lone-surrogates-raw": lambda: hostile.v3_session().replace("hello", "\ud800x\udfff\udc80"),
    "undecodable-bytes": lambda: _surrogate_escaped(
        hostile.v3_session().encode().replace(b"please", b"\xff\xfe")
    ),
    "cr-only": lambda: hostile.v3_session().replace("\n", "\r"),
    "crlf-and-separators": lambda: (
        hostile.v3_session().replace("\n", "\r\n").replace("hello", "\u2028\u0085\x0c")
    ),
    "nul": lambda: hostile.v3_session().replace("hello", "\x00\x00"),
    "empty": lambda: "",
    "only-newlines": lambda: "\n\n\n",
    "bom": lambda: "\ufeff" + hostile.v3_session(),
    "emoji-everywhere": lambda: hostile.v3_session().replace("e", "é🚀"),
    "v1": hostile.v1_session,
    "v2": hostile.v2_session,
    "book": hostile.book_session,
}


@pytest.mark.slow
def test_pathological_documents(server: LspClient) -> None:
    items = [(name, make()) for name, make in PATHOLOGICAL.items()]  # type: ignore[operator]
    problems = _run_cases(server, items, 7)
    assert not problems, "\n".join(problems[:30])


def test_positions_inside_surrogate_pairs(server: LspClient) -> None:
    """Every code unit of a line full of astral characters, as a position."""
    text = hostile.v3_session().replace("please 🚀", "🚀" * 40 + "👩‍👩‍👧" + "\U0010ffff")
    uri = "file:///tmp/pi-lsp-robustness/astral.jsonl"
    server.open(uri, text, 1)
    server.diagnostics_for(uri, 1)
    line_no = next(i for i, line in enumerate(invariants.split(text)) if "🚀" * 40 in line)
    line = invariants.split(text)[line_no]
    first = invariants.unit_len(line[: line.index("🚀")], server.encoding)
    length = invariants.unit_len(line, server.encoding)
    problems = []
    session = drive.Session(server, uri, text, REQUEST_TIMEOUT)
    caps = server.capabilities
    rng = random.Random(3)
    # every code unit of the astral run (and its neighbours), then the line's end
    for character in [*range(max(0, first - 3), first + 200), length - 1, length, length + 1]:
        pos = {"line": line_no, "character": character}
        for method, params in drive.read_requests(caps, uri, pos, pos, rng, []):
            if method in (
                "textDocument/hover",
                "textDocument/definition",
                "textDocument/completion",
                "textDocument/selectionRange",
            ):
                session.call(method, params)
    problems += session.outcome.problems
    server.close_doc(uri)
    problems = known.unknown(problems)
    assert not problems, "\n".join(problems[:30])


def test_diagnostics_equal_check_json(server: LspClient, tmp_path: Path) -> None:
    """What the server pushes for a document equals ``check --format json`` on the file."""
    if server.encoding != "utf-16":
        pytest.skip("check prints UTF-16 positions")
    rng = random.Random(4242)
    mismatches = []
    for n, (name, data) in enumerate(hostile.cases(rng, 10, use_fixtures=False)):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # an editor would not send these bytes as they are
        path = tmp_path / f"c{n}.jsonl"
        path.write_bytes(data)
        uri = path.resolve().as_uri()
        server.open(uri, text, 1)
        pushed = server.diagnostics_for(uri, 1)
        server.close_doc(uri)
        result = drive.run_cli_inproc(["check", "--format", "json", str(path)])
        if known.classify(result.stderr):
            continue
        printed = json.loads(result.stdout)["files"][0]["diagnostics"]
        if pushed != printed:
            mismatches.append(f"{name}: server {len(pushed)} vs check {len(printed)} diagnostics")
    assert not mismatches, "\n".join(mismatches)


@pytest.mark.slow
def test_hover_on_a_50mb_line_is_bounded() -> None:
    with start_stdio(["utf-16"]) as client:
        _hover_bounded(client, 50 * 1024 * 1024, timeout=120)


def test_hover_on_a_huge_line_is_bounded(server: LspClient) -> None:
    if server.encoding != "utf-16":
        pytest.skip("one encoding is enough")
    _hover_bounded(server, 4 * 1024 * 1024, timeout=REQUEST_TIMEOUT)


def _hover_bounded(client: LspClient, size: int, timeout: float) -> None:
    text = hostile.huge_line(size)
    uri = f"file:///tmp/pi-lsp-robustness/huge-{size}.jsonl"
    client.open(uri, text, 1)
    diags = client.diagnostics_for(uri, 1, timeout=timeout)
    assert any(d["code"] == "PI500" for d in diags)
    line = invariants.split(text)[1]
    targets = [0, 5, line.index('"data"') + 9, len(line) // 2, len(line) - 3, len(line) + 10]
    caps = client.capabilities
    for character in targets:
        pos = {"textDocument": {"uri": uri}, "position": {"line": 1, "character": character}}
        if caps.get("hoverProvider"):
            answer = client.request("textDocument/hover", pos, timeout=timeout)
            size_out = invariants.text_size(answer)
            assert size_out < 10_000, f"hover at {character} returned {size_out} characters"
    if caps.get("documentSymbolProvider"):
        symbols = client.request(
            "textDocument/documentSymbol", {"textDocument": {"uri": uri}}, timeout=timeout
        )
        assert invariants.text_size(symbols) < 50_000
    client.close_doc(uri)


# Regression: refused requests (rename to an empty or reserved name, pi-lsp.context on a
# file pi refuses) were answered correctly but printed pygls's traceback on stderr.
def test_refusals_print_no_traceback(shared_server: LspClient) -> None:
    client = shared_server
    before = len(client.stderr)
    caps = client.capabilities
    text = hostile.v3_session()
    uri = "file:///tmp/pi-lsp-robustness/refuse.jsonl"
    client.open(uri, text, 1)
    client.diagnostics_for(uri, 1)
    refused = 0
    if caps.get("renameProvider"):
        col = invariants.split(text)[2].index('"id":"') + 7
        for name in ("", "root"):
            params = {
                "textDocument": {"uri": uri},
                "newName": name,
                "position": {"line": 2, "character": col},
            }
            with contextlib.suppress(drive.ResponseError):
                client.request("textDocument/rename", params)
                continue
            refused += 1
    commands = (caps.get("executeCommandProvider") or {}).get("commands", [])
    if "pi-lsp.context" in commands:
        bad = "file:///tmp/pi-lsp-robustness/not-a-session.jsonl"
        client.open(bad, "not json\n", 1)
        client.diagnostics_for(bad, 1)
        with contextlib.suppress(drive.ResponseError):
            client.request(
                "workspace/executeCommand",
                {"command": "pi-lsp.context", "arguments": [bad, None]},
            )
            refused -= 1
        refused += 1
    client.close_doc(uri)
    if "pi-lsp.context" in commands:
        client.close_doc(bad)
    if not refused:
        pytest.skip("nothing to refuse yet")
    client.sync_point()
    stderr = client.stderr[before:]
    assert invariants.TRACEBACK not in stderr, invariants.traceback_summary(stderr)


SLOW_DOCUMENTS = {
    "chain-100000": lambda: hostile.chain(100_000),
    "cycle-5000": lambda: hostile.parent_cycle(5000),
    "wide-5000": lambda: hostile.wide_branches(5000),
    "deep-200000": lambda: hostile.deep_nesting(200_000),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SLOW_DOCUMENTS))
def test_full_size_pathological_documents(name: str) -> None:
    """Open, diagnostics, then a few requests: each answers within the slow budget."""
    text = SLOW_DOCUMENTS[name]()
    with start_stdio(["utf-16"]) as client:
        outcome = drive.exercise_server(
            client,
            text,
            random.Random(name),
            uri=f"file:///tmp/pi-lsp-robustness/{name}.jsonl",
            n_positions=3,
            timeout=float(os.environ.get("PI_LSP_SLOW_BUDGET", "60")),
        )
    problems = known.unknown(outcome.problems)
    assert not problems, "\n".join(problems[:20])


def test_completion_with_a_lone_surrogate_id(shared_server: LspClient) -> None:
    client = shared_server
    if not client.capabilities.get("completionProvider"):
        pytest.skip("no completion")
    text = hostile.v3_session().replace('"id":"x0000002"', '"id":"x\\ud800y"', 1)
    assert text != hostile.v3_session()
    uri = "file:///tmp/pi-lsp-robustness/complete-surrogate.jsonl"
    client.open(uri, text, 1)
    client.diagnostics_for(uri, 1)
    line = invariants.split(text)[3]
    col = line.index('"parentId":"') + len('"parentId":"')
    before = len(client.messages())
    answer = client.request(
        "textDocument/completion",
        {"textDocument": {"uri": uri}, "position": {"line": 3, "character": col}},
    )
    errors = invariants.server_errors(client.messages()[before:])
    client.close_doc(uri)
    assert errors == []
    assert answer, "no completion items"


def test_book_code_actions_with_a_deep_user_block_type(shared_server: LspClient) -> None:
    client = shared_server
    if not client.capabilities.get("codeActionProvider"):
        pytest.skip("no code actions")
    book = hostile.book_session()
    nest = "[" * 1000 + "]" * 1000
    text = book.replace(
        '{"type":"text","text":"Now add tests."}',
        '{"type":' + nest + ',"text":"Now add tests."}',
        1,
    )
    assert text != book
    uri = "file:///tmp/pi-lsp-robustness/book-deep-user.jsonl"
    client.open(uri, text, 1)
    diags = client.diagnostics_for(uri, 1)
    before = len(client.messages())
    client.request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}},
            "context": {"diagnostics": diags[:5]},
        },
    )
    errors = invariants.server_errors(client.messages()[before:])
    client.close_doc(uri)
    assert errors == []
