"""The session header as pi reads it: the format and version it declares.

pi compares the header's ``version`` as a JavaScript number: ``3`` and ``3.0`` are the
same whole number, ``"3"`` is not a version (:func:`whole_number`).
"""

from __future__ import annotations

from typing import Any

from .lines import Kind, LineInfo


def whole_number(value: Any) -> int | None:
    """``value`` as an int when JavaScript sees a whole number (``3`` or ``3.0``), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def read_header(
    header: dict[str, Any], header_line: int, infos: list[LineInfo] | None
) -> tuple[str, int, int | None]:
    """Format and version from a header; None for ``infos`` means "not parsed yet".

    Raises LookupError when the version cannot be told without every line (it is not
    an integer: then entries carrying ids decide).
    """
    if header.get("type") == "session_header":
        return "book", 1, header_line
    version = whole_number(header.get("version", 1))
    if version is None:
        if infos is None:
            raise LookupError("version needs every line")
        has_ids = any(info.kind is Kind.ENTRY and "id" in info.obj for info in infos)
        return "pi", 3 if has_ids else 1, header_line
    return "pi", min(max(version, 1), 3), header_line
