"""Is a migrated text exactly the original migrated to v3? (Judged on the result.)"""

from __future__ import annotations

import difflib
import json
import re

from pi_lsp.core.checks.analysis import analyze

_ALLOWED_CHANGE = re.compile(
    r'"version"\s*:\s*[^,}]*|"firstKeptEntryIndex"\s*:\s*[^,}]*|"hookMessage"'
)
# from v1, pi gives every entry a fresh id and parent, replacing any it had
_ALLOWED_CHANGE_V1 = re.compile(
    _ALLOWED_CHANGE.pattern + r'|"(?:id|parentId)"\s*:\s*(?:"[^"]*"|[^,}]*)'
)


def migration_problems(old: str, new: str) -> list[str]:
    """Why ``new`` is not exactly ``old`` migrated to v3 (empty when it is).

    Only for pi-format sources (a second-dialect file is converted, not migrated)."""
    problems = []
    before = analyze(old)
    from_v1 = _js_less_than_2(before.header.get("version"))
    allowed = _ALLOWED_CHANGE_V1 if from_v1 else _ALLOWED_CHANGE
    old_lines, new_lines = old.split("\n"), new.split("\n")
    if len(old_lines) != len(new_lines):
        return [f"line count changed: {len(old_lines)} -> {len(new_lines)}"]
    after = analyze(new)
    if any(f.code == "PI103" for f in after.findings):
        problems.append("still PI103 after migrating")
    ids = []
    for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=True)):
        if a == b:
            continue
        if i == 0:  # pi trims the file: JavaScript whitespace may precede the header
            a, b = a.lstrip(_JS_SPACE), b.lstrip(_JS_SPACE)
        try:
            # (pi trims the whole file: JavaScript whitespace may end the last line too)
            old_obj, new_obj = (
                json.loads(a.strip(_JS_SPACE + "\r")),
                json.loads(b.strip(_JS_SPACE + "\r")),
            )
        except RecursionError:  # nested too deep for Python: judge the bytes only
            bad = _changed_bytes(a, b, allowed)
            if bad is not None:
                problems.append(f"line {i}: bytes changed outside a migrated member: {bad!r}")
            continue
        except ValueError:
            problems.append(f"line {i}: an unparsable line was changed")
            continue
        if not isinstance(old_obj, dict) or not isinstance(new_obj, dict):
            problems.append(f"line {i}: a line that is not an object was changed")
            continue
        added = set(new_obj) - set(old_obj)
        removed = set(old_obj) - set(new_obj)
        if not added <= {"id", "parentId", "firstKeptEntryId", "version"}:
            problems.append(f"line {i}: unexpected members added: {sorted(added)}")
        if not removed <= {"firstKeptEntryIndex"}:
            problems.append(f"line {i}: members removed: {sorted(removed)}")
        for key in set(old_obj) & set(new_obj):
            x, y = old_obj[key], new_obj[key]
            hook = isinstance(x, dict) and x.get("role") == "hookMessage"
            if key == "message" and hook and old_obj.get("type") == "message":
                x = {**x, "role": "custom"}
            exempt = ("version", "id", "parentId") if from_v1 else ("version",)
            if key not in exempt and x != y:
                problems.append(f"line {i}: value of {key!r} changed")
        if "id" in added:
            ids.append(new_obj["id"])
        bad = _changed_bytes(a, b, allowed)
        if bad is not None:
            problems.append(f"line {i}: bytes changed outside a migrated member: {bad!r}")
    if len(ids) != len(set(ids)):
        problems.append("migration assigned duplicate ids")
    return problems


def _js_less_than_2(version: object) -> bool:
    """pi migrates from v1 when ``(header.version ?? 1) < 2`` in JavaScript."""
    if version is None:
        return True
    if isinstance(version, bool):
        return int(version) < 2
    if isinstance(version, int | float):
        return version < 2
    if isinstance(version, str):
        try:
            return float(version.strip() or "0") < 2
        except ValueError:
            return False
    if isinstance(version, list) and len(version) <= 1:
        return (
            _js_less_than_2(version[0] if version else "")
            if not version or not isinstance(version[0], list)
            else False
        )
    return False


_JS_SPACE = " \t\x0b\x0c\ufeff\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]')
_KEYS = ("version", "firstKeptEntryIndex", "firstKeptEntryId")
_KEYS_V1 = (*_KEYS, "id", "parentId")


def _value_end(line: str, start: int) -> int:
    """End of the JSON value starting at ``start`` (strings and nesting of any depth)."""
    if start >= len(line):
        return start
    if line[start] == '"':
        m = _TOKEN.match(line, start)
        return m.end() if m else len(line)
    if line[start] in "{[":
        depth = 0
        for m in _TOKEN.finditer(line, start):
            tok = m.group()
            if tok in "{[":
                depth += 1
            elif tok in "}]":
                depth -= 1
                if depth == 0:
                    return m.end()
        return len(line)
    m = re.compile(r"[^,}\]]*").match(line, start)
    return m.end() if m else start


def _normalize(line: str, allowed: re.Pattern[str]) -> str:
    """``line`` without the top-level members a migration may add, drop or change."""
    keys = _KEYS_V1 if allowed is _ALLOWED_CHANGE_V1 else _KEYS
    line = line.replace('"hookMessage"', '"custom"')
    out = []
    pos = 0
    depth = 0
    i = 0
    while True:
        m = _TOKEN.search(line, i)
        if m is None:
            break
        tok = m.group()
        i = m.end()
        if tok in "{[":
            depth += 1
        elif tok in "}]":
            depth -= 1
        elif depth == 1:
            colon = re.compile(r"\s*:\s*").match(line, i)
            if colon and colon.group().strip() == ":" and tok[1:-1] in keys:
                end = _value_end(line, colon.end())
                comma = re.compile(r"\s*,").match(line, end)
                out.append(line[pos : m.start()])
                pos = i = comma.end() if comma else end
    out.append(line[pos:])
    return re.sub(r",\s*}", "}", "".join(out))


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix (binary search: slices compare at C speed)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _changed_bytes(a: str, b: str, allowed: re.Pattern[str]) -> str | None:
    """Original text that ``b`` replaced or deleted outside the members a migration may
    change (None when ``b`` only inserts into ``a`` there)."""
    p = _common_prefix(a, b)
    s = _common_prefix(a[p:][::-1], b[p:][::-1])
    mid_a, mid_b = a[p : len(a) - s], b[p : len(b) - s]
    if not mid_a:
        return None  # a pure insertion
    if len(mid_a) + len(mid_b) > 4000:  # far-apart edits: compare without the members
        na, nb = _normalize(a, allowed), _normalize(b, allowed)
        if na == nb:
            return None
        k = _common_prefix(na, nb)
        return na[k : k + 40]
    matcher = difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            window = a[max(0, p + i1 - 30) : p + i2 + 30]
            if not allowed.search(window):
                return mid_a[i1:i2]
    return None
