"""Settings shared by the server and the command line, and the pi-lsp.toml files they read."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from pi_lsp.core.text.findings import Finding, Severity, Span
from pi_lsp.core.text.limits import MIB
from pi_lsp.core.workspace.config_file import (
    ConfigError,
    file_settings,
    find_project_config,
    layered_settings,
    read_config,
    user_config,
)
from pi_lsp.core.workspace.settings import Settings, known_selector, merge, parse_settings


def test_severity_by_code_and_prefix_most_specific_wins() -> None:
    settings, problems = parse_settings({"severity": {"pi4": "warn", "PI401": "off", "PI": "hint"}})
    assert problems == []
    assert settings.level("PI400", Severity.ERROR) == Severity.WARNING
    assert settings.level("PI401", Severity.ERROR) is None
    assert settings.level("PI001", Severity.ERROR) == Severity.HINT


def test_unknown_codes_and_levels_are_problems() -> None:
    settings, problems = parse_settings(
        {"severity": {"PI999": "off", "PI4": "loud", "PI001": "info"}, "select": ["PI7"]}
    )
    assert settings.severity == {"PI001": Severity.INFORMATION} and settings.select == ()
    assert len(problems) == 3
    assert "'PI999' is no code" in problems[0] and "unknown level 'loud'" in problems[1]
    assert "select: 'PI7'" in problems[2]


@pytest.mark.parametrize(
    ("select", "ignore", "reported"),
    [
        ([], [], {"PI001", "PI400", "PI401", "PI420"}),
        (["PI4"], [], {"PI400", "PI401", "PI420"}),
        (["PI4"], ["PI40"], {"PI420"}),
        (["PI401"], ["PI4"], {"PI401"}),
        ([], ["PI4", "PI001"], set()),
        (["PI4"], ["PI4"], set()),
    ],
)
def test_select_and_ignore(select: list[str], ignore: list[str], reported: set[str]) -> None:
    settings, problems = parse_settings({"select": select, "ignore": ignore})
    assert problems == []
    assert {c for c in ("PI001", "PI400", "PI401", "PI420") if settings.reports(c)} == reported


def test_merge_layers() -> None:
    merged = merge(
        {"severity": {"PI4": "warning"}, "ignore": ["PI005"], "select": ["PI"], "outlineCap": 5},
        {"severity": {"PI401": "off"}, "ignore": ["PI1"], "select": ["PI4"]},
    )
    assert merged == {
        "severity": {"PI4": "warning", "PI401": "off"},
        "ignore": ["PI005", "PI1"],
        "select": ["PI4"],
        "outlineCap": 5,
    }


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path


def test_user_config_follows_xdg(home: Path) -> None:
    assert user_config() == home / "xdg" / "pi-lsp" / "pi-lsp.toml"


def test_project_file_is_found_upward(home: Path) -> None:
    deep = home / "p" / "a" / "b"
    deep.mkdir(parents=True)
    assert find_project_config(deep) is None
    (home / "p" / "pi-lsp.toml").write_text("outline-cap = 7\n", encoding="utf-8")
    assert find_project_config(deep / "file.jsonl") == home / "p" / "pi-lsp.toml"
    assert find_project_config(deep) == home / "p" / "pi-lsp.toml"


def test_files_layer_under_the_client(home: Path) -> None:
    project = home / "p"
    project.mkdir()
    (home / "xdg" / "pi-lsp").mkdir(parents=True)
    (home / "xdg" / "pi-lsp" / "pi-lsp.toml").write_text(
        'large-line-threshold = 10\n[severity]\nPI005 = "off"\n', encoding="utf-8"
    )
    (project / "pi-lsp.toml").write_text(
        'outline-cap = 7\ndiagnostic-mode = "push"\n[severity]\nPI4 = "hint"\n', encoding="utf-8"
    )
    assert file_settings(project) == {
        "largeLineThreshold": 10,
        "severity": {"PI005": "off", "PI4": "hint"},
        "outlineCap": 7,
        "diagnosticMode": "push",
    }
    settings = layered_settings(project, {"outlineCap": 9, "severity": {"PI400": "error"}})
    assert (settings.large_line, settings.outline_cap, settings.diagnostic_mode) == (10, 9, "push")
    assert settings.level("PI400", Severity.ERROR) == Severity.ERROR
    assert settings.level("PI401", Severity.ERROR) == Severity.HINT
    assert settings.level("PI005", Severity.INFORMATION) is None
    assert layered_settings(None, {}).large_line == 10  # no project: the user's file alone


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nope = 1\n", "unknown key 'nope'"),
        ("outline-cap = 0\n", "outline-cap: expected a positive integer"),
        ("[severity\n", "not valid TOML"),
        ("severity = 'off'\n", "severity: expected an object"),
    ],
)
def test_a_wrong_file_is_an_error_naming_it(home: Path, text: str, message: str) -> None:
    (home / "pi-lsp.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        file_settings(home)
    assert str(caught.value).startswith(f"{home / 'pi-lsp.toml'}: ") and message in str(
        caught.value
    )


# ----------------------------------------------------------------------------- reading settings


def test_no_settings_are_the_defaults() -> None:
    for raw in (None, {}):
        settings, problems = parse_settings(raw)
        assert problems == []
        assert settings == Settings()
        assert (settings.large_line, settings.outline_cap) == (MIB, 2000)
        assert (settings.diagnostic_mode, settings.sessions_folder) == ("auto", None)


@pytest.mark.parametrize("raw", [[], "PI4", 3])
def test_settings_that_are_no_object_are_one_problem(raw: object) -> None:
    assert parse_settings(raw) == (Settings(), ["settings are not an object"])


def test_codes_and_levels_are_read_in_any_case_and_spacing() -> None:
    settings, problems = parse_settings(
        {
            "severity": {" pi4 ": " Warning ", "pi401": None, "PI42": "INFO"},
            "select": [" pi4", "pi500 "],
            "ignore": ["pi40"],
        }
    )
    assert problems == []
    assert settings.severity == {
        "PI4": Severity.WARNING,
        "PI401": None,
        "PI42": Severity.INFORMATION,
    }
    assert settings.select == ("PI4", "PI500") and settings.ignore == ("PI40",)


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (
            {"select": "PI4"},
            "select: expected a list of codes or code prefixes, got 'PI4'",
        ),
        (
            {"ignore": {"PI4": True}},
            "ignore: expected a list of codes or code prefixes, got {'PI4': True}",
        ),
        ({"ignore": [4]}, "ignore: 4 is no code and no prefix of one (codes: PI001…PI500)"),
        ({"select": [""]}, "select: '' is no code and no prefix of one (codes: PI001…PI500)"),
        ({"severity": ["PI4"]}, "severity: expected an object of CODE: level, got ['PI4']"),
        (
            {"severity": {"": "off"}},
            "severity: '' is no code and no prefix of one (codes: PI001…PI500)",
        ),
        (
            {"severity": {"PI4": 2}},
            "severity for PI4: unknown level 2"
            " (one of error, warning, warn, information, info, hint, off)",
        ),
        ({"largeLineThreshold": 0}, "largeLineThreshold: expected a positive integer, got 0"),
        ({"outlineCap": True}, "outlineCap: expected a positive integer, got True"),
        ({"outlineCap": "5"}, "outlineCap: expected a positive integer, got '5'"),
        ({"outlineCap": 2.0}, "outlineCap: expected a positive integer, got 2.0"),
        (
            {"diagnosticMode": "Push"},
            "diagnosticMode: expected one of auto, push, pull, both, got 'Push'",
        ),
        ({"sessionsFolder": "  "}, "sessionsFolder: expected a folder's path, got '  '"),
        ({"sessionsFolder": 7}, "sessionsFolder: expected a folder's path, got 7"),
    ],
)
def test_a_wrong_setting_is_one_problem_and_keeps_its_default(
    raw: dict[str, object], problem: str
) -> None:
    settings, problems = parse_settings(raw)
    assert problems == [problem]
    assert settings == Settings()


def test_every_setting_is_read() -> None:
    for mode in ("auto", "push", "pull", "both"):
        settings, problems = parse_settings(
            {
                "largeLineThreshold": 1,
                "outlineCap": 3,
                "diagnosticMode": mode,
                "sessionsFolder": "~/s",
            }
        )
        assert problems == []
        assert settings == Settings(
            large_line=1, outline_cap=3, diagnostic_mode=mode, sessions_folder="~/s"
        )


def test_a_null_selector_list_is_no_selection() -> None:
    settings, problems = parse_settings({"select": None, "ignore": None, "severity": None})
    assert (settings, problems) == (Settings(), [])


def test_known_selector() -> None:
    assert known_selector("PI") and known_selector("PI4") and known_selector("PI500")
    assert not known_selector("") and not known_selector("PI9") and not known_selector("PI5000")


# ----------------------------------------------------------------------------- applying them


def _finding(code: str, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(code, severity, Span(0, 0, 1), f"{code} found")


def test_levels_without_a_severity_setting_keep_the_default() -> None:
    settings, _ = parse_settings({"select": ["PI4"]})
    assert settings.level("PI400", Severity.WARNING) == Severity.WARNING
    assert settings.level("PI001", Severity.WARNING) is None


def test_applying_no_settings_keeps_the_findings() -> None:
    findings = [_finding("PI001"), _finding("PI400", Severity.WARNING)]
    assert Settings().apply(findings) is findings


@pytest.mark.parametrize(
    "raw",
    [{"severity": {"PI4": "hint"}}, {"select": ["PI4"]}, {"ignore": ["PI001"]}],
)
def test_each_kind_of_setting_is_applied(raw: dict[str, object]) -> None:
    findings = [_finding("PI001"), _finding("PI400", Severity.WARNING)]
    settings, _ = parse_settings(raw)
    out = settings.apply(findings)
    if "severity" in raw:
        assert [(f.code, f.severity) for f in out] == [
            ("PI001", Severity.ERROR),
            ("PI400", Severity.HINT),
        ]
    else:
        assert out == [findings[1]]


def test_applied_severities_change_only_the_severity() -> None:
    settings, _ = parse_settings({"severity": {"PI4": "warning", "PI401": "off"}})
    findings = [
        _finding("PI400"),
        _finding("PI401"),
        _finding("PI400", Severity.HINT),
        _finding("PI420", Severity.WARNING),
        _finding("PI400"),
        _finding("PI001"),
    ]
    out = settings.apply(findings)
    assert out == [
        replace(findings[0], severity=Severity.WARNING),
        replace(findings[2], severity=Severity.WARNING),
        findings[3],
        replace(findings[4], severity=Severity.WARNING),
        findings[5],
    ]
    assert out[2] is findings[3] and out[4] is findings[5]


def test_merge_replaces_what_it_cannot_combine() -> None:
    assert merge(
        {"severity": "x", "ignore": "PI4"}, {"severity": {"PI4": "off"}, "ignore": ["PI1"]}
    ) == {
        "severity": {"PI4": "off"},
        "ignore": ["PI1"],
    }
    assert merge(
        {"severity": {"PI4": "off"}, "ignore": ["PI1"]}, {"severity": None, "ignore": None}
    ) == {
        "severity": None,
        "ignore": None,
    }
    assert merge({"select": ["PI1"]}, {"select": ["PI4"]}) == {"select": ["PI4"]}
    assert merge() == {}


# ----------------------------------------------------------------------------- configuration files


def test_user_config_on_windows_is_under_appdata(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APPDATA", str(home / "roaming"))
    assert user_config() == home / "xdg" / "pi-lsp" / "pi-lsp.toml"  # not Windows: XDG
    monkeypatch.setattr(sys, "platform", "win32")
    assert user_config() == home / "roaming" / "pi-lsp" / "pi-lsp.toml"
    monkeypatch.delenv("APPDATA")
    assert user_config() == home / "xdg" / "pi-lsp" / "pi-lsp.toml"


def test_user_config_defaults_to_dot_config(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(home / "me"))
    assert user_config() == home / "me" / ".config" / "pi-lsp" / "pi-lsp.toml"


def test_a_folder_named_like_the_file_is_no_configuration(home: Path) -> None:
    (home / "p" / "pi-lsp.toml").mkdir(parents=True)
    (home / "pi-lsp.toml").write_text("outline-cap = 7\n", encoding="utf-8")
    assert find_project_config(home / "p") == home / "pi-lsp.toml"
    assert find_project_config(home / "p" / "s.jsonl") == home / "pi-lsp.toml"


def test_the_project_file_is_looked_for_from_a_file_s_own_folder(home: Path) -> None:
    (home / "a").mkdir()
    (home / "a" / "pi-lsp.toml").write_text("outline-cap = 7\n", encoding="utf-8")
    session = home / "a" / "s.jsonl"
    session.write_text("", encoding="utf-8")
    assert find_project_config(session) == home / "a" / "pi-lsp.toml"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b"nope = 1\n",
            "unknown key 'nope' (known: severity, select, ignore, large-line-threshold,"
            " outline-cap, diagnostic-mode)",
        ),
        (
            b"large-line-threshold = -1\n",
            "large-line-threshold: expected a positive integer, got -1",
        ),
        (
            b'diagnostic-mode = "x"\n',
            "diagnostic-mode: expected one of auto, push, pull, both, got 'x'",
        ),
        (
            b'diagnostic-mode = "x"\noutline-cap = 0\n',
            "outline-cap: expected a positive integer, got 0",
        ),
        (
            b'select = ["PI9"]\nignore = ["PI8"]\n',
            "select: 'PI9' is no code and no prefix of one (codes: PI001…PI500)",
        ),
        (b"\xff = 1\n", "not valid TOML: "),
    ],
)
def test_a_file_s_first_problem_is_reported_with_the_key_as_the_file_spells_it(
    home: Path, data: bytes, message: str
) -> None:
    path = home / "pi-lsp.toml"
    path.write_bytes(data)
    with pytest.raises(ConfigError) as caught:
        read_config(path)
    assert str(caught.value).startswith(f"{path}: {message}")
    if not message.endswith(": "):
        assert str(caught.value) == f"{path}: {message}"


def test_a_file_that_cannot_be_read_is_an_error_naming_it(home: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        read_config(home / "missing.toml")
    assert str(caught.value) == f"{home / 'missing.toml'}: cannot read: No such file or directory"
    (home / "dir.toml").mkdir()
    with pytest.raises(ConfigError) as caught:
        read_config(home / "dir.toml")
    assert str(caught.value) == f"{home / 'dir.toml'}: cannot read: Is a directory"


def test_a_file_is_read_again_when_it_changes_and_its_settings_cannot_be_changed_by_a_reader(
    home: Path,
) -> None:
    path = home / "pi-lsp.toml"
    path.write_text("outline-cap = 7\n", encoding="utf-8")
    first = read_config(path)
    first["outlineCap"] = 1
    assert read_config(path) == {"outlineCap": 7}
    path.write_text("outline-cap = 70\n", encoding="utf-8")
    assert read_config(path) == {"outlineCap": 70}


def test_a_user_file_that_is_also_the_project_file_is_read_once(home: Path) -> None:
    folder = home / "xdg" / "pi-lsp"
    folder.mkdir(parents=True)
    (folder / "pi-lsp.toml").write_text('ignore = ["PI005"]\n', encoding="utf-8")
    assert file_settings(folder) == {"ignore": ["PI005"]}
    assert file_settings(None) == {"ignore": ["PI005"]}
    assert file_settings(home) == {"ignore": ["PI005"]}


def test_no_files_no_settings(home: Path) -> None:
    assert file_settings(home) == {} and file_settings(None) == {}
    assert layered_settings(home, {"outlineCap": 0, "ignore": ["PI4"]}) == Settings(ignore=("PI4",))


def test_a_file_is_read_again_when_only_its_time_or_only_its_size_changes(home: Path) -> None:
    path = home / "pi-lsp.toml"
    path.write_text("outline-cap = 7\n", encoding="utf-8")
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    assert read_config(path) == {"outlineCap": 7}
    path.write_text("outline-cap = 8\n", encoding="utf-8")  # the same size
    os.utime(path, ns=(2_000_000_000, 2_000_000_000))
    assert read_config(path) == {"outlineCap": 8}
    path.write_text("outline-cap = 80\n", encoding="utf-8")  # the same time
    os.utime(path, ns=(2_000_000_000, 2_000_000_000))
    assert read_config(path) == {"outlineCap": 80}
