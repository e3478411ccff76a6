"""The data types a plugin's ``supportsFormatCombination`` accepts at each position, read exactly or not at all (part
of the C++ frontend; called from :mod:`.lifecycle`), and the reads of an input's data type in the methods TensorRT
runs with an accepted combination (``enqueue``, ``configurePlugin``, ``onShapeChange``).

``accepted_types``: the body of ``supportsFormatCombination(pos, inOut, nbInputs, nbOutputs)`` is turned into a small
tree (blocks, ``if``, ``switch``, ``return``, local declarations, ``do { } while (0)`` of a statement macro, ``try``)
and run, for each position ``k`` (0 to 7) and each ``DataType`` enumerator ``t``, with ``pos == k`` and
``inOut[k].type == t`` (``inOut[k].desc.type`` in V3); everything else is unknown (the formats, ``nbInputs``, a call)
and both arms of a test on it are taken. ``t`` is accepted at ``k`` unless every path returns ``false`` (or a value
known false): an over-approximation, so the set recorded holds every type TensorRT can hand the plugin at ``k``. A
comparison with the type of an earlier position (``inOut[pos].type == inOut[0].type``, "same as position 0") is
false for a type that position does not accept (TensorRT asks about position ``k`` with positions below it chosen).
A body with a loop, a ``goto``, an assignment to a local or parameter, or any construct the tree does not hold gives
no fact at all; a position whose every type may be accepted is not recorded.

``input_types``: the name of the method's input-descriptor parameter (its first, a pointer to ``PluginTensorDesc`` or
``DynamicPluginTensorDesc``) and the locals bound once, and never written again, to the type of one input with a
constant index (``auto type = inputDesc[0].type;``).
"""

from __future__ import annotations

import re
from typing import Any, Optional

from .base import Cursor, binop_code, children, evaluate_int, look_through

DTYPES = ("kFLOAT", "kHALF", "kINT8", "kINT32", "kBOOL", "kUINT8", "kFP8", "kBF16", "kINT64", "kINT4", "kFP4", "kE8M0")
POSITIONS = 8
TYPE_READERS = frozenset({"enqueue", "configurePlugin", "onShapeChange"})

# clang_getCursorBinaryOperatorKind codes (CXBinaryOperatorKind)
_BO = {11: "<", 12: ">", 13: "<=", 14: ">=", 15: "==", 16: "!=", 20: "&&", 21: "||"}
_ASSIGN = frozenset(range(22, 33))  # =, *=, /=, %=, +=, -=, <<=, >>=, &=, |=, ^=
_TEXT_OPS = frozenset(_BO.values())
_DTYPE_TEXT = re.compile(r"(?:\w+\s*::\s*)*DataType\s*::\s*(k\w+)")
_UNK = ("unk",)


class _GiveUp(Exception):
    pass


class _Tree:
    """One supportsFormatCombination body as a small tree of tuples (no cursor leaves it)."""

    def __init__(self, ex: Any, pos: Cursor, inout: Cursor) -> None:
        self.ex, self.K = ex, ex.K
        self.pos, self.inout = pos.hash, inout.hash
        self.locals: set[int] = set()

    def _op(self, c: Cursor, kids: list) -> Optional[str]:
        code = binop_code(c)
        if code is not None:
            if code in _ASSIGN:
                raise _GiveUp
            return _BO.get(code)
        if len(kids) != 2:
            return None
        a, b = self.ex.extent_info(kids[0]), self.ex.extent_info(kids[1])
        if a[0] is None or a[0] != b[0] or b[3] < a[6]:
            return None
        between = self.ex.file_bytes(a[0])[a[6]:b[3]].decode("utf-8", "replace").strip()
        if between.endswith("=") and between not in ("==", "!=", "<=", ">="):
            raise _GiveUp
        return between if between in _TEXT_OPS else None

    def stmt(self, c: Cursor) -> tuple:
        K = self.K
        k = c.kind
        if k == K.COMPOUND_STMT:
            return ("block", tuple(self.stmt(s) for s in children(c)))
        if k == K.RETURN_STMT:
            sub = children(c)
            return ("return", self.expr(sub[0]) if sub else _UNK)
        if k == K.IF_STMT:
            sub = children(c)
            if len(sub) not in (2, 3) or sub[0].kind in (K.VAR_DECL, K.DECL_STMT):
                raise _GiveUp  # `if (init; cond)` or `if (T x = ...)`
            return ("if", self.expr(sub[0]), self.stmt(sub[1]), self.stmt(sub[2]) if len(sub) == 3 else ("block", ()))
        if k == K.SWITCH_STMT:
            sub = children(c)
            if len(sub) != 2 or sub[1].kind != K.COMPOUND_STMT:
                raise _GiveUp
            entries = []
            for st in children(sub[1]):
                labels: list = []
                while st.kind in (K.CASE_STMT, K.DEFAULT_STMT):
                    parts = children(st)
                    if st.kind == K.CASE_STMT:
                        if len(parts) != 2:
                            raise _GiveUp  # a GNU case range
                        labels.append(self.expr(parts[0]))
                    else:
                        labels.append(("default",))
                    st = parts[-1]
                entries.append((tuple(labels), self.stmt(st)))
            return ("switch", self.expr(sub[0]), tuple(entries))
        if k == K.DECL_STMT:
            out = []
            for d in children(c):
                if d.kind in (K.STATIC_ASSERT, K.TYPEDEF_DECL, K.TYPE_ALIAS_DECL, K.USING_DIRECTIVE,
                              K.USING_DECLARATION):
                    continue  # nothing at run time (a statement macro's `static_assert` on its condition)
                if d.kind != K.VAR_DECL:
                    raise _GiveUp
                init = [x for x in children(d) if x.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
                self.locals.add(d.hash)
                out.append(("decl", d.hash, self.expr(init[-1]) if init else _UNK))
            return ("block", tuple(out))
        if k == K.DO_STMT:
            sub = children(c)
            if len(sub) != 2 or evaluate_int(sub[1]) != 0:
                raise _GiveUp
            return ("do", self.stmt(sub[0]))
        if k == K.BREAK_STMT:
            return ("break",)
        if k == K.NULL_STMT:
            return ("block", ())
        if k == K.CXX_TRY_STMT:
            sub = children(c)
            handlers = []
            for h in sub[1:]:
                hb = [x for x in children(h) if x.kind == K.COMPOUND_STMT]
                if not hb:
                    raise _GiveUp
                handlers.append(self.stmt(hb[-1]))
            return ("try", self.stmt(sub[0]), tuple(handlers))
        if k in (K.FOR_STMT, K.WHILE_STMT, K.CXX_FOR_RANGE_STMT, K.GOTO_STMT, K.LABEL_STMT, K.INDIRECT_GOTO_STMT,
                 K.CONTINUE_STMT, K.CASE_STMT, K.DEFAULT_STMT):
            raise _GiveUp
        # an expression statement (a call, a statement macro's expansion): it returns nothing; it may not write
        self._no_writes(c)
        return ("block", ())

    def _no_writes(self, c: Cursor) -> None:
        K = self.K
        if c.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            kids = children(c)
            if c.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
                raise _GiveUp
            self._op(c, kids)  # raises on an assignment
        elif c.kind == K.UNARY_OPERATOR:
            t = self.ex.text_of(c).strip()
            if t.startswith(("++", "--")) or t.endswith(("++", "--")):
                raise _GiveUp
        elif c.kind == K.LAMBDA_EXPR:
            raise _GiveUp
        for ch in children(c):
            self._no_writes(ch)

    def expr(self, c: Cursor) -> tuple:
        K = self.K
        c = look_through(K, c, casts=True, functional=True, limit=None)
        k = c.kind
        if k == K.CXX_BOOL_LITERAL_EXPR:
            return ("bool", self.ex.text_of(c).strip() == "true")
        if k == K.INTEGER_LITERAL:
            v = evaluate_int(c)
            return ("int", v) if v is not None else _UNK
        if k == K.DECL_REF_EXPR:
            ref = c.referenced
            if ref is None:
                m = _DTYPE_TEXT.fullmatch(self.ex.text_of(c).strip())
                return ("dtype", m.group(1)) if m else _UNK
            h = ref.hash
            if h == self.pos:
                return ("pos",)
            if h == self.inout:
                return ("inout",)
            if h in self.locals:
                return ("local", h)
            if ref.kind == K.ENUM_CONSTANT_DECL:
                parent = ref.semantic_parent
                if parent is not None and parent.spelling == "DataType":
                    return ("dtype", ref.spelling)
            # an integer constant: a literal's name, an enumerator of the project's own (`case kINPUT:`)
            v = evaluate_int(c)
            return ("int", v) if v is not None else _UNK
        if k == K.ARRAY_SUBSCRIPT_EXPR:
            sub = children(c)
            if len(sub) != 2:
                return _UNK
            return ("sub", self.expr(sub[0]), self.expr(sub[1]))
        if k == K.MEMBER_REF_EXPR:
            sub = children(c)
            if len(sub) != 1:
                return _UNK
            return ("member", self.expr(sub[0]), c.spelling or "")
        if k == K.BINARY_OPERATOR:
            sub = children(c)
            op = self._op(c, sub)
            if op is None or len(sub) != 2:
                self._no_writes(c)
                return _UNK
            return ("bin", op, self.expr(sub[0]), self.expr(sub[1]))
        if k == K.UNARY_OPERATOR:
            sub = children(c)
            t = self.ex.text_of(c).strip()
            if len(sub) == 1 and t.startswith("!") and not t.startswith("!="):
                return ("not", self.expr(sub[0]))
            self._no_writes(c)
            return _UNK
        if k == K.CONDITIONAL_OPERATOR:
            sub = children(c)
            if len(sub) != 3:
                return _UNK
            return ("cond", self.expr(sub[0]), self.expr(sub[1]), self.expr(sub[2]))
        self._no_writes(c)
        return _UNK


# -- running the tree for one position and one type ----------------------------------------------------------


class _Run:
    def __init__(self, k: int, t: str, accepted: dict[int, frozenset]) -> None:
        self.k, self.t, self.accepted = k, t, accepted
        self.env: dict[int, tuple] = {}

    def value(self, e: tuple):
        """A value: ("int", n), ("bool", b), ("tensor", i), ("dtype", name), ("typeof", i) or None (unknown)."""
        tag = e[0]
        if tag in ("int", "bool", "dtype"):
            return e
        if tag == "pos":
            return ("int", self.k)
        if tag == "inout":
            return ("inout",)
        if tag == "local":
            return self.env.get(e[1])
        if tag == "sub":
            base, idx = self.value(e[1]), self.value(e[2])
            if base == ("inout",) and idx is not None and idx[0] == "int":
                return ("tensor", idx[1])
            return None
        if tag == "member":
            base = self.value(e[1])
            if base is None or base[0] != "tensor":
                return None
            if e[2] == "desc":
                return base
            if e[2] == "type":
                i = base[1]
                if i == self.k:
                    return ("dtype", self.t)
                return ("typeof", i) if 0 <= i < self.k else None
            return None
        if tag == "not":
            v = _truth(self.value(e[1]))
            return None if v is None else ("bool", not v)
        if tag == "cond":
            c = _truth(self.value(e[1]))
            if c is None:
                a, b = self.value(e[2]), self.value(e[3])
                return a if a == b else None
            return self.value(e[2] if c else e[3])
        if tag == "bin":
            op = e[1]
            if op in ("&&", "||"):
                a = _truth(self.value(e[2]))
                if a is not None and a == (op == "||"):
                    return ("bool", a)
                b = _truth(self.value(e[3]))
                if b is not None and b == (op == "||"):
                    return ("bool", b)
                return ("bool", op == "&&") if a is not None and b is not None else None
            return self.compare(op, self.value(e[2]), self.value(e[3]))
        return None

    def compare(self, op: str, a, b):
        if a is None or b is None:
            return None
        if a[0] == "int" and b[0] == "int":
            x, y = a[1], b[1]
            return ("bool", {"<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y, "==": x == y, "!=": x != y}[op])
        if op not in ("==", "!="):
            return None
        if a[0] == "typeof":
            a, b = b, a
        if a[0] == "dtype" and b[0] == "dtype":
            return ("bool", (a[1] == b[1]) == (op == "=="))
        if a[0] == "dtype" and b[0] == "typeof":
            # the type of an earlier position: one it accepts
            acc = self.accepted.get(b[1])
            if acc is not None and a[1] not in acc:
                return ("bool", op == "!=")
        return None

    def run(self, s: tuple) -> tuple[set, bool, bool]:
        """(the values its returns may give: True / False / None, whether it may complete, whether it may break)."""
        tag = s[0]
        if tag == "block":
            outs: set = set()
            brk = False
            for x in s[1]:
                o, cont, b = self.run(x)
                outs |= o
                brk |= b
                if not cont:
                    return outs, False, brk
            return outs, True, brk
        if tag == "return":
            return {_truth(self.value(s[1]))}, False, False
        if tag == "decl":
            self.env[s[1]] = self.value(s[2])
            return set(), True, False
        if tag == "break":
            return set(), False, True
        if tag == "if":
            c = _truth(self.value(s[1]))
            return self.any_of([s[2]] if c is True else [s[3]] if c is False else [s[2], s[3]])
        if tag == "do":
            o, cont, b = self.run(s[1])
            return o, cont or b, False
        if tag == "try":
            return self.any_of([s[1], *s[2]])
        if tag == "switch":
            return self.switch(s)
        raise _GiveUp

    def any_of(self, stmts: list) -> tuple[set, bool, bool]:
        """What running any one of ``stmts`` may do (the arms of an ``if`` not decided, a ``try`` block and its
        handlers): the union of their outcomes."""
        outs, cont, brk = set(), False, False
        for a in stmts:
            o, c2, b = self.run(a)
            outs |= o
            cont |= c2
            brk |= b
        return outs, cont, brk

    def switch(self, s: tuple) -> tuple[set, bool, bool]:
        v = self.value(s[1])
        if v is not None and v[0] not in ("int", "dtype"):
            v = None
        entries = s[2]
        starts: list[int] = []
        default, hit = None, None
        for i, (labels, _st) in enumerate(entries):
            for lab in labels:
                if lab == ("default",):
                    default = i
                    continue
                lv = self.value(lab)
                if v is None or lv is None or lv[0] != v[0]:
                    starts.append(i)  # may match
                elif lv == v:
                    starts.append(i)
                    hit = i if hit is None else hit
        cont = False
        if hit is not None:
            starts = [i for i in starts if i <= hit]
        elif default is not None:
            starts.append(default)
        else:
            cont = True  # no case matches: past the switch
        outs: set = set()
        for i in sorted(set(starts)):
            for _labels, st in entries[i:]:
                o, c2, b = self.run(st)
                outs |= o
                cont |= b
                if not c2:
                    break
            else:
                cont = True
        return outs, cont, False


def _truth(v) -> Optional[bool]:
    if v is None:
        return None
    if v[0] == "bool":
        return v[1]
    if v[0] == "int":
        return v[1] != 0
    return None


def accepted_types(ex: Any, fn: Cursor) -> Optional[tuple[tuple[int, tuple[str, ...]], ...]]:
    """(position, the DataType enumerators accepted there) for each position 0-7 that accepts fewer than all of them,
    read from ``supportsFormatCombination``'s body; None when it cannot be read exactly (see the module doc)."""
    K = ex.K
    kids = children(fn)
    params = [ch for ch in kids if ch.kind == K.PARM_DECL]
    body = kids[-1] if kids and kids[-1].kind == K.COMPOUND_STMT else None
    if body is None or len(params) < 2:
        return None
    try:
        tree = _Tree(ex, params[0], params[1]).stmt(body)
        accepted: dict[int, frozenset] = {}
        for k in range(POSITIONS):
            acc = []
            for t in DTYPES:
                outs, cont, _b = _Run(k, t, accepted).run(tree)
                if cont or any(o is not False for o in outs):  # (falling off the end: undefined, kept)
                    acc.append(t)
            accepted[k] = frozenset(acc)
    except (_GiveUp, RecursionError):
        return None
    return tuple((k, tuple(t for t in DTYPES if t in a)) for k, a in sorted(accepted.items()) if len(a) < len(DTYPES))


def input_types(ex: Any, fn: Cursor) -> tuple[Optional[str], tuple[tuple[str, int], ...]]:
    """(the input-descriptor parameter's name, (local, input index) of each local bound once to an input's type)."""
    K = ex.K
    kids = children(fn)
    params = [ch for ch in kids if ch.kind == K.PARM_DECL]
    if not params:
        return None, ()
    try:
        t = params[0].type.get_canonical()
        ok = t.kind == ex.ci.TypeKind.POINTER and "PluginTensorDesc" in (t.get_pointee().spelling or "")
    except Exception:  # noqa: BLE001 - an unresolved type
        ok = False
    name = params[0].spelling or ""
    if not ok or not name:
        return None, ()
    body = kids[-1] if kids and kids[-1].kind == K.COMPOUND_STMT else None
    if body is None:
        return name, ()
    text = ex.text_of(body)
    found: dict[str, Optional[int]] = {}
    stack = [body]
    while stack:
        c = stack.pop()
        if c.kind == K.VAR_DECL:
            local = c.spelling or ""
            init = [x for x in children(c) if x.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
            idx = _input_type_index(ex, init[-1], params[0].hash) if len(init) == 1 else None
            found[local] = idx if local not in found else None  # declared twice: not one binding
        stack.extend(children(c))
    out = []
    for local, idx in found.items():
        if idx is None:
            continue
        decls = len(re.findall(rf"\b{re.escape(local)}\s*=(?!=)", text))
        if decls != 1 or re.search(rf"&\s*{re.escape(local)}\b|\b{re.escape(local)}\s*(?:[-+*/%&|^]|<<|>>)=|"
                                   rf"(?:\+\+|--)\s*{re.escape(local)}\b|\b{re.escape(local)}\s*(?:\+\+|--)", text):
            continue  # written again, or its address taken
        out.append((local, idx))
    return name, tuple(sorted(out))


def _input_type_index(ex: Any, c: Cursor, param: int) -> Optional[int]:
    """The input index ``i`` when ``c`` reads ``param[i].type`` / ``param[i].desc.type`` / ``param->type``."""
    K = ex.K
    c = look_through(K, c, casts=True, functional=True)
    if c.kind != K.MEMBER_REF_EXPR or c.spelling != "type":
        return None
    sub = children(c)
    if len(sub) != 1:
        return None
    base = look_through(K, sub[0])
    if base.kind == K.MEMBER_REF_EXPR and base.spelling == "desc":
        sub = children(base)
        if len(sub) != 1:
            return None
        base = look_through(K, sub[0])
    if base.kind == K.DECL_REF_EXPR:  # param->type
        ref = base.referenced
        return 0 if ref is not None and ref.hash == param and "->" in ex.text_of(c) else None
    if base.kind != K.ARRAY_SUBSCRIPT_EXPR:
        return None
    sub = children(base)
    if len(sub) != 2:
        return None
    arr = look_through(K, sub[0])
    if arr.kind != K.DECL_REF_EXPR or arr.referenced is None or arr.referenced.hash != param:
        return None
    return evaluate_int(sub[1])
