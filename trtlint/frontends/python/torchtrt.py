"""Python extraction for Torch-TensorRT converters, plugin generation, TensorRT Python plugins and QDP.

Hooked from :mod:`.cst`: it runs on the (already parsed) libcst module with the
positions the main extractor computed and the imports it resolved, and returns the facts below. Names are
resolved through imports (``import tensorrt.plugin as trtp``, ``from torch.library import custom_op``,
relative imports) and module-level aliases (``aten = torch.ops.aten``). Nothing is imported or executed.

Facts: converter registrations (:class:`ConverterRegistration`), validator signatures, layers created
without a name (:class:`UnnamedLayer`), ``tensorrt.plugin`` register/impl/autotune/aot_impl definitions
(:class:`QdpDef`), torch custom ops, fake kernels and Torch-TensorRT plugin generation
(:class:`TorchOpUse`), Python plugin ``enqueue`` methods (:class:`PyEnqueue`), ``trt.PluginField`` data
dtypes (:class:`PyPluginField`) and TensorRT Python API uses listed in the deprecation pack
(:class:`TrtApiUse`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

import libcst as cst

from trtlint.base.facts import (
    ConverterRegistration,
    PyEnqueue,
    PyParam,
    PyPluginField,
    PySignature,
    QdpDef,
    Span,
    TorchOpUse,
    TrtApiUse,
    UnnamedLayer,
)
from . import fast
from .dtypes import Bindings as _Bindings, names_in as _names_in, torch_numpy_dtype as _torch_numpy_dtype
# version tests, and a try whose handlers catch a missing API: both sides are version-guarded (shared with .guards,
# which carries the guard through a call of a helper)
from .guards import FALLBACK as _FALLBACK
from .guards import VERSION_GUARD as _VERSION_GUARD
from .names import (
    DEFINE_QUALS,
    FAKE_QUALS,
    QDP_KINDS,
    QDP_MODULES,
    REGISTRARS,
    TTRT_PLUGINS,
    api_names,
    module_name,
    prefilter_keywords,
)

_NP_DTYPES = {
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "intc": "int32",
    "int64": "int64",
    "int_": "int64",
    "longlong": "int64",
    "uint8": "uint8",
    "float16": "float16",
    "half": "float16",
    "float32": "float32",
    "single": "float32",
    "float64": "float64",
    "double": "float64",
    "float_": "float64",
    "bool_": "bool",
    "bool": "bool",
}
_PY_DTYPES = {"int": "int64", "float": "float64", "bool": "bool"}


def _string(node) -> Optional[str]:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            v = node.evaluated_value
        except Exception:
            return None
        return v if isinstance(v, str) else None
    return None


class TorchTrtExtractor(fast.FastVisitMixin, cst.CSTVisitor):
    def __init__(self, rel: str, module: cst.Module, positions, imports: dict, text: str = "") -> None:
        super().__init__()
        self.rel = rel
        self.module = module
        self.lines = (text or module.code).split("\n")
        self.positions = positions
        self.modname = module_name(rel)
        self.imports: dict[str, str] = dict(imports)
        self.aliases: dict[str, str] = {}
        self.funcs: list[cst.FunctionDef] = []
        self.classes: list[cst.ClassDef] = []
        self.guards: list[bool] = []
        self.module_funcs: dict[str, cst.FunctionDef] = {}
        self.custom_op_funcs: dict[str, str] = {}  # function name -> op id (custom_op-decorated)
        self.converters: list[ConverterRegistration] = []
        self.signatures: list[PySignature] = []
        self.unnamed: list[UnnamedLayer] = []
        self.qdp: list[QdpDef] = []
        self.ops: list[TorchOpUse] = []
        self.enqueues: list[PyEnqueue] = []
        self.fields: list[PyPluginField] = []
        self.api_uses: list[TrtApiUse] = []
        self.imports_tensorrt = False
        self._validator_names: set[str] = set()
        self._prepass()

    # ---- positions / text ---------------------------------------------------------------------------
    def span(self, node) -> Span:
        r = self.positions.get(id(node))  # (start line, start column, end line, end column); columns 0-based
        if r is None:
            return Span(self.rel, 1, 1, 1, 1)
        return Span(self.rel, r[0], r[1] + 1, r[2], r[3] + 1)

    def source(self, node) -> str:
        """The node's source text, sliced from the file by its position (no code generation)."""
        r = self.positions.get(id(node))
        if r is None:
            return ""
        l1, c1, l2, c2 = r
        lines = self.lines[l1 - 1 : l2]
        if not lines:
            return ""
        if len(lines) == 1:
            return lines[0][c1:c2]
        return "\n".join([lines[0][c1:], *lines[1:-1], lines[-1][:c2]])

    def text(self, node) -> str:
        s = " ".join(self.source(node).split())
        return s if len(s) <= 100 else s[:97] + "..."

    # ---- names --------------------------------------------------------------------------------------
    def _prepass(self) -> None:
        body = self.module.body
        for stmt in _walk_module_statements(body):
            if isinstance(stmt, cst.ImportFrom) and stmt.relative and not isinstance(stmt.names, cst.ImportStar):
                base = self.modname.split(".")
                base = base[: max(0, len(base) - len(stmt.relative))] if base else []
                mod = _dotted(stmt.module) if stmt.module is not None else ""
                full = ".".join([*base, mod] if mod else base)
                for alias in stmt.names:
                    name = _dotted(alias.name)
                    if not name:
                        continue
                    local = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else name
                    self.imports.setdefault(local, f"{full}.{name}" if full else name)
        for imp in list(self.imports.values()):
            if imp == "tensorrt" or imp.startswith(("tensorrt.", "tensorrt_bindings")):
                self.imports_tensorrt = True
        for stmt in _walk_module_statements(body):
            if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name):
                if isinstance(stmt.value, (cst.Name, cst.Attribute)):
                    q = self.qual(stmt.value)
                    if q and q.startswith(("torch.ops", "tensorrt", "torch_tensorrt")):
                        self.aliases[stmt.targets[0].target.value] = q
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef):
                self.module_funcs[stmt.name.value] = stmt

    def qual(self, node) -> Optional[str]:
        if isinstance(node, cst.Name):
            v = node.value
            q = self.aliases.get(v) or self.imports.get(v)
            if q is None:
                return None
            for a, b in (("tensorrt_bindings", "tensorrt"),):
                if q == a or q.startswith(a + "."):
                    q = b + q[len(a):]
            return q
        if isinstance(node, cst.Attribute):
            b = self.qual(node.value)
            return f"{b}.{node.attr.value}" if b else None
        return None

    def ann(self, node) -> Optional[str]:
        """Normalized annotation text: names qualified, whitespace dropped."""
        if node is None:
            return None
        if isinstance(node, cst.Annotation):
            node = node.annotation
        s = _string(node)
        if s is not None:
            try:
                node = cst.parse_expression(s)
            except Exception:
                return s
        if isinstance(node, (cst.Name, cst.Attribute)):
            q = self.qual(node)
            if q is not None:
                return q
            d = _dotted(node)
            return d
        if isinstance(node, cst.Subscript):
            base = self.ann(node.value) or "?"
            elems = []
            for e in node.slice:
                if isinstance(e.slice, cst.Index):
                    elems.append(self.ann(e.slice.value) or "?")
                else:
                    elems.append("?")
            return f"{base}[{', '.join(elems)}]"
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            return f"{self.ann(node.left)} | {self.ann(node.right)}"
        if isinstance(node, (cst.Tuple, cst.List)):
            return "[" + ", ".join(self.ann(e.value) or "?" for e in node.elements) + "]"
        if isinstance(node, cst.Ellipsis):
            return "..."
        return self.text(node)

    def params(self, params: cst.Parameters) -> tuple[PyParam, ...]:
        out = []
        for kind, group in (("posonly", params.posonly_params), ("pos", params.params), ("kwonly", params.kwonly_params)):
            for p in group:
                out.append(PyParam(p.name.value, kind, self.ann(p.annotation), p.default is not None, self.span(p.name)))
        if isinstance(params.star_arg, cst.Param):
            out.insert(len(params.posonly_params) + len(params.params), PyParam(params.star_arg.name.value, "vararg", self.ann(params.star_arg.annotation), False, self.span(params.star_arg.name)))
        if isinstance(params.star_kwarg, cst.Param):
            out.append(PyParam(params.star_kwarg.name.value, "kwarg", self.ann(params.star_kwarg.annotation), False, self.span(params.star_kwarg.name)))
        return tuple(out)

    def function_name(self) -> Optional[str]:
        if not self.funcs:
            return None
        return ".".join([c.name.value for c in self.classes] + [f.name.value for f in self.funcs])

    # ---- guards (version tests) ---------------------------------------------------------------------
    def visit_If(self, node: cst.If) -> None:
        self.guards.append(bool(_VERSION_GUARD.search(self.text(node.test))))

    def leave_If(self, node: cst.If) -> None:
        self.guards.pop()

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.guards.append(bool(_VERSION_GUARD.search(self.text(node.test))))

    def leave_IfExp(self, node: cst.IfExp) -> None:
        self.guards.pop()

    def visit_Try(self, node: cst.Try) -> None:
        caught = any(h.type is None or _FALLBACK.search(self.text(h.type)) for h in node.handlers)
        self.guards.append(bool(caught))

    def leave_Try(self, node: cst.Try) -> None:
        self.guards.pop()

    # ---- the statement walk -------------------------------------------------------------------------
    def walk(self, stmts) -> None:
        """Walk statements, descending into compound ones; only statements whose source text has one of the
        markers get the (costly) full libcst visit."""
        gate = _gate()
        for st in stmts:
            if isinstance(st, cst.FunctionDef):
                self.visit_FunctionDef(st)
                self._walk_suite(st.body)
                self.leave_FunctionDef(st)
            elif isinstance(st, cst.ClassDef):
                for b in st.bases:  # ``class P(trt.IPluginV2DynamicExt)``
                    if gate.search(self.source(b)):
                        fast.visit(b, self)
                self.visit_ClassDef(st)
                self._walk_suite(st.body)
                self.leave_ClassDef(st)
            elif isinstance(st, cst.If):
                if gate.search(self.source(st.test)):
                    fast.visit(st.test, self)
                self.visit_If(st)
                self._walk_suite(st.body)
                orelse = st.orelse
                if isinstance(orelse, cst.If):
                    self.walk([orelse])
                elif isinstance(orelse, cst.Else):
                    self._walk_suite(orelse.body)
                self.leave_If(st)
            elif isinstance(st, cst.Try):
                self.visit_Try(st)
                self._walk_suite(st.body)
                self.leave_Try(st)
                for h in st.handlers:
                    # ``except AttributeError:`` holds the fallback to the API the try body's newer one replaced
                    self.guards.append(bool(h.type is None or _FALLBACK.search(self.text(h.type))))
                    self._walk_suite(h.body)
                    self.guards.pop()
                if st.orelse is not None:
                    self._walk_suite(st.orelse.body)
                if st.finalbody is not None:
                    self._walk_suite(st.finalbody.body)
            elif isinstance(st, (cst.With, cst.For, cst.While)):
                head = st.items if isinstance(st, cst.With) else ([st.iter] if isinstance(st, cst.For) else [st.test])
                for h in head:
                    if gate.search(self.source(h)):
                        fast.visit(h, self)
                self._walk_suite(st.body)
                if getattr(st, "orelse", None) is not None:
                    self._walk_suite(st.orelse.body)
            elif isinstance(st, cst.SimpleStatementLine):
                if gate.search(self.source(st)):
                    fast.visit(st, self)
            elif isinstance(st, cst.CSTNode) and gate.search(self.source(st)):
                fast.visit(st, self)  # match statements and anything newer: the full visit

    def _walk_suite(self, suite) -> None:
        if isinstance(suite, cst.IndentedBlock):
            self.walk(suite.body)
        elif isinstance(suite, cst.SimpleStatementSuite):
            src = " ".join(self.source(x) for x in suite.body)
            if _gate().search(src):
                for x in suite.body:
                    fast.visit(x, self)

    # ---- classes and functions ----------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        nested = bool(self.funcs)
        self._decorators(node, nested)
        if node.name.value == "enqueue" and self.classes and not self.funcs:
            self._enqueue(node)
        self._unnamed_layers(node)
        self.funcs.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.funcs.pop()

    def _decorators(self, node: cst.FunctionDef, nested: bool) -> None:
        decs = list(node.decorators)
        regs: list[int] = []
        for i, dec in enumerate(decs):
            d = dec.decorator
            func = d.func if isinstance(d, cst.Call) else d
            last = func.attr.value if isinstance(func, cst.Attribute) else (func.value if isinstance(func, cst.Name) else None)
            q = self.qual(func) or ""
            if q:  # ``from ... import dynamo_tensorrt_converter as reg``: judge the imported name
                last = q.rsplit(".", 1)[-1] if q.rsplit(".", 1)[-1] in REGISTRARS else last
            if last in REGISTRARS and isinstance(d, cst.Call):
                regs.append(i)
            elif isinstance(d, cst.Call) and last in QDP_KINDS and q.rsplit(".", 1)[0] in QDP_MODULES:
                self._qdp(node, d, last, nested)
            elif isinstance(d, cst.Call) and (q in DEFINE_QUALS and q != "torch.library.define"):
                op = _string(d.args[0].value) if d.args else None
                self.ops.append(TorchOpUse("define", op, self.span(d.args[0].value) if d.args else self.span(d), node.name.value))
                if op:
                    self.custom_op_funcs[node.name.value] = op
            elif isinstance(d, cst.Call) and q in FAKE_QUALS:
                op = self._op_arg(d.args[0].value) if d.args else None
                self.ops.append(TorchOpUse("fake", op, self.span(d), node.name.value))
            elif isinstance(d, cst.Call) and q == "torch.library.impl" and len(d.args) >= 2:
                op = self._op_arg(d.args[0].value)
                keys = " ".join(self.text(a.value) for a in d.args[1:])
                if re.search(r"Meta", keys):
                    self.ops.append(TorchOpUse("fake", op, self.span(d), node.name.value))
            elif isinstance(func, cst.Attribute) and func.attr.value in ("register_fake", "register_abstract", "impl_abstract") and isinstance(func.value, cst.Name):
                op = self.custom_op_funcs.get(func.value.value)
                if op:
                    self.ops.append(TorchOpUse("fake", op, self.span(d), node.name.value))
        if regs:
            wrappers = tuple((self.text(decs[i].decorator), self.span(decs[i].decorator)) for i in range(regs[0]))
            for n, i in enumerate(regs):
                self._converter(node, decs[i].decorator, wrappers if n == 0 else ())
        if not nested and not self.classes and "validator" in node.name.value:
            self.signatures.append(PySignature(self.modname, node.name.value, self.span(node.name), self.params(node.params)))

    def _op_arg(self, node) -> Optional[str]:
        s = _string(node)
        if s is not None:
            return s
        q = self.qual(node)
        if q and q.startswith("torch.ops."):
            parts = q.split(".")
            if len(parts) >= 4:
                return f"{parts[2]}::{parts[3]}"
        if isinstance(node, cst.Name) and node.value in self.custom_op_funcs:
            return self.custom_op_funcs[node.value]
        return None

    # ---- converters ---------------------------------------------------------------------------------
    def _converter(self, fn: cst.FunctionDef, call: cst.Call, wrappers) -> None:
        func = call.func
        registrar = func.attr.value if isinstance(func, cst.Attribute) else func.value  # type: ignore[union-attr]
        q = self.qual(func)
        if q and q.rsplit(".", 1)[-1] in REGISTRARS:
            registrar = q.rsplit(".", 1)[-1]
        key_node = None
        validator = None
        for i, a in enumerate(call.args):
            if a.keyword is None and not a.star and i == 0:
                key_node = a.value
            elif a.keyword is not None and a.keyword.value == "key":
                key_node = a.value
            elif a.keyword is not None and a.keyword.value == "capability_validator":
                validator = a.value
        key, form = self._key(key_node)
        v_name = v_span = v_params = v_ref = None
        if validator is not None and not (isinstance(validator, cst.Name) and validator.value == "None"):
            v_span = self.span(validator)
            if isinstance(validator, cst.Lambda):
                v_name = "<lambda>"
                v_params = self.params(validator.params)
            elif isinstance(validator, cst.Name):
                v_name = validator.value
                self._validator_names.add(validator.value)
                target = self.module_funcs.get(validator.value)
                if target is not None:
                    v_params = self.params(target.params)
                else:
                    v_ref = self.imports.get(validator.value)
            else:
                v_name = self.text(validator)
        self.converters.append(
            ConverterRegistration(
                function=fn.name.value,
                span=self.span(call),
                registrar=registrar,
                key=key,
                key_form=form,
                key_span=self.span(key_node) if key_node is not None else None,
                validator=v_name,
                validator_span=v_span,
                validator_params=v_params,
                validator_ref=v_ref,
                wrappers_above=wrappers,
            )
        )

    def _key(self, node) -> tuple[Optional[str], str]:
        if node is None:
            return None, "other"
        s = _string(node)
        if s is not None:
            return s, "string"
        q = self.qual(node)
        if q is None:
            return self.text(node), "other"
        if q.startswith("torch.ops."):
            parts = q.split(".")
            if len(parts) == 4:
                return q, "packet"
            if len(parts) == 5:
                if parts[4] == "out" or parts[4].endswith("_out"):
                    return q, "out"
                return q, "overload"
        return q, "other"

    # ---- unnamed layers -----------------------------------------------------------------------------
    def _unnamed_layers(self, fn: cst.FunctionDef) -> None:
        """``x = <net>.add_<layer>(...)`` (or an unassigned call) whose layer never gets a name in ``fn``."""
        created: list[tuple[Optional[str], str, cst.Call]] = []
        named: set[str] = set()

        class _V(fast.FastVisitMixin, cst.CSTVisitor):
            def __init__(v) -> None:
                super().__init__()
                v.assigned: set[int] = set()

            def visit_FunctionDef(v, node: cst.FunctionDef) -> bool:
                return node is fn

            def visit_ClassDef(v, node) -> bool:
                return False

            def visit_Lambda(v, node) -> bool:
                return False

            def visit_Assign(v, node: cst.Assign) -> None:
                val = node.value
                if isinstance(val, cst.Call) and _is_net_add(val) and len(node.targets) == 1:
                    t = node.targets[0].target
                    if isinstance(t, cst.Name):
                        created.append((t.value, val.func.attr.value, val))  # type: ignore[union-attr]
                        v.assigned.add(id(val))
                for t in node.targets:
                    tg = t.target
                    if isinstance(tg, cst.Attribute) and tg.attr.value == "name" and isinstance(tg.value, cst.Name):
                        named.add(tg.value.value)

            def visit_Call(v, node: cst.Call) -> None:
                if _is_net_add(node) and id(node) not in v.assigned:
                    created.append((None, node.func.attr.value, node))  # type: ignore[union-attr]
                for a in node.args:  # ``set_layer_name(net.add_x(...), ...)``: handed on, may be named there
                    if isinstance(a.value, cst.Call):
                        v.assigned.add(id(a.value))
                # a layer handed to another function (``set_layer_name(layer, ...)``, a helper) may be named
                # there: not judged
                for a in node.args:
                    if isinstance(a.value, cst.Name):
                        named.add(a.value.value)

            def visit_Return(v, node: cst.Return) -> None:
                named.update(_returned_names(node.value))
                if isinstance(node.value, cst.Call):  # ``return net.add_x(...)``: the caller gets the layer
                    v.assigned.add(id(node.value))

            def visit_Yield(v, node) -> None:
                named.update(_returned_names(node.value))

            def visit_Element(v, node) -> None:
                if isinstance(node.value, cst.Name):
                    named.add(node.value.value)

            def visit_DictElement(v, node) -> None:
                if isinstance(node.value, cst.Name):
                    named.add(node.value.value)

        if not _NET_ADD_TEXT.search(self.text_full(fn)):
            return
        visitor = _V()
        fast.visit(fn, visitor)
        for var, method, call in created:
            if var is not None and var in named:
                continue
            if var is None and id(call) in visitor.assigned:
                continue
            self.unnamed.append(UnnamedLayer(method, self.span(call), self._qualname_of(fn)))

    def text_full(self, node) -> str:
        return self.source(node)

    def _qualname_of(self, fn: cst.FunctionDef) -> str:
        return ".".join([c.name.value for c in self.classes] + [f.name.value for f in self.funcs] + [fn.name.value])

    # ---- QDP ----------------------------------------------------------------------------------------
    def _qdp(self, fn: cst.FunctionDef, call: cst.Call, kind: str, nested: bool) -> None:
        pid = None
        id_node = None
        lazy = False
        for i, a in enumerate(call.args):
            if a.keyword is None and i == 0:
                id_node = a.value
            elif a.keyword is not None and a.keyword.value == "plugin_id":
                id_node = a.value
            elif a.keyword is not None and a.keyword.value == "lazy_register":
                lazy = not (isinstance(a.value, cst.Name) and a.value.value == "False")
            elif a.keyword is None and i == 1:
                lazy = not (isinstance(a.value, cst.Name) and a.value.value == "False")
        if id_node is not None:
            pid = _string(id_node)
        params = self.params(fn.params)
        stream_used = None
        has_work = False
        if kind == "impl":
            stream_used = _name_used(fn.body, "stream")
            has_work = _has_call(fn.body)
        self.qdp.append(
            QdpDef(
                kind=kind,
                plugin_id=pid,
                id_span=self.span(id_node) if id_node is not None else self.span(call),
                function=fn.name.value,
                span=self.span(fn.name),
                params=params,
                returns=self.ann(fn.returns) if fn.returns is not None else None,
                lazy=lazy,
                nested=nested,
                stream_used=stream_used,
                has_work=has_work,
            )
        )

    # ---- Python plugin enqueue ----------------------------------------------------------------------
    def _enqueue(self, fn: cst.FunctionDef) -> None:
        cls = self.classes[-1]
        bases = [self.qual(b.value) or _dotted(b.value) or "" for b in cls.bases]
        if not any("Plugin" in b for b in bases):
            return
        names = [p.name.value for p in fn.params.params]
        stream = "stream" if "stream" in names else (names[-1] if len(names) >= 7 else None)
        if stream is None:
            return
        self.enqueues.append(
            PyEnqueue(
                cls=cls.name.value,
                span=self.span(fn.name),
                stream_param=stream,
                stream_used=_name_used(fn.body, stream),
                has_work=_has_call(fn.body),
            )
        )

    # ---- calls --------------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        last = func.attr.value if isinstance(func, cst.Attribute) else (func.value if isinstance(func, cst.Name) else None)
        if last is None:
            return
        if last in ("generate_plugin", "generate_plugin_converter", "custom_op"):
            q = self.qual(func) or ""
            if q.startswith(TTRT_PLUGINS) or (q == "" and last.startswith("generate_plugin")):
                if node.args and node.args[0].keyword is None:
                    a0 = node.args[0].value
                    self.ops.append(TorchOpUse(last, _string(a0), self.span(a0)))
                return
        if last == "PluginField":
            q = self.qual(func) or ""
            if q == "tensorrt.PluginField":
                self._plugin_field(node)
            return
        if last in ("define",) and node.args:
            q = self.qual(func) or ""
            if q == "torch.library.define":
                op = _string(node.args[0].value)
                if op:
                    self.ops.append(TorchOpUse("define", op.split("(", 1)[0].strip(), self.span(node.args[0].value)))
        if last in ("register_fake", "impl_abstract") and node.args and not self._is_decorator_call(node):
            q = self.qual(func) or ""
            if q in FAKE_QUALS:
                self.ops.append(TorchOpUse("fake", self._op_arg(node.args[0].value), self.span(node)))

    def _is_decorator_call(self, node: cst.Call) -> bool:
        fn = self.funcs[-1] if self.funcs else None
        return fn is not None and any(d.decorator is node for d in fn.decorators)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if not self.imports_tensorrt:
            return
        attrs, quals = api_names()
        name = node.attr.value
        if name in attrs:
            self.api_uses.append(TrtApiUse(name, self.span(node.attr), any(self.guards)))
            return
        if quals and isinstance(node.value, (cst.Attribute, cst.Name)):
            q = self.qual(node)
            if q and q.startswith("tensorrt."):
                short = q[len("tensorrt."):]
                # ``Base.__init__(self)`` in a class deriving from it: reported once, at the class's base list
                if short in quals and not (self.classes and any(q == (self.qual(b.value) or "") for b in self.classes[-1].bases)):
                    self.api_uses.append(TrtApiUse(short, self.span(node), any(self.guards)))

    def _plugin_field(self, node: cst.Call) -> None:
        pos = [a for a in node.args if a.keyword is None and not a.star]
        kw = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        name_n = pos[0].value if pos else kw.get("name")
        data_n = pos[1].value if len(pos) > 1 else kw.get("data")
        type_n = pos[2].value if len(pos) > 2 else kw.get("type")
        ftype = None
        if type_n is not None:
            q = self.qual(type_n) or ""
            if q.startswith("tensorrt.PluginFieldType."):
                ftype = q.rsplit(".", 1)[1]
        dtype, explicit, empty = self._dtype_of(data_n) if data_n is not None else (None, False, False)
        self.fields.append(
            PyPluginField(
                name=_string(name_n) if name_n is not None else None,
                span=self.span(node),
                field_type=ftype,
                dtype=dtype,
                dtype_explicit=explicit,
                data=self.text(data_n) if data_n is not None else "",
                empty=empty,
            )
        )

    def _name_dtype(self, name: str, depth: int) -> tuple[Optional[str], bool, bool]:
        """The dtype of a local name's value (see :meth:`_dtype_of`): (None, False, False) when a binding is not a
        plain assignment, a value's dtype is not known, or the values disagree."""
        scope = self.funcs[-1] if self.funcs else self.module
        if isinstance(scope, cst.FunctionDef):
            p = scope.params
            if any(_names_in(x.name, name) for x in (*p.posonly_params, *p.params, *p.kwonly_params)) or any(
                    isinstance(x, cst.Param) and x.name.value == name for x in (p.star_arg, p.star_kwarg)):
                return None, False, False
        b = _Bindings(name)
        stmts = scope.body if isinstance(scope, cst.Module) else getattr(scope.body, "body", ())
        try:
            for stmt in stmts:
                stmt.visit(b)
        except Exception:  # noqa: BLE001 - a tree libcst cannot walk: not known
            return None, False, False
        if b.other or not b.values or len(b.values) > 8:
            return None, False, False
        got = {self._dtype_of(v, depth + 1) for v in b.values}
        if len(got) != 1:
            return None, False, False
        d, explicit, empty = got.pop()
        return (d, explicit, empty) if d is not None or empty else (None, False, False)

    def _np_dtype(self, node) -> Optional[str]:
        s = _string(node)
        if s is not None:
            return _NP_DTYPES.get(s)
        if isinstance(node, cst.Name) and node.value in _PY_DTYPES and node.value not in self.imports:
            return _PY_DTYPES[node.value]
        q = self.qual(node)
        if q and q.startswith("numpy."):
            return _NP_DTYPES.get(q.split(".", 1)[1])
        return None

    def _dtype_of(self, node, depth: int = 0) -> tuple[Optional[str], bool, bool]:
        """(numpy dtype, explicit?, empty?) of a PluginField data expression: a numpy constructor or conversion, a
        torch tensor converted and handed to numpy (``w.detach().cpu().float().numpy()``: float32), or a local name
        whose every binding in the function (or module) is one such value of one dtype."""
        if isinstance(node, cst.Name) and depth < 4:
            return self._name_dtype(node.value, depth)
        torch = _torch_numpy_dtype(node)
        if torch is not None:
            return torch, True, False
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "encode":
            return "bytes", True, False
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "astype" and node.args:
            d = self._np_dtype(node.args[0].value)
            return d, d is not None, False
        if not isinstance(node, cst.Call):
            return None, False, False
        q = self.qual(node.func) or ""
        if not q.startswith("numpy."):
            return None, False, False
        fname = q.split(".", 1)[1]
        if fname in _NP_DTYPES:  # np.int32(3)
            return _NP_DTYPES[fname], True, False
        if fname not in ("array", "asarray", "ascontiguousarray", "zeros", "ones", "full", "empty"):
            return None, False, False
        dtype_n = None
        for i, a in enumerate(node.args):
            if a.keyword is not None and a.keyword.value == "dtype":
                dtype_n = a.value
            elif a.keyword is None and i == 1 and fname in ("array", "asarray", "ascontiguousarray", "zeros", "ones", "empty"):
                dtype_n = a.value
            elif a.keyword is None and i == 2 and fname == "full":
                dtype_n = a.value
        if dtype_n is not None:
            d = self._np_dtype(dtype_n)
            return d, d is not None, False
        if fname in ("zeros", "ones", "empty"):
            return "float64", False, False
        if not node.args:
            return None, False, False
        data = node.args[0].value
        if fname == "full" and len(node.args) > 1:
            data = node.args[1].value
        kinds = _literal_kinds(data)
        if kinds is None:
            return None, False, False
        if kinds == set():
            return None, False, True
        if kinds == {"int"}:
            return "int64", False, False
        if kinds <= {"int", "float"}:
            return "float64", False, False
        if kinds == {"bool"}:
            return "bool", False, False
        return None, False, False


_NET_ADD_TEXT = re.compile(r"\b(?:net|network)\s*\.\s*add_\w+\s*\(")


def _is_net_add(call: cst.Call) -> bool:
    f = call.func
    if not isinstance(f, cst.Attribute) or not f.attr.value.startswith("add_"):
        return False
    if f.attr.value in ("add_input", "add_output"):  # network inputs/outputs are not layers (add_output marks one)
        return False
    recv = f.value
    if isinstance(recv, cst.Name):
        return recv.value in ("net", "network")
    if isinstance(recv, cst.Attribute):
        return recv.attr.value in ("net", "network")
    return False


def _returned_names(node) -> set:
    """Names returned as they are (``return layer``, ``return a, b``): the caller may name them."""
    if isinstance(node, cst.Name):
        return {node.value}
    if isinstance(node, (cst.Tuple, cst.List)):
        return {e.value.value for e in node.elements if isinstance(e.value, cst.Name)}
    return set()


def _name_used(body, name: str) -> bool:
    found = False

    class _V(fast.FastVisitMixin, cst.CSTVisitor):
        def visit_Name(v, n: cst.Name) -> None:
            nonlocal found
            if n.value == name:
                found = True

    fast.visit(body, _V())
    return found


def _has_call(body) -> bool:
    found = False

    class _V(fast.FastVisitMixin, cst.CSTVisitor):
        def visit_Call(v, n: cst.Call) -> None:
            nonlocal found
            found = True

    fast.visit(body, _V())
    return found


def _literal_kinds(node) -> Optional[set]:
    """Kinds of the scalar literals in a (nested) list/tuple literal; None when not a literal."""
    if isinstance(node, cst.Integer):
        return {"int"}
    if isinstance(node, cst.Float):
        return {"float"}
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return {"bool"}
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _literal_kinds(node.expression)
    if isinstance(node, (cst.List, cst.Tuple)):
        out: set = set()
        for el in node.elements:
            if isinstance(el, cst.StarredElement):
                return None
            k = _literal_kinds(el.value)
            if k is None:
                return None
            out |= k
        return out
    return None


def _dotted(node) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        b = _dotted(node.value)
        return f"{b}.{node.attr.value}" if b else None
    return None


def _walk_module_statements(body):
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        elif isinstance(stmt, (cst.If, cst.Try)):
            blocks = [stmt.body]
            if isinstance(stmt, cst.Try):
                blocks.extend(h.body for h in stmt.handlers)
            if isinstance(stmt, cst.If) and stmt.orelse is not None and isinstance(stmt.orelse, cst.Else):
                blocks.append(stmt.orelse.body)
            for blk in blocks:
                if isinstance(blk, cst.IndentedBlock):
                    yield from _walk_module_statements(blk.body)


@lru_cache(maxsize=1)
def _gate() -> "fast.FastSearch":
    """``.search(text)``: a match of a marker, or None (the same answer as one regex of them all, faster)."""
    return fast.FastSearch(prefilter_keywords() + (r"PluginField",))


def extract(rel: str, module: cst.Module, positions, imports: dict, text: str = "") -> dict:
    """The facts of one parsed module, as FileFacts keyword arguments (nothing when ``text`` has none of
    this module's markers: the walk costs about as much as the parse)."""
    if text and not _gate().search(text):
        return {}
    ex = TorchTrtExtractor(rel, module, positions, imports, text)
    ex.walk(module.body)
    return {
        "converters": tuple(ex.converters),
        "py_signatures": tuple(ex.signatures),
        "unnamed_layers": tuple(ex.unnamed),
        "qdp_defs": tuple(ex.qdp),
        "torch_op_uses": tuple(ex.ops),
        "py_enqueues": tuple(ex.enqueues),
        "py_plugin_fields": tuple(ex.fields),
        "trt_api_uses": tuple(ex.api_uses),
    }
