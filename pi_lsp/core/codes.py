"""The diagnostic codes of SPEC §2: one place that names each code and its severities.

Every finding the core emits has a code declared here, with its default severity or one of
the others declared for it (``also``: codes graded by what pi does in each case).
``tests/core/test_codes.py`` checks both, in the source and on every test file.
"""

from __future__ import annotations

from typing import NamedTuple

from .findings import Severity


class Code(NamedTuple):
    """A diagnostic code's title, default severity and the other severities it may take."""

    code: str
    severity: Severity
    title: str
    also: tuple[Severity, ...] = ()

    @property
    def severities(self) -> frozenset[Severity]:
        """Every severity a finding with this code may have."""
        return frozenset((self.severity, *self.also))


_E, _W, _I, _H = Severity.ERROR, Severity.WARNING, Severity.INFORMATION, Severity.HINT

CODES: dict[str, Code] = {
    c.code: c
    for c in (
        Code("PI001", _E, "line is not valid JSON (or not valid UTF-8)"),
        Code("PI002", _E, "last line is cut off mid-object"),
        Code("PI003", _E, "line is JSON but not an object with a string type"),
        Code("PI004", _W, "unknown entry type for this format"),
        Code("PI005", _I, "blank line inside the file"),
        Code("PI100", _E, "first line is not a session header"),
        Code("PI101", _E, "a second or misplaced header"),
        Code("PI102", _E, "unsupported version (newer than 3: warning)", (_W,)),
        Code("PI103", _W, "session not migrated to v3"),
        Code("PI104", _H, "file name's session id differs from the header id"),
        Code("PI105", _I, "book-dialect layout (session_header) that pi cannot load"),
        # graded per violation by the schema's x-pi-consequence (error/warning/information);
        # error only for a violation the schema does not grade
        Code(
            "PI200", _E, "entry violates its JSON Schema (severity: what pi does with it)", (_W, _I)
        ),
        Code("PI201", _W, 'assistant stopReason is "pending"'),
        Code(
            "PI300",
            _E,
            "entry without id/parentId in a v2/v3 file (lower when pi loses nothing)",
            (_W, _I),
        ),
        Code("PI301", _W, "role hookMessage in a v3 file"),
        Code("PI302", _W, "firstKeptEntryIndex in a v2/v3 file"),
        Code("PI303", _W, "entries carry ids but the header says v1"),
        Code("PI400", _E, "parentId names no entry (information on the first entry)", (_I,)),
        Code("PI401", _E, "duplicate id"),
        Code("PI402", _E, "parentId cycle"),
        Code("PI403", _W, "parentId names an entry on a later line"),
        Code("PI410", _W, "compaction firstKeptEntryId names no entry or one off its path", (_I,)),
        Code("PI411", _W, "label targetId names no entry"),
        Code("PI412", _W, "branch_summary fromId names no entry", (_I,)),
        Code("PI413", _E, "v1 firstKeptEntryIndex out of range or at the header"),
        Code("PI414", _W, "context_edit targetId names no entry"),
        Code("PI415", _W, "context_edit with no effect"),
        Code("PI420", _E, "toolResult whose toolCallId matches no toolCall on its path"),
        Code("PI421", _W, "toolCall on the active path with no toolResult after it"),
        Code("PI422", _W, "two toolResults answer the same toolCall on one path"),
        Code(
            "PI423", _E, "the context pi sends holds a tool result not right after its call", (_W,)
        ),
        Code("PI424", _W, "a compaction's kept range starts inside a tool exchange"),
        Code("PI425", _W, "a user-role entry between tool calls and their results"),
        Code(
            "PI500",
            _I,
            "line larger than 1 MiB (larger, or a file near pi's limits: more)",
            (_W, _E),
        ),
    )
}
