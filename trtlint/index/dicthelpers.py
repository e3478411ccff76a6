"""The join of Python plugin helpers of one module with their callers in others (frontends/python/dicthelper.py).

A helper's creator lookup (``CreatorLookup.dict_param``: the name, version, namespace and fields read from a dict
parameter) is completed at each call that hands it a dict (``CreatorLookup.dict_arg``, form "helper-call") in another
module: one lookup per call, at the call, with the name, version and namespace the dict's literal entries give and
its fields the keys of the entry the helper makes ``PluginField``s from. The call names the helper as imported
(``package.helper``, ``package.module.helper``); the helper is a module-level function of that name in the module's
file (``package/module.py``, ``package/module/__init__.py``) or, for a package, in a module directly inside it
(what ``from .module import *`` in its ``__init__.py`` re-exports). Of several such files (same-named packages of
independent samples) the nearest the call is taken. A candidate call no helper of the project completes is dropped.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable

from trtlint.base.facts import CreatorLookup

HELPER_FORM = "helper-call"


def shared(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a.split("/")[:-1], b.split("/")[:-1]):
        if x != y:
            break
        n += 1
    return n


def serves(path: str, module: str) -> bool:
    """Whether the file ``path`` is the module ``module`` ("package/module") or a module directly in it."""
    stem = path[:-3] if path.endswith(".py") else path
    if stem.endswith("/__init__"):
        stem = stem[: -len("/__init__")]
    parent = stem.rsplit("/", 1)[0] if "/" in stem else ""
    return any(s == module or s.endswith("/" + module) for s in (stem, parent))


def join(lookups: Iterable[CreatorLookup], more: Iterable[CreatorLookup] = ()) -> list[CreatorLookup]:
    """``lookups`` with each helper call completed from the helper it calls, or dropped when none does. ``more``: the
    helpers' lookups of the rest of the project (an independent program's calls of a helper shared by all)."""
    lookups = list(lookups)
    helpers = [lk for lk in lookups if lk.dict_param is not None]
    have = {lk.span for lk in helpers}
    helpers += [lk for lk in more if lk.dict_param is not None and lk.span not in have]
    out: list[CreatorLookup] = []
    for lk in lookups:
        arg = lk.dict_arg
        if arg is None:
            out.append(lk)
            continue
        module, _, fn = arg.target.rpartition(".")
        module = module.replace(".", "/")
        cands = [h for h in helpers if h.dict_param.function == fn and serves(h.span.path, module)
                 and (arg.index == h.dict_param.index if arg.keyword is None else arg.keyword == h.dict_param.param)]
        if not cands:
            continue
        best = max(shared(h.span.path, lk.span.path) for h in cands)
        done = set()
        for h in cands:
            p = h.dict_param
            if shared(h.span.path, lk.span.path) != best or p in done:
                continue
            done.add(p)
            strings = dict(arg.strings)
            name = strings.get(p.name_key)
            if name is None:
                continue
            version = strings.get(p.version_key, p.version) if p.version_key else p.version
            namespace = strings.get(p.namespace_key, p.namespace) if p.namespace_key else p.namespace
            name_span = next((a.span for a in lk.attrs if a.name == p.name_key), None)
            nested = {k: (facts, open_) for k, facts, open_ in arg.nested}
            attrs, open_attrs = nested.get(p.fields_key, ((), True)) if p.fields_key else ((), True)
            out.append(dataclasses.replace(lk, name=name, version=version, namespace=namespace, name_span=name_span,
                                           form="get_creator", attrs=tuple(attrs), open_attrs=open_attrs))
    return out
