"""C++ plugin lifecycle facts (part of the C++ frontend; called from :mod:`.decls`).

For the methods of plugin and creator classes whose bodies matter to the interface and lifecycle rules
(TRT201/202/206/208/209/210/213) this module records a :class:`~trtlint.base.facts.MethodDetail`:

* ``returns``: every return statement, classified (a bool literal or bool-typed expression, an integer, a
  ``static_cast<IPluginV3OneBuild*>(this)``-style cast with its target, nullptr) and, in
  ``getCapabilityInterface``, the ``PluginCapabilityType`` enumerators its enclosing ``if``/``case`` tests;
* ``field_data``: the data argument of every ``PluginField`` built in the body, with the C++ type it points to
  and where that storage lives (member, static, literal, local, parameter, temporary), and where the field
  itself is stored (recorded by :mod:`.fielddata` during the body walk);
* ``serial``: for ``IPluginV2*`` plugins, the writes of ``serialize()`` and the reads of the deserializing
  constructor, in source order (TensorRT OSS ``write(d, x)`` / ``read<T>(d)``, ``serialize_value`` /
  ``deserialize_value``, ``writeToBuffer`` / ``readFromBuffer``), each with its C++ type and size;
* ``refs``: builder precision state named in ``getOutputDataType(s)`` (``BuilderFlag::kFP16``,
  ``getFlag(...)``, ``platformHasFast*``);
* ``handoffs``: for a V2 creator's ``deserializePlugin``, the plugin constructors it hands its blob to and how
  far into the blob the pointer it passes points (:mod:`.handoff`);
* ``workspace_param``: for ``enqueue``, the index of its workspace parameter; the returns of ``getWorkspaceSize``
  are recorded too (whether TensorRT hands ``enqueue`` a non-null workspace: ``checks/hotpath/_walk.py``);
* ``accepted_types``: for a plugin's ``supportsFormatCombination``, the data types it accepts per position, when its
  body says them exactly; ``input_desc`` and ``type_locals``: for ``enqueue`` / ``configurePlugin`` /
  ``onShapeChange``, the input-descriptor parameter and the locals bound once to an input's type (:mod:`.formats`).

Only the modules of this package touch libclang cursors; what leaves is plain facts.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Optional

from trtlint.base.facts import MethodDetail, ReturnInfo, SerialOp, Span
from .base import Cursor, Unit, arguments, children, evaluate_int, look_through
from .fielddata import FieldWalker
from .formats import TYPE_READERS, accepted_types, input_types
from .handoff import handoffs_of
from .serialhelpers import buffer_names, helpers, recovered, typed_access, typed_load_init
from .serialhelpers import writes_nothing as serial_writes_nothing
from .serialvalues import BLOB_T, OUT_T, READS, WRITES, counting_loop_bound, raw_store, read_value, size_value
from .serialvalues import type_info

# methods whose bodies are recorded (the rest only when they build PluginFields)
STATUS_METHODS = frozenset({
    "enqueue", "configurePlugin", "getOutputDataTypes", "getOutputShapes", "onShapeChange", "setTactic",
    "initialize", "getValidTactics",
})
_DETAIL_METHODS = STATUS_METHODS | {"getCapabilityInterface", "getAliasedInput", "serialize", "getOutputDataType",
                                    "getWorkspaceSize"}
# the name a statement assigns before a call (``mKh = ``, ``this->mA.b = ``, ``mArr[i] = ``): the text right before it
_ASSIGNED = re.compile(r"(?:^|[;{}\n])[ \t]*((?:this\s*->\s*)?[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*"
                       r"(?:\s*\[[^\]\n]*\])?)\s*=\s*$")
_CAP_RE = re.compile(r"\bk(CORE|BUILD|RUNTIME)\b")
_RETURN_KW = re.compile(rb"\breturn\b")
_NOT_CODE = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|^[ \t]*#[^\n]*', re.S | re.M)
_CAST_RE = re.compile(r"^\s*(?:static_cast|dynamic_cast|reinterpret_cast|const_cast)\s*<\s*([\w:\s]+?)\s*\*\s*(?:const\s*)?>")
_CCAST_RE = re.compile(r"^\s*\(\s*([\w:\s]+?)\s*\*\s*\)")
_PHASE_RE = re.compile(r"(==|!=)?\s*(?:\w+::)*TensorRTPhase\s*::\s*(kBUILD|kRUNTIME)")
_FLAG_RE = re.compile(r"\bBuilderFlag\s*::\s*k\w+|\b(?:getFlag|getFlags|platformHasFast\w+)\s*\(")
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
        # the last located cursor walked (where a dropped statement is shown): found when needed (_nearest) among the
        # cursors entered, not by reading every cursor's extent as it is entered
        self._near: Optional[Cursor] = None
        self._entered: list = []
        self._scanned = 0  # _entered[:_scanned] were looked at for _near
        self.roles: dict[int, tuple[str, int, int]] = {}  # a project helper's call offset -> its role (serialhelpers)
        # `d += sizeof(T)`: straight-line advances of a buffer pointer by a size with no call in it, (offset, cursor,
        # bytes or None, the size as written); one with no write (read) since the previous one is a skip (serial_ops)
        self.advances: list[tuple[int, Any, Optional[int], str]] = []
        self.touches: list[int] = []  # offsets of the calls handed the buffer (any: one that did not resolve too)
        # the buffer parameter and the locals pointing into it (serialize(void* buffer) / Plugin(void const* d, n))
        self.names: set[str] = buffer_names(ex, fn, OUT_T if name == "serialize" else BLOB_T,
                                            buffer_param) if want_serial else set()

    def span(self, c: Cursor) -> Span:
        return self.ex.span_of(c) or self.ex.loc_span(c) or Span(self.ex.src.rel, 1)

    #: the state of the body's top-level statements: (capability tested, conditional, in a catch, counting loop)
    ROOT = (None, False, False, None)

    def run(self) -> None:
        """Walk the body on its own (a GPU function the body walk skips, a serialization helper's body)."""
        K = self.K
        for ch in self.kids(self.fn):
            if ch.kind == K.PARM_DECL:
                continue
            self.visit(ch, self.ROOT)
        self.finish()

    def finish(self) -> None:
        """After the walk (on its own, or as a hook of the body walk, :class:`.body.BodyWalker`)."""
        if self.want_serial:
            self.recover()

    def recover(self) -> None:
        """Statements libclang dropped that name the buffer (serialhelpers.recovered)."""
        for off, op in recovered(self.ex, self.fn, self.names, self.name == "serialize"):
            self.inlined[off] = (op,)
            self.serial.append((off, None, "inline", False, ""))

    def visit(self, c: Cursor, state: tuple) -> None:
        """``c`` and its subtree, recursively (the body walk calls :meth:`enter` itself, node by node)."""
        kids = self.kids(c)
        states = self.enter(c, kids, state)
        if states is not None:
            for ch, st in zip(kids, states):
                if st is not None:
                    self.visit(ch, st)

    def enter(self, c: Cursor, kids: list, state: tuple) -> Optional[list]:
        """One node of the walk in ``state`` (``ROOT``'s form): record what it holds; return the state of each of
        its children (None: a child this walk does not enter), or None when it enters none of them."""
        K = self.K
        k = c.kind
        if k in (K.LAMBDA_EXPR, K.CLASS_DECL, K.STRUCT_DECL):
            return None  # a lambda's returns are its own
        cap, cond, catch, loop = state
        self._loop = loop
        if self.want_returns:
            if k == K.NULL_STMT and self.ex.extent_info(c)[0] is None:
                # a statement clang dropped in error recovery (a `return static_cast<Base*>(this);` whose class
                # clang found invalid leaves a NullStmt with no location): it may return anything
                self.on_unknown(cap, catch)
            else:
                self._entered.append(c)
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
        elif k == K.COMPOUND_ASSIGNMENT_OPERATOR and self.want_serial and not cond and loop is None and self.names:
            self.on_advance(c, kids)
        elif (k == K.VAR_DECL and self.want_serial and self.name != "serialize"
              and typed_load_init(self.ex, c, self.names) is not None):
            # `int n = *reinterpret_cast<int const*>(d);`: a read of int
            self.add_serial(self.ex.extent_info(c)[3], c, "load", cond, "")
        if k == K.CXX_CATCH_STMT:
            return [(cap, cond, True, loop)] * len(kids)
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
            return [(then_cap if i == then_i else (None if (i > then_i and caps) else cap), True, catch, loop)
                    for i in range(len(kids))]
        if k == K.CASE_STMT and kids:
            caps = _CAP_RE.findall(self.ex.text_of(kids[0]))
            sub_cap = ",".join("k" + x for x in caps) if caps else cap
            return [None] + [(sub_cap, True, catch, loop)] * (len(kids) - 1)
        if k == K.FOR_STMT and self.want_serial and not cond and loop is None:
            bound = counting_loop_bound(self.ex.text_of(c))
            if bound is not None:
                # `for (int i = 0; i < n; ++i)` with no branch around it: its ops run n times, in order
                return [(cap, False, catch, (self.ex.extent_info(c)[3], bound))] * len(kids)
        sub_cond = cond or k in (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT, K.SWITCH_STMT, K.CONDITIONAL_OPERATOR,
                                 K.CXX_FOR_RANGE_STMT)
        return [(cap, sub_cond, catch, loop)] * len(kids)

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
        near = self._nearest()
        near = near if near is not None else self.fn
        self.returns.append(ReturnInfo(span=self.span(near), expr="(a statement clang could not analyse)",
                                       kind="unknown", cap=cap, in_catch=catch))

    def _nearest(self) -> Optional[Cursor]:
        """The last cursor entered so far whose extent lies in a file."""
        ents = self._entered
        for i in range(len(ents) - 1, self._scanned - 1, -1):
            if self.ex.extent_info(ents[i])[0] is not None:
                self._near = ents[i]
                break
        self._scanned = len(ents)
        return self._near

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
        e = look_through(K, kids[0])
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
        name = c.spelling or self._dependent_name(c)
        if self.names and any(set(re.findall(r"[A-Za-z_]\w*", self.ex.text_of(a))) & self.names for a in arguments(c)):
            # a call handed the buffer may store there, seen below or not (a helper whose header is missing)
            self.touches.append(self.ex.extent_info(c)[3])
        if name in WRITES or name in READS:
            op = "write" if name in WRITES else "read"
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
            handed = any(set(re.findall(r"[A-Za-z_]\w*", self.ex.text_of(a))) & self.names for a in arguments(c))
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

    def on_advance(self, c: Cursor, kids: list) -> None:
        """``d += n`` of a buffer pointer ``d``, ``n`` a size with no call in it (``sizeof(int)``, ``4 * sizeof(float)``:
        what a call returns may be what it wrote, ``d += copyFromHost(d, ...)``)."""
        if len(kids) != 2 or re.sub(r"[\s()]", "", self.ex.text_of(kids[0])) not in self.names:
            return
        whole, rhs = self.ex.text_of(c), self.ex.text_of(kids[1])
        if not re.match(r"\s*[\w()\s]*?\+=", whole) or re.search(r"\b(?!sizeof\b)[A-Za-z_]\w*\s*\(", rhs):
            return
        self.advances.append((self.ex.extent_info(c)[3], c, evaluate_int(kids[1]), " ".join(whole.split())[:100]))

    def _delegate(self, c: Cursor) -> Optional[tuple[SerialOp, ...]]:
        """The serial values of the body ``c``'s callee, when it is a project function handed the buffer itself (not
        an advanced pointer into it: the constructor's own reads come first) and reads (writes) nothing else's."""
        if self.depth >= 2 or any(op != "inline" for _o, _c, op, _cd, _n in self.serial):
            return None
        args = arguments(c)
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

    def _dependent_name(self, c: Cursor) -> str:
        """The name of a call libclang leaves unnamed: a dependent call in a template (an argument's type depends on
        a template parameter, `memcpy(&m_, data, sizeof(m_))` in a class template), whose callee is an overload set."""
        K = self.K
        kids = self.kids(c)
        if not kids or kids[0].kind not in (K.DECL_REF_EXPR, K.UNEXPOSED_EXPR):
            return ""
        return next((sub.spelling or "" for sub in self.kids(kids[0]) if sub.kind == K.OVERLOADED_DECL_REF), "")

    def _copied_value(self, value: Cursor, other: Cursor):
        """((ctype, size, kind), text) of the value a ``memcpy`` (de)serializes: ``&x`` or an array, the other
        side being the buffer; None otherwise."""
        K = self.K
        a = look_through(K, value)
        text = self.ex.text_of(a).strip()
        if text.startswith("&"):
            sub = self.kids(a)
            if len(sub) != 1:
                return None
            a = look_through(K, sub[0])
        elif a.type.get_canonical().kind != self.TK.CONSTANTARRAY:
            return None  # neither &x nor an array: not a value being (de)serialized
        if self.ex.text_of(other).strip().startswith("&"):
            return None  # value to value: not the buffer
        return type_info(a.type, K, self.TK), self.ex.text_of(a)

    def serial_ops(self) -> tuple[SerialOp, ...]:
        ops: list[SerialOp] = []
        buffers: set[str] = set(self.names)
        items = sorted(self.serial, key=lambda t: t[0])
        at: list[int] = []  # the offset of each op of ``ops`` (of the statement it came from)
        for off, c, op, _cond, _name in items:
            if op in ("write", "read", "helper") and c is not None:
                args = arguments(c)
                b = self.roles[off][1] if op == "helper" else 0
                if len(args) > b:
                    buffers.add(re.sub(r"[\s&*()]", "", self.ex.text_of(args[b])))
        for off, c, op, cond, name in items:
            n_before = len(ops)
            self._emit(ops, off, c, op, cond, name, buffers)
            if c is not None and op != "inline" and any(o.op == "read" for o in ops[n_before:]):
                into = self._assigned_to(c)
                if into:
                    ops[n_before:] = [dataclasses.replace(o, into=into) if o.op == "read" else o for o in ops[n_before:]]
            at.extend([off] * (len(ops) - n_before))
        ops = self._skips(ops, at)
        if self.loop_of:
            ops = [dataclasses.replace(o, loop=lp[1], loop_at=lp[0]) if (lp := self.loop_of.get(
                (o.span.path, o.span.line, o.span.col))) is not None else o for o in ops]
        return tuple(ops)

    def _assigned_to(self, c: Any) -> str:
        """The name a read call's value is assigned to (``mKh = readBUF<int>(d);``, ``this->mA.b = read<T>(d)``), read
        from the text before the call back to the statement's start; "" when it is not a plain assignment."""
        try:
            f, _l1, _c1, o1, _l2, _c2, _o2 = self.ex.extent_info(c)
        except Exception:  # noqa: BLE001 - no extent: nothing known
            return ""
        if f is None:
            return ""
        before = self.ex.file_bytes(f)[max(0, o1 - 160):o1].decode("utf-8", "replace")
        m = _ASSIGNED.search(before)
        if m is None or (o1 > 160 and m.start() == 0 and before[:1] not in (";", "{", "}", "\n")):
            return ""  # (a name cut by the window's start is no name)
        return re.sub(r"\s+", "", m.group(1)).removeprefix("this->")

    def _skips(self, ops: list[SerialOp], at: list[int]) -> list[SerialOp]:
        """``ops`` (at offsets ``at``) with a ``skip`` op for each advance of the buffer (``d += sizeof(T)``) that no
        write (read) comes before since the previous advance or the body's start: bytes the pointer moves past
        without writing (reading) them. An advance right after a write or read only moves past what it stored."""
        if not self.advances:
            return ops
        merged: list[tuple[int, int, Any]] = [(o, 1, op) for o, op in zip(at, ops)]  # (offset, what, payload)
        merged += [(adv[0], 0, adv) for adv in self.advances] + [(t, 2, None) for t in self.touches]
        merged.sort(key=lambda t: (t[0], t[1]))
        out: list[SerialOp] = []
        moved = True  # the pointer is past everything stored so far (at the start: nothing stored)
        for _off, what, x in merged:
            if what:  # an op (1), or a call handed the buffer (2)
                if what == 1:
                    out.append(x)
                moved = False
                continue
            _o, c, size, text = x
            if moved:
                out.append(SerialOp(op="skip", span=self.span(c), expr=text, size=size))
            moved = True
        return out

    def _emit(self, ops: list[SerialOp], off: int, c: Any, op: str, cond: bool, name: str, buffers: set[str]) -> None:
        """The serial op(s) of one recorded statement, appended to ``ops``."""
        K = self.K
        if op == "inline":
            ops.extend(dataclasses.replace(o, conditional=o.conditional or cond) for o in self.inlined[off])
            return
        args = arguments(c) if op not in ("raw", "load") else []
        texts = [re.sub(r"[\s&*()]", "", self.ex.text_of(a)) for a in args]
        if op == "helper":
            _r, _b, v = self.roles[off]
            if v < 0:
                tc, texpr = c, self.ex.text_of(c)
            elif v < len(args):
                tc, texpr = look_through(K, args[v]), self.ex.text_of(args[v])
            else:
                return
            ctype, size, kind = type_info(tc.type, K, self.TK)
            ops.append(SerialOp(op="write" if self.name == "serialize" else "read", span=self.span(c),
                                expr=" ".join(texpr.split())[:100], ctype=ctype, size=size, kind=kind,
                                conditional=cond))
            return
        if op == "load":
            ld = typed_load_init(self.ex, c, self.names)
            if ld is not None:
                ctype, size, kind = type_info(ld[0].type, K, self.TK)
                ops.append(SerialOp(op="read", span=self.span(c), expr=ld[1], ctype=ctype, size=size, kind=kind,
                                    conditional=cond))
            return
        if name == "memcpy" and len(args) >= 2:
            # serialization by copying a value or an array: memcpy(d, &mX, n) in serialize(),
            # memcpy(&mX, d, n) / memcpy(mArr, d, n) in the deserializing constructor
            w = self.name == "serialize"
            val = self._copied_value(args[1] if w else args[0], args[0] if w else args[1])
            if val is not None:
                (ctype, size, kind), expr = val
                ops.append(SerialOp(op="write" if w else "read", span=self.span(c), expr=expr[:100], ctype=ctype,
                                    size=size, kind=kind, conditional=cond))
                return
        if op == "raw":
            typed = typed_access(self.ex, c, self.kids(c), self.names, self.name == "serialize")
            if typed is not None:
                # `*reinterpret_cast<int*>(d) = mX` / `mX = *reinterpret_cast<int const*>(d)`: a value of int
                ctype, size, kind = type_info(typed[0].type, K, self.TK)
                ops.append(SerialOp(op="write" if self.name == "serialize" else "read", span=self.span(c),
                                    expr=" ".join(typed[1].split())[:100], ctype=ctype, size=size, kind=kind,
                                    conditional=cond))
                return
            ops.append(SerialOp(op="opaque", span=self.span(c), expr="store through a pointer", conditional=cond))
            return
        if op in ("opaque", "call"):
            if not any(t in buffers for t in texts):
                return
            expr = name
            if name in ("memcpy", "std::memcpy") and len(args) >= 3:
                # a block copied (`memcpy(d, mKernels.data(), n)`): named by its value and size, so that the
                # same block on the other side can be matched (serialization_incomplete's anchors)
                val = args[1] if self.name == "serialize" else args[0]
                expr = f"{name}({' '.join(self.ex.text_of(val).split())}, {' '.join(self.ex.text_of(args[2]).split())})"
            ops.append(SerialOp(op="opaque", span=self.span(c), expr=expr[:100], conditional=cond))
            return
        ctype = size = kind = None
        expr = ""
        if op == "write":
            idx = WRITES[name]
            if len(args) > idx:
                a = look_through(K, args[idx])
                ctype, size, kind = type_info(a.type, K, self.TK)
                expr = self.ex.text_of(args[idx])
        else:
            ctype, size, kind, expr = read_value(self.ex, c, name, args)
        expr = " ".join(expr.split())
        ops.append(SerialOp(op=op, span=self.span(c), expr=expr[:100], ctype=ctype, size=size, kind=kind,
                            conditional=cond))


def _is_deserializing_ctor(ex: Unit, fn: Cursor) -> bool:
    """``Plugin(void const* data, size_t length)`` (optionally after a name): a constructor that reads a buffer."""
    K = ex.K
    if fn.kind != K.CONSTRUCTOR:
        return False
    params = [ch for ch in children(fn) if ch.kind == K.PARM_DECL]
    for i, p in enumerate(params[:-1]):
        t = (p.type.spelling or "").replace(" ", "")
        if BLOB_T.fullmatch(t):
            nt = (params[i + 1].type.spelling or "").replace(" ", "")
            if re.search(r"size_t|int|long", nt):
                return True
    return False




def _workspace_param(ex: Unit, fn: Cursor) -> Optional[int]:
    """The index of ``enqueue``'s workspace: the ``void*`` parameter just before its last, the stream."""
    K = ex.K
    params = [ch for ch in children(fn) if ch.kind == K.PARM_DECL]
    if len(params) < 2:
        return None
    try:
        ws, stream = params[-2].type.get_canonical(), params[-1].type.get_canonical()
        if ws.kind != ex.ci.TypeKind.POINTER or ws.get_pointee().kind != ex.ci.TypeKind.VOID:
            return None
        if stream.kind != ex.ci.TypeKind.POINTER or "CUstream" not in (stream.spelling or ""):
            return None
    except Exception:  # noqa: BLE001 - an unresolved type
        return None
    return len(params) - 2


# -- the per-method detail ---------------------------------------------------------------------------------


def _wants(ex: Unit, fn: Cursor, name: str, cls: Optional[str]) -> tuple[Optional[str], bool, bool, bool, str]:
    """(the class's plugin family, want returns, want serialization, want TensorRTPhase branches, role)."""
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
    return plugin_family, want_returns, want_serial, want_phase, role


def plan(ex: Unit, fn: Cursor, name: str, cls: Optional[str]) -> Optional[_Walk]:
    """The walk of ``fn``'s body this module needs (returns, serialization, TensorRTPhase branches), for the body
    walk to drive as a hook (:class:`.body.BodyWalker`); None when it needs none. Hand it to :func:`detail`."""
    _fam, want_returns, want_serial, want_phase, _role = _wants(ex, fn, name, cls)
    if not (want_returns or want_serial or want_phase):
        return None
    w = _Walk(ex, fn, name, want_returns, want_serial)
    w.want_phase = want_phase
    return w


def detail(ex: Unit, fn: Cursor, name: str, cls: Optional[str], rel: str, span: Span, walker: FieldWalker,
           w: Optional[_Walk] = None) -> Optional[MethodDetail]:
    """The lifecycle detail of one function definition, or None when it holds nothing these rules read. ``w``: the
    walk :func:`plan` gave, which the body walk drove (its :meth:`_Walk.finish` not yet called); None: none was
    planned, or the body walk did not run (a GPU function): walked here."""
    fields = tuple(walker.field_data)
    plugin_family, want_returns, want_serial, want_phase, role = _wants(ex, fn, name, cls)
    handoffs = handoffs_of(ex, fn, rel) if name == "deserializePlugin" and plugin_family == "creator_v2" else ()
    size_const = size_value(ex, fn) if name == "getSerializationSize" and (plugin_family or "").startswith("v2") else None
    is_plugin = plugin_family is not None and not plugin_family.startswith("creator")
    accepted = accepted_types(ex, fn) if is_plugin and name == "supportsFormatCombination" else None
    if not (want_returns or want_serial or fields or want_phase or handoffs or size_const is not None
            or accepted is not None):
        return None
    desc, type_locals = input_types(ex, fn) if is_plugin and name in TYPE_READERS else (None, ())
    returns: tuple = ()
    serial: tuple = ()
    writes_nothing = False
    refs: list[tuple[str, Span]] = []
    phase_ranges: tuple = ()
    if want_returns or want_serial or want_phase:
        if w is None:
            w = plan(ex, fn, name, cls)
            assert w is not None
            w.run()
        else:
            w.finish()
        phase_ranges = tuple(w.phase_ranges)
        returns = tuple(w.returns)
        serial = w.serial_ops() if want_serial else ()
        if want_serial and name == "serialize" and not serial:
            writes_nothing = serial_writes_nothing(ex, fn, OUT_T)
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
        workspace_param=_workspace_param(ex, fn) if name == "enqueue" and plugin_family is not None else None,
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
        accepted_types=accepted,
        input_desc=desc,
        type_locals=type_locals,
    )
