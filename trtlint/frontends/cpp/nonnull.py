"""Where a pointer argument comes from, and the null tests of pointer parameters around a call (part of the C++
frontend; called from :mod:`.flow` and :mod:`.bodyguards`).

TensorRT hands ``enqueue`` a non-null workspace whenever the plugin asks for some; casts and pointer arithmetic on
it keep it non-null. So a helper's branch taken only when its workspace parameter is null (``if (!ws) { cudaMalloc
(...); }``, the ``else`` of ``if (ws)``) does not run on a call that passes it a pointer carved from that workspace.
This module records the two halves of that fact, the walk (``checks/hotpath/_walk.py``) joins them:

* :func:`source` (``Call.arg_null``): ``"p<j>"`` for the caller's pointer parameter ``j`` passed on as it came (under
  casts; never written in the body), ``"d<j>"`` for a pointer *derived* from it: pointer arithmetic
  (``(char*)ws + off``, ``&ws[off]``), the parameter advanced in place (``ws = (char*)ws + n;``, ``ws += n``), a local
  pointer whose initialiser and every write are such derivations, a call of a helper every return of which is a
  derivation of one of its parameters (``nextWorkspacePtr(ws, n)``); non-null whenever parameter ``j`` is (a null
  parameter passed on this way is not known to stay null: only ``"p<j>"`` carries a null);
* :func:`null_when` (``Call.null_args``): the pointer parameters a condition tests for null (``!p``, ``p ==
  nullptr``, ``NULL == p``, a conjunct of ``&&``), or for set (``p``, ``p != nullptr``, a disjunct of ``||``: null in
  the ``else`` and after ``if (p) return ...;``). A parameter written in the body other than by advancing it is no
  such parameter: what it holds at the test is not what the caller passed.

Anything not understood (a write through a reference, an unresolved helper, a member) gives nothing: the call is
then taken to run.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Optional

from .base import Cursor, arguments, children, childless_ids, libclang, look_through, preorder

# clang_getCursorBinaryOperatorKind codes (CXBinaryOperatorKind)
_BO = {6: "+", 7: "-", 15: "==", 16: "!=", 20: "&&", 21: "||", 22: "=", 26: "+=", 27: "-="}
_OPS = frozenset(_BO.values()) | {"*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}
_DEPTH = 8


def binop(ex: Any, c: Cursor, kids: list) -> Optional[str]:
    """The operator of a binary (or compound assignment) operator node: its code when libclang tells it, else the
    text between its operands."""
    if libclang.binary_operator is not None:
        try:
            op = _BO.get(libclang.binary_operator(c))
            if op is not None:
                return op
        except Exception:  # noqa: BLE001 - a cursor libclang cannot answer for
            pass
    if len(kids) != 2:
        return None
    a, b = ex.extent_info(kids[0]), ex.extent_info(kids[1])
    if a[0] is None or a[0] != b[0] or b[3] < a[6]:
        return None
    between = ex.file_bytes(a[0])[a[6]:b[3]].decode("utf-8", "replace").strip()
    return between if between in _OPS else None


def _pointer(ex: Any, c: Cursor) -> bool:
    try:
        return c.type.get_canonical().kind == ex.ci.TypeKind.POINTER
    except Exception:  # noqa: BLE001 - an unresolved type
        return False


@lru_cache(maxsize=4)
def _known_ids(K: Any) -> frozenset:
    """The cursor kind ids the bindings know (``CursorKind.from_id`` raises for any other)."""
    return frozenset(k.value for k in K.get_all_kinds())


def _body(K: Any, fn: Cursor) -> Optional[Cursor]:
    kids = children(fn)
    return kids[-1] if kids and kids[-1].kind == K.COMPOUND_STMT else None


class Derive:
    """The derivations of one function's pointer parameters (``params``: cursor hash -> index)."""

    def __init__(self, ex: Any, fn: Cursor, params: dict) -> None:
        self.ex, self.K, self.fn, self.params = ex, ex.K, fn, params
        self._text: Optional[str] = None
        self._writes: Optional[dict] = None
        self._stable: dict[int, bool] = {}
        self._named: dict[str, bool] = {}  # name -> whether the body's text may write it

    # -- writes --

    def _maybe_written(self, name: str) -> bool:
        """Whether the body's text may write ``name`` (a cheap test before the body's cursors are walked)."""
        if self._text is None:
            body = _body(self.K, self.fn)
            self._text = self.ex.text_of(body) if body is not None else ""
        if not name or name not in self._text:
            return False
        got = self._named.get(name)
        if got is None:
            n = re.escape(name)
            got = self._named[name] = bool(
                re.search(r"(?<![\w.>])" + n + r"\s*(?:[-+*/%|&^]?=(?!=)|<<=|>>=|\+\+|--)", self._text)
                or re.search(r"(?:\+\+|--|&)\s*" + n + r"\b", self._text)
                or re.search(r"[(,]\s*" + n + r"\s*[,)]", self._text))  # (an argument: maybe a reference parameter)
        return got

    def writes(self, d: Cursor) -> list[tuple[str, Optional[Cursor]]]:
        """The writes of variable ``d`` in the body: ``("=", value)``, ``("step", None)`` (``+=``, ``-=``, ``++``,
        ``--``, handed to a helper's ``T*&`` parameter that only advances it), ``("opaque", None)`` (another compound
        assignment, its address taken, handed to any other reference parameter)."""
        if not self._maybe_written(d.spelling or ""):
            return []
        if self._writes is None:
            self._writes = self._collect()
        return self._writes.get(d.hash, [])

    def _collect(self) -> dict:
        K = self.K
        out: dict[int, list] = {}
        body = _body(K, self.fn)
        if body is None:
            return out
        # every node of the body in preorder (as base.preorder), by kind id (a kind the bindings do not know raises
        # as ``c.kind`` would); the children of a node that has none are not asked for
        known, childless = _known_ids(K), childless_ids(K)
        BINOP, CASSIGN, CALL, UNARY = (K.BINARY_OPERATOR.value, K.COMPOUND_ASSIGNMENT_OPERATOR.value, K.CALL_EXPR.value,
                                       K.UNARY_OPERATOR.value)
        stack = [body]
        while stack:
            c = stack.pop()
            kid = c._kind_id
            if kid not in known:
                K.from_id(kid)
            if kid in childless:
                continue
            kids = children(c)
            stack.extend(reversed(kids))
            if kid == BINOP or kid == CASSIGN:
                k = K.from_id(kid)
                if len(kids) != 2:
                    continue
                lhs = look_through(K, kids[0])
                if lhs.kind != K.DECL_REF_EXPR or lhs.referenced is None:
                    continue
                op = binop(self.ex, c, kids)
                if op == "=":
                    out.setdefault(lhs.referenced.hash, []).append(("=", kids[1]))
                elif op in ("+=", "-="):
                    out.setdefault(lhs.referenced.hash, []).append(("step", None))
                elif k == K.COMPOUND_ASSIGNMENT_OPERATOR or op is None and k == K.BINARY_OPERATOR and \
                        re.match(r"\s*[-+*/%|&^<>]*=(?!=)", self._between(kids)):
                    out.setdefault(lhs.referenced.hash, []).append(("opaque", None))
            elif kid == CALL:
                self._by_reference(c, out)
            elif kid == UNARY:
                if len(kids) != 1:
                    continue
                sub = look_through(K, kids[0])
                if sub.kind != K.DECL_REF_EXPR or sub.referenced is None:
                    continue
                text = self.ex.text_of(c).strip()
                if text.startswith(("++", "--")) or text.endswith(("++", "--")):
                    out.setdefault(sub.referenced.hash, []).append(("step", None))
                elif text.startswith("&") and not text.startswith("&&"):
                    out.setdefault(sub.referenced.hash, []).append(("opaque", None))
        return out

    def _by_reference(self, c: Cursor, out: dict) -> None:
        """A variable handed to a reference parameter of the callee (``carve(ws, n)`` with ``char*& ws``): a step when
        the callee's definition only advances that parameter, else opaque; handed to a call whose callee is not
        known at all (undeclared): opaque."""
        K = self.K
        args = arguments(c)
        if not args:
            return
        decls: Any = False  # (looked up at the first pointer variable handed over)
        for i, a in enumerate(args):
            e = look_through(K, a)
            if e.kind != K.DECL_REF_EXPR or e.referenced is None or not _pointer(self.ex, e):
                continue
            if decls is False:
                decls = self._callees(c)
            kind = "opaque" if decls is None else None
            for d in decls or ():
                ps = [ch for ch in children(d) if ch.kind == K.PARM_DECL]
                try:
                    t = ps[i].type if i < len(ps) else None
                    if t is None or t.kind != self.ex.ci.TypeKind.LVALUEREFERENCE or t.get_pointee().is_const_qualified():
                        continue
                except Exception:  # noqa: BLE001 - an unresolved type
                    continue
                if not advances(self.ex, d, i):
                    kind = "opaque"
                    break
                kind = "step"
            if kind is not None:
                out.setdefault(e.referenced.hash, []).append((kind, None))

    def _callees(self, c: Cursor) -> Optional[list]:
        """The function declarations a call may name: the one it resolves to, or a dependent call's overload set; None
        when none is known."""
        K = self.K
        ref = c.referenced
        fns = (K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE, K.CONSTRUCTOR)
        if ref is not None and ref.kind in fns:
            return [ref]
        if ref is not None and ref.kind != K.NO_DECL_FOUND:
            return []  # (a lambda's or a functor's call operator, a function pointer: by value as written)
        for sub in preorder(children(c)[0]) if children(c) else ():
            r = sub.referenced if sub.kind in (K.DECL_REF_EXPR, K.OVERLOADED_DECL_REF, K.MEMBER_REF_EXPR) else None
            if sub.kind == K.OVERLOADED_DECL_REF:
                try:
                    lib = self.ex.ci.conf.lib  # (the Python bindings wrap no overload-set accessors)
                    return [lib.clang_getOverloadedDecl(sub, i) for i in range(lib.clang_getNumOverloadedDecls(sub))]
                except Exception:  # noqa: BLE001
                    return None
            if r is not None and r.kind in fns:
                return [r]
        return None

    def _between(self, kids: list) -> str:
        a, b = self.ex.extent_info(kids[0]), self.ex.extent_info(kids[1])
        if a[0] is None or a[0] != b[0] or b[3] < a[6]:
            return ""
        return self.ex.file_bytes(a[0])[a[6]:b[3]].decode("utf-8", "replace")

    # -- parameters --

    def param_of(self, e: Cursor) -> Optional[int]:
        """The index of the pointer parameter ``e`` names (under parentheses and casts), else None."""
        e = look_through(self.K, e, casts=True, functional=True)
        if e.kind != self.K.DECL_REF_EXPR:
            return None
        d = e.referenced
        if d is None or d.kind != self.K.PARM_DECL or not _pointer(self.ex, d):
            return None
        return self.params.get(d.hash)

    def untouched(self, d: Cursor) -> bool:
        """A parameter the body never writes."""
        return not self.writes(d)

    def stable(self, d: Cursor, j: int) -> bool:
        """Parameter ``d`` (index ``j``) is non-null wherever the caller passed it non-null: never written, or only
        advanced (``ws = (char*)ws + n;``, ``ws += n``)."""
        got = self._stable.get(d.hash)
        if got is None:
            self._stable[d.hash] = False  # (while it is judged: a write naming it through another variable)
            got = all(kind == "step" or (kind == "=" and self.derived(v, {d.hash: j}) == j)
                      for kind, v in self.writes(d))
            self._stable[d.hash] = got
        return got

    # -- derivations --

    def derived(self, e: Cursor, seen: Optional[dict] = None, depth: int = 0) -> Optional[int]:
        """The index of the pointer parameter ``e`` is derived from (non-null whenever it is), else None."""
        if depth > _DEPTH:
            return None
        K = self.K
        e = look_through(K, e, casts=True, functional=True)
        k = e.kind
        if k == K.PAREN_EXPR:
            sub = children(e)
            return self.derived(sub[0], seen, depth + 1) if len(sub) == 1 else None
        if not _pointer(self.ex, e):
            return None
        seen = {} if seen is None else seen
        if k == K.DECL_REF_EXPR:
            d = e.referenced
            if d is None:
                return None
            if d.hash in seen:
                return seen[d.hash]
            if d.kind == K.PARM_DECL:
                j = self.params.get(d.hash)
                return j if j is not None and self.stable(d, j) else None
            return self._local(d, seen, depth)
        kids = children(e)
        if k == K.BINARY_OPERATOR and len(kids) == 2:
            op = binop(self.ex, e, kids)
            if op == "+":
                ptr = kids[0] if _pointer(self.ex, kids[0]) else kids[1]
                return self.derived(ptr, seen, depth + 1)
            if op == "-" and _pointer(self.ex, kids[0]) and not _pointer(self.ex, kids[1]):
                return self.derived(kids[0], seen, depth + 1)
            return None
        if k == K.UNARY_OPERATOR and len(kids) == 1 and self.ex.text_of(e).lstrip().startswith("&"):
            sub = look_through(K, kids[0])
            if sub.kind == K.ARRAY_SUBSCRIPT_EXPR:  # &ws[off]
                base = children(sub)
                return self.derived(base[0], seen, depth + 1) if base else None
            return None
        if k == K.CONDITIONAL_OPERATOR and len(kids) == 3:
            a, b = self.derived(kids[1], seen, depth + 1), self.derived(kids[2], seen, depth + 1)
            return a if a is not None and a == b else None
        if k == K.CALL_EXPR:
            return self._through_helper(e, seen, depth)
        return None

    def _local(self, d: Cursor, seen: dict, depth: int) -> Optional[int]:
        """A local pointer whose initialiser and every write derive from one parameter."""
        K = self.K
        if d.kind != K.VAR_DECL:
            return None
        try:
            if d.storage_class in (self.ex.ci.StorageClass.STATIC, self.ex.ci.StorageClass.EXTERN):
                return None
            if d.type.kind in (self.ex.ci.TypeKind.LVALUEREFERENCE, self.ex.ci.TypeKind.RVALUEREFERENCE):
                return None
            p = d.semantic_parent
            if p is None or p.kind not in (K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR,
                                           K.FUNCTION_TEMPLATE, K.LAMBDA_EXPR, K.CONVERSION_FUNCTION):
                return None
        except Exception:  # noqa: BLE001
            return None
        init = [ch for ch in children(d) if ch.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
        if len(init) != 1:
            return None
        j = self.derived(init[-1], seen, depth + 1)
        if j is None:
            return None
        seen[d.hash] = j
        for kind, v in self.writes(d):
            if kind == "opaque" or (kind == "=" and self.derived(v, seen, depth + 1) != j):
                return None
        return j

    def _through_helper(self, e: Cursor, seen: dict, depth: int) -> Optional[int]:
        """``nextWorkspacePtr(ws, n)``: a call of a helper every return of which derives from its parameter ``k``,
        passed a derivation of ours."""
        K = self.K
        ref = e.referenced
        if ref is None or ref.kind not in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD):
            return None
        try:
            if ref.kind == K.CXX_METHOD and ref.is_virtual_method():
                return None
        except Exception:  # noqa: BLE001
            return None
        k = helper_param(self.ex, ref)
        if k is None:
            return None
        args = arguments(e)
        return self.derived(args[k], seen, depth + 1) if k < len(args) else None


def _definition(ref: Cursor) -> Optional[Cursor]:
    """The definition of function ``ref`` in the unit, or None (a declaration libclang cannot follow)."""
    try:
        return ref.get_definition()
    except Exception:  # noqa: BLE001 - a declaration libclang cannot follow
        return None


def helper_param(ex: Any, ref: Cursor) -> Optional[int]:
    """The parameter every return of function ``ref`` (its definition in the unit) derives from, else None."""
    K = ex.K
    cache = ex.derive_returns
    key = ref.get_usr() or ref.hash
    if key in cache:
        return cache[key]
    cache[key] = None  # (a helper calling itself)
    d = _definition(ref)
    body = _body(K, d) if d is not None else None
    if body is None:
        return None
    params: dict[int, int] = {}
    for ch in children(d):
        if ch.kind == K.PARM_DECL:
            params[ch.hash] = len(params)
    der = Derive(ex, d, params)
    got: Optional[int] = None
    stack = list(children(body))
    n = 0
    while stack:
        c = stack.pop()
        if c.kind in (K.LAMBDA_EXPR, K.CLASS_DECL, K.STRUCT_DECL):
            continue  # (their returns are their own)
        if c.kind == K.RETURN_STMT:
            val = children(c)
            j = der.derived(val[0]) if val else None
            if j is None or (got is not None and j != got):
                return None
            got, n = j, n + 1
            continue
        stack.extend(children(c))
    cache[key] = got if n else None
    return cache[key]


def advances(ex: Any, ref: Cursor, i: int) -> bool:
    """Whether the definition of function ``ref`` (in the unit) only advances its reference parameter ``i`` (``ws +=
    n;``, ``ws = ws + n;``): what it is handed stays non-null when it was."""
    K = ex.K
    cache = ex.derive_returns
    key = (ref.get_usr() or ref.hash, i)
    if key in cache:
        return cache[key]
    cache[key] = False  # (a helper calling itself)
    d = _definition(ref)
    if d is None or _body(K, d) is None:
        return False
    params = [ch for ch in children(d) if ch.kind == K.PARM_DECL]
    if i >= len(params):
        return False
    der = Derive(ex, d, {p.hash: j for j, p in enumerate(params)})
    cache[key] = der.stable(params[i], i)
    return cache[key]


def source(der: Derive, a: Cursor) -> str:
    """``Call.arg_null``'s value for a pointer argument that is not a null: ``"p<j>"``, ``"d<j>"`` or ``""``."""
    K = der.K
    cur = look_through(K, a, casts=True, functional=True)
    if cur.kind == K.DECL_REF_EXPR and cur.referenced is not None and cur.referenced.kind == K.PARM_DECL:
        d = cur.referenced
        j = der.params.get(d.hash)
        if j is None or not _pointer(der.ex, d):
            return ""
        if der.untouched(d):
            return f"p{j}"
        return f"d{j}" if der.stable(d, j) else ""
    j = der.derived(cur)
    return "" if j is None else f"d{j}"


# -- null tests ---------------------------------------------------------------------------------------------------


def _null_literal(K: Any, e: Cursor, ex: Any) -> bool:
    e = look_through(K, e, casts=True, functional=True)
    if e.kind in (K.CXX_NULL_PTR_LITERAL_EXPR, K.GNU_NULL_EXPR):
        return True
    return e.kind == K.INTEGER_LITERAL and re.fullmatch(r"0[uUlL]*", ex.text_of(e).strip() or "x") is not None


def null_when(der: Derive, cond: Cursor, outcome: bool, depth: int = 0) -> frozenset:
    """The indexes of the stable pointer parameters that are null whenever ``cond`` evaluates to ``outcome``."""
    K = der.K
    if depth > _DEPTH:
        return frozenset()
    e = look_through(K, cond)
    while e.kind == K.PAREN_EXPR and len(children(e)) == 1:
        e = look_through(K, children(e)[0])
    kids = children(e)
    k = e.kind
    if k == K.UNARY_OPERATOR and len(kids) == 1 and der.ex.text_of(e).lstrip().startswith("!"):
        return null_when(der, kids[0], not outcome, depth + 1)
    if k == K.BINARY_OPERATOR and len(kids) == 2:
        op = binop(der.ex, e, kids)
        if op in ("&&", "||"):
            a, b = (null_when(der, x, outcome, depth + 1) for x in kids)
            # `a && b` true: both hold; false: one of them fails (only what both failures imply). `||` the other way
            return a | b if (op == "&&") == outcome else a & b
        if op in ("==", "!=") and (op == "==") == outcome:
            for x, y in ((kids[0], kids[1]), (kids[1], kids[0])):
                if _null_literal(K, y, der.ex):
                    return _stable_param(der, x)
        return frozenset()
    if not outcome:
        return _stable_param(der, e)  # `if (p)` false: p is null
    return frozenset()


def null_only(der: Derive, cond: Cursor, depth: int = 0) -> frozenset:
    """The stable pointer parameters one of which is null whenever ``cond`` holds, when ``cond`` is nothing but null
    tests of them (``!p``, ``p == nullptr``, ``NULL == p``, ``!p || q == nullptr``); empty for anything else (a
    test of another value, a member, an element ``p[i] == nullptr``, a value read through the pointer)."""
    K = der.K
    if depth > _DEPTH:
        return frozenset()
    e = look_through(K, cond)
    while e.kind == K.PAREN_EXPR and len(children(e)) == 1:
        e = look_through(K, children(e)[0])
    kids = children(e)
    if e.kind == K.BINARY_OPERATOR and len(kids) == 2 and binop(der.ex, e, kids) == "||":
        a, b = (null_only(der, x, depth + 1) for x in kids)
        return a | b if a and b else frozenset()
    if e.kind == K.UNARY_OPERATOR and len(kids) == 1 and der.ex.text_of(e).lstrip().startswith("!"):
        return _stable_param(der, kids[0])
    if e.kind == K.BINARY_OPERATOR and len(kids) == 2 and binop(der.ex, e, kids) == "==":
        for x, y in ((kids[0], kids[1]), (kids[1], kids[0])):
            if _null_literal(K, y, der.ex):
                return _stable_param(der, x)
    return frozenset()


def _stable_param(der: Derive, e: Cursor) -> frozenset:
    K = der.K
    cur = look_through(K, e, casts=True, functional=True)
    if cur.kind != K.DECL_REF_EXPR or cur.referenced is None or cur.referenced.kind != K.PARM_DECL:
        return frozenset()
    d = cur.referenced
    j = der.params.get(d.hash)
    if j is None or not _pointer(der.ex, d) or not der.stable(d, j):
        return frozenset()
    return frozenset({j})


# the locals a call's pointer argument names (frontends.cpp.flow: Call.arg_null)
_NULL_INIT = re.compile(r"(?:=\s*(?:nullptr|NULL|0|__null)|\{\s*(?:nullptr|NULL|0)?\s*\})\s*\Z")


def out_null(w: Any, u: Cursor) -> bool:
    """``&v`` handed to a call as an out-parameter, ``v`` a local pointer (a library handle: ``cublasLtMatrixLayout_t``)
    initialised to null and never assigned again in the function: what the call writes there is its only other
    value (``Call.arg_null`` ``"&null"``: a create whose status is dropped leaves the handle null when it fails)."""
    K = w.K
    if not w.ex.text_of(u).lstrip().startswith("&"):
        return False
    sub = children(u)
    if len(sub) != 1:
        return False
    v = look_through(K, sub[0])
    d = v.referenced if v.kind == K.DECL_REF_EXPR else None
    if d is None or d.kind != K.VAR_DECL:
        return False
    try:
        if d.type.get_canonical().kind != w.ex.ci.TypeKind.POINTER:
            return False
    except Exception:  # noqa: BLE001 - a cursor libclang cannot answer for
        return False
    once = _assigned_once(w, d)
    return once is not None


def null_local(w: Any, d: Cursor) -> bool:
    """A local pointer initialised to null and never assigned or taken the address of again in the function."""
    once = _assigned_once(w, d)
    return once is not None and not re.search(r"&\s*" + once + r"\b", w._written)


def _assigned_once(w: Any, d: Cursor) -> Optional[str]:
    """The name of ``d`` (escaped for a pattern) when it is a local initialised to null whose declaration is its
    only assignment in the walked function (an out-parameter ``&d`` may still write it), else None."""
    if not is_local(w, d) or not _NULL_INIT.search(w.ex.text_of(d)):
        return None
    if w._written is None:
        w._written = w.ex.text_of(w.fn)
    name = re.escape(d.spelling or "")
    writes = re.findall(r"(?<![\w.>])" + name + r"\s*(?:[-+*/|&]?=(?!=)|\+\+|--)", w._written)
    return name if name and len(writes) <= 1 else None


def is_local(w: Any, d: Cursor) -> bool:
    """A variable with automatic storage (a non-static local or a by-value parameter)."""
    K = w.K
    if d is None or d.kind not in (K.VAR_DECL, K.PARM_DECL):
        return False
    try:
        tk = d.type.kind
        if tk in (w.ex.ci.TypeKind.LVALUEREFERENCE, w.ex.ci.TypeKind.RVALUEREFERENCE):
            return False
        if d.kind == K.VAR_DECL:
            if d.storage_class in (w.ex.ci.StorageClass.STATIC, w.ex.ci.StorageClass.EXTERN):
                return False
            p = d.semantic_parent
            return p is not None and p.kind in (K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR,
                                                 K.FUNCTION_TEMPLATE, K.LAMBDA_EXPR, K.CONVERSION_FUNCTION)
    except Exception:  # noqa: BLE001
        return False
    return True
