"""The C++ frontend's base: libclang, loaded once per process, and the cursor and literal-text helpers the
other modules of the package share (public here, so none of them reads another's private names).

``Cursor`` is a libclang cursor (``clang.cindex`` is imported lazily, so to a type checker it is ``Any``);
:class:`Unit` is what the helpers (``body``, ``flow``, ``lifecycle``, ``contract``) read of the declaration
walk of one translation unit (:class:`~trtlint.frontends.cpp.decls.Extractor`).
"""

from __future__ import annotations

import atexit
import ctypes
import gc
import re
import threading
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Protocol

from trtlint.base.facts import CppClass, Registration, Span
from .. import SourceFile

# the stand-in SDK headers (trtlint/frontends/prelude/), searched last when the real ones are not found
PRELUDE_DIR = Path(__file__).resolve().parent.parent / "prelude"
TRT_PRELUDE = PRELUDE_DIR / "trt"
CUDA_PRELUDE = PRELUDE_DIR / "cuda"
ORT_PRELUDE = PRELUDE_DIR / "ort"  # ONNX Runtime's C++ API (a custom op's base): its units are not partly analysed

Cursor = Any  # a clang.cindex.Cursor
# (file, line, col, offset, end line, end col, end offset) of a cursor's extent (Unit.extent_info)
Extent = tuple[Optional[str], int, int, int, int, int, int]
# a string constant an expression resolves to: (value, the macro or variable it came through, where that is defined)
Resolved = tuple[Optional[str], Optional[str], Optional[Span]]


class Unit(Protocol):
    """What the body walk and the lifecycle, flow and contract helpers read of the declaration walk of one unit."""

    ci: Any  # clang.cindex
    K: Any  # clang.cindex.CursorKind
    src: SourceFile
    root: str  # the project root, resolved
    main_bytes: bytes  # the unit's own text as libclang parsed it
    classes: list[CppClass]
    functions: list  # FnBuild while the unit is walked, CppFunction once attach_macros has run
    registrations: list[Registration]
    class_by_name: dict[str, str]  # class name -> qualified name (plugin and creator classes)
    families: dict[str, str]  # plugin / creator class qualname -> family ("v3", "creator_v2"...)
    stream_params: dict  # callee usr (or cursor hash) -> index of its stream parameter (flow)
    derive_returns: dict  # helper usr (or cursor hash) -> the parameter every return derives from, or None (nonnull)
    pending_lists: dict  # creator lists declared outside functions: name -> USR -> elements (registrations)
    macro_insts: list  # the macro uses in project files: (file, start offset, end offset, name, cursor)

    def extent_info(self, c: Cursor) -> Extent: ...

    def span_of(self, c: Cursor) -> Optional[Span]: ...

    def loc_span(self, c: Cursor) -> Optional[Span]: ...

    def file_bytes(self, fname: str) -> bytes: ...

    def rel_of(self, fname: Optional[str]) -> Optional[str]: ...

    def text_of(self, c: Cursor) -> str: ...

    def qualname(self, c: Cursor) -> str: ...

    def resolve_str(self, c: Cursor, depth: int = 0) -> Optional[Resolved]: ...

    def scan_creator_list(self, var: Cursor, func: Optional[str],
                          local_vars: Optional[dict[str, Cursor]] = None) -> None: ...

    def read_creator_list(self, ref: Cursor, fn: Cursor) -> None: ...


# libclang plumbing -----------------------------------------------------------------------------------------

lock = threading.Lock()  # the process's libclang state and counters (the LSP server extracts from threads)


class Libclang:
    """The process's libclang, set by :func:`load` (the wheel is heavy: nothing is imported before)."""

    def __init__(self) -> None:
        self.ci: Any = None  # clang.cindex
        self.index: Any = None  # the Index every unit is parsed with
        self.file_location: Any = None  # clang_getFileLocation, the CXFile read as an address (decls.Extractor.floc)
        self.inline_namespace: Any = None  # clang_Cursor_isInlineNamespace, when the library has it
        self.binary_operator: Any = None  # clang_getCursorBinaryOperatorKind, when the library has it
        self.cuda_fn_attrs: dict = {}  # CursorKind -> "global" / "device" / "host"
        self.evaluate: Any = None  # (clang_Cursor_Evaluate, getKind, getAsLongLong, dispose), when the library has them


libclang = Libclang()


def load() -> Any:
    """Load libclang (once per process) and return ``clang.cindex``."""
    global _visit_cb, _visit_fn
    if libclang.index is not None:
        return libclang.ci
    import clang.cindex as ci  # noqa: WPS433 (lazy: the wheel is heavy)

    lib = ci.conf.lib
    f = lib.clang_getFileLocation
    f.argtypes = [
        ci.SourceLocation,
        ctypes.POINTER(ctypes.c_void_p),  # CXFile, read as a plain address (see decls.Extractor.floc)
        ctypes.POINTER(ctypes.c_uint),
        ctypes.POINTER(ctypes.c_uint),
        ctypes.POINTER(ctypes.c_uint),
    ]
    f.restype = None
    libclang.file_location = f
    try:
        g = lib.clang_Cursor_isInlineNamespace
        g.argtypes = [ci.Cursor]
        g.restype = ctypes.c_uint
        libclang.inline_namespace = g
    except AttributeError:
        libclang.inline_namespace = None
    try:
        b = lib.clang_getCursorBinaryOperatorKind
        b.argtypes = [ci.Cursor]
        b.restype = ctypes.c_int
        libclang.binary_operator = b
    except AttributeError:
        libclang.binary_operator = None
    try:
        ev, kind, as_ll, dispose = (lib.clang_Cursor_Evaluate, lib.clang_EvalResult_getKind,
                                    lib.clang_EvalResult_getAsLongLong, lib.clang_EvalResult_dispose)
        ev.argtypes, ev.restype = [ci.Cursor], ctypes.c_void_p
        kind.argtypes, kind.restype = [ctypes.c_void_p], ctypes.c_int
        as_ll.argtypes, as_ll.restype = [ctypes.c_void_p], ctypes.c_longlong
        dispose.argtypes, dispose.restype = [ctypes.c_void_p], None
        libclang.evaluate = (ev, kind, as_ll, dispose)
    except AttributeError:
        libclang.evaluate = None
    # excludeDecls: the top-level walk sees only this TU's own declarations, not the shared PCH's
    _visit_fn = lib.clang_visitChildren
    _visit_cb = ci.callbacks["cursor_visit"](_visit_collect)
    libclang.index = ci.Index.create(excludeDecls=True)
    K = ci.CursorKind
    for attr, tag in (("CUDAGLOBAL_ATTR", "global"), ("CUDADEVICE_ATTR", "device"), ("CUDAHOST_ATTR", "host")):
        if hasattr(K, attr):
            libclang.cuda_fn_attrs[getattr(K, attr)] = tag
    libclang.ci = ci
    atexit.register(_drop_index)
    return ci


# Fast child listing: one ctypes callback for the whole process (cindex builds a new one per call and checks
# every child against the null cursor through clang_equalCursors, which dominated the walk).
_visit_cb: Any = None
_visit_fn: Any = None


def _visit_collect(child: Any, _parent: Any, out: list) -> int:
    out.append(child)
    return 1  # CXChildVisit_Continue


def binop_code(c: Cursor) -> Optional[int]:
    """clang's ``BinaryOperatorKind`` of a binary-operator cursor (15 ``==``, 16 ``!=``, 21 ``=``, ...); None when
    this libclang has no ``clang_getCursorBinaryOperatorKind`` or cannot answer for the cursor (the callers then
    read the operator from the text between the operands)."""
    f = libclang.binary_operator
    if f is None:
        return None
    try:
        return f(c)
    except Exception:  # noqa: BLE001 - a cursor libclang cannot answer for
        return None


def evaluate_int(c: Cursor) -> Optional[int]:
    """The value of an integer constant expression (``3 * sizeof(size_t)``, ``sizeof(mA) + sizeof(mB)``); None when
    it is not one (a call, a runtime value) or the library cannot evaluate."""
    if libclang.evaluate is None:
        return None
    ev, kind, as_ll, dispose = libclang.evaluate
    r = ev(c)
    if not r:
        return None
    try:
        return int(as_ll(r)) if kind(r) == 1 else None  # CXEval_Int
    finally:
        dispose(r)


def children(c: Cursor) -> list:
    """The children of a cursor, as a list (same order and cursors as ``c.get_children()``). Inside
    :func:`children_memo`, a cursor's children are listed once: asked again for the same cursor object, the same
    child objects come back (in a new list), with what was cached on them (``extent_info``)."""
    got = getattr(c, "_trtlint_kids", None)
    if got is not None:
        return list(got)
    out: list = []
    _visit_fn(c, _visit_cb, out)
    tu = getattr(c, "_tu", None)
    for ch in out:
        ch._tu = tu
    keep = _memo.keep
    if keep is not None:
        c._trtlint_kids = tuple(out)
        keep.append(c)
    return out


def arguments(c: Cursor) -> list:
    """``list(c.get_arguments())`` (a call's arguments, a function's parameters); inside :func:`children_memo`, once
    per cursor object: asked again, the same argument objects come back (in a new list)."""
    got = getattr(c, "_trtlint_args", None)
    if got is not None:
        return list(got)
    out = list(c.get_arguments())
    keep = _memo.keep
    if keep is not None:
        c._trtlint_args = tuple(out)
        keep.append(c)
    return out


class _Memo(threading.local):
    keep: Optional[list] = None  # the cursors whose children or arguments are cached (children_memo), in this thread


_memo = _Memo()


@contextmanager
def children_memo() -> Iterator[None]:
    """While the block runs (in this thread), :func:`children` lists each cursor object's children once: the walk of
    one body, where the walk and its visitors (flow, lifecycle, nonnull...) ask for the same nodes' children (and
    :func:`arguments` each call's arguments once). The
    cache lives on the cursor objects and is dropped when the block ends (a long-lived cursor, the function's, would
    otherwise keep the whole body's cursors alive)."""
    prev = _memo.keep
    keep: list = []
    _memo.keep = keep
    collect = gc.isenabled()
    if collect:
        gc.disable()
    try:
        yield
    finally:
        _memo.keep = prev
        for c in keep:
            d = c.__dict__
            d.pop("_trtlint_kids", None)
            d.pop("_trtlint_args", None)
        del keep
        if collect:
            gc.enable()


def preorder(c: Cursor) -> Iterable[Cursor]:
    """Same as ``c.walk_preorder()``."""
    yield c
    for ch in children(c):
        yield from preorder(ch)


def _drop_index() -> None:
    """Dispose of the libclang index before interpreter teardown (its __del__ fails once modules are gone)."""
    libclang.index = None


# Literal text ----------------------------------------------------------------------------------------------


def split_top_level(s: str, sep: str = ",") -> list[str]:
    """Split at top-level separators, respecting brackets and string/char literals."""
    parts: list[str] = []
    depth = 0
    cur: list[str] = []
    i = 0
    n = len(s)
    while i < n:
        ch = s[i]
        if ch in "\"'":
            j = i + 1
            while j < n and s[j] != ch:
                j += 2 if s[j] == "\\" else 1
            cur.append(s[i : j + 1])
            i = j + 1
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "<" and depth >= 0:
            pass
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    tail = "".join(cur).strip()
    if tail or parts:
        parts.append(tail)
    return parts


def short(s: str, limit: int = 120) -> str:
    """``s`` on one line, cut to ``limit`` characters (the text of an argument or expression in a fact)."""
    s = " ".join(s.split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


_ESC = re.compile(r"\\(x[0-9a-fA-F]+|[0-7]{1,3}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.S)
_SIMPLE_ESC = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'", "a": "\a",
               "b": "\b", "f": "\f", "v": "\v", "?": "?"}


def _unescape(body: str) -> str:
    def rep(m: re.Match[str]) -> str:
        e = m.group(1)
        if e in _SIMPLE_ESC:
            return _SIMPLE_ESC[e]
        try:
            if e[0] == "x":
                return chr(int(e[1:], 16))
            if e[0] in "uU":
                return chr(int(e[1:], 16))
            if e[0] in "01234567":
                return chr(int(e, 8))
        except ValueError:
            pass
        return e

    return _ESC.sub(rep, body)


_STR_PIECE = re.compile(r'(?:u8|u|U|L)?"((?:[^"\\]|\\.)*)"', re.S)
_RAW_PIECE = re.compile(r'(?:u8|u|U|L)?R"([^(]*)\((.*?)\)\1"', re.S)


def literal_value(text: str) -> Optional[str]:
    """Value of a (possibly concatenated) string literal as written."""
    text = text.strip()
    if not text or '"' not in text:
        return None
    raw = list(_RAW_PIECE.finditer(text))
    if raw:
        return "".join(m.group(2) for m in raw)
    pieces = _STR_PIECE.findall(text)
    if not pieces:
        return None
    return "".join(_unescape(p) for p in pieces)


# Cursor kinds ----------------------------------------------------------------------------------------------


@lru_cache(maxsize=4)
def func_kinds(K: Any) -> frozenset:
    """The cursor kinds of a function (a lambda included)."""
    return frozenset((K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.CONVERSION_FUNCTION,
                      K.FUNCTION_TEMPLATE, K.LAMBDA_EXPR))


@lru_cache(maxsize=4)
def _leaf_kinds(K: Any) -> frozenset:
    return frozenset((K.DECL_REF_EXPR, K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF, K.MEMBER_REF, K.LABEL_REF,
                      K.OVERLOADED_DECL_REF, K.VARIABLE_REF, K.INTEGER_LITERAL, K.FLOATING_LITERAL,
                      K.CHARACTER_LITERAL, K.CXX_BOOL_LITERAL_EXPR, K.CXX_NULL_PTR_LITERAL_EXPR, K.CXX_THIS_EXPR))


@lru_cache(maxsize=4)
def leaf_ids(K: Any) -> frozenset:
    """Kind ids the body walk does not descend into: the leaf kinds plus kinds libclang never gives children
    (string literals, break / continue / null statements, ``override``), which saves a child visit each."""
    extra = (K.STRING_LITERAL, K.BREAK_STMT, K.CONTINUE_STMT, K.NULL_STMT, K.CXX_OVERRIDE_ATTR)
    return frozenset([k.value for k in _leaf_kinds(K)] + [k.value for k in extra])


@lru_cache(maxsize=4)
def childless_ids(K: Any) -> frozenset:
    """Kind ids libclang never gives children: the references (libclang visits no children of a reference), the
    literals besides a name (``DECL_REF_EXPR`` may have some: a qualifier, template arguments) and ``this``, and
    the kinds :func:`leaf_ids` adds."""
    return leaf_ids(K) - {K.DECL_REF_EXPR.value}


@lru_cache(maxsize=8)
def _through_ids(K: Any, casts: bool, functional: bool) -> frozenset:
    kinds = [K.UNEXPOSED_EXPR, K.PAREN_EXPR]
    if casts:
        kinds += [K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR, K.CXX_CONST_CAST_EXPR]
    if functional:
        kinds.append(K.CXX_FUNCTIONAL_CAST_EXPR)
    return frozenset(k.value for k in kinds)


@lru_cache(maxsize=4)
def _written_type_ids(K: Any) -> frozenset:
    return frozenset(k.value for k in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF))


def look_through(K: Any, c: Cursor, casts: bool = False, functional: bool = False,
                 limit: Optional[int] = 8) -> Cursor:
    """The written expression under parentheses and libclang's implicit conversions (``UNEXPOSED_EXPR``): each
    such node with one child is stepped through, at most ``limit`` times (None: no limit). ``casts``: the
    explicit casts too (C-style, ``static_cast``, ``reinterpret_cast``, ``const_cast``; ``functional``: ``T(x)``
    as well), the references of the type a cast writes (``TYPE_REF``, ``NAMESPACE_REF``, ``TEMPLATE_REF``) not
    counted as its children."""
    ids = _through_ids(K, casts, functional)
    skip = _written_type_ids(K) if casts else None
    n = 0
    while limit is None or n < limit:
        if c._kind_id not in ids:
            break
        sub = children(c)
        if skip is not None:
            sub = [s for s in sub if s._kind_id not in skip]
        if len(sub) != 1:
            break
        c = sub[0]
        n += 1
    return c


def branch_fails(w: Any, if_stmt: Cursor, then: Cursor, last: Cursor, ends: Optional[str]) -> bool:
    """Whether the then-branch ``then`` of ``if_stmt``, whose last statement is ``last``, ends in a throw or a process
    exit (``ends``: what flow.ends_process said of ``last``), in an ``if`` of the function's own text: an ``if``
    expanded from a macro body has the whole expansion as the extent of every part, and is not judged."""
    K = w.K
    if w.ex.extent_info(then)[3] <= w.ex.extent_info(if_stmt)[3]:
        return False
    end = last
    if end.kind == K.UNEXPOSED_EXPR:  # the statement wraps the throw expression
        sub = children(end)
        end = sub[0] if len(sub) == 1 else end
    return end.kind == K.CXX_THROW_EXPR or ends is not None
