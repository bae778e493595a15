"""The ``pi-lsp check`` contract (SPEC §4): output formats, recursion, defaults, exit status."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator
from lsprotocol import types
from lsprotocol.converters import get_converter

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.text.files import read_text
from pi_lsp.lsp.wire import diagnostics, path_uri

from .cli_support import run_cli

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
BROKEN = DATA / "broken"
FIXED = DATA / "fixed"

MANY = BROKEN / "many-problems.jsonl"
CLEAN = FIXED / "pi400-dangling-parent.jsonl"
WARNING_ONLY = BROKEN / "pi103-v2-not-migrated.jsonl"
INFO_ONLY = BROKEN / "pi005-blank-lines.jsonl"
HINT_ONLY = BROKEN / "2026-03-01T10-00-00-000Z_ffffffff-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl"
EMOJI = BROKEN / "pi400-after-emoji.jsonl"
RELATED = BROKEN / "pi403-parent-on-later-line.jsonl"

TEXT_LINE = re.compile(
    r"^(?P<path>.+):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning|information|hint) "
    r"(?P<code>PI\d{3}) (?P<message>\S.*)$"
)
SEVERITY = {"error": 1, "warning": 2, "information": 3, "hint": 4}


def check(
    *args: str | Path, env: dict[str, str] | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    return run_cli("check", *args, env=env, cwd=cwd)


def check_json(*args: str | Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    proc = check("--format", "json", *args, env=env)
    assert proc.returncode in (0, 1), proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def env_without_pi(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PI_CODING_AGENT_DIR"}
    env.update(extra)
    return env


# ----------------------------------------------------------------------------- text format


def test_text_format_line_by_line() -> None:
    proc = check(MANY)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert len(lines) == 9
    data = check_json(MANY)["files"][0]["diagnostics"]
    for line, d in zip(lines, data, strict=True):
        m = TEXT_LINE.match(line)
        assert m, line
        assert m["path"] == str(MANY)
        # 1-based line and column (the column counts UTF-16 units, as the JSON does)
        assert int(m["line"]) == d["range"]["start"]["line"] + 1
        assert int(m["col"]) == d["range"]["start"]["character"] + 1
        assert SEVERITY[m["severity"]] == d["severity"]
        assert m["code"] == d["code"]
        assert m["message"] == d["message"]
    # the summary goes to stderr, never mixed into the report
    assert "1 file checked" in proc.stderr


def test_text_columns_are_one_based() -> None:
    proc = check(BROKEN / "pi400-dangling-parent.jsonl")
    (line,) = proc.stdout.splitlines()
    text = (BROKEN / "pi400-dangling-parent.jsonl").read_text("utf-8").split("\n")[3]
    col = text.index('"deadbeef"') + 1
    assert line.startswith(f"{BROKEN / 'pi400-dangling-parent.jsonl'}:4:{col}: error PI400 ")


def test_text_is_silent_on_a_clean_file() -> None:
    proc = check(CLEAN)
    assert proc.returncode == 0
    assert proc.stdout == ""


# ----------------------------------------------------------------------------- JSON format

DIAGNOSTIC_KEYS = {
    "range",
    "severity",
    "code",
    "codeDescription",
    "source",
    "message",
    "tags",
    "relatedInformation",
    "data",
}


def _assert_position(p: Any) -> None:
    assert set(p) == {"line", "character"}
    assert isinstance(p["line"], int) and p["line"] >= 0
    assert isinstance(p["character"], int) and p["character"] >= 0


def _assert_range(r: Any) -> None:
    assert set(r) == {"start", "end"}
    _assert_position(r["start"])
    _assert_position(r["end"])
    assert (r["start"]["line"], r["start"]["character"]) <= (
        r["end"]["line"],
        r["end"]["character"],
    )


def test_json_shape_is_exact() -> None:
    out = check_json(BROKEN)
    assert set(out) == {"files"}
    assert len(out["files"]) == len(list(BROKEN.glob("*.jsonl")))
    converter = get_converter()
    for f in out["files"]:
        assert set(f) == {"path", "version", "diagnostics"}
        assert isinstance(f["path"], str)
        assert f["version"] is None or f["version"] in (1, 2, 3)
        for d in f["diagnostics"]:
            assert {"range", "severity", "code", "source", "message"} <= set(d) <= DIAGNOSTIC_KEYS
            _assert_range(d["range"])
            assert d["severity"] in (1, 2, 3, 4)
            assert isinstance(d["code"], str) and re.fullmatch(r"PI\d{3}", d["code"])
            assert d["source"] == "pi-lsp"
            assert isinstance(d["message"], str) and d["message"]
            for info in d.get("relatedInformation", []):
                assert set(info) == {"location", "message"}
                assert set(info["location"]) == {"uri", "range"}
                assert info["location"]["uri"].startswith("file://")
                _assert_range(info["location"]["range"])
            # lsprotocol accepts it as a Diagnostic and gives back the same JSON
            diag = converter.structure(d, types.Diagnostic)
            assert converter.unstructure(diag) == d


def test_json_version_per_file() -> None:
    out = check_json(
        BROKEN / "pi103-v1-not-migrated.jsonl",
        WARNING_ONLY,
        CLEAN,
        BROKEN / "pi100-first-line-not-a-header.jsonl",
    )
    assert [f["version"] for f in out["files"]] == [1, 2, 3, None]


def test_json_equals_the_core_report() -> None:
    """What check prints is what the core's LSP conversion gives for the same text."""
    paths = sorted(BROKEN.glob("*.jsonl"))
    out = check_json(*paths)
    for path, f in zip(paths, out["files"], strict=True):
        assert f["path"] == str(path)
        a = analyze(read_text(path), path=str(path))
        assert f["diagnostics"] == diagnostics(a.findings, a.lines, path_uri(str(path)))


def test_json_utf16_columns_and_related_uri() -> None:
    (f,) = check_json(EMOJI)["files"]
    (d,) = f["diagnostics"]
    text = EMOJI.read_text("utf-8").split("\n")[3]
    start = text.index('"deadbeef"')
    units = len(text[:start].encode("utf-16-le")) // 2
    assert units == start + 3
    assert d["range"]["start"] == {"line": 3, "character": units}
    assert d["range"]["end"] == {"line": 3, "character": units + 10}
    (g,) = check_json(RELATED)["files"]
    (info,) = g["diagnostics"][0]["relatedInformation"]
    assert info["location"]["uri"] == RELATED.resolve().as_uri()


def test_json_for_a_directory_without_sessions(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("{}", encoding="utf-8")
    proc = check("--format", "json", tmp_path)
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == {"files": []}


# ----------------------------------------------------------------------------- SARIF

# the parts of the SARIF 2.1.0 schema a code-scanning upload relies on
SARIF_SUBSET: dict[str, Any] = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "$schema": {"type": "string", "format": "uri"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name"],
                                "properties": {
                                    "name": {"type": "string", "minLength": 1},
                                    "version": {"type": "string"},
                                    "informationUri": {"type": "string"},
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id"],
                                            "properties": {
                                                "id": {"type": "string"},
                                                "shortDescription": {
                                                    "type": "object",
                                                    "required": ["text"],
                                                },
                                                "defaultConfiguration": {
                                                    "type": "object",
                                                    "properties": {
                                                        "level": {
                                                            "enum": [
                                                                "none",
                                                                "note",
                                                                "warning",
                                                                "error",
                                                            ]
                                                        }
                                                    },
                                                },
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["message"],
                            "properties": {
                                "ruleId": {"type": "string"},
                                "ruleIndex": {"type": "integer", "minimum": -1},
                                "level": {"enum": ["none", "note", "warning", "error"]},
                                "message": {
                                    "type": "object",
                                    "anyOf": [{"required": ["text"]}, {"required": ["id"]}],
                                },
                                "locations": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "properties": {
                                                    "artifactLocation": {
                                                        "type": "object",
                                                        "properties": {"uri": {"type": "string"}},
                                                    },
                                                    "region": {
                                                        "type": "object",
                                                        "properties": {
                                                            "startLine": {
                                                                "type": "integer",
                                                                "minimum": 1,
                                                            },
                                                            "startColumn": {
                                                                "type": "integer",
                                                                "minimum": 1,
                                                            },
                                                            "endLine": {
                                                                "type": "integer",
                                                                "minimum": 1,
                                                            },
                                                            "endColumn": {
                                                                "type": "integer",
                                                                "minimum": 1,
                                                            },
                                                        },
                                                    },
                                                },
                                            }
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}


def test_sarif_2_1_0() -> None:
    proc = check("--format", "sarif", BROKEN)
    assert proc.returncode == 1, proc.stderr
    sarif = json.loads(proc.stdout)
    errors = sorted(Draft7Validator(SARIF_SUBSET).iter_errors(sarif), key=str)
    assert not errors, [e.message for e in errors]
    (run,) = sarif["runs"]
    assert run["tool"]["driver"]["name"] == "pi-lsp"
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids))
    results = run["results"]
    data = check_json(BROKEN)
    flat = [(f["path"], d) for f in data["files"] for d in f["diagnostics"]]
    assert len(results) == len(flat)
    level = {1: "error", 2: "warning", 3: "note", 4: "note"}
    for result, (path, d) in zip(results, flat, strict=True):
        assert result["ruleId"] == d["code"]
        assert ids[result["ruleIndex"]] == result["ruleId"]
        assert result["level"] == level[d["severity"]]
        assert result["message"]["text"] == d["message"]
        (loc,) = result["locations"]
        phys = loc["physicalLocation"]
        location = phys["artifactLocation"]
        assert location["uriBaseId"] == "%SRCROOT%"
        base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        assert base + location["uri"] == Path(path).resolve().as_uri()
        region = phys["region"]
        assert region["startLine"] == d["range"]["start"]["line"] + 1
        assert region["startColumn"] == d["range"]["start"]["character"] + 1
        assert region["endLine"] == d["range"]["end"]["line"] + 1
        assert region["endColumn"] == d["range"]["end"]["character"] + 1
    # every code of the report has a rule
    assert {r["ruleId"] for r in results} == set(ids)


def test_sarif_for_a_clean_file() -> None:
    proc = check("--format", "sarif", CLEAN)
    assert proc.returncode == 0
    sarif = json.loads(proc.stdout)
    assert sarif["version"] == "2.1.0"
    assert sarif["runs"][0]["results"] == []


# ----------------------------------------------------------------------------- directories


@pytest.fixture
def tree_dir(tmp_path: Path) -> Path:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "c").mkdir()
    shutil.copy(MANY, tmp_path / "a" / "b" / "deep.jsonl")
    shutil.copy(CLEAN, tmp_path / "a" / "top.jsonl")
    shutil.copy(WARNING_ONLY, tmp_path / "c" / "v2.jsonl")
    shutil.copy(MANY, tmp_path / "c" / "ignored.json")
    shutil.copy(MANY, tmp_path / "c" / "ignored.jsonl.bak")
    shutil.copy(MANY, tmp_path / "c" / "ignored.txt")
    return tmp_path


def test_directories_recurse_over_jsonl_only(tree_dir: Path) -> None:
    out = check_json(tree_dir)
    paths = [Path(f["path"]).relative_to(tree_dir).as_posix() for f in out["files"]]
    assert sorted(paths) == ["a/b/deep.jsonl", "a/top.jsonl", "c/v2.jsonl"]


def test_directory_and_file_arguments_mix(tree_dir: Path) -> None:
    out = check_json(tree_dir / "c", CLEAN)
    assert [Path(f["path"]).name for f in out["files"]] == ["v2.jsonl", CLEAN.name]


def test_many_files_in_parallel_give_the_same_report(tmp_path: Path) -> None:
    sources = sorted(BROKEN.glob("*.jsonl"))[:12]
    for n, src in enumerate(sources):
        shutil.copy(src, tmp_path / f"{n:02d}-{src.name}")
    parallel = check("--format", "json", tmp_path)
    serial = check("--format", "json", "-j", "1", tmp_path)
    assert parallel.returncode == serial.returncode == 1
    assert json.loads(parallel.stdout) == json.loads(serial.stdout)
    names = [Path(f["path"]).name for f in json.loads(parallel.stdout)["files"]]
    assert names == sorted(names)
    # stderr is not a terminal here: no progress bar
    assert "\r" not in parallel.stderr


# ----------------------------------------------------------------------------- exit status


@pytest.mark.parametrize(
    ("path", "status"),
    [
        (CLEAN, 0),
        (WARNING_ONLY, 0),
        (INFO_ONLY, 0),
        (HINT_ONLY, 0),
        (MANY, 1),
        (BROKEN / "pi400-dangling-parent.jsonl", 1),
    ],
    ids=["clean", "warning", "information", "hint", "errors", "one-error"],
)
@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_exit_status(path: Path, status: int, fmt: str) -> None:
    proc = check("--format", fmt, path)
    assert proc.returncode == status, proc.stderr


def test_exit_status_is_1_if_any_file_has_errors() -> None:
    assert check(CLEAN, MANY, WARNING_ONLY).returncode == 1


@pytest.mark.parametrize(
    "args",
    [
        ["tests/data/does-not-exist.jsonl"],
        [str(CLEAN), "tests/data/does-not-exist"],
        ["--format", "xml", str(CLEAN)],
        ["--severity", "PI103=loud", str(CLEAN)],
        ["--severity", "PI103", str(CLEAN)],
        ["--large-line", "many", str(CLEAN)],
        ["--no-such-option", str(CLEAN)],
    ],
    ids=[
        "missing-path",
        "one-missing-path",
        "bad-format",
        "bad-level",
        "no-level",
        "bad-int",
        "unknown-option",
    ],
)
def test_exit_status_2_for_usage_and_io_errors(args: list[str]) -> None:
    proc = check(*args)
    assert proc.returncode == 2
    assert proc.stderr.strip()
    assert "Traceback" not in proc.stderr


def test_missing_path_message_names_it() -> None:
    proc = check("tests/data/does-not-exist.jsonl")
    assert "does-not-exist.jsonl" in proc.stderr


def _shown(proc: subprocess.CompletedProcess[str]) -> list[str]:
    """The distinct paths of the text lines, in order."""
    paths = [m["path"] for m in map(TEXT_LINE.match, proc.stdout.splitlines()) if m]
    return list(dict.fromkeys(paths))


def test_text_paths_are_relative_to_the_folder_given(
    tree_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")  # a working directory not above tree_dir
    assert _shown(check(tree_dir, cwd=elsewhere)) == ["a/b/deep.jsonl", "c/v2.jsonl"]
    assert _shown(check(f"{tree_dir}/*/*.jsonl", cwd=elsewhere)) == ["c/v2.jsonl"]  # a pattern
    assert _shown(check(tree_dir / "a", cwd=tree_dir)) == ["b/deep.jsonl"]  # wherever one is
    assert _shown(check("c", cwd=tree_dir)) == ["c/v2.jsonl"]  # given relative: as given
    file = tree_dir / "c" / "v2.jsonl"
    assert _shown(check(file, cwd=elsewhere)) == [str(file)]  # a file named: as given
    # JSON and SARIF keep what they document: the path found, a URI under %SRCROOT%
    found = json.loads(check("--format", "json", tree_dir, cwd=elsewhere).stdout)["files"]
    assert [f["path"] for f in found][-1] == str(file)


def test_text_paths_of_the_default_folder_are_relative_to_it(tmp_path: Path) -> None:
    sessions = tmp_path / "agent" / "sessions" / "--home-user-project--"
    sessions.mkdir(parents=True)
    shutil.copy(MANY, sessions / "s.jsonl")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = env_without_pi(PI_CODING_AGENT_DIR=str(tmp_path / "agent"))
    assert _shown(check(env=env, cwd=elsewhere)) == ["--home-user-project--/s.jsonl"]
    assert _shown(check(env=env, cwd=tmp_path / "agent")) == ["--home-user-project--/s.jsonl"]


# ----------------------------------------------------------------------------- default directory


def test_default_is_the_pi_sessions_directory(tmp_path: Path) -> None:
    sessions = tmp_path / "agent" / "sessions" / "--home-user-project--"
    sessions.mkdir(parents=True)
    shutil.copy(
        MANY, sessions / "2026-03-01T10-00-00-000Z_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl"
    )
    shutil.copy(
        CLEAN, sessions / "2026-03-02T10-00-00-000Z_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl"
    )
    env = env_without_pi(PI_CODING_AGENT_DIR=str(tmp_path / "agent"))
    proc = check("--format", "json", env=env, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    files = json.loads(proc.stdout)["files"]
    assert [Path(f["path"]).parent for f in files] == [sessions, sessions]


def test_default_falls_back_to_home(tmp_path: Path) -> None:
    sessions = tmp_path / ".pi" / "agent" / "sessions" / "--p--"
    sessions.mkdir(parents=True)
    shutil.copy(CLEAN, sessions / "s.jsonl")
    env = env_without_pi(HOME=str(tmp_path))
    proc = check(env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("via", ["env", "home"])
def test_default_directory_missing_is_a_clear_error(tmp_path: Path, via: str) -> None:
    if via == "env":
        env = env_without_pi(PI_CODING_AGENT_DIR=str(tmp_path / "nowhere"))
        expected = tmp_path / "nowhere" / "sessions"
    else:
        env = env_without_pi(HOME=str(tmp_path))
        expected = tmp_path / ".pi" / "agent" / "sessions"
    proc = check(env=env, cwd=tmp_path)
    assert proc.returncode == 2
    assert str(expected) in proc.stderr
    assert "does not exist" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


# ----------------------------------------------------------------------------- severity overrides


def codes_and_severities(*args: str | Path) -> tuple[int, list[tuple[str, int]]]:
    proc = check("--format", "json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    files = json.loads(proc.stdout)["files"]
    return proc.returncode, [(d["code"], d["severity"]) for f in files for d in f["diagnostics"]]


def test_severity_override_raises_a_warning_to_an_error() -> None:
    assert codes_and_severities(WARNING_ONLY) == (0, [("PI103", 2)])
    assert codes_and_severities("--severity", "PI103=error", WARNING_ONLY) == (1, [("PI103", 1)])
    proc = check("--severity", "PI103=error", WARNING_ONLY)
    assert ": error PI103 " in proc.stdout


def test_severity_override_lowers_an_error() -> None:
    status, found = codes_and_severities(
        "--severity", "PI400=warning", BROKEN / "pi400-dangling-parent.jsonl"
    )
    assert (status, found) == (0, [("PI400", 2)])


@pytest.mark.parametrize("level", ["hint", "Hint", "information", "info", "warning"])
def test_severity_levels(level: str) -> None:
    want = {"hint": 4, "information": 3, "info": 3, "warning": 2}[level.lower()]
    assert codes_and_severities("--severity", f"PI103={level}", WARNING_ONLY) == (
        0,
        [("PI103", want)],
    )


def test_severity_off_removes_a_code() -> None:
    status, found = codes_and_severities("--severity", "PI400=off", "--severity", "pi401=off", MANY)
    assert status == 1
    assert [c for c, _ in found if c in ("PI400", "PI401")] == []
    assert "PI001" in [c for c, _ in found]


def test_all_errors_off_exits_0() -> None:
    args: list[str] = []
    for code in ("PI001", "PI003", "PI200", "PI400", "PI401", "PI420"):
        args += ["--severity", f"{code}=off"]
    status, found = codes_and_severities(*args, MANY)
    assert status == 0
    assert all(s > 1 for _, s in found)


def test_large_line_threshold_option(tmp_path: Path) -> None:
    assert codes_and_severities(CLEAN) == (0, [])
    status, found = codes_and_severities("--large-line", "200", CLEAN)
    assert status == 0
    assert found and {c for c, _ in found} == {"PI500"} and {s for _, s in found} == {3}


@pytest.mark.parametrize(
    "path", sorted([*BROKEN.glob("*.jsonl"), *FIXED.glob("*.jsonl")]), ids=lambda p: p.name
)
def test_a_checked_file_leaves_no_reference_cycles(path: Path) -> None:
    """``check`` pauses the collector for its whole run (one collection at the end, not one
    per file): each file's analysis and report must be freed by reference counting."""
    import gc

    from pi_lsp.cli.commands.check import check_file
    from pi_lsp.core.workspace.settings import Settings

    check_file(str(path), Settings())  # warm: caches of the first use are no garbage
    gc.collect()
    gc.disable()
    try:
        report = check_file(str(path), Settings())
        assert report.error is None
        del report
        assert gc.collect() == 0
    finally:
        gc.enable()
