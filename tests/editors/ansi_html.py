"""Turn a ``tmux capture-pane -e -p`` dump (text with SGR escapes) into a small HTML page,
so headless Chromium can render a terminal screenshot without a terminal emulator."""

from __future__ import annotations

import html
import re

SGR = re.compile(r"\x1b\[([0-9;:]*)m")
BASE16 = [
    "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
    "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
]  # fmt: skip
DEFAULT_FG = "#e0e2ea"  # Neovim's default colorscheme (dark)
DEFAULT_BG = "#14161b"


def xterm256(n: int) -> str:
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return f"#{steps[n // 36]:02x}{steps[(n // 6) % 6]:02x}{steps[n % 6]:02x}"
    v = 8 + (n - 232) * 10
    return f"#{v:02x}{v:02x}{v:02x}"


class _State:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.fg: str | None = None
        self.bg: str | None = None
        self.bold = self.italic = self.underline = self.reverse = self.undercurl = False

    def apply(self, params: str) -> None:
        parts = [p for p in params.replace(":", ";").split(";")] if params else ["0"]
        i = 0
        while i < len(parts):
            p = int(parts[i] or 0)
            if p == 0:
                self.reset()
            elif p == 1:
                self.bold = True
            elif p == 3:
                self.italic = True
            elif p == 4:
                # "4:3" is an undercurl (diagnostic underline)
                if ":" in params and i + 1 < len(parts) and parts[i + 1] in {"2", "3", "4", "5"}:
                    self.undercurl = True
                    i += 1
                else:
                    self.underline = True
            elif p == 7:
                self.reverse = True
            elif p == 22:
                self.bold = False
            elif p == 23:
                self.italic = False
            elif p == 24:
                self.underline = self.undercurl = False
            elif p == 27:
                self.reverse = False
            elif 30 <= p <= 37:
                self.fg = BASE16[p - 30]
            elif 90 <= p <= 97:
                self.fg = BASE16[p - 90 + 8]
            elif 40 <= p <= 47:
                self.bg = BASE16[p - 40]
            elif 100 <= p <= 107:
                self.bg = BASE16[p - 100 + 8]
            elif p == 39:
                self.fg = None
            elif p == 49:
                self.bg = None
            elif p in (38, 48, 58) and i + 1 < len(parts):
                mode = parts[i + 1]
                color = None
                if mode == "5" and i + 2 < len(parts):
                    color = xterm256(int(parts[i + 2] or 0))
                    i += 2
                elif mode == "2" and i + 4 < len(parts):
                    r, g, b = (int(x or 0) for x in parts[i + 2 : i + 5])
                    color = f"#{r:02x}{g:02x}{b:02x}"
                    i += 4
                if p == 38:
                    self.fg = color
                elif p == 48:
                    self.bg = color
            i += 1

    def style(self) -> str:
        fg, bg = self.fg or DEFAULT_FG, self.bg
        if self.reverse:
            fg, bg = bg or DEFAULT_BG, fg
        css = [f"color:{fg}"]
        if bg:
            css.append(f"background:{bg}")
        if self.bold:
            css.append("font-weight:bold")
        if self.italic:
            css.append("font-style:italic")
        if self.undercurl:
            css.append("text-decoration:underline wavy;text-decoration-skip-ink:none")
        elif self.underline:
            css.append("text-decoration:underline")
        return ";".join(css)


def to_html(ansi: str, cols: int, font_px: int = 15) -> str:
    state = _State()
    out: list[str] = []
    for line in ansi.rstrip("\n").split("\n"):
        pos = 0
        row: list[str] = []
        for m in SGR.finditer(line):
            if m.start() > pos:
                row.append(
                    f'<span style="{state.style()}">{html.escape(line[pos : m.start()])}</span>'
                )
            state.apply(m.group(1))
            pos = m.end()
        if pos < len(line):
            row.append(f'<span style="{state.style()}">{html.escape(line[pos:])}</span>')
        out.append("".join(row))
    body = "\n".join(out)
    return (
        "<!doctype html><meta charset=utf-8><style>"
        f"html,body{{margin:0;background:{DEFAULT_BG}}}"
        f"pre{{margin:0;padding:8px;font:{font_px}px/1.25 'DejaVu Sans Mono',monospace;"
        f"color:{DEFAULT_FG};width:{cols}ch;white-space:pre}}"
        f"</style><pre>{body}</pre>"
    )
