"""The package layout the design states (docs: DESIGN "Layout"), checked over the source with ``ast``:

- no import circle among trtlint's modules (a package's ``__init__`` is a module: a name imported from a
  package is an edge to its ``__init__``, and the ``__init__``'s own imports count);
- no module under ``trtlint/checks/`` imports a shell (the CLI, the LSP server, the session, the engine, the
  confirm stage, the reporters) or the filter and adoption stages (suppress, adopt, baseline): rules read the
  index, and the stages above them import the rules, never the other way;
- no module imports another module's underscore-private name (``from x import _y``);
- no module over 900 lines;
- trtlint/'s top level holds the package's ``__init__`` and ``__main__`` only (TOP_LEVEL): every other module
  lives in a stage folder, and each folder is one layer of ``LAYERS``.

Every import counts wherever it is written, in a function too (a function-level import is still a
dependency, only a later one), and under ``if TYPE_CHECKING:`` too (a type a module names is a dependency of
its reader: a circle hidden there is still a circle).

- every module belongs to one layer of ``LAYERS`` (bottom first) and imports only from its own layer or
  the ones below it.

Known cases that other steps of issue 21 remove are listed in ``ALLOWED_*`` below, each with the step that
removes it; an entry that no longer occurs fails too, so the lists only shrink.
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "trtlint"
MAX_LINES = 900

SHELLS = ("cli", "editor", "coverage", "pipeline", "confirm", "report", "adoption")

# known exceptions, each with the reason it is allowed; empty since issue 21 removed every case it listed
# circles (as the sorted modules of one strongly connected component) -> why it is allowed
ALLOWED_CIRCLES: dict[tuple[str, ...], str] = {}
# (importing module, imported module, private name) -> why it is allowed
ALLOWED_PRIVATE: dict[tuple[str, str, str], str] = {}
# module -> why it may be longer
ALLOWED_LONG: dict[str, str] = {}


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        parts = list(p.relative_to(PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


MODULES = _modules()


def _is_package(mod: str) -> bool:
    return MODULES[mod].name == "__init__.py"


def _type_only(tree: ast.AST) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
            if name == "TYPE_CHECKING":
                out |= {id(n) for stmt in node.body for n in ast.walk(stmt) if isinstance(n, (ast.Import, ast.ImportFrom))}
    return out


def _imports(mod: str, runtime_only: bool = False) -> list[tuple[str, str, int]]:
    """``(imported module, name or "", line)`` for every trtlint import in ``mod``: ``name`` is the name taken
    from the module by ``from m import name`` when it is not itself a submodule. ``runtime_only``: leave out
    the imports under ``if TYPE_CHECKING:``."""
    path = MODULES[mod]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = mod if _is_package(mod) else mod.rpartition(".")[0]
    skip = _type_only(tree) if runtime_only else set()
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "trtlint" or a.name.startswith("trtlint."):
                    out.append((_nearest(a.name), "", node.lineno))
        elif isinstance(node, ast.ImportFrom):
            target = _from_target(package, node)
            if not (target == "trtlint" or target.startswith("trtlint.")):
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                if sub in MODULES:
                    out.append((sub, "", node.lineno))
                else:
                    out.append((_nearest(target), a.name, node.lineno))
    return out


def _from_target(package: str, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` in ``package`` names."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _nearest(name: str) -> str:
    while name not in MODULES and "." in name:
        name = name.rpartition(".")[0]
    return name


GRAPH = {m: {t for t, _, _ in _imports(m) if t != m} for m in MODULES}


def _circles() -> list[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(GRAPH[v]):
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
                out.append(tuple(sorted(comp)))

    for m in sorted(GRAPH):
        if m not in index:
            visit(m)
    return sorted(out)


def _is_shell(mod: str) -> bool:
    rest = mod.split(".")[1:]
    return bool(rest) and rest[0] in SHELLS


def test_no_import_circle():
    found = _circles()
    new = [c for c in found if c not in ALLOWED_CIRCLES]
    assert not new, "import circles:\n" + "\n".join(" <-> ".join(c) for c in new)
    gone = [c for c in ALLOWED_CIRCLES if c not in found]
    assert not gone, f"no longer circles, remove them from ALLOWED_CIRCLES: {gone}"


def test_checks_import_no_shell():
    bad = [
        f"{MODULES[m].relative_to(PKG.parent)}:{line}: imports {t}"
        for m in MODULES
        if m.startswith("trtlint.checks.") or m == "trtlint.checks"
        for t, _, line in _imports(m)
        if _is_shell(t)
    ]
    assert not bad, "upward imports from trtlint/checks/:\n" + "\n".join(bad)


def test_no_private_name_imported_from_another_module():
    found = {
        (m, t, name): f"{MODULES[m].relative_to(PKG.parent)}:{line}: from {t} import {name}"
        for m in MODULES
        for t, name, line in _imports(m)
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")) and t != m
    }
    new = [v for k, v in sorted(found.items()) if k not in ALLOWED_PRIVATE]
    assert not new, "private names imported from another module:\n" + "\n".join(new)
    gone = [k for k in ALLOWED_PRIVATE if k not in found]
    assert not gone, f"no longer imported, remove them from ALLOWED_PRIVATE: {gone}"


def _private(attr: str) -> bool:
    return attr.startswith("_") and not (attr.startswith("__") and attr.endswith("__"))


def test_no_private_name_read_through_another_module():
    """``from . import flow`` then ``flow._kids``: a private name read through the module is as private as one
    imported from it."""
    bad = []
    for mod, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = mod if _is_package(mod) else mod.rpartition(".")[0]
        bound: dict[str, str] = {}  # local name -> the trtlint module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _from_target(package, node)
                bound.update({a.asname or a.name: f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES})
            elif isinstance(node, ast.Import):
                bound.update({a.asname: a.name for a in node.names if a.asname and a.name in MODULES})
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound
                    and bound[node.value.id] != mod and _private(node.attr)):
                bad.append(f"{path.relative_to(PKG.parent)}:{node.lineno} reads {bound[node.value.id]}.{node.attr}")
    assert not bad, "private names read through another module:\n" + "\n".join(bad)


def test_the_frontend_packages_keep_their_entry_points():
    from trtlint.frontends import cpp, python

    for fe in (cpp, python):
        assert callable(fe.extract) and isinstance(fe.VERSION, str) and fe.KIND_NAMES
    assert callable(cpp.prepare) and callable(cpp.reached_headers) and callable(cpp.pch_dir_candidates)
    assert not hasattr(python, "prepare")  # the run calls prepare only where a frontend has one
    assert (cpp.PRELUDE_DIR / "trt" / "NvInferRuntime.h").is_file()


def test_no_module_too_long():
    lengths = {m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in MODULES.items()}
    new = [f"{MODULES[m].relative_to(PKG.parent)}: {n} lines" for m, n in sorted(lengths.items()) if n > MAX_LINES and m not in ALLOWED_LONG]
    assert not new, f"modules over {MAX_LINES} lines:\n" + "\n".join(new)
    gone = [m for m in ALLOWED_LONG if lengths.get(m, 0) <= MAX_LINES]
    assert not gone, f"no longer over {MAX_LINES} lines, remove them from ALLOWED_LONG: {gone}"


def test_the_walk_sees_imports_in_functions():
    # the CLI imports the run inside produce() only: the walk must see it, or circles hide behind them
    assert "trtlint.pipeline.run" in GRAPH["trtlint.cli.check"]


# modules that pass the environment on rather than read a setting from it: the confirm stage's subprocess gets
# the whole environment, and its repro script (text written for another machine) reads TRTLINT_PLUGIN_LIB there
ENVIRONMENT_PASSERS = {"trtlint.confirm.runner", "trtlint.confirm.scripts", "trtlint.base.envvars"}


def test_the_environment_is_read_only_through_envvars():
    """Every environment variable trtlint reads is declared (and documented) in trtlint/base/envvars.py."""
    readers = []
    for mod, path in MODULES.items():
        if mod in ENVIRONMENT_PASSERS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "environb") and getattr(node.value, "id", "") in ("os", "_os"):
                readers.append(f"{path.relative_to(PKG.parent)}:{node.lineno}")
    assert not readers, "read the environment through trtlint.base.envvars: " + ", ".join(readers)


def test_the_environment_variables_are_documented():
    from trtlint.base.envvars import VARIABLES, markdown_table

    doc = (PKG.parent / "docs" / "configuration.md").read_text(encoding="utf-8")
    section = doc.split("<!-- envvars:start -->\n", 1)[1].split("<!-- envvars:end -->", 1)[0]
    assert section == markdown_table(), "regenerate the table in docs/configuration.md from trtlint.base.envvars"
    # and each declared variable is read somewhere (a switch nobody reads is a stale doc)
    source = "\n".join(p.read_text(encoding="utf-8") for m, p in MODULES.items() if m != "trtlint.base.envvars")
    unread = [v.name for v in VARIABLES if f'"{v.name}"' not in source]
    assert not unread, f"declared but never read: {unread}"


# The declared layer order, bottom first: a module imports from its own layer or lower ones only. A new module
# must be placed here (test_every_module_has_a_layer), which is where its place in the design is decided.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("trtlint", "trtlint.base")),
    ("config and data", ("trtlint.config",)),
    ("frontends", ("trtlint.frontends",)),
    ("stores", ("trtlint.store",)),
    ("discovery and index", ("trtlint.index",)),
    ("rules", ("trtlint.checks",)),
    ("filters, adoption and reports", ("trtlint.adoption", "trtlint.report")),
    ("pipeline", ("trtlint.pipeline",)),
    ("shells", ("trtlint.editor", "trtlint.coverage", "trtlint.confirm", "trtlint.cli", "trtlint.__main__")),
]


def _layer(mod: str) -> int | None:
    """The layer of ``mod``: the most specific prefix listed (``trtlint`` itself names the package's
    ``__init__`` only)."""
    best, found = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for pre in prefixes:
            if (mod == pre or (pre != "trtlint" and mod.startswith(pre + "."))) and len(pre) > best:
                best, found = len(pre), i
    return found


def test_every_module_has_a_layer():
    missing = sorted(m for m in MODULES if _layer(m) is None)
    assert not missing, "modules in no layer of LAYERS (place them):\n" + "\n".join(missing)


def test_imports_run_down_the_declared_layers():
    bad = []
    for m in sorted(MODULES):
        lm = _layer(m)
        for t, _, line in _imports(m):
            lt = _layer(t)
            if lm is not None and lt is not None and lt > lm:
                bad.append(f"{MODULES[m].relative_to(PKG.parent)}:{line}: {LAYERS[lm][0]} imports {t} ({LAYERS[lt][0]})")
    assert not bad, "imports up the layer order:\n" + "\n".join(bad)


# trtlint/'s top level: the package itself and `python -m trtlint`; the console script is trtlint.cli:main
TOP_LEVEL = {"trtlint", "trtlint.__main__"}


def test_the_top_level_holds_only_the_entry_points():
    top = {m for m, p in MODULES.items() if p.parent == PKG and not _is_package(m) or m == "trtlint"}
    assert top == TOP_LEVEL, f"modules at trtlint/'s top level besides {sorted(TOP_LEVEL)}: {sorted(top - TOP_LEVEL)}"
    assert len(top) <= 5


def test_every_layer_is_a_folder():
    """A layer names whole stage folders (``trtlint.X`` with X a package or the entry module), never single modules
    inside one: a folder's place in the order is its modules' place."""
    bad = [pre for _, prefixes in LAYERS for pre in prefixes
           if pre != "trtlint" and not (pre.count(".") == 1 and pre in MODULES)]
    assert not bad, f"layer entries that are not a top-level folder or module: {bad}"
    folders = {p.parent.name for p in PKG.glob("*/__init__.py")}
    listed = {pre.split(".")[1] for _, prefixes in LAYERS for pre in prefixes if "." in pre}
    assert folders <= listed, f"folders in no layer: {sorted(folders - listed)}"


def test_the_console_script_is_importable():
    from trtlint.cli import main

    assert callable(main)
    text = (PKG.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert 'trtlint = "trtlint.cli:main"' in text
