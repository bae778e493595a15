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
most (:mod:`pi_lsp.core.checks.sizes`), which hover and code lens show too.
"""

from __future__ import annotations

import re

from .findings import Severity
from .lineindex import Stored, unpack, utf8_of

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


def mib(size: int) -> str:
    """``4.2 MiB``."""
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
    """:func:`line_bytes` of a line as :class:`~pi_lsp.core.text.lineindex.Lines` stores it (decoded
    only when it is no plain UTF-8, :func:`~pi_lsp.core.text.lineindex.utf8_of`)."""
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
    what = f"line is {mib(size)} (over {threshold / MIB:g} MiB), usually an embedded image"
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
