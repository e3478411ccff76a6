"""Version guards of TensorRT Python API uses (``TrtApiUse.guarded``, for TRT610) that reach through a call.

The libcst pass (:mod:`.torchtrt`) marks a use guarded when it is lexically under a version test (an ``if`` or
conditional expression whose test names a version, ``hasattr`` or a ``*_supported`` check: :data:`VERSION_GUARD`)
or in a ``try`` that falls back to another API (a handler of :data:`FALLBACK`). Code often moves each side of such
a dispatch into a helper of its own::

    def forward(self, *inputs):
        if trt_version() < "10.0":
            return self._forward_pre_10(*inputs)   # the removed API is used in there
        return self._forward_10(*inputs)

A function of the module (a module-level function, or a method of one of its classes) whose every reference in
the module is so guarded (for a ``try``, only in its body or a handler that names ``AttributeError``,
``ImportError`` or ``ModuleNotFoundError``: a bare ``except:`` around a call is error handling, not a dispatch) -- lexically, or by being inside a function that is itself guarded this way -- is
version-guarded as a whole: the uses in its body are too (:func:`guarded_ranges`). A function with no reference
in the module (public API, called from elsewhere) is not; any reference the pass cannot tie to a guard counts
against it: a call or attribute read outside a guard, ``obj.name`` on any receiver other than the class's own
``self``/``cls``/class name, the name as a string (``getattr(self, "_forward_pre_10")``).

It runs on CPython's ``ast`` tree of the whole file, as :mod:`.receivers` does.
"""

from __future__ import annotations

import ast
import re
from typing import Optional

__all__ = ["FALLBACK", "VERSION_GUARD", "guarded_ranges"]

VERSION_GUARD = re.compile(r"version|hasattr|_supported|ENABLED_FEATURES", re.I)
# a try whose handlers catch these tries a newer API and falls back to an older one: both sides are version-guarded
FALLBACK = re.compile(r"AttributeError|Exception|ImportError")

# the lines as ast.get_source_segment splits them: on \r\n, \r and \n only, each with its end
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_API_MISSING = re.compile(r"\b(?:AttributeError|ImportError|ModuleNotFoundError)\b")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CLASS_BODY = (None, None, None)  # the funcs entry of a class body (compared by identity)


def _first_param(fn) -> Optional[str]:
    args = fn.args.posonlyargs + fn.args.args
    if not args or any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list):
        return None
    return args[0].arg


class _Refs(ast.NodeVisitor):
    """Every reference to the module's functions and methods: (key, lexically guarded, enclosing function key)."""

    def __init__(self, text: str, defs: dict) -> None:
        self.text = text
        self.lines = _LINE.findall(text)  # split once, as ast.get_source_segment splits (it re-splits on every call)
        self.defs = defs  # key -> def node; key: ("", name) a module function, (class qualname, name) a method
        self.methods: dict[str, list] = {}
        for k in defs:
            if k[0]:
                self.methods.setdefault(k[1], []).append(k)
        self.refs: list[tuple] = []
        self.guard = 0
        self.classes: list[str] = []  # qualnames of the enclosing classes
        self.funcs: list = []  # (key or None, first parameter, class qualname or None)

    def _segment(self, node) -> Optional[str]:
        """``ast.get_source_segment(self.text, node)`` over the lines split once (offsets are UTF-8 bytes)."""
        l1, l2 = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        c1, c2 = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
        if l1 is None or l2 is None or c1 is None or c2 is None:
            return None
        try:
            if l1 == l2:
                return self.lines[l1 - 1].encode()[c1:c2].decode()
            first = self.lines[l1 - 1].encode()[c1:].decode()
            last = self.lines[l2 - 1].encode()[:c2].decode()
        except (IndexError, UnicodeDecodeError):
            return None
        return "".join([first, *self.lines[l1:l2 - 1], last])

    def _guarded(self, test) -> bool:
        return bool(VERSION_GUARD.search(self._segment(test) or ""))

    def _ref(self, key) -> None:
        enclosing = next((f[0] for f in reversed(self.funcs) if f[0] is not None), None)
        self.refs.append((key, self.guard > 0, enclosing))

    def _under(self, guarded: bool, nodes) -> None:
        self.guard += guarded
        for n in nodes:
            self.visit(n)
        self.guard -= guarded

    def visit_If(self, node: ast.If) -> None:
        self.visit(node.test)
        g = self._guarded(node.test)
        self._under(g, node.body)
        self._under(g, node.orelse)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self.visit(node.test)
        g = self._guarded(node.test)
        self._under(g, [node.body, node.orelse])

    def visit_Try(self, node) -> None:
        # only a handler that names the missing API's error selects code by version: a bare ``except:`` or ``except
        # Exception`` around a helper's call is error handling (``try: load_plugins() except: pass``), and the helper
        # is judged (the lexical check of the libcst pass is broader: :data:`FALLBACK`)
        caught = [h.type is not None and bool(_API_MISSING.search(self._segment(h.type) or ""))
                  for h in node.handlers]
        self._under(any(caught), node.body)
        for h, c in zip(node.handlers, caught):
            self._under(c, h.body)
        self._under(False, node.orelse)
        self._under(False, node.finalbody)

    visit_TryStar = visit_Try

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for n in (*node.decorator_list, *node.bases, *node.keywords):
            self.visit(n)
        self.classes.append(".".join([*self.classes[-1:], node.name]))
        self.funcs.append(_CLASS_BODY)  # a class body is no function's
        for n in node.body:
            self.visit(n)
        self.funcs.pop()
        self.classes.pop()

    def _function(self, node) -> None:
        for n in (*node.decorator_list, node.args, *([node.returns] if node.returns else [])):
            self.visit(n)
        in_class = bool(self.funcs) and self.funcs[-1] is _CLASS_BODY
        if in_class:
            key = (self.classes[-1], node.name)
            me = _first_param(node)
            cls = self.classes[-1]
        elif not self.funcs:
            key, me, cls = ("", node.name), None, None
        else:  # a nested function: its own uses belong to the function around it; keep that one's self
            key, me, cls = None, self.funcs[-1][1], self.funcs[-1][2]
        self.funcs.append((key if key in self.defs else None, me, cls))
        for n in node.body:
            self.visit(n)
        self.funcs.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_Name(self, node: ast.Name) -> None:
        if ("", node.id) in self.defs:
            self._ref(("", node.id))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        keys = self.methods.get(node.attr)
        if keys:
            own = None
            v = node.value
            cls = self.funcs[-1][2] if self.funcs else None
            if isinstance(v, ast.Name) and cls is not None and (
                v.id == self.funcs[-1][1] or v.id == cls.rsplit(".", 1)[-1]
            ):
                own = (cls, node.attr)
            if own in self.defs:
                self._ref(own)
            else:  # some other receiver: it may be any class's method of that name
                for k in keys:
                    self.refs.append((k, False, None))
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            for k in self.methods.get(node.value, ()):
                self.refs.append((k, False, None))
            if ("", node.value) in self.defs:
                self.refs.append((("", node.value), False, None))


def _defs(tree: ast.Module) -> dict:
    out: dict = {}

    def cls_body(node: ast.ClassDef, qual: str) -> None:
        for st in node.body:
            if isinstance(st, _FUNCS):
                out.setdefault((qual, st.name), st)
            elif isinstance(st, ast.ClassDef):
                cls_body(st, f"{qual}.{st.name}")

    for st in tree.body:
        if isinstance(st, _FUNCS):
            out.setdefault(("", st.name), st)
        elif isinstance(st, ast.ClassDef):
            cls_body(st, st.name)
    return out


def guarded_ranges(tree: ast.AST, text: str) -> list[tuple[int, int]]:
    """(first line, last line) of each function of the module whose every reference is version-guarded (module
    docstring); empty when there is none."""
    if not isinstance(tree, ast.Module):
        return []
    defs = _defs(tree)
    if not defs:
        return []
    v = _Refs(text, defs)
    v.visit(tree)
    refs: dict = {}
    for key, lexical, enclosing in v.refs:
        if enclosing != key:  # a recursive call says nothing about the callers
            refs.setdefault(key, []).append((lexical, enclosing))
    guarded: set = set()
    changed = True
    while changed:
        changed = False
        for key, rs in refs.items():
            if key not in guarded and all(lex or (enc is not None and enc in guarded) for lex, enc in rs):
                guarded.add(key)
                changed = True
    return sorted((defs[k].lineno, defs[k].end_lineno or defs[k].lineno) for k in guarded)
