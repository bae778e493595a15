"""Where pi stops loading a session: the size limits of its two loaders (PI500).

Found in their code and measured here with ``bench/size_limits.mjs`` (node 20 and 24
both have V8's string limit of 2**29 - 24 = 536,870,888 UTF-16 units):

- pi 0.73.1 reads a session with ``readFileSync(file, "utf8")``, one string for the whole
  file. Node refuses to decode :data:`PI073_MAX_FILE` + 1 bytes or more
  (``ERR_STRING_TOO_LONG``; 536,870,887 bytes load, 536,870,888 do not), whatever the
  characters: a 600 MiB file of two-byte characters fails too. pi cannot open it.
- pi 1.6 reads 1 MiB at a time into a ``pending`` string that grows until the next
  newline, so the file has no such limit (a 640 MiB file of 64 MiB lines loads), but one
  line of more than :data:`PI16_MAX_LINE` UTF-16 units throws ("Invalid string length").
  ``pending`` is searched again after every 1 MiB, so a line costs time quadratic in its
  length, on every resume: 64 MiB took 4.2 s, 128 MiB 16.7 s, 256 MiB 64 s here.

Lines over the large-line threshold (1 MiB by default) are information; from
:data:`SLOW_LINE` on a warning, and an error over pi 1.6's limit. A file from
:data:`NEAR_FILE` bytes on gets a warning on its header naming the entries that weigh
most (:func:`heaviest`), which hover and code lens show too.
"""

from __future__ import annotations

import heapq
import re
from typing import TYPE_CHECKING, Any, NamedTuple

from .findings import Finding, Related, Severity
from .text import Stored, unpack, utf8_of

if TYPE_CHECKING:
    from .model import Analysis

MIB = 1024 * 1024
V8_MAX_STRING = 2**29 - 24
"""V8's longest string (UTF-16 units), in node 20 and 24."""
PI073_MAX_FILE = V8_MAX_STRING - 1
"""The largest file (bytes) pi 0.73.1 loads."""
PI16_MAX_LINE = V8_MAX_STRING
"""The longest line (UTF-16 units) pi 1.6 loads."""
SLOW_LINE = 64 * MIB
"""From this many bytes on, pi 1.6 needs seconds to read a line (4.2 s measured)."""
NEAR_FILE = 384 * MIB
"""From this many bytes on (3/4 of pi 0.73.1's limit), the file gets a warning."""
HEAVIEST = 3
"""Entries named as the heaviest."""


def _mib(size: int) -> str:
    return f"{size / MIB:.1f} MiB"


_ESCAPED = re.compile("[\udc80-\udcff]")
"""The lone surrogates an undecodable byte is read as (``surrogateescape``)."""


def line_bytes(text: str) -> int:
    """The UTF-8 size of a line: an undecodable byte, kept as a lone surrogate, counts one;
    any other lone surrogate three (as a client's text may hold one)."""
    if text.isascii():
        return len(text)
    try:
        return len(text.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:
        return len(text.encode("utf-8", "surrogatepass")) - 2 * len(_ESCAPED.findall(text))


def stored_bytes(item: Stored) -> int:
    """:func:`line_bytes` of a line as :class:`~pi_lsp.core.text.Lines` stores it (decoded
    only when it is no plain UTF-8, :func:`~pi_lsp.core.text.utf8_of`)."""
    data = utf8_of(item)
    return len(data) if data is not None else line_bytes(unpack(item))


def _utf16(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def line_size(text: str, threshold: int) -> tuple[Severity, str] | None:
    """PI500's severity and message for a line of ``text``; None below ``threshold`` bytes."""
    if len(text) * 4 < threshold:
        return None
    size = line_bytes(text)
    if size <= threshold:
        return None
    what = f"line is {_mib(size)} (over {threshold / MIB:g} MiB), usually an embedded image"
    if size >= PI16_MAX_LINE and _utf16(text) > PI16_MAX_LINE:
        return Severity.ERROR, (
            f"{what}; pi cannot load this session: pi 1.6 reads a line into one string and V8 "
            f"strings end at {PI16_MAX_LINE:,} characters, pi 0.73.1 reads the whole file into one"
        )
    if size >= SLOW_LINE:
        return Severity.WARNING, (
            f"{what}; pi 1.6 takes seconds to read a line this long on every resume (the time "
            "grows with the square of its length: 64 MiB took 4 s, 256 MiB a minute) and "
            f"cannot read one over {PI16_MAX_LINE / MIB:.0f} MiB at all"
        )
    return Severity.INFORMATION, f"{what}; pi loads it whole into memory on every resume"


class Weight(NamedTuple):
    """An entry's size in bytes (its line, UTF-8) and the images it embeds."""

    line: int
    size: int
    images: int

    def describe(self) -> str:
        """``line 12: 4.2 MiB (2 images)``."""
        text = f"line {self.line + 1}: {_mib(self.size)}"
        if self.images:
            text += f" ({self.images} image{'s' if self.images != 1 else ''})"
        return text


def _images(obj: dict[str, Any]) -> int:
    """Image blocks in an entry's content (a message's, or a custom message's)."""
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else obj.get("content")
    if not isinstance(content, list):
        return 0
    return sum(1 for b in content if isinstance(b, dict) and b.get("type") == "image")


def heaviest(a: Analysis, count: int = HEAVIEST) -> list[Weight]:
    """The ``count`` entries with the longest lines, heaviest first: among the lines PI500
    reports when there are any (cheap), else among all entries."""
    large = {f.span.line for f in a.findings if f.code == "PI500"} & set(a.tree.entries)
    pool = large or a.tree.entries
    top = heapq.nlargest(count, pool, key=lambda line: len(a.lines[line]))
    weights = [Weight(n, line_bytes(a.lines[n]), _images(a.infos[n].obj)) for n in top]
    return sorted(weights, key=lambda w: -w.size)


def heaviest_text(a: Analysis) -> str | None:
    """``largest entries: ...`` when PI500 reports a line, else None."""
    if not any(f.code == "PI500" for f in a.findings):
        return None
    top = heaviest(a)
    return "largest entries: " + "; ".join(w.describe() for w in top) if top else None


def file_bytes(a: Analysis) -> int:
    """The size of the document in UTF-8 bytes (of one far below :data:`NEAR_FILE`, a count
    as far below it)."""
    terms = sum(map(len, a.text.terminators))
    # a line stored as its str or as its UTF-8 bytes is no shorter than its characters,
    # and a character takes at most 4 bytes (no line is decoded here)
    stored = sum(map(len, a.lines.iter_raw())) + terms
    if stored * 4 < NEAR_FILE:
        return stored
    return sum(map(stored_bytes, a.lines.iter_raw())) + terms


def check(a: Analysis) -> list[Finding]:
    """PI500 on the header of a file that nears or passes pi 0.73.1's limit."""
    if a.header_line is None or a.fmt != "pi":
        return []
    size = file_bytes(a)
    if size < NEAR_FILE:
        return []
    top = heaviest(a)
    verdict = (
        "pi 0.73.1 cannot load it"
        if size > PI073_MAX_FILE
        else f"pi 0.73.1 cannot load a session over {PI073_MAX_FILE:,} bytes"
    )
    message = (
        f"the session is {_mib(size)}: {verdict} (it reads the file into one string); pi 1.6 "
        "reads it line by line. Heaviest entries: " + "; ".join(w.describe() for w in top)
    )
    span = a.span_of(a.header_line, ("type",))  # a header always has its "type"
    related = tuple(Related(a.line_span(w.line), w.describe()) for w in top)
    return [Finding("PI500", Severity.WARNING, span, message, related)]
