"""Selection ranges inside one line: string contents, value, member, enclosing object, ...,
the whole line. Spans are code-point columns of the cursor's line, innermost first.
"""

from __future__ import annotations

from ..entries.model import Analysis
from ..text.cursor import cursor_at


def selection_spans(a: Analysis, line: int, column: int) -> list[tuple[int, int]]:
    """Nested spans around ``(line, column)``, innermost first, ending with the whole line."""
    if not 0 <= line < len(a.lines):
        return []
    text = a.lines[line]
    whole = (0, len(text))
    cur = cursor_at(text, column) if a.infos[line].value is not None else None
    if cur is None:
        return [whole]
    spans: list[tuple[int, int]] = []
    if cur.on_key and cur.node.key is not None:
        spans.append(cur.node.key)
    else:
        start, end = cur.node.value
        if text[start] == '"' and start < column < end:  # inside a string: its contents
            spans.append((start + 1, end - 1))
    for node in reversed(cur.chain):
        spans.append(node.value)
        if node.key is not None:
            spans.append((node.key[0], node.value[1]))
    spans.append(whole)
    out: list[tuple[int, int]] = []
    for span in spans:
        if not out or (span != out[-1] and span[0] <= out[-1][0] and out[-1][1] <= span[1]):
            out.append(span)
    return out
