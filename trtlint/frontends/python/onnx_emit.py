"""Python frontend, libcst part: the facts of calls and definitions: ONNX node emissions (``make_node``,
``g.op``, onnxscript custom opsets), direct-route builder calls and the route tables they look names up in,
creator lookups, TensorRT plugin API uses and Python plugin creators (``IPluginCreator`` subclasses,
``tensorrt.plugin.register``). :class:`FactCollector` makes them on the :class:`~.values.ValueTracker` walk;
nothing is imported or executed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from trtlint.base.facts import (
    AttrFact,
    CreatorLookup,
    DirectRouteCall,
    DirectRouteTable,
    OnnxEmission,
    PluginApiUse,
    PluginFieldDecl,
    PyCreator,
    Span,
)
from .. import ExtractContext
from ..onnx import standard_ops
from . import fast
from .names import API_METHODS, CREATOR_METHODS, TRT_CLASSES
from .gsurgeon import SurgeryMixin
from .dicthelper import DictHelperMixin
from .paramhelper import ParamHelperMixin
from .pyplugin import PluginCreationMixin
from .values import LIST_OF, Binding, Scope, ValueTracker, callee_last

# --------------------------------------------------------------------------------------------------------
# Standard ONNX ops (domain "" emissions of these are builtin, not plugins)
# --------------------------------------------------------------------------------------------------------

def _is_standard_onnx_op(op_type: str) -> bool:
    # the shipped table of the ONNX standard's op_types (rules/onnx_standard_ops.yaml, generated from onnx.defs and
    # compared with the installed onnx by a test): importing onnx itself would cost a worker ~1 s (ml_dtypes)
    return op_type in standard_ops().get("", ())


# torch.onnx attribute suffixes (``name_i=``); the list forms are also accepted as written in the brief.
_GOP_SUFFIX = {
    "i": "INT",
    "f": "FLOAT",
    "s": "STRING",
    "t": "TENSOR",
    "is": "INTS",
    "fs": "FLOATS",
    "ss": "STRINGS",
    "ts": "TENSORS",
    "g": "GRAPH",
}
_GOP_RE = re.compile(r"^(.+)_(is|fs|ss|ts|i|f|s|t|g)$")

_MAKE_NODE_RESERVED = {"op_type", "inputs", "outputs", "name", "doc_string", "domain", "overload"}
_MAKE_NODE_QUALNAMES = {"onnx.helper.make_node"}


@dataclass
class TableCand:
    name: str
    span: Span
    entries: tuple
    used: bool = False
    fallback_identity: bool = False
    version: Optional[str] = None
    namespace: Optional[str] = None


# --------------------------------------------------------------------------------------------------------
# The facts
# --------------------------------------------------------------------------------------------------------


class FactCollector(PluginCreationMixin, ParamHelperMixin, DictHelperMixin, SurgeryMixin, ValueTracker):
    """The facts of one module, made along the value tracker's walk."""

    def __init__(self, rel: str, module: cst.Module, positions, ctx: ExtractContext) -> None:
        super().__init__(rel, module, positions)
        self.route_names = set(ctx.route_call_names)
        self.route_reserved = set(ctx.route_reserved_kwargs)
        self.tables: dict[str, TableCand] = {}
        self.emissions: list[OnnxEmission] = []
        self.wrapped: list[tuple[int, str, str]] = []  # make_node of another object than onnx.helper: not judged
        self.route_calls: list[DirectRouteCall] = []
        self.lookups: list[CreatorLookup] = []
        self.api_uses: list[PluginApiUse] = []
        self.py_creators: list[PyCreator] = []
        self.def_backends: dict[int, str] = {}  # def line -> the backend it is registered for (cst.def_backends)
        self.backends: list[Optional[str]] = []  # along the enclosing functions
        self.init_plugin_creation()

    # ---- classes and defs ---------------------------------------------------------------------------
    def class_facts(self, node: cst.ClassDef) -> None:
        if any((self.qualify(b.value) or "").startswith("tensorrt.IPluginCreator") for b in node.bases):
            self._python_creator(node)

    def _python_creator(self, node: cst.ClassDef) -> None:
        """``self.name = "X"``, ``self.plugin_version``, ``self.plugin_namespace``, ``self.field_names`` set in
        the class's methods (usually ``__init__``)."""
        found: dict[str, tuple[Optional[str], cst.CSTNode]] = {}
        fields: list[PluginFieldDecl] = []
        for stmt in node.body.body:
            if not isinstance(stmt, cst.FunctionDef):
                continue
            for line in stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ():
                if not isinstance(line, cst.SimpleStatementLine):
                    continue
                for small in line.body:
                    if not isinstance(small, cst.Assign):
                        continue
                    for t in small.targets:
                        tg = t.target
                        if (
                            isinstance(tg, cst.Attribute)
                            and isinstance(tg.value, cst.Name)
                            and tg.value.value == "self"
                            and tg.attr.value in ("name", "plugin_version", "plugin_namespace", "field_names")
                        ):
                            if tg.attr.value == "field_names":
                                fields.extend(self._plugin_fields_in(small.value))
                            else:
                                found[tg.attr.value] = (self.one_string(small.value), small.value)
        name = found.get("name")
        if name is None or name[0] is None:
            return
        ver = found.get("plugin_version")
        ns = found.get("plugin_namespace")
        self.py_creators.append(
            PyCreator(
                name=name[0],
                version=ver[0] if ver else None,
                namespace=ns[0] if ns else "",
                span=self.span(name[1]),
                cls=node.name.value,
                how="class",
                fields=tuple(fields),
                version_span=self.span(ver[1]) if ver else None,
            )
        )

    def _plugin_fields_in(self, value: cst.CSTNode) -> list[PluginFieldDecl]:
        out: list[PluginFieldDecl] = []

        class _V(fast.FastVisitMixin, cst.CSTVisitor):
            def visit_Call(v, call: cst.Call) -> None:
                if (self.qualify(call.func) or "").endswith("PluginField") and call.args:
                    n = self.one_string(call.args[0].value)
                    if n is not None:
                        t = None
                        if len(call.args) >= 3:
                            t = (self.qualify(call.args[2].value) or "").rsplit(".", 1)[-1] or None
                        out.append(PluginFieldDecl(name=n, type=("k" + t) if t else None, length=None, span=self.span(call.args[0].value)))

        fast.visit(value, _V())
        return out

    def function_facts(self, node: cst.FunctionDef) -> None:
        self.backends.append(self.def_backends.get(self.span(node.name).line))
        self.note_param_defaults(node)
        for dec in node.decorators:
            d = dec.decorator
            if isinstance(d, cst.Call) and self.qualify(d.func) == "tensorrt.plugin.register" and d.args:
                pid = self.one_string(d.args[0].value)
                if pid and "::" in pid:
                    ns, _, nm = pid.rpartition("::")
                    self.py_creators.append(
                        PyCreator(name=nm, version="1", namespace=ns, span=self.span(d.args[0].value), cls=node.name.value, how="qdp")
                    )

    def function_done(self, sc: Scope) -> None:
        self.plugin_function_done(sc)
        self.dict_function_done(sc)
        if self.backends:
            self.backends.pop()
        if sc.table_lookups and sc.creator_calls:
            version, namespace = sc.creator_calls[0]
            for tname, fallback in sc.table_lookups:
                cand = self.tables.get(tname)
                if cand is None:
                    continue
                cand.used = True
                cand.fallback_identity = cand.fallback_identity or fallback
                if cand.version is None:
                    cand.version = version
                if cand.namespace is None:
                    cand.namespace = namespace

    # ---- subscripts (route table lookups) -----------------------------------------------------------
    def visit_Subscript(self, node: cst.Subscript) -> None:
        if isinstance(node.value, cst.Name) and node.value.value in self.tables:
            if self._is_module_name(node.value.value):
                self._record_table_lookup(node.value.value, False)

    def _is_module_name(self, name: str) -> bool:
        for sc in reversed(self.scopes[1:]):
            if sc.kind == "function" and name in sc.bindings:
                return False
        return True

    def _record_table_lookup(self, name: str, fallback: bool) -> None:
        for sc in reversed(self.scopes):
            if sc.kind == "function":
                sc.table_lookups.append((name, fallback))
                return

    # ---- calls --------------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        last = callee_last(func)
        if last is None:
            return
        if isinstance(func, cst.Attribute):
            recv = func.value
            # dict mutations
            if isinstance(recv, cst.Name) and last in ("update", "setdefault"):
                st = self.lookup_dict(recv.value)
                if st is not None:
                    self.dict_call(st, last, node)
            # route table lookups
            if last == "get" and isinstance(recv, cst.Name) and recv.value in self.tables:
                if self._is_module_name(recv.value):
                    a = [x for x in node.args if x.keyword is None and not x.star]
                    fb = (
                        len(a) >= 2
                        and isinstance(a[0].value, cst.Name)
                        and isinstance(a[1].value, cst.Name)
                        and a[0].value.value == a[1].value.value
                    )
                    self._record_table_lookup(recv.value, fb)
            # onnxscript custom opset
            if isinstance(recv, cst.Name):
                b = self.lookup(recv.value)
                if b is not None and b.kind == "opset":
                    self._onnxscript(node, b, last)
                    return
            if last == "op":
                self._gop(node)
            if last == "create_plugin":
                self.create_plugin_call(node)
        if last in ("Node", "layer") and self.surgery_call(node, last):
            return
        if self.helper_call(node, last):
            return
        if last == "PluginField" and self.is_trt(func, "PluginField"):
            self.plugin_field_call(node)
        if last in CREATOR_METHODS:
            self._creator_lookup(node, last)
            return
        if last in self.route_names:
            self._route_call(node)
        if isinstance(func, cst.Attribute) and last in API_METHODS:
            self.api_uses.append(PluginApiUse(API_METHODS[last], self.span(node)))
            return
        if last == "get_plugin_registry":
            self.api_uses.append(PluginApiUse("get_plugin_registry", self.span(node)))
            return
        if last in TRT_CLASSES or last == "make_node" or (isinstance(func, cst.Name) and last in self.imports):
            q = self.qualify(func)
            if last == "make_node" and isinstance(func, cst.Attribute) and q not in _MAKE_NODE_QUALNAMES:
                self._wrapped_make_node(node, func)
            if q is None:
                return
            qlast = q.rsplit(".", 1)[-1]
            if qlast in TRT_CLASSES and q.startswith("tensorrt."):
                self.api_uses.append(PluginApiUse(qlast, self.span(node)))
            elif q in _MAKE_NODE_QUALNAMES:
                self._make_node(node)
            elif isinstance(func, cst.Name) and node.args:
                self.dict_arg_call(node, q)  # a helper of another module handed a dict (joined in the index)

    def _emit(
        self,
        form: str,
        op_type: str,
        domain: Optional[str],
        node: cst.Call,
        attrs: list[tuple[AttrFact, Optional[str]]],
        open_attrs: bool,
        op_span: Optional[Span] = None,
    ) -> None:
        if domain == "" and _is_standard_onnx_op(op_type):
            return
        pv = pn = None
        for a, lit in attrs:
            if a.name == "plugin_version":
                pv = lit
            elif a.name == "plugin_namespace":
                pn = lit
        self.emissions.append(
            OnnxEmission(
                op_type=op_type,
                domain=domain,
                span=self.span(node),
                form=form,
                attrs=tuple(a for a, _ in attrs),
                open_attrs=open_attrs,
                plugin_version=pv,
                plugin_namespace=pn,
                function=self.function_qualname(),
                op_span=op_span or self._op_span(form, node),
                backend=next((b for b in reversed(self.backends) if b is not None), None),
            )
        )

    def _op_span(self, form: str, node: cst.Call) -> Optional[Span]:
        """Where the op type is written: an onnxscript call's attribute name, or the string literal naming it."""
        if form == "onnxscript" and isinstance(node.func, cst.Attribute):
            return self.span(node.func.attr)
        arg = next((a for a in node.args if a.keyword is not None and a.keyword.value == "op_type"), None)
        if arg is None:
            arg = next((a for a in node.args if a.keyword is None and not a.star), None)
        if arg is not None and isinstance(arg.value, cst.SimpleString):
            return self.span(arg.value)
        return None

    def _onnxscript(self, node: cst.Call, b: Binding, op_type: str) -> None:
        attrs, open_attrs = self.collect_attrs(node, node.args, lambda k: k.startswith("_"))
        self._emit("onnxscript", op_type, b.domain, node, attrs, open_attrs)

    def _gop(self, node: cst.Call) -> None:
        if not node.args or node.args[0].keyword is not None or node.args[0].star:
            return
        names = self.strings(node.args[0].value)
        if not names:
            return
        raw, open_attrs = self.collect_attrs(node, node.args[1:], lambda k: k == "outputs")
        attrs = []
        for a, lit in raw:
            m = _GOP_RE.match(a.name)
            if m:
                t = _GOP_SUFFIX[m.group(2)]
                if len(m.group(2)) == 1 and a.type in LIST_OF.values() and t in LIST_OF:
                    t = LIST_OF[t]
                attrs.append((AttrFact(m.group(1), a.span, a.value, t, a.conditional), lit))
            else:
                attrs.append((a, lit))
        for full in names:
            if "::" in full:
                domain, op_type = full.split("::", 1)
            else:
                domain, op_type = "", full
            if not op_type:
                continue
            self._emit("g.op", op_type, domain, node, attrs, open_attrs)

    def _wrapped_make_node(self, node: cst.Call, func: cst.Attribute) -> None:
        """``graph.make_node("anchor_generator", ..., domain="custom")`` on an object that is not onnx.helper (a
        converter's own graph class, whose node may or may not become an ONNX node): named, not judged."""
        first = node.args[0] if node.args and node.args[0].keyword is None and not node.args[0].star else None
        if first is None:
            first = next((a for a in node.args if a.keyword is not None and a.keyword.value in ("op_type", "op")), None)
        op = self.one_string(first.value) if first is not None else None
        if not op:
            return
        dom = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "domain"), None)
        domain = self.one_string(dom) if dom is not None else ""
        if domain in ("", "ai.onnx") and _is_standard_onnx_op(op):
            return
        try:
            recv = cst.Module([]).code_for_node(func)
        except Exception:  # noqa: BLE001 - a name for the message only
            recv = "make_node"
        self.wrapped.append((self.span(node).line, recv, op))

    def _make_node(self, node: cst.Call) -> None:
        pos = []
        kw = {}
        for arg in node.args:
            if arg.star:
                continue
            if arg.keyword is not None:
                kw[arg.keyword.value] = arg.value
            else:
                pos.append(arg.value)
        op_node = pos[0] if pos else kw.get("op_type")
        names = self.strings(op_node) if op_node is not None else None
        if not names:
            return
        if len(pos) > 5:
            dom_node = pos[5]
        else:
            dom_node = kw.get("domain")
        if dom_node is None or (isinstance(dom_node, cst.Name) and dom_node.value == "None"):
            domain: Optional[str] = ""
        else:
            domain = self.one_string(dom_node)
        attrs, open_attrs = self.collect_attrs(node, node.args, lambda k: k in _MAKE_NODE_RESERVED)
        for op_type in names:
            self._emit("make_node", op_type, domain, node, attrs, open_attrs)

    def _route_call(self, node: cst.Call) -> None:
        if not node.args or node.args[0].keyword is not None or node.args[0].star:
            return
        names = self.strings(node.args[0].value)
        if not names:
            return
        # ``Net.operation(name, {attrs}, inputs)`` passes the attributes as a positional dict
        attrs, open_attrs = self.collect_attrs(
            node, node.args[1:], lambda k: k in self.route_reserved, positional_dicts=True
        )
        for name in names:
            self.route_calls.append(
                DirectRouteCall(
                    operation=name,
                    span=self.span(node),
                    attrs=tuple(a for a, _ in attrs),
                    open_attrs=open_attrs,
                    function=self.function_qualname(),
                )
            )

    def _creator_lookup(self, node: cst.Call, method: str) -> None:
        pos = []
        kw = {}
        for arg in node.args:
            if arg.star:
                # unknown splat: everything not given explicitly is unknown
                kw.setdefault("__splat__", arg.value)
                continue
            if arg.keyword is not None:
                kw[arg.keyword.value] = arg.value
            else:
                pos.append(arg.value)
        name_node = pos[0] if len(pos) > 0 else kw.get("name", kw.get("type"))
        ver_node = pos[1] if len(pos) > 1 else kw.get("version")
        if len(pos) > 2:
            ns_node = pos[2]
        else:
            ns_node = kw.get("plugin_namespace", kw.get("namespace"))
        splat = "__splat__" in kw
        if ns_node is None:
            namespace: Optional[str] = None if splat else ""
        else:
            namespace = self.one_string(ns_node)
        version = self.one_string(ver_node) if ver_node is not None else None
        names = self.strings(name_node) if name_node is not None else None
        name_span = self.span(name_node) if name_node is not None else None
        for sc in reversed(self.scopes):
            if sc.kind == "function":
                sc.creator_calls.append((version, namespace))
                break
        start = len(self.lookups)
        dp = self.dict_param_lookup(name_node, ver_node, ns_node) if not names else None
        if dp is not None:  # the name is an entry of a dict parameter: the callers of the helper supply it
            self.note_dict_lookup(start)
            version, namespace = dp.version, dp.namespace
        # the name is a parameter: the callers of the helper supply it (and the fields: paramhelper)
        ph = self.param_helper_lookup(name_node, ver_node, ns_node) if not names and dp is None else None
        for name in names or (None,):
            self.lookups.append(CreatorLookup(name, version, namespace, self.span(node), name_span, dict_param=dp,
                                              param_helper=ph))
        self.lookup_made(node, list(range(start, len(self.lookups))))

    # ---- statements the plugin-creation join follows (:mod:`.pyplugin`) -----------------------------
    def leave_Call(self, node: cst.Call) -> None:
        # after the arguments were visited: ``fields.append(trt.PluginField(...))`` finds the field's fact
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.attr.value in ("append", "extend"):
            self.collection_method(node, func.value.value, func.attr.value)
        self.helper_call_candidate(node)  # a function handed a PluginField collection (paramhelper)

    def leave_Assign(self, node: cst.Assign) -> None:
        super().leave_Assign(node)
        self.plugin_assign(node)
        self.note_collection_name(node)
        self.note_dict_node(node)

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        super().leave_AugAssign(node)
        self.plugin_augassign(node)

    def visit_For(self, node: cst.For) -> None:
        super().visit_For(node)
        self.plugin_for(node)
        self.dict_loop(node)

    def visit_If(self, node: cst.If) -> None:
        super().visit_If(node)
        self.plugin_if(node)

    def leave_Return(self, node: cst.Return) -> None:
        self.plugin_return(node)

    # ---- results ------------------------------------------------------------------------------------
    def route_tables(self) -> list[DirectRouteTable]:
        out = []
        for cand in self.tables.values():
            if not cand.used:
                continue
            out.append(
                DirectRouteTable(
                    name=cand.name,
                    span=cand.span,
                    entries=cand.entries,
                    fallback_identity=cand.fallback_identity,
                    version=cand.version,
                    namespace=cand.namespace,
                )
            )
        return out
