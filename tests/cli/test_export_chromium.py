"""The exported HTML page renders in headless Chromium, offline (issue 42).

Skips where Chromium is not installed. The page must name no remote resource (no http(s)
or protocol-relative URL in any ``src`` or ``href``, nothing in CSS ``url()``), and
Chromium must render it to a screenshot that is not blank.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from tests.cli.cli_support import ROOT, run_cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
REMOTE = re.compile(
    r"""(?:\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?\s*(?:https?:)?//)""", re.I
)


def png_rows(data: bytes) -> tuple[int, int, bytes]:
    """Width, height and the inflated scanlines of a PNG (8-bit, no interlace)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return width, height, zlib.decompress(idat)


@pytest.mark.slow  # a Chromium run, as the other page screenshots
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_export_renders_offline(tmp_path: Path) -> None:
    page = tmp_path / "session.html"
    out = run_cli("export", ROOT / "examples" / "pi16-session.jsonl", "--all-branches", "-o", page)
    assert out.returncode == 0, out.stderr
    html = page.read_text(encoding="utf-8")
    assert not REMOTE.search(html)
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--disable-background-networking",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--screenshot={shot}",
            "--window-size=1000,1400",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    dom = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    ).stdout
    assert dom.count('<section class="pi-item') == html.count('<section class="pi-item') > 20
    assert "Parser bug hunt" in dom and "Branch to leaf" in dom
    width, height, rows = png_rows(shot.read_bytes())
    assert (width, height) == (1000, 1400)
    assert len(set(rows[: len(rows) // 2])) > 16  # text and colours, not a blank page
