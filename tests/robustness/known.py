"""Bugs the fuzzers already found, each with an exact ``xfail(strict=True)`` regression test.

A fuzz run reports a problem matching one of these patterns as *known* (counted, not
failed), so the suite keeps guarding everything else while the bug is open. When a bug
is fixed, its strict xfail test starts passing and fails the run: remove the xfail
marker there, and its entry here.
"""

from __future__ import annotations

import re

KNOWN_BUGS: dict[str, tuple[str, str]] = {
    # id: (regular expression on a problem report, where the regression test is)
}


def classify(problem: str) -> str | None:
    """The id of the known bug ``problem`` is an instance of, if any."""
    for ident, (pattern, _) in KNOWN_BUGS.items():
        if re.search(pattern, problem, re.DOTALL):
            return ident
    return None


def unknown(problems: list[str]) -> list[str]:
    """The problems that are not instances of a known bug."""
    return [p for p in problems if classify(p) is None]
