"""C++ plugin lifecycle facts (part of the C++ frontend; called from :mod:`.decls` and :mod:`.body`).

For the methods of plugin and creator classes whose bodies matter to the interface and lifecycle rules
(TRT201/202/206/208/209/210/213) this module records a :class:`~trtlint.base.facts.MethodDetail`:

* ``returns``: every return statement, classified (a bool literal or bool-typed expression, an integer, a
  ``static_cast<IPluginV3OneBuild*>(this)``-style cast with its target, nullptr) and, in
  ``getCapabilityInterface``, the ``PluginCapabilityType`` enumerators its enclosing ``if``/``case`` tests;
* ``field_data``: the data argument of every ``PluginField`` built in the body, with the C++ type it points to
  and where that storage lives (member, static, literal, local, parameter, temporary), and where the field
  itself is stored;
* ``serial``: for ``IPluginV2*`` plugins, the writes of ``serialize()`` and the reads of the deserializing
  constructor, in source order (TensorRT OSS ``write(d, x)`` / ``read<T>(d)``, ``serialize_value`` /
  ``deserialize_value``, ``writeToBuffer`` / ``readFromBuffer``), each with its C++ type and size;
* ``refs``: builder precision state named in ``getOutputDataType(s)`` (``BuilderFlag::kFP16``,
  ``getFlag(...)``, ``platformHasFast*``);
* ``handoffs``: for a V2 creator's ``deserializePlugin``, the plugin constructors it hands its blob to and how
  far into the blob the pointer it passes points, after the reads the creator made itself (a type tag read with
  ``deserialize_value(&d, &n, &tag)`` advances ``d`` one item; ``memcpy(&tag, d, 4)`` does not, and
  ``q = (char*)d + sizeof(int)`` is ``d`` plus 4 bytes). The ``new`` is found in the source text: under the
  stand-in headers libclang drops a ``new`` of a class that looks abstract, with the statement around it.

Only the modules of this package touch libclang cursors; what leaves is plain facts.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Optional, Protocol

from trtlint.base.facts import BlobHandoff, FieldData, MethodDetail, PluginFieldDecl, ReturnInfo, SerialOp, Span
from .base import Cursor, Unit, children, func_kinds, libclang, preorder
from .serialhelpers import buffer_names, helpers, recovered, typed_access, typed_load_init
from .serialhelpers import writes_nothing as serial_writes_nothing
from .serialvalues import counting_loop_bound, raw_store, read_value, size_value, strip, type_info

# methods whose bodies are recorded (the rest only when they build PluginFields)
STATUS_METHODS = frozenset({
    "enqueue", "configurePlugin", "getOutputDataTypes", "getOutputShapes", "onShapeChange", "setTactic",
    "initialize", "getValidTactics",
})
_DETAIL_METHODS = STATUS_METHODS | {"getCapabilityInterface", "getAliasedInput", "serialize", "getOutputDataType"}
_WRITES = {"write": 1, "serialize_value": 1, "writeToBuffer": 1}
_READS = {"read", "readFromBuffer", "deserialize_value"}
_CAP_RE = re.compile(r"\bk(CORE|BUILD|RUNTIME)\b")
_RETURN_KW = re.compile(rb"\breturn\b")
_NOT_CODE = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|^[ \t]*#[^\n]*', re.S | re.M)
_CAST_RE = re.compile(r"^\s*(?:static_cast|dynamic_cast|reinterpret_cast|const_cast)\s*<\s*([\w:\s]+?)\s*\*\s*(?:const\s*)?>")
_CCAST_RE = re.compile(r"^\s*\(\s*([\w:\s]+?)\s*\*\s*\)")
_PHASE_RE = re.compile(r"(==|!=)?\s*(?:\w+::)*TensorRTPhase\s*::\s*(kBUILD|kRUNTIME)")
_FLAG_RE = re.compile(r"\bBuilderFlag\s*::\s*k\w+|\b(?:getFlag|getFlags|platformHasFast\w+)\s*\(")


class FieldWalker(Protocol):
    """What :func:`on_field` and :func:`detail` read of the body walker (:class:`.body.BodyWalker`)."""

    ex: Unit
    field_data: list[FieldData]  # what on_field records, for detail

    def span(self, c: Cursor) -> Span: ...


class _Walk:
    """One walk of a method body for returns, serialization calls and capability conditions."""

    def __init__(self, ex: Unit, fn: Cursor, name: str, want_returns: bool, want_serial: bool,
                 buffer_param: Optional[int] = None, depth: int = 0) -> None:
        self.ex = ex
        self.depth = depth  # how many serialization helpers deep (see on_call: the body a whole blob is handed to)
        self.inlined: dict[int, tuple[SerialOp, ...]] = {}
        self.K = ex.K
        self.TK = ex.ci.TypeKind
        self.kids = children
        self.fn = fn
        self.name = name
        self.want_returns = want_returns
        self.want_serial = want_serial
        self.returns: list[ReturnInfo] = []
        self.want_phase = False
        self.phase_ranges: list[tuple[str, int, int]] = []
        self.serial: list[tuple[int, Any, str, bool, Any]] = []  # (offset, cursor, op, conditional, callee)
        self._loop: Optional[tuple[int, str]] = None  # the counting loop being walked: (its offset, its bound)
        self.loop_of: dict[tuple, tuple[int, str]] = {}  # a serial op's (path, line, col) -> the counting loop around it
        self._near: Optional[Cursor] = None  # the last located cursor walked (where a dropped statement is shown)
        self.roles: dict[int, tuple[str, int, int]] = {}  # a project helper's call offset -> its role (serialhelpers)
        # the buffer parameter and the locals pointing into it (serialize(void* buffer) / Plugin(void const* d, n))
        self.names: set[str] = buffer_names(ex, fn, _OUT_T if name == "serialize" else _BLOB_T,
                                            buffer_param) if want_serial else set()

    def span(self, c: Cursor) -> Span:
        return self.ex.span_of(c) or self.ex.loc_span(c) or Span(self.ex.src.rel, 1)

    def run(self) -> None:
        K = self.K
        for ch in self.kids(self.fn):
            if ch.kind == K.PARM_DECL:
                continue
            self.visit(ch, cap=None, cond=False, catch=False)
        if self.want_serial:
            self.recover()

    def recover(self) -> None:
        """Statements libclang dropped that name the buffer (serialhelpers.recovered)."""
        for off, op in recovered(self.ex, self.fn, self.names, self.name == "serialize"):
            self.inlined[off] = (op,)
            self.serial.append((off, None, "inline", False, ""))

    def visit(self, c: Cursor, cap: Optional[str], cond: bool, catch: bool) -> None:
        K = self.K
        k = c.kind
        if k in (K.LAMBDA_EXPR, K.CLASS_DECL, K.STRUCT_DECL):
            return  # a lambda's returns are its own
        kids = self.kids(c)
        if self.want_returns:
            if self.ex.extent_info(c)[0] is not None:
                self._near = c
            elif k == K.NULL_STMT:
                # a statement clang dropped in error recovery (a `return static_cast<Base*>(this);` whose class
                # clang found invalid leaves a NullStmt with no location): it may return anything
                self.on_unknown(cap, catch)
        if k == K.RETURN_STMT and self.want_returns:
            self.on_return(c, kids, cap, catch)
        elif k == K.COMPOUND_STMT and self.want_returns:
            self.dropped_returns(c, kids, cap, catch)
        elif k == K.CALL_EXPR and self.want_serial:
            self.on_call(c, cond)
        elif k == K.BINARY_OPERATOR and self.want_serial and raw_store(self.ex, c, kids):
            # `*reinterpret_cast<int*>(d) = mX;` (a write of int, see serial_ops), `d[0] = mX;` (a store the
            # comparison cannot read: an opaque item)
            self.add_serial(self.ex.extent_info(c)[3], c, "raw", cond, "")
        elif (k == K.VAR_DECL and self.want_serial and self.name != "serialize"
              and typed_load_init(self.ex, c, self.names) is not None):
            # `int n = *reinterpret_cast<int const*>(d);`: a read of int
            self.add_serial(self.ex.extent_info(c)[3], c, "load", cond, "")
        if k == K.CXX_CATCH_STMT:
            for ch in kids:
                self.visit(ch, cap, cond, True)
            return
        if k == K.IF_STMT and kids:
            # then-branch: the capability the condition tests with ==; else-branch: none known
            n = len(kids)
            cond_i, then_i = (0, 1) if n == 2 else ((n - 3, n - 2) if n >= 4 else (None, None))
            if cond_i is None:
                # three children: (cond, then, else) or (init, cond, then)
                f1, *_r1, e1 = self.ex.extent_info(kids[1])
                f2, _l, _c, s2, *_r2 = self.ex.extent_info(kids[2])
                has_else = f1 is not None and f1 == f2 and re.search(rb"\belse\b", self.ex.file_bytes(f1)[e1:s2])
                cond_i, then_i = (0, 1) if has_else else (1, 2)
            text = self.ex.text_of(kids[cond_i])
            if self.want_phase:
                self.on_phase_if(text, kids, then_i)
            caps = _CAP_RE.findall(text)
            then_cap = ",".join("k" + x for x in caps) if caps and "==" in text and "!=" not in text else (
                "?" if caps else cap)
            for i, ch in enumerate(kids):
                self.visit(ch, then_cap if i == then_i else (None if (i > then_i and caps) else cap),
                           True, catch)
            return
        if k == K.CASE_STMT and kids:
            caps = _CAP_RE.findall(self.ex.text_of(kids[0]))
            sub_cap = ",".join("k" + x for x in caps) if caps else cap
            for ch in kids[1:]:
                self.visit(ch, sub_cap, True, catch)
            return
        if k == K.FOR_STMT and self.want_serial and not cond and self._loop is None:
            bound = counting_loop_bound(self.ex.text_of(c))
            if bound is not None:
                # `for (int i = 0; i < n; ++i)` with no branch around it: its ops run n times, in order
                self._loop = (self.ex.extent_info(c)[3], bound)
                try:
                    for ch in kids:
                        self.visit(ch, cap, False, catch)
                finally:
                    self._loop = None
                return
        sub_cond = cond or k in (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT, K.SWITCH_STMT, K.CONDITIONAL_OPERATOR,
                                 K.CXX_FOR_RANGE_STMT)
        for ch in kids:
            self.visit(ch, cap, sub_cond, catch)

    # -- TensorRTPhase branches (createPlugin) --

    def on_phase_if(self, text: str, kids: list, then_i: int) -> None:
        m = _PHASE_RE.search(text)
        if not m:
            return
        phase = m.group(2)
        negated = m.group(1) == "!=" or bool(re.search(r"!=\s*(?:\w+::)*TensorRTPhase", text))
        then_phase = ("build" if phase == "kBUILD" else "runtime") if not negated else (
            "runtime" if phase == "kBUILD" else "build")
        other = "runtime" if then_phase == "build" else "build"
        for i, ph in ((then_i, then_phase), (then_i + 1, other)):
            if i < len(kids):
                _f, l1, _c1, _o1, l2, _c2, _o2 = self.ex.extent_info(kids[i])
                self.phase_ranges.append((ph, l1, l2))

    # -- returns --

    def on_unknown(self, cap: Optional[str], catch: bool) -> None:
        """A statement (or a return's value) clang lost to an error: an ``unknown`` return, never "no value"."""
        near = self._near if self._near is not None else self.fn
        self.returns.append(ReturnInfo(span=self.span(near), expr="(a statement clang could not analyse)",
                                       kind="unknown", cap=cap, in_catch=catch))

    def dropped_returns(self, c: Cursor, kids: list, cap: Optional[str], catch: bool) -> None:
        """A ``return`` in the source of a block that no statement of the block covers: clang dropped it after an
        error (``{ return static_cast<Base*>(this); }`` of a class clang found invalid is an empty block)."""
        f, *_r, start, _l2, _c2, end = self.ex.extent_info(c)
        if f is None:
            return
        data = self.ex.file_bytes(f)
        pos = start + 1
        gaps = []
        for ch in kids:
            cf, *_r1, o1, _l, _c, o2 = self.ex.extent_info(ch)
            if cf is None:
                return  # a statement clang dropped with its location: the walk reads it (a NullStmt)
            if cf != f or o1 < pos:
                return  # a macro's or another file's statement: the holes are not known
            gaps.append((pos, o1, ch))
            pos = max(pos, o2)
        gaps.append((pos, max(pos, end - 1), None))
        for a, b, _ch in gaps:
            if b > a and _RETURN_KW.search(_NOT_CODE.sub(b" ", data[a:b])):
                self.on_unknown(cap, catch)
                return

    def on_return(self, c: Cursor, kids: list, cap: Optional[str], catch: bool) -> None:
        K = self.K
        if not kids:
            if not re.fullmatch(r"return\s*;?", self.ex.text_of(c).strip()):
                self.on_unknown(cap, catch)  # `return <expr>;` whose expression clang dropped
            return
        e = strip(K, kids[0], self.kids)
        text = " ".join(self.ex.text_of(kids[0]).split())
        kind, value = "other", None
        ek = e.kind
        if ek == K.CXX_BOOL_LITERAL_EXPR:
            kind, value = "bool", text
        elif ek == K.INTEGER_LITERAL or (ek == K.UNARY_OPERATOR and re.fullmatch(r"[-+]\s*\d+[uUlL]*", text)):
            kind, value = "int", text.replace(" ", "")
        elif ek in (K.CXX_NULL_PTR_LITERAL_EXPR, K.GNU_NULL_EXPR) or text in ("nullptr", "NULL"):
            kind, value = "nullptr", text
        elif ek in (K.CXX_STATIC_CAST_EXPR, K.CXX_DYNAMIC_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR,
                    K.CSTYLE_CAST_EXPR, K.CXX_CONST_CAST_EXPR):
            m = _CAST_RE.match(text) or _CCAST_RE.match(text)
            if m:
                kind, value = "cast", re.sub(r"\s+", "", m.group(1)).split("::")[-1]
        if kind == "other":
            try:
                if e.type.get_canonical().kind == self.TK.BOOL:
                    # a call of a bool function (true = ok, by convention) vs a comparison / variable, whose
                    # polarity is the author's (`return cudaGetLastError() != cudaSuccess;` is right)
                    kind = "boolcall" if ek == K.CALL_EXPR else "boolexpr"
            except Exception:  # noqa: BLE001
                pass
        if len(text) > 120:
            text = text[:117] + "..."
        self.returns.append(ReturnInfo(span=self.span(kids[0]), expr=text, kind=kind, value=value, cap=cap,
                                       in_catch=catch))

    # -- serialization --

    def on_call(self, c: Cursor, cond: bool) -> None:
        name = c.spelling or ""
        if name in _WRITES or name in _READS:
            op = "write" if name in _WRITES else "read"
            off = self.ex.extent_info(c)[3]
            self.add_serial(off, c, op, cond, name)
            return
        if name in ("memcpy", "cudaMemcpy", "strcpy", "strncpy", "copy", "copy_n"):
            off = self.ex.extent_info(c)[3]
            self.add_serial(off, c, "opaque", cond, name)
            return
        ref = c.referenced
        if ref is not None and ref.kind in (self.K.CXX_METHOD, self.K.FUNCTION_DECL, self.K.FUNCTION_TEMPLATE):
            off = self.ex.extent_info(c)[3]
            handed = any(set(re.findall(r"[A-Za-z_]\w*", self.ex.text_of(a))) & self.names for a in c.get_arguments())
            role = helpers(self.ex).role(c) if handed else None
            if role is not None and (role[0] == "write") == (self.name == "serialize"):
                # a project helper whose body writes (reads) one value and advances the buffer: `writeBUF(buf, c)`
                self.roles[off] = role
                self.add_serial(off, c, "helper", cond, name)
                return
            sub = self._delegate(c) if handed and role is None else None
            if sub is not None:
                # the whole blob handed to a function of the project that reads (writes) it: `deserialize(data,
                # length)` called by the constructor (TensorRT OSS style): its values, in its order, are this one's
                self.inlined[off] = sub
                self.add_serial(off, c, "inline", cond, name)
                return
            # a project helper handed the buffer: its reads/writes are not seen here
            self.add_serial(off, c, "call", cond, name)

    def _delegate(self, c: Cursor) -> Optional[tuple[SerialOp, ...]]:
        """The serial values of the body ``c``'s callee, when it is a project function handed the buffer itself (not
        an advanced pointer into it: the constructor's own reads come first) and reads (writes) nothing else's."""
        if self.depth >= 2 or any(op != "inline" for _o, _c, op, _cd, _n in self.serial):
            return None
        args = list(c.get_arguments())
        at = [i for i, a in enumerate(args) if set(re.findall(r"[A-Za-z_]\w*", self.ex.text_of(a))) & self.names]
        if len(at) != 1:
            return None
        ref = c.referenced
        d = ref.get_definition() if ref is not None else None
        if d is None or self.ex.rel_of(self.ex.extent_info(d)[0]) is None:
            return None
        sub = _Walk(self.ex, d, self.name, False, True, buffer_param=at[0], depth=self.depth + 1)
        if not sub.names:
            return None
        sub.run()
        ops = sub.serial_ops()
        return ops or None

    def add_serial(self, off: int, c: Cursor, op: str, cond: bool, name: str) -> None:
        self.serial.append((off, c, op, cond, name))
        if self._loop is not None:
            sp = self.span(c)
            self.loop_of[(sp.path, sp.line, sp.col)] = self._loop

    def _copied_value(self, value: Cursor, other: Cursor):
        """((ctype, size, kind), text) of the value a ``memcpy`` (de)serializes: ``&x`` or an array, the other
        side being the buffer; None otherwise."""
        K = self.K
        a = strip(K, value, self.kids)
        text = self.ex.text_of(a).strip()
        if text.startswith("&"):
            sub = self.kids(a)
            if len(sub) != 1:
                return None
            a = strip(K, sub[0], self.kids)
        elif a.type.get_canonical().kind != self.TK.CONSTANTARRAY:
            return None  # neither &x nor an array: not a value being (de)serialized
        if self.ex.text_of(other).strip().startswith("&"):
            return None  # value to value: not the buffer
        return type_info(a.type, K, self.TK), self.ex.text_of(a)

    def serial_ops(self) -> tuple[SerialOp, ...]:
        K = self.K
        ops: list[SerialOp] = []
        buffers: set[str] = set(self.names)
        items = sorted(self.serial, key=lambda t: t[0])
        for off, c, op, _cond, _name in items:
            if op in ("write", "read", "helper") and c is not None:
                args = list(c.get_arguments())
                b = self.roles[off][1] if op == "helper" else 0
                if len(args) > b:
                    buffers.add(re.sub(r"[\s&*()]", "", self.ex.text_of(args[b])))
        for off, c, op, cond, name in items:
            if op == "inline":
                ops.extend(dataclasses.replace(o, conditional=o.conditional or cond) for o in self.inlined[off])
                continue
            args = list(c.get_arguments()) if op not in ("raw", "load") else []
            texts = [re.sub(r"[\s&*()]", "", self.ex.text_of(a)) for a in args]
            if op == "helper":
                _r, _b, v = self.roles[off]
                if v < 0:
                    tc, texpr = c, self.ex.text_of(c)
                elif v < len(args):
                    tc, texpr = strip(K, args[v], self.kids), self.ex.text_of(args[v])
                else:
                    continue
                ctype, size, kind = type_info(tc.type, K, self.TK)
                ops.append(SerialOp(op="write" if self.name == "serialize" else "read", span=self.span(c),
                                    expr=" ".join(texpr.split())[:100], ctype=ctype, size=size, kind=kind,
                                    conditional=cond))
                continue
            if op == "load":
                ld = typed_load_init(self.ex, c, self.names)
                if ld is not None:
                    ctype, size, kind = type_info(ld[0].type, K, self.TK)
                    ops.append(SerialOp(op="read", span=self.span(c), expr=ld[1], ctype=ctype, size=size, kind=kind,
                                        conditional=cond))
                continue
            if name == "memcpy" and len(args) >= 2:
                # serialization by copying a value or an array: memcpy(d, &mX, n) in serialize(),
                # memcpy(&mX, d, n) / memcpy(mArr, d, n) in the deserializing constructor
                w = self.name == "serialize"
                val = self._copied_value(args[1] if w else args[0], args[0] if w else args[1])
                if val is not None:
                    (ctype, size, kind), expr = val
                    ops.append(SerialOp(op="write" if w else "read", span=self.span(c), expr=expr[:100], ctype=ctype,
                                        size=size, kind=kind, conditional=cond))
                    continue
            if op == "raw":
                typed = typed_access(self.ex, c, self.kids(c), self.names, self.name == "serialize")
                if typed is not None:
                    # `*reinterpret_cast<int*>(d) = mX` / `mX = *reinterpret_cast<int const*>(d)`: a value of int
                    ctype, size, kind = type_info(typed[0].type, K, self.TK)
                    ops.append(SerialOp(op="write" if self.name == "serialize" else "read", span=self.span(c),
                                        expr=" ".join(typed[1].split())[:100], ctype=ctype, size=size, kind=kind,
                                        conditional=cond))
                    continue
                ops.append(SerialOp(op="opaque", span=self.span(c), expr="store through a pointer", conditional=cond))
                continue
            if op in ("opaque", "call"):
                if not any(t in buffers for t in texts):
                    continue
                expr = name
                if name in ("memcpy", "std::memcpy") and len(args) >= 3:
                    # a block copied (`memcpy(d, mKernels.data(), n)`): named by its value and size, so that the
                    # same block on the other side can be matched (serialization_incomplete's anchors)
                    val = args[1] if self.name == "serialize" else args[0]
                    expr = f"{name}({' '.join(self.ex.text_of(val).split())}, {' '.join(self.ex.text_of(args[2]).split())})"
                ops.append(SerialOp(op="opaque", span=self.span(c), expr=expr[:100], conditional=cond))
                continue
            ctype = size = kind = None
            expr = ""
            if op == "write":
                idx = _WRITES[name]
                if len(args) > idx:
                    a = strip(K, args[idx], self.kids)
                    ctype, size, kind = type_info(a.type, K, self.TK)
                    expr = self.ex.text_of(args[idx])
            else:
                ctype, size, kind, expr = read_value(self.ex, c, name, args)
            expr = " ".join(expr.split())
            ops.append(SerialOp(op=op, span=self.span(c), expr=expr[:100], ctype=ctype, size=size, kind=kind,
                                conditional=cond))
        if self.loop_of:
            ops = [dataclasses.replace(o, loop=lp[1], loop_at=lp[0]) if (lp := self.loop_of.get(
                (o.span.path, o.span.line, o.span.col))) is not None else o for o in ops]
        return tuple(ops)


# a serialized blob's pointer type, spaces removed: `void const*`, `const char*`, `uint8_t const* const`...
_BLOB_T = re.compile(r"(?:void|char|uint8_t|int8_t|unsignedchar|std::byte)const\*(?:const)?|"
                     r"const(?:void|char|uint8_t|int8_t|unsignedchar)\*(?:const)?")
# serialize()'s buffer parameter: `void* buffer`, `char* buf`
_OUT_T = re.compile(r"(?:void|char|uint8_t|int8_t|unsignedchar|std::byte)\*(?:const)?")


def _is_deserializing_ctor(ex: Unit, fn: Cursor) -> bool:
    """``Plugin(void const* data, size_t length)`` (optionally after a name): a constructor that reads a buffer."""
    K = ex.K
    if fn.kind != K.CONSTRUCTOR:
        return False
    params = [ch for ch in children(fn) if ch.kind == K.PARM_DECL]
    for i, p in enumerate(params[:-1]):
        t = (p.type.spelling or "").replace(" ", "")
        if _BLOB_T.fullmatch(t):
            nt = (params[i + 1].type.spelling or "").replace(" ", "")
            if re.search(r"size_t|int|long", nt):
                return True
    return False


# -- blob handoff (a V2 creator's deserializePlugin) -------------------------------------------------------

# where a pointer into the blob points: (items, bytes) past its start (see facts.BlobHandoff); None: not known
_Pos = Optional[tuple[Optional[int], Optional[int]]]
_CASTS = ("UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_REINTERPRET_CAST_EXPR",
          "CXX_CONST_CAST_EXPR")
# sizeof of a builtin type keyword (a typedef or class is sized through its TYPE_REF); LP64
_BUILTIN_SIZES = {"char": 1, "signedchar": 1, "unsignedchar": 1, "bool": 1, "short": 2, "unsignedshort": 2,
                  "int": 4, "unsigned": 4, "unsignedint": 4, "float": 4, "long": 8, "unsignedlong": 8,
                  "longlong": 8, "unsignedlonglong": 8, "double": 8}
# the plugin a creator makes: `new X(`, `new ns::X<T>(`, `std::make_unique<X>(`
_MADE = re.compile(r"\bnew\s+((?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)\s*(?:<[^;(){}]*>\s*)?\(|"
                   r"\bmake_(?:unique|shared)\s*<\s*((?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)\s*"
                   r"(?:<[^;(){}]*>\s*)?>\s*\(")
# binary operator kinds (clang_getCursorBinaryOperatorKind)
_BO = {6: "+", 7: "-", 22: "=", 26: "+=", 27: "-="}


class _Blob:
    """Where each pointer into a creator's blob parameter points, statement by statement (source order).

    The parameter starts at (0 items, 0 bytes); a read call handed the pointer (``deserialize_value(&d, ...)``,
    ``read<T>(d)``) moves it one item of the value's size; ``q = (char*)d + sizeof(int)``, ``d += n`` move it by
    bytes; a move under a branch or loop, or a helper handed ``&d`` (or ``d`` by non-const reference), makes it
    unknown. ``memcpy(&x, d, n)`` reads without moving."""

    def __init__(self, ex: Unit, param: str) -> None:
        self.ex = ex
        self.K = ex.K
        self.param = param
        self.pos: dict[str, _Pos] = {param: (0, 0)}
        self.events: list[tuple[int, str, _Pos]] = []  # (offset, variable, position from there on)
        self.seen: set[int] = set()  # offsets of the uses of the pointers libclang saw

    def set(self, c: Cursor, name: str, pos: _Pos) -> None:
        self.pos[name] = pos
        self.events.append((self.ex.extent_info(c)[6], name, pos))

    def at(self, name: str, off: int) -> _Pos:
        """Where ``name`` points at offset ``off``."""
        pos: _Pos = (0, 0) if name == self.param else None
        for o, n, p in self.events:
            if n == name and o <= off:
                pos = p
        return pos

    def visit(self, c: Cursor, cond: bool) -> None:
        K = self.K
        k = c.kind
        if k in (K.LAMBDA_EXPR, K.CLASS_DECL, K.STRUCT_DECL):
            return
        kids = children(c)
        if k == K.DECL_REF_EXPR and c.spelling in self.pos:
            self.seen.add(self.ex.extent_info(c)[3])
        elif k == K.VAR_DECL and self.is_pointer(c):
            init = [ch for ch in kids if ch.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
            if init and self.mentions(init[-1]):
                self.declared(c)
                self.set(c, c.spelling, None if cond else self.eval(init[-1]))
            elif c.spelling in self.pos:
                self.declared(c)
                self.set(c, c.spelling, None)  # a new variable of that name: not the blob
        elif k == K.CALL_EXPR:
            self.on_call(c, cond)
        elif k in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR) and len(kids) == 2:
            op = self.binop(c, kids)
            lhs = strip(K, kids[0], children)
            if op in ("=", "+=", "-=") and lhs.kind == K.DECL_REF_EXPR and self.is_pointer(lhs) and (
                    lhs.spelling in self.pos or self.mentions(kids[1])):
                if cond:
                    pos = None
                elif op == "=":
                    pos = self.eval(kids[1])
                else:
                    n = self.integer(kids[1])
                    cur = self.pos.get(lhs.spelling)
                    pos = None if n is None or cur is None or cur[1] is None else (
                        None, cur[1] + (n if op == "+=" else -n) * self.scale(lhs))
                self.set(c, lhs.spelling, pos)
        elif k == K.UNARY_OPERATOR and len(kids) == 1:
            sub = strip(K, kids[0], children)
            t = self.ex.text_of(c).strip()
            if sub.kind == K.DECL_REF_EXPR and sub.spelling in self.pos and (t.startswith(("++", "--")) or t.endswith(("++", "--"))):
                self.set(c, sub.spelling, None)
        sub_cond = cond or k in (K.IF_STMT, K.FOR_STMT, K.WHILE_STMT, K.DO_STMT, K.SWITCH_STMT,
                                 K.CONDITIONAL_OPERATOR, K.CXX_FOR_RANGE_STMT, K.CXX_TRY_STMT)
        for ch in kids:
            self.visit(ch, sub_cond)

    def is_pointer(self, c: Cursor) -> bool:
        try:
            return c.type.get_canonical().kind == self.ex.ci.TypeKind.POINTER
        except Exception:  # noqa: BLE001
            return False

    def declared(self, c: Cursor) -> None:
        """The offset of a variable's name where it is declared (a use the text scan must not count)."""
        f, _l, _c, o1, _l2, _c2, o2 = self.ex.extent_info(c)
        if f is None:
            return
        m = re.search(rb"\b" + re.escape(c.spelling.encode()) + rb"\b", self.ex.file_bytes(f)[o1:o2])
        if m:
            self.seen.add(o1 + m.start())

    def on_call(self, c: Cursor, cond: bool) -> None:
        K = self.K
        name = c.spelling or ""
        args = list(c.get_arguments())
        if name in _READS and args:
            buf = self.pointer(args[0])
            if buf is not None:
                cur = self.pos.get(buf)
                size = read_value(self.ex, c, name, args)[1]
                if cond or cur is None:
                    self.set(c, buf, None)
                else:
                    self.set(c, buf, (None if cur[0] is None else cur[0] + 1,
                                      None if cur[1] is None or size is None else cur[1] + size))
            return
        params: list = []
        ref = c.referenced
        if ref is not None and ref.kind in (K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE):
            try:
                params = list(ref.get_arguments())
            except Exception:  # noqa: BLE001
                params = []
        for i, a in enumerate(args):
            e = strip(K, a, children)
            if e.kind == K.UNARY_OPERATOR and self.ex.text_of(e).strip().startswith("&"):
                buf = self.pointer(e)
                if buf is not None:
                    self.set(c, buf, None)  # a helper handed the pointer's address may move it
            elif e.kind == K.DECL_REF_EXPR and e.spelling in self.pos and i < len(params):
                try:
                    pt = params[i].type
                    by_ref = pt.kind == self.ex.ci.TypeKind.LVALUEREFERENCE and not pt.get_pointee().is_const_qualified()
                except Exception:  # noqa: BLE001
                    by_ref = False
                if by_ref:
                    self.set(c, e.spelling, None)

    def pointer(self, a: Cursor) -> Optional[str]:
        """The tracked pointer an argument names: ``d``, ``&d``, ``(void const**)&d``."""
        K = self.K
        e = a
        for _ in range(8):
            e = self.uncast(e)
            if e.kind == K.UNARY_OPERATOR and self.ex.text_of(e).strip().startswith("&"):
                sub = children(e)
                if len(sub) != 1:
                    return None
                e = sub[0]
                continue
            break
        return e.spelling if e.kind == K.DECL_REF_EXPR and e.spelling in self.pos else None

    def uncast(self, e: Cursor) -> Cursor:
        K = self.K
        for _ in range(8):
            if e.kind.name in _CASTS:
                sub = [s for s in children(e) if s.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
                if len(sub) == 1:
                    e = sub[0]
                    continue
            break
        return e

    def mentions(self, e: Cursor) -> bool:
        K = self.K
        return any(s.kind == K.DECL_REF_EXPR and s.spelling in self.pos for s in preorder(e))

    def binop(self, c: Cursor, kids: list) -> Optional[str]:
        if libclang.binary_operator is not None:
            try:
                op = _BO.get(libclang.binary_operator(c))
                if op is not None:
                    return op
            except Exception:  # noqa: BLE001
                pass
        a, b = self.ex.extent_info(kids[0]), self.ex.extent_info(kids[1])
        if a[0] is None or a[0] != b[0]:
            return None
        between = self.ex.file_bytes(a[0])[a[6]:b[3]].decode("utf-8", "replace").strip()
        return between if between in _BO.values() else None

    def eval(self, e: Cursor) -> _Pos:
        """Where a pointer expression points: a tracked pointer, plus or minus an integer (in bytes)."""
        K = self.K
        e = self.uncast(e)
        if e.kind == K.DECL_REF_EXPR:
            return self.pos.get(e.spelling)
        kids = children(e)
        if e.kind == K.BINARY_OPERATOR and len(kids) == 2:
            op = self.binop(e, kids)
            if op not in ("+", "-"):
                return None
            ptr, num = (kids[0], kids[1]) if self.mentions(kids[0]) else (kids[1], kids[0])
            if op == "-" and ptr is not kids[0]:
                return None
            base, n = self.eval(ptr), self.integer(num)
            if base is None or base[1] is None or n is None:
                return None
            scale = self.scale(ptr)
            return None if scale is None else (None, base[1] + (n if op == "+" else -n) * scale)
        return None

    def scale(self, ptr: Cursor) -> Optional[int]:
        """The byte size of one step of pointer arithmetic on ``ptr`` (its pointee; ``void*`` steps by 1)."""
        try:
            pt = ptr.type.get_canonical().get_pointee()
            if pt.kind == self.ex.ci.TypeKind.VOID:
                return 1
            n = pt.get_size()
            return n if isinstance(n, int) and n > 0 else None
        except Exception:  # noqa: BLE001
            return None

    def integer(self, e: Cursor) -> Optional[int]:
        """The value of an integer literal, ``sizeof(...)``, or a sum or product of them."""
        K = self.K
        e = self.uncast(e)
        text = self.ex.text_of(e).strip()
        kids = children(e)
        if e.kind == K.INTEGER_LITERAL:
            m = re.fullmatch(r"(\d+)[uUlL]*", text)
            return int(m.group(1)) if m else None
        if e.kind == K.CXX_UNARY_EXPR and text.startswith("sizeof"):
            sub = [s for s in kids if s.kind not in (K.NAMESPACE_REF, K.TEMPLATE_REF)]
            if sub:
                t = sub[0].type
                n = t.get_canonical().get_size() if t is not None else -1
                return n if isinstance(n, int) and n > 0 else None
            m = re.fullmatch(r"sizeof\s*\(\s*([\w\s]+?)\s*\)", text)
            return _BUILTIN_SIZES.get(re.sub(r"\s+", "", m.group(1))) if m else None
        if e.kind == K.BINARY_OPERATOR and len(kids) == 2:
            a, b = self.integer(kids[0]), self.integer(kids[1])
            if a is None or b is None:
                return None
            between = self.ex.text_of(e)[len(self.ex.text_of(kids[0])):].lstrip()[:1]
            return {"+": a + b, "*": a * b, "-": a - b}.get(between)
        return None


def _top_args(text: str) -> list[tuple[int, str]]:
    """The top-level comma-separated arguments of ``(...)`` text starting at its ``(``: (offset, text) each."""
    out: list[tuple[int, str]] = []
    depth = 0
    start = 1
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                out.append((start, text[start:i]))
                return out
        elif ch == "," and depth == 1:
            out.append((start, text[start:i]))
            start = i + 1
    return []


def _uncast_text(t: str) -> str:
    """``static_cast<char const*>(d)``, ``(const char*)d``, ``(d)`` -> ``d``."""
    t = t.strip()
    for _ in range(6):
        m = re.fullmatch(r"(?:static|reinterpret|const)_cast\s*<[^<>]*>\s*\((.*)\)", t, re.S)
        if m:
            t = m.group(1).strip()
            continue
        m = re.fullmatch(r"\(\s*(?:const\s+)?[\w:\s]+\*\s*(?:const\s*)?\)\s*(.*)", t, re.S) or re.fullmatch(r"\((.*)\)", t, re.S)
        if m:
            t = m.group(1).strip()
            continue
        break
    return t


def _handoffs(ex: Unit, fn: Cursor, rel: str) -> tuple[BlobHandoff, ...]:
    """The plugin constructors a creator's ``deserializePlugin`` hands its blob parameter to, and where in the
    blob the pointer it passes points (see :class:`_Blob`)."""
    K = ex.K
    params = [ch for ch in children(fn) if ch.kind == K.PARM_DECL]
    # the blob: a pointer parameter followed by its length (deserializePlugin(name, serialData, serialLength))
    blob = next((p.spelling for p, n in zip(params, params[1:], strict=False) if _BLOB_T.fullmatch((p.type.spelling or "").replace(" ", ""))
                 and re.search(r"size_t|int|long", (n.type.spelling or ""))), None)
    body = next((ch for ch in children(fn) if ch.kind == K.COMPOUND_STMT), None)
    if not blob or body is None:
        return ()
    f, _l, _c, b1, _l2, _c2, b2 = ex.extent_info(body)
    if f is None or b2 <= b1:
        return ()
    w = _Blob(ex, blob)
    w.visit(body, False)
    # comments blanked byte for byte, decoded one character a byte: text offsets are file offsets from b1
    raw = re.sub(rb"//[^\n]*|/\*.*?\*/", lambda m: re.sub(rb"[^\n]", b" ", m.group(0)), ex.file_bytes(f)[b1:b2],
                 flags=re.S)
    text = raw.decode("latin-1")
    made = []
    for m in _MADE.finditer(text):
        args = _top_args(text[m.end() - 1:])
        made.append((m, args))
    arg_ranges = [(m.end() - 1, m.end() - 1 + (a[-1][0] + len(a[-1][1]) if a else 0)) for m, a in made]
    names = sorted(w.pos, key=len, reverse=True)
    out = []
    for m, args in made:
        name_at = m.start(1) if m.group(1) else m.start(2)
        written = re.sub(r"\s+", "", m.group(1) or m.group(2)).lstrip(":")
        carrier = next(((o, a) for o, a in args
                        if any(re.search(r"\b" + re.escape(n) + r"\b", a) for n in names)), None)
        if carrier is None:
            continue
        at = b1 + m.start()
        pos: _Pos = None
        bare = _uncast_text(carrier[1])
        if bare in w.pos:
            pos = w.at(bare, at)
            # a use of a blob pointer libclang did not see (in a statement it dropped) before this handoff: the
            # pointer may have moved there
            for n in names:
                for u in re.finditer(r"\b" + re.escape(n) + r"\b", text[: m.start()]):
                    if any(lo <= u.start() < hi for lo, hi in arg_ranges):
                        continue
                    if b1 + u.start() not in w.seen:
                        pos = None
        line = text.count("\n", 0, name_at)
        l0 = ex.extent_info(body)[1] + line
        col0 = (name_at - text.rfind("\n", 0, name_at)) if line else ex.extent_info(body)[2] + name_at
        out.append(BlobHandoff(cls=written, span=Span(rel, l0, col0, l0, col0 + len(written)),
                               arg=" ".join(carrier[1].split())[:80],
                               items=pos[0] if pos else None, bytes=pos[1] if pos else None))
    return tuple(out)


# -- PluginField data ------------------------------------------------------------------------------------

_TEMP_OWNER = re.compile(r"\b(?:c_str|data)\s*\(\s*\)\s*$")


def on_field(walker: FieldWalker, call: Cursor, args: list, decl: PluginFieldDecl, parents: tuple) -> None:
    """Called by the C++ body walker for each ``PluginField(name, data, type, length)`` / ``emplace_back(...)``
    it records: keep the data argument's pointee type and storage, and where the field goes."""
    ex = walker.ex
    K = ex.K
    if len(args) < 2:
        return
    data_c = args[1]
    data_text = " ".join(ex.text_of(data_c).split())
    if not data_text or data_text in ("nullptr", "NULL", "0"):
        return
    e = data_c
    # through implicit / explicit conversions to void const*
    for _ in range(8):
        if e.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CXX_STATIC_CAST_EXPR, K.CSTYLE_CAST_EXPR,
                      K.CXX_REINTERPRET_CAST_EXPR, K.CXX_CONST_CAST_EXPR):
            sub = [s for s in children(e) if s.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
            if len(sub) == 1:
                try:
                    pk = e.type.get_canonical().get_pointee().kind
                except Exception:  # noqa: BLE001
                    pk = None
                if e.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR) or pk == ex.ci.TypeKind.VOID:
                    e = sub[0]
                    continue
        break
    TK = ex.ci.TypeKind
    pointee = size = kind = None
    try:
        t = e.type.get_canonical()
        if t.kind == TK.POINTER:
            pt = t.get_pointee()
            if pt.get_canonical().kind != TK.VOID:
                pointee, size, kind = type_info(pt, K, TK)
        elif t.kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY):
            pointee, size, kind = type_info(t.element_type, K, TK)
    except Exception:  # noqa: BLE001
        pass
    storage, var, var_span = _storage(ex, e, data_text)
    container = _container(ex, call, parents)
    walker.field_data.append(
        FieldData(name=decl.name, span=walker.span(data_c), ftype=decl.type, data=data_text[:100], pointee=pointee,
                  pointee_size=size, pointee_kind=kind, storage=storage, var=var, var_span=var_span,
                  container=container)
    )


def _decl_storage(ex: Unit, d: Cursor) -> Optional[str]:
    K = ex.K
    if d is None:
        return None
    if d.kind == K.FIELD_DECL:
        return "member"
    if d.kind == K.PARM_DECL:
        try:
            if d.type.get_canonical().kind in (ex.ci.TypeKind.LVALUEREFERENCE, ex.ci.TypeKind.RVALUEREFERENCE):
                return None
        except Exception:  # noqa: BLE001
            return None
        return "param"
    if d.kind == K.VAR_DECL:
        try:
            if d.type.get_canonical().kind in (ex.ci.TypeKind.LVALUEREFERENCE, ex.ci.TypeKind.RVALUEREFERENCE):
                return None
        except Exception:  # noqa: BLE001
            return None
        p = d.semantic_parent
        if p is not None and p.kind in func_kinds(K):
            try:
                if d.storage_class == ex.ci.StorageClass.STATIC:
                    return "static"
            except Exception:  # noqa: BLE001
                return None
            return "local"
        return "static"
    return None


def _storage(ex: Unit, e: Cursor, text: str) -> tuple[Optional[str], Optional[str], Optional[Span]]:
    """Where the memory a PluginField's data points to lives."""
    K = ex.K
    if e.kind == K.STRING_LITERAL or text.startswith('"'):
        return "literal", None, None
    # x.c_str() / x.data() on a temporary (a call result that is not a reference)
    if e.kind == K.CALL_EXPR and _TEMP_OWNER.search(text):
        sub = children(e)
        if sub and sub[0].kind == K.MEMBER_REF_EXPR:
            obj = [s for s in children(sub[0])]
            if obj:
                o = strip(K, obj[0], children)
                if o.kind in (K.CALL_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR, K.INIT_LIST_EXPR) or (
                    o.kind == K.UNEXPOSED_EXPR and "(" in ex.text_of(o)
                ):
                    try:
                        is_ref = o.type.kind in (ex.ci.TypeKind.LVALUEREFERENCE, ex.ci.TypeKind.RVALUEREFERENCE)
                    except Exception:  # noqa: BLE001
                        is_ref = False
                    ref = o.referenced if o.kind == K.CALL_EXPR else None
                    returns_ref = False
                    if ref is not None:
                        try:
                            rk = ref.result_type.kind
                            returns_ref = rk in (ex.ci.TypeKind.LVALUEREFERENCE, ex.ci.TypeKind.RVALUEREFERENCE)
                        except Exception:  # noqa: BLE001
                            returns_ref = False
                    if not is_ref and not returns_ref and (ref is None or ref.kind != K.CXX_METHOD or
                                                            ref.spelling in ("substr", "str")):
                        return "temporary", " ".join(ex.text_of(o).split())[:80], None
                    return None, None, None
    # the root variable of &x, &x.y, x.data(), &x[0], x (an array or pointer)
    for sub in preorder(e):
        if sub.kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR):
            d = sub.referenced
            if d is None:
                return None, None, None
            if sub.kind == K.MEMBER_REF_EXPR and d.kind == K.FIELD_DECL:
                # a member of what? this->x / x: the object; local.x: the local
                inner = children(sub)
                if inner:
                    base = strip(K, inner[0], children)
                    if base.kind == K.DECL_REF_EXPR:
                        st = _decl_storage(ex, base.referenced)
                        if st is not None:
                            # a pointer member of a local struct points elsewhere
                            return (st if not _is_pointer(ex, d) else None), base.spelling, ex.loc_span(base.referenced)
                        return None, None, None
                    if base.kind == K.CXX_THIS_EXPR:
                        return "member", d.spelling, ex.loc_span(d)
                    if base.kind in (K.MEMBER_REF_EXPR,):
                        continue
                    return None, None, None
                return "member", d.spelling, ex.loc_span(d)
            if d.kind in (K.FUNCTION_DECL, K.CXX_METHOD):
                continue
            st = _decl_storage(ex, d)
            if st in ("local", "param") and _is_pointer(ex, d) and not text.lstrip().startswith("&"):
                return None, None, None  # a pointer variable: points elsewhere
            return st, d.spelling, ex.loc_span(d)
    return None, None, None


def _is_pointer(ex: Unit, d: Cursor) -> bool:
    try:
        return d.type.get_canonical().kind == ex.ci.TypeKind.POINTER
    except Exception:  # noqa: BLE001
        return False


def _container(ex: Unit, call: Cursor, parents: tuple) -> Optional[str]:
    """Where the PluginField goes: "member"/"static" (it outlives the function), "local", or None."""
    K = ex.K
    cands = [call] + list(reversed(parents))
    for p in cands[:6]:
        if p.kind == K.CALL_EXPR and p.spelling in ("emplace_back", "push_back", "emplace", "insert"):
            sub = children(p)
            if sub and sub[0].kind == K.MEMBER_REF_EXPR:
                obj = children(sub[0])
                if obj:
                    o = strip(K, obj[0], children)
                    if o.kind == K.MEMBER_REF_EXPR and o.referenced is not None and o.referenced.kind == K.FIELD_DECL:
                        return "member"
                    if o.kind == K.DECL_REF_EXPR:
                        return _decl_storage(ex, o.referenced)
                    if o.kind == K.MEMBER_REF_EXPR and o.referenced is not None:
                        return _decl_storage(ex, o.referenced)
                elif sub[0].referenced is not None and sub[0].referenced.kind == K.CXX_METHOD:
                    return "member"  # emplace_back on an implicit this->member
            return None
        if p.kind == K.VAR_DECL:
            return _decl_storage(ex, p)
        if p.kind == K.BINARY_OPERATOR or (p.kind == K.CALL_EXPR and p.spelling == "operator="):
            return None
    return None


# -- the per-method detail ---------------------------------------------------------------------------------


def detail(ex: Unit, fn: Cursor, name: str, cls: Optional[str], rel: str, span: Span, walker: FieldWalker) -> Optional[MethodDetail]:
    """The lifecycle detail of one function definition, or None when it holds nothing these rules read."""
    fields = tuple(walker.field_data)
    plugin_family = ex.families.get(cls) if cls else None
    want_returns = plugin_family is not None and name in _DETAIL_METHODS
    role = ""
    want_serial = False
    if plugin_family is not None and plugin_family.startswith("v2"):
        if name == "serialize":
            want_serial = True
        elif _is_deserializing_ctor(ex, fn):
            want_serial, role = True, "deserialize"
    want_phase = name == "createPlugin" and plugin_family == "creator_v3"
    handoffs = _handoffs(ex, fn, rel) if name == "deserializePlugin" and plugin_family == "creator_v2" else ()
    size_const = size_value(ex, fn) if name == "getSerializationSize" and (plugin_family or "").startswith("v2") else None
    if not (want_returns or want_serial or fields or want_phase or handoffs or size_const is not None):
        return None
    returns: tuple = ()
    serial: tuple = ()
    writes_nothing = False
    refs: list[tuple[str, Span]] = []
    phase_ranges: tuple = ()
    if want_returns or want_serial or want_phase:
        w = _Walk(ex, fn, name, want_returns, want_serial)
        w.want_phase = want_phase
        w.run()
        phase_ranges = tuple(w.phase_ranges)
        returns = tuple(w.returns)
        serial = w.serial_ops() if want_serial else ()
        if want_serial and name == "serialize" and not serial:
            writes_nothing = serial_writes_nothing(ex, fn, _OUT_T)
    if name in ("getOutputDataTypes", "getOutputDataType") and plugin_family is not None:
        f, l1, c1, o1, _l2, _c2, o2 = ex.extent_info(fn)
        if f is not None:
            body = ex.file_bytes(f)[o1:o2].decode("utf-8", "replace")
            for m in _FLAG_RE.finditer(body):
                before = body[: m.start()]
                line = l1 + before.count("\n")
                col = (m.start() - before.rfind("\n")) if "\n" in before else c1 + m.start()
                txt = m.group(0).rstrip("( ")
                refs.append((re.sub(r"\s+", "", txt), Span(rel, line, col, line, col + len(txt))))
    try:
        rtype = fn.result_type.spelling or ""
    except Exception:  # noqa: BLE001
        rtype = ""
    return MethodDetail(
        usr=fn.get_usr() or "",
        qualname=ex.qualname(fn),
        cls=cls,
        name=name,
        span=span,
        role=role,
        return_type=rtype,
        returns=returns,
        field_data=fields,
        serial=serial,
        refs=tuple(refs),
        phase_ranges=phase_ranges,
        handoffs=handoffs,
        size_value=size_const,
        writes_nothing=writes_nothing,
    )

