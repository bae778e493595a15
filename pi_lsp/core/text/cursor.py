"""What lies under a cursor inside one line: the chain of JSON nodes around a column.

Works on the text of a valid JSON line without parsing it: it walks down from the root
value with :func:`~pi_lsp.core.text.jsonl.iter_members` / :func:`~pi_lsp.core.text.jsonl.iter_elements`,
which jump over strings with ``str.find`` and stop at the cursor, so finding the node
under the cursor in a 50 MB line costs milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from .jsonl import PathItem, iter_elements, iter_members

Span2 = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Node:
    """One JSON value on the way to the cursor: its path, key span (members) and value span."""

    path: tuple[PathItem, ...]
    key: Span2 | None
    value: Span2


@dataclass(frozen=True, slots=True)
class Cursor:
    """The nodes containing a column, outermost first; ``on_key`` when it is on the last key."""

    chain: tuple[Node, ...]
    on_key: bool

    @property
    def node(self) -> Node:
        """The innermost node."""
        return self.chain[-1]

    @property
    def path(self) -> tuple[PathItem, ...]:
        """The JSON path of the innermost node."""
        return self.chain[-1].path


def _inside(span: Span2, column: int) -> bool:
    return span[0] <= column <= span[1]


def cursor_at(text: str, column: int, max_depth: int = 64) -> Cursor | None:
    """The chain of nodes around ``column`` in the JSON ``text`` of one line, or None.

    A column just past a value's last character still counts as inside it. None when the
    line holds no JSON value at that column (whitespace around it, or an empty line).
    """
    start = len(text) - len(text.lstrip(" \t\ufeff"))
    end = len(text.rstrip(" \t\r\n"))
    if start >= end or not _inside((start, end), column):
        return None
    chain = [Node((), None, (start, end))]
    for _ in range(max_depth):
        node = chain[-1]
        opener = text[node.value[0]]
        found: Node | None = None
        if opener == "{":
            for key, key_span, value_span in iter_members(text, node.value[0]):
                if key_span[0] > column:
                    break
                if _inside(key_span, column):
                    chain.append(Node((*node.path, key), key_span, value_span))
                    return Cursor(tuple(chain), on_key=True)
                if _inside(value_span, column):  # past the key: checked just above
                    found = Node((*node.path, key), key_span, value_span)
                    break
        elif opener == "[":
            for index, value_span in enumerate(iter_elements(text, node.value[0])):
                if value_span[0] > column:
                    break
                if _inside(value_span, column):
                    found = Node((*node.path, index), None, value_span)
                    break
        if found is None:
            break
        chain.append(found)
    return Cursor(tuple(chain), on_key=False)
