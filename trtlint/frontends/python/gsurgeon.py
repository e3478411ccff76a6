"""Python frontend, libcst part: onnx-graphsurgeon emissions (``gs.Node``, ``graph.layer``) as ONNX routes.

Deployment code most often inserts a plugin node into an exported model with onnx-graphsurgeon::

    gs.Node(op="EfficientNMS_TRT", attrs={"score_threshold": 0.25, ...}, inputs=[...], outputs=[...])
    gs.Node("LayerNorm", "ln_0", attrs=OrderedDict(epsilon=1e-5), inputs=..., outputs=...)   # op positional
    graph.layer(op="BatchedNMS_TRT", attrs=attrs, inputs=[...], outputs=[...])
    @gs.Graph.register()
    def trt_nms(self, ...): return self.layer(op="EfficientNMS_TRT", attrs=attrs, ...)     # a registered helper
    @gs.Graph.register()
    def plugin(self, op, attrs, ...): return self.layer(op=op, attrs=attrs, ...)       # op and attrs from its
    graph.plugin("EfficientNMS_TRT", {"score_threshold": 0.25, ...})                    # callers, in this file

:class:`SurgeryMixin` (a part of :class:`~.onnx_emit.FactCollector`) makes each an
:class:`~trtlint.base.facts.OnnxEmission` of form ``gs.Node`` or ``graph.layer``: the op (a literal, or a name bound
to literals), the domain (``domain=``, the default domain when absent), the attributes of ``attrs=`` (a dict
literal, ``dict(...)``/``OrderedDict(...)`` with keywords or a list of pairs, or a name bound to a followed
dict: :meth:`~.values.ValueTracker.dict_state_of`; anything else leaves the attributes open) with ``plugin_version``/``plugin_namespace`` read from them.
A helper whose op is one of its parameters (a registered method or a plain function) makes no emission itself:
each call of it later in the same module does, with the op (and ``attrs=``, when that is a parameter too) the call
passes, at the call. A
standard ONNX op in the default domain is not a route and makes no fact (as for ``make_node``). ``.layer(...)``
counts only in a module that imports onnx-graphsurgeon and only with its ``op=`` keyword (``Graph.layer``
passes its other positional arguments to ``Node``). Nothing is imported or executed.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from trtlint.base.facts import SURGERY_FORMS, AttrFact  # noqa: F401  (the forms made here)
from .values import is_prefix

GS_MODULE = "onnx_graphsurgeon"


class SurgeryMixin:
    """Mixed into the fact collector (a :class:`~.values.ValueTracker`); see the module docstring."""

    def imports_gs(self) -> bool:
        return any(q == GS_MODULE or q.startswith(GS_MODULE + ".") for q in self.imports.values())

    def surgery_call(self, node: cst.Call, last: str) -> bool:
        """A ``gs.Node(...)`` or ``<graph>.layer(op=...)`` call: its emission made; True when it was one."""
        if last == "Node":
            q = self.qualify(node.func) or ""
            if not (q.startswith(GS_MODULE + ".") and q.endswith(".Node")):
                return False
            form, op_pos, attrs_pos, dom_pos = "gs.Node", 0, 2, 5
        elif last == "layer" and isinstance(node.func, cst.Attribute) and self.imports_gs():
            form, op_pos, attrs_pos, dom_pos = "graph.layer", 2, 4, 7
        else:
            return False
        pos = []
        kw: dict[str, cst.BaseExpression] = {}
        for a in node.args:
            if a.star:
                kw.setdefault("__splat__", a.value)
            elif a.keyword is not None:
                kw[a.keyword.value] = a.value
            else:
                pos.append(a.value)
        op_node = kw.get("op", pos[op_pos] if len(pos) > op_pos else None)
        if op_node is None:
            return form == "gs.Node"
        names = self.strings(op_node)
        if not names:
            self._helper_of(form, op_node, kw.get("attrs", pos[attrs_pos] if len(pos) > attrs_pos else None),
                            kw.get("domain", pos[dom_pos] if len(pos) > dom_pos else None))
            return True  # the op is computed (a helper's parameter: followed from its calls; an f-string)
        dom_node = kw.get("domain", pos[dom_pos] if len(pos) > dom_pos else None)
        if dom_node is None or (isinstance(dom_node, cst.Name) and dom_node.value == "None"):
            domain: Optional[str] = ""
        else:
            domain = self.one_string(dom_node)
        attrs_node = kw.get("attrs", pos[attrs_pos] if len(pos) > attrs_pos else None)
        attrs, open_attrs = self._surgery_attrs(attrs_node)
        if "__splat__" in kw and "attrs" not in kw:
            open_attrs = True
        op_span = self.span(op_node) if isinstance(op_node, cst.SimpleString) else None
        for op in names:
            self._emit(form, op, domain, node, attrs, open_attrs, op_span=op_span)
        return True

    def _helper_of(self, form: str, op_node, attrs_node, dom_node) -> None:
        """``op=`` is a parameter of the function around the call: remember the function as an emission helper."""
        sc = self.scope
        if sc.kind != "function" or not isinstance(op_node, cst.Name) or op_node.value not in sc.params:
            return
        if dom_node is not None and not (isinstance(dom_node, cst.Name) and dom_node.value == "None"):
            return  # a domain of its own: left alone
        attrs_param = attrs_node.value if isinstance(attrs_node, cst.Name) and attrs_node.value in sc.params else None
        if attrs_node is not None and attrs_param is None:
            return  # attributes the helper builds itself: not followed
        helpers = self.__dict__.setdefault("_gs_helpers", {})
        helpers[sc.name] = (form, sc.params, op_node.value, attrs_param)

    def helper_call(self, node: cst.Call, last: str) -> bool:
        """A call of an emission helper this module defined before it: the emission, with the call's op."""
        helper = self.__dict__.get("_gs_helpers", {}).get(last)
        if helper is None:
            return False
        form, params, op_param, attrs_param = helper
        # a method called on an object (a registered graph method: graph.plugin(...)) binds self first
        bound = list(params[1:] if isinstance(node.func, cst.Attribute) and params[:1] == ("self",) else params)
        args: dict[str, cst.BaseExpression] = {}
        for i, a in enumerate(node.args):
            if a.star:
                return True
            if a.keyword is not None:
                args[a.keyword.value] = a.value
            elif i < len(bound):
                args[bound[i]] = a.value
        op_node = args.get(op_param)
        names = self.strings(op_node) if op_node is not None else []
        if not names:
            return True
        attrs, open_attrs = self._surgery_attrs(args.get(attrs_param)) if attrs_param else ([], False)
        op_span = self.span(op_node) if isinstance(op_node, cst.SimpleString) else None
        for op in names:
            self._emit(form, op, "", node, attrs, open_attrs, op_span=op_span)
        return True

    def _surgery_attrs(self, node: Optional[cst.BaseExpression]) -> tuple[list[tuple[AttrFact, Optional[str]]], bool]:
        if node is None or (isinstance(node, cst.Name) and node.value == "None"):
            return [], False
        st = self.dict_state_of(node)
        if st is None:
            return [], True
        cur = tuple(self.branch)
        out = []
        for k, e in st.entries.items():
            cond = e.conditional or not is_prefix(e.branch, cur)
            out.append((AttrFact(e.name, e.span, e.value, e.type, cond), e.literal))
        return out, st.open
