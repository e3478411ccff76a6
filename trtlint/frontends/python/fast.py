"""Speed helpers for the Python frontend (issue 6, "Python cost"); they never change its facts.

* :class:`FastSearch`: ``FastSearch(parts).search(text)`` is None exactly when
  ``re.compile("|".join(parts)).search(text)`` is, computed alternative by alternative: an alternative runs only when one of the literal strings it cannot
  match without is in the text, and a leading ``\\b`` is checked by hand so the regex engine can skip ahead to
  the literal that follows it (one big alternation of patterns starting with ``\\b`` is scanned character by
  character).
* :func:`prefilter`: the frontend's cheap text test (the keywords of :mod:`.names` and the direct-route builders'
  names) as one :class:`FastSearch`.
* :func:`libcst_facts_possible`: whether a file's (stdlib ``ast``) tree holds any construct from which the libcst
  extractors (``cst.MainVisitor`` and ``torchtrt``) can make a fact. When it holds none, the slow
  libcst parse, positions and visits are skipped: their facts would all be empty. The test is conservative
  (every fact of those extractors needs one of the triggers listed in :func:`_triggers`); files nested deeper
  than :data:`_MAX_SAFE_DEPTH` always take the libcst path, so its "nesting too deep" problems stay as they are.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from functools import lru_cache
from typing import Iterable, Optional

from re import _parser as _sre_parse  # type: ignore[attr-defined]
from re._constants import AT, BRANCH, LITERAL, SUBPATTERN  # type: ignore[attr-defined]

from . import names as pynames  # (no libcst: the tests here decide whether libcst is needed)

_WORD = re.compile(r"\w")
_MAX_LITERALS = 64


def _seq_literals(items) -> Optional[list[str]]:
    """Every string a sequence of regex items matches, when it is made of literals (and groups/branches of
    them) only; else None."""
    out = [""]
    for op, av in items:
        if op is LITERAL:
            out = [o + chr(av) for o in out]
        elif op is SUBPATTERN and not av[1] and not av[2]:  # (?:...) without flags
            sub = _seq_literals(list(av[3]))
            if sub is None:
                return None
            out = [o + s for o in out for s in sub]
        elif op is BRANCH:
            subs: list[str] = []
            for b in av[1]:
                s = _seq_literals(list(b))
                if s is None:
                    return None
                subs += s
            out = [o + s for o in out for s in subs]
        else:
            return None
        if len(out) > _MAX_LITERALS:
            return None
    return out


def required_literals(alt: str) -> Optional[tuple[str, ...]]:
    """Strings of which every match of the regex ``alt`` contains at least one (the most selective run of
    literals at its top level); None when there is none."""
    try:
        items = list(_sre_parse.parse(alt))
    except Exception:
        return None
    runs: list[list[str]] = []
    cur = [""]
    for op, av in items:
        if op is AT:  # zero-width (\b, ^, $): the literals around it stay adjacent in the text
            continue
        s = _seq_literals([(op, av)])
        if s is not None and len(cur) * len(s) <= _MAX_LITERALS:
            cur = [c + x for c in cur for x in s]
        else:
            runs.append(cur)
            cur = [""]
            if s is not None:
                runs.append(s)
    runs.append(cur)
    runs = [r for r in runs if r and min(map(len, r)) > 0]
    if not runs:
        return None
    return tuple(max(runs, key=lambda r: min(map(len, r))))


class _Alt:
    __slots__ = ("lits", "rx", "boundary")

    def __init__(self, alt: str) -> None:
        self.lits = required_literals(alt)
        self.boundary = False
        body = alt
        if alt.startswith(r"\b"):
            rest = alt[2:]
            try:
                first = list(_sre_parse.parse(rest))[:1]
            except Exception:
                first = []
            lits = _seq_literals(first) if first else None
            # ``\b`` before a word character means "no word character just before": checked by hand
            if lits and all(s and _WORD.match(s[0]) for s in lits):
                body = rest
                self.boundary = True
        self.rx = re.compile(body)

    def search(self, text: str):
        lits = self.lits
        if lits is not None:
            for lit in lits:
                if lit in text:
                    break
            else:
                return None
        if not self.boundary:
            return self.rx.search(text)
        pos = 0
        search = self.rx.search
        while True:
            m = search(text, pos)
            if m is None:
                return None
            s = m.start()
            if s == 0 or not _WORD.match(text, s - 1):
                return m
            pos = s + 1


class FastSearch:
    """``FastSearch(parts).search(text)`` is None exactly when ``re.compile("|".join(parts)).search(text)`` is
    (a match of one of the alternatives otherwise; not necessarily the leftmost one)."""

    def __init__(self, parts: Iterable[str]) -> None:
        self.parts = tuple(parts)
        self.alts = [_Alt(p) for p in self.parts]

    def search(self, text: str):
        for a in self.alts:
            m = a.search(text)
            if m is not None:
                return m
        return None


_PREFILTER_CACHE: dict[tuple[str, ...], FastSearch] = {}


def prefilter(route_names: tuple[str, ...]) -> FastSearch:
    """The frontend's pre-filter keywords (:data:`.names.BASE_KEYWORDS`, :func:`.names.prefilter_keywords` and
    the calls of the direct-route builders ``route_names``) as one test: ``.search(text)`` is None when none of
    them matches."""
    pat = _PREFILTER_CACHE.get(route_names)
    if pat is None:
        parts = list(pynames.BASE_KEYWORDS) + list(pynames.prefilter_keywords())
        if route_names:
            parts.append(r"\b(?:" + "|".join(re.escape(n) for n in route_names) + r")\s*\(")
        pat = FastSearch(parts)
        _PREFILTER_CACHE[route_names] = pat
    return pat


# --------------------------------------------------------------------------------------------------------
# stdlib ast walks
# --------------------------------------------------------------------------------------------------------

_CHILD_FIELDS: dict = {}


def _child_fields(tp) -> tuple:
    f = _CHILD_FIELDS.get(tp)
    if f is None:
        f = _CHILD_FIELDS[tp] = tuple(n for n in tp._fields if n != "ctx")
    return f


def walk(tree: ast.AST):
    """``ast.walk(tree)`` without the expression-context nodes (``Load``/``Store``/``Del``, which have no children):
    the other nodes in the same (breadth-first) order, several times faster."""
    from collections import deque

    AST = ast.AST
    todo = deque([tree])
    popleft, append = todo.popleft, todo.append
    fields_of = _CHILD_FIELDS.get
    while todo:
        node = popleft()
        tp = type(node)
        fields = fields_of(tp) or _child_fields(tp)
        for name in fields:
            v = getattr(node, name, None)
            if type(v) is list:
                for x in v:
                    if isinstance(x, AST):
                        append(x)
            elif isinstance(v, AST):
                append(v)
        yield node


# --------------------------------------------------------------------------------------------------------
# Could the libcst extractors find anything in this file?
# --------------------------------------------------------------------------------------------------------

_MAX_SAFE_DEPTH = 40  # ast nesting depth; libcst's recursive visits and codegen fail far deeper than this

@lru_cache(maxsize=8)
def _triggers(route_names: tuple[str, ...]) -> tuple[frozenset, frozenset, frozenset]:
    """(attribute-call names, identifiers, identifiers that need a tensorrt import).

    *attribute-call names*: a call ``x.NAME(...)`` makes a fact (``g.op``, ``network.add_plugin_v2``...).
    *identifiers*: a fact needs a call whose callee's last name is one of them, or a qualified name (through
    imports or module aliases) ending in one; every such name occurs in the file as a callee name, an attribute
    name or a component of an imported name.
    *tensorrt identifiers*: the same, for facts that also need a name qualified to ``tensorrt...``: QDP
    decorators (``tensorrt.plugin.register``/``impl``/``autotune``/``aot_impl``) and the API uses of the
    deprecation pack (recorded only when the module imports tensorrt).
    """
    attr_calls = {"op", *pynames.API_METHODS}
    idents = {
        *pynames.CREATOR_METHODS,
        "get_plugin_registry",
        "plugin_creator_list",
        "onnx_graphsurgeon",  # an import of onnx-graphsurgeon: its gs.Node / graph.layer emissions
        *pynames.TRT_CLASSES,
        "make_node",
        *route_names,
        *pynames.REGISTRARS,
        "generate_plugin",
        "generate_plugin_converter",
        "custom_op",
        "define",
        "register_fake",
        "impl_abstract",
        "impl",  # torch.library.impl (a fake kernel when its keys say Meta)
        *(q.rsplit(".", 1)[-1] for q in pynames.DEFINE_QUALS | pynames.FAKE_QUALS),
    }
    trt_idents = {"register", *pynames.QDP_KINDS}
    attrs, quals = pynames.api_names()
    trt_idents |= set(attrs) | {q.rsplit(".", 1)[-1] for q in quals}
    return frozenset(attr_calls), frozenset(idents), frozenset(trt_idents - idents)


def libcst_facts_possible(tree: ast.AST, text: str, route_names: tuple[str, ...], rel: str = "") -> bool:
    """False only when neither libcst extractor can make a fact from this module (see the module docstring).
    ``rel``: the file's project-relative path (Torch-TensorRT's relative imports resolve against it).

    Names are qualified only through imports (absolute ones, and for Torch-TensorRT relative ones resolved
    against the module's dotted path, which may start with ``tensorrt``): with no import that may resolve to
    ``onnxscript...`` there is no onnxscript opset, and with none that may resolve to ``tensorrt...`` no
    IPluginCreator subclass, QDP decorator or API use of the deprecation pack.
    """
    attr_calls, idents, trt_idents = _triggers(tuple(route_names))
    rel_trt = "tensorrt" in rel
    trt = trt_hit = False
    stack = [(tree, 0)]
    pop, push = stack.pop, stack.append
    AST = ast.AST
    fields_of = _CHILD_FIELDS.get
    Call, Attribute, Name, alias = ast.Call, ast.Attribute, ast.Name, ast.alias
    Import, ImportFrom = ast.Import, ast.ImportFrom
    FunctionDef, AsyncFunctionDef = ast.FunctionDef, ast.AsyncFunctionDef
    while stack:
        node, depth = pop()
        if depth > _MAX_SAFE_DEPTH:
            return True
        tp = type(node)
        if tp is Attribute:
            a = node.attr
            if a in idents:
                return True
            trt_hit = trt_hit or a in trt_idents
        elif tp is Call:
            f = node.func
            if type(f) is Attribute:
                a = f.attr
                if a in attr_calls or a in idents:
                    return True
                # ``net.add_x(...)`` / ``self.network.add_x(...)``: a layer that may stay unnamed
                if a.startswith("add_") and a not in ("add_input", "add_output"):
                    r = f.value
                    if (type(r) is Name and r.id in ("net", "network")) or (
                        type(r) is Attribute and r.attr in ("net", "network")
                    ):
                        return True
            elif type(f) is Name:
                if f.id in idents:
                    return True
                trt_hit = trt_hit or f.id in trt_idents
            # ``gs = mod.lazy_import("onnx_graphsurgeon")``: a module bound by a call naming it (values.lazy_import_of)
            last = f.attr if type(f) is Attribute else f.id if type(f) is Name else None
            if last in pynames.LAZY_IMPORTERS and node.args and type(node.args[0]) is ast.Constant \
                    and isinstance(node.args[0].value, str):
                top = re.split(r"[^\w]", node.args[0].value.strip(), maxsplit=1)[0]
                if top == "onnxscript" or top in idents:
                    return True
                trt = trt or top.startswith("tensorrt")
        elif tp is alias:
            for part in node.name.split("."):
                if part in idents:
                    return True
                trt_hit = trt_hit or part in trt_idents
        elif tp is Import:
            for a in node.names:
                top = a.name.split(".", 1)[0]
                if top == "onnxscript":  # an onnxscript Opset may be bound: its op calls are emissions
                    return True
                trt = trt or top.startswith("tensorrt")
        elif tp is ImportFrom:
            mod = node.module or ""
            if node.level:
                trt = trt or rel_trt or "tensorrt" in mod
            else:
                top = mod.split(".", 1)[0]
                if top == "onnxscript":
                    return True
                # ``from onnx_graphsurgeon.ir.node import Node``: the module's components count as the imported
                # name's (its aliases are checked below)
                if any(part in idents for part in mod.split(".")):
                    return True
                trt = trt or top.startswith("tensorrt")
        elif tp is FunctionDef or tp is AsyncFunctionDef:
            if "validator" in node.name or node.name == "enqueue":
                return True
        d = depth + 1
        for name in fields_of(tp) or _child_fields(tp):
            v = getattr(node, name, None)
            if type(v) is list:
                for x in v:
                    if isinstance(x, AST):
                        push((x, d))
            elif isinstance(v, AST):
                push((v, d))
    # a tensorrt import: IPluginCreator subclasses, QDP decorators, API uses of the deprecation pack
    return trt and (trt_hit or "IPluginCreator" in text)


# --------------------------------------------------------------------------------------------------------
# libcst positions without the per-node objects
# --------------------------------------------------------------------------------------------------------

_NEWLINE_RE = re.compile(r"\r\n?|\n")


class _Syntactic:
    """``record_syntactic_position`` as a plain context manager (libcst's is a generator)."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state, node, start_node, end_node) -> None:
        self.state = state
        self.node = node
        self.start_node = start_node
        self.end_node = end_node

    def __enter__(self) -> None:
        st = self.state
        self.start = (st.line, st.column)

    def __exit__(self, *exc) -> None:
        st = self.state
        computed = st.computed
        start = computed[id(self.start_node)][:2] if self.start_node is not None else self.start
        end = computed[id(self.end_node)][2:] if self.end_node is not None else (st.line, st.column)
        computed[id(self.node)] = start + end


def _make_state_class():
    from libcst._nodes.internal import CodegenState

    class FastPositionState(CodegenState):
        """libcst's ``PositionProvidingCodegenState`` (PositionProvider) recording ``(start line, start column,
        end line, end column)`` tuples: the same numbers, without a CodeRange and two CodePositions per node nor
        a regex split per token."""

        def __init__(self, default_indent: str, default_newline: str) -> None:
            super().__init__(default_indent=default_indent, default_newline=default_newline)
            self.computed: dict = {}
            self.line = 1
            self.column = 0
            self.stack: list = []

        def _update(self, value: str) -> None:
            if "\n" in value or "\r" in value:
                segments = _NEWLINE_RE.split(value)
                self.line += len(segments) - 1
                self.column = len(segments[-1])
            else:
                self.column += len(value)

        def add_indent_tokens(self) -> None:
            self.tokens.extend(self.indent_tokens)
            for token in self.indent_tokens:
                self._update(token)

        def add_token(self, value: str) -> None:
            self.tokens.append(value)
            if "\n" in value or "\r" in value:
                segments = _NEWLINE_RE.split(value)
                self.line += len(segments) - 1
                self.column = len(segments[-1])
            else:
                self.column += len(value)

        def before_codegen(self, node) -> None:
            self.stack.append((self.line, self.column))

        def after_codegen(self, node) -> None:
            start = self.stack.pop()
            computed = self.computed
            key = id(node)  # CSTNode.__hash__ is id() in Python code: the int key saves a call per lookup
            if key not in computed:
                computed[key] = start + (self.line, self.column)

        def record_syntactic_position(self, node, *, start_node=None, end_node=None):
            return _Syntactic(self, node, start_node, end_node)

    return FastPositionState


_STATE_CLASS = None


def fast_positions(module) -> dict:
    """``id(node)`` -> (start line, start column, end line, end column) as libcst's PositionProvider computes
    them (1-based lines, 0-based columns); the nodes stay alive with ``module``, so their ids do not change."""
    global _STATE_CLASS
    if _STATE_CLASS is None:
        _STATE_CLASS = _make_state_class()
    state = _STATE_CLASS(module.default_indent, module.default_newline)
    module._codegen(state)
    return state.computed


# --------------------------------------------------------------------------------------------------------
# libcst visits without the per-attribute hooks and the leaf rebuilds
# --------------------------------------------------------------------------------------------------------


def _leaf_types() -> frozenset:
    """libcst node types under which no node but whitespace, comments and punctuation can occur: a visit
    does not descend into them (their own visit_/leave_ hooks still run)."""
    import libcst as cst

    names = [
        "Name", "SimpleString", "Integer", "Float", "Imaginary", "Ellipsis",
        "SimpleWhitespace", "ParenthesizedWhitespace", "TrailingWhitespace", "EmptyLine", "Newline", "Comment",
        "Comma", "Dot", "Colon", "Semicolon", "AssignEqual", "ImportStar", "Asynchronous", "Pass", "Break",
        "Continue", "LeftParen", "RightParen", "LeftSquareBracket", "RightSquareBracket", "LeftCurlyBrace",
        "RightCurlyBrace",
    ]
    out = {getattr(cst, n) for n in names if hasattr(cst, n)}
    for base in ("BaseBinaryOp", "BaseBooleanOp", "BaseCompOp", "BaseUnaryOp", "BaseAugOp"):
        b = getattr(cst, base, None)
        if b is None:
            continue
        for n in dir(cst):
            t = getattr(cst, n)
            if isinstance(t, type) and issubclass(t, b) and t is not b:
                out.add(t)
    return frozenset(out)


_LEAVES: Optional[frozenset] = None
_MISSING = object()


class FastVisitMixin:
    """For a ``libcst.CSTVisitor`` subclass: the same ``visit_<Node>``/``leave_<Node>`` calls in the same order as
    ``CSTVisitor``, looked up once per node type, with no descent into leaf nodes (:func:`_leaf_types`: libcst
    rebuilds every visited node, and most nodes are such leaves) and no ``visit_<Node>_<attribute>`` hooks
    (a visitor using this mixin must define none; :func:`check_no_attribute_hooks`)."""

    def on_visit(self, node) -> bool:
        global _LEAVES
        hooks = self.__dict__.get("_fv_hooks")
        if hooks is None:
            hooks = self.__dict__["_fv_hooks"] = {}
            if _LEAVES is None:
                _LEAVES = _leaf_types()
        tp = type(node)
        h = hooks.get(tp)
        if h is None:
            name = tp.__name__
            h = hooks[tp] = (getattr(self, "visit_" + name, None), getattr(self, "leave_" + name, None))
        v = h[0]
        if v is not None and v(node) is False:
            return False
        return tp not in _LEAVES

    def on_leave(self, original_node) -> None:
        h = self.__dict__["_fv_hooks"].get(type(original_node))
        if h is None:  # pragma: no cover - on_visit ran first for every node
            name = type(original_node).__name__
            lv = getattr(self, "leave_" + name, None)
        else:
            lv = h[1]
        if lv is not None:
            lv(original_node)

    def on_visit_attribute(self, node, attribute: str) -> None:
        return None

    def on_leave_attribute(self, original_node, attribute: str) -> None:
        return None


def check_no_attribute_hooks(cls) -> None:
    """Raise when ``cls`` defines a ``visit_<Node>_<attribute>``/``leave_<Node>_<attribute>`` hook (which
    :class:`FastVisitMixin` would not call)."""
    import libcst as cst

    names = [n for c in cls.__mro__ if not c.__module__.startswith("libcst") for n in vars(c)]  # libcst's are no-ops
    for name in names:
        for prefix in ("visit_", "leave_"):
            if name.startswith(prefix):
                rest = name[len(prefix):]
                if "_" in rest and isinstance(getattr(cst, rest.split("_", 1)[0], None), type):
                    raise TypeError(f"{cls.__name__}.{name}: attribute hooks are not called by FastVisitMixin")


# --------------------------------------------------------------------------------------------------------
# libcst visits without rebuilding the tree
# --------------------------------------------------------------------------------------------------------

_ORDERS: dict = {}  # node type -> its child fields in visit order, or None (libcst visits it); filled per type
_LEAF_SET: Optional[frozenset] = None


def _child_order(tp):
    """The fields libcst's ``_visit_and_replace_children`` of node type ``tp`` visits, in its order (read from
    that method's source: every field is visited by a ``visit_*(self, "field", ...)`` call); ``()`` for leaf
    types (:func:`_leaf_types`); None when the method cannot be read (:func:`visit` hands the node to libcst).
    Computed for a type when a tree first holds one (reading libcst's source for all of its ~250 node types
    cost a worker ~0.3 s before its first Python file)."""
    global _LEAF_SET
    if _LEAF_SET is None:
        _LEAF_SET = _leaf_types()
    if tp in _LEAF_SET:
        return ()
    import inspect
    import textwrap

    try:
        if inspect.isabstract(tp):
            return None
        fn = ast.parse(textwrap.dedent(inspect.getsource(tp._visit_and_replace_children))).body[0]
    except Exception:
        return None
    calls = []
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id.startswith("visit_"):
            if len(n.args) >= 2 and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
                calls.append((n.lineno, n.col_offset, n.args[1].value))
            else:
                return None
    fields = {f.name for f in dataclasses.fields(tp)} if dataclasses.is_dataclass(tp) else set()
    names = list(dict.fromkeys(c[2] for c in sorted(calls)))
    return tuple(names) if all(n in fields for n in names) else None


def visit(node, visitor) -> None:
    """``node.visit(visitor)`` for a ``libcst.CSTVisitor`` using :class:`FastVisitMixin`: the same hooks in the
    same order, without rebuilding every node (libcst's visit constructs a copy of each node it leaves).
    Recursion is shallower than libcst's (one frame per tree level instead of three or four)."""
    if _MAYBE is None:
        _libcst_names()
    hooks = visitor.__dict__.get("_fv_hooks")
    if hooks is None:
        hooks = visitor.__dict__["_fv_hooks"] = {}
    _visit(node, visitor, hooks, _ORDERS)


def _visit(node, visitor, hooks, orders) -> None:
    tp = type(node)
    h = hooks.get(tp)
    if h is None:
        name = tp.__name__
        h = hooks[tp] = (getattr(visitor, "visit_" + name, None), getattr(visitor, "leave_" + name, None))
    fields = orders.get(tp, _MISSING)
    if fields is _MISSING:
        fields = orders[tp] = _child_order(tp)
    if fields is None:  # a type whose child order is unknown: libcst visits it (FastVisitMixin's hooks)
        node.visit(visitor)
        return
    v = h[0]
    if v is None or v(node) is not False:
        for f in fields:
            c = getattr(node, f)
            tc = type(c)
            if tc in orders:
                _visit(c, visitor, hooks, orders)
            elif tc is tuple or tc is list:
                for x in c:
                    if type(x) in orders or isinstance(x, _CSTNode):
                        _visit(x, visitor, hooks, orders)
            elif c is not None and tc is not _MAYBE and isinstance(c, _CSTNode):
                _visit(c, visitor, hooks, orders)
    lv = h[1]
    if lv is not None:
        lv(node)


_CSTNode: tuple | type = ()  # libcst's CSTNode and MaybeSentinel, set by visit() (libcst is imported lazily)
_MAYBE = None


def _libcst_names() -> None:
    global _CSTNode, _MAYBE
    try:
        from libcst import MaybeSentinel
        from libcst._nodes.base import CSTNode
    except Exception:  # pragma: no cover
        return
    _CSTNode, _MAYBE = CSTNode, MaybeSentinel
