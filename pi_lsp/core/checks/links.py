"""Link analysis: build the entry tree and check every reference between entries.

Covers ids and parents (PI400-PI403), compaction/label/branch-summary references
(PI410-PI413), context edits (PI414-PI415), tool calls against tool results
(PI420-PI422) and the pairing of calls and results in the context pi sends
(PI423-PI425, :mod:`pi_lsp.core.checks.pairing`). Everything is linear
in the number of entries: ancestor questions use the tree's Euler-tour numbering.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..entries.lines import Kind
from ..entries.tree import Tree
from ..entries.tree import extend as extend_tree
from ..pi import context, context_edits
from ..pi.sent import entry_calls, synthetic_calls
from ..text.findings import Finding, Related, Severity
from . import book, pairing

if TYPE_CHECKING:
    from ..entries.model import Analysis


@dataclass(slots=True)
class LinkState:
    """What the append path (:func:`extend`) needs of the link analysis it extends.

    ``dangling``: every ``parentId``, ``firstKeptEntryId``, ``targetId`` and ``fromId``
    that names no entry (an appended entry taking one of these ids would change an earlier
    finding); the tool calls and results by call id (:func:`tool_index`); the compaction
    lines; ``settled``: every finding but PI421 and pairing's, which an append keeps (PI420
    of a result whose call id gains a call site is made again); pairing's state.
    """

    dangling: set[str]
    calls: dict[str, list[tuple[int, int]]]
    results: dict[str, list[int]]
    compactions: list[int]
    settled: list[Finding]
    pairing: pairing.State | None


def check(a: Analysis) -> tuple[list[Finding], LinkState | None]:
    """Every link finding of ``a`` (its tree built): ids, references, tool calls, pairing;
    and, for a v3 session whose entries all have ``id`` and ``parentId``, what an append
    needs to extend them."""
    out: list[Finding] = []
    if a.fmt == "book":
        _check_ids(a, out)
        _check_parents(a, out, a.tree.entries, set())
        return out + book.check(a), None
    dangling: set[str] = set()
    comps = context_edits.compactions(a)
    if a.version == 1:
        _check_v1(a, out)
    else:
        _check_unlinked(a, out)
        _check_ids(a, out)
        _check_parents(a, out, a.tree.entries, dangling)
        _check_references(a, out, a.tree.entries, comps, dangling)
    calls: dict[str, list[tuple[int, int]]] = {}
    results: dict[str, list[int]] = {}
    _index_tools(a, a.tree.entries, calls, results)
    _check_tools(a, out, calls, results)
    settled = list(out)
    paired, state = pairing.check(a, {(f.span.line, f.code) for f in out})  # PI421: no matter
    _check_unanswered(a, out, calls, results, state)
    if a.version != 3 or any(f.code == "PI300" for f in settled):
        return out + paired, None
    return out + paired, LinkState(dangling, calls, results, comps, settled, state)


def grow(a: Analysis, previous: Analysis, start: int) -> tuple[Tree, list[int]] | None:
    """The tree of ``a``, which holds ``previous``'s lines before ``start`` and new lines
    from there on, extended from ``previous``'s, and the lines of its new entries; None
    when the append path does not apply (then the links are analysed in full).

    It applies when ``previous`` left a :class:`LinkState` and every line parsed from
    ``start`` on (but ``previous``'s line ``start`` itself, unchanged) is an entry with an
    ``id`` and a ``parentId`` that :func:`pi_lsp.core.entries.tree.extend` can add: then no earlier
    entry changes, in the tree or in pi's index of entries.
    """
    state = previous.link_state
    if not isinstance(state, LinkState):  # left only by a v3 pi session, and the append keeps the header
        return None
    first = start
    if previous.infos[start].parsed:
        # ``start`` is never the first line (the header comes before it), so the same text
        # parses to the same value whether it is the file's last line or not
        if a.lines.raw(start) != previous.lines.raw(start):
            return None
        first = start + 1
    lines: list[int] = []
    for line in range(first, len(a.infos)):
        info = a.infos[line]
        if not info.parsed:
            continue
        obj = info.obj
        if info.kind is not Kind.ENTRY or "id" not in obj or "parentId" not in obj:
            return None
        if state.pairing is not None and context.entry_key(obj) in state.pairing.by_id:
            return None
        lines.append(line)
    tree = extend_tree(previous.tree, a.infos, lines, state.dangling)
    return None if tree is None else (tree, lines)


def extend(a: Analysis, previous: Analysis, lines: list[int]) -> tuple[list[Finding], LinkState]:
    """:func:`check` of ``a``, whose tree :func:`grow` extended by the entries on ``lines``.

    Findings of earlier entries are kept (``settled``), the new entries are checked, PI420
    is made again for the results whose call id gained a call site, PI421 (the active
    path's last turn) and pairing's findings are made again.
    """
    old = previous.link_state
    assert isinstance(old, LinkState)
    out: list[Finding] = []
    dangling = set(old.dangling)
    comps = [*old.compactions, *(ln for ln in lines if a.infos[ln].type == "compaction")]
    _check_parents(a, out, lines, dangling)
    _check_references(a, out, lines, comps, dangling)
    calls, results = dict(old.calls), dict(old.results)
    grown, fresh = _index_tools(a, lines, calls, results)
    redo = sorted({(r, ref) for ref in grown for r in old.results.get(ref, ())})
    again = {r for r, _ in redo}
    settled = [f for f in old.settled if f.code != "PI420" or f.span.line not in again]
    for line, ref in redo:
        _check_result(a, out, calls, ref, line)
    for ref, line in fresh:
        if _check_result(a, out, calls, ref, line):
            _check_duplicate_of(a, out, calls, ref, line, results[ref])
    settled += out
    out = list(settled)
    reported = {(f.span.line, f.code) for f in out}
    paired: list[Finding] = []
    state = None
    if old.pairing is not None:
        paired, state = pairing.extend(a, reported, old.pairing, lines)
    _check_unanswered(a, out, calls, results, state)
    return out + paired, LinkState(dangling, calls, results, comps, settled, state)


def _entries_before(a: Analysis, line: int) -> str:
    """ "the 3 entries before it": how many entries precede ``line`` in the file."""
    n = bisect.bisect_left(a.tree.entries, line)
    return f"the {n} entr{'y' if n == 1 else 'ies'} before it"


def _check_unlinked(a: Analysis, out: list[Finding]) -> None:
    """PI300: entries without an ``id`` or ``parentId`` key (pi does not migrate v2+ files).

    pi reads a missing parentId as null (the entry is a root); an entry without id can be
    no one's parent, and as the last entry it leaves pi without a leaf id, so pi writes
    the next entry without a parentId.
    """
    tree = a.tree
    last = tree.entries[-1] if tree.entries else None
    infos, id_of, parent = a.infos, tree.id_of, tree.parent
    for n, line in enumerate(tree.entries):
        if line in id_of and parent.get(line) is not None:  # a string id, a parent it names
            continue
        obj = infos[line].value  # an entry's value is an object (here and below)
        if "id" in obj and "parentId" in obj:  # a root (null parentId), an id that is no string
            continue
        missing = [k for k in ("id", "parentId") if k not in obj]
        says: list[str] = []
        severity: Severity  # set below: the entry misses one of the two keys, or both
        if "parentId" in missing:
            if n == 0:
                severity = Severity.INFORMATION
                says.append(
                    "pi reads a missing parentId as null, so this first entry is the root, as "
                    "it would be anyway: nothing is lost"
                )
            else:
                active = line in tree.active_set
                severity = Severity.ERROR if active else Severity.WARNING
                says.append(
                    "pi reads a missing parentId as null, so this entry becomes a root: "
                    f"{_entries_before(a, line)} leave the context "
                    + ("pi resumes with" if active else "of its branch")
                )
        if "id" in missing:
            severity = Severity.ERROR
            if line != last:
                says.append(
                    "with no id, no entry can name it as its parent, so pi never reaches it "
                    "from the leaf: it is left out of the model's context"
                )
            elif "parentId" in missing:
                says.append(
                    "with no id it also leaves pi no leaf id, so pi writes the next entry "
                    "without a parentId either"
                )
            else:
                says.append(
                    "pi resumes on it as the last entry, but with no id it leaves pi no leaf "
                    "id, so pi writes the next entry without a parentId: after the next turn "
                    "everything before it drops out of the context"
                )
        names = " and ".join(f"'{k}'" for k in missing)
        out.append(
            Finding(
                "PI300",
                severity,
                a.span_of(line, ("type",)),
                f"entry has no {names}; " + "; ".join(says),
                data={"missing": missing},
            )
        )


def _first_lines(a: Analysis) -> dict[str, int]:
    first: dict[str, int] = {}
    for line, ident in a.tree.id_of.items():
        first.setdefault(ident, line)
    return first


def _check_ids(a: Analysis, out: list[Finding]) -> None:
    """PI401: an id that an earlier entry already has."""
    tree = a.tree
    if len(tree.ids) == len(tree.id_of):  # as many ids as entries with one: none repeats
        return
    first = _first_lines(a)
    for line, ident in tree.id_of.items():
        if first[ident] != line:
            out.append(
                Finding(
                    "PI401",
                    Severity.ERROR,
                    a.span_of(line, ("id",)),
                    f"duplicate id '{ident}' (first on line {first[ident] + 1}); pi's index keeps "
                    f"only the last one (line {tree.ids[ident] + 1}), so links to this id reach "
                    "one entry and the other is unreachable",
                    (Related(a.span_of(first[ident], ("id",)), "first entry with this id"),),
                    data={"id": ident},
                )
            )


def _check_parents(a: Analysis, out: list[Finding], lines: list[int], dangling: set[str]) -> None:
    """PI400, PI402 and PI403 on the entries on ``lines``; each ``parentId`` that names no
    entry goes into ``dangling``."""
    tree = a.tree
    parent, cycle = tree.parent, tree.cycle
    for line in lines:
        up = parent.get(line)
        if up is not None and up < line and line not in cycle:
            continue  # the common case: its parentId names an earlier entry, off any cycle
        obj = a.infos[line].value
        ref = obj.get("parentId")
        if not isinstance(ref, str):
            continue
        target = tree.ids.get(ref)
        if target is None:
            dangling.add(ref)
            out.append(_dangling_parent(a, line, ref))
        elif line in tree.cycle:
            nxt = tree.parent[line]
            assert nxt is not None  # an entry in a cycle has its parent in the cycle
            related = (Related(a.line_span(nxt), "next entry in the cycle"),)
            what = "its own id" if target == line else "an entry that leads back to it"
            out.append(
                Finding(
                    "PI402",
                    Severity.ERROR,
                    a.span_of(line, ("parentId",)),
                    f"parentId cycle: '{ref}' is {what}; pi follows parents forever when it "
                    "resumes on this branch (it hangs)",
                    related,
                    data={"parentId": ref},
                )
            )
        elif target > line:
            out.append(
                Finding(
                    "PI403",
                    Severity.WARNING,
                    a.span_of(line, ("parentId",)),
                    f"parentId '{ref}' names an entry on a later line ({target + 1}); pi only "
                    "appends, so a parent always comes first: this file was edited or reordered",
                    (Related(a.span_of(target, ("id",)), "the parent entry"),),
                )
            )


def _dangling_parent(a: Analysis, line: int, ref: str) -> Finding:
    """PI400: pi makes the entry a root; that loses something only when entries precede it."""
    header = " (it is the session header's id, and the header is no entry)"
    named = header if ref == a.header.get("id") else ""
    if a.tree.entries and a.tree.entries[0] == line:
        return Finding(
            "PI400",
            Severity.INFORMATION,
            a.span_of(line, ("parentId",)),
            f"parentId '{ref}' names no entry in this file{named}; pi makes this entry a root, "
            "and as the first entry it is the root anyway: nothing is lost",
            data={"parentId": ref},
        )
    return Finding(
        "PI400",
        Severity.ERROR,
        a.span_of(line, ("parentId",)),
        f"parentId '{ref}' names no entry in this file{named}; pi stops the path here, so "
        f"{_entries_before(a, line)} drop out of the model's context",
        data={"parentId": ref},
    )


REFERRING = frozenset({"compaction", "label", "branch_summary", "context_edit"})
"""The entry types with a reference to an entry of their own (``firstKeptEntryId``,
``targetId``, ``fromId``), which :func:`_check_references` checks."""


def _check_references(
    a: Analysis, out: list[Finding], lines: list[int], comps: list[int], dangling: set[str]
) -> None:
    """PI410-PI415 on the entries on ``lines`` (``comps``: every compaction line); each
    reference that names no entry goes into ``dangling``."""
    tree = a.tree
    forked = isinstance(a.header.get("parentSession"), str)
    for line in lines:
        etype = a.infos[line].type
        if etype not in REFERRING:
            continue
        obj = a.infos[line].value
        if etype == "compaction":
            _check_first_kept(a, out, line, obj, dangling)
        elif etype == "label":
            ref = obj.get("targetId")
            if isinstance(ref, str) and ref not in tree.ids:
                dangling.add(ref)
                out.append(
                    Finding(
                        "PI411",
                        Severity.WARNING,
                        a.span_of(line, ("targetId",)),
                        f"label targetId '{ref}' names no entry; pi keeps the label but it "
                        "shows nowhere",
                    )
                )
        elif etype == "branch_summary":
            ref = obj.get("fromId")
            if isinstance(ref, str) and ref != "root" and ref not in tree.ids:
                dangling.add(ref)
                out.append(_dangling_from_id(a, line, ref, forked))
        elif etype == "context_edit":
            _check_context_edit(a, out, line, comps, dangling)


def _dangling_from_id(a: Analysis, line: int, ref: str, forked: bool) -> Finding:
    """PI412; information in a fork, where pi's createBranchedSession leaves it behind."""
    span = a.span_of(line, ("fromId",))
    if forked:
        return Finding(
            "PI412",
            Severity.INFORMATION,
            span,
            f"branch_summary fromId '{ref}' names no entry in this file: this session was forked "
            "(parentSession), and the abandoned branch stayed in the original; pi does not "
            "read fromId to build the context, so nothing is lost",
        )
    return Finding(
        "PI412",
        Severity.WARNING,
        span,
        f"branch_summary fromId '{ref}' names no entry (and is not \"root\"); the summary no "
        "longer says which branch it abandoned",
    )


_NO_EFFECT = {
    "off-path": "its target is not on this edit's path (pi applies an edit only to the "
    "entries of the branch that holds it), so pi ignores it",
    "no-message": "its target adds no message to the context (pi edits only entries the model "
    "sees), so pi ignores it",
    "not-editable": "pi replaces the content of user, assistant, tool-result and custom "
    "messages only; this target keeps its content (only replacement: null would omit it)",
}


def _check_context_edit(
    a: Analysis, out: list[Finding], line: int, comps: list[int], dangling: set[str]
) -> None:
    found = context_edits.effect(a, line, comps)
    # an edit of a target the newest compaction already summarised does nothing, harmlessly:
    # pi's own appendContextEdit writes such edits (the hover says so; no diagnostic)
    if found is None or found.action != "none" or found.reason == "summarised":
        return
    ref = found.target_id
    if found.reason == "missing":
        dangling.add(ref)
        out.append(
            Finding(
                "PI414",
                Severity.WARNING,
                a.span_of(line, ("targetId",)),
                f"context_edit targetId '{ref}' names no entry; pi ignores the edit",
                data={"targetId": ref},
            )
        )
        return
    assert found.target is not None
    related = (Related(a.span_of(found.target, ("id",)), "the entry it edits"),)
    key = ("replacement",) if found.reason == "not-editable" else ("targetId",)
    # pi's appendContextEdit refuses every one of these cases: no file pi wrote has them
    out.append(
        Finding(
            "PI415",
            Severity.WARNING,
            a.span_of(line, key),
            f"context_edit of '{ref}' (line {found.target + 1}) has no effect: "
            + _NO_EFFECT[found.reason],
            related,
            data={"targetId": ref, "reason": found.reason},
        )
    )


def _check_first_kept(
    a: Analysis, out: list[Finding], line: int, obj: dict[str, Any], dangling: set[str]
) -> None:
    ref = obj.get("firstKeptEntryId")
    if not isinstance(ref, str):
        return
    target = a.tree.ids.get(ref)
    if target is None:
        dangling.add(ref)
        out.append(
            Finding(
                "PI410",
                Severity.WARNING,
                a.span_of(line, ("firstKeptEntryId",)),
                f"compaction firstKeptEntryId '{ref}' names no entry; pi keeps none of the "
                "entries before the compaction, only its summary",
            )
        )
    elif not a.tree.is_ancestor(target, line):
        # pi's own SessionManager writes such compactions: a summary that keeps nothing
        out.append(
            Finding(
                "PI410",
                Severity.INFORMATION,
                a.span_of(line, ("firstKeptEntryId",)),
                f"compaction firstKeptEntryId '{ref}' is on another branch, not on this "
                "compaction's path; pi keeps none of the entries before the compaction, only "
                "its summary",
                (Related(a.span_of(target, ("id",)), "the entry it names"),),
            )
        )


def _check_v1(a: Analysis, out: list[Finding]) -> None:
    """v1 compactions point by index into pi's parsed entries (header = 0)."""
    parsed = [i for i, info in enumerate(a.infos) if info.parsed]
    for line in a.tree.entries:
        obj = a.infos[line].obj
        if obj.get("type") != "compaction":
            continue
        index = obj.get("firstKeptEntryIndex")
        if isinstance(index, bool) or not isinstance(index, int):
            continue
        span = a.span_of(line, ("firstKeptEntryIndex",))
        if index <= 0 or index >= len(parsed):
            where = "the session header" if index == 0 else "outside the file"
            out.append(
                Finding(
                    "PI413",
                    Severity.ERROR,
                    span,
                    f"firstKeptEntryIndex {index} points at {where} ({len(parsed)} entries with "
                    "the header); on migration pi drops it and keeps nothing before the compaction",
                )
            )
            continue
        target = parsed[index]
        if a.infos[target].kind is not Kind.ENTRY or target > line:
            what = (
                "a line that is not an entry" if target < line else "an entry after the compaction"
            )
            out.append(
                Finding(
                    "PI413",
                    Severity.ERROR,
                    span,
                    f"firstKeptEntryIndex {index} points at {what} (line {target + 1}); pi keeps "
                    "nothing before the compaction",
                    (Related(a.line_span(target), "the line it names"),),
                )
            )


def _index_tools(
    a: Analysis,
    lines: list[int],
    calls: dict[str, list[tuple[int, int]]],
    results: dict[str, list[int]],
) -> tuple[set[str], list[tuple[str, int]]]:
    """Add the entries on ``lines`` to ``calls`` (tool calls by id → ``[(line, block index)]``)
    and ``results`` (tool results by call id → ``[line]``); the call ids and the results
    added. A list found there is copied before it grows (once): a :class:`LinkState`
    these dicts were copied from keeps its own."""
    grown: set[str] = set()
    fresh: list[tuple[str, int]] = []
    answered: set[str] = set()
    infos = a.infos
    for line in lines:
        info = infos[line]
        # a tool result answers a string toolCallId; call_ids reads an assistant turn's calls
        role = info.role
        if role == "assistant":
            for block, ident in info.calls:
                if ident not in grown:
                    calls[ident] = list(calls.get(ident, ()))
                    grown.add(ident)
                calls[ident].append((line, block))
        elif role == "toolResult":
            ref = info.tool_call_id
            if isinstance(ref, str):
                if ref not in answered:
                    results[ref] = list(results.get(ref, ()))
                    answered.add(ref)
                results[ref].append(line)
                fresh.append((ref, line))
    return grown, fresh


def _check_tools(
    a: Analysis,
    out: list[Finding],
    calls: dict[str, list[tuple[int, int]]],
    results: dict[str, list[int]],
) -> None:
    """PI420 and PI422 on every tool result."""
    tree = a.tree
    for ref, lines in results.items():
        if len(lines) == 1 and _answered(tree, calls.get(ref, ()), lines[0]):
            continue  # the common case: one result, its call above it (nothing to report)
        answered = [line for line in lines if _check_result(a, out, calls, ref, line)]
        _check_duplicate_results(a, out, ref, answered)


def _check_result(
    a: Analysis, out: list[Finding], calls: dict[str, list[tuple[int, int]]], ref: str, line: int
) -> bool:
    """PI420 when no call ``ref`` is on the path of the result on ``line``; True when one is."""
    sites = calls.get(ref, [])
    if _answered(a.tree, sites, line):
        return True
    elsewhere = tuple(
        Related(
            a.span_of(c, ("message", "content", block, "id")),
            "a toolCall with this id on another branch",
        )
        for c, block in sites[:3]
    )
    out.append(
        Finding(
            "PI420",
            Severity.ERROR,
            a.span_of(line, ("message", "toolCallId")),
            f"toolResult answers toolCallId '{ref}', but no toolCall with that id is on "
            "its path; providers reject the context pi sends on this branch",
            elsewhere,
            data={"toolCallId": ref},
        )
    )
    return False


def _answered(tree: Tree, sites: Sequence[tuple[int, int]], line: int) -> bool:
    """Whether one of the call ``sites`` is on the path of the result on ``line``."""
    return any(c != line and tree.is_ancestor(c, line) for c, _ in sites)


def _check_duplicate_results(a: Analysis, out: list[Finding], ref: str, lines: list[int]) -> None:
    """PI422 on each answered result ``ref`` (``lines``) below another one."""
    tree = a.tree
    ordered = sorted((tree.tin[line], line) for line in lines if tree.numbered(line))
    stack: list[int] = []
    for _, line in ordered:
        while stack and not tree.is_ancestor(stack[-1], line):
            stack.pop()
        if stack:
            out.append(_duplicate_result(a, ref, line, stack[-1]))
        stack.append(line)


def _check_duplicate_of(
    a: Analysis,
    out: list[Finding],
    calls: dict[str, list[tuple[int, int]]],
    ref: str,
    line: int,
    lines: list[int],
) -> None:
    """PI422 on the answered result on ``line`` when another answered result ``ref``
    (``lines``) is above it: the nearest one, as :func:`_check_duplicate_results` finds."""
    tree = a.tree
    if not tree.numbered(line):
        return
    above = [
        r
        for r in lines
        if r != line
        and tree.numbered(r)
        and tree.is_ancestor(r, line)
        and _answered(tree, calls[ref], r)  # ``line`` is answered: ``ref`` has calls
    ]
    if above:
        out.append(_duplicate_result(a, ref, line, max(above, key=tree.depth.__getitem__)))


def _duplicate_result(a: Analysis, ref: str, line: int, earlier: int) -> Finding:
    """PI422 on the result on ``line``, answering ``ref`` again after ``earlier``."""
    return Finding(
        "PI422",
        Severity.WARNING,
        a.span_of(line, ("message", "toolCallId")),
        f"a second toolResult for toolCallId '{ref}' on the same path (the first is on "
        f"line {earlier + 1}); pi sends both and providers may reject the context",
        (Related(a.span_of(earlier, ("message", "toolCallId")), "the first toolResult"),),
    )


def _check_unanswered(
    a: Analysis,
    out: list[Finding],
    calls: dict[str, list[tuple[int, int]]],
    results: dict[str, list[int]],
    paired: pairing.State | None,
) -> None:
    """PI421 on the calls of the active path that no result answers after them: those of
    the last turn, and any that pi-ai answers with "No result provided" in the request
    for the resumed leaf (``paired``'s) while their result is on another branch."""
    tree = a.tree
    active = tree.active_set
    last_turn = _last_conversational(a)
    synthetic = synthetic_calls(pairing.resumed_request(paired)) if paired is not None else set()
    turns = {turn for turn, _ in synthetic}
    for line in tree.active:
        if (line < last_turn and line not in turns) or _abandoned(a.infos[line].obj):
            continue  # answered, or pi does not send the calls
        for block, ref in entry_calls(a.infos[line].obj):
            if line < last_turn and (line, ref) not in synthetic:
                continue
            sites = calls.get(ref, ())
            below = [r for r in results.get(ref, ()) if _answers_site(tree, sites, line, r)]
            if any(r in active for r in below):
                continue
            away = [r for r in below if r not in active]
            if line < last_turn and not away:
                continue
            out.append(_unanswered(a, line, block, ref, away[0] if away else None))


def _answers_site(tree: Tree, sites: Sequence[tuple[int, int]], line: int, result: int) -> bool:
    """True when the call on ``line`` is the nearest of the call ``sites`` of one id above
    the result on ``result`` (a call id used again below it takes the results after it)."""
    if result == line or not tree.is_ancestor(line, result):
        return False
    return not any(
        c != line and tree.is_ancestor(line, c) and tree.is_ancestor(c, result) for c, _ in sites
    )


def _unanswered(a: Analysis, line: int, block: int, ref: str, away: int | None) -> Finding:
    """PI421 on the call ``ref`` (content ``block`` of ``line``); ``away``: the line of its
    result on another branch (None: no result in the file)."""
    span = a.span_of(line, ("message", "content", block, "id"))
    if away is None:
        return Finding(
            "PI421",
            Severity.WARNING,
            span,
            f"toolCall '{ref}' on the active path has no toolResult after it: the session "
            "ends while the tool was running (pi was stopped); on resume pi sends the "
            "model a synthetic 'No result provided' result instead",
            data={"toolCallId": ref},
        )
    return Finding(
        "PI421",
        Severity.WARNING,
        span,
        f"toolCall '{ref}' on the active path has no toolResult after it: its result (line "
        f"{away + 1}) is on another branch, so pi-ai sends the model a synthetic 'No result "
        "provided' error result instead",
        (Related(a.span_of(away, ("message", "toolCallId")), "the toolResult, on another branch"),),
        data={"toolCallId": ref},
    )


def _last_conversational(a: Analysis) -> int:
    """The line of the last user/assistant turn on the active path (-1 if none).

    A toolCall before a later turn was interrupted, and pi fills in a synthetic result;
    only calls in the last turn are left waiting.
    """
    for line in reversed(a.tree.active):
        message = a.infos[line].obj.get("message")
        if isinstance(message, dict) and message.get("role") in ("user", "assistant"):
            return line
    return -1


def _abandoned(obj: dict[str, Any]) -> bool:
    """Aborted or failed turns: pi drops their tool calls when it builds the next request."""
    message = obj.get("message")
    return isinstance(message, dict) and message.get("stopReason") in ("aborted", "error")
