"""The stats page: data that cannot break out of its script element, a bundle built from source."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pi_lsp.core.stats_chart import chart_html

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web" / "chart"


def test_session_text_cannot_close_the_data_script() -> None:
    data = {"files": [{"name": "</script><script>alert(1)</script>", "note": "<!-- \u2028"}]}
    page = chart_html(data, nonce="n0nce")
    payload = re.search(r'<script type="application/json" id="pi-lsp-stats">(.*?)</script>', page, re.S)
    assert payload is not None
    assert json.loads(payload.group(1)) == data
    assert page.count("<script") == 2  # the data and the page script, nothing injected
    assert "script-src 'nonce-n0nce'" in page and '<script nonce="n0nce">' in page


def test_each_page_gets_a_fresh_nonce() -> None:
    nonces = {re.search(r"'nonce-([^']+)'", chart_html({"files": []})).group(1) for _ in range(3)}  # type: ignore[union-attr]
    assert len(nonces) == 3


def test_committed_bundle_is_built_from_the_sources(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None or not (WEB / "node_modules" / "echarts").is_dir():
        pytest.skip("web/chart not installed (cd web/chart && npm ci)")
    out = tmp_path / "stats_chart.js"
    subprocess.run([node, "build.mjs", str(out)], cwd=WEB, check=True, timeout=300)
    committed = ROOT / "pi_lsp" / "web" / "stats_chart.js"
    assert out.read_bytes() == committed.read_bytes(), "run `npm run build` in web/chart and commit"
