"""Every finding the core emits is declared in ``core/text/codes.py``, with a declared severity.

Two ways: in the source, every ``Finding(...)`` / ``Issue(...)`` built with a literal code
names a code of :data:`CODES`, and a literal severity is one declared for it; and on every
session file of the test data, the examples and the shared fixtures, every finding's
code and severity are declared.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.text.codes import CODES
from pi_lsp.core.text.findings import Severity

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT.parent / "shared" / "fixtures"
FILES = sorted(
    [
        *(ROOT / "tests" / "data").rglob("*.jsonl"),
        *(ROOT / "examples").glob("*.jsonl"),
        *(FIXTURES.glob("*.jsonl") if FIXTURES.is_dir() else []),
    ]
)


def _as_written(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` outside mutmut's copies of a function (``x_f__mutmut_3``).

    Under mutation testing the source holds each function once more per mutant, with codes
    such as ``"XXPI300XX"``; those are mutmut's, not the project's.
    """
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef) and "__mutmut_" in node.name:
            continue
        out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def _built_findings() -> list[tuple[str, int, str, str | None]]:
    """(module, line, code, severity name or None) of each literal Finding/Issue in core."""
    out = []
    for path in sorted((ROOT / "pi_lsp" / "core").rglob("*.py")):
        for node in _as_written(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id not in ("Finding", "Issue") or not node.args:
                continue
            code = node.args[0]
            if not (isinstance(code, ast.Constant) and isinstance(code.value, str)):
                continue
            severity = node.args[1] if len(node.args) > 1 else None
            name = (
                severity.attr
                if isinstance(severity, ast.Attribute)
                and isinstance(severity.value, ast.Name)
                and severity.value.id == "Severity"
                else None
            )
            out.append((path.name, node.lineno, code.value, name))
    return out


def test_every_code_built_in_the_source_is_declared() -> None:
    built = _built_findings()
    assert len({code for _, _, code, _ in built}) >= 30  # the scan finds the checks
    undeclared = [b for b in built if b[2] not in CODES]
    assert undeclared == []
    wrong = [b for b in built if b[3] is not None and Severity[b[3]] not in CODES[b[2]].severities]
    assert wrong == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_finding_emitted_is_declared(path: Path) -> None:
    a = analyze(path.read_bytes().decode("utf-8", "surrogateescape"), str(path))
    wrong = [
        (f.code, f.severity.name, f.span.line)
        for f in a.findings
        if f.code not in CODES or f.severity not in CODES[f.code].severities
    ]
    assert wrong == []
