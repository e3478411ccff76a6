"""Creators registered through a function template whose type parameter is the creator class (issue 31): a call
``registerAll<FooPluginCreator>(logger, ns)`` or ``registerOne(sFooCreator)`` to a project function template whose
body calls ``registerCreator`` on an object of its type parameter (``std::unique_ptr<T> c{new T{}};
registry->registerCreator(*c, ns);``), directly or by handing the parameter on to another such template
(``Registry::get().add<T>(logger, ns)``). The call with a concrete class is the registration (it names the class);
the templates' bodies are read where the call is walked, as the body walk reads other callees' bodies (the
function memo walks the caller again when a callee it names changes: fnmemo)."""

from __future__ import annotations

import re
from typing import Optional

from trtlint.base.facts import Registration
from .base import Cursor, Unit, children, preorder, split_top_level

_REGISTER = re.compile(r"\bregisterCreator\s*\(")
_MAX_DEPTH = 4


def _overloads(ex: Unit, c: Cursor, name: str) -> list:
    """The function templates named ``name`` a call in a template body can reach: its referenced declaration, or
    the overload set of a dependent call (``obj.add<T>(...)``)."""
    K = ex.K
    out = []
    ref = c.referenced
    if ref is not None and ref.kind == K.FUNCTION_TEMPLATE:
        out.append(ref)
    kids = children(c)
    lib = ex.ci.conf.lib  # (the Python bindings wrap no overload-set accessors)
    for ch in preorder(kids[0]) if kids else ():
        r = ch.referenced if ch.kind != K.OVERLOADED_DECL_REF else ch
        if r is None or r.kind != K.OVERLOADED_DECL_REF or (ch.spelling and ch.spelling != name):
            continue
        try:
            out += [lib.clang_getOverloadedDecl(r, i) for i in range(lib.clang_getNumOverloadedDecls(r))]
        except Exception:  # noqa: BLE001
            pass
        break
    return [d for d in out if d is not None and d.kind == K.FUNCTION_TEMPLATE]


def _args_open(text: str) -> int:
    """Where the argument list of a call's text opens (the parenthesis matching its last one)."""
    end = text.rstrip()
    if not end.endswith(")"):
        return len(text)
    depth = 0
    for i in range(len(end) - 1, -1, -1):
        ch = end[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def _type_params(tmpl: Cursor, K) -> list[str]:
    return [ch.spelling for ch in children(tmpl) if ch.kind == K.TEMPLATE_TYPE_PARAMETER]


def registers_param(ex: Unit, tmpl: Cursor, index: int, depth: int = 0):
    """The ``registerCreator`` call (a cursor) by which function template ``tmpl`` registers an object of its
    ``index``-th type parameter, in its own body or through another template it hands the parameter to; None (or
    False) when it does not."""
    K = ex.K
    cache: dict = ex.__dict__.setdefault("_templreg", {})
    d = tmpl.get_definition()
    if d is None or depth > _MAX_DEPTH:
        return None
    key = (d.get_usr() or str(d.hash), index)
    if key in cache:
        return cache[key] or None
    cache[key] = False  # (a recursive template)
    params = _type_params(d, K)
    if index >= len(params) or not params[index]:
        return None
    name = params[index]
    word = re.compile(r"(?<![\w:])" + re.escape(name) + r"(?!\w)")
    var_types: dict[str, str] = {}
    calls = []
    for c in preorder(d):
        if c.kind == K.VAR_DECL and c.spelling:
            var_types[c.spelling] = (c.type.spelling or "") + " " + ex.text_of(c)
        elif c.kind == K.CALL_EXPR:
            calls.append(c)
    found = None
    for c in calls:
        text = ex.text_of(c)
        m = _REGISTER.search(text)
        if m and m.start() == text.find("registerCreator") and not _REGISTER.search(text, m.end()):
            args = split_top_level(text[m.end(): text.rfind(")")])
            a0 = args[0] if args else ""
            if word.search(a0) or any(word.search(var_types.get(v, "")) for v in re.findall(r"[A-Za-z_]\w*", a0)):
                found = c
                break
            continue
        # a template the parameter is handed to: `f<T>(...)`, `obj.f<T>(...)`
        callee_text = text[:_args_open(text)]
        if "<" not in callee_text or not word.search(callee_text):
            continue
        targs = split_top_level(callee_text[callee_text.find("<") + 1: callee_text.rfind(">")])
        at = next((i for i, a in enumerate(targs) if a.strip() == name), None)
        if at is None:
            continue
        callee = re.findall(r"[A-Za-z_]\w*", callee_text[:callee_text.find("<")])
        inner = next((r for o in _overloads(ex, c, callee[-1]) if (r := registers_param(ex, o, at, depth + 1))),
                     None) if callee else None
        if inner is not None:
            found = inner
            break
    cache[key] = found or False
    return found


def template_registration(ex: Unit, c: Cursor, ref: Optional[Cursor], span) -> Optional[Registration]:
    """A call to a specialization of a project function template that registers its type parameter, with a
    concrete class as that parameter: the registration of that class (at the call)."""
    K = ex.K
    if ref is None or ref.kind not in (K.FUNCTION_DECL, K.CXX_METHOD):
        return None
    try:
        n = ref.get_num_template_arguments()
    except Exception:  # noqa: BLE001
        return None
    if n is None or n <= 0:
        return None
    try:
        tmpl = ex.ci.conf.lib.clang_getSpecializedCursorTemplate(ref)
    except Exception:  # noqa: BLE001
        return None
    if tmpl is None or tmpl.kind != K.FUNCTION_TEMPLATE:
        return None
    d = tmpl.get_definition()
    f = d.location.file if d is not None else None
    if f is None or ex.rel_of(f.name) is None:  # a project template (not the standard library's)
        return None
    ti = -1
    for i in range(n):
        try:
            if ref.get_template_argument_kind(i).name != "TYPE":
                continue
        except Exception:  # noqa: BLE001
            continue
        ti += 1
        decl = ref.get_template_argument_type(i).get_declaration()
        if decl is None or decl.kind not in (K.CLASS_DECL, K.STRUCT_DECL):
            continue
        inner = registers_param(ex, tmpl, ti)
        if inner:
            return Registration(creator=decl.spelling or "", qualname=ex.qualname(decl), span=span, how="call",
                                inner=ex.span_of(inner))
    return None
