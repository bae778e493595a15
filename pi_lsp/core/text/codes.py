"""The diagnostic codes of SPEC §2: the one place that declares each code.

A code's entry holds its title (SARIF's and ``check --statistics``'s short description), its
default severity and the others it may take (``also``: codes graded by what pi does in each
case), its line of documentation (the README's table, which says what pi does with such a
line; ``tests/test_docs.py`` fails when the README differs) and the name of the builder of its
quick fixes in ``core/repairs`` (``fix``; empty for a code without one). ``tests/core/test_codes.py``
checks that every finding the core emits is declared here with a declared severity.
"""

from __future__ import annotations

from typing import NamedTuple

from .findings import Severity


class Code(NamedTuple):
    """A diagnostic code: title, severities, documentation line and fix builder."""

    code: str
    severity: Severity
    title: str
    also: tuple[Severity, ...] = ()
    doc: str = ""
    fix: str = ""

    @property
    def severities(self) -> frozenset[Severity]:
        """Every severity a finding with this code may have."""
        return frozenset((self.severity, *self.also))

    def readme_row(self) -> str:
        """This code's row of the README's diagnostics table."""
        labels = "/".join(s.label for s in (self.severity, *self.also))
        return f"| {self.code} | {labels} | {self.doc} |"


_E, _W, _I, _H = Severity.ERROR, Severity.WARNING, Severity.INFORMATION, Severity.HINT

CODES: dict[str, Code] = {
    c.code: c
    for c in (
        Code(
            "PI001",
            _E,
            "line is not valid JSON (or not valid UTF-8)",
            doc="line is not valid JSON (range starts at the parse error), or holds bytes that are not UTF-8",
        ),
        Code(
            "PI002",
            _E,
            "last line is cut off mid-object",
            doc="last line is cut off mid-object (crash while writing)",
            fix="cut_off",
        ),
        Code(
            "PI003",
            _E,
            "line is JSON but not an object with a string type",
            doc="line is JSON but not an object, or has no string `type`",
        ),
        Code(
            "PI004",
            _W,
            "unknown entry type for this format",
            doc="unknown entry `type` for this format (the message says when it is a parentless last entry, where pi resumes with an empty context)",
        ),
        Code(
            "PI005",
            _I,
            "blank line inside the file",
            doc="blank line inside the file",
            fix="blank",
        ),
        Code(
            "PI100",
            _E,
            "first line is not a session header",
            doc="first line is not a session header, or the file is empty or blank (pi refuses the file, or leaves it out of `/resume`)",
        ),
        Code(
            "PI101",
            _E,
            "a second or misplaced header",
            doc="a second or misplaced header",
        ),
        Code(
            "PI102",
            _E,
            "unsupported version (newer than 3: warning)",
            also=(_W,),
            doc="unsupported `version` (not an integer 1–3: error; newer than 3: warning)",  # noqa: RUF001
        ),
        Code(
            "PI103",
            _W,
            "session not migrated to v3",
            doc="session not migrated to v3 (on the header; quick fix: migrate)",
            fix="migrate",
        ),
        Code(
            "PI104",
            _H,
            "file name's session id differs from the header id",
            doc="the session id in the file name (`<timestamp>_<id>.jsonl`) differs from the header `id` (ids may be custom, not only UUIDs)",
        ),
        Code(
            "PI105",
            _I,
            "book-dialect layout (session_header) that pi cannot load",
            doc="a second-dialect (`session_header`) file, which pi cannot load (on the header; quick fix: convert to pi v3; see [docs/book-dialect.md](docs/book-dialect.md))",
        ),
        # graded per violation by the schema's x-pi-consequence (error/warning/information);
        # error only for a violation the schema does not grade
        Code(
            "PI200",
            _E,
            "entry violates its JSON Schema (severity: what pi does with it)",
            also=(_W, _I),
            doc="entry violates its JSON Schema (one diagnostic per violation, capped per line), graded by what pi does with it: error where pi or pi-ai breaks or loses data, warning where pi loads it but something is off, information where nothing is lost",
        ),
        Code(
            "PI201",
            _W,
            "assistant stopReason is \"pending\"",
            doc="assistant `stopReason` is `\"pending\"` (must never be persisted)",
            fix="pending",
        ),
        Code(
            "PI300",
            _E,
            "entry without id/parentId in a v2/v3 file (lower when pi loses nothing)",
            also=(_W, _I),
            doc="entry without `id`/`parentId` in a v2/v3 file (pi reads a missing `parentId` as null: information on the first entry, which is the root anyway; error when the entry is on the active path, warning off it; an entry without `id` is error)",
            fix="missing_ids",
        ),
        Code(
            "PI301",
            _W,
            "role hookMessage in a v3 file",
            doc="role `hookMessage` in a v3 file",
            fix="hook_role",
        ),
        Code(
            "PI302",
            _W,
            "firstKeptEntryIndex in a v2/v3 file",
            doc="`firstKeptEntryIndex` in a v2/v3 file",
            fix="first_kept_index",
        ),
        Code(
            "PI303",
            _W,
            "entries carry ids but the header says v1",
            doc="entries carry ids but the header says v1 (half-migrated)",
            fix="half_migrated",
        ),
        Code(
            "PI400",
            _E,
            "parentId names no entry (information on the first entry)",
            also=(_I,),
            doc="`parentId` names no entry in the file (information on the first entry: pi makes it the root, as it is anyway)",
            fix="dangling",
        ),
        Code(
            "PI401",
            _E,
            "duplicate id",
            doc="duplicate `id`",
            fix="duplicate_id",
        ),
        Code(
            "PI402",
            _E,
            "parentId cycle",
            doc="`parentId` cycle (self-parent included)",
            fix="cycle",
        ),
        Code(
            "PI403",
            _W,
            "parentId names an entry on a later line",
            doc="`parentId` names an entry on a later line",
        ),
        Code(
            "PI410",
            _W,
            "compaction firstKeptEntryId names no entry or one off its path",
            also=(_I,),
            doc="compaction `firstKeptEntryId` names no entry (information when it names an entry on another branch: pi's own SessionManager writes such compactions, and pi then keeps only the summary)",
        ),
        Code(
            "PI411",
            _W,
            "label targetId names no entry",
            doc="label `targetId` names no entry",
        ),
        Code(
            "PI412",
            _W,
            "branch_summary fromId names no entry",
            also=(_I,),
            doc="branch_summary `fromId` names no entry (and is not `\"root\"`)",
        ),
        Code(
            "PI413",
            _E,
            "v1 firstKeptEntryIndex out of range or at the header",
            doc="v1 `firstKeptEntryIndex` out of range or pointing at the header",
        ),
        Code(
            "PI414",
            _W,
            "context_edit targetId names no entry",
            doc="`context_edit` `targetId` names no entry (pi ignores the edit)",
        ),
        Code(
            "PI415",
            _W,
            "context_edit with no effect",
            doc="`context_edit` with no effect: its target is off the edit's path, adds no message, or is a kind pi never edits with a non-null replacement (pi's own `appendContextEdit` refuses all three). An edit whose target the newest compaction already summarised does nothing too, harmlessly (pi writes such edits): the hover says so, no diagnostic",
        ),
        Code(
            "PI420",
            _E,
            "toolResult whose toolCallId matches no toolCall on its path",
            doc="toolResult whose `toolCallId` matches no toolCall on its path",
            fix="orphan_result",
        ),
        Code(
            "PI421",
            _W,
            "toolCall on the active path with no toolResult after it",
            doc="toolCall on the active path with no toolResult after it, in the session's last turn (earlier unanswered calls were interrupted; pi fills in a synthetic result); or anywhere pi-ai sends `\"No result provided\"` for a call whose result is in the file but on another branch (the result's line is related information)",
            fix="unanswered",
        ),
        Code(
            "PI422",
            _W,
            "two toolResults answer the same toolCall on one path",
            doc="two toolResults answer the same toolCall on one path",
        ),
        Code(
            "PI423",
            _E,
            "the context pi sends holds a tool result not right after its call",
            also=(_W,),
            doc="the context pi sends for the leaf holds a tool result not right after its call, so providers reject every request (reported on the cause: the compaction's `firstKeptEntryId`, the context edit, the aborted turn, or the message between call and result); a warning for other leaves of the tree",
            fix="resume",
        ),
        Code(
            "PI424",
            _W,
            "a compaction's kept range starts inside a tool exchange",
            doc="a compaction's kept range starts inside a tool exchange (the session breaks whenever it is the newest compaction on the path)",
            fix="resume",
        ),
        Code(
            "PI425",
            _W,
            "a user-role entry between tool calls and their results",
            doc="an entry pi sends as a user message sits between tool calls and their results (pi answers the calls with \"No result provided\"; the real results become orphans)",
            fix="resume",
        ),
        Code(
            "PI500",
            _I,
            "line larger than 1 MiB (larger, or a file near pi's limits: more)",
            also=(_W, _E),
            doc="line larger than 1 MiB (usually an embedded image); a warning from 64 MiB (pi 1.6 reads a line in time quadratic in its length: 4 s for 64 MiB, a minute for 256 MiB), an error over 536,870,888 characters (V8's string limit: pi 1.6 cannot load it); a warning on the header of a file from 384 MiB (pi 0.73.1 reads a file into one string and cannot load one of 536,870,888 bytes or more), naming the heaviest entries, which the header's hover and code lens also show",
        ),
    )
}
"""Every diagnostic code, in the order of SPEC §2."""

FIXABLE = frozenset(code for code, c in CODES.items() if c.fix)
"""Diagnostic codes that have at least one quick fix."""
