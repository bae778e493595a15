"""The preview's conversation against pi's own view of the session (issue 42).

On pi-written sessions (the shared fixtures, ``examples/pi16-session.jsonl`` and sessions
pi 1.6's SessionManager writes here with every 1.6 kind), the messages the conversation's
items carry are pi 1.6's ``buildSessionContext`` messages for the leaf (and pi 0.73.1's, on
the files it reads), in order, with their text; each user and assistant text stands in the Markdown under its own item; and
every branch link of a branch point renders what pi builds from that leaf (pi's ``/tree``
navigation).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_conformance import ALL, PI16_ONLY, read

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.views.conversation import Conversation, conversation
from pi_lsp.core.views.render import MAX_TEXT, markdown

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pi16-session.jsonl"
Oracle = Any
SWITCHES = 8
"""Branch links followed per file (each asks pi once: a Node process)."""


def pi_messages(pi: dict[str, Any]) -> list[tuple[Any, int, Any]]:
    """pi's context: role, line and text of each message."""
    return [(m["role"], m["line"], m["text"]) for m in pi["context"]["messages"]]


def our_messages(conv: Conversation) -> list[tuple[Any, int, Any]]:
    return [(m.role, m.line, m.text) for item in conv.items for m in item.messages]


def text_blocks(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [b["text"] for b in content or () if isinstance(b, dict) and b.get("type") == "text"]


def check_markdown(conv: Conversation) -> None:
    """Every user and assistant text of the context stands in its item's Markdown."""
    text, starts = markdown(conv)
    lines = text.split("\n")
    ends = [*starts[1:], len(lines)]
    for item, start, end in zip(conv.items, starts, ends, strict=True):
        assert f"line {item.line + 1}" in lines[start]
        section = "\n".join(lines[start:end])
        for m in item.messages:
            if m.role in ("user", "assistant"):
                for block in text_blocks(m.message):
                    assert block.strip()[:MAX_TEXT] in section, (item.line, block[:80])


def check_file(path: Path, oracle: Oracle) -> None:
    a = analyze(read(path), path=str(path))
    conv = conversation(a)
    assert our_messages(conv) == pi_messages(oracle(["load", path]))
    check_markdown(conv)
    leaves = [leaf for point in conv.branches for leaf in point.leaves]
    for leaf in leaves[:SWITCHES]:
        switched = conversation(a, leaf.id)
        pi = oracle(["load", path, "--leaf", leaf.id])
        assert switched.leaf == pi["leafLine"], leaf.id
        assert our_messages(switched) == pi_messages(pi), leaf.id
        assert any(b.current and b.id == leaf.id for p in switched.branches for b in p.leaves)
        check_markdown(switched)


@pytest.mark.slow
@pytest.mark.parametrize("name", PI16_ONLY)
def test_pi16_fixture_conversation_is_pis(
    pi16_oracle: Oracle, fixtures_dir: Path, name: str
) -> None:
    check_file(fixtures_dir / name, pi16_oracle)


@pytest.mark.slow  # a node run per fixture and release; the example and the samples stay fast
@pytest.mark.parametrize("name", ALL)
def test_fixture_conversation_is_pis(any_pi_oracle: Oracle, fixtures_dir: Path, name: str) -> None:
    """Files pi 0.73.1 reads too: its ``buildSessionContext`` agrees."""
    check_file(fixtures_dir / name, any_pi_oracle)


def test_example_conversation_is_pis(pi16_oracle: Oracle) -> None:
    check_file(EXAMPLE, pi16_oracle)


@pytest.mark.parametrize("seed", [1, 2])
def test_written_sample_conversation_is_pis(pi16_oracle: Oracle, tmp_path: Path, seed: int) -> None:
    written = pi16_oracle(["write-sample", tmp_path / "pi", "--seed", str(seed), "--with-reset"])
    path = Path(written["path"])
    check_file(path, pi16_oracle)
    a = analyze(read(path), path=str(path))
    named = [v for k, v in written["ids"].items() if k.startswith(("edit", "compaction", "system"))]
    assert named
    for ident in named:  # where what pi sends changes: edits, compactions, system messages
        pi = pi16_oracle(["load", path, "--leaf", ident])
        assert our_messages(conversation(a, ident)) == pi_messages(pi), ident
