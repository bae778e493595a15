"""Positions survive everything a session file's text can throw at them.

Raw U+2028 / U+2029 / U+0085 inside strings (pi writes them unescaped) do not end a line;
CRLF, lone CR and a byte-order mark keep line numbers and columns; emoji count two UTF-16
units; invalid UTF-8 bytes in a file on disk are reported at their line by ``pi-lsp
check`` instead of crashing it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.text.files import read_text
from pi_lsp.core.text.findings import Severity

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
SEPARATORS = DATA / "broken" / "u2028-raw-separators-before-problem.jsonl"
CLEAN = DATA / "fixed" / "pi400-dangling-parent.jsonl"


def run_check(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pi_lsp", "check", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )


def u16(text: str, col: int) -> int:
    return len(text[:col].encode("utf-16-le", "surrogatepass")) // 2


# ----------------------------------------------------------------------------- U+2028 & co


def test_fixture_really_has_raw_separators() -> None:
    raw = SEPARATORS.read_text(encoding="utf-8")
    line = raw.split("\n")[3]
    for ch in ("\u2028", "\u2029", "\u0085"):
        assert ch in line
    # str.splitlines would break there: the trap this file is about
    assert len(raw.splitlines()) > len(raw.split("\n")) - 1


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\u0085", "\u2028\u2029\u0085\u2028"])
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_raw_separator_on_earlier_line_does_not_shift_lines(sep: str, newline: str) -> None:
    lines = CLEAN.read_text(encoding="utf-8").split("\n")[:3]
    lines.append(
        lines[1].replace("list the files", f"one{sep}two").replace("1a2b3c4d", "5e6f7081", 1)
    )
    lines[3] = lines[3].replace('"parentId":null', '"parentId":"2b3c4d5e"')
    lines.append(
        lines[1]
        .replace("1a2b3c4d", "6f708192", 1)
        .replace('"parentId":null', '"parentId":"deadbeef"')
    )
    a = analyze(newline.join(lines) + newline)
    assert len(a.lines) == 6
    assert [(f.code, f.span.line) for f in a.findings] == [("PI400", 4)]
    f = a.findings[0]
    start = lines[4].index('"deadbeef"')
    assert (f.span.start, f.span.end) == (start, start + len('"deadbeef"'))


def test_cli_text_reports_the_line_after_raw_separators() -> None:
    proc = run_check(str(SEPARATORS))
    assert proc.returncode == 1
    text = SEPARATORS.read_text(encoding="utf-8").split("\n")[5]
    col = u16(text, text.index('"deadbeef"')) + 1
    assert proc.stdout.splitlines() == [
        f"{SEPARATORS}:6:{col}: error PI400 " + proc.stdout.split(" PI400 ", 1)[1].rstrip("\n")
    ]


# ----------------------------------------------------------------------------- line endings, BOM


@pytest.mark.parametrize(
    ("newline", "bom"),
    [("\n", False), ("\r\n", False), ("\r", False), ("\n", True), ("\r\n", True), ("\r", True)],
)
def test_cli_line_endings_and_bom_on_disk(tmp_path: Path, newline: str, bom: bool) -> None:
    src = (DATA / "broken" / "pi400-after-emoji.jsonl").read_text(encoding="utf-8")
    data = ("\ufeff" if bom else "") + src.replace("\n", newline)
    path = tmp_path / "session.jsonl"
    path.write_bytes(data.encode("utf-8"))
    proc = run_check("--format", "json", str(path))
    assert proc.returncode == 1, proc.stderr
    (report,) = json.loads(proc.stdout)["files"]
    assert report["version"] == 3
    diagnostics = report["diagnostics"]
    if bom:  # pi 1.6 gives each line to JSON.parse as it is, and refuses the file
        bom_range = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}
        assert [(d["code"], d["range"]) for d in diagnostics[:1]] == [("PI100", bom_range)]
        diagnostics = diagnostics[1:]
    (d,) = diagnostics
    line = src.split("\n")[3]
    start = line.index('"deadbeef"')
    assert d["code"] == "PI400"
    assert d["range"] == {
        "start": {"line": 3, "character": u16(line, start)},
        "end": {"line": 3, "character": u16(line, start + len('"deadbeef"'))},
    }
    # three astral characters before the value: UTF-16 is three units ahead
    assert d["range"]["start"]["character"] == start + 3


def test_bom_shifts_columns_of_the_first_line_only() -> None:
    text = "\ufeff" + (DATA / "broken" / "pi103-v2-not-migrated.jsonl").read_text(encoding="utf-8")
    a = analyze(text)
    bom, f = a.findings  # the BOM itself: pi 1.6 refuses the file
    assert (bom.code, bom.span.start, bom.span.end) == ("PI100", 0, 1)
    assert f.code == "PI103"
    header = a.lines[0]
    assert header.startswith("\ufeff")
    start = header.index('"version":2') + len('"version":')
    assert (f.span.line, f.span.start, f.span.end) == (0, start, start + 1)


def test_crlf_is_one_terminator_and_lone_cr_is_one_too() -> None:
    src = CLEAN.read_text(encoding="utf-8").split("\n")[:3]
    mixed = src[0] + "\r\n" + src[1] + "\r" + src[2] + "\n"
    a = analyze(mixed)
    assert a.lines[:3] == src
    assert a.findings == []


# ----------------------------------------------------------------------------- invalid UTF-8


def _bad_file(tmp_path: Path, bad: bytes, where: str = "content") -> tuple[Path, list[bytes]]:
    raw = [
        line.encode()
        for line in (DATA / "broken" / "pi400-dangling-parent.jsonl")
        .read_text(encoding="utf-8")
        .split("\n")
    ]
    if where == "content":
        raw[1] = raw[1].replace(b"list the files", b"list " + bad + b" files")
    elif where == "header":
        raw[0] = raw[0].replace(b"/home/user/project", b"/home/us" + bad + b"er")
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"\n".join(raw))
    return path, raw


@pytest.mark.parametrize(
    "bad",
    [b"\xff", b"\x80", b"\xfe\xfe", b"\xe2\x82", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf0\x9f\x98"],
    ids=lambda b: b.hex(),
)
def test_invalid_utf8_in_a_string_is_reported_at_its_line(tmp_path: Path, bad: bytes) -> None:
    path, raw = _bad_file(tmp_path, bad)
    proc = run_check(str(path))
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 1
    out = proc.stdout.splitlines()
    col = raw[1].index(bad) + 1  # the line is ASCII before the bad bytes
    assert out[0].startswith(f"{path}:2:{col}: error PI001 ")
    assert "UTF-8" in out[0]
    # the rest of the file is still analysed: the dangling parent on line 4
    assert any(line.startswith(f"{path}:4:") and " PI400 " in line for line in out)
    assert len(out) == 2


_BAD_BYTES = [
    b"\xff",
    b"\x80",
    b"\xfe\xfe",
    b"\xe2\x82",
    b"\xc0\xaf",
    b"\xed\xa0\x80",
    b"\xf0\x9f\x98",
]


@pytest.mark.parametrize("bad", _BAD_BYTES, ids=lambda b: b.hex())
@pytest.mark.parametrize("where", ["in a string", "between tokens"])
def test_invalid_utf8_message_names_the_first_bad_byte(
    tmp_path: Path, bad: bytes, where: str
) -> None:
    """The user must find the byte: the message names it in hex, as a hex viewer shows it."""
    lines = CLEAN.read_bytes().split(b"\n")
    if where == "in a string":
        lines[1] = lines[1].replace(b"list the files", b"list " + bad + b" files")
    else:  # a JSON syntax error too: pi skips the line
        lines[1] = lines[1].replace(b'"id":', bad + b'"id":', 1)
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"\n".join(lines))
    (f,) = [f for f in analyze(read_text(path)).findings if f.code == "PI001"]
    assert f.span.line == 1
    assert f"byte 0x{bad[0]:02X}" in f.message, f.message


def test_invalid_utf8_in_the_header_keeps_the_header(tmp_path: Path) -> None:
    path, _ = _bad_file(tmp_path, b"\xff", where="header")
    a = analyze(read_text(path), path=str(path))
    assert sorted((f.code, f.span.line) for f in a.findings) == [("PI001", 0), ("PI400", 3)]
    assert a.version == 3 and a.header_line == 0


def test_invalid_utf8_json_output_is_valid_json(tmp_path: Path) -> None:
    path, raw = _bad_file(tmp_path, b"\xff")
    proc = run_check("--format", "json", str(path))
    assert proc.returncode == 1, proc.stderr
    diags = json.loads(proc.stdout)["files"][0]["diagnostics"]
    first = diags[0]
    assert first["code"] == "PI001"
    assert first["severity"] == Severity.ERROR
    assert first["range"]["start"] == {"line": 1, "character": raw[1].index(b"\xff")}


def test_invalid_utf8_outside_a_string_is_one_diagnostic(tmp_path: Path) -> None:
    lines = CLEAN.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b'"id":', b'\xff"id":', 1)
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"\n".join(lines))
    a = analyze(read_text(path))
    # line 1 is lost to pi, so line 2's parent dangles
    assert [(f.code, f.span.line) for f in a.findings] == [("PI001", 1), ("PI400", 2)]


def _bad_type_file(tmp_path: Path) -> Path:
    lines = CLEAN.read_bytes().split(b"\n")
    lines.insert(
        3, b'{"type":"book\xffmark","id":"708192a3","parentId":"2b3c4d5e","timestamp":"t"}'
    )
    path = tmp_path / "bad-type.jsonl"
    path.write_bytes(b"\n".join(lines))
    return path


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_invalid_utf8_quoted_in_a_message_does_not_crash_json(tmp_path: Path, fmt: str) -> None:
    path = _bad_type_file(tmp_path)
    proc = run_check("--format", fmt, str(path))
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 1
    json.loads(proc.stdout)


def test_invalid_utf8_quoted_in_a_message_does_not_crash_text(tmp_path: Path) -> None:
    import os

    path = _bad_type_file(tmp_path)
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    proc = run_check(str(path), env=env)
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 1


def test_lone_surrogate_escape_quoted_in_a_message_does_not_crash_json(tmp_path: Path) -> None:
    lines = CLEAN.read_text(encoding="utf-8").split("\n")
    lines[3] = lines[3].replace('"parentId":"2b3c4d5e"', '"parentId":"\\ud800"')
    path = tmp_path / "surrogate.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    a = analyze(read_text(path))
    assert [f.code for f in a.findings] == ["PI400"]
    proc = run_check("--format", "json", str(path))
    assert "Traceback" not in proc.stderr
    assert json.loads(proc.stdout)["files"][0]["diagnostics"][0]["code"] == "PI400"


def test_bom_inside_the_file_loses_the_line() -> None:
    lines = CLEAN.read_text(encoding="utf-8").split("\n")
    lines[2] = "\ufeff" + lines[2]
    a = analyze("\n".join(lines))
    found = [(f.code, f.span.line, f.span.start) for f in a.findings]
    # the line is lost to pi, and its child (line 4) dangles
    assert found[:1] == [("PI001", 2, 0)]
    assert ("PI400", 3) in [(f.code, f.span.line) for f in a.findings]
