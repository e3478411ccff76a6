"""The layout rules of DESIGN.md for trtlint/frontends/: imports run one way (no import circle), no module imports
another's private (underscore) names or reads them through the module, and no module grows past ~1,100 lines.

The imports are read with ``ast`` (every ``import`` statement, those inside functions included; nothing is
imported). An import of a package's submodule does not count as an import of the package's ``__init__``."""

from __future__ import annotations

import ast
from pathlib import Path

import trtlint

ROOT = Path(trtlint.__file__).resolve().parent
FRONTENDS = "trtlint.frontends"
MAX_LINES = 1100


def _modules() -> dict[str, Path]:
    """Dotted name -> path of every module under trtlint/."""
    out = {}
    for p in sorted(ROOT.rglob("*.py")):
        parts = list(p.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _resolve(name: str, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` in module ``name`` names."""
    if not node.level:
        return node.module or ""
    base = name.split(".") if _is_package(name) else name.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(name: str) -> list[tuple[str, str, int]]:
    """(module imported, name imported from it or "", line) of every import in module ``name``; a
    ``from P import m`` of a submodule ``m`` is an import of ``P.m``."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, "", node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mod = _resolve(name, node)
            for a in node.names:
                sub = f"{mod}.{a.name}"
                out.append((sub, "", node.lineno) if sub in MODULES else (mod, a.name, node.lineno))
    return out


def _frontend_graph() -> dict[str, set[str]]:
    names = [n for n in MODULES if n == FRONTENDS or n.startswith(FRONTENDS + ".")]
    return {n: {m for m, _what, _line in _imports(n) if m in names and m != n} for n in names}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_frontends_import_without_a_circle():
    graph = _frontend_graph()
    assert "trtlint.frontends.cpp.base" in graph and "trtlint.frontends.python.values" in graph
    assert "trtlint.frontends.cpp.base" in graph["trtlint.frontends.cpp.flow"]  # the graph sees relative imports
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _private(attr: str) -> bool:
    return attr.startswith("_") and not (attr.startswith("__") and attr.endswith("__"))


def test_no_frontend_module_uses_another_modules_private_names():
    bad = []
    for name in _frontend_graph():
        tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
        # names bound to trtlint modules in this module (``from . import flow``, ``import trtlint.x as y``)
        bound: dict[str, str] = {}
        for mod, what, line in _imports(name):
            if mod.startswith("trtlint") and what and _private(what):
                bad.append(f"{name}:{line} imports {mod}.{what}")
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                mod = _resolve(name, node)
                for a in node.names:
                    if f"{mod}.{a.name}" in MODULES:
                        bound[a.asname or a.name] = f"{mod}.{a.name}"
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("trtlint") and a.asname:
                        bound[a.asname] = a.name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound
                    and bound[node.value.id] != name and _private(node.attr)):
                bad.append(f"{name}:{node.lineno} reads {bound[node.value.id]}.{node.attr}")
    assert bad == []


def test_no_frontend_module_is_over_the_size_limit():
    sizes = {n: len(MODULES[n].read_text(encoding="utf-8").splitlines()) for n in _frontend_graph()}
    assert {n: s for n, s in sizes.items() if s > MAX_LINES} == {}


def test_the_frontend_packages_keep_their_entry_points():
    from trtlint.frontends import cpp, python

    for fe in (cpp, python):
        assert callable(fe.extract) and isinstance(fe.VERSION, str) and fe.KIND_NAMES
    assert callable(cpp.prepare) and callable(cpp.reached_headers) and callable(cpp.pch_dir_candidates)
    assert not hasattr(python, "prepare")  # the engine calls prepare only where a frontend has one
    assert (cpp.PRELUDE_DIR / "trt" / "NvInferRuntime.h").is_file()
