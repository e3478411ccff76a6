"""Python frontend helper: the project's classes that declare a member named like a TensorRT Python API.

TRT610 matches most APIs of the deprecation pack (``rules/tensorrt_python.yaml``, ``match: attr``) by name:
``<recv>.max_workspace_size``. When the code says the receiver is one of the project's own classes (see
:mod:`.receivers`) and that class declares the name itself, the use is the project's member, not TensorRT's:
a settings dataclass with a ``max_workspace_size: int`` field, a wrapper with its own ``def build_engine(self)``.
This module finds those classes (:class:`PyClassDecl`) with CPython's ``ast`` (parse only; the tree is the one
the frontend parsed already), on every Python file whose text names a pack API at all.

A class declares ``name`` when its body defines ``def name`` or assigns ``name`` (``name: int = 0``,
``name = 0``), or one of its methods assigns ``self.name`` (``self`` being the method's first parameter).
Inherited members are not followed: a class that only inherits the name does not declare it.

Code names such a class through its package as often as through its module (``tensorrt_llm.Builder()`` for the
``Builder`` of ``tensorrt_llm/builder.py``): :func:`reexports` records, for a package's ``__init__.py``, the names it
binds at its top level by ``from <module> import <name>`` alone (:class:`PyReexport`), so the rule can follow
``pkg.Builder`` to the class. A name the package also binds any other way (a second import, an assignment, a
``def``, under an ``if`` or a ``try``) is left out, as are star imports: the rule then keeps judging the use by
its name.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import Callable, Optional

from trtlint.base.facts import PyClassDecl, PyReexport, Span
from .fast import FastSearch
from .names import api_names, module_name, relative_base


@lru_cache(maxsize=1)
def _gate() -> Optional[FastSearch]:
    attrs, _ = api_names()
    if not attrs:
        return None
    return FastSearch([r"\b(?:" + "|".join(sorted(attrs)) + r")\b"])


def _assigned_names(targets) -> list:
    out = []
    for t in targets:
        if isinstance(t, ast.Name):
            out.append(t)
        elif isinstance(t, (ast.Tuple, ast.List)):
            out.extend(_assigned_names(t.elts))
    return out


def _self_attrs(targets, me: str) -> list[str]:
    out = []
    for t in targets:
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me:
            out.append(t.attr)
        elif isinstance(t, (ast.Tuple, ast.List)):
            out.extend(_self_attrs(t.elts, me))
    return out


def _declared(cls: ast.ClassDef, wanted) -> set[str]:
    found: set[str] = set()
    for st in cls.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if st.name in wanted:
                found.add(st.name)
            args = st.args.posonlyargs + st.args.args
            static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in st.decorator_list)
            if not args or static:
                continue
            me = args[0].arg
            for node in ast.walk(st):
                if isinstance(node, ast.Assign):
                    targets = node.targets
                elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                    targets = [node.target]
                else:
                    continue
                found.update(a for a in _self_attrs(targets, me) if a in wanted)
        elif isinstance(st, ast.Assign):
            found.update(t.id for t in _assigned_names(st.targets) if t.id in wanted)
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.target.id in wanted:
            found.add(st.target.id)
    return found


def extract(text: str, rel: str, tree_of: Optional[Callable[[], ast.AST]] = None) -> dict:
    """Facts for FileFacts: ``py_classes`` (only when there are any). ``tree_of``: returns the text's ``ast``
    tree (parsed once by the caller) or raises what ``ast.parse`` raised."""
    gate = _gate()
    if gate is None or gate.search(text) is None:
        return {}
    try:
        tree = tree_of() if tree_of is not None else ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}  # the libcst pass reports the syntax error
    wanted = api_names()[0]
    modname = module_name(rel)
    lines = text.split("\n")
    out: list[PyClassDecl] = []

    def visit(body, prefix: str) -> None:
        for st in body:
            if isinstance(st, ast.ClassDef):
                qual = f"{prefix}.{st.name}" if prefix else st.name
                found = _declared(st, wanted)
                if found:
                    line = st.lineno  # the name after ``class`` (decorators come before it)
                    at = lines[line - 1].find(st.name, st.col_offset + 5) if line <= len(lines) else -1
                    col = at + 1 if at >= 0 else st.col_offset + 1
                    out.append(PyClassDecl(qual, Span(rel, line, col, line, col + len(st.name)), tuple(sorted(found))))
                visit(st.body, qual)
            elif isinstance(st, (ast.If, ast.Try)):  # classes defined under a version test or a try
                visit(st.body, prefix)
                visit(getattr(st, "orelse", []) or [], prefix)
                for h in getattr(st, "handlers", []) or []:
                    visit(h.body, prefix)

    visit(tree.body, modname)
    return {"py_classes": tuple(out)} if out else {}


def _bound_names(st) -> list[str]:
    """The names a module-level statement binds, in the bodies of an ``if``, ``try``, ``with``, ``for`` or ``while``
    too (a function's or class's own name, not what its body binds)."""
    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [st.name]
    if isinstance(st, (ast.Import, ast.ImportFrom)):
        return [a.asname or a.name.split(".", 1)[0] for a in st.names if a.name != "*"]
    out: list[str] = []
    for child in ast.iter_child_nodes(st):
        if isinstance(child, ast.stmt):
            out.extend(_bound_names(child))
        elif isinstance(child, ast.ExceptHandler):
            out.extend([child.name] if child.name else [])
            for inner in child.body:
                out.extend(_bound_names(inner))
        else:
            out.extend(n.id for n in ast.walk(child)
                       if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)))
    return out


def reexports(text: str, rel: str, tree_of: Optional[Callable[[], ast.AST]] = None) -> dict:
    """Facts for FileFacts: ``py_reexports`` of a package's ``__init__.py`` (only when there are any)."""
    if rel.rsplit("/", 1)[-1] != "__init__.py" or "import" not in text:
        return {}
    try:
        tree = tree_of() if tree_of is not None else ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    package = module_name(rel)
    lines = text.split("\n")
    counts: dict[str, int] = {}
    found: list[tuple[str, str, Span]] = []
    for st in tree.body:
        for n in _bound_names(st):
            counts[n] = counts.get(n, 0) + 1
        if not isinstance(st, ast.ImportFrom):
            continue
        mod = st.module or ""
        if st.level:  # relative to the package itself (``from .builder import``: a module of this package)
            base = relative_base(rel, st.level)
            mod = ".".join([*base, mod] if mod else base)
        if not mod:
            continue
        for a in st.names:
            if a.name == "*":
                continue
            line = a.lineno  # (the alias: ``Builder`` or ``C as D``; character columns, as the libcst pass's)
            src = lines[line - 1] if line <= len(lines) else ""
            raw = src.encode("utf-8")
            col = len(raw[: a.col_offset].decode("utf-8", "replace")) + 1
            end = len(raw[: a.end_col_offset].decode("utf-8", "replace")) + 1 if a.end_lineno == line else col
            found.append((a.asname or a.name, f"{mod}.{a.name}", Span(rel, line, col, line, end)))
    out = tuple(PyReexport(package, name, target, span) for name, target, span in found if counts.get(name) == 1)
    return {"py_reexports": out} if out else {}
