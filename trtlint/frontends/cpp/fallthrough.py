"""Dispatches on an object's own members, and the members a function writes (part of the C++ frontend; called from
:mod:`.flow` and :mod:`.body`).

* :func:`chain`: an if/else-if chain whose every condition reads only data members of the object (``mType``,
  ``this->mX``; not another object's) and constants (literals, enumerators, integer constant expressions), joined by
  comparisons, ``&&``, ``||`` and ``!``, and which ends in a plain ``else``: that ``else`` runs only when no condition
  holds. Each call in it gets ``Call.fallthrough`` (:class:`~trtlint.base.facts.FallThrough`: the chain's conditions in
  a canonical spelling, the line of the first, and whether the call is a statement of the ``else`` itself, with no
  ``if``, ``switch`` or loop between them; a ``do { } while (0)`` of a statement macro is no loop). A chain one of
  whose conditions is anything else gives no fact (its trailing else-ifs are read as a chain of their own);
* :class:`MemberWrites`: the data members of scalar type (not a class, not an array) a function writes, of any object,
  with the line: an assignment (``=``, ``+=``, ...), ``++`` / ``--``, its address taken, a non-const reference bound to
  it or a call passing it to one (an unresolved call counts), a constructor's member initialiser.

Only the modules of this package touch libclang cursors; what leaves is plain facts.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Optional

from trtlint.base.facts import FallThrough
from .base import Cursor, arguments, binop_code, children, evaluate_int, look_through

# clang_getCursorBinaryOperatorKind codes (CXBinaryOperatorKind) of the operators a condition may use
_BO = {11: "<", 12: ">", 13: "<=", 14: ">=", 15: "==", 16: "!=", 20: "&&", 21: "||"}
_TEXT_OPS = frozenset(_BO.values())
_MAX_DEPTH = 16


def chain(w: Any, if_stmt: Cursor, kids: list) -> None:
    """Read the if/else-if chain ``if_stmt`` heads (not when it is an else-if of a chain read already): its
    fall-through ``else``, when every condition is one on members and constants, goes to ``flow.fall_ranges``."""
    st = w.flow
    K = w.K
    start = w.ex.extent_info(if_stmt)[3]
    if start in st.else_ifs:
        return
    conds: list[str] = []
    line = w.ex.extent_info(if_stmt)[1]
    nested: list[int] = []
    cur, cur_kids = if_stmt, kids
    for _ in range(64):
        ci, ti, ei = w.if_parts(cur, cur_kids)
        if ci is None or ti is None or ci != 0:
            return  # (an `if (init; cond)` or a condition variable)
        text = condition(w, cur_kids[ci])
        if text is None:
            return
        conds.append(text)
        if ei is None:
            return  # no fall-through
        other = cur_kids[ei]
        if other.kind == K.IF_STMT:
            nested.append(w.ex.extent_info(other)[3])
            cur, cur_kids = other, children(other)
            continue
        _f, _l1, _c1, o1, _l2, _c2, o2 = w.ex.extent_info(other)
        st.fall_ranges.append((o1, o2, tuple(conds), line))
        st.else_ifs.update(nested)
        return


def condition(w: Any, c: Cursor) -> Optional[str]:
    """The canonical spelling of a condition on the object's own members and constants that reads at least one
    member; None for any other condition."""
    reads: list[str] = []
    text = _canon(w, c, reads, 0)
    return text if text is not None and reads else None


def _canon(w: Any, c: Cursor, reads: list, depth: int) -> Optional[str]:
    K = w.K
    if depth > _MAX_DEPTH:
        return None
    k = c.kind
    if k in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR):
        sub = [x for x in children(c) if x.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
        if len(sub) == 1:
            return _canon(w, sub[0], reads, depth + 1)
        return None
    if k == K.MEMBER_REF_EXPR:
        sub = children(c)
        if sub and not (len(sub) == 1 and _is_this(w, sub[0])):
            return None  # another object's member
        d = c.referenced
        if d is None or d.kind != K.FIELD_DECL:
            return None
        q = "this->" + w.ex.qualname(d)
        reads.append(q)
        return q
    if k == K.DECL_REF_EXPR:
        d = c.referenced
        if d is None:
            return None
        if d.kind == K.ENUM_CONSTANT_DECL:
            return w.ex.qualname(d)
        if d.kind == K.VAR_DECL:
            try:
                const = d.type.is_const_qualified()
            except Exception:  # noqa: BLE001 - an unresolved type
                const = False
            v = evaluate_int(c) if const else None
            return None if v is None else str(v)
        return None
    if k == K.CXX_BOOL_LITERAL_EXPR:
        t = w.ex.text_of(c).strip()
        return t if t in ("true", "false") else None
    if k in (K.INTEGER_LITERAL, K.CHARACTER_LITERAL):
        v = evaluate_int(c)
        return None if v is None else str(v)
    if k == K.BINARY_OPERATOR:
        sub = children(c)
        if len(sub) != 2:
            return None
        op = _op(w, c, sub)
        if op is None:
            return None
        a = _canon(w, sub[0], reads, depth + 1)
        b = _canon(w, sub[1], reads, depth + 1) if a is not None else None
        return None if b is None else f"({a} {op} {b})"
    if k == K.UNARY_OPERATOR:
        sub = children(c)
        if len(sub) != 1 or not w.ex.text_of(c).lstrip().startswith("!"):
            return None
        a = _canon(w, sub[0], reads, depth + 1)
        return None if a is None else f"!{a}"
    return None


def _is_this(w: Any, c: Cursor) -> bool:
    K = w.K
    for _ in range(4):
        if c.kind == K.CXX_THIS_EXPR:
            return True
        sub = children(c)
        if c.kind not in (K.UNEXPOSED_EXPR, K.PAREN_EXPR) or len(sub) != 1:
            return False
        c = sub[0]
    return False


def _op(w: Any, c: Cursor, kids: list) -> Optional[str]:
    code = binop_code(c)
    if code is not None:
        return _BO.get(code)
    a, b = w.ex.extent_info(kids[0]), w.ex.extent_info(kids[1])
    if a[0] is None or a[0] != b[0] or b[3] < a[6]:
        return None
    between = w.ex.file_bytes(a[0])[a[6]:b[3]].decode("utf-8", "replace").strip()
    return between if between in _TEXT_OPS else None


def branch(w: Any, c: Cursor, k: int, kids: list) -> None:
    """The branches of a statement (an if's then and else, a loop's body, a switch's body) in
    ``flow.branch_ranges``: a call in one of these inside a fall-through is no statement of the fall-through itself.
    A statement written by a macro's expansion is not one (the macro use is a statement of its own)."""
    K = w.K
    if not w.ex.text_of(c).lstrip().startswith(("if", "for", "while", "do", "switch")):
        return  # a statement a macro's expansion writes (`CHECK(false)`): the macro use is one statement
    if k == K.IF_STMT.value:
        _ci, ti, ei = w.if_parts(c, kids)
        parts = [kids[i] for i in (ti, ei) if i is not None]
    elif k == K.DO_STMT.value:
        if len(kids) == 2 and evaluate_int(kids[1]) == 0:
            return  # `do { ... } while (0)`: a statement macro's body runs once
        parts = kids[:1]
    else:
        parts = kids[-1:]
    for p in parts:
        _f, _l1, _c1, o1, _l2, _c2, o2 = w.ex.extent_info(p)
        w.flow.branch_ranges.append((o1, o2))


def at(st: Any, off: int) -> Optional[FallThrough]:
    """The fall-through (innermost) a call at offset ``off`` is in."""
    best = None
    for s, e, conds, line in st.fall_ranges:
        if s <= off < e and (best is None or e - s < best[1] - best[0]):
            best = (s, e, conds, line)
    if best is None:
        return None
    s, e, conds, line = best
    direct = not any(s <= s2 and e2 <= e and (s2, e2) != (s, e) and s2 <= off < e2 for s2, e2 in st.branch_ranges)
    return FallThrough(conds, line, direct)


# -- member writes ------------------------------------------------------------------------------------------------


@lru_cache(maxsize=4)
def write_ids(K: Any) -> frozenset:
    """Kind ids the body walk hands to :meth:`MemberWrites.visit`."""
    return frozenset(k.value for k in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR, K.UNARY_OPERATOR,
                                         K.VAR_DECL, K.CALL_EXPR))


_ASSIGN_CODES = frozenset(range(22, 33))  # =, *=, /=, %=, +=, -=, <<=, >>=, &=, |=, ^=


class MemberWrites:
    """The scalar data members one function body writes (filled by the body walk: :meth:`visit`)."""

    __slots__ = ("w", "out")

    def __init__(self, w: Any) -> None:
        self.w = w
        self.out: list[tuple[str, int]] = []
        K = w.K
        if w.fn.kind == K.CONSTRUCTOR:
            for ch in children(w.fn):
                if ch.kind == K.MEMBER_REF:
                    d = ch.referenced
                    if d is not None and d.kind == K.FIELD_DECL and _scalar(w, d):
                        self._add(d, ch)

    def _add(self, d: Cursor, where: Cursor) -> None:
        item = (self.w.ex.qualname(d), self.w.ex.extent_info(where)[1])
        if item not in self.out:
            self.out.append(item)

    def _field(self, e: Cursor) -> Optional[Cursor]:
        K = self.w.K
        e = look_through(K, e, limit=6)
        if e.kind != K.MEMBER_REF_EXPR:
            return None
        d = e.referenced
        return d if d is not None and d.kind == K.FIELD_DECL and _scalar(self.w, d) else None

    def visit(self, c: Cursor, kids: list) -> None:
        w = self.w
        K = w.K
        k = c.kind
        if k in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR) and len(kids) == 2:
            d = self._field(kids[0])
            if d is not None and (k == K.COMPOUND_ASSIGNMENT_OPERATOR or _assigns(w, c, kids)):
                self._add(d, c)
        elif k == K.UNARY_OPERATOR and len(kids) == 1:
            t = w.ex.text_of(c).strip()
            if t.startswith(("&", "++", "--")) or t.endswith(("++", "--")):
                d = self._field(kids[0])
                if d is not None:
                    self._add(d, c)
        elif k == K.VAR_DECL and kids:
            try:
                ref = c.type.kind == w.ex.ci.TypeKind.LVALUEREFERENCE and not c.type.get_pointee().is_const_qualified()
            except Exception:  # noqa: BLE001
                ref = False
            d = self._field(kids[-1]) if ref else None
            if d is not None:
                self._add(d, c)
        elif k == K.CALL_EXPR:
            self._by_reference(c)

    def _by_reference(self, c: Cursor) -> None:
        w = self.w
        try:
            args = arguments(c)
        except Exception:  # noqa: BLE001
            return
        params: Optional[list] = None
        ref = c.referenced
        for i, a in enumerate(args):
            d = self._field(a)
            if d is None:
                continue
            if params is None:
                params = []
                try:
                    if ref is not None:
                        params = [p.type for p in ref.get_arguments()]
                except Exception:  # noqa: BLE001
                    params = []
            if i < len(params):
                try:
                    t = params[i]
                    byref = t.kind in (w.ex.ci.TypeKind.LVALUEREFERENCE, w.ex.ci.TypeKind.RVALUEREFERENCE) \
                        and not t.get_pointee().is_const_qualified()
                except Exception:  # noqa: BLE001
                    byref = True
            else:
                # an unresolved call, a template whose parameters are not known, a variadic one: it may write it
                byref = ref is None or not params
            if byref:
                self._add(d, c)


def _assigns(w: Any, c: Cursor, kids: list) -> bool:
    code = binop_code(c)
    if code is not None:
        return code in _ASSIGN_CODES
    a, b = w.ex.extent_info(kids[0]), w.ex.extent_info(kids[1])
    if a[0] is None or a[0] != b[0] or b[3] < a[6]:
        return True  # not known: counted as a write
    between = w.ex.file_bytes(a[0])[a[6]:b[3]].decode("utf-8", "replace").strip()
    return between.endswith("=") and between not in ("==", "!=", "<=", ">=")


def _scalar(w: Any, d: Cursor) -> bool:
    """A member of scalar type: an enum, an integer, a bool, a floating point number, a pointer (not a class, not an
    array)."""
    try:
        t = d.type.get_canonical()
        TK = w.ex.ci.TypeKind
        return t.kind not in (TK.RECORD, TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.VARIABLEARRAY, TK.DEPENDENTSIZEDARRAY)
    except Exception:  # noqa: BLE001 - an unresolved type: counted
        return True
