"""How a V2 plugin's ``serialize()`` and deserializing constructor move values, beyond the helpers named in
:mod:`.lifecycle` (``write``/``read``, ``serialize_value``/``deserialize_value``, ...): a project's own helper
read from its body, and a typed store or load through a cast of the buffer.

* :func:`helper_role`: a function (or function template) called with the buffer whose body stores one of its
  parameters through another (``*reinterpret_cast<T*>(buffer) = val``, ``memcpy(buffer, &val, n)``, a call of
  a known writer with both) and advances that one (``buffer += sizeof(T)``, ``*buffer = ... + n``) is a
  *writer*; one that loads through its buffer parameter (``*reinterpret_cast<T const*>(buffer)``,
  ``memcpy(&val, buffer, n)``) into its result or an output parameter and advances it is a *reader*
  (tkDNN-style ``writeBUF(buf, c)`` / ``c = readBUF<int>(buf)``). The body is the template's when the callee
  is a template specialization. Anything else is not a role (the caller treats the call as opaque).
* :func:`buffer_names`: the buffer parameter of the function and the locals initialised from it
  (``char* d = static_cast<char*>(buffer), *a = d``).
* :func:`typed_access`: ``*reinterpret_cast<T*>(d) = x`` / ``*p++ = x`` (a write of ``T``) and
  ``x = *reinterpret_cast<T const*>(d)`` (a read of ``T``), where ``d``/``p`` is one of those names.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from trtlint.base.facts import SerialOp, Span
from .. import split_top_level
from .base import Cursor, Unit, children, look_through, preorder

# (op, index of the buffer argument, index of the value argument; -1: the value is the call's result)
Role = tuple[str, int, int]

_KNOWN_WRITERS = {"write": (0, 1), "serialize_value": (0, 1), "writeToBuffer": (0, 1)}


# `*` applied to one operand: a cast (`reinterpret_cast<T*>(d)`, `(T*)d`, `(T*)(d + n)`), a name, `p++`
_DEREF = re.compile(r"\*\s*(?:(?:reinterpret|static|const)_cast\s*<[^;]*>\s*\([^;]*\)|\([^;]*\)\s*[\w.>()+-]*|"
                    r"[A-Za-z_][\w.]*(?:\s*\+\+)?)$", re.S)


# element 0 of a cast of the buffer, the same access: `reinterpret_cast<int const*>(d)[0]`, `((int*)d)[0]`
ELEM0 = re.compile(r"(?:(?:reinterpret|static)_cast\s*<[^;]*\*\s*>\s*\([^;\[\]]*\)|\(\s*\([^;()]*\*\s*\)[^;\[\]]*\))"
                   r"\s*\[\s*0\s*\]$", re.S)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*", text))


def _definition(ex: Unit, ref: Cursor) -> Optional[Cursor]:
    """The body-carrying declaration of a callee: the template a specialization comes from, else its definition."""
    K = ex.K
    try:
        t = ex.ci.conf.lib.clang_getSpecializedCursorTemplate(ref)
    except Exception:  # noqa: BLE001
        t = None
    for c in (t, ref.get_definition() if ref is not None else None):
        if c is not None and c.kind in (K.FUNCTION_TEMPLATE, K.FUNCTION_DECL, K.CXX_METHOD) and any(
                ch.kind == K.COMPOUND_STMT for ch in children(c)):
            return c
    return None


def _advances(body: str, name: str) -> bool:
    """``name += n``, ``name = ...``, ``++name``, ``name++``, ``*name += n``, ``*name = ...`` in a body's text."""
    n = re.escape(name)
    return bool(re.search(rf"(?:^|[;{{}}\s])\*?\s*{n}\s*(?:\+=|\+\+|=(?!=))", body) or
                re.search(rf"\+\+\s*\*?\s*{n}\b", body))


def _deref_cast_of(ex: Unit, e: Cursor, names: set[str]) -> bool:
    """``e`` is ``*cast<T*>(x)`` (or ``*x`` of a typed pointer x, or ``cast<T*>(x)[0]``) with x naming one of
    ``names``."""
    K = ex.K
    e = look_through(K, e)
    t = ex.text_of(e).strip()
    if e.kind == K.ARRAY_SUBSCRIPT_EXPR and ELEM0.match(t):
        return bool(_words(t[: t.rindex("[")]) & names)
    # (in a template, `*cast<T*>(x)` of a dependent type is a call of an unresolved operator*)
    if e.kind not in (K.UNARY_OPERATOR, K.CALL_EXPR) or not _DEREF.match(t):
        return False
    return bool(_words(t[1:]) & names)


class _Helpers:
    """Roles of the helpers one unit's serialization calls, each body read once."""

    def __init__(self, ex: Unit) -> None:
        self.ex = ex
        self.memo: dict[str, Optional[Role]] = {}

    def role(self, call: Cursor, depth: int = 0) -> Optional[Role]:
        ex, K = self.ex, self.ex.K
        name = call.spelling or ""
        if name in _KNOWN_WRITERS:
            b, v = _KNOWN_WRITERS[name]
            return ("write", b, v)
        ref = call.referenced
        if ref is None or ref.kind not in (K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE) or depth > 2:
            return None
        d = _definition(ex, ref)
        if d is None or ex.rel_of(ex.extent_info(d)[0]) is None:
            return None  # (no body, or one outside the project: a library's)
        key = d.get_usr() or f"{ex.extent_info(d)[0]}:{ex.extent_info(d)[3]}"
        if key not in self.memo:
            self.memo[key] = None  # (a recursive helper is not a role)
            self.memo[key] = self._classify(d, depth)
        return self.memo[key]

    def _classify(self, fn: Cursor, depth: int) -> Optional[Role]:
        ex, K = self.ex, self.ex.K
        params = [ch.spelling for ch in children(fn) if ch.kind == K.PARM_DECL]
        body = next((ch for ch in children(fn) if ch.kind == K.COMPOUND_STMT), None)
        if body is None or not params or len(params) > 4 or not all(params):
            return None
        text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", ex.text_of(body), flags=re.S)
        if not children(body):
            # a body this unit's parse left to another unit (a shared header's, blanked): its text is read instead
            return _classify_text(params, text)
        writes: set[tuple[int, int]] = set()
        reads: set[tuple[int, int]] = set()  # (buffer param, value param; -1: a local returned)
        loaded: dict[str, int] = {}  # local variable -> the buffer param it was loaded from
        idx = {p: i for i, p in enumerate(params)}
        for c in preorder(body):
            k = c.kind
            if k == K.BINARY_OPERATOR:
                kids = children(c)
                if len(kids) != 2 or not re.match(r"\s*=(?!=)", ex.text_of(c)[len(ex.text_of(kids[0])):]):
                    continue
                lhs_w, rhs = _words(ex.text_of(kids[0])), look_through(K, kids[1])
                rhs_t = ex.text_of(rhs).strip()
                for b in params:
                    if _deref_cast_of(ex, kids[0], {b}) and rhs_t in idx and rhs_t != b:
                        writes.add((idx[b], idx[rhs_t]))
                    if _deref_cast_of(ex, kids[1], {b}):
                        tgt = ex.text_of(kids[0]).strip().lstrip("*").strip()
                        if tgt in idx and tgt != b:
                            reads.add((idx[b], idx[tgt]))
                        elif len(lhs_w) == 1:
                            loaded[next(iter(lhs_w))] = idx[b]
            elif k == K.VAR_DECL:
                sub = [s for s in children(c) if s.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
                for b in params:
                    if sub and _deref_cast_of(ex, sub[-1], {b}):
                        loaded[c.spelling] = idx[b]
            elif k == K.CALL_EXPR:
                args = list(c.get_arguments())
                texts = [ex.text_of(a).strip() for a in args]
                if (c.spelling or "") in ("memcpy", "memmove") and len(args) >= 2:
                    dst, src = _words(texts[0]), _words(texts[1])
                    for b in params:
                        for v in params:
                            if v == b:
                                continue
                            if b in dst and texts[1].lstrip("&").strip() == v:
                                writes.add((idx[b], idx[v]))
                            if b in src and texts[0].lstrip("&").strip() == v:
                                reads.add((idx[b], idx[v]))
                    continue
                if not any(_words(t) & set(params) for t in texts):
                    continue
                r = self.role(c, depth + 1)
                if r is not None and r[0] == "write" and max(r[1], r[2]) < len(texts):
                    bw, vw = _words(texts[r[1]]), texts[r[2]]
                    for b in params:
                        if b in bw and vw in idx and vw != b:
                            writes.add((idx[b], idx[vw]))
            elif k == K.RETURN_STMT:
                sub = children(c)
                t = ex.text_of(sub[0]).strip() if sub else ""
                if t in loaded:
                    reads.add((loaded[t], -1))
                elif sub:
                    for b in params:
                        if _deref_cast_of(ex, sub[0], {b}):
                            reads.add((idx[b], -1))
        writes = {(b, v) for b, v in writes if _advances(text, params[b])}
        reads = {(b, v) for b, v in reads if _advances(text, params[b])}
        if len(writes) == 1 and not reads:
            b, v = writes.pop()
            return ("write", b, v)
        if len(reads) == 1 and not writes:
            b, v = reads.pop()
            return ("read", b, v)
        return None


_CASTED = r"\*\s*(?:(?:reinterpret|static|const)_cast\s*<[^;<>]*(?:<[^;<>]*>[^;<>]*)?>\s*\(\s*{b}\s*\)|\(\s*[\w:\s<>]+\*\s*\)\s*{b})"


def _classify_text(params: list[str], text: str) -> Optional[Role]:
    """:meth:`_Helpers._classify` from a body's text: ``*cast<T*>(b) = v;`` / ``memcpy(b, &v, n)`` (a write of
    parameter v), ``x = *cast<T const*>(b)`` or ``memcpy(&x, b, n)`` with x returned or a parameter (a read), each
    with ``b`` advanced."""
    found: set[Role] = set()
    for bi, b in enumerate(params):
        if not _advances(text, b):
            continue
        cast = _CASTED.format(b=re.escape(b))
        for vi, v in enumerate(params):
            if v == b:
                continue
            ve = re.escape(v)
            if re.search(rf"{cast}\s*=\s*{ve}\s*;", text) or re.search(rf"\bmemcpy\s*\(\s*{re.escape(b)}\s*,\s*&?\s*{ve}\s*,", text):
                found.add(("write", bi, vi))
            if re.search(rf"(?<![\w.])\*?\s*{ve}\s*=\s*{cast}", text) or re.search(rf"\bmemcpy\s*\(\s*&?\s*{ve}\s*,\s*{re.escape(b)}\s*,", text):
                found.add(("read", bi, vi))
        for m in re.finditer(rf"(?<![\w.])([A-Za-z_]\w*)\s*=\s*{cast}|\bmemcpy\s*\(\s*&\s*([A-Za-z_]\w*)\s*,\s*{re.escape(b)}\s*,", text):
            x = m.group(1) or m.group(2)
            if x not in params and re.search(rf"\breturn\s+{re.escape(x)}\s*;", text):
                found.add(("read", bi, -1))
        if re.search(rf"\breturn\s+{cast}", text):
            found.add(("read", bi, -1))
    return found.pop() if len(found) == 1 else None


def helpers(ex: Unit) -> _Helpers:
    """The unit's helper roles (one memo per unit)."""
    h = getattr(ex, "_serial_helpers", None)
    if h is None:
        h = _Helpers(ex)
        try:
            ex._serial_helpers = h  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001
            pass
    return h


def buffer_names(ex: Unit, fn: Cursor, blob_type: Any, param: Optional[int] = None) -> set[str]:
    """The function's buffer parameter (the first whose type ``blob_type`` matches, spaces removed; or the one at
    index ``param``) and the locals initialised from it, directly or through another such local."""
    K = ex.K
    names: set[str] = set()
    params = [p for p in children(fn) if p.kind == K.PARM_DECL]
    if param is not None:
        if param < len(params) and params[param].spelling:
            names.add(params[param].spelling)
    else:
        for p in params:
            if p.spelling and blob_type.fullmatch((p.type.spelling or "").replace(" ", "")):
                names.add(p.spelling)
                break
    if not names:
        return names
    decls = [c for c in preorder(fn) if c.kind == K.VAR_DECL]
    for _ in range(3):
        for v in decls:
            sub = [s for s in children(v) if s.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
            if v.spelling and sub and _words(ex.text_of(sub[-1])) & names:
                try:
                    ptr = v.type.get_canonical().kind == ex.ci.TypeKind.POINTER
                except Exception:  # noqa: BLE001
                    ptr = False
                if ptr:
                    names.add(v.spelling)
    return names


def typed_access(ex: Unit, c: Cursor, kids: list, names: set[str], writing: bool):
    """(cursor whose type is the value's, the value's text) of ``*cast<T*>(d) = x`` / ``*p++ = x`` when
    ``writing``, of ``x = *cast<T const*>(d)`` otherwise, ``d``/``p`` one of ``names``; None otherwise."""
    if len(kids) != 2 or not names:
        return None
    side, other = (kids[0], kids[1]) if writing else (kids[1], kids[0])
    if not _deref_cast_of(ex, side, names):
        return None
    if _deref_cast_of(ex, other, names):
        return None  # buffer to buffer
    return side, ex.text_of(other)


def typed_load_init(ex: Unit, v: Cursor, names: set[str]):
    """``T x = *cast<T const*>(d);``: (the load's cursor, the variable's name), else None."""
    K = ex.K
    sub = [s for s in children(v) if s.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
    if sub and names and _deref_cast_of(ex, sub[-1], names):
        return look_through(K, sub[-1]), v.spelling
    return None


_GAP_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:[^\"\\\n]|\\.)*\"", re.S)
_GAP_DIRECTIVE = re.compile(r"^[ \t]*#[^\n]*", re.M)
_KNOWN_CALL = re.compile(r"\s*(?:[A-Za-z_]\w*\s*::\s*)*(write|read|serialize_value|deserialize_value|writeToBuffer|"
                         r"readFromBuffer)\s*(?:<[^;]*>)?\s*\((.*)\)\s*$", re.S)


def dropped(ex: Unit, fn: Cursor, names: set[str]) -> list[tuple[int, str, str, bool]]:
    """Statements of the function's top-level block that libclang dropped (a call naming a member whose type did
    not resolve, under a missing header, is an invalid expression left out of the block) and that name the buffer:
    (file offset, "known" for a call of a known writer/reader or "other", the value argument's text or the
    statement, whether the gap holds a preprocessor line). Their text is what lies between the statements kept."""
    K = ex.K
    body = next((ch for ch in children(fn) if ch.kind == K.COMPOUND_STMT), None)
    if body is None or not names:
        return []
    f, _l1, _c1, o1, _l2, _c2, o2 = ex.extent_info(body)
    if f is None or o2 - o1 < 4:
        return []
    cuts = [o1 + 1]
    for ch in children(body):
        kf, _a, _b, k1, _d, _e, k2 = ex.extent_info(ch)
        if kf != f or k1 < cuts[-1] - 1 or k2 > o2:
            return []  # a statement from a macro or another file: the gaps cannot be told
        cuts += [k1, k2]
    cuts.append(o2 - 1)
    b = ex.file_bytes(f)
    out = []
    for g1, g2 in zip(cuts[::2], cuts[1::2]):
        if g2 - g1 < 3:
            continue
        gap = _GAP_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), b[g1:g2].decode("latin-1"))
        if gap.isspace() or "(" not in gap and "=" not in gap:
            continue
        directive = bool(_GAP_DIRECTIVE.search(gap))
        gap = _GAP_DIRECTIVE.sub(lambda m: " " * len(m.group(0)), gap)
        pos = 0
        for stmt in gap.split(";")[:-1]:
            start, pos = pos, pos + len(stmt) + 1
            if not _words(stmt) & names or stmt.strip().startswith("}"):
                continue
            lead = len(stmt) - len(stmt.lstrip())
            if _is_check(stmt, names):
                continue
            m = _KNOWN_CALL.match(stmt)
            args = _split_args(m.group(2)) if m else []
            if m and len(args) >= 2:
                out.append((g1 + start + lead, "known", args[-1].strip().lstrip("&").strip(), directive))
            else:
                out.append((g1 + start + lead, "other", " ".join(stmt.split())[:80], directive))
    return out


_CHECK_CALL = re.compile(r"\s*[A-Za-z_]\w*(?:\s*::\s*\w+)*\s*\((.*)\)\s*$", re.S)
_COMPARISON = re.compile(r"==|!=|<=|>=")
_ASSIGNMENT = re.compile(r"(?<![=!<>+\-*/%&|^])=(?!=)|\+=|-=|\+\+|--")
_INNER_CALL = re.compile(r"[A-Za-z_]\w*\s*\(([^()]*)\)")


def _is_check(stmt: str, names: set[str]) -> bool:
    """``stmt`` is a check of the buffer pointer, not a store or load through it: a call (a check macro whose
    header is missing: ``PLUGIN_VALIDATE(buffer != nullptr)``, ``ASSERT(d == a + length)``) each of whose
    arguments naming the buffer compares it (``==``, ``!=``, ``<=``, ``>=``), with no assignment and no call handed
    the buffer."""
    m = _CHECK_CALL.match(stmt)
    if not m:
        return False
    named = [a for a in _split_args(m.group(1)) if _words(a) & names]
    return bool(named) and all(
        _COMPARISON.search(a) and not _ASSIGNMENT.search(_COMPARISON.sub(" ", a))
        and not any(_words(c) & names for c in _INNER_CALL.findall(a)) for a in named)


def _split_args(text: str) -> list[str]:
    return split_top_level(text, "([{<", ")]}>")


def recovered(ex: Unit, fn: Cursor, names: set[str], writing: bool) -> list[tuple[int, SerialOp]]:
    """The statements :func:`dropped` finds, as serial values at their file offsets: a known writer's or reader's
    call is a value of a type not known; anything else, or one beside a preprocessor line (the text may be a branch
    not taken), is an item the comparison cannot read."""
    f = ex.extent_info(fn)[0]
    rel = ex.rel_of(f) if f else None
    if rel is None:
        return []
    data = ex.file_bytes(f)
    out = []
    for off, how, text, directive in dropped(ex, fn, names):
        line = data.count(b"\n", 0, off) + 1
        col = off - (data.rfind(b"\n", 0, off) + 1) + 1
        sp = Span(rel, line, col)
        if how == "known" and not directive:
            out.append((off, SerialOp(op="write" if writing else "read", span=sp, expr=text[:100])))
        else:
            out.append((off, SerialOp(op="opaque", span=sp, expr=text[:100])))
    return out


def writes_nothing(ex: Unit, fn: Cursor, out_type: Any) -> bool:
    """A ``serialize(void* buffer)`` definition whose body names its buffer (comments aside) only to point locals
    into it (``char* d = static_cast<char*>(buffer), *a = d;``, ``char const* const a = d;``) and in checks
    (``assert``, ``PLUGIN_ASSERT``, ``CHECK``), and holds no preprocessor line (a branch not taken could): it
    writes nothing. ``out_type``: the buffer parameter's type (as :func:`buffer_names` takes it)."""
    K = ex.K
    params = [ch for ch in children(fn) if ch.kind == K.PARM_DECL]
    body = next((ch for ch in children(fn) if ch.kind == K.COMPOUND_STMT), None)
    if body is None or len(params) != 1:
        return False
    f, _l1, _c1, o1, _l2, _c2, o2 = ex.extent_info(body)
    if f is None or o2 <= o1:
        return False
    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", ex.file_bytes(f)[o1:o2].decode("latin-1"), flags=re.S)
    if re.search(r"^\s*#", text, re.M):
        return False
    names = buffer_names(ex, fn, out_type)
    if not params[0].spelling:
        return True
    if params[0].spelling not in names:
        return False
    for stmt in re.split(r"[;{}]", text):
        words = _words(stmt)
        # (a check of where the pointer ended: `assert(d == a + n)`, `PLUGIN_ASSERT(...)`, `CHECK(...)`)
        if not words & names or re.match(r"\s*\w*(?:assert|ASSERT|Assert|CHECK|check|VALIDATE)\w*\s*\(", stmt):
            continue
        # a declaration of pointers into the buffer: `char *d = reinterpret_cast<char*>(buffer), *a = d`
        declared = set(re.findall(r"\*\s*(?:const\s+)?([A-Za-z_]\w*)\s*=", stmt))
        if re.match(r"\s*(?:const\s+)?[\w:]+(?:\s+const)?\s*\*", stmt) and declared and declared <= names:
            continue
        return False
    return True
