"""Streams kept in a class's fields (a plugin's ``mStream``, a small context ``struct Ctx { cudaStream_t s; ... }``, a
wrapper with a ``stream()`` getter and a ``setStream(s)`` method): which field a stream argument reads, and what
each function writes into stream fields.

* :func:`arg_field`: the field (qualified name) a call's or launch's stream argument reads, directly
  (``mCtx.s``, ``mStream``) or through a getter whose body is ``return <field>;`` (``mCtx.stream()``);
* :class:`Writes`: per function, ``(field, what)`` for each write of a stream field: the assigned expression as
  written (``mCtx.s = stream``, a constructor's ``s(st)``, a brace initialisation ``Ctx{stream, h}``) or ``"&"``
  when the field is handed out to be written (``cudaStreamCreate(&s)``, a non-const reference to it).

A field no function writes other than with the default stream holds nothing but the default stream, whatever
object of its class a call reads it from (the rules decide; writes are per field, not per object).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Optional

from .base import Cursor, arguments, children, look_through

_STREAM_TYPES = ("cudaStream_t", "CUstream", "CUstream_st *", "struct CUstream_st *")
# a declaration's own initialiser that is no stream (`cudaStream_t s{nullptr};`, `= 0`, `{}`) or none at all
_DEFAULT_INIT = re.compile(r"[({]?\s*(?:nullptr|NULL|0|0L|cudaStreamLegacy|cudaStreamDefault|cudaStream_t\s*\(\s*\))?\s*[)}]?")


@lru_cache(maxsize=4)
def write_ids(K: Any) -> frozenset:
    """Kind ids the body walk hands to :meth:`Writes.visit`."""
    return frozenset(k.value for k in (K.BINARY_OPERATOR, K.UNARY_OPERATOR, K.VAR_DECL, K.RETURN_STMT,
                                         K.INIT_LIST_EXPR, K.CALL_EXPR))


ANY_FIELD = "*:"  # + a class's name: a write of every stream field of a class of that name (a brace initialisation)


def _is_stream(t: Any) -> bool:
    try:
        sp = re.sub(r"\bconst\b", "", t.spelling or "").strip()
        return sp in _STREAM_TYPES or re.sub(r"\bconst\b", "", t.get_canonical().spelling or "").strip() in _STREAM_TYPES
    except Exception:  # noqa: BLE001 - an unresolved type
        return False


def _field(w: Any, e: Cursor) -> Optional[Cursor]:
    """The stream-typed field declaration a member expression names (``mCtx.s``, ``mStream``), else None."""
    K = w.K
    e = look_through(K, e, casts=True, functional=True)
    if e.kind != K.MEMBER_REF_EXPR:
        return None
    d = e.referenced
    if d is None or d.kind != K.FIELD_DECL or not _is_stream(d.type):
        return None
    return d


def arg_field(w: Any, a: Optional[Cursor]) -> Optional[str]:
    """The stream field a stream argument reads (its qualified name), directly or through a getter defined as
    ``return <field>;``; None for anything else, and for a field whose declaration initialises it to something
    other than the default stream."""
    if a is None:
        return None
    K = w.K
    cur = look_through(K, a, casts=True, functional=True)
    d = _field(w, cur)
    if d is None and cur.kind == K.CALL_EXPR:
        ref = cur.referenced
        if ref is not None and ref.kind == K.CXX_METHOD and not arguments(cur):
            d = _getter_field(w, ref)
    if d is None:
        return None
    init = [ch for ch in children(d) if ch.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
    if init and not _DEFAULT_INIT.fullmatch(" ".join(w.ex.text_of(init[-1]).split())):
        return None  # `cudaStream_t s = makeStream();`: the declaration gives it a stream
    return w.ex.qualname(d)


def _getter_field(w: Any, m: Cursor) -> Optional[Cursor]:
    K = w.K
    try:
        if m.is_virtual_method():
            return None  # another class may return another stream
        d = m.get_definition()
    except Exception:  # noqa: BLE001 - a cursor libclang cannot answer for
        return None
    if d is None:
        return None
    body = [ch for ch in children(d) if ch.kind == K.COMPOUND_STMT]
    stmts = children(body[0]) if body else []
    if len(stmts) != 1 or stmts[0].kind != K.RETURN_STMT:
        return None
    val = children(stmts[0])
    return _field(w, val[0]) if len(val) == 1 else None


class Writes:
    """What one function body writes into stream fields (filled by the body walk: :meth:`visit`)."""

    __slots__ = ("w", "out")

    def __init__(self, w: Any) -> None:
        self.w = w
        self.out: list[tuple[str, str]] = []
        K = w.K
        if w.fn.kind == K.CONSTRUCTOR:
            # `Ctx(cudaStream_t st) : s(st) {}`: MEMBER_REF, then its initialiser
            kids = children(w.fn)
            for i, ch in enumerate(kids[:-1]):
                if ch.kind == K.MEMBER_REF:
                    d = ch.referenced
                    if d is not None and d.kind == K.FIELD_DECL and _is_stream(d.type):
                        self.out.append((w.ex.qualname(d), _text(w, kids[i + 1])))

    def _add(self, d: Cursor, what: str) -> None:
        self.out.append((self.w.ex.qualname(d), what))

    def visit(self, c: Cursor, kids: list) -> None:
        """A node of the body: an assignment, an address taken, a reference bound, a brace initialisation or a
        call passing a field by non-const reference."""
        w = self.w
        K = w.K
        k = c.kind
        if k == K.BINARY_OPERATOR and len(kids) == 2:
            d = _field(w, kids[0])
            if d is not None and _op_between(w, kids[0], kids[1]) == "=":
                self._add(d, _text(w, kids[1]))
        elif k == K.UNARY_OPERATOR and len(kids) == 1 and w.ex.text_of(c).lstrip().startswith("&"):
            d = _field(w, kids[0])
            if d is not None:
                self._add(d, "&")
        elif k == K.VAR_DECL and kids and self._constructed(c, kids):
            pass
        elif k == K.VAR_DECL and kids:
            try:
                ref = c.type.kind == w.ex.ci.TypeKind.LVALUEREFERENCE and not c.type.get_pointee().is_const_qualified()
            except Exception:  # noqa: BLE001
                ref = False
            d = _field(w, kids[-1]) if ref else None
            if d is not None:
                self._add(d, "&")
        elif k == K.RETURN_STMT and len(kids) == 1:
            try:
                rt = w.fn.result_type
                ref = rt.kind == w.ex.ci.TypeKind.LVALUEREFERENCE and not rt.get_pointee().is_const_qualified()
            except Exception:  # noqa: BLE001
                ref = False
            d = _field(w, kids[0]) if ref else None
            if d is not None:
                self._add(d, "&")  # `cudaStream_t& stream() { return s; }`: written through the reference
        elif k == K.INIT_LIST_EXPR:
            self._init_list(c, kids)
        elif k == K.CALL_EXPR:
            self._by_reference(c)

    def _constructed(self, c: Cursor, kids: list) -> bool:
        """`Param<T> p{x, s};` / `Param<T> p(x, s);` of a dependent type (libclang may show no initialiser list
        in a template): every stream field of a class of that name may be set by it."""
        w = self.w
        try:
            if c.type.kind != w.ex.ci.TypeKind.UNEXPOSED and "<" not in (c.type.spelling or ""):
                return False
            name = re.sub(r"<.*", "", c.type.spelling or "").split("::")[-1].strip()
        except Exception:  # noqa: BLE001
            return False
        text = w.ex.text_of(c)
        at = text.find(c.spelling or "\0")
        rest = text[at + len(c.spelling or ""):].strip() if at >= 0 else ""
        if not re.fullmatch(r"[A-Za-z_]\w*", name) or not re.match(r"[({]\s*[^)}\s]", rest):
            return False
        self.out.append((ANY_FIELD + name, "{...}"))
        return True

    def _init_list(self, c: Cursor, kids: list) -> None:
        w = self.w
        K = w.K
        try:
            decl = c.type.get_canonical().get_declaration()
        except Exception:  # noqa: BLE001
            decl = None
        if decl is None or decl.kind not in (K.STRUCT_DECL, K.CLASS_DECL):
            # a dependent type (`Param<T> p{..., stream}` in a template): every stream field of a class of that name
            # may be set by it
            try:
                name = re.sub(r"<.*", "", c.type.spelling or "").split("::")[-1].strip()
            except Exception:  # noqa: BLE001
                name = ""
            if kids and re.fullmatch(r"[A-Za-z_]\w*", name):
                self.out.append((ANY_FIELD + name, "{...}"))
            return
        fields = [f for f in children(decl) if f.kind == K.FIELD_DECL]
        for f, v in zip(fields, kids):
            if _is_stream(f.type):
                self._add(f, _text(w, v))

    def _by_reference(self, c: Cursor) -> None:
        w = self.w
        args = arguments(c)
        if not args:
            return
        params: Optional[list] = None
        ref = c.referenced
        for i, a in enumerate(args):
            d = _field(w, a)
            if d is None:
                continue
            if params is None:
                params = []
                try:
                    if ref is not None and ref.kind in (w.K.FUNCTION_DECL, w.K.CXX_METHOD, w.K.FUNCTION_TEMPLATE,
                                                        w.K.CONSTRUCTOR):
                        params = [p.type for p in ref.get_arguments()]
                except Exception:  # noqa: BLE001
                    params = []
            if i < len(params):
                try:
                    t = params[i]
                    byref = t.kind == w.ex.ci.TypeKind.LVALUEREFERENCE and not t.get_pointee().is_const_qualified()
                except Exception:  # noqa: BLE001
                    byref = True
            else:
                byref = ref is None  # an unresolved call: it may take the field by reference
            if byref:
                self._add(d, "&")


def _text(w: Any, e: Cursor) -> str:
    return " ".join(w.ex.text_of(e).split())[:80] or "?"


def _op_between(w: Any, a: Cursor, b: Cursor) -> Optional[str]:
    x, y = w.ex.extent_info(a), w.ex.extent_info(b)
    if x[0] is None or x[0] != y[0]:
        return None
    return w.ex.file_bytes(x[0])[x[6]:y[3]].decode("utf-8", "replace").strip()
