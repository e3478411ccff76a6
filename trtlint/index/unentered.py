"""The branches of a data-type dispatch the hot-path walk could not enter, for the run's "partly analysed" summary.

A plugin's hot method (``enqueue``) that dispatches on a data type (an if-chain or ternary on ``DataType::k...``, a
switch on a ``DataType``, a lambda handed to a dispatch helper: ``Call.dispatch``) does its work in the callees of
each branch. The hot-path rules judge what those callees do by reading their bodies. A callee whose body no
analysed file holds hides that branch's work from them: it is named here instead of being treated as clean.

Such a callee is one the project declares (``Call.declared_in``) or one libclang could not resolve in a file
with an ``#include`` that did not resolve, and that no rule pack describes (a CUDA runtime, cuBLAS, CUB, ...
call, a macro or function of ``rules/cpp_behaviour.yaml``) and that is no C++ library call, operator,
builtin or (unresolved, spelled like a type) functional cast. Calls in a dispatch's branch for no accepted type (an error path) are left out: they never run.
"""

from __future__ import annotations

import re
from typing import Optional

from trtlint.base.facts import Call, CppFunction

# the rules/ pack tables that say what a call does (a call named in one has a known contract)
_TABLES = ("allocating", "synchronizing", "host_allocating", "functions", "macros", "status_apis", "status_except",
           "status_queries", "status_teardown", "stream_exempt", "size_queries")
_LIBRARY = re.compile(r"(?:::)?(?:std|__gnu_cxx|__cxx11|thrust|cub)::|__|operator\W|lambda$")
_OPERATOR = re.compile(r"(?:^|::)operator\W")
# an unresolved "call" spelled like a type is a functional cast (`scalar_t(1.0f)` of a template's type parameter,
# `half(x)`, `make_float4(...)` of a CUDA header the unit did not find): no function whose body is missing
_TYPE_LIKE = re.compile(r"(?:\w+::)*(?:[A-Z]\d?|\w+_t|half2?|(?:nv_)?bfloat162?|dim3|make_\w+|"
                        r"(?:u?(?:char|short|int|long|longlong)|float|double)[1-4])")


def unentered(index) -> list[tuple[str, str, str, str, int, str]]:
    """``(plugin, method, callee, path, line, why)`` for each callee with no body read that a plugin's hot method
    reaches inside a data-type dispatch (in its own branches, or in a function a branch calls), once per plugin,
    method and callee, in walk order; ``why`` says where it is declared or that it did not resolve."""
    packs = index.packs
    limit = getattr(index.settings, "max_call_depth", 8)
    unresolved_files = {m.span.path for ff in index.files.values() for m in getattr(ff, "missing_includes", ())}
    out: dict[tuple[str, str, str], tuple[str, str, str, str, int, str]] = {}
    for plugin, fn in _hot_methods(index):
        seen = {(fn.usr, False)}
        frontier: list[tuple[CppFunction, bool]] = [(fn, False)]
        depth = 0
        while frontier and depth <= limit:
            nxt = []
            for f, inside in frontier:
                for call in f.calls:
                    if call.guard and call.guard.startswith("error-path:"):
                        continue  # a failure branch (the one for no accepted type among them): it does no work
                    here = inside or call.dispatch
                    target = index.resolve_call(call, f)
                    if target is not None:
                        if (target.usr, here) not in seen:
                            seen.add((target.usr, here))
                            nxt.append((target, here))
                        continue
                    if not here:
                        continue
                    why = _why(index, packs, call, f, unresolved_files)
                    if why is not None:
                        out.setdefault((plugin, fn.name, call.callee),
                                       (plugin, fn.name, call.callee, call.span.path, call.span.line, why))
            frontier = nxt
            depth += 1
    return list(out.values())


def _why(index, packs, call: Call, fn: CppFunction, unresolved_files: set) -> Optional[str]:
    """Why ``call``'s body is not read (None: it has a known contract, or is no project function)."""
    if call.kind != "call" or _LIBRARY.match(call.callee) or _OPERATOR.search(call.callee):
        return None
    if index.functions_by_qualname.get(call.callee):
        return None  # defined, as overloads the call does not pick: their bodies are read
    if any(packs.lookup(t, call.callee) for t in _TABLES):
        return None
    if call.declared_in:
        return f"declared in {call.declared_in}, defined in no analysed file"
    if call.usr is None and fn.span.path in unresolved_files and not _TYPE_LIKE.fullmatch(call.callee):
        return f"not resolved: an #include of {fn.span.path} was not found"
    return None


def _hot_methods(index) -> list[tuple[str, CppFunction]]:
    """(plugin's short name, method) for each plugin's hot method (the nearest definition up its project bases)."""
    out = []
    for info in index.plugins:
        fam = info.cls.family
        names: set[str] = set()
        for q in index.ancestors(info.qualname):
            here = set()
            for fn in index.methods.get(q, ()):
                if fn.name in names:
                    continue
                here.add(fn.name)
                if index.packs.temperature(fn.name, fam) == "hot":
                    out.append((info.cls.name, fn))
            names |= here
    return out
