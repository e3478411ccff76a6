"""setup.py frontend (text): the C++/CUDA extensions a ``setup.py`` builds (``CUDAExtension``, ``CppExtension``,
``setuptools.Extension``, ``Pybind11Extension``), each with its sources, include dirs and defines. The file is
parsed with :mod:`ast`, never run: only literal values count (strings, lists and tuples of them, a name bound
once at module level to such a literal, ``os.path.join`` of literals); a value computed otherwise (a call, a
comprehension, a helper function's parameter) is not known, and the extension's source list is then *not known*
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


def _literal(node: ast.AST, names: dict, depth: int = 0):
    """A str, or a list of str, from a literal expression; _Unknown otherwise."""
    if depth > 16:
        raise _Unknown
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        out = []
        for e in node.elts:
            v = _literal(e, names, depth + 1)
            out.extend(v if isinstance(v, list) else [v])
        return out
    if isinstance(node, ast.Name) and node.id in names:
        return _literal(names[node.id], names, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _literal(node.left, names, depth + 1), _literal(node.right, names, depth + 1)
        if isinstance(a, str) and isinstance(b, str):
            return a + b
        return (a if isinstance(a, list) else [a]) + (b if isinstance(b, list) else [b])
    if isinstance(node, ast.Call) and _dotted(node.func) in ("os.path.join", "path.join", "osp.join") and not node.keywords:
        parts = [_literal(a, names, depth + 1) for a in node.args]
        if all(isinstance(p, str) for p in parts):
            return "/".join(p.strip("/") if i else p.rstrip("/") for i, p in enumerate(parts))
    raise _Unknown


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
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fn = _dotted(node.func).rsplit(".", 1)[-1]
        if fn not in _EXT_CALLS:
            continue
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
        try:
            v = _literal(kw["include_dirs"], names) if "include_dirs" in kw else []
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
