"""A session file read for whole-folder work (stats, search): parsed lines and the tree.

Only what those need: each line parsed as pi parses it, the header found as pi finds it
(the first line that parses) and the entry tree, without the checks of a full
:func:`pi_lsp.core.checks.analysis.analyze` (several times faster on large files).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..text.files import read_lines
from ..text.lineindex import unpack
from .header import no_bytes, whole_number
from .lines import Kind, LineInfo, is_blank, parse
from .tree import Tree, build_tree


@dataclass(frozen=True, slots=True)
class SessionFile:
    """Parsed lines, the header's line (None: the first parsed line is no header) and tree;
    ``empty``: the file has no byte."""

    path: str
    infos: list[LineInfo]
    header_line: int | None
    fmt: str
    tree: Tree
    empty: bool = False


def load(path: str) -> SessionFile:
    """Read and parse ``path`` (OSError when it cannot be read)."""
    lines = list(read_lines(Path(path)).lines.iter_raw())  # stored items, decoded one by one
    empty = no_bytes(lines)
    first = next((i for i, item in enumerate(lines) if not is_blank(unpack(item))), -1)
    last = next(
        (i for i in range(len(lines) - 1, -1, -1) if not is_blank(unpack(lines[i]))), -1
    )
    infos = []
    for i, item in enumerate(lines):
        infos.append(parse(unpack(item), i == first, i == last))
        lines[i] = ""  # the text is not needed once parsed: never hold both in full
    header_line = next((i for i, info in enumerate(infos) if info.parsed), None)
    if header_line is None or infos[header_line].kind is not Kind.HEADER:
        return SessionFile(path, infos, None, "pi", build_tree(infos, "pi", 3), empty)
    header = infos[header_line].obj
    fmt = "book" if header.get("type") == "session_header" else "pi"
    version = whole_number(header.get("version", 1))
    if version is None:
        version = 3 if any(i.kind is Kind.ENTRY and "id" in i.obj for i in infos) else 1
    tree = build_tree(infos, fmt, min(max(version, 1), 3))
    return SessionFile(path, infos, header_line, fmt, tree)
