"""The invariants of ARCHITECTURE.md, checked on the source (imports, calls) and at run time.

Imports are read from every module's syntax tree (function-level imports included), so a
rule cannot be dodged by importing late.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.entries.model import Analysis
from pi_lsp.core.views import hovers, outline, refs
from pi_lsp.lsp import features

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pi_lsp"
DATA = ROOT / "tests" / "data"


def _modules(layer: str) -> dict[str, Path]:
    """Every module under ``pi_lsp/<layer>`` (sub-packages included, a package's
    ``__init__`` under the package's name), by dotted name."""
    return {
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
        for p in sorted((PACKAGE / layer).rglob("*.py"))
        if p.parent != PACKAGE / layer or p.stem != "__init__"
    }


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _type_only(tree: ast.Module) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:`` (no import at run time)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return out


def _imports(module: str, path: Path, runtime: bool = False) -> Iterator[str]:
    """Every module ``module`` imports (resolved; ``from . import x`` yields ``pkg.x``);
    with ``runtime``, not those imported for type checking only."""
    package = module if path.stem == "__init__" else module.rsplit(".", 1)[0]
    tree = _tree(path)
    skip = _type_only(tree) if runtime else set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def _violations(layer: str, forbidden: re.Pattern[str]) -> list[str]:
    return [
        f"{module} imports {name}"
        for module, path in _modules(layer).items()
        for name in _imports(module, path)
        if forbidden.match(name)
    ]


PACKAGES = [
    "pi_lsp.core.text",
    "pi_lsp.core.schemas",
    "pi_lsp.core.entries",
    "pi_lsp.core.pi",
    "pi_lsp.core.checks",
    "pi_lsp.core.views",
    "pi_lsp.core.edits",
    "pi_lsp.core.workspace",
    "pi_lsp.lsp",
    "pi_lsp.cli",
]
"""The packages in the order data flows: each imports only itself and those before it."""


def _package(name: str) -> str | None:
    """The package of :data:`PACKAGES` that holds module ``name`` (None: outside them)."""
    return next((p for p in PACKAGES if name == p or name.startswith(p + ".")), None)


def test_packages_import_only_those_before_them() -> None:
    """Every import, type-only and in-function ones included, goes down :data:`PACKAGES`."""
    modules = {m: p for layer in ("core", "lsp", "cli") for m, p in _modules(layer).items()}
    assert all(_package(m) is not None for m in modules), "a module outside PACKAGES"
    upward = [
        f"{module} imports {name}"
        for module, path in modules.items()
        for name in _imports(module, path)
        if (target := _package(name)) is not None
        and PACKAGES.index(target) > PACKAGES.index(_package(module) or "")
    ]
    assert upward == []


def test_core_imports_no_protocol_and_no_outer_layer() -> None:
    forbidden = re.compile(r"(pygls|lsprotocol|cattrs|pi_lsp\.lsp|pi_lsp\.cli)(\.|$)")
    assert _violations("core", forbidden) == []


def test_the_server_does_not_import_the_command_line() -> None:
    assert _violations("lsp", re.compile(r"pi_lsp\.cli(\.|$)")) == []


def test_the_command_line_imports_of_the_server_only_wire_and_features() -> None:
    allowed = {"pi_lsp.lsp", "pi_lsp.lsp.wire", "pi_lsp.lsp.features"}
    found = [
        v
        for v in _violations("cli", re.compile(r"pi_lsp\.lsp(\.|$)"))
        if v.split(" imports ")[1] not in allowed
        and not v.split(" imports ")[1].startswith(("pi_lsp.lsp.wire.", "pi_lsp.lsp.features."))
    ]
    assert found == []


def test_checking_a_file_loads_no_lsprotocol() -> None:
    code = (
        "import sys\n"
        "from pi_lsp.cli import main\n"
        f"main(['check', {str(ROOT / 'examples' / 'broken-session.jsonl')!r}])\n"
        "assert not [m for m in sys.modules if m.split('.')[0] in ('lsprotocol', 'pygls')]\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("layer", ["core", "lsp"])
def test_no_import_cycle(layer: str) -> None:
    modules = _modules(layer)
    graph = {
        # a module's own package is imported before it whatever it imports: no edge
        m: {n for n in _imports(m, p, runtime=True) if n in modules and not (m + ".").startswith(n + ".")}
        for m, p in modules.items()
    }
    done: set[str] = set()

    def visit(m: str, path: list[str]) -> list[str] | None:
        if m in path:
            return [*path[path.index(m) :], m]
        if m in done:
            return None
        for n in sorted(graph[m]):
            if (cycle := visit(n, [*path, m])) is not None:
                return cycle
        done.add(m)
        return None

    cycles = [c for m in sorted(graph) if (c := visit(m, [])) is not None]
    assert cycles == []


EDGE = {"pi_lsp.lsp.proto", "pi_lsp.lsp.wire"}


def test_only_the_edge_converts_positions() -> None:
    found = []
    for module, path in _modules("lsp").items():
        if module in EDGE:
            continue
        for node in ast.walk(_tree(path)):
            func = node.func if isinstance(node, ast.Call) else None
            if (
                isinstance(func, ast.Attribute)
                and func.attr in ("Position", "Range")
                and isinstance(func.value, ast.Name)
                and func.value.id == "types"
            ):
                found.append(f"{module}:{func.lineno} types.{func.attr}(...)")
            if isinstance(node, ast.Name | ast.alias):
                name = node.id if isinstance(node, ast.Name) else node.name
                if name in ("to_units", "from_units", "clamp", "units"):
                    found.append(f"{module}:{getattr(node, 'lineno', '?')} {name}")
    assert found == []


def test_every_feature_module_is_registered_in_one_place() -> None:
    registered = {m.__name__ for m in features.FEATURES}
    with_register = {
        module
        for module, path in _modules("lsp").items()
        if any(isinstance(n, ast.FunctionDef) and n.name == "register" for n in _tree(path).body)
    }
    assert with_register == registered
    wiring = {"install", "setswitchinterval"}
    calls = [
        f"{module}:{node.lineno}"
        for module, path in _modules("lsp").items()
        if module != "pi_lsp.lsp.features"
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in wiring
    ]
    assert calls == []


_MUTATORS = {
    "append",
    "extend",
    "insert",
    "update",
    "add",
    "pop",
    "popitem",
    "clear",
    "remove",
    "discard",
    "setdefault",
}


def test_server_modules_keep_no_module_level_state() -> None:
    found = []
    for module, path in _modules("lsp").items():
        tree = _tree(path)
        names = {
            t.id
            for node in tree.body
            if isinstance(node, ast.Assign | ast.AnnAssign)
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name)
        }
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Global):
                    found.append(f"{module}:{node.lineno} global {node.names}")
                target = None
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    if node.func.attr in _MUTATORS:
                        target = node.func.value
                elif isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
                    targets = (
                        node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
                    )
                    target = next((t.value for t in targets if isinstance(t, ast.Subscript)), None)
                if isinstance(target, ast.Name) and target.id in names:
                    found.append(f"{module}:{node.lineno} mutates {target.id}")
    assert found == []


def _fingerprint(a: Analysis) -> tuple[object, ...]:
    """An analysis's fields, by identity and by value."""
    fields = ("text", "infos", "fmt", "version", "header_line", "tree", "findings", "path")
    values = tuple(getattr(a, f) for f in fields)
    return (
        tuple(id(v) for v in values),
        repr(values[2:5]),
        [repr(f) for f in a.findings],
        [(i.kind, repr(i.value)) for i in a.infos],
        repr(a.tree),
    )


@pytest.mark.parametrize(
    "name", ["broken/many-problems.jsonl", "fixed/pi420-result-for-call-on-other-branch.jsonl"]
)
def test_an_analysis_never_changes_after_it_is_returned(name: str) -> None:
    text = (DATA / name).read_text(encoding="utf-8")
    a = analyze(text, "/t/s.jsonl")
    before = _fingerprint(a)
    outline.outline(a, 2000)
    refs.index(a)
    for line, body in enumerate(a.lines):
        for column in range(0, len(body), 7):
            hovers.hover_at(a, line, column)
            refs.subject_at(a, line, column)
    assert _fingerprint(a) == before


def test_only_the_scheduler_starts_threads() -> None:
    """Every background thread of the package is a worker of ``lsp/scheduler.py``."""
    found = [
        f"{module}:{node.lineno}"
        for layer in ("core", "lsp", "cli")
        for module, path in _modules(layer).items()
        if module != "pi_lsp.lsp.scheduler"
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.Attribute) and node.attr in ("Thread", "start_new_thread")
    ]
    assert found == []
