"""The entry tree of a session: ids, parents, children, roots, leaf and active path.

Nodes are line numbers. Links resolve the way pi resolves them: ``byId`` keeps the last
entry with a given id, an unknown ``parentId`` ends the path there (the entry acts as a
root), and the leaf is the last entry in the file. Cycles are detected rather than
followed; every walk here is bounded.
"""

from __future__ import annotations

from array import array
from collections.abc import Container, Iterable, Iterator, Mapping, MutableMapping, Set
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, overload

from .lines import Kind, LineInfo


class LineSet(Set[int]):
    """A set of line numbers as one byte per line up to the largest: what a ``set`` of the
    active path's lines would answer (membership, iteration in line order, set algebra
    with other sets), at a thirtieth of its memory."""

    __slots__ = ("_bits", "_count")

    def __init__(self, lines: Iterable[int]) -> None:
        lines = list(lines)
        bits = bytearray(max(lines) + 1 if lines else 0)
        for line in lines:
            bits[line] = 1
        self._bits = bits
        self._count = sum(bits)

    def __contains__(self, line: object) -> bool:
        return type(line) is int and 0 <= line < len(self._bits) and self._bits[line] == 1

    def __iter__(self) -> Iterator[int]:
        return (n for n, bit in enumerate(self._bits) if bit)

    def __len__(self) -> int:
        return self._count

    def __repr__(self) -> str:
        return f"LineSet({list(self)!r})"

    @classmethod
    def _from_iterable(cls, it: Iterable[int]) -> set[int]:  # type: ignore[override]
        return set(it)


V = TypeVar("V")
T = TypeVar("T")

MISSING: Any = object()
"""A :class:`LineMap` slot of a line that is no key."""


class LineMap(MutableMapping[int, V], Generic[V]):
    """A mapping of line numbers to values as one list slot per line up to the largest key:
    what a ``dict`` of every entry's parent or id would answer, in a fifth of its memory
    (a ``dict`` item takes ~40 bytes, a slot 8). Iterates in line order."""

    __slots__ = ("_at", "_count")

    def __init__(self, items: Iterable[tuple[int, V]] = ()) -> None:
        self._at: list[Any] = []
        self._count = 0
        for line, value in items:
            self[line] = value

    def _slot(self, line: object) -> Any:
        at = self._at
        return at[line] if type(line) is int and 0 <= line < len(at) else MISSING

    @overload
    def get(self, line: object) -> V | None: ...

    @overload
    def get(self, line: object, default: V | T) -> V | T: ...

    def get(self, line: object, default: Any = None) -> Any:
        at = self._at  # inline: trees read every entry's parent on hot paths
        if type(line) is int and 0 <= line < len(at):
            value = at[line]
            if value is not MISSING:
                return value
        return default

    def __getitem__(self, line: int) -> V:
        value = self._slot(line)
        if value is MISSING:
            raise KeyError(line)
        return value  # type: ignore[no-any-return]

    def __contains__(self, line: object) -> bool:
        at = self._at
        return type(line) is int and 0 <= line < len(at) and at[line] is not MISSING

    def __setitem__(self, line: int, value: V) -> None:
        if line < 0:
            raise KeyError(line)
        at = self._at
        if line >= len(at):
            at.extend([MISSING] * (line + 1 - len(at)))
        if at[line] is MISSING:
            self._count += 1
        at[line] = value

    def __delitem__(self, line: int) -> None:
        if self._slot(line) is MISSING:
            raise KeyError(line)
        self._at[line] = MISSING
        self._count -= 1

    def __iter__(self) -> Iterator[int]:
        return (n for n, value in enumerate(self._at) if value is not MISSING)

    def __len__(self) -> int:
        return self._count

    def __repr__(self) -> str:
        return f"LineMap({dict(self.items())!r})"

    @classmethod
    def of_slots(cls, slots: list[Any], count: int) -> LineMap[V]:
        """The map whose slot ``n`` is ``slots[n]`` (:data:`MISSING` where line ``n`` is no
        key), ``count`` of them keys; it takes ``slots`` as it is."""
        out: LineMap[V] = cls()
        out._at, out._count = slots, count
        return out

    def copy(self) -> LineMap[V]:
        """A copy (a list copy: fast)."""
        return LineMap.of_slots(self._at.copy(), self._count)


_NO_LINE = -1
"""An :class:`Children` link to no line."""


class Children(Mapping[int, list[int]]):
    """Each entry's children in line order, as a list of one entry's children is built on
    each read: the first and last child of each line and the next sibling of each, 4 bytes
    each, where a ``dict`` of lists took ~130 bytes an entry (most entries have one child).
    Children are added in line order (:meth:`add`)."""

    __slots__ = ("_count", "_first", "_last", "_next")

    def __init__(self) -> None:
        self._first: array[int] = array("i")
        self._last: array[int] = array("i")
        self._next: array[int] = array("i")
        self._count = 0

    @classmethod
    def of_parents(cls, entries: list[int], parents: list[Any]) -> tuple[Children, list[int]]:
        """The children of ``entries`` (ascending) whose parent line is ``parents[line]``
        (None for a root, every other one an entry), and the roots."""
        out = cls()
        size = entries[-1] + 1 if entries else 0
        first, last, after = (array("i", [_NO_LINE]) * size for _ in range(3))
        roots: list[int] = []
        count = 0
        for line in entries:
            p = parents[line]
            if p is None:
                roots.append(line)
                continue
            previous = last[p]
            if previous == _NO_LINE:
                first[p] = line
                count += 1
            else:
                after[previous] = line
            last[p] = line
        out._first, out._last, out._next, out._count = first, last, after, count
        return out, roots

    def add(self, parent: int, child: int) -> None:
        """Add ``child`` after ``parent``'s other children (``child`` is after them all)."""
        size = max(parent, child) + 1
        if size > len(self._first):
            grow = array("i", [_NO_LINE]) * (size - len(self._first))
            self._first += grow
            self._last += grow
            self._next += grow
        last = self._last[parent]
        if last == _NO_LINE:
            self._first[parent] = child
            self._count += 1
        else:
            self._next[last] = child
        self._last[parent] = child

    def _kids(self, line: object) -> list[int] | None:
        first = self._first
        if type(line) is not int or not 0 <= line < len(first) or first[line] == _NO_LINE:
            return None
        out = []
        kid, after = first[line], self._next
        while kid != _NO_LINE:
            out.append(kid)
            kid = after[kid]
        return out

    def get(self, line: object, default: Any = None) -> Any:
        kids = self._kids(line)
        return default if kids is None else kids

    def __getitem__(self, line: int) -> list[int]:
        kids = self._kids(line)
        if kids is None:
            raise KeyError(line)
        return kids

    def __contains__(self, line: object) -> bool:
        first = self._first
        return type(line) is int and 0 <= line < len(first) and first[line] != _NO_LINE

    def __iter__(self) -> Iterator[int]:
        return (n for n, kid in enumerate(self._first) if kid != _NO_LINE)

    def __len__(self) -> int:
        return self._count

    def __repr__(self) -> str:
        return f"Children({dict(self.items())!r})"

    def copy(self) -> Children:
        """A copy (three array copies: fast)."""
        out = Children()
        out._first, out._last, out._next = self._first[:], self._last[:], self._next[:]
        out._count = self._count
        return out


@dataclass(slots=True)
class Tree:
    """Parent/child structure over entry lines, with O(1) ancestor checks.

    ``tin``, ``tout`` and ``depth`` are the Euler-tour numbers and depths, in arrays
    indexed by line (-1 where the tour does not reach: a line that is no entry, or an
    entry no root reaches); ``clock`` is the tour's next number (twice the entries it
    numbered).
    """

    entries: list[int] = field(default_factory=list)
    ids: dict[str, int] = field(default_factory=dict)
    id_of: LineMap[str] = field(default_factory=LineMap)
    parent: LineMap[int | None] = field(default_factory=LineMap)
    children: Children = field(default_factory=Children)
    roots: list[int] = field(default_factory=list)
    cycle: set[int] = field(default_factory=set)
    leaf: int | None = None
    active: list[int] = field(default_factory=list)
    active_set: LineSet = field(default_factory=lambda: LineSet(()))
    tin: array[int] = field(default_factory=lambda: array("i"))
    tout: array[int] = field(default_factory=lambda: array("i"))
    depth: array[int] = field(default_factory=lambda: array("i"))
    clock: int = 0

    def numbered(self, line: int) -> bool:
        """True when the Euler tour reached ``line`` (an entry no root reaches is not)."""
        return 0 <= line < len(self.tin) and self.tin[line] >= 0

    def depth_of(self, line: int) -> int | None:
        """The depth of ``line`` below its root (0 for a root); None when not numbered."""
        return self.depth[line] if self.numbered(line) else None

    def is_ancestor(self, a: int, b: int) -> bool:
        """True when ``a`` is ``b`` or lies on the path from ``b`` to its root."""
        if not (self.numbered(a) and self.numbered(b)):
            return a == b
        return self.tin[a] <= self.tin[b] and self.tout[b] <= self.tout[a]

    def path_to(self, line: int) -> list[int]:
        """The path root → ``line`` (bounded; stops at a cycle)."""
        out: list[int] = []
        seen: set[int] = set()
        current: int | None = line
        while current is not None and current not in seen:
            seen.add(current)
            out.append(current)
            current = self.parent.get(current)
        out.reverse()
        return out

    def descendants(self, line: int) -> Iterable[int]:
        """All entries below ``line`` (depth first, iterative; each once, even on a cycle).

        Each entry has one parent, so it is reached once; only ``line`` itself, when it
        lies on a cycle, is reached again (round the cycle), and the walk stops there.
        """
        stack = list(reversed(self.children.get(line, [])))
        while stack:
            node = stack.pop()
            if node == line:
                continue
            yield node
            stack.extend(reversed(self.children.get(node, [])))

    @property
    def branch_points(self) -> list[int]:
        """Entries with more than one child, in file order."""
        first, after = self.children._first, self.children._next  # read in place
        return [
            line
            for line in self.entries
            if line < len(first) and first[line] != _NO_LINE and after[first[line]] != _NO_LINE
        ]

    @property
    def leaves(self) -> list[int]:
        """Entries without children, in file order."""
        first = self.children._first
        return [line for line in self.entries if line >= len(first) or first[line] == _NO_LINE]


def build(
    entries: list[int], id_of: Mapping[int, str], parent_ref: Mapping[int, int | None]
) -> Tree:
    """Build a tree from entry lines, their ids and their resolved parent lines.

    ``parent_ref[line]`` is the parent's line, or None for a root (a null or dangling
    ``parentId``). Ids map to the last line that carries them.
    """
    ids: dict[str, int] = {}
    for line in entries:
        ident = id_of.get(line)
        if ident is not None:
            ids[ident] = line
    return _build(entries, LineMap(id_of.items()), LineMap(parent_ref.items()), ids)


def _build(
    entries: list[int], id_of: LineMap[str], parent: LineMap[int | None], ids: dict[str, int]
) -> Tree:
    """:func:`build`, taking its maps as they are (the caller gives them up)."""
    tree = Tree(entries=entries, ids=ids, id_of=id_of, parent=parent)
    tree.children, tree.roots = Children.of_parents(entries, parent._at)
    _number(tree)
    if tree.clock < 2 * len(entries):  # only entries no root reaches can lie on a cycle
        _find_cycles(tree, [line for line in entries if tree.tin[line] < 0])
    if entries:
        tree.leaf = entries[-1]
        tree.active = tree.path_to(tree.leaf)
        tree.active_set = LineSet(tree.active)
    return tree


def _find_cycles(tree: Tree, lines: list[int]) -> None:
    """Mark every line that lies on a parent cycle (each node has at most one parent),
    walking up from each of ``lines``."""
    state: dict[int, int] = {}  # 1 = on the current walk, 2 = done
    for start in lines:
        if start in state:
            continue
        walk: list[int] = []
        node: int | None = start
        while node is not None and node not in state:
            state[node] = 1
            walk.append(node)
            node = tree.parent.get(node)
        if node is not None and state.get(node) == 1:
            tree.cycle.update(walk[walk.index(node) :])
        for visited in walk:
            state[visited] = 2


def _unnumbered(size: int) -> array[int]:
    """``size`` slots of -1: no line numbered yet."""
    return array("q", [-1]) * size


def _number(tree: Tree) -> None:
    """Euler-tour numbering from the roots (iterative), plus depths, in arrays indexed by
    line (-1 where the tour does not reach; compact where a dict per line is not).

    The stack holds ``line`` to enter a node and ``~line`` (negative) to leave it.
    """
    size = tree.entries[-1] + 1 if tree.entries else 0
    tree.tin, tree.tout, tree.depth = _unnumbered(size), _unnumbered(size), _unnumbered(size)
    clock = 0
    tin, tout, depth = tree.tin, tree.tout, tree.depth
    first, after = tree.children._first, tree.children._next  # the links, read in place
    reach = len(first)
    for root in tree.roots:
        stack = [root]
        depth[root] = 0
        while stack:
            node = stack.pop()
            if node < 0:
                tout[~node] = clock
                clock += 1
                continue
            tin[node] = clock
            clock += 1
            stack.append(~node)
            kid = first[node] if node < reach else _NO_LINE
            if kid == _NO_LINE:
                continue
            kids = [kid]
            while (kid := after[kid]) != _NO_LINE:
                kids.append(kid)
            d = depth[node] + 1
            for child in reversed(kids):
                if tin[child] < 0:
                    depth[child] = d
                    stack.append(child)
    tree.clock = clock


def extend(
    old: Tree, infos: list[LineInfo], lines: list[int], reserved: Container[str]
) -> Tree | None:
    """``old`` with the entries on ``lines`` (after every entry of ``old``) added, as a v2+
    :func:`build_tree` of all of them would give; None when that needs more than adding.

    Each new entry must take a string id that no entry has and that is not ``reserved``
    (references of earlier entries that name no entry), and name an earlier parent (or
    none, or itself): then no earlier entry changes its parent, and each new entry is a
    new root or the newest child of its parent. The Euler-tour numbers of ``old`` stay
    as they are when every new entry hangs off the rightmost path (the common case: a
    child of the leaf); otherwise the tree is renumbered.
    """
    ids = dict(old.ids)
    id_of = old.id_of.copy()
    for line in lines:
        ident = infos[line].obj.get("id")
        if not isinstance(ident, str) or ident in ids or ident in reserved:
            return None
        ids[ident] = line
        id_of[line] = ident
    tree = Tree(
        entries=[*old.entries, *lines],
        ids=ids,
        id_of=id_of,
        parent=old.parent.copy(),
        children=old.children.copy(),
        roots=list(old.roots),
        cycle=set(old.cycle),
    )
    grow = (lines[-1] + 1 - len(old.tin)) if lines else 0
    tree.tin, tree.tout, tree.depth = (
        old.tin + _unnumbered(grow),
        old.tout + _unnumbered(grow),
        old.depth + _unnumbered(grow),
    )
    clock = old.clock
    renumber = False
    # the path root -> leaf as it grows: the ancestors of a parent on it, without a walk
    spine: list[int] | None = list(old.active) if old.active and not old.cycle else None
    for line in lines:
        ref = infos[line].obj.get("parentId")
        p = ids.get(ref) if isinstance(ref, str) else None
        if p is not None and p > line:
            return None
        tree.parent[line] = p
        if p is None:
            tree.roots.append(line)
            tree.tin[line], tree.tout[line], tree.depth[line] = clock, clock + 1, 0
            clock += 2
            continue
        tree.children.add(p, line)
        if p == line:
            tree.cycle.add(line)
        elif tree.numbered(p) and not renumber:
            q = tree.tout[p]
            if clock - q != tree.depth[p] + 1:
                renumber = True  # entries after p in the tour would move
                continue
            d = tree.depth[p]
            if spine is not None and d < len(spine) and spine[d] == p:
                del spine[d + 1 :]  # now the path root -> p (no copy)
            else:
                spine = None
            for node in spine if spine is not None else tree.path_to(p):
                tree.tout[node] += 2
            tree.tin[line], tree.tout[line], tree.depth[line] = q, q + 1, d + 1
            clock += 2
            if spine is not None:
                spine.append(line)
    tree.clock = clock
    if renumber:
        _number(tree)
    if not tree.entries:
        return tree
    tree.leaf = tree.entries[-1]
    tree.active = _active(old, tree)
    tree.active_set = LineSet(tree.active)
    return tree


def _active(old: Tree, tree: Tree) -> list[int]:
    """The active path of ``tree``, reusing the part it shares with ``old``'s."""
    assert tree.leaf is not None
    if tree.cycle:  # old's path may not start at a root: walk it again (bounded)
        return tree.path_to(tree.leaf)
    chain: list[int] = []  # without cycles, the walk up from the leaf ends at a root
    node: int | None = tree.leaf
    while node is not None and node not in old.active_set:
        chain.append(node)
        node = tree.parent.get(node)
    chain.reverse()
    return chain if node is None else old.active[: tree.depth[node] + 1] + chain


def build_tree(infos: list[LineInfo], fmt: str, version: int) -> Tree:
    """Build the tree pi would build: v1 is a chain in file order; v2+ follows ``parentId``."""
    entry = Kind.ENTRY
    entries = [i for i, info in enumerate(infos) if info.kind is entry]
    size = entries[-1] + 1 if entries else 0
    id_at: list[Any] = [MISSING] * size
    parent_at: list[Any] = [MISSING] * size
    ids: dict[str, int] = {}
    with_id = 0
    if fmt == "pi" and version == 1:
        previous: int | None = None
        for line in entries:
            parent_at[line] = previous
            previous = line
    else:
        for line in entries:
            ident = infos[line].ident
            if type(ident) is str:
                id_at[line] = ident
                ids[ident] = line
                with_id += 1
        for line in entries:
            ref = infos[line].parent
            parent_at[line] = ids.get(ref) if type(ref) is str else None
    return _build(
        entries, LineMap.of_slots(id_at, with_id), LineMap.of_slots(parent_at, len(entries)), ids
    )
