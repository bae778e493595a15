"""Settings shared by the server and the command line, and the pi-lsp.toml files they read."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.core.config_file import (
    ConfigError,
    file_settings,
    find_project_config,
    layered_settings,
    user_config,
)
from pi_lsp.core.findings import Severity
from pi_lsp.core.settings import merge, parse_settings


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
