"""Python frontend, libcst part: a plugin created by a helper of another module from a dict describing it.

Samples and cookbooks keep one helper in a package of their own and describe each plugin by a dict::

    # package/plugins.py (re-exported by package/__init__.py: ``from .plugins import *``)
    def get_plugin(info):
        creator = trt.get_plugin_registry().get_creator(info["name"], info.get("version", "1"), info["namespace"])
        fields = [trt.PluginField(k, v, ...) for ...]      # or: for k, v in info["args"].items(): fields.append(...)
        return creator.create_plugin(info["name"], trt.PluginFieldCollection(fields))

    # sample/main.py
    from package import get_plugin
    info = {"Layer": dict(name="AddScalar", version="1", namespace="", args=dict(scalar=np.array([1.0])))}
    layer = network.add_plugin_v3([x], [], get_plugin(info["Layer"]))

Each side is a fact of its own file (a file's facts never depend on another file's text): the helper's lookup
carries a :class:`~trtlint.base.facts.DictParam` (which parameter, which of its entries hold the name, the version,
the namespace, and whose keys name the fields), and each call of a function imported from a project-looking module
with a followed dict carries a :class:`~trtlint.base.facts.DictArg` (the dict's literal string entries and the keys
of its dict entries). The index joins the two (:mod:`trtlint.index.dicthelpers`). Bounded: only module-level
helpers, one level of dict entries, a dict followed through at most :data:`MAX_DEPTH` names and subscripts; nothing
is imported or executed.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

import libcst as cst

from trtlint.base.facts import AttrFact, CreatorLookup, DictArg, DictParam
from .values import string_value

MAX_DEPTH = 4  # names and subscripts followed to reach a dict
HELPER_FORM = "helper-call"
# modules whose functions are never a project's plugin helper
_LIBRARIES = ("tensorrt", "numpy", "torch", "onnx", "onnx_graphsurgeon", "polygraphy", "os", "sys", "json", "collections",
              "typing", "pathlib", "ctypes", "cuda", "cupy", "pycuda", "typing_extensions")


class DictHelperMixin:
    """Mixed into the fact collector (a :class:`~.values.ValueTracker` with :class:`~.pyplugin.PluginCreationMixin`);
    see the module docstring."""

    # ---- the helper's side ----------------------------------------------------------------------------
    def _param_entry(self, node: Optional[cst.BaseExpression]) -> Optional[tuple[str, str, Optional[str]]]:
        """``p["key"]`` or ``p.get("key"[, "default"])`` on a parameter ``p`` of the module-level function the walk
        is in: (p, key, the default's literal)."""
        if node is None or len(self.scopes) != 2 or self.scopes[1].kind != "function":
            return None
        params = self.scopes[1].params
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value in params:
            if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
                key = string_value(node.slice[0].slice.value)
                if key is not None:
                    return node.value.value, key, None
            return None
        if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "get"
                and isinstance(node.func.value, cst.Name) and node.func.value.value in params and node.args):
            key = string_value(node.args[0].value)
            default = self.one_string(node.args[1].value) if len(node.args) > 1 else None
            if key is not None:
                return node.func.value.value, key, default
        return None

    def dict_param_lookup(self, name_node, ver_node, ns_node) -> Optional[DictParam]:
        """A lookup whose name is an entry of a dict parameter: what the helper reads from the dict."""
        got = self._param_entry(name_node)
        if got is None:
            return None
        param, name_key, _ = got
        sc = self.scopes[1]
        out = {"version_key": None, "version": None, "namespace_key": None, "namespace": None}
        for what, node in (("version", ver_node), ("namespace", ns_node)):
            e = self._param_entry(node)
            if e is not None and e[0] == param:
                out[what + "_key"], out[what] = e[1], e[2]
            elif node is not None:
                out[what] = self.one_string(node)
            elif what == "namespace":
                out[what] = ""
        return DictParam(sc.name, sc.params.index(param), param, name_key, **out)

    def note_dict_lookup(self, index: int) -> None:
        """The lookup at ``index`` carries a DictParam: its fields key is set when the function closes."""
        self.scopes[1].__dict__.setdefault("dict_lookups", []).append(index)

    def dict_loop(self, node: cst.For) -> None:
        """``for k, v in p["key"].items()`` / ``for k in p["key"]`` (``.keys()``): ``k`` names the entry's keys."""
        it = node.iter
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and it.func.attr.value in ("items", "keys") and not it.args:
            it = it.func.value
        got = self._param_entry(it)
        if got is None:
            return
        tgt = node.target
        if isinstance(tgt, cst.Tuple) and tgt.elements:
            tgt = tgt.elements[0].value
        if isinstance(tgt, cst.Name):
            self.scopes[1].__dict__.setdefault("dict_loops", {})[tgt.value] = (got[0], got[1])

    def dict_field(self, name_node: cst.BaseExpression) -> None:
        """A ``PluginField`` named by a loop variable over a dict parameter's entry: that entry names the fields."""
        if len(self.scopes) < 2 or not isinstance(name_node, cst.Name):
            return
        loops = self.scopes[1].__dict__.get("dict_loops") or {}
        hit = loops.get(name_node.value)
        if hit is not None:
            self.scopes[1].__dict__.setdefault("dict_fields", set()).add(hit)

    def dict_function_done(self, sc) -> None:
        """A module-level function closed: its dict-parameter lookups get the entry whose keys name the fields."""
        idx = sc.__dict__.get("dict_lookups")
        fields = sc.__dict__.get("dict_fields") or set()
        if not idx or not fields:
            return
        for i in idx:
            lk = self.lookups[i]
            keys = sorted(k for p, k in fields if p == lk.dict_param.param)
            if len(keys) == 1:
                self.lookups[i] = dataclasses.replace(lk, dict_param=dataclasses.replace(lk.dict_param, fields_key=keys[0]))

    # ---- the callers' side ----------------------------------------------------------------------------
    def note_dict_node(self, node: cst.Assign) -> None:
        """``name = {...}`` / ``name = dict(...)``: the dict's node, for a later call handing it (or an entry) over."""
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) and _dict_items(node.value) is not None:
            self.scope.__dict__.setdefault("dict_nodes", {})[node.targets[0].target.value] = node.value

    def _dict_node(self, node: cst.BaseExpression, depth: int = 0):
        if depth > MAX_DEPTH:
            return None
        if _dict_items(node) is not None:
            return node
        if isinstance(node, cst.Name):
            for sc in reversed(self.scopes):
                got = (sc.__dict__.get("dict_nodes") or {}).get(node.value)
                if got is not None:
                    return got
                if node.value in sc.bindings:
                    return None  # bound to something else here
            return None
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            key = string_value(node.slice[0].slice.value)
            outer = self._dict_node(node.value, depth + 1) if key is not None else None
            items = _dict_items(outer) if outer is not None else None
            for k, _kn, v in (items[0] if items is not None else ()):
                if k == key:
                    return self._dict_node(v, depth + 1)
        return None

    def dict_arg_call(self, node: cst.Call, target: str) -> None:
        """A call of ``target`` (imported from another module) with a followed dict: a candidate helper call."""
        if target.split(".")[0] in _LIBRARIES or "." not in target:
            return
        pos = 0
        for a in node.args:
            if a.star:
                return
            kw = a.keyword.value if a.keyword is not None else None
            d = self._dict_node(a.value)
            if d is not None:
                self._dict_arg(node, target, -1 if kw else pos, kw, d)
            if kw is None:
                pos += 1

    def _dict_arg(self, call: cst.Call, target: str, index: int, keyword: Optional[str], d) -> None:
        items, _open = _dict_items(d)
        strings, nested = [], []
        for k, kn, v in items:
            s = string_value(v) if isinstance(v, (cst.SimpleString, cst.ConcatenatedString)) else None
            if s is not None:
                strings.append((k, s, self.span(v)))
                continue
            inner = self._dict_node(v)
            if inner is not None:
                sub, sub_open = _dict_items(inner)
                facts = tuple(AttrFact(sk, self.span(skn), self.text(sv), name_span=self.span(skn)) for sk, skn, sv in sub)
                nested.append((k, facts, sub_open))
        if not strings:
            return
        arg = DictArg(target, index, keyword, tuple((k, v) for k, v, _sp in strings), tuple(nested))
        # the literal entries kept as the candidate's attrs (their spans: where the joined lookup's name is written)
        self.lookups.append(CreatorLookup(None, None, None, self.span(call), None, form=HELPER_FORM, dict_arg=arg,
                                          attrs=tuple(AttrFact(k, sp, v) for k, v, sp in strings), open_attrs=True))

def _dict_items(node) -> Optional[tuple[list, bool]]:
    """A dict literal's or ``dict(...)`` call's entries with a literal key: ([(key, key node, value)], not all
    followed); None for anything else."""
    if isinstance(node, cst.Dict):
        out, open_ = [], False
        for el in node.elements:
            key = string_value(el.key) if isinstance(el, cst.DictElement) else None
            if key is None:
                open_ = True
                continue
            out.append((key, el.key, el.value))
        return out, open_
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict":
        out, open_ = [], False
        for a in node.args:
            if a.keyword is None:
                open_ = True
                continue
            out.append((a.keyword.value, a.keyword, a.value))
        return out, open_
    return None
