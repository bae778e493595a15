"""Argument types shared by the subcommands."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def whole_number(low: int, zero: str | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` up, or 0 when ``zero`` says what it means."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if value < low and not (zero is not None and value == 0):
            allowed = f"0 ({zero}) or at least {low}" if zero is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"expected {allowed}, got {value}")
        return value

    return parse
