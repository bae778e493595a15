"""Support for the real-editor tests: the broken session and where things are."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EDITORS = ROOT / "editors"
SCREENSHOTS = Path(os.environ.get("PI_LSP_SCREENSHOTS", ROOT / "tests" / "editors" / "screenshots"))

SESSION_ID = "01a22ab2-1ea0-75fc-8b18-c921ac60b3f8"
SESSION_NAME = f"2026-11-30T04-24-06-050Z_{SESSION_ID}.jsonl"


def _message(id_: str, parent: str | None, message: dict) -> str:
    return json.dumps(
        {
            "type": "message",
            "id": id_,
            "parentId": parent,
            "timestamp": "2026-11-30T04:24:07.000Z",
            "message": message,
        },
        separators=(",", ":"),
        ensure_ascii=False,
    )


def _usage(inp: int, out: int) -> dict:
    return {
        "input": inp,
        "output": out,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": inp + out,
        "cost": {"input": 0.01, "output": 0.02, "cacheRead": 0, "cacheWrite": 0, "total": 0.03},
    }


# A v2 session (so PI103 + its "Migrate session to v3" quick fix apply) with two faults:
# line 4 is not JSON (PI001) and line 5's parentId names no entry (PI400).
BROKEN_LINES = [
    json.dumps(
        {
            "type": "session",
            "version": 2,
            "id": SESSION_ID,
            "timestamp": "2026-11-30T04:24:06.050Z",
            "cwd": "/home/user/project",
        },
        separators=(",", ":"),
    ),
    '{"type":"model_change","id":"3e52c3aa","parentId":null,'
    '"timestamp":"2026-11-30T04:24:06.056Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}',
    _message(
        "47e18d94",
        "3e52c3aa",
        {
            "role": "user",
            "content": [{"type": "text", "text": "Why does the parser drop the last line?"}],
            "timestamp": 1763681581544,
        },
    ),
    _message(
        "54479bef",
        "47e18d94",
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "The file was cut off while pi was writing it."}],
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": _usage(4475, 632),
            "stopReason": "stop",
            "timestamp": 1763681581545,
        },
    ),
    '{"type":"message","id":"5a5a5a5a","parentId":"54479bef","message":{"role":"user",,}}',
    _message(
        "6b6b6b6b",
        "deadbeef",
        {
            "role": "user",
            "content": [{"type": "text", "text": "And this one has lost its parent."}],
            "timestamp": 1763681590000,
        },
    ),
]
BROKEN_SESSION = "\n".join(BROKEN_LINES) + "\n"
# (line, code) pairs the server must report for BROKEN_SESSION (0-based lines)
EXPECTED = {(0, "PI103"), (4, "PI001"), (5, "PI400")}
DEFINITION_LINE = 3  # the assistant: its parentId "47e18d94" is the user message on line 2
DEFINITION_TARGET = 2
HOVER_LINE = 2


def definition_column(line: int = DEFINITION_LINE) -> int:
    """0-based column inside the parentId value on ``line`` (ASCII line: bytes == chars)."""
    text = BROKEN_LINES[line]
    return text.index('"parentId":"') + len('"parentId":"') + 2


@dataclass
class Session:
    home: Path
    path: Path


def server_command() -> list[str]:
    """How the editors start the server under test: this interpreter, ``-m pi_lsp``."""
    return [sys.executable, "-m", "pi_lsp"]


def make_session(tmp_path: Path) -> Session:
    """Write the broken session under ``<tmp>/home/.pi/agent/sessions/--<cwd>--/``."""
    home = tmp_path / "home"
    d = home / ".pi" / "agent" / "sessions" / "--home-user-project--"
    d.mkdir(parents=True)
    path = d / SESSION_NAME
    path.write_text(BROKEN_SESSION, encoding="utf-8")
    return Session(home=home, path=path)


FIXTURES = ROOT.parent / "shared" / "fixtures"


def chart_session(session: Session) -> Path | None:
    """A copy of a long pi 1.6 session in the same home, for the Session Chart (None: no fixtures).

    It goes to a project folder of its own, so the broken session's folder holds only it.
    """
    source = FIXTURES / "pi16-long.jsonl"
    if not source.is_file():
        return None
    target = session.path.parent.parent / "--home-user-chart--" / "2026-01-01T00-00-00-000Z_chart.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(source.read_bytes())
    return target


# A clean v3 session for the conversation preview (issue 42): Markdown, thinking, a tool call
# and its result, and a branch point after the first answer ("Try the parser." / "Try the
# lexer."); pi resumes the lexer branch (the last entry). 0-based lines in PREVIEW_LINES.
PREVIEW_NAME = "2026-11-30T06-00-00-000Z_preview.jsonl"
_STAMP = "2026-11-30T06:00:01.000Z"


def _entry(id_: str, parent: str | None, message: dict) -> dict:
    return {"type": "message", "id": id_, "parentId": parent, "timestamp": _STAMP, "message": message}


def _assistant(content: list, stop: str = "stop") -> dict:
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "usage": _usage(5120, 310),
        "stopReason": stop,
        "timestamp": 1764482401000,
    }


def _user(text: str) -> dict:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1764482400000}


PREVIEW_ROWS = [
    {"type": "session", "version": 3, "id": "preview", "timestamp": _STAMP, "cwd": "/home/user/project"},
    {"type": "model_change", "id": "m0", "parentId": None, "timestamp": _STAMP}
    | {"provider": "anthropic", "modelId": "claude-sonnet-4-5"},
    _entry("u1", "m0", _user("Why does the parser drop the **last line** of `input.txt`?")),
    _entry(
        "a1",
        "u1",
        _assistant(
            [
                {"type": "thinking", "thinking": "The loop stops one short.\nCheck the file first."},
                {"type": "text", "text": "Let me look at the file."},
                {
                    "type": "toolCall",
                    "id": "call_1",
                    "name": "bash",
                    "arguments": {"command": "wc -l input.txt && tail -n 2 input.txt"},
                },
            ],
            stop="toolUse",
        ),
    ),
    _entry(
        "r1",
        "a1",
        {
            "role": "toolResult",
            "toolCallId": "call_1",
            "toolName": "bash",
            "content": [{"type": "text", "text": "3 input.txt\nsecond line\nthird line"}],
            "isError": False,
            "timestamp": 1764482402000,
        },
    ),
    _entry(
        "a2",
        "r1",
        _assistant(
            [
                {
                    "type": "text",
                    "text": "The file has no newline at its end, and `parse` splits like this:\n\n"
                    "```python\nfor line in text.split('\\n')[:-1]:\n    handle(line)\n```\n\n"
                    "Two ways to fix it.",
                }
            ]
        ),
    ),
    _entry("u2", "a2", _user("Try the parser.")),
    _entry("a3", "u2", _assistant([{"type": "text", "text": "The parser is fine once it keeps the tail."}])),
    _entry("u3", "a2", _user("Try the lexer.")),
    _entry("a4", "u3", _assistant([{"type": "text", "text": "The lexer stops early; fixed it."}])),
]
PREVIEW_LINES = {row["id"]: i for i, row in enumerate(PREVIEW_ROWS)}
PREVIEW_APPENDED = "Appended while the preview was open."
PREVIEW_APPEND_ROW = _entry("u4", "a4", _user(PREVIEW_APPENDED))


def preview_session(session: Session) -> Path:
    """The preview session, in a project folder of its own under the same home."""
    target = session.home / ".pi" / "agent" / "sessions" / "--home-user-preview--" / PREVIEW_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(json.dumps(r) + "\n" for r in PREVIEW_ROWS), encoding="utf-8")
    return target


def long_session(home: Path, pairs: int) -> tuple[Path, list[int]]:
    """A linear v3 session of ``pairs`` questions and answers (more items than the server
    renders whole); each question's body ends with ``mark-N-end`` after a long first line.
    Returns the path and the 0-based line of each question."""
    d = home / ".pi" / "agent" / "sessions" / "--home-user-long--"
    d.mkdir(parents=True)
    stamp = "2026-11-30T04:24:07.000Z"
    rows: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "long", "timestamp": stamp, "cwd": "/home/u/p"}
    ]
    questions, parent = [], None
    for i in range(pairs):
        text = f"Question {i}: " + "why " * 100 + f"\n\nmark-{i}-end"
        for role, body in (("user", text), ("assistant", f"Answer {i}.")):
            message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": body}]}
            if role == "assistant":
                message |= {"api": "anthropic-messages", "provider": "anthropic", "model": "m"}
                message |= {"stopReason": "stop", "usage": _usage(1, 1)}
            else:
                questions.append(len(rows))
            id_ = f"e{len(rows)}"
            rows.append(
                {"type": "message", "id": id_, "parentId": parent, "timestamp": stamp}
                | {"message": message}
            )
            parent = id_
    path = d / "2026-11-30T04-24-06-050Z_long.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path, questions
