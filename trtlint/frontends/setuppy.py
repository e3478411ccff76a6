"""setup.py frontend (text): the C++/CUDA extensions a ``setup.py`` builds (``CUDAExtension``, ``CppExtension``,
``setuptools.Extension``, ``Pybind11Extension``), each with its sources, include dirs and defines. The file is
parsed with :mod:`ast`, never run: only literal values count (strings, lists and tuples of them, a name bound
once at module level to such a literal, ``os.path.join`` of literals, ``os.path.abspath``/``realpath`` of a path
relative to setup.py's directory, ``os.path.dirname(__file__)`` as that directory); in the function that makes the
extension (``get_extensions()``), the names its statements before the call bind, lists built step by step
(``x = []``, ``x.append(v)``, ``x += [...]``, every branch counted). A value computed otherwise (a call, a
comprehension, an environment variable, a helper function's parameter) is not known: a list holding one is partly
known, and gives its known elements as include dirs, while the extension's source list is then *not known*
(nothing may conclude that a file is not built). Defines come from ``define_macros=[("NAME", "VALUE")]`` and
``-D`` words in ``extra_compile_args`` (a list, or a dict of lists per compiler); ``-I`` words there are include
dirs too. An extension only a command-line flag adds (``if '--plugins' in sys.argv:`` around the ``append`` of the
extension's name, or around the extension itself) has that flag (``SetupExtension.flag``): the build model's gate
(:mod:`trtlint.pipeline.buildmodel.gates`). Never raises on a file's content.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

_EXT_CALLS = {"CUDAExtension", "CppExtension", "Extension", "Pybind11Extension", "CUDAExtensionBuilder"}
MAX_SOURCE = 4 * 1024 * 1024


@dataclass
class SetupExtension:
    name: str
    line: int
    sources: list = field(default_factory=list)  # as written, relative to setup.py's directory
    include_dirs: list = field(default_factory=list)
    defines: list = field(default_factory=list)
    sources_known: bool = True
    flag: str = ""  # the command-line flag only with which setup.py adds it ("--plugins"), and where it tests it
    flag_line: int = 0


class _Unknown(Exception):
    pass


def _literal(node: ast.AST, names: dict, depth: int = 0, lenient: bool = False):
    """A str, or a list of str, from a literal expression; _Unknown otherwise."""
    if depth > 16:
        raise _Unknown
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        out = []
        for e in node.elts:
            v = _literal(e, names, depth + 1, lenient)
            out.extend(v if isinstance(v, list) else [v])
        return out
    if isinstance(node, ast.Name) and node.id in names:
        v = names[node.id]
        if isinstance(v, _Partial):  # a list built with some elements not known: its known ones, when that will do
            if not lenient:
                raise _Unknown
            return list(v)
        if isinstance(v, (str, list)):  # a value the statements before the extension built (_scope)
            return v
        return _literal(v, names, depth + 1, lenient)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _literal(node.left, names, depth + 1, lenient), _literal(node.right, names, depth + 1, lenient)
        if isinstance(a, str) and isinstance(b, str):
            return a + b
        return (a if isinstance(a, list) else [a]) + (b if isinstance(b, list) else [b])
    if isinstance(node, ast.Call) and _dotted(node.func) in ("os.path.join", "path.join", "osp.join") and not node.keywords:
        parts = [_literal(a, names, depth + 1, lenient) for a in node.args]
        if all(isinstance(p, str) for p in parts):
            return "/".join(p.strip("/") if i else p.rstrip("/") for i, p in enumerate(parts))
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        fn = _dotted(node.func)
        if fn.endswith((".dirname", "dirname")) and _is_file_path(node.args[0]):
            return "."  # the directory of setup.py itself: what the paths are relative to
        if fn in _SAME_PATH:  # a path relative to setup.py's directory, where setup.py runs, stays that path
            v = _literal(node.args[0], names, depth + 1, lenient)
            if isinstance(v, str):
                return v
    raise _Unknown


# calls that give back the same place for a path relative to the directory setup.py runs in
_SAME_PATH = {"os.path.abspath", "os.path.realpath", "os.path.normpath", "osp.abspath", "osp.realpath", "osp.normpath",
              "path.abspath", "path.realpath", "path.normpath", "str"}


class _Partial(list):
    """A list the statements before the extension built, some of whose elements are not known."""


def _is_file_path(node: ast.AST) -> bool:
    """``__file__``, or ``os.path.abspath(__file__)`` / ``realpath``: setup.py's own path."""
    if isinstance(node, ast.Name):
        return node.id == "__file__"
    return (isinstance(node, ast.Call) and len(node.args) == 1 and _dotted(node.func) in _SAME_PATH
            and _is_file_path(node.args[0]))


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) + "." + node.attr
    return ""


def _module_names(tree: ast.Module) -> dict:
    """Names bound exactly once at module level to a value (later re-binding or augmenting makes them unknown)."""
    seen: dict = {}
    count: dict = {}
    for stmt in tree.body:
        targets = []
        if isinstance(stmt, ast.Assign):
            targets = [(t, stmt.value) for t in stmt.targets if isinstance(t, ast.Name)]
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            targets = [(stmt.target, None)]
        for t, v in targets:
            count[t.id] = count.get(t.id, 0) + 1
            seen[t.id] = v
    return {k: v for k, v in seen.items() if count[k] == 1 and v is not None}


def _scope(body: list, before: int, names: dict) -> dict:
    """The names the statements of ``body`` (a function's, with their nested blocks, in source order) bind before
    line ``before``, over ``names``: ``x = value``, ``x += [...]``, ``x.append(v)`` / ``x.extend([...])``. A list
    with an element not known is partly known (:class:`_Partial`); a name bound to something not known is dropped.
    Every branch counts, as the CMake evaluator's do: include dirs may only grow."""
    out = dict(names)
    stmts = sorted((n for b in body for n in ast.walk(b) if isinstance(n, (ast.Assign, ast.AugAssign, ast.Expr))
                    and n.lineno < before), key=lambda n: (n.lineno, n.col_offset))

    def value(node):
        try:
            return _literal(node, out)
        except _Unknown:
            return None

    def add(name: str, node) -> None:  # (append, extend and += alike: the values are strings or lists of them)
        cur = out.get(name)
        if not isinstance(cur, list):
            out.pop(name, None)
            return
        v = value(node)
        new = _Partial(cur) if isinstance(cur, _Partial) or v is None else list(cur)
        new += [] if v is None else v if isinstance(v, list) else [v]
        out[name] = new

    for n in stmts:
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    if isinstance(n.value, (ast.List, ast.Tuple)):
                        items = [value(e) for e in n.value.elts]
                        lst = [x for v in items if v is not None for x in (v if isinstance(v, list) else [v])]
                        out[t.id] = _Partial(lst) if None in items else lst
                    else:
                        v = value(n.value)
                        if v is None:
                            out.pop(t.id, None)
                        else:
                            out[t.id] = v
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and isinstance(n.op, ast.Add):
            add(n.target.id, n.value)
        elif (isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute)
              and isinstance(n.value.func.value, ast.Name) and n.value.func.attr in ("append", "extend")
              and len(n.value.args) == 1 and not n.value.keywords):
            add(n.value.func.value.id, n.value.args[0])
    return out


def _argv_flags(tree: ast.Module) -> tuple[dict, dict]:
    """({name: (flag, line)}, {id(extension call): (flag, line)}): the module-level names used and the calls made
    only inside ``if '<flag>' in sys.argv:`` blocks at module level (a name also used elsewhere is left out)."""
    inside: dict = {}
    calls: dict = {}
    gated_ifs = []
    for stmt in tree.body:
        t = stmt.test if isinstance(stmt, ast.If) else None
        if (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.In)
                and isinstance(t.left, ast.Constant) and isinstance(t.left.value, str) and t.left.value.startswith("-")
                and _dotted(t.comparators[0]) in ("sys.argv", "argv")):
            gated_ifs.append(stmt)
            for node in (n for b in stmt.body for n in ast.walk(b)):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    inside.setdefault(node.id, (t.left.value, stmt.lineno))
                elif isinstance(node, ast.Call):
                    calls[id(node)] = (t.left.value, stmt.lineno)
    if not gated_ifs:
        return {}, {}
    outside = set()
    for stmt in tree.body:
        if stmt in gated_ifs:
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                outside.add(node.id)
    return {k: v for k, v in inside.items() if k not in outside}, calls


def read_setup(text: str) -> Optional[list[SetupExtension]]:
    """The extensions of a setup.py's text; None when it does not parse."""
    if len(text) > MAX_SOURCE:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    names = _module_names(tree)
    flagged, flagged_calls = _argv_flags(tree)
    bound = {id(v): k for k, v in names.items()}  # an extension call -> the module-level name bound to it
    home = {id(c): f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            for c in ast.walk(f) if isinstance(c, ast.Call)}  # a call -> the innermost function it is made in
    out = []
    module_names = names
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fn = _dotted(node.func).rsplit(".", 1)[-1]
        if fn not in _EXT_CALLS:
            continue
        func = home.get(id(node))
        names = _scope(func.body, node.lineno, module_names) if func is not None else module_names
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        name_node = kw.get("name") or (node.args[0] if node.args else None)
        try:
            name = _literal(name_node, names) if name_node is not None else ""
        except _Unknown:
            name = ""
        ext = SetupExtension(name=name if isinstance(name, str) else "", line=node.lineno)
        ext.flag, ext.flag_line = flagged_calls.get(id(node)) or flagged.get(bound.get(id(node), ""), ("", 0))
        src_node = kw.get("sources") or (node.args[1] if len(node.args) > 1 else None)
        try:
            v = _literal(src_node, names) if src_node is not None else []
            ext.sources = v if isinstance(v, list) else [v]
        except _Unknown:
            ext.sources_known = False
        try:  # include dirs partly known: the known ones (nothing concludes from a dir's absence)
            v = _literal(kw["include_dirs"], names, lenient=True) if "include_dirs" in kw else []
            ext.include_dirs = v if isinstance(v, list) else [v]
        except _Unknown:
            pass
        dm = kw.get("define_macros")
        if isinstance(dm, (ast.List, ast.Tuple)):
            for e in dm.elts:
                if isinstance(e, ast.Tuple) and e.elts and isinstance(e.elts[0], ast.Constant) and isinstance(e.elts[0].value, str):
                    val = e.elts[1] if len(e.elts) > 1 else None
                    if isinstance(val, ast.Constant) and isinstance(val.value, str):
                        ext.defines.append(f"{e.elts[0].value}={val.value}")
                    elif val is None or (isinstance(val, ast.Constant) and val.value is None):
                        ext.defines.append(e.elts[0].value)
        args = kw.get("extra_compile_args")
        groups = [v for v in args.values] if isinstance(args, ast.Dict) else ([args] if args is not None else [])
        for g in groups:
            try:
                words = _literal(g, names)
            except _Unknown:
                continue
            for w in words if isinstance(words, list) else [words]:
                if w.startswith("-D") and len(w) > 2 and w[2:] not in ext.defines:
                    ext.defines.append(w[2:])
                elif w.startswith("-I") and len(w) > 2:
                    ext.include_dirs.append(w[2:])
        out.append(ext)
    return out
