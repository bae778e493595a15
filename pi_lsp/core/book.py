"""The second documented session dialect (``session_header`` files): its own link checks."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .analysis import Analysis


def check(a: Analysis) -> None:
    """Append the dialect's own link findings (tool ids, summarized ids) to ``a.findings``."""
