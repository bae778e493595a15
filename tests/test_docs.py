"""The README's diagnostics table and the sample session agree with the code."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from pi_lsp.core.text.codes import CODES

ROOT = Path(__file__).resolve().parents[1]


def test_readme_table_is_the_registry() -> None:
    """The README's diagnostics table is what ``core/text/codes.py`` renders, row for row."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| PI\d{3} \|.*$", readme, re.MULTILINE)
    assert "\n".join(rows) == "\n".join(c.readme_row() for c in CODES.values())


def test_sample_session_shows_real_diagnostics() -> None:
    sample = ROOT / "examples" / "broken-session.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "pi_lsp", "check", str(sample)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    codes = re.findall(r": (?:error|warning|information|hint) (PI\d{3}) ", done.stdout)
    assert codes == ["PI400", "PI401", "PI201", "PI420", "PI002"]
