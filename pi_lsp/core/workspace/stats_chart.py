"""The stats page: one self-contained HTML file with a chart per session.

The page script (``pi_lsp/web/stats_chart.js``, built from ``web/chart/`` with Apache
ECharts bundled in) draws the context size and the cost over a session's assistant turns,
compactions and branch points marked, from the JSON of ``stats --format json``. The same
page is the VS Code Session Chart webview. Nothing is loaded from the network: the script,
the data and the styles are all inside the file, and a Content-Security-Policy lets only
the page's own script run.
"""

from __future__ import annotations

import functools
import html
import secrets
from importlib import resources
from typing import Any

from ..text.jsontext import dumps


@functools.cache
def _script() -> str:
    return resources.files("pi_lsp").joinpath("web/stats_chart.js").read_text(encoding="utf-8")


_STYLE = """
:root { color-scheme: light dark; }
body { font: 13px/1.45 var(--vscode-font-family, system-ui, -apple-system, "Segoe UI", sans-serif);
  margin: 0; padding: 12px 16px; color: var(--vscode-foreground, CanvasText);
  background: var(--vscode-editor-background, Canvas); }
h2 { font-size: 16px; margin: 4px 0 10px; overflow-wrap: anywhere; }
h3 { font-size: 13px; margin: 16px 0 6px; }
.cards { display: flex; flex-wrap: wrap; gap: 8px; margin-bottom: 8px; }
.card { border: 1px solid rgba(128,128,128,.35); border-radius: 6px; padding: 6px 10px; min-width: 96px; }
.card span { display: block; font-size: 11px; opacity: .75; }
.card b { font-size: 15px; }
.chart { height: 340px; min-height: 220px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin-bottom: 8px; }
th, td { padding: 2px 8px; border-bottom: 1px solid rgba(128,128,128,.25); white-space: nowrap; }
th { text-align: left; font-weight: 600; }
.num { text-align: right; }
td.key { max-width: 28em; overflow: hidden; text-overflow: ellipsis; }
tr.active td { font-weight: 600; }
.note { opacity: .8; }
select { max-width: 100%; }
"""


def chart_html(data: dict[str, Any], title: str = "pi session stats", nonce: str | None = None) -> str:
    """The page for ``data`` (the document of ``stats --format json``).

    ``nonce`` is the script nonce of the Content-Security-Policy (a fresh one when None).
    """
    nonce = nonce or secrets.token_urlsafe(18)
    # "<" escaped: the JSON can never close its <script> element, whatever a session holds
    payload = dumps(data).replace("<", "\\u003c")
    csp = (
        f"default-src 'none'; script-src 'nonce-{nonce}'; "
        "style-src 'unsafe-inline'; img-src data:; font-src data:"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        '<main id="app"></main>\n'
        f'<script type="application/json" id="pi-lsp-stats">{payload}</script>\n'
        f'<script nonce="{nonce}">{_script()}</script>\n'
        "</body>\n</html>\n"
    )
