"""The session doctor's quick fixes (PI421, PI423-PI425) through a real LSP client, as every
other quick fix is tested in test_actions.py: offered for the diagnostic, resolved, applied,
and the diagnostic gone with no error added and only the lines the fix must change changed;
and the re-parenting of a dangling parent onto a result whose id a later entry takes."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from tests.core.pi_sessions import assistant, doc, entry, header, result, user

from . import test_actions
from .test_actions import Case

A, B, C, D, E, F = (c * 8 for c in "abcdef")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "broken-session.jsonl"

CASES = [
    Case(
        "PI423-compaction",
        doc(
            header(),
            user(A, None),
            assistant(B, A, calls=("t1",)),
            result(C, B, "t1"),
            assistant(D, C),
            entry("compaction", E, D, summary="s", firstKeptEntryId=C, tokensBefore=9),
            user(F, E),
        ),
        "PI423",
        5,
        "Keep from the assistant turn",
        replaced={5},
    ),
    Case(
        "PI425-interloper",
        doc(
            header(),
            user(A, None),
            assistant(B, A, calls=("t1",)),
            entry("custom_message", C, B, customType="x", content="note", display=True),
            result(D, C, "t1"),
            assistant(E, D),
            user(F, A, "elsewhere"),
        ),
        "PI425",
        3,
        "Move this message after the tool results",
        replaced={3, 4, 5},
    ),
    Case(
        "PI421-result-on-another-branch",
        doc(
            header(),
            user(A, None),
            assistant(B, A, calls=("t1",)),
            result(C, B, "t1"),
            user(D, B, "next"),
            assistant(E, D),
        ),
        "PI421",
        2,
        "Re-parent line 5 to the toolResult on line 4",
        replaced={4},
    ),
    Case(  # issue 43: line 6 follows line 5, the result; line 7 loses the id it took
        "PI400-previous-entry-shadowed",
        EXAMPLE.read_text(encoding="utf-8"),
        "PI400",
        5,
        "Re-parent to the previous entry (line 5), giving line 7",
        replaced={5, 6, 7},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@pytest.mark.slow
async def test_doctor_fix_through_the_server(client: LanguageClient, case: Case) -> None:
    await test_actions.test_quick_fix_through_the_server(client, case)
