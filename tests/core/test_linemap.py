"""A LineMap follows line edits: each kept line maps both ways, a rewritten one to nothing.

Edits at the edges of the text and lines outside it; random edit sequences are in
``test_snapshots.py``. The model: the new text as a list holding, for each line, the old
line it still is (or None once written), edited by slice replacement.
"""

from __future__ import annotations

from pi_lsp.core.text.linemap import LineChange, LineMap


def model(lines: int, edits: list[LineChange]) -> list[int | None]:
    text: list[int | None] = list(range(lines))
    for e in edits:
        text[e.first : e.first + e.removed] = [None] * e.added
    return text


def check(lines: int, edits: list[LineChange]) -> None:
    m = LineMap.identity(lines)
    for e in edits:
        m = m.then(e)
    # a kept segment is never empty: the map does not grow with edits that keep nothing
    assert all(length > 0 for _, _, length in m.runs), m
    new = model(lines, edits)
    for line in range(-2, len(new) + 3):
        expected = new[line] if 0 <= line < len(new) else None
        assert m.to_old(line) == expected, (line, m)
    where = {old: n for n, old in enumerate(new) if old is not None}
    for old in range(-2, lines + 3):
        assert m.to_new(old) == where.get(old), (old, m)


def test_identity_maps_every_line_onto_itself() -> None:
    assert LineMap.identity(3).runs == ((0, 0, 3),)
    assert LineMap.identity(0).runs == ()
    assert LineMap.identity(-1).runs == ()
    check(3, [])
    check(0, [])


def test_replacing_one_line_by_three() -> None:
    m = LineMap.identity(5).then(LineChange(2, 1, 3))
    assert [m.to_old(n) for n in range(8)] == [0, 1, None, None, None, 3, 4, None]
    assert [m.to_new(n) for n in range(6)] == [0, 1, None, 5, 6, None]
    check(5, [LineChange(2, 1, 3)])


def test_insertions_and_deletions_at_the_edges() -> None:
    check(4, [LineChange(0, 0, 2)])  # insert before the first line
    check(4, [LineChange(4, 0, 2)])  # append
    check(4, [LineChange(0, 1, 0)])  # delete the first line
    check(4, [LineChange(3, 1, 0)])  # delete the last line
    check(4, [LineChange(0, 4, 1)])  # replace everything
    check(4, [LineChange(1, 2, 2)])  # rewrite lines in place
    check(6, [LineChange(2, 0, 1), LineChange(0, 1, 0), LineChange(4, 2, 3)])
    check(6, [LineChange(3, 1, 1), LineChange(3, 1, 1)])  # the same line twice


def test_typing_at_the_start_of_a_segment_does_not_grow_the_map() -> None:
    m = LineMap.identity(10)
    for _ in range(50):
        m = m.then(LineChange(3, 1, 1))  # rewrite line 3 again and again
        m = m.then(LineChange(0, 0, 1)).then(LineChange(0, 1, 0))  # insert a line, drop it
    assert m.runs == ((0, 0, 3), (4, 4, 6))
