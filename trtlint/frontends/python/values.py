"""Python frontend, libcst part: what a name or expression holds at a point of the walk.

:class:`ValueTracker` is the libcst visitor the fact extractors (:mod:`.onnx_emit`) build on: import aliases,
scopes (module, class, function) and the bindings in them (static strings and their alternatives across
branches, numbers, attribute dicts being built, onnxscript opsets, parameters with their annotated types),
the static type of an expression, and the attributes of a call (keyword arguments and followed ``**dict``
splats). The walk is flow-insensitive but ordered; it never imports or runs the analysed code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

import libcst as cst

from trtlint.base.facts import AttrFact, Span
from . import fast
from .names import LAZY_IMPORTERS, TRT_CLASSES

_MAX_VALUE_LEN = 120
_MAX_ALTERNATIVES = 8


# --------------------------------------------------------------------------------------------------------
# Small helpers on libcst nodes
# --------------------------------------------------------------------------------------------------------


def string_value(node: cst.CSTNode) -> Optional[str]:
    """Literal value of a plain (non f-) string expression."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            v = node.evaluated_value
        except Exception:
            return None
        if isinstance(v, bytes):
            return None
        return v if isinstance(v, str) else None
    return None


def dotted(node: cst.CSTNode) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def callee_last(func: cst.BaseExpression) -> Optional[str]:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def is_prefix(a: tuple, b: tuple) -> bool:
    return len(a) <= len(b) and b[: len(a)] == a


_INT_CALLS = {"int", "len", "bool", "round"}
_FLOAT_CALLS = {"float"}
_STR_CALLS = {"str", "repr"}
_SEQ_NAMES = {"Sequence", "List", "list", "Tuple", "tuple", "Iterable", "MutableSequence"}
_SCALAR_ANN = {"int": "INT", "bool": "INT", "float": "FLOAT", "str": "STRING"}
LIST_OF = {"INT": "INTS", "FLOAT": "FLOATS", "STRING": "STRINGS"}

_PLUGIN_ATTR_PREFIXES = ("plugin_version", "plugin_namespace")
_OPSET_QUALNAMES = {"onnxscript.values.Opset", "onnxscript.Opset"}


# --------------------------------------------------------------------------------------------------------
# Bindings and scopes
# --------------------------------------------------------------------------------------------------------


@dataclass
class Entry:
    name: str
    span: Span
    value: Optional[str]
    type: Optional[str]
    branch: tuple
    conditional: bool = False
    literal: Optional[str] = None  # the value when it is a static string


@dataclass
class DictState:
    entries: dict = field(default_factory=dict)  # name -> Entry
    open: bool = False
    branch: tuple = ()

    def copy(self) -> "DictState":
        return DictState(dict(self.entries), self.open, self.branch)


@dataclass
class Binding:
    kind: str  # "str" | "num" | "seq" | "dict" | "opset" | "param" | "unknown"
    values: tuple = ()  # "str": possible strings
    type: Optional[str] = None  # "num"/"seq"/"param": attribute type ("seq": INTS, FLOATS or STRINGS)
    dict: Optional[DictState] = None
    domain: Optional[str] = None  # "opset"
    branch: tuple = ()



@dataclass
class Scope:
    kind: str  # "module" | "class" | "function"
    name: str
    bindings: dict = field(default_factory=dict)
    params: tuple = ()  # a function's parameter names, in order (positional, then keyword-only)
    creator_calls: list = field(default_factory=list)  # (version, namespace)
    table_lookups: list = field(default_factory=list)  # (table name, fallback_identity)
    node: Optional[cst.CSTNode] = None  # a function's def (for :func:`store_counts`)
    stores: Optional[dict] = None  # store_counts(node), computed on first need


# --------------------------------------------------------------------------------------------------------
# The tracker
# --------------------------------------------------------------------------------------------------------


class ValueTracker(fast.FastVisitMixin, cst.CSTVisitor):
    """Imports, scopes and bindings along a libcst walk; the facts are made by a subclass, through the hooks
    :meth:`class_facts`, :meth:`function_facts` and :meth:`function_done` (see :mod:`.onnx_emit`)."""

    def __init__(self, rel: str, module: cst.Module, positions) -> None:
        super().__init__()
        self.rel = rel
        self.module = module
        self.positions = positions
        self.imports: dict[str, str] = {}  # local name -> qualified name
        self.star_imports: set[str] = set()
        self.scopes: list[Scope] = [Scope("module", "")]
        self.branch: list[int] = []
        self._branch_id = 0

    # ---- spans / text -------------------------------------------------------------------------------
    def span(self, node: cst.CSTNode) -> Span:
        r = self.positions.get(id(node))
        if r is None:
            return Span(self.rel, 1, 1, 1, 1)
        return Span(self.rel, r[0], r[1] + 1, r[2], r[3] + 1)

    def text(self, node: cst.CSTNode) -> str:
        try:
            s = self.module.code_for_node(node)
        except Exception:
            return ""
        s = " ".join(s.split())
        if len(s) > _MAX_VALUE_LEN:
            s = s[: _MAX_VALUE_LEN - 3] + "..."
        return s

    # ---- scopes -------------------------------------------------------------------------------------
    @property
    def scope(self) -> Scope:
        return self.scopes[-1]

    @property
    def module_scope(self) -> Scope:
        return self.scopes[0]

    def function_qualname(self) -> Optional[str]:
        names = [s.name for s in self.scopes[1:]]
        if not any(s.kind == "function" for s in self.scopes[1:]):
            return None
        return ".".join(names)

    def lookup(self, name: str) -> Optional[Binding]:
        last = len(self.scopes) - 1
        for i in range(last, -1, -1):
            sc = self.scopes[i]
            if sc.kind == "class" and i != last:
                continue
            b = sc.bindings.get(name)
            if b is not None:
                return b
        return None

    def bind(self, name: str, b: Binding) -> None:
        b.branch = tuple(self.branch)
        old = self.scope.bindings.get(name)
        # ``x = "a"`` then ``if c: x = "b"`` (or if/else arms): keep both possibilities
        if (
            old is not None
            and old.kind == b.kind
            and len(b.branch) > len(old.branch)
            and is_prefix(old.branch, b.branch)
        ):
            if b.kind == "str" and (old.branch != b.branch):
                vals = tuple(dict.fromkeys(old.values + b.values))
                b = Binding("str", values=vals[:_MAX_ALTERNATIVES], branch=old.branch)
            elif b.kind == "dict" and old.dict is not None and b.dict is not None and old.branch != b.branch:
                merged = DictState(open=old.dict.open or b.dict.open, branch=old.branch)
                for k, e in old.dict.entries.items():
                    merged.entries[k] = Entry(e.name, e.span, e.value, e.type, e.branch,
                                              e.conditional or k not in b.dict.entries, e.literal)
                for k, e in b.dict.entries.items():
                    if k not in merged.entries:
                        merged.entries[k] = Entry(e.name, e.span, e.value, e.type, e.branch, True, e.literal)
                b = Binding("dict", dict=merged, branch=old.branch)
        self.scope.bindings[name] = b

    # ---- name resolution ----------------------------------------------------------------------------
    def qualify(self, node: cst.CSTNode) -> Optional[str]:
        """Qualified dotted name of an expression through import aliases, e.g. ``trt.PluginField``."""
        if isinstance(node, cst.Name):
            for sc in reversed(self.scopes[1:]):
                if sc.kind != "function":
                    continue
                b = sc.bindings.get(node.value)
                if b is not None:
                    if b.kind != "import":
                        return None  # a local shadows the import
                    break
            q = self.imports.get(node.value)
            if q is not None:
                return q
            if "tensorrt" in self.star_imports and node.value in TRT_CLASSES:
                return "tensorrt." + node.value
            return None
        if isinstance(node, cst.Attribute):
            base = self.qualify(node.value)
            return f"{base}.{node.attr.value}" if base else None
        return None

    def strings(self, node: Optional[cst.CSTNode]) -> Optional[tuple]:
        """Possible literal string values of an expression; None when not static."""
        if node is None:
            return None
        v = string_value(node)
        if v is not None:
            return (v,)
        if isinstance(node, cst.Name):
            b = self.lookup(node.value)
            if b is not None and b.kind == "str":
                return b.values
            return None
        if isinstance(node, cst.IfExp):
            a, c = self.strings(node.body), self.strings(node.orelse)
            if a is not None and c is not None:
                return tuple(dict.fromkeys(a + c))
            return None
        if isinstance(node, cst.FormattedString):
            return self._fstring(node)
        if isinstance(node, cst.Attribute):
            # ``self.NAME`` / ``Class.NAME`` are not followed
            return None
        return None

    def _fstring(self, node: cst.FormattedString) -> Optional[tuple]:
        """``f"{domain}::Op"``: the strings an f-string takes when each of its fields is a plain name bound to
        literals (no conversion or format spec); None otherwise, or past 16 combinations."""
        if node.prefix.lower() not in ("f", "rf", "fr"):
            return None
        out = [""]
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                vals: Optional[tuple] = (part.value,)
                if "{" in part.value or "}" in part.value or ("r" not in node.prefix.lower() and "\\" in part.value):
                    return None  # an escaped brace or an escape sequence: not taken as written
            elif part.conversion is None and part.format_spec is None and isinstance(part.expression, cst.Name):
                vals = self.strings(part.expression)
            else:
                return None
            if vals is None:
                return None
            out = [o + v for o in out for v in vals]
            if len(out) > 16:
                return None
        return tuple(dict.fromkeys(out))

    def one_string(self, node: Optional[cst.CSTNode]) -> Optional[str]:
        vals = self.strings(node)
        if vals is not None and len(vals) == 1:
            return vals[0]
        return None

    def infer_type(self, node: cst.CSTNode) -> Optional[str]:
        if isinstance(node, cst.Integer):
            return "INT"
        if isinstance(node, cst.Float):
            return "FLOAT"
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            if isinstance(node, cst.SimpleString) and node.prefix.lower().startswith("b"):
                return None
            return "STRING"
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return "INT"
            if node.value == "None":
                return None
            b = self.lookup(node.value)
            if b is None:
                return None
            if b.kind == "str":
                return "STRING"
            if b.kind in ("num", "seq", "param"):
                return b.type
            return None
        if isinstance(node, cst.UnaryOperation):
            t = self.infer_type(node.expression)
            if isinstance(node.operator, cst.Not):
                return "INT"
            return t if t in ("INT", "FLOAT") else None
        if isinstance(node, cst.BinaryOperation):
            a, b = self.infer_type(node.left), self.infer_type(node.right)
            if a in ("INT", "FLOAT") and b in ("INT", "FLOAT"):
                if isinstance(node.operator, cst.Divide) or "FLOAT" in (a, b):
                    return "FLOAT"
                return "INT"
            if a == b == "STRING" and isinstance(node.operator, cst.Add):
                return "STRING"
            return None
        if isinstance(node, cst.IfExp):
            a, b = self.infer_type(node.body), self.infer_type(node.orelse)
            if a == b:
                return a
            if {a, b} == {"INT", "FLOAT"}:
                return "FLOAT"
            return None
        if isinstance(node, (cst.List, cst.Tuple)):
            types = set()
            for el in node.elements:
                if isinstance(el, (cst.StarredElement,)):
                    return None
                types.add(self.infer_type(el.value))
            if not types or None in types:
                return None
            if types == {"INT"}:
                return "INTS"
            if types <= {"INT", "FLOAT"}:
                return "FLOATS"
            if types == {"STRING"}:
                return "STRINGS"
            return None
        if isinstance(node, cst.Call):
            last = callee_last(node.func)
            if isinstance(node.func, cst.Name):
                if last in _INT_CALLS:
                    return "INT"
                if last in _FLOAT_CALLS:
                    return "FLOAT"
                if last in _STR_CALLS:
                    return "STRING"
            q = self.qualify(node.func) or ""
            if q in ("onnx.helper.make_tensor", "onnx.numpy_helper.from_array"):
                return "TENSOR"
            return None
        return None

    # ---- attribute dicts ----------------------------------------------------------------------------
    def make_entry(self, name: str, span_node: cst.CSTNode, value: cst.BaseExpression) -> Entry:
        literal = self.one_string(value) if name.startswith(_PLUGIN_ATTR_PREFIXES) else None
        return Entry(
            name, self.span(span_node), self.text(value), self.infer_type(value), tuple(self.branch), False, literal
        )

    def dict_state_of(self, node: cst.BaseExpression) -> Optional[DictState]:
        """A fresh dict state for an expression that builds a dict, or None if it is not a dict we follow."""
        if isinstance(node, cst.Dict):
            st = DictState(branch=tuple(self.branch))
            for el in node.elements:
                if isinstance(el, cst.StarredDictElement):
                    self.merge_into(st, el.value)
                    continue
                key = self.one_string(el.key)
                if key is None:
                    st.open = True
                    continue
                st.entries[key] = self.make_entry(key, el, el.value)
            return st
        if isinstance(node, cst.Call):
            fn = node.func
            if (isinstance(fn, cst.Name) and fn.value == "dict" and self.lookup("dict") is None) or (
                callee_last(fn) == "OrderedDict"
            ):
                st = DictState(branch=tuple(self.branch))
                for arg in node.args:
                    if arg.keyword is not None:
                        st.entries[arg.keyword.value] = self.make_entry(arg.keyword.value, arg, arg.value)
                    elif not arg.star and isinstance(arg.value, (cst.List, cst.Tuple)):
                        self._pairs_into(st, arg.value)  # dict([("k", v), ...])
                    else:
                        self.merge_into(st, arg.value)
                return st
            if (
                isinstance(fn, cst.Attribute)
                and fn.attr.value == "copy"
                and not node.args
                and isinstance(fn.value, cst.Name)
            ):
                src = self.lookup_dict(fn.value.value)
                return src.copy() if src is not None else None
        if isinstance(node, cst.Name):
            src = self.lookup_dict(node.value)
            return src  # aliasing: same object
        return None

    def _pairs_into(self, st: DictState, seq: cst.BaseExpression) -> None:
        for el in seq.elements:
            pair = el.value
            if isinstance(pair, cst.Tuple) and len(pair.elements) == 2:
                key = string_value(pair.elements[0].value)
                if key is not None:
                    st.entries[key] = self.make_entry(key, pair, pair.elements[1].value)
                    continue
            st.open = True

    def lookup_dict(self, name: str) -> Optional[DictState]:
        b = self.lookup(name)
        if b is not None and b.kind == "dict":
            return b.dict
        return None

    def merge_into(self, st: DictState, node: cst.BaseExpression) -> None:
        """``**node`` / ``update(node)``: copy what we can follow; otherwise mark open."""
        src = self.dict_state_of(node) if not isinstance(node, cst.Name) else self.lookup_dict(node.value)
        if src is None:
            st.open = True
            return
        cur = tuple(self.branch)
        for k, e in src.entries.items():
            cond = e.conditional or not is_prefix(e.branch, cur)
            st.entries[k] = Entry(e.name, e.span, e.value, e.type, cur, cond, e.literal)
        st.open = st.open or src.open

    def collect_attrs(
        self, call: cst.Call, args: Iterable[cst.Arg], exclude, positional_dicts: bool = False
    ) -> tuple[list[tuple[AttrFact, Optional[str]]], bool]:
        """Attributes of a call: keyword args plus followed ``**dict`` splats, each with its static
        string value when it is one of the plugin version/namespace attributes."""
        out: dict[str, tuple[AttrFact, Optional[str]]] = {}
        open_attrs = False
        cur = tuple(self.branch)
        for arg in args:
            positional_dict = (
                positional_dicts
                and arg.keyword is None
                and not arg.star
                and (isinstance(arg.value, cst.Dict) or (
                    isinstance(arg.value, cst.Name) and self.lookup_dict(arg.value.value) is not None))
            )
            if arg.star == "**" or positional_dict:
                st = self.dict_state_of(arg.value)
                if st is None:
                    open_attrs = True
                    continue
                open_attrs = open_attrs or st.open
                for k, e in st.entries.items():
                    if exclude(k):
                        continue
                    cond = e.conditional or not is_prefix(e.branch, cur)
                    out[k] = (AttrFact(e.name, e.span, e.value, e.type, cond), e.literal)
            elif arg.keyword is not None:
                k = arg.keyword.value
                if exclude(k):
                    continue
                lit = self.one_string(arg.value) if k.startswith(_PLUGIN_ATTR_PREFIXES) else None
                out[k] = (
                    AttrFact(
                        k, self.span(arg), self.text(arg.value), self.infer_type(arg.value), False,
                        name_span=self.span(arg.keyword),
                    ),
                    lit,
                )
        return list(out.values()), open_attrs

    # ---- branch tracking ----------------------------------------------------------------------------
    def _push_branch(self) -> None:
        self._branch_id += 1
        self.branch.append(self._branch_id)

    def _pop_branch(self) -> None:
        if self.branch:
            self.branch.pop()

    def visit_If(self, node: cst.If) -> None:
        self._push_branch()

    def leave_If(self, node: cst.If) -> None:
        self._pop_branch()

    def visit_Else(self, node: cst.Else) -> None:
        self._push_branch()

    def leave_Else(self, node: cst.Else) -> None:
        self._pop_branch()

    def visit_For(self, node: cst.For) -> None:
        self._push_branch()
        self._bind_targets(node.target)

    def leave_For(self, node: cst.For) -> None:
        self._pop_branch()

    def visit_While(self, node: cst.While) -> None:
        self._push_branch()

    def leave_While(self, node: cst.While) -> None:
        self._pop_branch()

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._push_branch()

    def leave_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._pop_branch()

    def visit_MatchCase(self, node) -> None:
        self._push_branch()

    def leave_MatchCase(self, node) -> None:
        self._pop_branch()

    # ---- imports ------------------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted(alias.name)
            if not full:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
                self.imports[local] = full
                self._shadow_import(local)
            else:
                top = full.split(".")[0]
                self.imports[top] = top
                self._shadow_import(top)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative:
            return
        mod = dotted(node.module) if node.module is not None else None
        if not mod:
            return
        if isinstance(node.names, cst.ImportStar):
            self.star_imports.add(mod.split(".")[0])
            return
        for alias in node.names:
            name = dotted(alias.name)
            if not name:
                continue
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.imports[local] = f"{mod}.{name}"
            self._shadow_import(local)

    def _shadow_import(self, local: str) -> None:
        # an import re-binds the name in the current scope
        self.scope.bindings[local] = Binding("import")

    # ---- classes and defs ---------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.bindings[node.name.value] = Binding("unknown")
        self.class_facts(node)
        self.scopes.append(Scope("class", node.name.value))

    def class_facts(self, node: cst.ClassDef) -> None:
        """Facts of a class statement, made in the scope around it (before its body's scope opens)."""

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.scopes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.function_facts(node)
        self.scope.bindings[node.name.value] = Binding("unknown")
        sc = Scope("function", node.name.value, node=node)
        params = node.params
        allp = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
        for p in allp:
            sc.bindings[p.name.value] = Binding("param", type=self.annotation_type(p.annotation))
        sc.params = tuple(p.name.value for p in allp)
        for p in (params.star_arg, params.star_kwarg):
            if isinstance(p, cst.Param):
                sc.bindings[p.name.value] = Binding("unknown")
        self.scopes.append(sc)
        self._saved_branch = getattr(self, "_saved_branch", [])
        self._saved_branch.append(self.branch)
        self.branch = []

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        sc = self.scopes.pop()
        self.branch = self._saved_branch.pop()
        self.function_done(sc)

    def function_facts(self, node: cst.FunctionDef) -> None:
        """Facts of a def statement (its decorators), made in the scope around it (before its own opens)."""

    def function_done(self, sc: Scope) -> None:
        """A function's scope has closed (``sc``: what its body recorded)."""

    def annotation_type(self, ann: Optional[cst.Annotation]) -> Optional[str]:
        if ann is None:
            return None
        return self._ann(ann.annotation)

    def _ann(self, node: cst.BaseExpression) -> Optional[str]:
        if isinstance(node, cst.Name):
            return _SCALAR_ANN.get(node.value)
        if isinstance(node, (cst.SimpleString,)):
            try:
                inner = cst.parse_expression(node.evaluated_value)
            except Exception:
                return None
            return self._ann(inner)
        if isinstance(node, cst.Subscript):
            base = callee_last(node.value) if isinstance(node.value, (cst.Name, cst.Attribute)) else None
            elems = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
            if base == "Optional" and len(elems) == 1:
                return self._ann(elems[0])
            if base in _SEQ_NAMES and elems:
                inner = {self._ann(e) for e in elems if not (isinstance(e, cst.Ellipsis))}
                if len(inner) == 1:
                    t = inner.pop()
                    return LIST_OF.get(t) if t else None
            return None
        return None

    # ---- assignments --------------------------------------------------------------------------------
    def _bind_targets(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.bind(target.value, Binding("unknown"))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._bind_targets(el.value)
        elif isinstance(target, cst.StarredElement):
            self._bind_targets(target.value)

    def binding_for_value(self, value: cst.BaseExpression) -> Binding:
        vals = self.strings(value)
        if vals is not None:
            return Binding("str", values=vals[:_MAX_ALTERNATIVES])
        if isinstance(value, cst.Call):
            q = self.qualify(value.func)
            if q in _OPSET_QUALNAMES:
                return Binding("opset", domain=self._opset_domain(value))
        st = self.dict_state_of(value)
        if st is not None:
            return Binding("dict", dict=st)
        t = self.infer_type(value)
        if t in ("INT", "FLOAT") and isinstance(value, (cst.Integer, cst.Float, cst.UnaryOperation)):
            return Binding("num", type=t)
        t = literal_seq_type(value)
        if t is not None:
            return Binding("seq", type=t)
        return Binding("unknown")

    def bind_stored(self, name: str, value: cst.BaseExpression) -> None:
        """``name = value`` in the current scope. A sequence of literals (``pads = (1, 1)``) keeps its type only
        when the function stores to the name nowhere else (no other assignment, ``+=``, item store, ``del``,
        method call such as ``append``: :func:`store_counts`); at module level the pre-pass counts the same."""
        b = self.binding_for_value(value)
        sc = self.scope
        if b.kind == "seq" and sc.kind == "function":
            if sc.stores is None:
                sc.stores = store_counts(sc.node) if sc.node is not None else {}
            if sc.stores.get(name, 0) != 1:
                b = Binding("unknown")
        self.bind(name, b)

    def _opset_domain(self, call: cst.Call) -> Optional[str]:
        dom = None
        for i, arg in enumerate(call.args):
            if arg.keyword is not None:
                if arg.keyword.value == "domain":
                    dom = arg.value
            elif i == 0 and not arg.star:
                dom = arg.value
        return self.one_string(dom) if dom is not None else None

    def leave_Assign(self, node: cst.Assign) -> None:
        value = node.value
        lazy = lazy_import_of(value)
        for t in node.targets:
            target = t.target
            if isinstance(target, cst.Name) and lazy is not None:
                # ``gs = mod.lazy_import("onnx_graphsurgeon")``, ``np = importlib.import_module("numpy")``: the
                # name is the module, as ``import onnx_graphsurgeon as gs`` binds it
                self.imports[target.value] = lazy
                self._shadow_import(target.value)
            elif isinstance(target, cst.Name):
                self.bind_stored(target.value, value)
            elif isinstance(target, cst.Subscript):
                self._subscript_store(target, value, node)
            else:
                self._bind_targets(target)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        target = node.target
        if node.value is None:
            return
        if isinstance(target, cst.Name):
            self.bind_stored(target.value, node.value)
        elif isinstance(target, cst.Subscript):
            self._subscript_store(target, node.value, node)

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        target = node.target
        if isinstance(target, cst.Name):
            st = self.lookup_dict(target.value)
            if st is not None and isinstance(node.operator, cst.BitOrAssign):
                self.merge_into(st, node.value)
                return
            b = self.lookup(target.value)
            if b is not None and b.kind in ("num", "str") and b.branch == tuple(self.branch):
                return
            self.bind(target.value, Binding("unknown"))

    def _subscript_store(self, target: cst.Subscript, value: cst.BaseExpression, stmt: cst.CSTNode) -> None:
        if not isinstance(target.value, cst.Name):
            return
        st = self.lookup_dict(target.value.value)
        if st is None:
            return
        elems = target.slice
        if len(elems) != 1 or not isinstance(elems[0].slice, cst.Index):
            st.open = True
            return
        key = self.one_string(elems[0].slice.value)
        if key is None:
            st.open = True
            return
        st.entries[key] = self.make_entry(key, stmt, value)

    def visit_Del(self, node: cst.Del) -> None:
        target = node.target
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            st = self.lookup_dict(target.value.value)
            if st is None or len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
                return
            key = self.one_string(target.slice[0].slice.value)
            e = st.entries.get(key) if key is not None else None
            if e is not None and is_prefix(tuple(self.branch), e.branch):
                del st.entries[key]
            elif e is not None:
                e.conditional = True

    def dict_call(self, st: DictState, method: str, node: cst.Call) -> None:
        """``d.update(...)`` / ``d.setdefault(...)`` on a followed attribute dict."""
        if method == "update":
            for arg in node.args:
                if arg.keyword is not None:
                    st.entries[arg.keyword.value] = self.make_entry(arg.keyword.value, arg, arg.value)
                else:
                    self.merge_into(st, arg.value)
        elif method == "setdefault":
            pos = [a for a in node.args if a.keyword is None and not a.star]
            key = self.one_string(pos[0].value) if pos else None
            if key is None:
                st.open = True
            elif key not in st.entries and len(pos) >= 2:
                st.entries[key] = self.make_entry(key, node, pos[1].value)


_LITERAL_SEQ = {cst.Integer: "INTS", cst.Float: "FLOATS", cst.SimpleString: "STRINGS"}


def literal_seq_type(value: cst.BaseExpression) -> Optional[str]:
    """INTS, FLOATS or STRINGS for a non-empty tuple or list whose elements are all literals of one kind (``(1, 1)``,
    ``[0.5, -1.0]``, ``("a", "b")``); None otherwise (a name, a call, mixed kinds, bytes, a starred element)."""
    if not isinstance(value, (cst.Tuple, cst.List)) or not value.elements:
        return None
    kinds = set()
    for el in value.elements:
        if not isinstance(el, cst.Element):
            return None
        v = el.value
        if isinstance(v, cst.UnaryOperation) and isinstance(v.operator, (cst.Minus, cst.Plus)):
            v = v.expression
            if not isinstance(v, (cst.Integer, cst.Float)):
                return None
        if isinstance(v, cst.SimpleString) and v.prefix.lower().startswith("b"):
            return None
        k = _LITERAL_SEQ.get(type(v))
        if k is None:
            return None
        kinds.add(k)
    return kinds.pop() if len(kinds) == 1 else None


def store_counts(node: cst.CSTNode) -> dict:
    """How often the code under ``node`` (nested functions included) stores to each plain name: an assignment
    counts 1; anything else that may change what the name holds counts 2 (an assignment to several targets at
    once, ``+=``, a ``for``/``with``/walrus/``except`` target, ``global``/``nonlocal``, ``del``, an item or
    attribute store ``name[i] = ...``, any method call ``name.append(...)``). A name counted 1 is bound once."""
    counts: dict = {}

    def add(n: str, k: int) -> None:
        counts[n] = counts.get(n, 0) + k

    def names(t) -> Iterable[str]:
        if isinstance(t, cst.Name):
            yield t.value
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                yield from names(el.value)
        elif isinstance(t, cst.StarredElement):
            yield from names(t.value)
        elif isinstance(t, (cst.Subscript, cst.Attribute)) and isinstance(t.value, cst.Name):
            yield t.value.value

    class _V(cst.CSTVisitor):
        def visit_Assign(self, n: cst.Assign) -> None:
            for t in n.targets:
                if isinstance(t.target, cst.Name):
                    add(t.target.value, 1)
                else:
                    for x in names(t.target):
                        add(x, 2)

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            if n.value is not None:
                for x in names(n.target):
                    add(x, 1 if isinstance(n.target, cst.Name) else 2)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            for x in names(n.target):
                add(x, 2)

        def visit_For(self, n: cst.For) -> None:
            for x in names(n.target):
                add(x, 2)

        def visit_WithItem(self, n: cst.WithItem) -> None:
            if n.asname is not None:
                for x in names(n.asname.name):
                    add(x, 2)

        def visit_NamedExpr(self, n: cst.NamedExpr) -> None:
            for x in names(n.target):
                add(x, 2)

        def visit_ExceptHandler(self, n: cst.ExceptHandler) -> None:
            if n.name is not None:
                for x in names(n.name.name):
                    add(x, 2)

        def visit_Global(self, n: cst.Global) -> None:
            for it in n.names:
                add(it.name.value, 2)

        def visit_Nonlocal(self, n: cst.Nonlocal) -> None:
            for it in n.names:
                add(it.name.value, 2)

        def visit_Del(self, n: cst.Del) -> None:
            for x in names(n.target):
                add(x, 2)

        def visit_Call(self, n: cst.Call) -> None:
            f = n.func
            if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name):
                add(f.value.value, 2)

    node.visit(_V())
    return counts


# a version constraint after the module's name (``lazy_import("onnx>=1.17")``) is dropped
_MODULE_NAME = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*")


def lazy_import_of(value: cst.BaseExpression) -> Optional[str]:
    """The module a call binding a name to a module imports (``importlib.import_module("numpy")``,
    ``mod.lazy_import("onnx>=1.17")``), when its first argument is a literal string; None otherwise."""
    if not isinstance(value, cst.Call) or not value.args or value.args[0].keyword is not None or value.args[0].star:
        return None
    f = value.func
    last = f.value if isinstance(f, cst.Name) else f.attr.value if isinstance(f, cst.Attribute) else None
    if last not in LAZY_IMPORTERS:
        return None
    s = string_value(value.args[0].value)
    m = _MODULE_NAME.match(s.strip()) if s else None
    return m.group(0) if m else None
