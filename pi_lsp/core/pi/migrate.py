"""Migration of v1 and v2 sessions to v3, as pi does it on load, expressed as minimal edits.

pi (``migrateV1ToV2`` and ``migrateV2ToV3`` in ``session-manager.js``) works on its list
of parsed lines: every line ``JSON.parse`` accepts, the header at index 0; blank and
unparsable lines are not in it. On v1 it gives every non-header object a fresh 8-hex
``id`` and ``parentId`` = the previous one's id (the first gets ``null``), and turns a
compaction's ``firstKeptEntryIndex`` (an index into that list) into ``firstKeptEntryId``;
on v2 (and after v1) it renames message role ``hookMessage`` to ``custom``; the header's
``version`` becomes 3.

pi then rewrites every line with ``JSON.stringify``, which appends new keys at the end of
each object. Here the same values are inserted as text instead: ``"id"`` and
``"parentId"`` right after the entry's ``"type"`` member (the order pi uses for every entry
it writes itself, so a migrated line looks like a native v3 line), ``version`` right after
the header's ``"type"``, and ``firstKeptEntryIndex`` replaced in place by
``firstKeptEntryId``. Every other byte of every line is kept; unparsable lines are not
touched. The values are exactly pi's, so the tree, the compaction targets and the context
are the ones pi builds.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field
from typing import Any

from ..entries.memo import per_analysis
from ..entries.model import Analysis
from ..text.jsonl import member_keys
from ..text.textedit import (
    TextEdit,
    apply_edits,
    fresh_id,
    js_stringify,
    remove_members,
    set_members,
)
from .loading import CURRENT_VERSION, UNDEFINED, js_truthy, parsed_lines, source_version


@dataclass(slots=True)
class Migration:
    """A migration to v3: the edits, and what they do to each line.

    ``ids``/``parents`` hold the id and parentId pi gives every entry line of a v1 file
    (a v2 file keeps its own); ``dropped_index`` the v1 compactions that lose their
    ``firstKeptEntryIndex``, and ``first_kept`` the ``firstKeptEntryId`` pi assigns them
    (``UNDEFINED``: the member disappears; absent: an existing one is kept); ``renamed``
    the lines whose message role goes from ``hookMessage`` to ``custom``.
    """

    from_version: int
    edits: list[TextEdit] = field(default_factory=list)
    ids: dict[int, Any] = field(default_factory=dict)
    parents: dict[int, Any] = field(default_factory=dict)
    dropped_index: set[int] = field(default_factory=set)
    first_kept: dict[int, Any] = field(default_factory=dict)
    renamed: list[int] = field(default_factory=list)
    header_line: int = 0


def _as_index(raw: Any) -> int | None:
    """A ``firstKeptEntryIndex`` as an array index (JS: ``entries[raw]``), or None."""
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else None


def _first_kept(a: Analysis, parsed: list[int], raw: Any, ids: dict[int, Any]) -> tuple[bool, Any]:
    """What pi does with a compaction's ``firstKeptEntryIndex``: ``(assigned, value)``."""
    index = _as_index(raw)
    if index is None or not 0 <= index < len(parsed):
        return False, UNDEFINED
    target_line = parsed[index]
    target = a.infos[target_line].value
    if not js_truthy(target) or (isinstance(target, dict) and target.get("type") == "session"):
        return False, UNDEFINED
    if not isinstance(target, dict):
        return True, UNDEFINED
    if target_line in ids:  # already migrated (earlier in the list, or the compaction itself)
        return True, ids[target_line]
    return True, target.get("id", UNDEFINED)


def _compaction_edits(
    text: str, line: int, obj: dict[str, Any], assigned: bool, value: Any
) -> tuple[list[TextEdit], list[tuple[str, Any]]]:
    """Edits for the index → id conversion, and members (key, value) to set together with
    id/parentId."""
    if not assigned:
        return remove_members(text, line, {"firstKeptEntryIndex"}), []
    if value is UNDEFINED:
        return remove_members(text, line, {"firstKeptEntryIndex", "firstKeptEntryId"}), []
    encoded = js_stringify(value)
    members = [m for m in member_keys(text) if m[0] == "firstKeptEntryIndex"]
    if "firstKeptEntryId" not in obj and len(members) == 1:
        (_, (start, _), (_, end)) = members[0]
        return [TextEdit.replace(line, start, end, f'"firstKeptEntryId":{encoded}')], []
    return remove_members(text, line, {"firstKeptEntryIndex"}), [("firstKeptEntryId", value)]


@per_analysis
def value_plan(a: Analysis) -> Migration | None:
    """:func:`plan` of ``a`` without its edits (what the values become), once per analysis:
    the context, pairing and views read it."""
    return plan(a, edits=False)


def plan(a: Analysis, *, edits: bool = True) -> Migration | None:
    """The migration of ``a`` to v3 as minimal edits, or None when pi would not migrate it.

    With ``edits=False`` only what the migration does to the values is worked out (for
    :func:`migrated_values`): locating members in the text is most of the cost.
    """
    version = source_version(a)
    if version is None:
        return None
    assert a.header_line is not None
    lines = a.lines
    parsed = parsed_lines(a)
    m = Migration(version, header_line=a.header_line)
    hl = a.header_line
    if edits:
        m.edits.extend(
            set_members(lines[hl], hl, [("version", str(CURRENT_VERSION))], after="type")
        )
    if version == 1:
        _plan_v1(a, parsed, m, edits)
    _plan_roles(a, parsed, m, edits)
    return m


def _plan_v1(a: Analysis, parsed: list[int], m: Migration, edits: bool) -> None:
    """pi's ``migrateV1ToV2``: ids, parent chain, and firstKeptEntryIndex conversion."""
    taken: set[str] = set()
    previous: str | None = None
    lines = a.lines
    for line in parsed:
        obj = a.infos[line].value
        # pi cannot give a primitive an id (it throws) and loses one set on an array
        if not isinstance(obj, dict) or obj.get("type") == "session":
            continue
        ident = fresh_id(taken)
        m.ids[line] = ident
        m.parents[line] = previous
        pairs: list[tuple[str, Any]] = [("id", ident), ("parentId", previous)]
        previous = ident
        extra: list[TextEdit] = []
        if obj.get("type") == "compaction" and "firstKeptEntryIndex" in obj:
            raw = obj["firstKeptEntryIndex"]
            if isinstance(raw, int | float) and not isinstance(raw, bool):
                assigned, value = _first_kept(a, parsed, raw, m.ids)
                m.dropped_index.add(line)
                if assigned:
                    m.first_kept[line] = value
                if edits:
                    extra, more = _compaction_edits(lines[line], line, obj, assigned, value)
                    pairs.extend(more)
        if edits:
            encoded = [(key, js_stringify(v)) for key, v in pairs]
            m.edits.extend(set_members(lines[line], line, encoded, after="type"))
            m.edits.extend(extra)


def _plan_roles(a: Analysis, parsed: list[int], m: Migration, edits: bool) -> None:
    """pi's ``migrateV2ToV3``: message role ``hookMessage`` becomes ``custom``."""
    for line in parsed:
        info = a.infos[line]  # the role of a message entry's message object
        if info.type == "message" and info.role == "hookMessage":
            m.renamed.append(line)
            if edits:
                m.edits.extend(
                    set_members(a.lines[line], line, [("role", '"custom"')], path=("message",))
                )


def migrated_values(
    a: Analysis, m: Migration, full: Container[int] = ()
) -> list[tuple[int, Any]]:
    """pi's parsed entries after migration: ``(line, value)``, header first.

    Objects are shallow copies with the migrated members. Values are the analysis's (slim
    on long lines), but those of the lines in ``full``: :meth:`Analysis.value`.
    """
    out: list[tuple[int, Any]] = []
    for line in parsed_lines(a):
        value = a.value(line) if line in full else a.infos[line].value
        if isinstance(value, dict):
            value = _migrated_object(line, value, m)
        out.append((line, value))
    return out


def _migrated_object(line: int, obj: dict[str, Any], m: Migration) -> dict[str, Any]:
    copy = dict(obj)
    if line == m.header_line:
        copy["version"] = CURRENT_VERSION
        return copy
    if m.from_version == 1 and line in m.ids:
        copy["id"] = m.ids[line]
        copy["parentId"] = m.parents[line]
        if line in m.dropped_index:  # only compactions that have one
            del copy["firstKeptEntryIndex"]
        if line in m.first_kept:
            value = m.first_kept[line]
            if value is UNDEFINED:
                copy.pop("firstKeptEntryId", None)
            else:
                copy["firstKeptEntryId"] = value
    if line in m.renamed:
        copy["message"] = {**copy["message"], "role": "custom"}
    return copy


def migrated_text(a: Analysis, m: Migration) -> str:
    """The whole document after the migration."""
    return apply_edits(a.text, m.edits)
