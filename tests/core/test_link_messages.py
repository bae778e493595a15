"""Messages about missing and dangling links say what pi 1.6 does, at the severity it deserves.

pi reads a missing ``parentId`` as null and an unknown one as the end of the path: the
entry becomes a root. That loses nothing for the first entry and loses everything before
it otherwise. The last tests check each claim against pi 1.6's own ``SessionManager``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.text.findings import Finding, Severity
from tests.core.pi16 import find_pi16, module_url, run
from tests.core.pi_sessions import SID, assistant, header, js, user

E, W, N = Severity.ERROR, Severity.WARNING, Severity.INFORMATION


def drop(line: str, key: str) -> str:
    obj = json.loads(line)
    del obj[key]
    return js(obj)


def with_(line: str, **fields: Any) -> str:
    return js({**json.loads(line), **fields})


def doc(*lines: str) -> str:
    return "\n".join([header(), *lines]) + "\n"


def one(a: Analysis, code: str) -> Finding:
    (f,) = [f for f in a.findings if f.code == code]
    return f


U1 = user("1a2b3c4d", None)
A1 = assistant("2b3c4d5e", "1a2b3c4d")
U2 = user("3c4d5e6f", "2b3c4d5e", "and now?")
A2 = assistant("4d5e6f70", "3c4d5e6f", "done")


# ----------------------------------------------------------------------------- PI300


@pytest.mark.parametrize("rest", [(), (A1, U2)], ids=["sole", "first-of-three"])
def test_first_entry_without_parent_id_loses_nothing(rest: tuple[str, ...]) -> None:
    a = analyze(doc(drop(U1, "parentId"), *rest))
    f = one(a, "PI300")
    assert f.severity is N
    assert re.search(r"no 'parentId'; pi reads a missing parentId as null, so this first entry is the root.*nothing is lost", f.message)
    assert a.lines[1][f.span.start : f.span.end] == '"message"'


def test_later_entry_without_parent_id_on_the_active_path() -> None:
    a = analyze(doc(U1, A1, drop(U2, "parentId"), A2))
    f = one(a, "PI300")
    assert (f.span.line, f.severity) == (3, E)
    assert "becomes a root: the 2 entries before it leave the context pi resumes with" in f.message
    assert "nothing can link" not in f.message


def test_later_entry_without_parent_id_off_the_active_path() -> None:
    a = analyze(doc(U1, A1, drop(U2, "parentId"), user("5e6f7081", "2b3c4d5e", "other way")))
    f = one(a, "PI300")
    assert (f.span.line, f.severity) == (3, W)
    assert "the 2 entries before it leave the context of its branch" in f.message


def test_entry_without_id_in_the_middle_is_never_reached() -> None:
    a = analyze(doc(U1, A1, drop(U2, "id"), A2))
    f = one(a, "PI300")
    assert f.severity is E
    assert "no entry can name it as its parent, so pi never reaches it from the leaf" in f.message


def test_last_entry_without_id_makes_pi_write_an_orphan_next() -> None:
    a = analyze(doc(U1, A1, drop(U2, "id")))
    f = one(a, "PI300")
    assert f.severity is E
    assert re.search(r"pi resumes on it.*writes the next entry without a parentId", f.message)


def test_last_entry_without_id_or_parent_id() -> None:
    a = analyze(doc(U1, A1, drop(drop(U2, "id"), "parentId")))
    f = one(a, "PI300")
    assert f.severity is E
    assert re.search(
        r"no 'id' and 'parentId'; .*becomes a root: the 2 entries before it .*without a parentId either",
        f.message,
    )


# ----------------------------------------------------------------------------- PI400


def test_first_entry_naming_the_header_is_the_root_anyway() -> None:
    a = analyze(doc(with_(U1, parentId=SID), A1))
    f = one(a, "PI400")
    assert f.severity is N
    assert "session header's id" in f.message and "nothing is lost" in f.message
    assert a.lines[1][f.span.start : f.span.end] == f'"{SID}"'


def test_later_entry_naming_the_header_loses_what_precedes_it() -> None:
    a = analyze(doc(U1, A1, with_(U2, parentId=SID)))
    f = one(a, "PI400")
    assert f.severity is E
    assert re.search(r"session header's id.*pi stops the path here, so the 2 entries before it drop out", f.message)


def test_first_entry_with_any_unknown_parent_loses_nothing() -> None:
    f = one(analyze(doc(with_(U1, parentId="deadbeef"), A1)), "PI400")
    assert f.severity is N and "header" not in f.message


# ----------------------------------------------------------------------------- PI004

BOOKMARK = js({"type": "bookmark", "id": "6f708192", "parentId": None, "timestamp": "t"})


def test_unknown_last_entry_without_parent_leaves_an_empty_context() -> None:
    a = analyze(doc(U1, A1, BOOKMARK))
    f = one(a, "PI004")
    assert f.severity is W
    assert re.search(r"last entry with no parent it is where pi resumes.*empty context", f.message)
    assert "adds nothing" not in f.message


def test_unknown_last_entry_without_parent_id_key() -> None:
    a = analyze(doc(U1, A1, drop(BOOKMARK, "parentId")))
    assert "empty context" in one(a, "PI004").message
    assert one(a, "PI300").severity is E  # and the two entries before it leave the context


@pytest.mark.parametrize("where", ["linked", "not-last"])
def test_unknown_entry_elsewhere_only_adds_nothing(where: str) -> None:
    bookmark = with_(BOOKMARK, parentId="2b3c4d5e")
    lines = [U1, A1, bookmark] if where == "linked" else [U1, A1, BOOKMARK, U2]
    f = one(analyze(doc(*lines)), "PI004")
    assert "adds nothing of it to the model's context" in f.message


# ----------------------------------------------------------------------------- pi 1.6 itself


@pytest.fixture(scope="module")
def pi16_context(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """For each file: what pi 1.6 resumes with, and the parentId of the next entry it writes."""
    found = find_pi16()
    if found is None:
        pytest.skip("pi 1.6 (@earendil-works/pi-coding-agent) is not installed beside the repo")
    node, modules = found
    files = {
        "sole-no-parent": doc(drop(U1, "parentId")),
        "later-no-parent": doc(U1, A1, drop(U2, "parentId"), A2),
        "first-names-header": doc(with_(U1, parentId=SID), A1),
        "unknown-last-root": doc(U1, A1, BOOKMARK),
        "last-no-id": doc(U1, A1, drop(U2, "id")),
    }
    folder: Path = tmp_path_factory.mktemp("pi16")
    for name, text in files.items():
        (folder / f"{name}.jsonl").write_text(text, encoding="utf-8")
    manager = module_url(modules, "pi-coding-agent", "dist/core/session-manager.js")
    script = f"""
import {{ SessionManager }} from {manager};
import {{ readFileSync }} from "node:fs";
const out = {{}};
for (const name of {json.dumps(list(files))}) {{
  const path = {json.dumps(str(folder))} + "/" + name + ".jsonl";
  const sm = SessionManager.open(path);
  const messages = sm.buildSessionContext().messages.length;
  sm.appendMessage({{ role: "user", content: "next", timestamp: 1 }});
  const lines = readFileSync(path, "utf8").trim().split("\\n");
  const next = JSON.parse(lines[lines.length - 1]);
  out[name] = {{ messages, nextHasParentId: "parentId" in next }};
}}
console.log(JSON.stringify(out));
"""
    result: dict[str, Any] = json.loads(run(node, script))
    return result


def test_pi16_keeps_a_sole_entry_without_parent_id(pi16_context: dict[str, Any]) -> None:
    assert pi16_context["sole-no-parent"]["messages"] == 1


def test_pi16_drops_what_precedes_a_later_root(pi16_context: dict[str, Any]) -> None:
    assert pi16_context["later-no-parent"]["messages"] == 2  # of 4: the 2 before it are gone


def test_pi16_keeps_a_first_entry_naming_the_header(pi16_context: dict[str, Any]) -> None:
    assert pi16_context["first-names-header"]["messages"] == 2


def test_pi16_resumes_empty_on_an_unknown_root_leaf(pi16_context: dict[str, Any]) -> None:
    assert pi16_context["unknown-last-root"]["messages"] == 0


def test_pi16_writes_the_entry_after_an_id_less_leaf_without_parent_id(
    pi16_context: dict[str, Any],
) -> None:
    assert pi16_context["last-no-id"]["messages"] == 3  # it still resumes on that entry
    assert pi16_context["last-no-id"]["nextHasParentId"] is False
    assert pi16_context["later-no-parent"]["nextHasParentId"] is True
