"""The class the code itself gives an attribute's receiver (``TrtApiUse.receiver``, for TRT610).

The deprecation pack matches most TensorRT Python APIs by name: ``<recv>.max_workspace_size``. That name is
TensorRT's only when ``recv`` may be a TensorRT object; when the code says ``recv`` is an instance of a class,
the rule looks that class up among the project's own classes (:mod:`.members`) and drops the use when the class
declares the name itself. What counts as the code saying so:

* ``self`` (the first parameter of a method, not a ``@staticmethod``; also inside a closure of the method): the
  method's class;
* a parameter annotated with a class: ``s: Settings``, ``Optional[Settings]``, ``Settings | None``, ``"Settings"``;
* a local whose every binding in the function is an annotation or a constructor-looking call:
  ``s: Settings = load()``, ``s = Settings(...)`` (``= None`` aside); a ``for``, ``with ... as``, tuple
  unpacking or any other binding makes it untyped;
* ``self.f``: a field of the method's class whose every declaration is typed the same way: a class-body
  annotation (``f: Settings``, dataclass style), ``self.f: Settings = ...``, ``self.f = Settings(...)``, or
  ``self.f = p`` for a parameter ``p: Settings`` of that method.

* a constructor-looking call itself: ``Settings().max_workspace_size``, ``pkg.Builder().build_engine(...)``;
* argparse's parsed options: a local bound to ``parser.parse_args()``, or to a call of a function of the module
  whose every return is such (``args = parse_args()``): ``argparse.Namespace``, never a TensorRT object.

A name no enclosing function binds (no parameter, assignment, ``global``, ...) is the module's: its top-level
bindings type it the same way (a script's ``args = parser.parse_args()`` at module level, read there or in a
function); a function that declares it ``global`` makes it untyped.

Nothing else is followed (no return types, containers, calls of other functions): such a receiver stays a
possible TensorRT object and its use has no class. A name is qualified by the import that binds it (relative
imports against the file's module path), or, bound by none, as a class of this module (``<module>.<Name>``);
a TensorRT type (``trt.IBuilderConfig``) or an alias of one qualifies as such and never names a project class
that declares the name.

It runs on CPython's ``ast`` tree of the whole file (the libcst pass sees methods without markers blanked out,
``__init__`` among them) and keys each receiver by where the attribute's name ends, as the libcst pass spans it.
"""

from __future__ import annotations

import ast
import re
from typing import Optional

from .names import module_name, relative_base

_NONE = object()  # a binding that says nothing about the type (``x = None``)
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LINES = re.compile(r"\r\n|\r|\n")


def _imports(tree: ast.AST, rel: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".", 1)[0]] = a.name if a.asname else a.name.split(".", 1)[0]
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                mod = ".".join([*relative_base(rel, node.level), mod] if mod else relative_base(rel, node.level))
            for a in node.names:
                if a.name != "*":
                    out[a.asname or a.name] = f"{mod}.{a.name}" if mod else a.name
    for k, v in out.items():
        if v == "tensorrt_bindings" or v.startswith("tensorrt_bindings."):
            out[k] = "tensorrt" + v[len("tensorrt_bindings"):]
    return out


def _type_node(ann):
    """The class an annotation names (Optional/``| None``/string forms unwrapped), or None."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(ann, (ast.Name, ast.Attribute)):
        return ann
    if isinstance(ann, ast.Subscript):
        base = ann.value.attr if isinstance(ann.value, ast.Attribute) else getattr(ann.value, "id", None)
        return _type_node(ann.slice) if base == "Optional" else None
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        sides = [s for s in (ann.left, ann.right) if not (isinstance(s, ast.Constant) and s.value is None)]
        return _type_node(sides[0]) if len(sides) == 1 else None
    return None


def _first_param(fn) -> Optional[str]:
    if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list):
        return None
    ps = fn.args.posonlyargs + fn.args.args
    return ps[0].arg if ps else None


def _param(fn, name: str):
    a = fn.args
    for p in (*a.posonlyargs, *a.args, *a.kwonlyargs):
        if p.arg == name:
            return p
    return None


def _own_nodes(body):
    """The nodes of a function body, nested functions, classes and lambdas aside."""
    todo = list(body)
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, (*_FUNCS, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(n))


# the command-line options argparse parsed: ``args = parser.parse_args()``, or ``args = parse_args()`` for a function
# of the module that returns them; never a TensorRT object (``args.max_workspace_size`` is the project's option)
NAMESPACE = "argparse.Namespace"


class _Types:
    def __init__(self, modname: str, imports: dict[str, str], funcs: Optional[dict] = None, tree=None) -> None:
        self.modname = modname
        self.imports = imports
        self.funcs = funcs or {}  # the module's own top-level functions, by name
        self.tree = tree  # the module (its top-level bindings type the names no function binds)
        self.memo: dict = {}

    def parsed_args(self, value, depth: int = 0) -> bool:
        """``value`` is argparse's parsed options: ``<parser>.parse_args(...)``, or a call of a module function whose
        every return is (directly or through a local bound only to one)."""
        if not isinstance(value, ast.Call):
            return False
        f = value.func
        if isinstance(f, ast.Attribute) and f.attr == "parse_args":
            return True
        if not isinstance(f, ast.Name) or depth > 2 or f.id not in self.funcs:
            return False
        fn = self.funcs[f.id]
        rets = [n.value for n in _own_nodes(fn.body) if isinstance(n, ast.Return) and n.value is not None]
        if not rets:
            return False
        for r in rets:
            if isinstance(r, ast.Name):
                found, other = self.bindings(fn, lambda t, r=r: isinstance(t, ast.Name) and t.id == r.id)
                if other or not found or not all(a is None and self.parsed_args(v, depth + 1) for a, v in found):
                    return False
            elif not self.parsed_args(r, depth + 1):
                return False
        return True

    def qual(self, node) -> Optional[str]:
        """A class expression qualified through the imports, or as a class of this module when unbound."""
        if isinstance(node, ast.Name):
            return self.imports.get(node.id) or f"{self.modname}.{node.id}"
        if isinstance(node, ast.Attribute):
            b = node.value
            parts = [node.attr]
            while isinstance(b, ast.Attribute):
                parts.append(b.attr)
                b = b.value
            if isinstance(b, ast.Name) and b.id in self.imports:
                return ".".join([self.imports[b.id], *reversed(parts)])
        return None

    def of_binding(self, ann, value, fn):
        if ann is not None:
            t = _type_node(ann)
            return self.qual(t) if t is not None else None
        if isinstance(value, ast.Constant) and value.value is None:
            return _NONE
        if self.parsed_args(value):
            return NAMESPACE
        if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)):
            return self.qual(value.func)  # a constructor only if the rule finds a class of that name
        if isinstance(value, ast.Name) and fn is not None:
            p = _param(fn, value.id)
            if p is not None and p.annotation is not None:
                return self.of_binding(p.annotation, None, None)
        return None

    @staticmethod
    def agree(types) -> Optional[str]:
        known = {t for t in types if t is not _NONE}
        if len(known) != 1 or None in known:
            return None
        return known.pop()

    def bindings(self, fn, is_target) -> tuple[list, bool]:
        """(annotation, value) per binding in ``fn``'s own body that ``is_target`` accepts, and whether it is
        also bound some other way."""
        found: list = []
        other = False

        def mentions(t) -> bool:
            if is_target(t):
                return True
            if isinstance(t, (ast.Tuple, ast.List)):
                return any(mentions(e) for e in t.elts)
            return isinstance(t, ast.Starred) and mentions(t.value)

        for n in _own_nodes(fn.body):
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    if is_target(t):
                        found.append((None, n.value))
                    elif mentions(t):
                        other = True
            elif isinstance(n, ast.AnnAssign) and is_target(n.target):
                found.append((n.annotation, None))
            elif isinstance(n, (ast.For, ast.AsyncFor)) and mentions(n.target):
                other = True
            elif isinstance(n, ast.withitem) and n.optional_vars is not None and mentions(n.optional_vars):
                other = True
            elif isinstance(n, ast.NamedExpr) and is_target(n.target):
                other = True
            elif isinstance(n, ast.comprehension) and mentions(n.target):
                other = True
        return found, other

    def binds(self, fn, name: str) -> bool:
        """Whether ``fn`` binds ``name`` itself (a parameter, an assignment, any other binding, ``global``): a
        name it does not bind is the enclosing function's, or the module's."""
        a = fn.args
        if _param(fn, name) is not None or any(p is not None and p.arg == name for p in (a.vararg, a.kwarg)):
            return True
        found, other = self.bindings(fn, lambda t: isinstance(t, ast.Name) and t.id == name)
        return bool(found) or other or any(
            (isinstance(n, ast.ExceptHandler) and n.name == name)
            or (isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names)
            or (isinstance(n, (ast.Import, ast.ImportFrom)) and any((x.asname or x.name) == name for x in n.names))
            for n in _own_nodes(fn.body)
        )

    def module_local(self, name: str) -> Optional[str]:
        """The class the module's own top-level bindings of ``name`` agree on (a script's ``args =
        parser.parse_args()``), as :meth:`local` for a function; None when a function rebinds it (``global``)."""
        key = ("module", name)
        if key not in self.memo:
            t = None
            if self.tree is not None:
                found, other = self.bindings(self.tree, lambda t: isinstance(t, ast.Name) and t.id == name)
                rebound = any(isinstance(n, ast.Global) and name in n.names for n in ast.walk(self.tree)) or any(
                    isinstance(n, ast.ExceptHandler) and n.name == name for n in _own_nodes(self.tree.body))
                if found and not other and not rebound:
                    t = self.agree([self.of_binding(a, v, None) for a, v in found])
            self.memo[key] = t
        return self.memo[key]

    def local(self, fn, name: str) -> Optional[str]:
        key = (id(fn), name)
        if key not in self.memo:
            found, other = self.bindings(fn, lambda t: isinstance(t, ast.Name) and t.id == name)
            types = [self.of_binding(a, v, None) for a, v in found]
            p = _param(fn, name)
            if p is not None:
                types.append(self.of_binding(p.annotation, None, None) if p.annotation is not None else None)
            for n in _own_nodes(fn.body):  # except ... as name, global/nonlocal
                if isinstance(n, ast.ExceptHandler) and n.name == name:
                    other = True
                elif isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
                    other = True
            self.memo[key] = None if other or not types else self.agree(types)
        return self.memo[key]

    def field(self, cls: ast.ClassDef, name: str) -> Optional[str]:
        key = (id(cls), name)
        if key not in self.memo:
            types: list = []
            other = False
            for st in cls.body:
                if isinstance(st, _FUNCS):
                    me = _first_param(st)
                    if me is None:
                        continue
                    found, o = self.bindings(st, lambda t, me=me: isinstance(t, ast.Attribute) and t.attr == name
                                             and isinstance(t.value, ast.Name) and t.value.id == me)
                    other = other or o
                    types += [self.of_binding(a, v, st) for a, v in found]
                elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.target.id == name:
                    types.append(self.of_binding(st.annotation, None, None))
                elif isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in st.targets):
                    types.append(self.of_binding(None, st.value, None))
            self.memo[key] = None if other or not types else self.agree(types)
        return self.memo[key]

    def of(self, recv, scopes: list) -> Optional[str]:
        fns = [i for i, s in enumerate(scopes) if isinstance(s, _FUNCS)]
        method = cls = None
        for i in reversed(fns):  # the innermost method (``self`` also reaches its closures)
            if i > 0 and isinstance(scopes[i - 1], ast.ClassDef):
                method, cls = scopes[i], scopes[i - 1]
                break
        me = _first_param(method) if method is not None else None
        if isinstance(recv, ast.Name):
            if me is not None and recv.id == me:
                names = [s.name for s in scopes[: scopes.index(cls) + 1] if isinstance(s, ast.ClassDef)]
                return ".".join([self.modname, *names])
            for i in reversed(fns):  # the innermost function binding the name; none binds it: the module's
                if self.binds(scopes[i], recv.id):
                    return self.local(scopes[i], recv.id)
            return self.module_local(recv.id)
        if isinstance(recv, ast.Attribute) and isinstance(recv.value, ast.Name) and me is not None and recv.value.id == me:
            return self.field(cls, recv.attr)
        if isinstance(recv, ast.Call) and isinstance(recv.func, (ast.Name, ast.Attribute)):
            return self.of_binding(None, recv, None)  # ``Builder().build_engine``: as ``b = Builder()`` would be
        return None


def receivers(tree: ast.AST, text: str, rel: str, names) -> dict[tuple[int, int], str]:
    """``(line, end column)`` of each ``<recv>.<name>`` (``name`` in ``names``; where the name ends, 1-based and
    exclusive, in characters, as the libcst pass spans it) -> the qualified class the code gives ``recv``; uses
    whose receiver the code does not type are left out."""
    modname = module_name(rel)
    funcs = {n.name: n for n in getattr(tree, "body", ()) if isinstance(n, _FUNCS)}
    types = _Types(modname, _imports(tree, rel), funcs, tree if isinstance(tree, ast.Module) else None)
    lines = _LINES.split(text)
    out: dict[tuple[int, int], str] = {}

    def visit(node, scopes: list) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Attribute) and child.attr in names and child.end_lineno is not None:
                t = types.of(child.value, scopes)
                if t is not None:
                    line = lines[child.end_lineno - 1] if child.end_lineno <= len(lines) else ""
                    col = len(line.encode("utf-8")[: child.end_col_offset].decode("utf-8", "replace"))
                    out[(child.end_lineno, col + 1)] = t
            if isinstance(child, (*_FUNCS, ast.ClassDef)):
                visit(child, [*scopes, child])
            else:
                visit(child, scopes)

    visit(tree, [])
    return out
