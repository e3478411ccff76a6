"""Blob handoffs (part of the C++ frontend; called from :mod:`.lifecycle`): for a V2 creator's
``deserializePlugin``, the plugin constructors it hands its blob to and how far into the blob the pointer it
passes points, after the reads the creator made itself (a type tag read with ``deserialize_value(&d, &n, &tag)``
advances ``d`` one item; ``memcpy(&tag, d, 4)`` does not, and ``q = (char*)d + sizeof(int)`` is ``d`` plus 4
bytes). The ``new`` is found in the source text: under the stand-in headers libclang drops a ``new`` of a class
that looks abstract, with the statement around it.

Only the modules of this package touch libclang cursors; what leaves is plain facts.
"""

from __future__ import annotations

import re
from typing import Optional

from trtlint.base.facts import BlobHandoff, Span
from .base import Cursor, Unit, binop_code, children, look_through, preorder
from .serialvalues import BLOB_T, READS, read_value


# where a pointer into the blob points: (items, bytes) past its start (see facts.BlobHandoff); None: not known
_Pos = Optional[tuple[Optional[int], Optional[int]]]
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
            lhs = look_through(K, kids[0])
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
            sub = look_through(K, kids[0])
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
        if name in READS and args:
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
            e = look_through(K, a)
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
            e = look_through(self.K, e, casts=True)
            if e.kind == K.UNARY_OPERATOR and self.ex.text_of(e).strip().startswith("&"):
                sub = children(e)
                if len(sub) != 1:
                    return None
                e = sub[0]
                continue
            break
        return e.spelling if e.kind == K.DECL_REF_EXPR and e.spelling in self.pos else None

    def mentions(self, e: Cursor) -> bool:
        K = self.K
        return any(s.kind == K.DECL_REF_EXPR and s.spelling in self.pos for s in preorder(e))

    def binop(self, c: Cursor, kids: list) -> Optional[str]:
        op = _BO.get(binop_code(c))
        if op is not None:
            return op
        a, b = self.ex.extent_info(kids[0]), self.ex.extent_info(kids[1])
        if a[0] is None or a[0] != b[0]:
            return None
        between = self.ex.file_bytes(a[0])[a[6]:b[3]].decode("utf-8", "replace").strip()
        return between if between in _BO.values() else None

    def eval(self, e: Cursor) -> _Pos:
        """Where a pointer expression points: a tracked pointer, plus or minus an integer (in bytes)."""
        K = self.K
        e = look_through(self.K, e, casts=True)
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
        e = look_through(self.K, e, casts=True)
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


def handoffs_of(ex: Unit, fn: Cursor, rel: str) -> tuple[BlobHandoff, ...]:
    """The plugin constructors a creator's ``deserializePlugin`` hands its blob parameter to, and where in the
    blob the pointer it passes points (see :class:`_Blob`)."""
    K = ex.K
    params = [ch for ch in children(fn) if ch.kind == K.PARM_DECL]
    # the blob: a pointer parameter followed by its length (deserializePlugin(name, serialData, serialLength))
    blob = next((p.spelling for p, n in zip(params, params[1:], strict=False) if BLOB_T.fullmatch((p.type.spelling or "").replace(" ", ""))
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
