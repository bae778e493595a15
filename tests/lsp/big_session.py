"""A large pi v3 session of the shape ``bench/generate.mjs`` writes, generated in-process.

A conversation tree: user turns, assistant messages with thinking, text and tool calls,
tool results of a few KiB, branches every so often (a user turn re-parented to an
earlier entry), labels and compactions, prose with non-ASCII text, emoji and raw
U+2028. About 3 KiB per entry, as the benchmark's sessions (40 MiB: ~14,000 entries),
so the work of a re-analysis (tree, links, reference index) is that of a real session.
Deterministic for a seed.
"""

from __future__ import annotations

import json
import random
from typing import Any

WORDS = [
    "session",
    "entry",
    "parser",
    "tree",
    "branch",
    "compaction",
    "label",
    "tool",
    "result",
    "assistant",
    "user",
    "read",
    "write",
    "edit",
    "bash",
    "file",
    "test",
    "schema",
    "version",
    "header",
    "leaf",
    "path",
    "context",
    "token",
    "model",
    "cost",
    "naïve",
    "café",
    "größe",
    "日本語",
    "émoji",
    "😀",
    "✓",
    "→",
]
TS = "2026-03-01T10:00:00.000Z"


def _js(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _paragraphs(rng: random.Random) -> list[str]:
    """A pool of 64 words long paragraphs (generating every word afresh is slow)."""
    out = []
    for _ in range(256):
        words = [rng.choice(WORDS) for _ in range(64)]
        words[rng.randrange(64)] += "\u2028"
        out.append(" ".join(words))
    return out


def _prose(rng: random.Random, words: int, pool: list[str]) -> str:
    return " ".join(rng.choice(pool) for _ in range(max(1, words // 64)))


class _Writer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []
        self.ids: list[str] = []
        self.size = 0
        self.leaf: str | None = None
        self.parent: dict[str, str | None] = {}
        self.pool = _paragraphs(rng)

    def add(self, kind: str, **fields: Any) -> str:
        ident = f"{len(self.ids) + 1:08x}"
        obj = {"type": kind, "id": ident, "parentId": self.leaf, "timestamp": TS, **fields}
        line = _js(obj)
        self.lines.append(line)
        self.ids.append(ident)
        self.parent[ident] = self.leaf
        self.size += len(line.encode()) + 1
        self.leaf = ident
        return ident

    def prose(self, words: int) -> str:
        return _prose(self.rng, words, self.pool)

    def on_path(self, back: int) -> str | None:
        """The id ``back`` entries above the leaf, on its path."""
        ident = self.leaf
        for _ in range(back):
            if ident is None or self.parent[ident] is None:
                break
            ident = self.parent[ident]
        return ident

    def turn(self, n: int) -> None:
        rng = self.rng
        self.add("message", message={"role": "user", "content": self.prose(60), "timestamp": n})
        for step in range(rng.randint(1, 3)):
            calls = [f"toolu_{n:05d}_{step}_{k}" for k in range(rng.randint(1, 3))]
            content: list[dict[str, Any]] = [
                {"type": "thinking", "thinking": self.prose(80), "thinkingSignature": "sig"},
                {"type": "text", "text": self.prose(40)},
            ]
            content += [
                {"type": "toolCall", "id": c, "name": "read", "arguments": {"path": f"src/{c}.ts"}}
                for c in calls
            ]
            self.add("message", message=_assistant(content, "toolUse", n))
            for c in calls:
                self.add(
                    "message",
                    message={
                        "role": "toolResult",
                        "toolCallId": c,
                        "toolName": "read",
                        "content": [{"type": "text", "text": self.prose(rng.randint(300, 900))}],
                        "isError": False,
                        "timestamp": n,
                    },
                )
        self.add(
            "message", message=_assistant([{"type": "text", "text": self.prose(50)}], "stop", n)
        )


def _assistant(content: list[dict[str, Any]], stop: str, n: int) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "usage": {
            "input": 1200,
            "output": 300,
            "cacheRead": 900,
            "cacheWrite": 0,
            "totalTokens": 2400,
            "cost": {"input": 0.1, "output": 0.2, "cacheRead": 0, "cacheWrite": 0, "total": 0.3},
        },
        "stopReason": stop,
        "timestamp": n,
    }


def big_session(mib: float, seed: int = 1) -> str:
    """A session of about ``mib`` MiB, as text (each line terminated by ``\\n``)."""
    rng = random.Random(seed)
    out = _Writer(rng)
    header = {"type": "session", "version": 3, "id": "big-1", "timestamp": TS, "cwd": "/w"}
    out.lines.append(_js(header))
    n = 0
    while out.size < mib * 1024 * 1024:
        n += 1
        if n % 30 == 0 and len(out.ids) > 50:  # leave the branch: continue from earlier
            out.leaf = out.ids[-rng.randint(10, 50)]
        out.turn(n)
        if n % 25 == 0:
            target = rng.choice(out.ids[-40:])
            out.add("label", targetId=target, label=f"checkpoint-{n}")
        if n % 40 == 0:
            kept = out.on_path(rng.randint(5, 30))
            out.add(
                "compaction",
                summary=out.prose(200),
                firstKeptEntryId=kept,
                tokensBefore=120000,
            )
    return "\n".join(out.lines) + "\n"
