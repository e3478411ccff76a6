"""Python frontend, libcst part: ONNX node emissions, direct-route builder calls, creator lookups and plugin API uses.

Imported by :mod:`trtlint.frontends.python` only for a file whose stdlib ``ast`` tree holds a construct these
extractors make facts from (python_fast.libcst_facts_possible), so a process that never meets such a file
never imports libcst. libcst (with PositionProvider's positions) is the parser behind the facts of this module
and python_torchtrt; import aliases, string constants and attribute dicts are resolved by a small,
flow-insensitive-but-ordered walk (no scope/qualified-name providers, they are slow). To keep the cost down
(see python_fast): functions without a marker are blanked before the parse, positions are computed with cheap
bookkeeping and visits do not rebuild the tree. The analysed code is never imported or executed.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..facts import (
    AttrFact,
    CreatorLookup,
    DirectRouteCall,
    DirectRouteTable,
    FileFacts,
    OnnxEmission,
    ParseProblem,
    PluginApiUse,
    PluginFieldDecl,
    PyCreator,
    Span,
)
from . import ExtractContext, SourceFile
from . import python_fast as _fast
from . import python_torchtrt as _torchtrt
from .python import _DEFAULT_ROUTE_CALLS, _DEFAULT_ROUTE_RESERVED, _empty, _prefilter
from .python_names import _API_METHODS, _CREATOR_METHODS, _TRT_CLASSES

_MAX_VALUE_LEN = 120
_MAX_ALTERNATIVES = 8

# --------------------------------------------------------------------------------------------------------
# Standard ONNX ops (domain "" emissions of these are builtin, not plugins)
# --------------------------------------------------------------------------------------------------------

_ONNX_DEFS = None  # False when onnx is unavailable


def _is_standard_onnx_op(op_type: str) -> bool:
    global _ONNX_DEFS
    if _ONNX_DEFS is None:
        try:
            from onnx import defs as onnx_defs  # only the schema table; never the analysed code

            _ONNX_DEFS = onnx_defs
        except Exception:  # pragma: no cover - onnx is a dependency
            _ONNX_DEFS = False
    if _ONNX_DEFS is False:
        return False
    try:
        return bool(_ONNX_DEFS.has(op_type, ""))
    except Exception:  # pragma: no cover
        return False


# --------------------------------------------------------------------------------------------------------
# Small helpers on libcst nodes
# --------------------------------------------------------------------------------------------------------


def _string_value(node: cst.CSTNode) -> Optional[str]:
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


def _dotted(node: cst.CSTNode) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _callee_last(func: cst.BaseExpression) -> Optional[str]:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def _is_prefix(a: tuple, b: tuple) -> bool:
    return len(a) <= len(b) and b[: len(a)] == a


_INT_CALLS = {"int", "len", "bool", "round"}
_FLOAT_CALLS = {"float"}
_STR_CALLS = {"str", "repr"}
_SEQ_NAMES = {"Sequence", "List", "list", "Tuple", "tuple", "Iterable", "MutableSequence"}
_SCALAR_ANN = {"int": "INT", "bool": "INT", "float": "FLOAT", "str": "STRING"}
_LIST_OF = {"INT": "INTS", "FLOAT": "FLOATS", "STRING": "STRINGS"}

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

_PLUGIN_ATTR_PREFIXES = ("plugin_version", "plugin_namespace")
_MAKE_NODE_RESERVED = {"op_type", "inputs", "outputs", "name", "doc_string", "domain", "overload"}
_OPSET_QUALNAMES = {"onnxscript.values.Opset", "onnxscript.Opset"}
_MAKE_NODE_QUALNAMES = {"onnx.helper.make_node"}


# --------------------------------------------------------------------------------------------------------
# Bindings and scopes
# --------------------------------------------------------------------------------------------------------


@dataclass
class _Entry:
    name: str
    span: Span
    value: Optional[str]
    type: Optional[str]
    branch: tuple
    conditional: bool = False
    literal: Optional[str] = None  # the value when it is a static string


@dataclass
class _DictState:
    entries: dict = field(default_factory=dict)  # name -> _Entry
    open: bool = False
    branch: tuple = ()

    def copy(self) -> "_DictState":
        return _DictState(dict(self.entries), self.open, self.branch)


@dataclass
class _Binding:
    kind: str  # "str" | "num" | "dict" | "opset" | "param" | "unknown"
    values: tuple = ()  # "str": possible strings
    type: Optional[str] = None  # "num"/"param": attribute type
    dict: Optional[_DictState] = None
    domain: Optional[str] = None  # "opset"
    branch: tuple = ()


_UNKNOWN = _Binding("unknown")


@dataclass
class _Scope:
    kind: str  # "module" | "class" | "function"
    name: str
    bindings: dict = field(default_factory=dict)
    creator_calls: list = field(default_factory=list)  # (version, namespace)
    table_lookups: list = field(default_factory=list)  # (table name, fallback_identity)


@dataclass
class _TableCand:
    name: str
    span: Span
    entries: tuple
    used: bool = False
    fallback_identity: bool = False
    version: Optional[str] = None
    namespace: Optional[str] = None


# --------------------------------------------------------------------------------------------------------
# The extractor
# --------------------------------------------------------------------------------------------------------


class _Extractor(_fast.FastVisitMixin, cst.CSTVisitor):
    def __init__(self, rel: str, module: cst.Module, positions, ctx: ExtractContext) -> None:
        super().__init__()
        self.rel = rel
        self.module = module
        self.positions = positions
        self.route_names = set(getattr(ctx, "route_call_names", _DEFAULT_ROUTE_CALLS))
        self.route_reserved = set(getattr(ctx, "route_reserved_kwargs", _DEFAULT_ROUTE_RESERVED))
        self.imports: dict[str, str] = {}  # local name -> qualified name
        self.star_imports: set[str] = set()
        self.scopes: list[_Scope] = [_Scope("module", "")]
        self.branch: list[int] = []
        self._branch_id = 0
        self.tables: dict[str, _TableCand] = {}
        self.emissions: list[OnnxEmission] = []
        self.route_calls: list[DirectRouteCall] = []
        self.lookups: list[CreatorLookup] = []
        self.api_uses: list[PluginApiUse] = []
        self.py_creators: list[PyCreator] = []

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
    def scope(self) -> _Scope:
        return self.scopes[-1]

    @property
    def module_scope(self) -> _Scope:
        return self.scopes[0]

    def function_qualname(self) -> Optional[str]:
        names = [s.name for s in self.scopes[1:]]
        if not any(s.kind == "function" for s in self.scopes[1:]):
            return None
        return ".".join(names)

    def lookup(self, name: str) -> Optional[_Binding]:
        last = len(self.scopes) - 1
        for i in range(last, -1, -1):
            sc = self.scopes[i]
            if sc.kind == "class" and i != last:
                continue
            b = sc.bindings.get(name)
            if b is not None:
                return b
        return None

    def bind(self, name: str, b: _Binding) -> None:
        b.branch = tuple(self.branch)
        old = self.scope.bindings.get(name)
        # ``x = "a"`` then ``if c: x = "b"`` (or if/else arms): keep both possibilities
        if (
            old is not None
            and old.kind == b.kind
            and len(b.branch) > len(old.branch)
            and _is_prefix(old.branch, b.branch)
        ):
            if b.kind == "str" and (old.branch != b.branch):
                vals = tuple(dict.fromkeys(old.values + b.values))
                b = _Binding("str", values=vals[:_MAX_ALTERNATIVES], branch=old.branch)
            elif b.kind == "dict" and old.dict is not None and b.dict is not None and old.branch != b.branch:
                merged = _DictState(open=old.dict.open or b.dict.open, branch=old.branch)
                for k, e in old.dict.entries.items():
                    merged.entries[k] = _Entry(e.name, e.span, e.value, e.type, e.branch,
                                               e.conditional or k not in b.dict.entries, e.literal)
                for k, e in b.dict.entries.items():
                    if k not in merged.entries:
                        merged.entries[k] = _Entry(e.name, e.span, e.value, e.type, e.branch, True, e.literal)
                b = _Binding("dict", dict=merged, branch=old.branch)
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
            if "tensorrt" in self.star_imports and node.value in _TRT_CLASSES:
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
        v = _string_value(node)
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
        if isinstance(node, cst.Attribute):
            # ``self.NAME`` / ``Class.NAME`` are not followed
            return None
        return None

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
            if b.kind in ("num", "param"):
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
            last = _callee_last(node.func)
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
    def make_entry(self, name: str, span_node: cst.CSTNode, value: cst.BaseExpression) -> _Entry:
        literal = self.one_string(value) if name.startswith(_PLUGIN_ATTR_PREFIXES) else None
        return _Entry(
            name, self.span(span_node), self.text(value), self.infer_type(value), tuple(self.branch), False, literal
        )

    def dict_state_of(self, node: cst.BaseExpression) -> Optional[_DictState]:
        """A fresh dict state for an expression that builds a dict, or None if it is not a dict we follow."""
        if isinstance(node, cst.Dict):
            st = _DictState(branch=tuple(self.branch))
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
            if isinstance(fn, cst.Name) and fn.value == "dict" and self.lookup("dict") is None:
                st = _DictState(branch=tuple(self.branch))
                for arg in node.args:
                    if arg.keyword is not None:
                        st.entries[arg.keyword.value] = self.make_entry(arg.keyword.value, arg, arg.value)
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

    def lookup_dict(self, name: str) -> Optional[_DictState]:
        b = self.lookup(name)
        if b is not None and b.kind == "dict":
            return b.dict
        return None

    def merge_into(self, st: _DictState, node: cst.BaseExpression) -> None:
        """``**node`` / ``update(node)``: copy what we can follow; otherwise mark open."""
        src = self.dict_state_of(node) if not isinstance(node, cst.Name) else self.lookup_dict(node.value)
        if src is None:
            st.open = True
            return
        cur = tuple(self.branch)
        for k, e in src.entries.items():
            cond = e.conditional or not _is_prefix(e.branch, cur)
            st.entries[k] = _Entry(e.name, e.span, e.value, e.type, cur, cond, e.literal)
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
                    cond = e.conditional or not _is_prefix(e.branch, cur)
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
            full = _dotted(alias.name)
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
        mod = _dotted(node.module) if node.module is not None else None
        if not mod:
            return
        if isinstance(node.names, cst.ImportStar):
            self.star_imports.add(mod.split(".")[0])
            return
        for alias in node.names:
            name = _dotted(alias.name)
            if not name:
                continue
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.imports[local] = f"{mod}.{name}"
            self._shadow_import(local)

    def _shadow_import(self, local: str) -> None:
        # an import re-binds the name in the current scope
        self.scope.bindings[local] = _Binding("import")

    # ---- scopes -------------------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.bindings[node.name.value] = _Binding("unknown")
        if any((self.qualify(b.value) or "").startswith("tensorrt.IPluginCreator") for b in node.bases):
            self._python_creator(node)
        self.scopes.append(_Scope("class", node.name.value))

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

        class _V(_fast.FastVisitMixin, cst.CSTVisitor):
            def visit_Call(v, call: cst.Call) -> None:
                if (self.qualify(call.func) or "").endswith("PluginField") and call.args:
                    n = self.one_string(call.args[0].value)
                    if n is not None:
                        t = None
                        if len(call.args) >= 3:
                            t = (self.qualify(call.args[2].value) or "").rsplit(".", 1)[-1] or None
                        out.append(PluginFieldDecl(name=n, type=("k" + t) if t else None, length=None, span=self.span(call.args[0].value)))

        _fast.visit(value, _V())
        return out

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.scopes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for dec in node.decorators:
            d = dec.decorator
            if isinstance(d, cst.Call) and self.qualify(d.func) == "tensorrt.plugin.register" and d.args:
                pid = self.one_string(d.args[0].value)
                if pid and "::" in pid:
                    ns, _, nm = pid.rpartition("::")
                    self.py_creators.append(
                        PyCreator(name=nm, version="1", namespace=ns, span=self.span(d.args[0].value), cls=node.name.value, how="qdp")
                    )
        self.scope.bindings[node.name.value] = _Binding("unknown")
        sc = _Scope("function", node.name.value)
        params = node.params
        allp = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
        for p in allp:
            sc.bindings[p.name.value] = _Binding("param", type=self.annotation_type(p.annotation))
        for p in (params.star_arg, params.star_kwarg):
            if isinstance(p, cst.Param):
                sc.bindings[p.name.value] = _Binding("unknown")
        self.scopes.append(sc)
        self._saved_branch = getattr(self, "_saved_branch", [])
        self._saved_branch.append(self.branch)
        self.branch = []

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        sc = self.scopes.pop()
        self.branch = self._saved_branch.pop()
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
            base = _callee_last(node.value) if isinstance(node.value, (cst.Name, cst.Attribute)) else None
            elems = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
            if base == "Optional" and len(elems) == 1:
                return self._ann(elems[0])
            if base in _SEQ_NAMES and elems:
                inner = {self._ann(e) for e in elems if not (isinstance(e, cst.Ellipsis))}
                if len(inner) == 1:
                    t = inner.pop()
                    return _LIST_OF.get(t) if t else None
            return None
        return None

    # ---- assignments --------------------------------------------------------------------------------
    def _bind_targets(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.bind(target.value, _Binding("unknown"))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._bind_targets(el.value)
        elif isinstance(target, cst.StarredElement):
            self._bind_targets(target.value)

    def binding_for_value(self, value: cst.BaseExpression) -> _Binding:
        vals = self.strings(value)
        if vals is not None:
            return _Binding("str", values=vals[:_MAX_ALTERNATIVES])
        if isinstance(value, cst.Call):
            q = self.qualify(value.func)
            if q in _OPSET_QUALNAMES:
                return _Binding("opset", domain=self._opset_domain(value))
        st = self.dict_state_of(value)
        if st is not None:
            return _Binding("dict", dict=st)
        t = self.infer_type(value)
        if t in ("INT", "FLOAT") and isinstance(value, (cst.Integer, cst.Float, cst.UnaryOperation)):
            return _Binding("num", type=t)
        return _Binding("unknown")

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
        for t in node.targets:
            target = t.target
            if isinstance(target, cst.Name):
                self.bind(target.value, self.binding_for_value(value))
            elif isinstance(target, cst.Subscript):
                self._subscript_store(target, value, node)
            else:
                self._bind_targets(target)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        target = node.target
        if node.value is None:
            return
        if isinstance(target, cst.Name):
            self.bind(target.value, self.binding_for_value(node.value))
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
            self.bind(target.value, _Binding("unknown"))

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
            if e is not None and _is_prefix(tuple(self.branch), e.branch):
                del st.entries[key]
            elif e is not None:
                e.conditional = True

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
        last = _callee_last(func)
        if last is None:
            return
        if isinstance(func, cst.Attribute):
            recv = func.value
            # dict mutations
            if isinstance(recv, cst.Name) and last in ("update", "setdefault"):
                st = self.lookup_dict(recv.value)
                if st is not None:
                    self._dict_call(st, last, node)
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
        if last in _CREATOR_METHODS:
            self._creator_lookup(node, last)
            return
        if last in self.route_names:
            self._route_call(node)
        if isinstance(func, cst.Attribute) and last in _API_METHODS:
            self.api_uses.append(PluginApiUse(_API_METHODS[last], self.span(node)))
            return
        if last == "get_plugin_registry":
            self.api_uses.append(PluginApiUse("get_plugin_registry", self.span(node)))
            return
        if last in _TRT_CLASSES or last == "make_node" or (isinstance(func, cst.Name) and last in self.imports):
            q = self.qualify(func)
            if q is None:
                return
            qlast = q.rsplit(".", 1)[-1]
            if qlast in _TRT_CLASSES and q.startswith("tensorrt."):
                self.api_uses.append(PluginApiUse(qlast, self.span(node)))
            elif q in _MAKE_NODE_QUALNAMES:
                self._make_node(node)

    def _dict_call(self, st: _DictState, method: str, node: cst.Call) -> None:
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

    def _emit(
        self,
        form: str,
        op_type: str,
        domain: Optional[str],
        node: cst.Call,
        attrs: list[tuple[AttrFact, Optional[str]]],
        open_attrs: bool,
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
                op_span=self._op_span(form, node),
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

    def _onnxscript(self, node: cst.Call, b: _Binding, op_type: str) -> None:
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
                if len(m.group(2)) == 1 and a.type in _LIST_OF.values() and t in _LIST_OF:
                    t = _LIST_OF[t]
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
        for name in names or (None,):
            self.lookups.append(CreatorLookup(name, version, namespace, self.span(node), name_span))

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


# --------------------------------------------------------------------------------------------------------
# Module pre-pass: imports and module-level constants, dicts and opsets (visible from every function)
# --------------------------------------------------------------------------------------------------------


def _module_statements(body: Sequence[cst.CSTNode]) -> Iterable[cst.CSTNode]:
    """Module-level simple statements, descending into if/try/with blocks but not defs/classes."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        elif isinstance(stmt, (cst.If, cst.Try, cst.With, cst.For, cst.While)):
            blocks = [stmt.body]
            if isinstance(stmt, cst.If) and stmt.orelse is not None:
                blocks.append(stmt.orelse if isinstance(stmt.orelse, cst.If) else stmt.orelse.body)
            if isinstance(stmt, cst.Try):
                blocks.extend(h.body for h in stmt.handlers)
                if stmt.orelse is not None:
                    blocks.append(stmt.orelse.body)
            for blk in blocks:
                if isinstance(blk, cst.If):
                    yield from _module_statements([blk])
                elif isinstance(blk, cst.IndentedBlock):
                    yield from _module_statements(blk.body)
                elif isinstance(blk, cst.SimpleStatementSuite):
                    yield from blk.body


def _prepass(ex: _Extractor, module: cst.Module) -> None:
    stmts = list(_module_statements(module.body))
    for s in stmts:
        if isinstance(s, cst.Import):
            _Extractor.visit_Import(ex, s)
        elif isinstance(s, cst.ImportFrom):
            _Extractor.visit_ImportFrom(ex, s)
    ms = ex.module_scope
    counts: dict[str, int] = {}
    assigns: list[tuple[str, cst.BaseExpression, cst.CSTNode]] = []
    for s in stmts:
        if isinstance(s, cst.Assign):
            for t in s.targets:
                if isinstance(t.target, cst.Name):
                    counts[t.target.value] = counts.get(t.target.value, 0) + 1
                    assigns.append((t.target.value, s.value, s))
                else:
                    for n in _target_names(t.target):
                        counts[n] = counts.get(n, 0) + 2
        elif isinstance(s, cst.AnnAssign) and isinstance(s.target, cst.Name) and s.value is not None:
            counts[s.target.value] = counts.get(s.target.value, 0) + 1
            assigns.append((s.target.value, s.value, s))
        elif isinstance(s, cst.AugAssign) and isinstance(s.target, cst.Name):
            counts[s.target.value] = counts.get(s.target.value, 0) + 2
    # two rounds so constants defined from other constants resolve
    for _ in range(2):
        for name, value, stmt in assigns:
            if counts.get(name, 0) != 1:
                ms.bindings[name] = _Binding("unknown")
                continue
            ms.bindings[name] = ex.binding_for_value(value)
    # direct-route table candidates: dicts of str -> str
    for name, value, stmt in assigns:
        if counts.get(name, 0) != 1 or not isinstance(value, cst.Dict) or not value.elements:
            continue
        entries = []
        ok = True
        for el in value.elements:
            if not isinstance(el, cst.DictElement):
                ok = False
                break
            k, v = _string_value(el.key), _string_value(el.value)
            if k is None or v is None:
                ok = False
                break
            entries.append((k, v, ex.span(el)))
        if ok:
            ex.tables[name] = _TableCand(name, ex.span(stmt), tuple(entries))


def _target_names(t: cst.BaseExpression) -> Iterable[str]:
    if isinstance(t, cst.Name):
        yield t.value
    elif isinstance(t, (cst.Tuple, cst.List)):
        for el in t.elements:
            yield from _target_names(el.value)
    elif isinstance(t, cst.StarredElement):
        yield from _target_names(t.value)


class _MainVisitor(_Extractor):
    """At module scope, string/number/opset constants come from the pre-pass (functions see final
    module values); dict states are still updated in source order."""

    def bind(self, name: str, b: _Binding) -> None:
        if len(self.scopes) == 1 and b.kind != "dict":
            existing = self.scope.bindings.get(name)
            if existing is not None and existing.kind in ("str", "num", "opset", "unknown"):
                return
        super().bind(name, b)

    def visit_Import(self, node: cst.Import) -> None:
        if len(self.scopes) == 1:
            return  # done by the pre-pass
        super().visit_Import(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if len(self.scopes) == 1:
            return
        super().visit_ImportFrom(node)


# --------------------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------------------


def _reduce(text: str, route_names: tuple[str, ...], tree=None) -> Optional[str]:
    """Blank out functions and methods that cannot hold a fact before the (slow) libcst parse.

    CPython's parser (parse only; nothing is executed) gives the line ranges of every def. A def whose
    source matches none of the keywords (nor the name of a module-level onnxscript opset) is replaced by
    ``pass`` on its first line and empty lines after it, so line/column positions of everything kept are
    unchanged. Returns ``text`` itself when nothing can be dropped, None when this is not possible.
    """
    if "\r" in text:
        return None
    if tree is None:
        try:
            tree = ast.parse(text)
        except Exception:
            return None
    opsets = set()
    for st in tree.body:
        value = getattr(st, "value", None)
        if isinstance(st, (ast.Assign, ast.AnnAssign)) and isinstance(value, ast.Call):
            fn = value.func
            fname = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
            if fname == "Opset":
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                opsets.update(t.id for t in targets if isinstance(t, ast.Name))
    pat = _prefilter(route_names)
    opset_pat = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(opsets))) + r")\s*\.") if opsets else None
    lines = text.split("\n")
    blank: list[tuple[int, int]] = []

    def consider(body) -> None:
        for st in body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([d.lineno for d in st.decorator_list] + [st.lineno])
                end = st.end_lineno or st.lineno
                seg = "\n".join(lines[start - 1 : end])
                if not pat.search(seg) and not (opset_pat is not None and opset_pat.search(seg)):
                    blank.append((start, end))
            elif isinstance(st, ast.ClassDef):
                consider(st.body)

    consider(tree.body)
    if not blank:
        return text
    for start, end in blank:
        first = lines[start - 1]
        lines[start - 1] = first[: len(first) - len(first.lstrip())] + "pass"
        for i in range(start, end):
            lines[i] = ""
    return "\n".join(lines)


def _positions(module: cst.Module):
    """``id(node)`` -> (start line, start column, end line, end column): PositionProvider's numbers (1-based
    lines, 0-based columns).

    Computed by python_fast.fast_positions (the provider's codegen pass with cheaper bookkeeping); if libcst's
    internals ever change so that fails, the provider itself is used.
    """
    try:
        return _fast.fast_positions(module)
    except Exception:
        pass
    ranges = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {id(n): (r.start.line, r.start.column, r.end.line, r.end.column) for n, r in ranges.items()}


def _syntax_problem(src: SourceFile, text: str, e: "cst.ParserSyntaxError") -> ParseProblem:
    """libcst's error positions are often a token late; CPython's parser (parse only, nothing is run)
    usually pinpoints the error, so prefer it when it agrees the file is invalid."""
    try:
        compile(text, src.rel, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as se:
        line = max(1, se.lineno or 1)
        col = max(1, se.offset or 1)
        return ParseProblem(f"syntax error: {se.msg}", Span(src.rel, line, col, line, col + 1))
    except Exception:
        pass
    line = max(1, int(getattr(e, "raw_line", 1) or 1))
    col = max(1, int(getattr(e, "raw_column", 0) or 0) + 1)
    msg = " ".join(str(getattr(e, "message", e)).split())
    return ParseProblem(f"syntax error: {msg}", Span(src.rel, line, col, line, col + 1))


def extract_parsed(src: SourceFile, ctx: ExtractContext, text: str, parsed, route_names: tuple[str, ...], stubs: dict) -> FileFacts:
    """The libcst part of the Python frontend (python.py decided this file may hold its facts): ``parsed`` is the
    file's stdlib ``ast`` tree (None when CPython could not parse it), ``stubs`` the custom-op facts already
    made from it."""
    reduced = _reduce(text, route_names, parsed) if parsed is not None else None
    module = None
    if reduced is not None and reduced is not text:
        try:
            module = cst.parse_module(reduced)
        except Exception:
            module = None  # parse the full text below (and report its error, if any)
    try:
        if module is None:
            module = cst.parse_module(text)
    except cst.ParserSyntaxError as e:
        return _empty(src, (_syntax_problem(src, text, e),))
    except RecursionError:
        return _empty(src, (ParseProblem("syntax error: expression nesting too deep to parse", Span(src.rel, 1)),))
    positions = _positions(module)
    ex = _MainVisitor(src.rel, module, positions, ctx)
    problems: tuple = ()
    try:
        _prepass(ex, module)
        _fast.visit(module, ex)
    except RecursionError:
        problems = (ParseProblem("analysis stopped: nesting too deep", Span(src.rel, 1), partial=True),)
    extra: dict = {}
    try:
        extra = _torchtrt.extract(src.rel, module, positions, ex.imports, text)
    except RecursionError:
        problems += (ParseProblem("converter/plugin analysis stopped: nesting too deep", Span(src.rel, 1), partial=True),)
    return FileFacts(
        path=src.rel,
        kind=src.kind or "python",
        digest=src.digest,
        problems=problems,
        emissions=tuple(ex.emissions),
        route_tables=tuple(ex.route_tables()),
        route_calls=tuple(ex.route_calls),
        lookups=tuple(ex.lookups),
        api_uses=tuple(ex.api_uses),
        py_creators=tuple(ex.py_creators),
        **extra,
        **stubs,
    )
