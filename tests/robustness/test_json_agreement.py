"""Agreement with pi on what is valid JSON, judged by node's own ``JSON.parse``.

pi reads a session with ``content.trim().split("\\n")``, skips a line when
``!line.trim()`` and otherwise keeps it only if ``JSON.parse(line)`` succeeds. So, line by
line: a line whose JavaScript ``trim()`` is empty must not be reported as invalid JSON
(PI001/PI002); a line ``JSON.parse`` accepts must not be; a line it rejects must be. A
corpus of tricky lines (hand-picked and mutated) goes to one ``node`` process in a batch.
Lines containing ``\\r`` or ``\\n`` are left out: pi-lsp ends lines at a lone ``\\r`` too
(the spec), pi does not.
"""

from __future__ import annotations

import json
import random
import subprocess

import pytest

from pi_lsp.core.checks.analysis import analyze

from . import hostile, pi_judge

NODE_VERDICT = r"""
const lines = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = lines.map((l) => {
  if (!l.trim()) return "blank";
  try { JSON.parse(l); return "valid"; } catch (e) { return "invalid"; }
});
process.stdout.write(JSON.stringify(out));
"""

WHITESPACE = [
    " ",
    "\t",
    "\u00a0",
    "\ufeff",
    "\u2028",
    "\u2029",
    "\u0085",
    "\x0b",
    "\x0c",
    "\u3000",
    "\u200b",
    "\u1680",
    "\x1c",
    "\x1f",
    "\u180e",
    "\u202f",
    "\u205f",
]
VALUES = [
    "NaN",
    "-NaN",
    "Infinity",
    "-Infinity",
    "+1",
    "01",
    "-01",
    "00",
    "0",
    "-0",
    "1.",
    ".5",
    "1.e3",
    "1e",
    "1e+",
    "1e400",
    "-1e400",
    "1e-400",
    "2e308",
    "1.7976931348623157e308",
    "123456789012345678901234567890",
    "0x10",
    "1_000",
    "٣",
    "1٣",
    "true",
    "True",
    "nul",
    "null",
    "undefined",
    "'single'",
    '"\\ud800"',
    '"\\udfff"',
    '"\\udc00\\ud800"',
    '"\\ud83d\\ude00"',
    '"\\u0000"',
    '"\\u00e9"',
    '"\\U00e9"',
    '"\\u00G9"',
    '"\\u12"',
    '"\\x41"',
    '"\\a"',
    '"\\/"',
    '"\\\'"',
    '"\\\\"',
    '"\\"',
    '"\u2028"',
    '"\u0085"',
    '"\x7f"',
    '"\x00"',
    '"\x1f"',
    '"\t"',
    '"\x0b"',
    '"\ufeff"',
    '"🚀"',
    "[1,]",
    "[,1]",
    "[1,,2]",
    "{}",
    "{,}",
    '{"a":1,}',
    "[]",
    "[",
    "]",
    '{"a" 1}',
    "{a:1}",
    "{'a':1}",
    "/*c*/1",
    "1//c",
    "1 2",
    '"a" "b"',
    "`t`",
]


def _tricky_lines() -> list[str]:
    base = '{"type":"custom","id":"x","v":%s}'
    lines = [base % v for v in VALUES]
    lines += [v for v in VALUES]
    for ws in WHITESPACE:
        obj = '{"type":"custom","id":"x"}'
        lines += [ws + obj, obj + ws, '{"type":' + ws + '"custom"}', ws, ws + ws, " " + ws + " "]
        lines.append('{"type":"custom","s":"' + ws + '"}')
    for depth in (1000, 1025, 20_000):
        nest = "[" * depth + "]" * depth
        lines += [nest, nest[:-1], "[" * depth + "1,]" + "]" * (depth - 1)]
        lines.append('{"type":"custom","id":"d","data":' + nest + "}")
        lines.append('{"a":' * depth + "1" + "}" * depth)
        lines.append('{"a":' * depth + "1" + "}" * (depth - 1) + ",}")
    for c in range(0x20):
        if chr(c) not in "\r\n":
            lines.append('{"type":"custom","s":"a' + chr(c) + 'b"}')
            lines.append(chr(c) + "{}")
    lines += ['{"a":1}{"b":2}', '{"a":1}\x00', '{"a":1,"a":2}', "{" * 3, "", '"str"', "1", "null"]
    return lines


_ALPHABET = list('{}[]":,\\0123456789.eE+-tfnaNIul \t') + WHITESPACE + ["u", "d8", "é", "🚀", "'"]


def _mutated_lines(rng: random.Random, count: int) -> list[str]:
    seeds = [
        line
        for text in hostile.seed_texts().values()
        for line in text.decode("utf-8").split("\n")
        if line
    ]
    out = []
    for _ in range(count):
        line = rng.choice(seeds)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(line) + 1)
            op = rng.random()
            if op < 0.4:
                line = line[:i] + rng.choice(_ALPHABET) + line[i:]
            elif op < 0.7:
                line = line[:i] + line[i + 1 :]
            else:
                line = line[:i] + rng.choice(_ALPHABET) + line[i + 1 :]
        out.append(line)
    return out


_VERDICTS: dict[str, str] = {}
# small cases of the parametrized tests below, judged in the first node call
_PREFETCH: list[str] = []


def _node_verdicts(node: str, lines: list[str]) -> list[str]:
    """node's verdict on each line (one node process per batch; results memoized)."""
    missing = list(dict.fromkeys(x for x in [*lines, *_PREFETCH] if x not in _VERDICTS))
    if missing:
        proc = subprocess.run(
            [node, "-e", NODE_VERDICT],
            input=json.dumps(missing),
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        _VERDICTS.update(zip(missing, json.loads(proc.stdout), strict=True))
    return [_VERDICTS[line] for line in lines]


def _pi_lsp_invalid(lines: list[str]) -> list[bool]:
    """For each line: does pi-lsp report it as invalid JSON (PI001/PI002)?

    Each line is checked between a valid header and a valid entry, so the file-level
    ``trim()`` pi applies touches neither of its ends.
    """
    out = []
    tail = hostile.user("t1", None)
    for line in lines:
        a = analyze(hostile.header(3) + "\n" + line + "\n" + tail + "\n")
        out.append(any(f.code in ("PI001", "PI002") and f.span.line == 1 for f in a.findings))
    return out


def _disagreements(node: str, lines: list[str]) -> list[str]:
    lines = [line for line in lines if "\r" not in line and "\n" not in line]
    verdicts = _node_verdicts(node, lines)
    ours = _pi_lsp_invalid(lines)
    bad = []
    for line, verdict, invalid in zip(lines, verdicts, ours, strict=True):
        expected_invalid = verdict == "invalid"
        if invalid != expected_invalid:
            shown = repr(line) if len(line) < 120 else f"{line[:60]!r}...({len(line)} chars)"
            bad.append(
                f"{verdict:7} but pi-lsp says {'invalid' if invalid else 'valid':7}: {shown}"
            )
    return bad


_WHITESPACE_LINES = [ws * n for ws in WHITESPACE for n in (1, 2)] + [" \t "]
_BOM_LINE = "\ufeff" + hostile.user("u2", "u1")
_DEEP_COMMAS = [
    "[" * 1000 + "1,]" + "]" * 999,
    '{"a":' * 1000 + "1" + "}" * 999 + ",}",
    "[" * 5000 + "[],]" + "]" * 4999,
]
_DEEP_ENTRY = (
    '{"type":"custom","id":"d1","parentId":null,"timestamp":"'
    + hostile.TS
    + '","customType":"x","data":'
    + "[" * 5000
    + "]" * 5000
    + "}"
)
_BLANKISH = [
    " \t ",
    "\u00a0",
    "\u3000 \u2028",
    "\ufeff",
    "\x1c",
    "\x1f ",
    "\x85",
    "\ufeff\ufeff",
    "\ufeff \ufeff",
]
_PREFETCH += [*_WHITESPACE_LINES, _BOM_LINE, *_DEEP_COMMAS, _DEEP_ENTRY, *_BLANKISH]


def test_tricky_lines_agree_with_json_parse(node: str) -> None:
    bad = _disagreements(node, _tricky_lines())
    assert not bad, f"{len(bad)} disagreements with JSON.parse:\n" + "\n".join(bad[:40])


def test_mutated_lines_agree_with_json_parse(node: str) -> None:
    rng = random.Random(20260731)
    bad = _disagreements(node, _mutated_lines(rng, 1500))
    assert not bad, f"{len(bad)} disagreements with JSON.parse:\n" + "\n".join(bad[:40])


def test_bom_inside_the_file_is_invalid_json(node: str) -> None:
    line = _BOM_LINE
    assert _node_verdicts(node, [line]) == ["invalid"]
    assert _pi_lsp_invalid([line]) == [True]


@pytest.mark.parametrize(
    "line",
    _DEEP_COMMAS,
    ids=["array", "object", "array-5000"],
)
def test_deep_trailing_comma_is_invalid_json(node: str, line: str) -> None:
    assert _node_verdicts(node, [line]) == ["invalid"]
    assert _pi_lsp_invalid([line]) == [True]


def test_deep_valid_entry_is_an_entry(node: str) -> None:
    line = _DEEP_ENTRY
    assert _node_verdicts(node, [line]) == ["valid"]
    text = "\n".join([hostile.header(3), line, hostile.user("u1", "d1")]) + "\n"
    codes = sorted({(f.code, f.span.line) for f in analyze(text).findings})
    assert codes == [], codes


@pytest.mark.parametrize(
    "line",
    [
        " \t ",
        "\u00a0",
        "\u3000 \u2028",
        "\ufeff",
        "\x1c",
        "\x1f ",
        "\x85",
        "\ufeff\ufeff",
        "\ufeff \ufeff",
    ],
    ids=repr,
)
def test_whitespace_only_line_is_judged_as_pi_judges_it(node: str, line: str) -> None:
    """pi skips a line JavaScript's trim() empties (never PI001) and JSON.parse-s the rest."""
    assert not _disagreements(node, [line])


def test_whitespace_only_lines_agree(node: str) -> None:
    bad = _disagreements(node, _WHITESPACE_LINES)
    assert not bad, "\n".join(bad)


# -- whole files, as pi's loader reads them ----------------------------------------------


def _judgeable(text: str) -> bool:
    """Files the comparison applies to: no lone CR (pi-lsp ends lines there, by the spec)."""
    return "\r" not in text.replace("\r\n", "")


def test_mutated_files_agree_with_pi_loader(node: str) -> None:
    rng = random.Random(7)
    texts = ["", "\n", " \n\t\n", "\ufeff\n"]  # no header at all: pi refuses, PI100 (issue 43)
    for _, data in hostile.cases(rng, 250, use_fixtures=False):
        text = hostile.decode(data)
        if _judgeable(text):
            texts.append(text)
    bad = []
    for text, verdict in zip(texts, pi_judge.judge(node, texts), strict=True):
        bad += [f"{d}\n   in {text[:200]!r}" for d in pi_judge.disagreements(text, verdict)]
    assert not bad, f"{len(bad)} disagreements with pi's loader:\n" + "\n".join(bad[:20])


# pi 1.6 reads each line as it is (pi 0.73 trimmed the whole file): JavaScript whitespace
# at the very start of the file makes it refuse the file, at the very end skip the last line.
@pytest.mark.parametrize(
    ("prefix", "suffix", "accepts"),
    [
        ("\ufeff", "\n", False),
        ("\n\n", "\n\n\n", True),
        ("\ufeff\ufeff", "\n", False),
        ("\ufeff\u00a0", "\n", False),
        ("\u2028", "\n", False),
        ("", "\u00a0\n", True),
        ("", "\u3000", True),
        ("\n\u00a0\n", "\n \u3000\n", True),
    ],
    ids=repr,
)
def test_file_edges_are_read_as_pi16_reads_them(
    node: str, prefix: str, suffix: str, accepts: bool
) -> None:
    text = prefix + hostile.header(3) + "\n" + hostile.user("u1", None) + suffix
    (verdict,) = pi_judge.judge(node, [text])
    assert verdict.accepts is accepts
    assert pi_judge.disagreements(text, verdict) == []
