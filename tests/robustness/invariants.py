"""Invariants every answer must satisfy, whatever the input.

Line math here is written independently of ``pi_lsp.core.text.lineindex`` on purpose: lines end
only at ``\\n``, ``\\r\\n`` and ``\\r`` (the spec), and lengths are measured in the
negotiated encoding's code units.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

_BREAK = re.compile(r"\r\n|\r|\n")
TRACEBACK = "Traceback (most recent call last)"


def split(text: str) -> list[str]:
    """The document's lines (without terminators), as the spec defines them."""
    return _BREAK.split(text)


def unit_len(s: str, encoding: str) -> int:
    if encoding == "utf-32":
        return len(s)
    if encoding == "utf-16":
        return len(s.encode("utf-16-le", "surrogatepass")) // 2
    return len(s.encode("utf-8", "surrogatepass"))


class Doc:
    """Line lengths of one document in one encoding (computed lazily, cached)."""

    def __init__(self, text: str, encoding: str) -> None:
        self.lines = split(text)
        self.encoding = encoding
        self._len: dict[int, int] = {}

    def length(self, line: int) -> int:
        if line not in self._len:
            self._len[line] = unit_len(self.lines[line], self.encoding)
        return self._len[line]

    def position_problem(self, pos: Any) -> str | None:
        if not isinstance(pos, dict):
            return f"position is not an object: {pos!r:.100}"
        line, char = pos.get("line"), pos.get("character")
        if not isinstance(line, int) or not isinstance(char, int) or isinstance(line, bool):
            return f"position has non-integer fields: {pos!r:.100}"
        if not 0 <= line < len(self.lines):
            return f"line {line} outside the document ({len(self.lines)} lines)"
        if not 0 <= char <= self.length(line):
            return (
                f"character {char} outside line {line} (length {self.length(line)} {self.encoding})"
            )
        return None

    def range_problem(self, rng: Any) -> str | None:
        if not isinstance(rng, dict) or "start" not in rng or "end" not in rng:
            return f"not a range: {rng!r:.100}"
        for key in ("start", "end"):
            problem = self.position_problem(rng[key])
            if problem:
                return f"{key}: {problem}"
        s, e = rng["start"], rng["end"]
        if (s["line"], s["character"]) > (e["line"], e["character"]):
            return f"range ends before it starts: {rng!r}"
        return None


def _is_range(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("start"), dict)
        and isinstance(obj.get("end"), dict)
        and "line" in obj["start"]
    )


def ranges_in(obj: Any, uri: str, path: str = "$") -> Iterator[tuple[str, Any]]:
    """Every range in an answer that refers to document ``uri`` (with a JSON path).

    A range refers to another document when the object holding it names another
    ``uri``/``targetUri`` (Location, LocationLink, DocumentLink target, workspace edits
    keyed by uri); those are skipped.
    """
    if isinstance(obj, list):
        for i, item in enumerate(obj):
            yield from ranges_in(item, uri, f"{path}[{i}]")
        return
    if not isinstance(obj, dict):
        return
    if _is_range(obj):
        yield path, obj
        return
    if "position" in obj and isinstance(obj["position"], dict) and "line" in obj["position"]:
        # inlay hints carry a bare position
        yield f"{path}.position", {"start": obj["position"], "end": obj["position"]}
    other = obj.get("uri", uri) != uri
    target_other = obj.get("targetUri", uri) != uri
    for key, value in obj.items():
        if key == "changes" and isinstance(value, dict):  # WorkspaceEdit.changes
            for doc_uri, edits in value.items():
                if doc_uri == uri:
                    yield from ranges_in(edits, uri, f"{path}.changes[{doc_uri}]")
            continue
        if key == "documentChanges" and isinstance(value, list):
            for i, change in enumerate(value):
                if isinstance(change, dict) and change.get("textDocument", {}).get("uri") == uri:
                    yield from ranges_in(change.get("edits"), uri, f"{path}.documentChanges[{i}]")
            continue
        if key in ("range", "selectionRange") and other:
            continue
        if key in ("targetRange", "targetSelectionRange") and target_other:
            continue
        if key == "location" and isinstance(value, dict) and value.get("uri") != uri:
            continue
        if key in ("position",):
            continue
        yield from ranges_in(value, uri, f"{path}.{key}")


def range_problems(answer: Any, text: str | Doc, uri: str, encoding: str) -> list[str]:
    """Every range of ``answer`` (in document ``uri``) that lies outside ``text``."""
    doc = text if isinstance(text, Doc) else Doc(text, encoding)
    out = []
    for path, rng in ranges_in(answer, uri):
        problem = doc.range_problem(rng)
        if problem:
            out.append(f"{path}: {problem}")
    return out


def text_size(obj: Any) -> int:
    """Total length of every string in an answer (a bound on what it echoes)."""
    if isinstance(obj, str):
        return len(obj)
    if isinstance(obj, list):
        return sum(text_size(x) for x in obj)
    if isinstance(obj, dict):
        return sum(text_size(v) + len(str(k)) for k, v in obj.items())
    return 0


def server_errors(messages: list[Any]) -> list[str]:
    """``window/logMessage`` / ``showMessage`` of type Error: a feature raised."""
    return [
        str(m.get("message"))[:500] for m in messages if isinstance(m, dict) and m.get("type") == 1
    ]


def traceback_summary(stderr: str) -> str:
    """The innermost frames and the exception line of each traceback in ``stderr``."""
    out = []
    for block in stderr.split(TRACEBACK)[1:]:
        lines = [line for line in block.splitlines() if line.strip()]
        frames = [line.strip() for line in lines if line.strip().startswith("File ")]
        tops = [line for line in lines if not line.startswith((" ", "\t")) and ":" in line]
        last = tops[-1] if tops else "?"
        out.append(f"{last} (at {frames[-1] if frames else '?'})")
    return "; ".join(out)
