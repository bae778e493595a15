"""The session header as pi reads it: whether pi opens the file, its format and version.

:func:`refusal` is the one verdict on a file pi does not open as a session (empty, only
blank lines, no line that parses, no header first, a header without a string id, the other
dialect): ``check``'s PI100 says it, and every other command prints the same reason.
pi compares the header's ``version`` as a JavaScript number: ``3`` and ``3.0`` are the
same whole number, ``"3"`` is not a version (:func:`whole_number`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

from .lines import Kind, LineInfo

_NO_HEADER = (
    "pi 1.6 (since 0.80.3) leaves the session out of /resume and refuses to open the file (\"not "
    "a valid pi session\"), leaving it untouched; pi 0.73 treated the file as empty and "
    "overwrote it with a new session, losing everything"
)
"""What pi does with a non-empty file whose first parsed line is not a header with a string id."""

RefusalKind = Literal["empty", "blank", "unparsed", "not_header", "no_id", "book"]

_REASONS: dict[RefusalKind, str] = {
    "empty": "the file is empty, so there is no session header; pi leaves it out of /resume and "
    "--continue, and opened with --session it writes a new session header into it and starts "
    "a new session there (pi 1.6 and 0.73 alike)",
    "blank": "the file holds only blank lines, so there is no session header; pi leaves it out "
    "of /resume and --continue; pi 1.6 refuses to open it with --session (\"not a valid pi "
    "session\"), leaving it untouched; pi 0.73 overwrote it with a new session",
    "unparsed": f"no line of this file parses, so there is no session header; {_NO_HEADER}",
    "not_header": "the first line that parses is not a session header "
    f'({{"type":"session",...}}); {_NO_HEADER}',
    "no_id": f"the session header has no string 'id'; {_NO_HEADER}",
    "book": 'the file uses the "session_header" layout documented in the book, not pi\'s '
    "session format: pi cannot load it (convert it with pi-lsp migrate)",
}


class Refusal(NamedTuple):
    """Why pi does not open a file as a session: what is wrong and the line it is on."""

    kind: RefusalKind
    line: int | None
    """The line it concerns: the first that parses, else the first not blank (None: none)."""

    @property
    def reason(self) -> str:
        """One line: what is wrong and what pi does with the file."""
        return _REASONS[self.kind]


def no_bytes(lines: Sequence[object]) -> bool:
    """True for a file without a byte: its lines (``str`` or stored items) are one empty line."""
    return len(lines) == 1 and not lines[0]


def refusal(
    infos: Sequence[LineInfo], header_line: int | None, fmt: str, empty: bool
) -> Refusal | None:
    """Why pi does not open the file as a session, None when it does.

    ``header_line`` is the header's line (None: none), ``empty`` whether the file has no
    byte at all. pi reads the first line ``JSON.parse`` accepts as the header and needs
    ``type`` ``"session"`` and a string ``id`` (``loadEntriesFromFile``).
    """
    first = next((i for i, info in enumerate(infos) if info.parsed), None)
    if first is None:
        text = next((i for i, info in enumerate(infos) if info.kind is not Kind.BLANK), None)
        if text is not None:
            return Refusal("unparsed", text)
        return Refusal("empty" if empty else "blank", None)
    if header_line != first:
        return Refusal("not_header", first)
    if fmt != "pi":
        return Refusal("book", first)
    header = infos[first].obj
    if header.get("type") != "session":
        return Refusal("not_header", first)
    if not isinstance(header.get("id"), str):
        return Refusal("no_id", first)
    return None


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
