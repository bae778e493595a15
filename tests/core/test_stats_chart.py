"""The stats page: data that cannot break out of its script element, a bundle built from source."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pi_lsp.core.workspace.stats_chart import chart_html

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web" / "chart"


def test_session_text_cannot_close_the_data_script() -> None:
    data = {"files": [{"name": "</script><script>alert(1)</script>", "note": "<!-- \u2028"}]}
    page = chart_html(data, nonce="n0nce")
    payload = re.search(
        r'<script type="application/json" id="pi-lsp-stats">(.*?)</script>', page, re.S
    )
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


class _Page(HTMLParser):
    """The elements of a page in order, with their attributes, and the text inside each."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.decls: list[str] = []
        self.starts: list[tuple[str, dict[str, str | None]]] = []
        self.ends: list[str] = []
        self.text: dict[str, str] = {}
        self.stray = ""
        self._open: list[str] = []

    def handle_decl(self, decl: str) -> None:
        self.decls.append(decl)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.starts.append((tag, dict(attrs)))
        if tag != "meta":
            self._open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        self.ends.append(tag)
        assert self._open and self._open.pop() == tag, f"</{tag}> closes nothing open"

    def handle_data(self, data: str) -> None:
        where = self._open[-1] if self._open else ""
        if where in ("title", "style", "script"):
            key = f"{where}{sum(1 for t, _ in self.starts if t == where)}"
            self.text[key] = self.text.get(key, "") + data
        else:
            self.stray += data


def _parse(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    parser.close()
    return parser


def test_the_page_is_one_self_contained_document() -> None:
    data = {"files": [{"name": "s.jsonl", "turns": [1, 2]}]}
    page = chart_html(data, title="Stats of <s> & co", nonce="N0nce_x")
    parsed = _parse(page)
    assert page.startswith("<!DOCTYPE html>\n") and page.endswith("</html>\n")
    assert [d.lower() for d in parsed.decls] == ["doctype html"]
    assert parsed.starts == [
        ("html", {"lang": "en"}),
        ("head", {}),
        ("meta", {"charset": "utf-8"}),
        (
            "meta",
            {
                "http-equiv": "Content-Security-Policy",
                "content": "default-src 'none'; script-src 'nonce-N0nce_x'; "
                "style-src 'unsafe-inline'; img-src data:; font-src data:",
            },
        ),
        ("meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"}),
        ("title", {}),
        ("style", {}),
        ("body", {}),
        ("main", {"id": "app"}),
        ("script", {"type": "application/json", "id": "pi-lsp-stats"}),
        ("script", {"nonce": "N0nce_x"}),
    ]
    assert parsed.ends == ["title", "style", "head", "main", "script", "script", "body", "html"]
    assert parsed.stray.strip() == ""  # nothing shown but what the script draws
    assert parsed.text["title1"] == "Stats of <s> & co"
    assert "--vscode-editor-background" in parsed.text["style1"]  # follows the editor's theme
    assert json.loads(parsed.text["script1"]) == data
    bundle = (ROOT / "pi_lsp" / "web" / "stats_chart.js").read_text(encoding="utf-8")
    assert parsed.text["script2"] == bundle


def test_the_default_title() -> None:
    assert _parse(chart_html({"files": []}, nonce="n")).text["title1"] == "pi session stats"


def test_an_empty_nonce_is_replaced_by_a_fresh_one() -> None:
    page = chart_html({"files": []}, nonce="")
    nonce = re.search(r"'nonce-([^']*)'", page)
    assert nonce is not None and len(nonce.group(1)) >= 16
    assert f'<script nonce="{nonce.group(1)}">' in page
