"""Terminal output for the command line: colour (``--color``, ``NO_COLOR``), widths, pipes.

Widths are terminal columns: East Asian wide and full-width characters (日本語, most emoji)
take two, combining marks and zero-width characters none, everything else one.
"""

from __future__ import annotations

import functools
import os
import re
import unicodedata
from typing import TextIO

COLOR_CHOICES = ("auto", "always", "never")
DEFAULT_WIDTH = 200
"""Columns used when the output is not a terminal."""


def use_color(choice: str, stream: TextIO) -> bool:
    """Whether to colour ``stream``: ``always``/``never``, or ``auto``.

    ``auto`` colours a terminal unless ``NO_COLOR`` is set (and not empty) or ``TERM`` is
    ``dumb``; ``FORCE_COLOR`` (not empty) colours even a pipe.
    """
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream.isatty() and os.environ.get("TERM") != "dumb"


_ANSI = {"bold": "1", "dim": "2", "red": "1;31", "yellow": "1;33", "blue": "1;34", "cyan": "36"}


class Style:
    """ANSI styles, or plain text when colour is off."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, style: str) -> str:
        """``text`` in ``style`` (a key of the table above)."""
        if not self.enabled or not text:
            return text
        return f"\x1b[{_ANSI[style]}m{text}\x1b[0m"


def output_width(stream: TextIO) -> int:
    """The terminal's width when ``stream`` is a terminal, else :data:`DEFAULT_WIDTH`."""
    if stream.isatty():
        try:
            return os.get_terminal_size(stream.fileno()).columns
        except (OSError, ValueError):
            import shutil  # only here: it costs a few milliseconds of every start

            return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    return DEFAULT_WIDTH


@functools.lru_cache(maxsize=8192)
def char_columns(ch: str) -> int:
    """Columns one character takes on a terminal."""
    if ch < " ":
        return 0
    if unicodedata.combining(ch) or ch in "\u200b\u200c\u200d\ufe0e\ufe0f":
        return 0
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


_NOT_PLAIN = re.compile(r"[^\x20-\x7e]")


def columns(text: str) -> int:
    """Columns ``text`` takes on a terminal."""
    return len(text) + sum(char_columns(ch) - 1 for ch in _NOT_PLAIN.findall(text))


def fit(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` columns, ending in ``…`` when cut."""
    if width <= 0:
        return ""
    if 2 * len(text) <= width or columns(text) <= width:
        return text
    used = 0
    for i, ch in enumerate(text):
        used += char_columns(ch)
        if used > width:
            head = text[:i]
            while head and columns(head) > width - 1:
                head = head[:-1]
            return head + "…"
    return text


def counted(n: int, noun: str, nouns: str | None = None) -> str:
    """``n`` and ``noun``, in the plural (``nouns``, default ``noun + "s"``) unless n is 1."""
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"
