"""The data of the ``PluginField``s a body builds (part of the C++ frontend; called from :mod:`.body`, read by
:mod:`.lifecycle`): for the data argument of every ``PluginField(name, data, type, length)`` /
``emplace_back(...)``, the C++ type it points to and where that storage lives (member, static, literal, local,
parameter, temporary), and where the field itself is stored (``facts.FieldData``).

Only the modules of this package touch libclang cursors; what leaves is plain facts.
"""

from __future__ import annotations

import re
from typing import Optional, Protocol

from trtlint.base.facts import FieldData, PluginFieldDecl, Span
from .base import Cursor, Unit, children, func_kinds, look_through, preorder
from .serialvalues import type_info



class FieldWalker(Protocol):
    """What :func:`on_field` and :func:`.lifecycle.detail` read of the body walker (:class:`.body.BodyWalker`)."""

    ex: Unit
    field_data: list[FieldData]  # what on_field records, for detail

    def span(self, c: Cursor) -> Span: ...



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
                o = look_through(K, obj[0])
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
                    base = look_through(K, inner[0])
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
                    o = look_through(K, obj[0])
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


def member_of(ex: Unit, obj: Cursor) -> Optional[str]:
    """The class data member (qualified, ``ns::Creator::mPluginAttributes``) an object expression names: a
    non-static member (``mFields``, ``this->mFields``) or a static one (``Creator::mFields``); else None."""
    K = ex.K
    o = look_through(K, obj)
    d = o.referenced if o.kind in (K.MEMBER_REF_EXPR, K.DECL_REF_EXPR) else None
    if d is None:
        return None
    if d.kind == K.FIELD_DECL:
        return ex.qualname(d)
    p = d.semantic_parent if d.kind == K.VAR_DECL else None
    if p is not None and p.kind in (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE):
        return ex.qualname(d)
    return None


def into(ex: Unit, call: Cursor, parents: tuple) -> Optional[str]:
    """The class data member a ``PluginField`` is put in (``mFields.emplace_back(...)``, ``mFields.push_back(
    PluginField(...))``, ``mFields = {PluginField(...), ...}``), qualified; None for any other place (a local, a
    parameter, an array)."""
    K = ex.K
    for p in ([call] + list(reversed(parents)))[:6]:
        if p.kind == K.CALL_EXPR and p.spelling in ("emplace_back", "push_back", "emplace", "insert"):
            sub = children(p)
            obj = children(sub[0]) if sub and sub[0].kind == K.MEMBER_REF_EXPR else []
            return member_of(ex, obj[0]) if obj else None
        if p.kind == K.CALL_EXPR and p.spelling == "operator=":
            sub = children(p)
            return member_of(ex, sub[0]) if sub else None
        if p.kind in (K.VAR_DECL, K.BINARY_OPERATOR):
            return None
    return None


def reset_of(ex: Unit, call: Cursor, kids: list) -> Optional[str]:
    """The class data member holding PluginFields that a call empties or replaces (``mFields.clear()``,
    ``mFields = {...}``, ``mFields.assign(...)``), qualified; else None."""
    K = ex.K
    name = call.spelling
    if name in ("clear", "assign") and kids and kids[0].kind == K.MEMBER_REF_EXPR:
        obj = children(kids[0])
        m = obj[0] if obj else None
    elif name == "operator=" and kids:
        m = kids[0]
    else:
        return None
    if m is None:
        return None
    try:
        typed = "PluginField" in (m.type.spelling or "") + (m.type.get_canonical().spelling or "")
    except Exception:  # noqa: BLE001
        typed = False
    return member_of(ex, m) if typed else None


# the PluginFieldType a scalar of (kind, size) is read as (serialvalues.type_info); a bool, a char or a 2-byte float
# (half or bfloat16) could be read as more than one type, so they decide nothing
_SCALAR_FIELD_TYPE = {("int", 4): "kINT32", ("int", 8): "kINT64", ("int", 2): "kINT16",
                      ("float", 4): "kFLOAT32", ("float", 8): "kFLOAT64"}


def table_read_type(ex: Unit, var: Cursor) -> Optional[str]:
    """The PluginFieldType the keys of a name -> pointer table (``std::map<std::string, int*>``, ``unordered_map<
    const char*, float*>``: a class template whose second template argument is the mapped type) are read as: the
    table stores each field's value through a pointer to that one scalar (int -> kINT32, float -> kFLOAT32, ...).
    None when the mapped type is no pointer to such a scalar (``void*``, a variant, a pointer to a class) or is not
    known (the table's type did not resolve)."""
    TK = ex.ci.TypeKind
    try:
        t = var.type.get_canonical()
        if t.kind != TK.RECORD or t.get_num_template_arguments() < 2:
            return None
        mapped = t.get_template_argument_type(1).get_canonical()
        if mapped.kind != TK.POINTER:
            return None
        _name, size, kind = type_info(mapped.get_pointee(), ex.K, TK)
    except Exception:  # noqa: BLE001
        return None
    return _SCALAR_FIELD_TYPE.get((kind, size))


def branch_cast(walker, cond: Cursor, then: Cursor) -> Optional[tuple[tuple[int, int], str]]:
    """For ``if (<a field name compared>) { ... static_cast<const T*>(fc->fields[i].data) ... }``: ((line, col) of
    the name's string literal, T canonical without const), when the condition compares one string literal and the
    branch casts a field's ``data`` to a pointer to one type; else None."""
    ex, K = walker.ex, walker.K
    lits = [c for c in preorder(cond) if c.kind == K.STRING_LITERAL]
    if len(lits) != 1:
        return None
    casts = (K.CXX_STATIC_CAST_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR)
    TK = ex.ci.TypeKind
    found: set[str] = set()
    for c in preorder(then):
        if c.kind not in casts:
            continue
        if not any(s.kind == K.MEMBER_REF_EXPR and s.spelling == "data" for s in preorder(c)) or not walker.refs_fc(c):
            continue
        try:
            t = c.type.get_canonical()
            if t.kind != TK.POINTER:
                continue
            spelled = t.get_pointee().get_canonical().spelling
        except Exception:  # noqa: BLE001
            continue
        found.add(" ".join(spelled.replace("const ", "").replace("volatile ", "").split()))
    if len(found) != 1:
        return None
    sp = walker.span(lits[0])
    return (sp.line, sp.col), found.pop()
