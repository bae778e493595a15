"""Quick fixes for diagnostics, as minimal text edits.

:func:`fixes` lists the fixes that make sense for one diagnostic (by code and line) in
the current analysis; each :class:`Fix` computes its edits only when asked, so listing
them is cheap even when an edit rewrites every line (migration). Where more than one fix
makes sense, each is offered, the most likely first and marked preferred.

Removing an entry never cuts the tree: its children are re-parented to its nearest
surviving ancestor (v2/v3), and in v1 files the ``firstKeptEntryIndex`` of later
compactions is shifted so it still names the same entry.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..entries.lines import Kind
from ..entries.model import Analysis
from ..entries.tree import build_tree
from ..pi import migrate
from ..pi.loading import parsed_lines, source_version
from ..pi.sent import entry_calls
from ..text.codes import CODES, FIXABLE
from ..text.findings import Finding, Severity
from ..text.jsonl import locate, member_keys
from ..text.textedit import (
    TextEdit,
    delete_lines,
    fresh_id,
    js_stringify,
    remove_members,
    set_members,
)
from ..views.refs import ID_FIELDS
from . import doctor


@dataclass(frozen=True, slots=True)
class Fix:
    """A quick fix: its title, the diagnostic code it fixes, and how to compute its edits.

    ``key`` names the fix among those of its code, whatever its title says (titles count
    lines and entries): a client resolving a fix later finds it by code, line and key.

    ``safe`` fixes are the ones ``pi-lsp check --fix`` applies on its own: they delete
    nothing but a cut-off fragment, and leave every entry loadable by pi.
    """

    title: str
    code: str
    make: Callable[[], list[TextEdit]]
    preferred: bool = False
    safe: bool = False
    key: str = field(kw_only=True)

    def edits(self) -> list[TextEdit]:
        """The edits of this fix, against the analysis it was made for."""
        return self.make()


def fixes(a: Analysis, code: str, line: int) -> list[Fix]:
    """The fixes for the diagnostic ``code`` on ``line`` (none when it is not there now)."""
    if code not in FIXABLE:
        return []
    finding = next((f for f in a.findings if f.code == code and f.span.line == line), None)
    return [] if finding is None else fixes_for(a, finding)


def fixes_for(a: Analysis, finding: Finding) -> list[Fix]:
    """The fixes for ``finding``, one of ``a``'s findings."""
    code = CODES.get(finding.code)
    return _BUILDERS[code.fix](a, finding) if code is not None and code.fix else []


def fix_all(a: Analysis) -> Fix | None:
    """The ``source.fixAll`` fix: migrate to v3 (or, in v3, rename every ``hookMessage``)."""
    version = source_version(a)
    if version is not None:
        return Fix(
            f"Migrate session v{version} to v3", "PI103", lambda: _migration(a), key="migrate"
        )
    roles = _hook_lines(a)
    if roles:
        return Fix(
            f"Rename all {len(roles)} hookMessage roles to custom",
            "PI301",
            lambda: _rename_roles(a, roles),
            key="rename-all-roles",
        )
    return None


# -- helpers -------------------------------------------------------------------------------


def taken_ids(a: Analysis) -> set[str]:
    """Every string id of a parsed line (a fresh id must differ from all of them)."""
    return {info.obj["id"] for info in a.infos if isinstance(info.obj.get("id"), str)}


def _migration(a: Analysis) -> list[TextEdit]:
    m = migrate.plan(a)
    return m.edits if m is not None else []


def _previous_entry(a: Analysis, line: int, ok: Callable[[int], bool]) -> int | None:
    """The nearest entry before ``line`` that its id names and that passes ``ok``.

    An entry whose id a later duplicate shadows is skipped: pi's index resolves that id
    to the other entry, so a link written with it would not point here.
    """
    for p in range(line - 1, -1, -1):
        ident = a.infos[p].obj.get("id")
        named_here = isinstance(ident, str) and a.tree.ids.get(ident) == p
        if a.infos[p].kind is Kind.ENTRY and named_here and ok(p):
            return p
    return None


def _subtree(a: Analysis, line: int) -> list[int]:
    """Descendants of ``line`` (bounded: a cycle is walked once)."""
    out: list[int] = []
    seen = {line}
    stack = list(a.tree.children.get(line, ()))
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        out.append(node)
        stack.extend(a.tree.children.get(node, ()))
    return out


def remove_entries(a: Analysis, lines: set[int]) -> list[TextEdit]:
    """Delete ``lines`` without cutting the tree or moving v1 compaction targets."""
    edits = delete_lines(a.text, lines)
    tree = a.tree
    if a.version >= 2:
        for child in tree.entries:
            parent = tree.parent.get(child)
            if child in lines or parent not in lines:
                continue
            seen: set[int] = set()
            while parent is not None and parent in lines and parent not in seen:
                seen.add(parent)
                parent = tree.parent.get(parent)
            if parent in lines:
                parent = None
            if parent is not None and parent not in tree.id_of:
                parent = None
            edits.extend(doctor.set_parent(a, child, parent))
        return edits
    parsed = parsed_lines(a)
    index_of = {line: n for n, line in enumerate(parsed)}
    gone = sorted(index_of[line] for line in lines if line in index_of)
    for line in tree.entries:
        obj = a.infos[line].obj
        raw = obj.get("firstKeptEntryIndex")
        if line in lines or obj.get("type") != "compaction":
            continue
        if isinstance(raw, bool) or not isinstance(raw, int):
            continue
        shift = bisect.bisect_left(gone, raw)
        if shift:
            start, end = locate(a.lines[line], ("firstKeptEntryIndex",)).value
            edits.append(TextEdit.replace(line, start, end, str(raw - shift)))
    return edits


def _hook_lines(a: Analysis) -> list[int]:
    return [f.span.line for f in a.findings if f.code == "PI301"]


def _rename_roles(a: Analysis, lines: list[int]) -> list[TextEdit]:
    edits: list[TextEdit] = []
    for line in lines:
        edits.extend(set_members(a.lines[line], line, [("role", '"custom"')], path=("message",)))
    return edits


def _line_no(line: int) -> str:
    return f"line {line + 1}"


# -- one builder per code -------------------------------------------------------------------


def _fix_cut_off(a: Analysis, f: Finding) -> list[Fix]:
    line = f.span.line
    return [
        Fix(
            "Remove the cut-off last line (pi skips it anyway)",
            f.code,
            lambda: delete_lines(a.text, [line]),
            preferred=True,
            key="drop-line",
            safe=True,
        )
    ]


def _fix_blank(a: Analysis, f: Finding) -> list[Fix]:
    line = f.span.line
    out = [
        Fix(
            "Remove this blank line",
            f.code,
            lambda: delete_lines(a.text, [line]),
            True,
            key="drop-line",
        )
    ]
    blanks = [g.span.line for g in a.findings if g.code == "PI005"]
    if len(blanks) > 1:
        out.append(
            Fix(
                f"Remove all {len(blanks)} blank lines inside the file",
                f.code,
                lambda: delete_lines(a.text, blanks),
                key="drop-all-blank",
            )
        )
    return out


def _fix_migrate(a: Analysis, f: Finding) -> list[Fix]:
    version = source_version(a)
    if version is None:
        return []
    return [
        Fix(
            f"Migrate session v{version} to v3 (as pi does on load)",
            f.code,
            lambda: _migration(a),
            preferred=True,
            key="migrate",
        )
    ]


def _fix_half_migrated(a: Analysis, f: Finding) -> list[Fix]:
    out = []
    if source_version(a) == 1:
        out.append(
            Fix(
                "Migrate session to v3 as pi would (every entry gets a new id)",
                f.code,
                lambda: _migration(a),
                key="migrate",
            )
        )
    if _ids_usable_as_v3(a):
        assert a.header_line is not None
        hl = a.header_line

        def keep_ids() -> list[TextEdit]:
            edits = set_members(a.lines[hl], hl, [("version", "3")], after="type")
            roles = [
                line
                for line in a.tree.entries
                if isinstance(a.infos[line].obj.get("message"), dict)
                and a.infos[line].obj["message"].get("role") == "hookMessage"
            ]
            return edits + _rename_roles(a, roles)

        out.insert(
            0,
            Fix(
                "Set the header version to 3, keeping the existing ids",
                f.code,
                keep_ids,
                True,
                key="keep-ids",
            ),
        )
    return out


def _ids_usable_as_v3(a: Analysis) -> bool:
    """True when every entry has a unique id and resolvable parent: the tree is sound as v3."""
    if a.header_line is None:
        return False
    entries = a.tree.entries
    if not entries:
        return False
    ids = []
    for line in entries:
        obj = a.infos[line].obj
        if not isinstance(obj.get("id"), str) or "parentId" not in obj:
            return False
        ids.append(obj["id"])
    if len(set(ids)) != len(ids):
        return False
    known = set(ids)
    for line in entries:
        parent = a.infos[line].obj["parentId"]
        if parent is not None and (not isinstance(parent, str) or parent not in known):
            return False
    tree = build_tree(a.infos, "pi", 3)
    return not tree.cycle


def _fix_pending(a: Analysis, f: Finding) -> list[Fix]:
    line = f.span.line
    start, end = f.span.start, f.span.end
    calls = {ident for _, ident in entry_calls(a.infos[line].obj)}
    results = [
        r
        for r in _subtree(a, line)
        if _tool_result_id(a, r) in calls and not _answered_elsewhere(a, r, line)
    ]
    doomed = {line, *results}
    what = "Remove the pending assistant turn"
    if results:
        what += f" and its {len(results)} tool result{'s' if len(results) > 1 else ''}"
    return [
        Fix(
            what + " (its children move to its parent)",
            f.code,
            lambda: remove_entries(a, doomed),
            True,
            key="drop-turn",
        ),
        Fix(
            'Mark the turn as aborted (stopReason "aborted"; pi no longer resends it)',
            f.code,
            lambda: [TextEdit.replace(line, start, end, '"aborted"')],
            key="mark-aborted",
        ),
    ]


def _tool_result_id(a: Analysis, line: int) -> str | None:
    message = a.infos[line].obj.get("message")
    if not isinstance(message, dict) or message.get("role") != "toolResult":
        return None
    ref = message.get("toolCallId")
    return ref if isinstance(ref, str) else None


def _answered_elsewhere(a: Analysis, result: int, removed: int) -> bool:
    """True when another toolCall with the result's id stays on the result's path."""
    ref = _tool_result_id(a, result)
    for node in a.tree.path_to(result):
        if node not in (removed, result) and any(i == ref for _, i in entry_calls(a.infos[node].obj)):
            return True
    return False


def _fix_missing_ids(a: Analysis, f: Finding) -> list[Fix]:
    line = f.span.line
    lacking = [g.span.line for g in a.findings if g.code == "PI300"]
    prev = _previous_entry(a, line, lambda p: True)
    where = f"the previous entry ({_line_no(prev)})" if prev is not None else "no parent (a root)"
    out = [
        Fix(
            f"Give this entry a fresh id and {where} as parent",
            f.code,
            lambda: _give_ids(a, [line]),
            preferred=True,
            key="give-id",
        )
    ]
    if len(lacking) > 1:
        out.append(
            Fix(
                f"Give all {len(lacking)} entries without id a fresh id, each parented to the "
                "entry before it",
                f.code,
                lambda: _give_ids(a, lacking),
                key="give-all-ids",
            )
        )
    return out


def _give_ids(a: Analysis, lines: list[int]) -> list[TextEdit]:
    taken = taken_ids(a)
    new: dict[int, str] = {}
    edits: list[TextEdit] = []
    wanted = set(lines)
    for line in sorted(wanted):
        obj = a.infos[line].obj
        pairs = []
        ident = obj.get("id")
        if "id" not in obj:
            ident = new[line] = fresh_id(taken)
            pairs.append(("id", js_stringify(ident)))
        elif isinstance(ident, str):
            new[line] = ident
        if "parentId" not in obj:
            prev = _previous_entry_or_new(a, line, new)
            pairs.append(("parentId", js_stringify(prev)))
        edits.extend(set_members(a.lines[line], line, pairs, after="type"))
    return edits


def _previous_entry_or_new(a: Analysis, line: int, new: dict[int, str]) -> str | None:
    for p in range(line - 1, -1, -1):
        if p in new:
            return new[p]
        ident = a.infos[p].obj.get("id")
        if a.infos[p].kind is Kind.ENTRY and isinstance(ident, str):
            return ident
    return None


def _fix_hook_role(a: Analysis, f: Finding) -> list[Fix]:
    line = f.span.line
    out = [
        Fix(
            "Rename role hookMessage to custom (the v3 name)",
            f.code,
            lambda: _rename_roles(a, [line]),
            preferred=True,
            key="rename-role",
        )
    ]
    roles = _hook_lines(a)
    if len(roles) > 1:
        out.append(
            Fix(
                f"Rename all {len(roles)} hookMessage roles to custom",
                f.code,
                lambda: _rename_roles(a, roles),
                key="rename-all-roles",
            )
        )
    return out


def _fix_first_kept_index(a: Analysis, f: Finding) -> list[Fix]:
    line = f.span.line
    obj = a.infos[line].obj
    text = a.lines[line]
    out = []
    raw = obj.get("firstKeptEntryIndex")
    parsed = parsed_lines(a)
    members = [m for m in member_keys(text) if m[0] == "firstKeptEntryIndex"]
    if (
        isinstance(raw, int)
        and not isinstance(raw, bool)
        and 0 < raw < len(parsed)
        and "firstKeptEntryId" not in obj
        and len(members) == 1
    ):
        target = parsed[raw]
        ident = a.infos[target].obj.get("id")
        if a.infos[target].kind is Kind.ENTRY and isinstance(ident, str):
            (_, (start, _), (_, end)) = members[0]
            out.append(
                Fix(
                    f'Convert to firstKeptEntryId "{ident}" (the entry on {_line_no(target)})',
                    f.code,
                    lambda: [
                        TextEdit.replace(
                            line, start, end, f'"firstKeptEntryId":{js_stringify(ident)}'
                        )
                    ],
                    preferred=True,
                    key="convert-index",
                )
            )
    if "firstKeptEntryId" in obj:  # without it, the entry would violate its schema
        out.append(
            Fix(
                f"Remove firstKeptEntryIndex (pi ignores it in v{a.version})",
                f.code,
                lambda: remove_members(text, line, {"firstKeptEntryIndex"}),
                preferred=not out,
                key="drop-index",
            )
        )
    return out


def _fix_dangling(a: Analysis, f: Finding) -> list[Fix]:
    line = f.span.line
    tree = a.tree
    prev = _previous_entry(a, line, lambda p: line not in tree.path_to(p))
    out = _reparent_fixes(a, f, line, prev)
    shadowed = _shadowed_previous(a, line, prev)
    return out if shadowed is None else [shadowed, *(replace(fix, preferred=False) for fix in out)]


def _shadowed_previous(a: Analysis, line: int, prev: int | None) -> Fix | None:
    """Re-parenting ``line`` to the entry right before it (after ``prev``, the nearest its
    id names) when one later entry shadows that id: that entry is renumbered by its own
    PI401 fix in the same edit, so the id names the previous entry again."""
    p = next((n for n in range(line - 1, -1, -1) if a.infos[n].kind is Kind.ENTRY), None)
    if p is None or p == prev or line in a.tree.path_to(p):
        return None
    ident = a.infos[p].obj.get("id")
    if not isinstance(ident, str):
        return None
    copies = [n for n in a.tree.entries if a.infos[n].obj.get("id") == ident]
    shadow = a.tree.ids.get(ident)  # the last entry with the id
    finding = next((g for g in a.findings if g.code == "PI401" and g.span.line == shadow), None)
    if shadow is None or copies != [p, shadow] or finding is None:
        return None
    renumber = next(
        (g for g in fixes_for(a, finding) if g.key in ("fresh-id-and-references", "fresh-id")),
        None,
    )
    if renumber is None:
        return None
    return Fix(
        f"Re-parent to the previous entry ({_line_no(p)}), giving {_line_no(shadow)}, which "
        "takes its id, a fresh id",
        "PI400",
        lambda: [*renumber.edits(), *doctor.set_parent(a, line, p)],
        preferred=True,
        key="reparent-renumbering",
        safe=renumber.safe,
    )


def _reparent_fixes(a: Analysis, f: Finding, line: int, prev: int | None) -> list[Fix]:
    out = []
    if prev is not None:
        out.append(
            Fix(
                f"Re-parent to the previous entry ({_line_no(prev)})",
                f.code,
                lambda: doctor.set_parent(a, line, prev),
                preferred=True,
                key="reparent",
                safe=True,
            )
        )
    out.append(
        Fix(
            "Make this entry a root (parentId null)",
            f.code,
            lambda: doctor.set_parent(a, line, None),
            preferred=prev is None,
            key="make-root",
            safe=prev is None,
        )
    )
    return out


def _fix_cycle(a: Analysis, f: Finding) -> list[Fix]:
    line = f.span.line
    tree = a.tree
    prev = _previous_entry(a, line, lambda p: p not in tree.cycle and line not in tree.path_to(p))
    return _reparent_fixes(a, f, line, prev)


def _fix_duplicate_id(a: Analysis, f: Finding) -> list[Fix]:
    line = f.span.line
    ident = a.infos[line].obj.get("id")
    if not isinstance(ident, str):
        return []
    later = [n for n in a.tree.entries if n > line and a.infos[n].obj.get("id") == ident]
    until = later[0] if later else len(a.lines)
    refs = [(n, key) for n in range(line + 1, until) for key in _id_refs(a.infos[n].obj, ident)]
    start, end = f.span.start, f.span.end

    def rename(move: bool) -> list[TextEdit]:
        new = js_stringify(fresh_id(taken_ids(a)))
        edits = [TextEdit.replace(line, start, end, new)]
        edits.extend(_own_refs(a, line, ident, new))
        if move:
            for n, key in refs:
                edits.extend(set_members(a.lines[n], n, [(key, new)]))
        return edits

    moved = {n for n, _ in refs}
    out = []
    if refs:
        out.append(
            Fix(
                f"Give this entry a fresh id and re-point the {len(refs)} reference"
                f"{'s' if len(refs) > 1 else ''} written after it",
                f.code,
                lambda: rename(True),
                preferred=True,
                key="fresh-id-and-references",
                safe=not _reroutes_resumed(a, ident, line, moved),
            )
        )
    out.append(
        Fix(
            "Give this entry a fresh id (references keep naming the other entry)",
            f.code,
            lambda: rename(False),
            preferred=not refs,
            key="fresh-id",
            safe=not refs and not _reroutes_resumed(a, ident, line, set()),
        )
    )
    if not any(fix.safe for fix in out):
        out.append(_fix_shadowed_copies(a, f, ident))
    return out


def _own_refs(a: Analysis, line: int, ident: str, new: str) -> list[TextEdit]:
    """Edits making the references of the entry on ``line`` to itself (a retain-none
    compaction names itself as its first kept entry) follow its new id ``new``."""
    own = [key for key in _id_refs(a.infos[line].obj, ident) if key != "parentId"]
    return set_members(a.lines[line], line, [(key, new) for key in own]) if own else []


def _reroutes_resumed(a: Analysis, ident: str, renamed: int, moved: set[int]) -> bool:
    """True when renaming the entry on ``renamed`` (and re-pointing the references on
    ``moved`` to it) makes a reference on the path pi resumes sends another entry than pi
    reads now (pi's index keeps the last entry of an id); never on a path round a cycle,
    where pi sends nothing."""
    tree = a.tree
    if any(n in tree.cycle for n in tree.active):
        return False
    if tree.ids.get(ident) != renamed:  # the references pi follows reach a later entry
        return bool(moved & tree.active_set)
    return any(
        n not in moved and n != renamed and _id_refs(a.infos[n].obj, ident)
        for n in tree.active
    )


def _fix_shadowed_copies(a: Analysis, f: Finding, ident: str) -> Fix:
    """Fresh ids for the entries of ``ident`` that pi's index does not keep: every link
    keeps reaching the entry it reaches in pi."""
    kept = a.tree.ids[ident]
    copies = [n for n in a.tree.entries if n != kept and a.infos[n].obj.get("id") == ident]

    def rename() -> list[TextEdit]:
        taken = taken_ids(a)
        edits: list[TextEdit] = []
        for n in copies:
            new = js_stringify(fresh_id(taken))
            start, end = locate(a.lines[n], ("id",)).value
            edits.append(TextEdit.replace(n, start, end, new))
            edits.extend(_own_refs(a, n, ident, new))
        return edits

    where = ", ".join(_line_no(n) for n in copies)
    return Fix(
        f"Give the entries pi's index does not keep ({where}) fresh ids (every link keeps "
        f"reaching {_line_no(kept)}, as pi reads it)",
        f.code,
        rename,
        key="fresh-ids-of-shadowed",
        safe=True,
    )


def _id_refs(obj: dict[str, Any], ident: str) -> list[str]:
    """The members of ``obj`` that reference the entry id ``ident``."""
    return [
        key
        for key, types in ID_FIELDS.items()
        if obj.get(key) == ident and (not types or obj.get("type") in types)
    ]


def _fix_orphan_result(a: Analysis, f: Finding) -> list[Fix]:
    line = f.span.line
    return [
        Fix(
            "Remove the orphaned toolResult (its children move to its parent)",
            f.code,
            lambda: remove_entries(a, {line}),
            preferred=True,
            key="drop-result",
        )
    ]


# -- the session doctor: what stops a session from resuming -----------------------------------


def _fix_resume(a: Analysis, f: Finding) -> list[Fix]:
    """PI423-PI425, by the entry that causes them (see :mod:`pi_lsp.core.edits.doctor`)."""
    line = f.span.line
    obj = a.infos[line].obj
    if obj.get("type") == "compaction":
        return _fix_kept_range(a, f)
    if f.code == "PI423" and obj.get("type") == "context_edit":
        return _fix_edit(a, f)
    message = obj.get("message") if obj.get("type") == "message" else None
    if f.code == "PI423" and isinstance(message, dict) and message.get("role") == "assistant":
        return _fix_omitted_results(a, f, "Omit the results of this dropped turn too")
    plan = doctor.reorder_plan(a, line) if f.code != "PI424" else None
    if plan is None:
        return []
    return [
        Fix(
            f"Move this message after the tool results of {_line_no(plan.call)} (it and the "
            "entries after them are re-parented; nothing is deleted)",
            f.code,
            lambda: doctor.move_after_results(a, plan),
            preferred=True,
            safe=True,
            key="move-after-results",
        )
    ]


def _fix_kept_range(a: Analysis, f: Finding) -> list[Fix]:
    line = f.span.line
    start = doctor.kept_range_start(a, line)
    if start is None:
        return []
    return [
        Fix(
            f"Keep from the assistant turn that holds the tool call ({_line_no(start)})",
            f.code,
            lambda: doctor.move_kept_range(a, line, start),
            preferred=True,
            safe=True,
            key="keep-from-call",
        )
    ]


def _fix_omitted_results(a: Analysis, f: Finding, title: str) -> list[Fix]:
    """Append context edits omitting the results orphaned by the entry of ``f``."""
    if f.severity != Severity.ERROR:
        return []  # another leaf: an appended edit would land on the resumed path
    results = doctor.orphaned_by(a, f.span.line)
    if not doctor.can_omit(a, results):
        return []
    where = ", ".join(_line_no(r) for r in results)
    return [
        Fix(
            f"{title} (append context edits omitting {where})",
            f.code,
            lambda: doctor.omit_results(a, results, taken_ids(a)),
            preferred=True,
            safe=True,
            key="omit-results",
        )
    ]


def _fix_edit(a: Analysis, f: Finding) -> list[Fix]:
    line = f.span.line
    out = _fix_omitted_results(a, f, "Omit the tool results of the edited turn too")
    narrowed = doctor.narrow_edit(a, line)
    if narrowed is not None:
        out.append(
            Fix(
                "Narrow the edit: keep the tool calls of the turn it edits",
                f.code,
                lambda: narrowed,
                preferred=not out,
                safe=not out,
                key="narrow-edit",
            )
        )
    return out


def _fix_unanswered(a: Analysis, f: Finding) -> list[Fix]:
    line = f.span.line
    if f.related:  # the result is in the file, on another branch
        return _fix_branch_result(a, f)
    calls = doctor.tool_calls(a, line)
    keep = frozenset(
        g.data["toolCallId"]
        for g in a.findings
        if g.code == f.code and g.span.line == line and g.related and g.data
    )
    if doctor.answer_calls(a, line, taken_ids(a), keep) is None:
        return []
    what = "call" if len(calls) == 1 else "unanswered calls of this turn"
    return [
        Fix(
            f'Answer the {what} with the result pi would send ("No result provided")',
            f.code,
            lambda: doctor.answer_calls(a, line, taken_ids(a), keep) or [],
            preferred=True,
            safe=True,
            key="answer-calls",
        )
    ]


def _fix_branch_result(a: Analysis, f: Finding) -> list[Fix]:
    """Bring the result of a PI421 call back from another branch (its line is related)."""
    result = f.related[0].span.line
    follower = doctor.result_follower(a, f.span.line, result)
    if follower is None:
        return []
    return [
        Fix(
            f"Re-parent {_line_no(follower)} to the toolResult on {_line_no(result)}, so pi "
            "sends the real result (nothing is deleted)",
            f.code,
            lambda: doctor.set_parent(a, follower, result),
            preferred=True,
            safe=True,
            key="reparent-to-result",
        )
    ]


_BUILDERS: dict[str, Callable[[Analysis, Finding], list[Fix]]] = {
    "cut_off": _fix_cut_off,
    "blank": _fix_blank,
    "migrate": _fix_migrate,
    "pending": _fix_pending,
    "missing_ids": _fix_missing_ids,
    "hook_role": _fix_hook_role,
    "first_kept_index": _fix_first_kept_index,
    "half_migrated": _fix_half_migrated,
    "dangling": _fix_dangling,
    "duplicate_id": _fix_duplicate_id,
    "cycle": _fix_cycle,
    "orphan_result": _fix_orphan_result,
    "unanswered": _fix_unanswered,
    "resume": _fix_resume,
}
"""The fix builders, by the name a code's entry in :data:`~pi_lsp.core.text.codes.CODES` gives."""
