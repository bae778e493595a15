"""The context view marks what pi-ai's ``transformMessages`` adds or drops: synthetic
results (``sent``, and ``+`` lines in text) and turns it does not send (``notSent``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.cli import main
from pi_lsp.core.analysis import analyze
from pi_lsp.core.context import session_context
from pi_lsp.core.sent import NOT_SENT

from .pi_sessions import assistant, doc, entry, header, result, user

A, B, C, D, E = (c * 8 for c in "abcde")

INTERLOPER = doc(
    header(),
    user(A, None),
    assistant(B, A, calls=("t1",)),
    entry("custom_message", C, B, customType="x", content="note", display=True),
    result(D, C, "t1"),
    assistant(E, D),
)
ABORTED = doc(
    header(),
    user(A, None),
    assistant(B, A, calls=("t1",), stop="aborted"),
    user(C, B, "again"),
    assistant(D, C),
)


def test_sent_in_json_marks_synthetic_results() -> None:
    view = session_context(analyze(INTERLOPER)).to_json()
    assert view["sent"] == [
        {"role": "user", "line": 1},
        {"role": "assistant", "line": 2, "toolCallIds": ["t1"]},
        {"role": "toolResult", "line": None, "toolCallId": "t1", "synthetic": True},
        {"role": "user", "line": 3},
        {"role": "toolResult", "line": 4, "toolCallId": "t1"},
        {"role": "assistant", "line": 5, "toolCallIds": []},
    ]
    assert all("notSent" not in m for m in view["messages"])


def test_aborted_turn_is_marked_not_sent() -> None:
    view = session_context(analyze(ABORTED)).to_json()
    marked = [(m["line"], m.get("notSent")) for m in view["messages"]]
    assert marked == [(1, None), (2, NOT_SENT), (3, None), (4, None)]
    assert [m["line"] for m in view["sent"]] == [1, 3, 4]


@pytest.mark.parametrize(
    "text, wanted",
    [
        (INTERLOPER, '      +  toolResult "No result provided" for t1 (added by pi-ai)'),
        (ABORTED, "(not sent: pi-ai drops failed and aborted turns)"),
    ],
)
def test_context_text_shows_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, wanted: str
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(text, encoding="utf-8")
    assert main(["context", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    hits = [n for n, line in enumerate(out) if wanted in line]
    assert len(hits) == 1
    if text is INTERLOPER:  # right after the turn that holds the call
        assert out[hits[0] - 1].lstrip().startswith("3  assistant")
