"""Every diagnostic code of SPEC §2 (first dialect), triggered by a hand-written fixture.

Each file in ``tests/data/broken/`` shows one problem (``many-problems.jsonl`` shows many);
its namesake in ``tests/data/fixed/`` is the same session with the problem repaired.
For every expected diagnostic the test asserts the line, the exact range (computed here
from the line text with ``str.index``, never hard-coded), the severity, the related
location at the other end of a broken relation, and that the message says what pi does.

Every fixture is also checked with its line endings rewritten to CRLF and to lone CR,
and with a byte-order mark in front: the same diagnostics must come out on the same lines,
except that pi 1.6 gives each line to JSON.parse as it is, so a BOM before the header makes
it refuse the file (one more PI100, on the BOM).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.model import Analysis, Options
from pi_lsp.core.text.codes import CODES
from pi_lsp.core.text.findings import Finding, Severity
from pi_lsp.core.text.lineindex import split_lines
from pi_lsp.lsp.wire import diagnostic

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
BROKEN = DATA / "broken"
FIXED = DATA / "fixed"

E, W, N, H = Severity.ERROR, Severity.WARNING, Severity.INFORMATION, Severity.HINT  # N: notice

# the session header id of every fixture, and ids used inside them
SID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
OTHER_SID = "ffffffff-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
NAME_TIME = "2026-03-01T10-00-00-000Z"  # how pi writes the creation time into a file name
U1, A1, R1, A2, U2, A3, X1 = (
    "1a2b3c4d",
    "2b3c4d5e",
    "3c4d5e6f",
    "4d5e6f70",
    "5e6f7081",
    "6f708192",
    "708192a3",
)


def q(s: str) -> str:
    """A JSON string token as it appears in the line."""
    return f'"{s}"'


# ----------------------------------------------------------------------------- expectations


@dataclass(frozen=True)
class At:
    """A place inside line ``line`` (1-based): the first ``token`` after ``after``.

    ``token=None`` means the whole line; ``eol`` extends the range to the end of the line
    (a parse error's range starts at the error and runs to the end).
    """

    line: int
    token: str | None = None
    after: str | None = None
    eol: bool = False

    def span(self, text: str) -> tuple[int, int]:
        if self.token is None:
            return 0, len(text)
        pos = text.index(self.after) + len(self.after) if self.after else 0
        start = text.index(self.token, pos)
        end = len(text.rstrip(" \t\r\n")) if self.eol else start + len(self.token)
        return start, end


@dataclass(frozen=True)
class Expect:
    code: str
    at: At
    severity: Severity | tuple[Severity, ...]
    related: tuple[At, ...] = ()


# what the message must say: what is wrong and what pi does with it
MESSAGE = {
    "PI001": r"not valid JSON.*pi skips",
    "PI002": r"cut off.*pi skips",
    "PI003": r"pi .*(ignores|skips|cannot)",
    "PI004": r"unknown entry type 'bookmark'.*pi keeps",
    "PI005": r"blank line.*pi skips",
    "PI100": r"session header.*\bpi\b",
    "PI101": r"second session header.*\bpi\b",
    "PI102": r"version.*(\bpi\b|checked as v3)",
    "PI103": r"not migrated.*pi migrates",
    "PI104": r"file name says session '[^']+' but the header id is '[^']+'.*\bpi\b.*--session",
    # the object at fault, what is wrong, and what pi (or pi-ai, or the provider) does then
    "PI200": r"^(session header|\w+ (entry|message))\b.*(has no|must be).*; .*\b(pi|pi-ai|provider)\b",
    "PI201": r'"pending".*never be persisted.*\bpi\b',
    "PI300": r"no 'id'.*\bpi\b|no 'parentId'.*\bpi\b",
    "PI301": r"hookMessage.*custom.*\bpi\b",
    "PI302": r"firstKeptEntryIndex.*pi ignores",
    "PI303": r"half-migrated.*\bpi\b",
    "PI400": r"names no entry.*pi (stops the path.*\d+ entr(y|ies) before it|makes this entry a root)",
    "PI401": r"duplicate id.*pi's index keeps only the last",
    "PI402": r"cycle.*pi follows parents forever",
    "PI403": r"later line.*pi only appends",
    "PI410": r"firstKeptEntryId.*pi keeps none",
    "PI411": r"targetId '0badf00d' names no entry.*\bpi\b",
    "PI412": r"fromId '0badf00d' names no entry",
    "PI413": r"firstKeptEntryIndex.*\bpi\b",
    "PI414": r"targetId '0badf00d' names no entry; pi ignores the edit",
    "PI415": r"context_edit of '\w+' \(line \d+\) has no effect: .*\bpi\b",
    "PI420": r"toolCallId '\w+'.*no toolCall.*path",
    "PI421": r"toolCall 'toolu_02'.*no toolResult.*pi sends",
    "PI422": r"second toolResult.*'toolu_01'",
    "PI423": r"context for the leaf pi resumes from breaks: .*'toolu_01'.*providers such as Anthropic reject",
    "PI424": r"kept range starts inside a tool exchange.*orphaned result.*reject",
    "PI425": r"pi sends this entry as a user message between the tool calls.*No result provided",
    "PI500": r"MiB.*pi loads",
}

TYPE = At(1, '"session"')  # the header's type value: the anchor when there is no 'version'

CASES: dict[str, list[Expect]] = {
    # PI001: the range starts at the parse error
    "pi001-invalid-json-double-comma": [
        Expect("PI001", At(4, ",", after=f'"id":"{X1}",', eol=True), E)
    ],
    "pi001-invalid-json-nan": [Expect("PI001", At(4, "NaN", eol=True), E)],
    "pi001-invalid-json-trailing-comma": [
        Expect("PI001", At(4, "}", after='"turns":1,', eol=True), E)
    ],
    "pi001-invalid-json-after-emoji": [
        Expect("PI001", At(4, "'parentId'", eol=True), E),
        # the entry on line 4 is lost, so its child dangles
        Expect("PI400", At(5, q(U2), after='"parentId":'), E),
    ],
    "pi002-cut-off-last-line": [Expect("PI002", At(4), E)],
    "pi003-array-line": [Expect("PI003", At(4), E)],
    "pi003-object-without-type": [Expect("PI003", At(4), E)],
    "pi003-type-not-a-string": [Expect("PI003", At(4, "7", after='"type":'), E)],
    "pi004-unknown-entry-type": [Expect("PI004", At(4, q("bookmark")), W)],
    "pi005-blank-lines": [Expect("PI005", At(3), N), Expect("PI005", At(5), N)],
    "pi100-first-line-not-a-header": [Expect("PI100", At(1), E)],
    "pi100-header-id-not-a-string": [
        Expect("PI100", At(1, "20260301"), E),
        Expect("PI200", At(1, "20260301"), E),  # the header schema says the same
    ],
    "pi101-second-header": [Expect("PI101", At(4, q("session")), E, related=(At(1),))],
    "pi102-version-string": [
        Expect("PI102", At(1, q("3"), after='"version":'), E),
        Expect("PI200", At(1, q("3"), after='"version":'), N),  # PI102 grades it
    ],
    "pi102-version-fraction": [
        Expect("PI102", At(1, "2.5"), E),
        Expect("PI200", At(1, "2.5"), N),
        Expect("PI200", At(1, "2.5"), N),
    ],
    "pi102-version-newer": [Expect("PI102", At(1, "4", after='"version":'), W)],
    "pi103-v2-not-migrated": [Expect("PI103", At(1, "2", after='"version":'), W)],
    "pi103-v1-not-migrated": [Expect("PI103", TYPE, W)],
    # file names of pi's form, <time>_<session id>.jsonl: another id, and one in upper case
    # (pi finds sessions by the header id, case-sensitively)
    f"{NAME_TIME}_{OTHER_SID}": [Expect("PI104", At(1, q(SID)), H)],
    # PI200 is graded by what pi does: a model it cannot restore is a warning...
    "pi200-wrong-type": [Expect("PI200", At(4, "5", after='"provider":'), W)],
    # a missing required property: the entry's type (top level) or the parent's key
    "pi200-missing-property": [Expect("PI200", At(4, q("model_change")), W)],
    # ...an assistant without usage makes pi's footer and session statistics throw
    "pi200-missing-nested-property": [
        Expect("PI200", At(3, q("message"), after='"timestamp":'), E)
    ],
    "pi200-bad-enum": [Expect("PI200", At(4, q("ultra")), W)],
    "pi200-nested-block": [Expect("PI200", At(4, "42", after='"data":'), E)],
    "pi201-pending-stop-reason": [Expect("PI201", At(3, q("pending")), W)],
    "pi300-entry-without-id": [Expect("PI300", At(4, q("message")), E)],
    "pi301-hookmessage-in-v3": [Expect("PI301", At(4, q("hookMessage")), W)],
    "pi302-first-kept-index-in-v3": [Expect("PI302", At(4, q("firstKeptEntryIndex")), W)],
    "pi303-v1-header-with-ids": [
        Expect("PI103", TYPE, W),
        Expect("PI303", TYPE, W, related=(At(2, q(U1), after='"id":'),)),
    ],
    "pi400-dangling-parent": [Expect("PI400", At(4, q("deadbeef")), E)],
    "pi400-after-emoji": [Expect("PI400", At(4, q("deadbeef")), E)],
    "pi401-duplicate-id": [
        Expect("PI401", At(5, q(U2), after='"id":'), E, related=(At(4, q(U2), after='"id":'),))
    ],
    # pi's index keeps the last entry with an id, so line 3's parent becomes line 4
    "pi401-duplicate-id-of-an-ancestor": [
        Expect("PI402", At(3, q(U1), after='"parentId":'), E, related=(At(4),)),
        Expect("PI401", At(4, q(U1), after='"id":'), E, related=(At(2, q(U1), after='"id":'),)),
        Expect("PI402", At(4, q(A1), after='"parentId":'), E, related=(At(3),)),
    ],
    "pi402-self-parent": [Expect("PI402", At(4, q(U2), after='"parentId":'), E, related=(At(4),))],
    "pi402-two-entry-cycle": [
        Expect("PI402", At(4, q(A3), after='"parentId":'), E, related=(At(5),)),
        Expect("PI402", At(5, q(U2), after='"parentId":'), E, related=(At(4),)),
    ],
    "pi403-parent-on-later-line": [
        Expect(
            "PI403", At(3, q(U2), after='"parentId":'), W, related=(At(4, q(U2), after='"id":'),)
        )
    ],
    "pi410-first-kept-missing": [Expect("PI410", At(4, q("0badf00d")), W)],
    # SPEC says warning; pi's own SessionManager writes such compactions (see
    # ../shared/fixtures/pi-v3-branched.jsonl line 34), so the core reports information
    "pi410-first-kept-off-path": [
        Expect(
            "PI410",
            At(6, q(A1), after='"firstKeptEntryId":'),
            (W, N),
            related=(At(3, q(A1), after='"id":'),),
        )
    ],
    "pi411-label-target-missing": [Expect("PI411", At(4, q("0badf00d")), W)],
    "pi412-branch-summary-from-missing": [Expect("PI412", At(4, q("0badf00d")), W)],
    "pi413-v1-index-at-header": [
        Expect("PI103", TYPE, W),
        Expect("PI413", At(4, "0", after='"firstKeptEntryIndex":'), E),
    ],
    "pi413-v1-index-out-of-range": [
        Expect("PI103", TYPE, W),
        Expect("PI413", At(4, "99", after='"firstKeptEntryIndex":'), E),
    ],
    "pi413-v1-index-after-compaction": [
        Expect("PI103", TYPE, W),
        Expect("PI413", At(4, "4", after='"firstKeptEntryIndex":'), E, related=(At(5),)),
    ],
    "pi414-context-edit-target-missing": [Expect("PI414", At(4, q("0badf00d")), W)],
    "pi415-context-edit-off-path": [
        Expect(
            "PI415",
            At(5, q(A1), after='"targetId":'),
            W,
            related=(At(3, q(A1), after='"id":'),),
        )
    ],
    "pi415-context-edit-not-editable": [
        Expect(
            "PI415",
            At(5, '{"content":"shorter summary"}'),
            W,
            related=(At(4, q(R1), after='"id":'),),
        )
    ],
    "pi420-result-without-call": [Expect("PI420", At(4, q("toolu_99"), after='"toolCallId":'), E)],
    "pi420-result-for-call-on-other-branch": [
        Expect(
            "PI420",
            At(4, q("toolu_01"), after='"toolCallId":'),
            E,
            (At(3, q("toolu_01"), after='"id":'),),
        )
    ],
    "pi421-call-without-result": [Expect("PI421", At(3, q("toolu_02")), W)],
    "pi422-two-results-for-one-call": [
        Expect(
            "PI422",
            At(5, q("toolu_01"), after='"toolCallId":'),
            W,
            related=(At(4, q("toolu_01"), after='"toolCallId":'),),
        )
    ],
    # the context pi sends breaks: reported on the entry that causes it
    "pi423-compaction-keeps-orphan-result": [
        Expect(
            "PI423",
            At(6, q(R1), after='"firstKeptEntryId":'),
            E,
            related=(At(4, q("toolu_01"), after='"toolCallId":'), At(3)),
        )
    ],
    "pi423-context-edit-omits-call": [
        Expect(
            "PI423",
            At(6, q(A1), after='"targetId":'),
            E,
            related=(At(4, q("toolu_01"), after='"toolCallId":'), At(3)),
        )
    ],
    "pi423-interloper-between-call-and-result": [
        Expect(
            "PI423",
            At(4, q("custom_message")),
            E,
            related=(At(5, q("toolu_01"), after='"toolCallId":'), At(3)),
        )
    ],
    "pi424-compaction-off-the-resumed-path": [
        Expect(
            "PI424",
            At(6, q(R1), after='"firstKeptEntryId":'),
            W,
            related=(At(4, q("toolu_01"), after='"toolCallId":'), At(3)),
        )
    ],
    "pi425-interloper-on-another-branch": [
        Expect(
            "PI425",
            At(4, q("custom_message")),
            W,
            related=(At(3), At(5, q("toolu_01"), after='"toolCallId":')),
        )
    ],
    "u2028-raw-separators-before-problem": [Expect("PI400", At(6, q("deadbeef")), E)],
    # one broken line never stops the rest
    "many-problems": [
        Expect("PI005", At(3), N),
        Expect("PI001", At(4, ",", after=f'"id":"{A1}",', eol=True), E),
        Expect("PI003", At(5), E),
        Expect("PI004", At(6, q("bookmark")), W),
        Expect("PI200", At(7, "5", after='"provider":'), W),
        Expect("PI201", At(8, q("pending")), W),
        Expect("PI400", At(9, q("deadbeef")), E),
        Expect("PI401", At(10, q(U2), after='"id":'), E, related=(At(9, q(U2), after='"id":'),)),
        Expect("PI420", At(11, q("toolu_77")), E),
    ],
}

# files whose repaired version is still v1/v2 (PI103 is all that remains)
UNMIGRATED_FIXED = {
    "pi413-v1-index-at-header",
    "pi413-v1-index-out-of-range",
    "pi413-v1-index-after-compaction",
}
FIXED_NAME = {
    f"{NAME_TIME}_{OTHER_SID}": f"{NAME_TIME}_{SID}",
}

# ----------------------------------------------------------------------------- variants


def _crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def _cr(text: str) -> str:
    return text.replace("\n", "\r")


def _bom(text: str) -> str:
    return "\ufeff" + text


VARIANTS: dict[str, Callable[[str], str]] = {
    "lf": lambda text: text,
    "crlf": _crlf,
    "cr": _cr,
    "bom": _bom,
}


def read(path: Path) -> str:
    data = path.read_bytes()
    assert b"\r" not in data and not data.startswith(b"\xef\xbb\xbf"), "fixtures are LF, no BOM"
    return data.decode("utf-8")


def analyse_file(name: str, variant: str = "lf", folder: Path = BROKEN) -> Analysis:
    """Analyse a fixture (its real path, so PI104 sees the file name) in a line-ending variant."""
    path = folder / f"{name}.jsonl"
    return analyze(VARIANTS[variant](read(path)), path=str(path))


BOM = At(1, "\ufeff")
# with a BOM in front of a first line that is no header, pi 1.6 skips that line too
BOM_CASES: dict[str, list[Expect]] = {
    "pi100-first-line-not-a-header": [
        Expect("PI001", BOM, E),
        Expect("PI100", At(2), E),
        # the first entry pi 1.6 reads names a parent it skipped: it is the root anyway
        Expect("PI400", At(2, q(U1), after='"parentId":'), N),
    ]
}


def expected(name: str, variant: str) -> list[Expect]:
    """What ``name`` must report in ``variant``: a BOM before the header is one more PI100."""
    if variant != "bom":
        return CASES[name]
    return BOM_CASES.get(name) or [Expect("PI100", BOM, E), *CASES[name]]


def matches(f: Finding, exp: Expect) -> bool:
    return f.code == exp.code and f.span.line == exp.at.line - 1


def check_related(f: Finding, exp: Expect, lines: list[str], bom: bool) -> None:
    assert len(f.related) == len(exp.related), f.related
    for rel, at in zip(f.related, exp.related, strict=True):
        assert rel.path is None
        assert rel.span.line == at.line - 1
        text = lines[at.line - 1]
        start, end = at.span(text)
        if at.token is None:
            # the whole line: a BOM in front may or may not be part of it
            assert rel.span.end == end
            assert rel.span.start in ({0, 1} if bom and at.line == 1 else {0})
        else:
            assert (rel.span.start, rel.span.end) == (start, end)
        assert rel.message


def _case_params() -> list[object]:
    params = []
    for name in CASES:
        for variant in VARIANTS:
            for n, exp in enumerate(expected(name, variant)):
                params.append(
                    pytest.param(name, n, variant, id=f"{name}-{exp.code}-L{exp.at.line}-{variant}")
                )
    return params


@pytest.mark.parametrize(("name", "index", "variant"), _case_params())
def test_code_at_line_and_range(name: str, index: int, variant: str) -> None:
    expects = expected(name, variant)
    exp = expects[index]
    a = analyse_file(name, variant)
    lines = a.lines
    text = lines[exp.at.line - 1]
    found = [f for f in a.findings if matches(f, exp)]
    assert found, f"{exp.code} not on line {exp.at.line}: {[(f.code, f.span) for f in a.findings]}"
    # several findings of one code on one line (PI200) must all be at the expected range
    same = [e for e in expects if e.code == exp.code and e.at.line == exp.at.line]
    assert len(found) == len(same)
    f = found[same.index(exp)] if len(found) > 1 else found[0]
    start, end = exp.at.span(text)
    if exp.at.token is None:
        assert f.span.end == end
        bom = variant == "bom" and exp.at.line == 1
        assert f.span.start in ({0, 1} if bom else {0})
    else:
        assert (f.span.start, f.span.end) == (start, end), (
            f"{exp.code}: got {text[f.span.start : f.span.end]!r}, want {text[start:end]!r}"
        )
    allowed = exp.severity if isinstance(exp.severity, tuple) else (exp.severity,)
    assert f.severity in allowed
    assert re.search(MESSAGE[exp.code], f.message, re.IGNORECASE | re.DOTALL), f.message
    check_related(f, exp, lines, variant == "bom")


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("name", list(CASES))
def test_nothing_else_is_reported(name: str, variant: str) -> None:
    """Exactly the expected findings: no extra code, no extra line (no accidental passes)."""
    a = analyse_file(name, variant)
    got = sorted((f.code, f.span.line + 1) for f in a.findings)
    want = sorted((e.code, e.at.line) for e in expected(name, variant))
    assert got == want


def _fixed_names() -> list[str]:
    return sorted(p.stem for p in FIXED.glob("*.jsonl"))


def test_every_broken_file_has_expectations_and_a_fixed_twin() -> None:
    broken = sorted(p.stem for p in BROKEN.glob("*.jsonl"))
    assert sorted(CASES) == [b for b in broken if b != "pi101-header-not-on-first-line"]
    fixed = set(_fixed_names())
    for name in CASES:
        if name == "many-problems":
            continue
        assert FIXED_NAME.get(name, name) in fixed, name


def test_every_spec_code_is_covered() -> None:
    """Every code in SPEC §2's table is declared in the registry."""
    spec = ROOT.parent / "shared" / "SPEC.md"
    if not spec.is_file():
        pytest.skip(f"{spec} is absent")
    codes = set(re.findall(r"^\| (PI\d{3}) \|", spec.read_text(encoding="utf-8"), re.MULTILINE))
    assert codes, "SPEC.md has no diagnostic table"
    assert sorted(codes - set(CODES)) == []


def test_every_registered_code_is_covered() -> None:
    """Every code of the registry has a broken-file case (PI500's lines are generated;
    PI105, the second dialect's, has its cases in test_book.py)."""
    covered = {e.code for expects in CASES.values() for e in expects} | {"PI500", "PI105"}
    assert sorted(set(CODES) - covered) == []


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("name", _fixed_names())
def test_fixed_twin_is_clean(name: str, variant: str) -> None:
    """The repaired variant of every fixture produces none of the codes (nothing at all)."""
    a = analyse_file(name, variant, folder=FIXED)
    got = [(f.code, f.span.line + 1) for f in a.findings]
    want = [("PI100", 1)] if variant == "bom" else []
    if name in UNMIGRATED_FIXED:
        want.append(("PI103", 1))
    assert got == want


# ----------------------------------------------------------------------------- UTF-16 columns


@pytest.mark.parametrize(
    ("name", "index"),
    [
        pytest.param(n, i, id=f"{n}-{e.code}-L{e.at.line}")
        for n, es in CASES.items()
        for i, e in enumerate(es)
    ],
)
def test_lsp_diagnostic_in_utf16(name: str, index: int) -> None:
    exp = CASES[name][index]
    a = analyse_file(name)
    f = next(f for f in a.findings if matches(f, exp))
    d = diagnostic(f, a.lines, "file:///session.jsonl")
    text = a.lines[f.span.line]

    def u16(col: int) -> int:
        return len(text[:col].encode("utf-16-le", "surrogatepass")) // 2

    assert d["range"] == {
        "start": {"line": exp.at.line - 1, "character": u16(f.span.start)},
        "end": {"line": exp.at.line - 1, "character": u16(f.span.end)},
    }
    assert d["severity"] == int(f.severity)
    assert d["code"] == exp.code
    assert d["source"] == "pi-lsp"
    if exp.related:
        assert len(d["relatedInformation"]) == len(exp.related)
        for info in d["relatedInformation"]:
            assert info["location"]["uri"] == "file:///session.jsonl"
            assert info["message"]


@pytest.mark.parametrize("name", ["pi400-after-emoji", "pi001-invalid-json-after-emoji"])
def test_emoji_before_the_value_counts_two_utf16_units(name: str) -> None:
    a = analyse_file(name)
    f = a.findings[0]
    text = a.lines[f.span.line]
    astral = sum(1 for ch in text[: f.span.start] if ord(ch) > 0xFFFF)
    assert astral == 3  # 🚀 🎉 😀 before the offending token
    d = diagnostic(f, a.lines, "file:///x.jsonl")
    assert d["range"]["start"]["character"] == f.span.start + astral
    assert d["range"]["end"]["character"] == f.span.end + astral
    # UTF-8 and UTF-32 clients get their own units
    d8 = diagnostic(f, a.lines, "file:///x.jsonl", encoding="utf-8")
    assert d8["range"]["start"]["character"] == len(text[: f.span.start].encode("utf-8"))
    d32 = diagnostic(f, a.lines, "file:///x.jsonl", encoding="utf-32")
    assert d32["range"]["start"]["character"] == f.span.start


# ----------------------------------------------------------------------------- PI500


def _image_entry(size: int) -> str:
    return json.dumps(
        {
            "type": "message",
            "id": U2,
            "parentId": A1,
            "timestamp": "2026-03-01T10:00:04.000Z",
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": "what is this?"},
                    {"type": "image", "data": "A" * size, "mimeType": "image/png"},
                ],
                "timestamp": 1772359200004,
            },
        },
        separators=(",", ":"),
    )


def _chat() -> list[str]:
    return read(FIXED / "pi400-dangling-parent.jsonl").splitlines()[:3]


@pytest.mark.parametrize("size", [1024 * 1024 + 1, 3 * 1024 * 1024])
def test_pi500_line_over_one_mib(size: int) -> None:
    lines = [*_chat(), _image_entry(size)]
    a = analyze("\n".join(lines) + "\n")
    got = [(f.code, f.span.line) for f in a.findings]
    assert got == [("PI500", 3)]
    f = a.findings[0]
    assert f.severity is Severity.INFORMATION
    assert (f.span.start, f.span.end) == (0, len(lines[3]))
    assert re.search(MESSAGE["PI500"], f.message)


def test_pi500_not_for_a_line_of_exactly_one_mib() -> None:
    line = _image_entry(10)
    line = _image_entry(1024 * 1024 - len(line) + 10)
    assert len(line.encode()) == 1024 * 1024
    a = analyze("\n".join([*_chat(), line]) + "\n")
    assert [f.code for f in a.findings] == []


def test_pi500_counts_utf8_bytes_not_characters() -> None:
    # 600 Ki characters of 'é' are 1.2 MiB of UTF-8
    lines = [*_chat(), _image_entry(10).replace('"what is this?"', '"' + "é" * (600 * 1024) + '"')]
    a = analyze("\n".join(lines) + "\n")
    assert [(f.code, f.span.line) for f in a.findings] == [("PI500", 3)]


def test_pi500_threshold_is_an_option() -> None:
    lines = [*_chat(), _image_entry(300)]
    a = analyze("\n".join(lines) + "\n", options=Options(large_line=len(lines[3]) - 1))
    codes = {(f.code, f.span.line) for f in a.findings}
    assert ("PI500", 3) in codes


# ----------------------------------------------------------------------------- pi-lsp check


def run_check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pi_lsp", "check", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
        cwd=ROOT,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def cli_broken() -> dict[str, dict[str, object]]:
    proc = run_check("--format", "json", str(BROKEN))
    assert proc.returncode == 1, proc.stderr
    return {Path(f["path"]).stem: f for f in json.loads(proc.stdout)["files"]}


@pytest.mark.parametrize(
    ("name", "index"),
    [
        pytest.param(n, i, id=f"{n}-{e.code}-L{e.at.line}")
        for n, es in CASES.items()
        for i, e in enumerate(es)
    ],
)
def test_cli_json_reports_the_same(
    cli_broken: dict[str, dict[str, object]], name: str, index: int
) -> None:
    exp = CASES[name][index]
    report = cli_broken[name]
    text = split_lines(read(BROKEN / f"{name}.jsonl")).lines[exp.at.line - 1]
    start, end = exp.at.span(text)

    def u16(col: int) -> int:
        return len(text[:col].encode("utf-16-le")) // 2

    want = {
        "start": {"line": exp.at.line - 1, "character": u16(start)},
        "end": {"line": exp.at.line - 1, "character": u16(end)},
    }
    diags = report["diagnostics"]
    assert isinstance(diags, list)
    hits = [d for d in diags if d["code"] == exp.code and d["range"] == want]
    assert hits, [(d["code"], d["range"]) for d in diags]
    allowed = exp.severity if isinstance(exp.severity, tuple) else (exp.severity,)
    assert hits[0]["severity"] in [int(s) for s in allowed]
    assert hits[0]["source"] == "pi-lsp"


def test_cli_on_fixed_files_finds_no_errors_or_warnings() -> None:
    proc = run_check("--format", "json", str(FIXED))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for f in json.loads(proc.stdout)["files"]:
        codes = [(d["code"], d["severity"]) for d in f["diagnostics"]]
        if Path(f["path"]).stem in UNMIGRATED_FIXED:
            assert codes == [("PI103", 2)]
        else:
            assert codes == [], f["path"]


# ----------------------------------------------------------------------------- robustness

_NOISE = st.sampled_from(
    [
        *'{}[]":,\\ \n\r0123456789aeflnrstu-.E',
        *("\u2028", "😀", "\ufeff", "\udcff", "NaN", '"id":"1a2b3c4d"', '"parentId":', "null"),
        *('"type":"session"', '"version":', '"toolCallId":"toolu_01"', "\r\n"),
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(sorted(p.name for p in (*BROKEN.glob("*.jsonl"), *FIXED.glob("*.jsonl")))),
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 2), _NOISE), min_size=1, max_size=6),
)
def test_mangled_files_never_crash_and_spans_stay_inside_lines(
    name: str, edits: list[tuple[int, int, str]]
) -> None:
    path = BROKEN / name if (BROKEN / name).exists() else FIXED / name
    chars = list(read(path))
    for pos, op, noise in edits:
        at = pos % (len(chars) + 1)
        if op == 0:
            chars.insert(at, noise)
        elif chars:
            del chars[min(at, len(chars) - 1) : at + (1 if op == 1 else 25)]
    a = analyze("".join(chars))
    for f in a.findings:
        assert 0 <= f.span.start <= f.span.end <= len(a.lines[f.span.line])
        for rel in f.related:
            assert 0 <= rel.span.start <= rel.span.end <= len(a.lines[rel.span.line])
        d = diagnostic(f, a.lines, "file:///x.jsonl")
        assert d["range"]["start"]["line"] == f.span.line
