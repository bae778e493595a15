"""Drive the server and the command line over hostile inputs and check the invariants.

:func:`exercise_server` opens a text, then sends every read request the server
advertises at random (and deliberately awkward) positions; :func:`run_check_inproc`
runs ``pi-lsp check --format json`` in this process (fast enough for thousands of
cases). Both return a list of problems (empty = the invariants held).
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import invariants
from .lspclient import CONTENT_MODIFIED, REQUEST_CANCELLED, LspClient, ResponseError, ServerHang

REQUEST_FAILED = -32803
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
MAX_UINT = 2**31 - 1  # LSP's uinteger
NEW_NAMES = ["n0000001", "", 'a"b', "🚀", "x" * 300, "\u2028", "a b", "\\", "root", "ok-id"]
_INTERESTING = re.compile(
    r'"(?:id|parentId|targetId|fromId|firstKeptEntryId|firstKeptEntryIndex|toolCallId|'
    r'parentSession|type|role|version|stopReason|label|name)"\s*:\s*"?'
)


@dataclass
class Outcome:
    """What one server case did: the problems found and how many requests were sent."""

    problems: list[str] = field(default_factory=list)
    requests: int = 0


# -- positions ---------------------------------------------------------------------------


def _units_before(line: str, column: int, encoding: str) -> int:
    return invariants.unit_len(line[:column], encoding)


def positions(text: str, encoding: str, rng: random.Random, count: int) -> list[dict[str, int]]:
    """Random positions, biased to awkward ones: past the end of lines and of the
    document, inside surrogate pairs / UTF-8 sequences, and on id-like values."""
    lines = invariants.split(text)
    out: list[dict[str, int]] = []
    for _ in range(count):
        r = rng.random()
        line_no = rng.randrange(len(lines))
        line = lines[line_no]
        if r < 0.1:
            line_no = rng.choice([len(lines), len(lines) + 1, MAX_UINT])
            out.append({"line": line_no, "character": rng.choice([0, 1, 50, MAX_UINT])})
        elif r < 0.2:
            length = invariants.unit_len(line, encoding)
            char = rng.choice([length + 1, length + 5, length + 1000, MAX_UINT])
            out.append({"line": line_no, "character": min(char, MAX_UINT)})
        elif r < 0.35:
            wide = [i for i, ch in enumerate(line[:200_000]) if ord(ch) > 0x7F]
            if wide:
                i = rng.choice(wide)
                inside = invariants.unit_len(line[i], encoding)
                base = _units_before(line, i, encoding)
                out.append({"line": line_no, "character": base + rng.randrange(1, max(2, inside))})
            else:
                out.append({"line": line_no, "character": 0})
        elif r < 0.7:
            hits = [m.end() for m in _INTERESTING.finditer(line[:200_000])]
            col = rng.choice(hits) + rng.randint(0, 3) if hits else 0
            col = min(col, len(line))
            out.append({"line": line_no, "character": _units_before(line, col, encoding)})
        else:
            col = rng.randint(0, min(len(line), 200_000))
            out.append({"line": line_no, "character": _units_before(line, col, encoding)})
    return out


def _range(a: dict[str, int], b: dict[str, int]) -> dict[str, Any]:
    if (a["line"], a["character"]) > (b["line"], b["character"]):
        a, b = b, a
    return {"start": a, "end": b}


# -- requests ----------------------------------------------------------------------------


def _tdi(uri: str) -> dict[str, str]:
    return {"uri": uri}


def read_requests(
    caps: dict[str, Any],
    uri: str,
    pos: dict[str, int],
    other: dict[str, int],
    rng: random.Random,
    diagnostics: list[dict[str, Any]],
) -> Iterator[tuple[str, dict[str, Any]]]:
    """One request per advertised position-based read feature, at ``pos``."""
    at = {"textDocument": _tdi(uri), "position": pos}
    if caps.get("hoverProvider"):
        yield "textDocument/hover", at
    for cap, method in (
        ("definitionProvider", "textDocument/definition"),
        ("declarationProvider", "textDocument/declaration"),
        ("typeDefinitionProvider", "textDocument/typeDefinition"),
        ("implementationProvider", "textDocument/implementation"),
        ("documentHighlightProvider", "textDocument/documentHighlight"),
    ):
        if caps.get(cap):
            yield method, at
    if caps.get("referencesProvider"):
        yield (
            "textDocument/references",
            {**at, "context": {"includeDeclaration": rng.random() < 0.5}},
        )
    if caps.get("completionProvider"):
        yield "textDocument/completion", {**at, "context": {"triggerKind": 1}}
    rename = caps.get("renameProvider")
    if rename:
        if isinstance(rename, dict) and rename.get("prepareProvider"):
            yield "textDocument/prepareRename", at
        yield "textDocument/rename", {**at, "newName": rng.choice(NEW_NAMES)}
    if caps.get("selectionRangeProvider"):
        yield "textDocument/selectionRange", {"textDocument": _tdi(uri), "positions": [pos, other]}
    if caps.get("codeActionProvider"):
        rng_ = _range(pos, other) if rng.random() < 0.5 else {"start": pos, "end": pos}
        line = pos["line"]
        near = [d for d in diagnostics if d["range"]["start"]["line"] == line]
        if rng.random() < 0.2:
            near = diagnostics[:50]
        yield (
            "textDocument/codeAction",
            {
                "textDocument": _tdi(uri),
                "range": rng_,
                "context": {"diagnostics": near, "triggerKind": rng.choice([1, 2])},
            },
        )
    if caps.get("inlayHintProvider"):
        yield "textDocument/inlayHint", {"textDocument": _tdi(uri), "range": _range(pos, other)}


def document_requests(caps: dict[str, Any], uri: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """One request per advertised whole-document feature."""
    doc = {"textDocument": _tdi(uri)}
    for cap, method in (
        ("documentSymbolProvider", "textDocument/documentSymbol"),
        ("foldingRangeProvider", "textDocument/foldingRange"),
        ("documentLinkProvider", "textDocument/documentLink"),
        ("codeLensProvider", "textDocument/codeLens"),
        ("diagnosticProvider", "textDocument/diagnostic"),
    ):
        if caps.get(cap):
            yield method, doc
    tokens = caps.get("semanticTokensProvider")
    if isinstance(tokens, dict) and tokens.get("full"):
        yield "textDocument/semanticTokens/full", doc


_RESOLVE = {
    "textDocument/codeAction": ("codeActionProvider", "codeAction/resolve"),
    "textDocument/completion": ("completionProvider", "completionItem/resolve"),
    "textDocument/codeLens": ("codeLensProvider", "codeLens/resolve"),
    "textDocument/documentLink": ("documentLinkProvider", "documentLink/resolve"),
    "textDocument/inlayHint": ("inlayHintProvider", "inlayHint/resolve"),
}


def _items(answer: Any) -> list[Any]:
    if isinstance(answer, dict) and isinstance(answer.get("items"), list):
        return list(answer["items"])
    return list(answer) if isinstance(answer, list) else []


def _acceptable(method: str, err: ResponseError) -> bool:
    if err.code in (REQUEST_CANCELLED, CONTENT_MODIFIED):
        return True
    return method in ("textDocument/rename", "textDocument/prepareRename") and err.code in (
        REQUEST_FAILED,
        INVALID_PARAMS,
    )


class Session:
    """A server conversation about one document, checking every answer."""

    def __init__(self, client: LspClient, uri: str, text: str, timeout: float) -> None:
        self.client = client
        self.uri = uri
        self.text = text
        self.timeout = timeout
        self.outcome = Outcome()
        self.answers: dict[str, list[Any]] = {}
        self.doc = invariants.Doc(text, client.encoding)

    def problem(self, message: str) -> None:
        self.outcome.problems.append(message)

    def call(self, method: str, params: dict[str, Any]) -> Any:
        self.outcome.requests += 1
        where = params.get("position") or params.get("range") or ""
        try:
            answer = self.client.request(method, params, timeout=self.timeout)
        except ServerHang as exc:
            self.problem(f"hang: {method} at {where}: {exc}")
            return None
        except ResponseError as err:
            if not _acceptable(method, err):
                self.problem(f"error answer to {method} at {where}: {err}")
            return None
        except AssertionError as exc:  # ServerDied
            self.problem(f"server died during {method} at {where}: {exc}"[:2000])
            return None
        for problem in invariants.range_problems(answer, self.doc, self.uri, self.client.encoding):
            self.problem(f"{method} at {where}: {problem}")
        self.answers.setdefault(method, []).append(answer)
        return answer

    def resolve(self, method: str, answer: Any, limit: int = 3) -> None:
        cap_name, resolve_method = _RESOLVE.get(method, ("", ""))
        cap = self.client.capabilities.get(cap_name)
        if not (isinstance(cap, dict) and cap.get("resolveProvider")):
            return
        for item in _items(answer)[:limit]:
            if (
                isinstance(item, dict)
                and "command" in item
                and "title" in item
                and method == "textDocument/codeAction"
                and "kind" not in item
            ):
                continue  # a bare Command, nothing to resolve
            self.call(resolve_method, item)


def exercise_server(
    client: LspClient,
    text: str,
    rng: random.Random,
    *,
    uri: str = "file:///tmp/pi-lsp-robustness/session.jsonl",
    n_positions: int = 6,
    timeout: float = 20.0,
    close: bool = True,
) -> Outcome:
    """Open ``text``, send every advertised request at random positions, check answers."""
    session = Session(client, uri, text, timeout)
    caps = client.capabilities
    before_messages = len(client.messages())
    before_stderr = len(client.stderr)
    version = rng.randint(1, 1000)
    try:
        client.open(uri, text, version)
        diags = client.diagnostics_for(uri, version, timeout=timeout)
    except ServerHang as exc:
        errors = invariants.server_errors(client.messages()[before_messages:])
        session.problem(f"hang: no diagnostics after didOpen: {exc}; server errors: {errors}")
        return session.outcome
    except AssertionError as exc:
        session.problem(f"server died on didOpen: {exc}"[:2000])
        return session.outcome
    # (relatedInformation locations in this document are checked too)
    for problem in invariants.range_problems(diags, session.doc, uri, client.encoding):
        session.problem(f"publishDiagnostics: {problem}")
    for method, params in document_requests(caps, uri):
        answer = session.call(method, params)
        session.resolve(method, answer)
    pos_list = positions(text, client.encoding, rng, n_positions * 2)
    for i in range(n_positions):
        pos, other = pos_list[2 * i], pos_list[2 * i + 1]
        for method, params in read_requests(caps, uri, pos, other, rng, diags):
            answer = session.call(method, params)
            if method == "textDocument/hover" and answer is not None:
                lines = session.doc.lines
                line = lines[min(pos["line"], len(lines) - 1)]
                size = invariants.text_size(answer)
                if len(line) > 1_000_000 and size > 10_000:
                    session.problem(f"hover on a {len(line)} char line returned {size} chars")
            if rng.random() < 0.3:
                session.resolve(method, answer)
    # still alive and answering?
    if caps.get("hoverProvider"):
        session.call(
            "textDocument/hover",
            {"textDocument": _tdi(uri), "position": {"line": 0, "character": 0}},
        )
    else:
        session.call("textDocument/diagnostic", {"textDocument": _tdi(uri)})
    for message in invariants.server_errors(client.messages()[before_messages:]):
        session.problem(f"server reported an error: {message}")
    if close:
        with contextlib.suppress(AssertionError):
            client.close_doc(uri)
    if not client.alive:
        session.problem(f"server exited: {client.stderr[-2000:]}")
    new_stderr = client.stderr[before_stderr:]
    if invariants.TRACEBACK in new_stderr:
        session.problem(f"traceback on stderr: {invariants.traceback_summary(new_stderr)}")
    return session.outcome


# -- command line ------------------------------------------------------------------------


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str
    stdout_bytes: bytes = b""


class _Stream(io.TextIOWrapper):
    """A text stream with a ``.buffer`` (commands write bytes to stdout)."""

    def __init__(self) -> None:
        super().__init__(
            io.BytesIO(), encoding="utf-8", errors="surrogateescape", write_through=True
        )

    def isatty(self) -> bool:
        return False

    def data(self) -> bytes:
        self.flush()
        raw = self.buffer
        assert isinstance(raw, io.BytesIO)
        return raw.getvalue()


def run_cli_inproc(argv: list[str]) -> CliResult:
    """Run ``pi_lsp.cli.main(argv)`` in this process, capturing its output."""
    from pi_lsp.cli import main

    out, err = _Stream(), _Stream()
    code: int
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except Exception:  # an exception escaping main is a traceback for the user
            import traceback

            traceback.print_exc(file=err)
            code = -1
    raw = out.data()
    return CliResult(
        code,
        raw.decode("utf-8", "replace"),
        err.data().decode("utf-8", "replace"),
        raw,
    )


def check_cli_result(result: CliResult, path: Path, text: str | None) -> list[str]:
    """Invariants of ``check --format json`` on one readable file."""
    problems = []
    if invariants.TRACEBACK in result.stderr or result.code == -1:
        return [f"check: traceback: {invariants.traceback_summary(result.stderr)}"]
    if result.code not in (0, 1):
        problems.append(f"check exit code {result.code}: {result.stderr[-2000:]}")
    try:
        # json, not orjson: undecodable bytes come out as lone surrogate escapes
        # ("\\udcff"), valid JSON that JSON.parse and Python read but orjson rejects
        report = json.loads(result.stdout)
    except ValueError as exc:
        problems.append(f"check --format json printed invalid JSON: {exc}: {result.stdout[:300]!r}")
        return problems
    files = report.get("files", [])
    if len(files) != 1:
        problems.append(f"expected one file in the report, got {len(files)}")
        return problems
    diags = files[0].get("diagnostics", [])
    if text is not None:
        uri = path.resolve().as_uri()
        for problem in invariants.range_problems(diags, text, uri, "utf-16"):
            problems.append(f"check: {problem}")
        errors = any(d.get("severity") == 1 for d in diags)
        if result.code in (0, 1) and errors != (result.code == 1):
            problems.append(f"exit code {result.code} but errors={errors}")
    for d in diags:
        if d.get("source") != "pi-lsp" or not isinstance(d.get("code"), str):
            problems.append(f"diagnostic without source/code: {d!r:.200}")
    return problems


def disk_text(data: bytes) -> str:
    """The text the checker sees for ``data`` on disk (its line math is on this)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", "surrogateescape")
