"""Python frontend, libcst part: a plugin created by a helper whose name, version and fields are its parameters.

Converter libraries keep one helper, often in a module of its own, and hand it each plugin's name and fields::

    # package/utils.py
    def get_trt_plugin(plugin_name, field_collection, version, plugin_namespace=""):
        creator = trt.get_plugin_registry().get_plugin_creator(plugin_name, version, plugin_namespace)
        return creator.create_plugin(name=plugin_name, field_collection=field_collection)

    # package/converters.py
    from .utils import *                      # or: from .utils import get_trt_plugin / import package.utils as u
    fc = trt.PluginFieldCollection([trt.PluginField("eps", eps, trt.PluginFieldType.FLOAT32)])
    plugin = get_trt_plugin("LayerNorm", fc, "1")

Each side is a fact of its own file (a file's facts never depend on another file's text): the helper's lookup carries
a :class:`~trtlint.base.facts.ParamHelper` (which parameters are the name, the version, the namespace and the
collection ``create_plugin`` is handed; a module-level function only), and each call that hands a function a
``PluginField`` collection trtlint follows (a name bound to one, a ``PluginFieldCollection(...)`` call, a list of
fields) carries a :class:`~trtlint.base.facts.HelperCall`: the function's name, the modules it may be defined in (this
module for a function defined here; an import's module, a relative one resolved against this file's path; each module
of a star import), and per argument its literal strings and followed fields. The index joins the two
(:mod:`trtlint.index.paramhelpers`); a call no helper completes is named in the run's summary, with the reason. Bounded:
one level of helper (a helper calling another helper is not followed); nothing is imported or executed.
"""

from __future__ import annotations

import builtins
import dataclasses
import sys
from typing import Optional

import libcst as cst

from trtlint.base.facts import CreatorLookup, HelperCall, ParamArg, ParamHelper
from .values import callee_last, dotted, string_value

HELPER_FORM = "helper-call"
# modules whose functions are never a project's plugin helper (and the standard library's)
_LIBRARIES = frozenset({"tensorrt", "numpy", "torch", "onnx", "onnx_graphsurgeon", "polygraphy", "cuda", "cupy",
                        "pycuda", "typing_extensions"}) | frozenset(getattr(sys, "stdlib_module_names", ()))
_BUILTINS = frozenset(dir(builtins))
# calls the plugin-creation join follows itself, or that never create a plugin
_NOT_HELPERS = frozenset({"create_plugin", "PluginFieldCollection", "PluginField", "append", "extend"})


def _statements(body) -> list:
    """The module-level simple statements, also under ``if``/``try``/``with`` at module level."""
    out = []
    for st in body:
        if isinstance(st, cst.SimpleStatementLine):
            out.extend(st.body)
        elif isinstance(st, (cst.If, cst.Try, cst.With)):
            out.extend(_statements(st.body.body))
            for h in getattr(st, "handlers", ()):
                out.extend(_statements(h.body.body))
            orelse = getattr(st, "orelse", None)
            if isinstance(orelse, cst.Else):
                out.extend(_statements(orelse.body.body))
    return out


def _library(module_path: str) -> bool:
    return module_path.split("/")[0] in _LIBRARIES


class ParamHelperMixin:
    """Mixed into the fact collector (with :class:`~.pyplugin.PluginCreationMixin`); see the module docstring."""

    # ---- the helper's side ----------------------------------------------------------------------------
    def _fn_param(self, node) -> Optional[str]:
        """``node`` is a parameter (still bound as one) of the module-level function the walk is in: its name."""
        if (not isinstance(node, cst.Name) or len(self.scopes) != 2 or self.scopes[1].kind != "function"
                or node.value not in self.scopes[1].params):
            return None
        b = self.scopes[1].bindings.get(node.value)
        return node.value if b is not None and b.kind == "param" else None

    def param_helper_lookup(self, name_node, ver_node, ns_node) -> Optional[ParamHelper]:
        """A lookup whose name is a parameter of the module-level function it is in: what the helper's callers
        supply (the collection parameter is set when the module's walk is done, from its ``create_plugin``)."""
        name_param = self._fn_param(name_node)
        if name_param is None:
            return None
        sc = self.scopes[1]
        defaults = self.__dict__.get("_param_defaults", {}).get(sc.name, ())
        return ParamHelper(sc.name, tuple(sc.params), name_param, version_param=self._fn_param(ver_node),
                           namespace_param=self._fn_param(ns_node), defaults=defaults)

    def note_param_defaults(self, node: cst.FunctionDef) -> None:
        """A module-level def: its parameters' literal string defaults (``plugin_namespace: str = ""``)."""
        if len(self.scopes) != 1:
            return
        ps = node.params
        out = []
        for p in list(ps.posonly_params) + list(ps.params) + list(ps.kwonly_params):
            v = string_value(p.default) if p.default is not None else None
            if v is not None:
                out.append((p.name.value, v))
        self.__dict__.setdefault("_param_defaults", {})[node.name.value] = tuple(out)

    def param_helper_fields(self, idx: list, coll, fn_scope) -> None:
        """A ``create_plugin`` of the helper's lookups ``idx`` handed a parameter of the helper as its collection."""
        if not isinstance(coll, cst.Name) or fn_scope is None or coll.value not in fn_scope.params:
            return
        b = fn_scope.bindings.get(coll.value)
        if b is None or b.kind != "param":
            return
        for i in idx:
            lk = self.lookups[i]
            ph = lk.param_helper
            if ph is not None and ph.function == fn_scope.name:
                self.lookups[i] = dataclasses.replace(lk, param_helper=dataclasses.replace(ph, fields_param=coll.value))

    # ---- the callers' side ----------------------------------------------------------------------------
    def _module_paths(self) -> dict:
        """What this module's imports bind, as module paths ("package/module"): {"names": local -> (module,
        name), "modules": local -> module, "stars": [module], "defs": module-level function names}."""
        memo = self.__dict__.get("_modpaths")
        if memo is not None:
            return memo
        names, modules, stars, defs = {}, {}, [], set()
        parts = self.rel.split("/")
        pkg = parts[:-1]
        for st in self.module.body:
            if isinstance(st, cst.FunctionDef):
                defs.add(st.name.value)
        for st in _statements(self.module.body):
            if isinstance(st, cst.Import):
                for a in st.names:
                    full = dotted(a.name)
                    if not full:
                        continue
                    if a.asname is not None and isinstance(a.asname.name, cst.Name):
                        modules[a.asname.name.value] = full.replace(".", "/")
                    else:
                        modules[full.split(".")[0]] = full.split(".")[0]
            elif isinstance(st, cst.ImportFrom):
                level = len(st.relative)
                mod = dotted(st.module) if st.module is not None else ""
                if mod is None:
                    continue
                if level:
                    if level - 1 > len(pkg):
                        continue
                    base = pkg[: len(pkg) - (level - 1)]
                    path = "/".join(base + ([mod.replace(".", "/")] if mod else []))
                else:
                    path = mod.replace(".", "/")
                if not path:
                    continue
                if isinstance(st.names, cst.ImportStar):
                    stars.append(path)
                    continue
                for a in st.names:
                    nm = dotted(a.name)
                    if not nm:
                        continue
                    local = a.asname.name.value if a.asname is not None and isinstance(a.asname.name, cst.Name) else nm
                    names[local] = (path, nm)
        memo = self.__dict__["_modpaths"] = {"names": names, "modules": modules, "stars": stars, "defs": defs}
        return memo

    def _callee(self, func) -> Optional[tuple[str, tuple, Optional[str]]]:
        """Where a called function may be defined: (its name, module paths, why it cannot be followed); None for a
        library's function, a builtin, or a call the plugin-creation join follows itself."""
        last = callee_last(func)
        if last is None or last in _NOT_HELPERS:
            return None
        own = self.rel[:-3] if self.rel.endswith(".py") else self.rel
        mp = self._module_paths()
        if isinstance(func, cst.Name):
            local = self.lookup(last)
            if len(self.scopes) > 1 and any(last in sc.bindings for sc in self.scopes[1:] if sc.kind == "function"):
                return last, (), "a callable held in a local name"
            if last in mp["defs"] and (local is None or local.kind != "import"):
                return last, (own,), None
            if last in mp["names"]:
                path, nm = mp["names"][last]
                if _library(path):
                    return None
                return nm, (path,), None
            if last in _BUILTINS:
                return None
            stars = tuple(s for s in mp["stars"] if not _library(s))
            if stars:
                return last, stars, None
            if any(_library(s) for s in mp["stars"]):
                return None
            return last, (), "defined nowhere this module shows"
        d = dotted(func)
        if d is not None:
            head, *mid = d.split(".")[:-1]
            if head in mp["modules"]:
                path = "/".join([mp["modules"][head]] + mid)
                return (None if _library(path) else (last, (path,), None))
            if head in mp["names"] and not mid:  # ``from package import module`` ... ``module.helper(...)``
                path, nm = mp["names"][head]
                path = path + "/" + nm
                return None if _library(path) else (last, (path,), None)
            if head in self.imports:
                return None
        return last, (), "a method call"

    def note_collection_name(self, node: cst.Assign) -> None:
        """``fc = trt.PluginFieldCollection(...)`` (or an alias): the name holds a collection, whatever its fields."""
        names = [t.target.value for t in node.targets if isinstance(t.target, cst.Name)]
        if not names:
            return
        st = self._pp_chain()[-1]
        ctor = isinstance(node.value, cst.Call) and (self.is_trt(node.value.func, "PluginFieldCollection")
                                                     or self.coll_ctor(node.value.func))
        held = st.__dict__.setdefault("ctor_names", set())
        for n in names:
            if ctor:
                held.add(n)
            else:
                held.discard(n)

    def _is_collection(self, node, chain, cls=None, final: bool = False) -> bool:
        """An argument that is a ``PluginField`` collection this module builds: a name bound to one, a
        ``PluginFieldCollection(...)`` call, a list or tuple of followed fields. A name bound to what a function
        returns is one while the walk goes on (``final``: only when that function returns one); a name bound to a
        list holds one only when some ``PluginField`` went into it."""
        if isinstance(node, cst.Name):
            st = next((st for st in reversed(chain) if node.value in st.colls), None)
            if st is None:
                return False
            coll = st.colls[node.value]
            if coll.items or node.value in st.__dict__.get("ctor_names", ()):
                return True
            if not coll.refs:
                return False  # a list with no PluginField in it (a list of tensors, shapes): no evidence
            if not final:
                return True
            got, _missed = self._resolve(coll)
            return bool(got.items)
        if isinstance(node, cst.Call):
            return self.is_trt(node.func, "PluginFieldCollection") or self.coll_ctor(node.func)
        if isinstance(node, (cst.List, cst.Tuple)):
            f = self._fields_of(node, chain, cls)
            return f is not None and bool(f.items)
        return False

    def helper_call_candidate(self, node: cst.Call) -> None:
        """After a call's arguments were visited: a call that may hand a function a followed collection is a
        candidate helper call (decided, and its fields resolved, when the module's walk is done)."""
        if not node.args or any(a.star for a in node.args) or self.coll_ctor(node.func):
            return
        chain = self._pp_chain()
        if not any(self._is_collection(a.value, chain) for a in node.args):
            return
        callee = self._callee(node.func)
        if callee is not None:
            # the arguments' strings now (a function's names are gone when the walk is done)
            strings = [tuple(self.strings(a.value) or ()) for a in node.args]
            self.__dict__.setdefault("_helper_cands", []).append(
                (node, callee, chain, self._pp_home(), self._pp_class(), strings))

    def join_helper_calls(self) -> None:
        """At the end of the module's walk: each call handing a function a collection, as a lookup the index
        completes (or names as not followed)."""
        cands = [c for c in self.__dict__.get("_helper_cands", ())
                 if any(self._is_collection(a.value, c[2], c[4], final=True) for a in c[0].args)]
        per_home: dict[int, int] = {}
        for c in cands:
            per_home[id(c[3])] = per_home.get(id(c[3]), 0) + 1
        for node, (fn, modules, why), chain, home, cls, arg_strings in cands:
            args = []
            for a, strings in zip(node.args, arg_strings):
                kw = a.keyword.value if a.keyword is not None else None
                followed, fields, open_ = False, (), True
                if self._is_collection(a.value, chain, cls, final=True):
                    f = self._fields_of(a.value, chain, cls)
                    if f is not None and f.refs:
                        f, _missed = self._resolve(f)
                    if f is not None:
                        seen: dict = {}
                        for x in f.items:
                            seen.setdefault(x.name, x)
                        followed, fields, open_ = True, tuple(seen.values()), f.open
                args.append(ParamArg(kw, tuple(strings), self.span(a.value), followed, fields, open_))
            # the collection handed over not followed: the calling function's fields, when it creates nothing else
            only = home.creates == 0 and per_home[id(home)] == 1
            made = tuple(home.made) if only else ()
            call = HelperCall(fn, tuple(modules), tuple(args), made, why)
            self.lookups.append(CreatorLookup(None, None, None, self.span(node), None, form=HELPER_FORM,
                                              helper_call=call, attrs=(), open_attrs=True))
