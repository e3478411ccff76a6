"""C++ / CUDA frontend: libclang → :mod:`trtlint.facts`.

One libclang parse per file (detailed preprocessing record, function bodies kept). The traversal only
descends into declarations located in project files (under ``ctx.root``); everything from system, SDK and
prelude headers is skipped at the top level. When the real TensorRT / CUDA headers are not available the
stand-in headers of ``prelude/`` are found instead (searched last, ``-idirafter``), so plugin classes still
resolve and method bodies keep their calls.

``extract`` never raises: unreadable input, libclang failures and internal errors become ``ParseProblem``s.
"""

from __future__ import annotations

import atexit
import ctypes
import dataclasses
import json
import os
import re
import shlex
import shutil
import subprocess
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Optional

from ..facts import (
    Call,
    CppClass,
    CppFunction,
    FieldRead,
    FileFacts,
    ParseProblem,
    PluginFieldDecl,
    Registration,
    ResolvedString,
    Span,
)
from . import UNSAVED, ExtractContext, SourceFile, cpp_flow, read_text, unsaved_files
from . import cpp_lifecycle as _lc

VERSION = "5"
KIND_NAMES = ("cpp", "cuda", "header")

PRELUDE_DIR = Path(__file__).resolve().parent / "prelude"
# a project's own plugin registration macro, e.g. REGISTER_TORCHTRT_PLUGIN_V3(Creator)
_PROJECT_REGISTER = re.compile(r"^REGISTER_\w*PLUGIN\w*$")
_TRT_PRELUDE = PRELUDE_DIR / "trt"
_CUDA_PRELUDE = PRELUDE_DIR / "cuda"

# Interfaces ------------------------------------------------------------------------------------------------

PLUGIN_IFACES = {
    "IPluginV3": "v3",
    "IPluginV3OneCore": "v3",
    "IPluginV3OneBuild": "v3",
    "IPluginV3OneBuildV2": "v3",
    "IPluginV3OneRuntime": "v3",
    "IPluginV2DynamicExt": "v2dynext",
    "IPluginV2IOExt": "v2iox",
    "IPluginV2Ext": "v2ext",
    "IPluginV2": "v2",
}
CREATOR_IFACES = {
    "IPluginCreatorV3One": "creator_v3",
    "IPluginCreator": "creator_v2",
    "IPluginCreatorInterface": "creator_v3",
}
_ALL_IFACES = set(PLUGIN_IFACES) | set(CREATOR_IFACES)
_PLUGIN_FAMILY_ORDER = ("v3", "v2dynext", "v2iox", "v2ext", "v2")
_STRING_GETTERS = {"getPluginName", "getPluginVersion", "getPluginNamespace", "getPluginType"}
_STRCMP_FUNCS = {"strcmp", "strncmp", "strcasecmp", "strncasecmp", "_stricmp", "compare", "equals", "starts_with"}
_LIST_REGISTER_FUNCS = {"initializePlugin", "addPluginCreator", "registerCreatorType"}
_CPP_KEYWORDS = {
    "if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype", "static_cast", "dynamic_cast",
    "reinterpret_cast", "const_cast", "catch", "throw", "new", "delete", "noexcept", "typeid", "alignas",
    "static_assert", "do", "else", "case", "default", "void", "int", "char", "float", "double", "bool",
    "auto", "operator", "template", "typename", "defined", "__attribute__", "__declspec",
}

# libclang plumbing -----------------------------------------------------------------------------------------

_lock = threading.Lock()
_ci: Any = None
_index: Any = None
_file_loc_fn: Any = None
_inline_ns_fn: Any = None
_binop_fn: Any = None
_UNNAMED_AT = re.compile(r"^(\((?:lambda|unnamed \w+|anonymous \w+) at )(.+)(:\d+:\d+\))$")
_STATS = {"files": 0, "missing_includes": 0, "errors": 0, "blanked_bodies": 0, "blank_retries": 0}


def stats() -> dict[str, int]:
    """Counters for this process (files parsed, missing includes seen, libclang errors, PCH use)."""
    return {**_STATS, **_PCH_STATS}


def _load() -> Any:
    global _ci, _index, _file_loc_fn, _inline_ns_fn, _binop_fn
    if _index is not None:
        return _ci
    import clang.cindex as ci  # noqa: WPS433 (lazy: the wheel is heavy)

    lib = ci.conf.lib
    f = lib.clang_getFileLocation
    f.argtypes = [
        ci.SourceLocation,
        ctypes.POINTER(ctypes.c_void_p),  # CXFile, read as a plain address (see _Extractor.floc)
        ctypes.POINTER(ctypes.c_uint),
        ctypes.POINTER(ctypes.c_uint),
        ctypes.POINTER(ctypes.c_uint),
    ]
    f.restype = None
    _file_loc_fn = f
    try:
        g = lib.clang_Cursor_isInlineNamespace
        g.argtypes = [ci.Cursor]
        g.restype = ctypes.c_uint
        _inline_ns_fn = g
    except AttributeError:
        _inline_ns_fn = None
    try:
        b = lib.clang_getCursorBinaryOperatorKind
        b.argtypes = [ci.Cursor]
        b.restype = ctypes.c_int
        _binop_fn = b
    except AttributeError:
        _binop_fn = None
    # excludeDecls: the top-level walk sees only this TU's own declarations, not the shared PCH's
    global _visit_cb, _visit_fn
    _visit_fn = lib.clang_visitChildren
    _visit_cb = ci.callbacks["cursor_visit"](_visit_collect)
    _index = ci.Index.create(excludeDecls=True)
    K = ci.CursorKind
    for attr, tag in (("CUDAGLOBAL_ATTR", "global"), ("CUDADEVICE_ATTR", "device"), ("CUDAHOST_ATTR", "host")):
        if hasattr(K, attr):
            _CUDA_FN_ATTRS[getattr(K, attr)] = tag
    _ci = ci
    atexit.register(_drop_index)
    return ci


# Fast child listing: one ctypes callback for the whole process (cindex builds a new one per call and checks
# every child against the null cursor through clang_equalCursors, which dominated the walk).
_visit_cb: Any = None
_visit_fn: Any = None
_CUDA_FN_ATTRS: dict = {}  # CursorKind -> "global" / "device" / "host" (filled by _load)


def _visit_collect(child: Any, _parent: Any, out: list) -> int:
    out.append(child)
    return 1  # CXChildVisit_Continue


def _kids(c: Any) -> list:
    """The children of a cursor, as a list (same order and cursors as ``c.get_children()``)."""
    out: list = []
    _visit_fn(c, _visit_cb, out)
    tu = getattr(c, "_tu", None)
    for ch in out:
        ch._tu = tu
    return out


def _preorder(c: Any) -> Iterable[Any]:
    """Same as ``c.walk_preorder()``."""
    yield c
    for ch in _kids(c):
        yield from _preorder(ch)


def _drop_index() -> None:
    """Dispose of the libclang index before interpreter teardown (its __del__ fails once modules are gone)."""
    global _index
    _index = None


@lru_cache(maxsize=1)
def _builtin_include_dir() -> Optional[str]:
    """The system compiler's builtin header dir (stddef.h, stdarg.h...); the libclang wheel ships none."""
    for cc in ("cc", "gcc", "clang", "c++", "g++"):
        exe = shutil.which(cc)
        if not exe:
            continue
        try:
            out = subprocess.run(
                [exe, "-print-file-name=include"], capture_output=True, text=True, timeout=10
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            continue
        if out and os.path.isfile(os.path.join(out, "stddef.h")):
            return out
    for cand in sorted(Path("/usr/lib/gcc/x86_64-linux-gnu").glob("*/include"), reverse=True):
        if (cand / "stddef.h").is_file():
            return str(cand)
    return None


_cc_cache: dict[str, tuple[float, dict[str, list[str]]]] = {}


def _compile_command_flags(cc_path: str, file: Path) -> Optional[list[str]]:
    """Include/define flags from compile_commands.json for ``file`` (None when it has no entry)."""
    try:
        mtime = os.path.getmtime(cc_path)
        cached = _cc_cache.get(cc_path)
        if cached is None or cached[0] != mtime:
            entries = json.loads(Path(cc_path).read_text(encoding="utf-8"))
            table: dict[str, list[str]] = {}
            for e in entries:
                d = e.get("directory", "")
                fpath = os.path.normpath(os.path.join(d, e.get("file", "")))
                args = e.get("arguments") or shlex.split(e.get("command", ""))
                table[fpath] = _filter_flags(args, d, fpath)
            _cc_cache[cc_path] = (mtime, table)
            cached = _cc_cache[cc_path]
        return cached[1].get(os.path.normpath(str(file)))
    except (OSError, ValueError, TypeError, AttributeError):
        return None


def _filter_flags(args: list[str], directory: str, fpath: str) -> list[str]:
    """Keep only the flags that matter for parsing (includes, defines, standard); drop nvcc-only ones."""
    out: list[str] = []
    with_value = {"-I", "-isystem", "-iquote", "-idirafter", "-include", "-D", "-U"}
    i = 1
    while i < len(args):
        a = args[i]
        if a in with_value and i + 1 < len(args):
            v = args[i + 1]
            if a in ("-I", "-isystem", "-iquote", "-idirafter", "-include"):
                v = os.path.normpath(os.path.join(directory, v))
            out += [a, v]
            i += 2
            continue
        for p in ("-isystem", "-iquote", "-idirafter", "-I"):
            if a.startswith(p) and len(a) > len(p):
                out += [p, os.path.normpath(os.path.join(directory, a[len(p):]))]
                break
        else:
            if a.startswith(("-D", "-U")) and len(a) > 2:
                out.append(a)
            elif a.startswith("-std=") and "c++" in a:
                out.append(a)
        i += 1
    return out


# Small helpers ---------------------------------------------------------------------------------------------


def _split_top_level(s: str, sep: str = ",") -> list[str]:
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


def _short(s: str, limit: int = 120) -> str:
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


def _literal_value(text: str) -> Optional[str]:
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


def _strip_parens(s: str) -> str:
    s = s.strip()
    while s.startswith("(") and s.endswith(")"):
        depth = 0
        for i, ch in enumerate(s):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and i < len(s) - 1:
                return s
        s = s[1:-1].strip()
    return s


def _split_logical(s: str, op: str) -> list[str]:
    """Split at top-level ``&&`` / ``||``."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(s):
        ch = s[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch in "\"'":
            j = i + 1
            while j < len(s) and s[j] != ch:
                j += 2 if s[j] == "\\" else 1
            i = j
        elif depth == 0 and s.startswith(op, i):
            parts.append(s[start:i].strip())
            start = i + len(op)
            i += len(op)
            continue
        i += 1
    parts.append(s[start:].strip())
    return parts


_ID = r"((?:this\s*->\s*)?[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*?)"
_NULLISH = r"(?:nullptr|NULL|0|__null)"
_UNSET_RES = [
    re.compile(r"!\s*" + _ID + r"(?:\s*\.\s*get\s*\(\s*\))?"),
    re.compile(_ID + r"\s*==\s*" + _NULLISH),
    re.compile(_NULLISH + r"\s*==\s*" + _ID),
    re.compile(_ID + r"\s*\.\s*empty\s*\(\s*\)"),
]
_SET_RES = [
    re.compile(_ID + r"(?:\s*\.\s*get\s*\(\s*\))?"),
    re.compile(_ID + r"\s*!=\s*" + _NULLISH),
    re.compile(_NULLISH + r"\s*!=\s*" + _ID),
    re.compile(r"!\s*" + _ID + r"\s*\.\s*empty\s*\(\s*\)"),
]


def _unset_ident(term: str, negate: bool) -> Optional[str]:
    """The variable a condition term tests for being unset (``negate``: for being set), else None."""
    for rx in (_SET_RES if negate else _UNSET_RES):
        m = rx.fullmatch(term)
        if m:
            ident = re.sub(r"\s+", "", m.group(1))
            root = ident.split(".")[0]
            if root.startswith("this->"):
                root = "this->" + root[6:].split("->")[0]
            else:
                root = root.split("->")[0]
            if root in ("true", "false", "nullptr", "NULL", "this"):
                return None
            return root
    return None


@lru_cache(maxsize=4)
def _func_kinds(K: Any) -> frozenset:
    return frozenset((K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.CONVERSION_FUNCTION,
                      K.FUNCTION_TEMPLATE, K.LAMBDA_EXPR))


@lru_cache(maxsize=4)
def _leaf_kinds(K: Any) -> frozenset:
    return frozenset((K.DECL_REF_EXPR, K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF, K.MEMBER_REF, K.LABEL_REF,
                      K.OVERLOADED_DECL_REF, K.VARIABLE_REF, K.INTEGER_LITERAL, K.FLOATING_LITERAL,
                      K.CHARACTER_LITERAL, K.CXX_BOOL_LITERAL_EXPR, K.CXX_NULL_PTR_LITERAL_EXPR, K.CXX_THIS_EXPR))


@lru_cache(maxsize=4)
def _leaf_ids(K: Any) -> frozenset:
    """Kind ids the body walk does not descend into: the leaf kinds plus kinds libclang never gives children
    (string literals, break / continue / null statements, ``override``), which saves a child visit each."""
    extra = (K.STRING_LITERAL, K.BREAK_STMT, K.CONTINUE_STMT, K.NULL_STMT, K.CXX_OVERRIDE_ATTR)
    return frozenset([k.value for k in _leaf_kinds(K)] + [k.value for k in extra])


def _FUNC_KINDS(K: Any) -> frozenset:  # noqa: N802
    return _func_kinds(K)


# The extractor ---------------------------------------------------------------------------------------------


class _Extractor:
    def __init__(self, ci: Any, src: SourceFile, ctx: ExtractContext, text: str) -> None:
        self.ci = ci
        self.K = ci.CursorKind
        self.src = src
        self.ctx = ctx
        self.text = text
        self.root = str(Path(ctx.root).resolve())
        self.main = str(src.path)
        self.main_bytes = text.encode("utf-8")
        self._file_bytes: dict[str, bytes] = {self.main: self.main_bytes}
        self._in_project: dict[str, Optional[str]] = {}
        self._qual_cache: dict[int, str] = {}
        self._iface_cache: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {}
        self._sdk_dirs: dict[str, bool] = {}
        self._file_names: dict[int, str] = {}
        self._floc_out = (ctypes.c_void_p(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint())
        self._floc_refs = tuple(ctypes.byref(x) for x in self._floc_out)
        self.classes: list[CppClass] = []
        self.functions: list[CppFunction] = []
        self.registrations: list[Registration] = []
        self.includes: set[str] = set()
        self.macro_insts: list[tuple[str, int, int, str, Any]] = []  # (file, start, end, name, cursor)
        self.macro_at: dict[tuple[str, int], Any] = {}
        self.registrar_vars: dict[str, Any] = {}
        self.register_macros: list[Any] = []
        self.class_by_name: dict[str, str] = {}
        self.lifecycle: list = []  # MethodDetail (cpp_lifecycle)
        self._lc_families: dict[str, str] = {}  # plugin/creator class -> family
        # GPU-only bodies handed to libclang blanked (cpp_device): real path -> opening-brace offsets
        self.blanked: dict[str, frozenset[int]] = {}
        self._blanked_offsets: frozenset[int] = frozenset()
        self.blank_violation = False  # a blanked body belongs to a function libclang does not see as GPU-only
        # project headers another unit of the run walks (SourceFile.skip): their declarations are not visited here
        self.skip = frozenset(src.skip)
        self.skipped_defs: set[tuple[str, str]] = set()  # (header, usr) of definitions seen in skipped headers

    # -- files and locations ------------------------------------------------------------------------------

    def rel_of(self, fname: Optional[str]) -> Optional[str]:
        """Project-relative path of a file name, or None when it is not a project file."""
        if fname is None:
            return None
        r = self._in_project.get(fname)
        if r is not None or fname in self._in_project:
            return r
        res: Optional[str] = None
        if fname == self.main:
            res = self.src.rel
        else:
            try:
                p = os.path.realpath(fname)
            except OSError:
                p = fname
            if (p == self.root or p.startswith(self.root + os.sep)) and not p.startswith(str(PRELUDE_DIR)):
                if not self._is_sdk_file(p):
                    res = os.path.relpath(p, self.root).replace(os.sep, "/")
        self._in_project[fname] = res
        return res

    def _is_sdk_file(self, p: str) -> bool:
        """Files in a directory holding the TensorRT / CUDA SDK headers are not project code."""
        d = os.path.dirname(p)
        v = self._sdk_dirs.get(d)
        if v is None:
            v = os.path.isfile(os.path.join(d, "NvInferRuntime.h")) or os.path.isfile(
                os.path.join(d, "cuda_runtime_api.h")
            )
            self._sdk_dirs[d] = v
        return v

    def floc(self, loc: Any) -> tuple[Optional[str], int, int, int]:
        """File location (spelling for macro arguments, expansion otherwise): (file, line, col, offset)."""
        fi, ln, col, off = self._floc_out
        _file_loc_fn(loc, *self._floc_refs)
        h = fi.value
        if not h:
            return None, ln.value, col.value, off.value
        name = self._file_names.get(h)  # CXFile handles are stable for the TU's lifetime
        if name is None:
            name = self._file_names[h] = self.ci.File(ctypes.cast(h, self.ci.c_object_p)).name
        return name, ln.value, col.value, off.value

    def cursor_file(self, c: Any) -> Optional[str]:
        f = c.location.file
        return f.name if f is not None else None

    def extent_info(self, c: Any) -> tuple[Optional[str], int, int, int, int, int, int]:
        """(file, line, col, off, end_line, end_col, end_off) of a cursor's extent (cached on the cursor)."""
        try:
            return c._trtlint_ei
        except AttributeError:
            pass
        ext = c.extent
        f1, l1, c1, o1 = self.floc(ext.start)
        f2, l2, c2, o2 = self.floc(ext.end)
        if f2 != f1 or o2 < o1:
            l2, c2, o2 = l1, c1, o1
        r = (f1, l1, c1, o1, l2, c2, o2)
        try:
            c._trtlint_ei = r
        except AttributeError:
            pass
        return r

    def span_of(self, c: Any) -> Optional[Span]:
        f, l1, c1, _o1, l2, c2, _o2 = self.extent_info(c)
        rel = self.rel_of(f)
        if rel is None:
            loc = c.location
            rel = self.rel_of(loc.file.name if loc.file else None)
            if rel is None:
                return None
            return Span(rel, loc.line, loc.column, loc.line, loc.column)
        return Span(rel, l1, c1, l2, c2)

    def loc_span(self, c: Any) -> Optional[Span]:
        """Span of a declaration's name location (any file, relative when in project)."""
        loc = c.location
        if loc.file is None:
            return None
        rel = self.rel_of(loc.file.name)
        path = rel if rel is not None else loc.file.name
        end = loc.column + max(len(c.spelling or ""), 0)
        return Span(path, loc.line, loc.column, loc.line, end)

    def file_bytes(self, fname: str) -> bytes:
        b = self._file_bytes.get(fname)
        if b is None:
            try:
                b = Path(fname).read_bytes()
            except OSError:
                b = b""
            self._file_bytes[fname] = b
        return b

    def text_of(self, c: Any) -> str:
        f, _l1, _c1, o1, _l2, _c2, o2 = self.extent_info(c)
        if f is None:
            return ""
        return self.file_bytes(f)[o1:o2].decode("utf-8", "replace")

    # -- names --------------------------------------------------------------------------------------------

    def qualname(self, c: Any) -> str:
        K = self.K
        try:
            h = c.hash
        except Exception:  # noqa: BLE001
            h = None
        if h is not None and h in self._qual_cache:
            return self._qual_cache[h]
        parts: list[str] = []
        cur = c
        depth = 0
        while cur is not None and cur.kind != K.TRANSLATION_UNIT and depth < 32:
            depth += 1
            k = cur.kind
            name = cur.spelling or ""
            if k == K.NAMESPACE:
                if name and not (_inline_ns_fn is not None and _inline_ns_fn(cur)):
                    parts.append(name)
            elif k in (K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
                pass
            elif name:
                if name[0] == "(":  # "(lambda at /abs/dir/../x.h:3:5)": the file as the project names it
                    name = _UNNAMED_AT.sub(lambda m: m.group(1) + (self.rel_of(m.group(2)) or os.path.normpath(m.group(2)))
                                           + m.group(3), name)
                parts.append(re.sub(r"<.*>$", "", name))
            cur = cur.semantic_parent
        q = "::".join(reversed(parts))
        if h is not None:
            self._qual_cache[h] = q
        return q

    # -- main driver --------------------------------------------------------------------------------------

    def run(self, tu: Any) -> None:
        K = self.K
        for c in _kids(tu.cursor):
            k = c.kind
            if k == K.MACRO_DEFINITION:
                continue
            if k == K.INCLUSION_DIRECTIVE:
                if self.rel_of(self.cursor_file(c)) is None:
                    continue
                try:
                    inc = c.get_included_file()
                except Exception:  # noqa: BLE001
                    inc = None
                if inc is not None:
                    rel = self.rel_of(inc.name)
                    if rel is not None and rel != self.src.rel:
                        self.includes.add(rel)
                continue
            if k == K.MACRO_INSTANTIATION:
                if c.location.is_in_system_header:
                    continue
                f = self.cursor_file(c)
                rel = self.rel_of(f)
                if rel is None or rel in self.skip:
                    continue
                ext = c.extent
                o1, o2 = ext.start.offset, ext.end.offset
                self.macro_insts.append((f, o1, o2, c.spelling, c))
                self.macro_at.setdefault((f, o1), c)
                if c.spelling == "REGISTER_TENSORRT_PLUGIN" or _PROJECT_REGISTER.match(c.spelling):
                    self.register_macros.append(c)
                continue
            if k == K.MACRO_DEFINITION:
                continue
            loc = c.location
            if loc.is_in_system_header:
                continue
            rel = self.rel_of(self.cursor_file(c))
            if rel is None:
                continue
            if rel in self.skip and k not in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
                self.visit_skipped(c)
                continue
            self.visit_decl(c)
        self.macro_insts.sort(key=lambda t: (t[0], t[1]))
        self.attach_macros()
        self.finish_registrations()

    def visit_decl(self, c: Any) -> None:
        K = self.K
        k = c.kind
        if k in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
            for ch in _kids(c):
                if ch.kind in (K.MACRO_INSTANTIATION, K.INCLUSION_DIRECTIVE):
                    continue
                rel = self.rel_of(self.cursor_file(ch))
                if rel is None:
                    continue
                if rel in self.skip and ch.kind not in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
                    self.visit_skipped(ch)
                    continue
                self.visit_decl(ch)
            return
        if k in (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE, K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION):
            if c.is_definition():
                self.visit_class(c)
            return
        if k in (K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.CONVERSION_FUNCTION,
                 K.FUNCTION_TEMPLATE):
            if c.is_definition():
                self.visit_function(c)
            return
        if k == K.VAR_DECL:
            name = c.spelling or ""
            if name.startswith("pluginRegistrar"):
                self.registrar_vars[name] = c
            self.scan_creator_list(c, None)
            return

    def visit_skipped(self, c: Any, nested: bool = False) -> None:
        """A declaration of a header another unit walks (``SourceFile.skip``): its functions are not walked,
        only noted (``skipped_defs``: the engine checks the walking unit has them). A defaulted special member
        is a definition only in a unit that uses it (clang defines it there), so it is taken here."""
        K = self.K
        k = c.kind
        # the same declarations visit_decl and visit_class reach
        if k in (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE) or (
                k == K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION and not nested):
            if c.is_definition():
                for ch in _kids(c):
                    self.visit_skipped(ch, nested=True)
        elif k in (K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.CONVERSION_FUNCTION,
                   K.FUNCTION_TEMPLATE):
            if not c.is_definition():
                return
            if k in (K.CONSTRUCTOR, K.DESTRUCTOR, K.CXX_METHOD) and c.is_default_method():
                self.visit_function(c)
                return
            rel = self.rel_of(self.extent_info(c)[0])
            if rel is not None:
                self.skipped_defs.add((rel, c.get_usr() or ""))

    # -- classes ------------------------------------------------------------------------------------------

    def visit_class(self, c: Any) -> None:
        K = self.K
        bases, ifaces = self.class_ifaces(c)
        if ifaces:
            plugin_fams = {PLUGIN_IFACES[i] for i in ifaces if i in PLUGIN_IFACES}
            creator_fams = {CREATOR_IFACES[i] for i in ifaces if i in CREATOR_IFACES}
            kind = family = None
            if plugin_fams:
                kind = "plugin"
                family = next(f for f in _PLUGIN_FAMILY_ORDER if f in plugin_fams)
            elif creator_fams:
                kind = "creator"
                if "IPluginCreatorV3One" in ifaces:
                    family = "creator_v3"
                elif "IPluginCreator" in ifaces:
                    family = "creator_v2"
                else:
                    family = "creator_v3"
            if kind and family:
                abstract = any(
                    ch.kind == K.CXX_METHOD and ch.is_pure_virtual_method() for ch in _kids(c)
                )
                span = self.loc_span(c) or Span(self.src.rel, 1)
                q = self.qualname(c)
                self.classes.append(
                    CppClass(qualname=q, name=c.spelling, kind=kind, family=family, bases=bases, span=span,
                             abstract=abstract)
                )
                self.class_by_name.setdefault(c.spelling, q)
                self._lc_families[q] = family
        for ch in _kids(c):
            kk = ch.kind
            if kk in (K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.CONVERSION_FUNCTION, K.FUNCTION_TEMPLATE,
                      K.FUNCTION_DECL):
                if ch.is_definition():
                    self.visit_function(ch)
            elif kk in (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE):
                if ch.is_definition():
                    self.visit_class(ch)
            elif kk == K.VAR_DECL:
                self.scan_creator_list(ch, None)

    def class_ifaces(self, c: Any, depth: int = 0) -> tuple[tuple[str, ...], frozenset[str]]:
        """(ordered base names: interfaces + intermediates leading to one, set of interfaces reached)."""
        K = self.K
        key = c.get_usr() or str(c.hash)
        if key in self._iface_cache:
            return self._iface_cache[key]
        self._iface_cache[key] = ((), frozenset())  # cycle guard
        names: list[str] = []
        ifaces: set[str] = set()
        if depth < 16:
            for b in _kids(c):
                if b.kind != K.CXX_BASE_SPECIFIER:
                    continue
                decl = None
                try:
                    decl = b.type.get_declaration()
                except Exception:  # noqa: BLE001
                    decl = None
                if decl is None or decl.kind == K.NO_DECL_FOUND:
                    for ch in _kids(b):
                        if ch.kind in (K.TYPE_REF, K.TEMPLATE_REF) and ch.referenced is not None:
                            decl = ch.referenced
                if decl is not None and decl.kind == K.TYPE_ALIAS_DECL:
                    decl = decl.underlying_typedef_type.get_declaration()
                spelled = re.sub(r"<.*>$", "", (b.type.spelling or b.spelling or "")).split("::")[-1].strip()
                spelled = spelled.replace("class ", "").replace("struct ", "")
                dname = decl.spelling if decl is not None and decl.kind != K.NO_DECL_FOUND else ""
                iface = None
                if spelled in _ALL_IFACES:
                    iface = spelled
                if dname in _ALL_IFACES:
                    dq = self.qualname(decl)
                    if dq.startswith("nvinfer1"):
                        iface = dname
                        if dname == "IPluginV3OneBuild" and "v_2_0" in self._raw_qual(decl):
                            iface = "IPluginV3OneBuildV2"
                if iface is not None:
                    if iface not in names:
                        names.append(iface)
                    ifaces.add(iface)
                if decl is None or decl.kind == K.NO_DECL_FOUND:
                    continue
                defn = decl.get_definition() or decl
                if defn.kind in (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE) or defn.kind == K.TYPEDEF_DECL:
                    sub_names, sub_ifaces = self.class_ifaces(defn, depth + 1)
                    if sub_ifaces and iface is None and dname and dname not in names:
                        names.append(dname)
                    for n in sub_names:
                        if n not in names:
                            names.append(n)
                    ifaces |= sub_ifaces
        res = (tuple(names), frozenset(ifaces))
        self._iface_cache[key] = res
        return res

    def _raw_qual(self, c: Any) -> str:
        parts = []
        cur = c
        while cur is not None and cur.kind != self.K.TRANSLATION_UNIT:
            parts.append(cur.spelling or "")
            cur = cur.semantic_parent
        return "::".join(reversed(parts))

    # -- functions ----------------------------------------------------------------------------------------

    def visit_function(self, fn: Any) -> None:
        K = self.K
        f, l1, c1, o1, l2, c2, o2 = self.extent_info(fn)
        rel = self.rel_of(f)
        if rel is None:
            return
        name = fn.spelling or ""
        parent = fn.semantic_parent
        cls = None
        if parent is not None and parent.kind in (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE,
                                                  K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION, K.UNION_DECL):
            cls = self.qualname(parent)
        qn = self.qualname(fn)
        try:
            esk = fn.exception_specification_kind
            noexc = esk.name in ("BASIC_NOEXCEPT", "COMPUTED_NOEXCEPT", "DYNAMIC_NONE", "NOTHROW")
        except Exception:  # noqa: BLE001
            noexc = False
        fc_params = []
        cuda_attrs = set()
        for ch in _kids(fn):
            ck = ch.kind
            if ck == K.PARM_DECL and "PluginFieldCollection" in (ch.type.spelling or ""):
                fc_params.append(ch)
            elif ck in _CUDA_FN_ATTRS:
                cuda_attrs.add(_CUDA_FN_ATTRS[ck])
        w = _BodyWalker(self, fn, name, fc_params)
        # a __global__ or __device__ (not also __host__) function runs on the GPU: it cannot throw, exit,
        # allocate with the host API or touch a stream, so no rule reads its body; the function is still
        # recorded (a launch resolves to it). Template kernels are often most of a .cu unit's walk.
        gpu = "global" in cuda_attrs or ("device" in cuda_attrs and "host" not in cuda_attrs)
        if not gpu:
            w.walk()
        md = _lc.detail(self, fn, name, cls, rel, Span(rel, l1, c1, l2, c2), w)
        if md is not None:
            self.lifecycle.append(md)
        body_start = o1
        for ch in _kids(fn):
            if ch.kind in (K.COMPOUND_STMT, K.MEMBER_REF, K.CXX_TRY_STMT):
                bf, _a, _b, bo, _d, _e, _g = self.extent_info(ch)
                if bf == f:
                    body_start = bo
                    if not gpu and bo in self._blanked_offsets and bo in self.blanked.get(os.path.realpath(f), ()):
                        self.blank_violation = True
                break
        self.functions.append(
            _FnBuild(
                usr=fn.get_usr() or "",
                qualname=qn,
                name=name,
                span=Span(rel, l1, c1, l2, c2),
                cls=cls,
                noexcept=noexc,
                walker=w,
                file=f,
                start=body_start,
                end=o2,
                gpu=gpu,
            )  # type: ignore[arg-type]
        )

    # -- macros -------------------------------------------------------------------------------------------

    def macro_args(self, fname: str, start: int, end: int, name: str) -> tuple[str, ...]:
        b = self.file_bytes(fname)
        s = b[start:end].decode("utf-8", "replace")
        i = s.find(name)
        rest = s[i + len(name):] if i >= 0 else s
        rest = rest.lstrip()
        if not rest.startswith("("):
            return ()
        inner = rest[1:]
        if inner.endswith(")"):
            inner = inner[:-1]
        return tuple(_short(a) for a in _split_top_level(inner)) if inner.strip() else ()

    def macro_from_prelude(self, m: Any) -> bool:
        try:
            d = m.referenced
        except Exception:  # noqa: BLE001
            return False
        f = d.location.file if d is not None else None
        return f is not None and f.name.startswith(str(PRELUDE_DIR))

    def attach_macros(self) -> None:
        import bisect

        keys = [(m[0], m[1]) for m in self.macro_insts]
        for fb in self.functions:
            if not isinstance(fb, _FnBuild) or fb.gpu:  # a GPU body may reach libclang blanked (cpp_device)
                continue
            lo = bisect.bisect_left(keys, (fb.file, fb.start))
            hi = bisect.bisect_right(keys, (fb.file, fb.end))
            for f, s, e, name, cur in self.macro_insts[lo:hi]:
                if e > fb.end or self.macro_from_prelude(cur):
                    continue
                rel = self.rel_of(f) or self.src.rel
                ext = cur.extent
                span = Span(rel, ext.start.line, ext.start.column, ext.end.line, ext.end.column)
                args = self.macro_args(f, s, e, name)
                guard = fb.walker.guard_at(f, s, e)
                fb.walker.calls.append((s, Call(callee=name, span=span, kind="macro", args=args, guard=guard)))
        self.functions = [fb.build() if isinstance(fb, _FnBuild) else fb for fb in self.functions]

    # -- string resolution --------------------------------------------------------------------------------

    def macro_name_at(self, c: Any) -> Optional[Any]:
        """The macro instantiation an expression was expanded from (the outermost at its start)."""
        loc = c.extent.start
        f = loc.file
        if f is None:
            return None
        return self.macro_at.get((f.name, loc.offset))

    def resolve_str(self, c: Any, depth: int = 0) -> Optional[tuple[Optional[str], Optional[str], Optional[Span]]]:
        """Resolve an expression to a string constant: (value, via, def_span), or None if not a constant."""
        if depth > 12 or c is None:
            return None
        via: Optional[str] = None
        def_span: Optional[Span] = None
        m = self.macro_name_at(c) if depth == 0 else None
        if m is not None:
            via = m.spelling
            try:
                md = m.referenced
                if md is not None:
                    def_span = self.loc_span(md)
            except Exception:  # noqa: BLE001
                pass
        r = self._resolve_inner(c, depth)
        if r is None:
            return None
        val, v2, d2 = r
        if via is None:
            via, def_span = v2, d2
        return val, via, def_span

    def _resolve_inner(self, c: Any, depth: int) -> Optional[tuple[Optional[str], Optional[str], Optional[Span]]]:
        K = self.K
        k = c.kind
        if k == K.STRING_LITERAL:
            v = _literal_value(c.spelling or self.text_of(c))
            return (v, None, None) if v is not None else None
        if k in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR,
                 K.CXX_STATIC_CAST_EXPR, K.CXX_CONST_CAST_EXPR, K.INIT_LIST_EXPR):
            kids = [ch for ch in _kids(c) if ch.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
            if len(kids) == 1:
                return self.resolve_str(kids[0], depth + 1)
            return None
        if k == K.DECL_REF_EXPR:
            d = c.referenced
            if d is None or d.kind not in (K.VAR_DECL, K.FIELD_DECL):
                return None
            init = self._var_init(d)
            if init is None:
                return None
            r = self.resolve_str(init, depth + 1)
            if r is None:
                return None
            return r[0], d.spelling, self.loc_span(d)
        if k == K.MEMBER_REF_EXPR:
            d = c.referenced
            if d is not None and d.kind == K.VAR_DECL:  # static member via object
                init = self._var_init(d)
                if init is not None:
                    r = self.resolve_str(init, depth + 1)
                    if r is not None:
                        return r[0], d.spelling, self.loc_span(d)
            return None
        if k == K.CALL_EXPR:
            ref = c.referenced
            name = c.spelling or ""
            kids = [ch for ch in _kids(c) if ch.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
            if name.startswith('operator""'):
                for ch in kids:
                    r = self.resolve_str(ch, depth + 1)
                    if r is not None:
                        return r
                return None
            if name in ("c_str", "data") and kids:
                obj = kids[0]
                if obj.kind == K.MEMBER_REF_EXPR:
                    inner = _kids(obj)
                    if len(inner) == 1:
                        return self.resolve_str(inner[0], depth + 1)
                return None
            if ref is not None and ref.kind == K.CONSTRUCTOR:
                args = list(c.get_arguments())
                real = [a for a in args if a.kind != K.UNEXPOSED_EXPR or self.text_of(a)]
                if len(real) >= 1:
                    return self.resolve_str(real[0], depth + 1)
                if len(kids) == 1:
                    return self.resolve_str(kids[0], depth + 1)
            return None
        return None

    def _var_init(self, d: Any) -> Optional[Any]:
        K = self.K
        init = None
        dd = d.get_definition() or d
        for ch in _kids(dd):
            if ch.kind in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF, K.ANNOTATE_ATTR, K.UNEXPOSED_ATTR):
                continue
            if ch.kind.is_expression() or ch.kind in (K.STRING_LITERAL, K.INIT_LIST_EXPR, K.CALL_EXPR):
                init = ch
        return init

    # -- registrations ------------------------------------------------------------------------------------

    def var_class(self, var: Any) -> Optional[str]:
        """Qualified class name of a variable's declared type (also for invalid declarations)."""
        K = self.K
        try:
            d = var.type.get_declaration()
            if d is not None and d.kind in (K.CLASS_DECL, K.STRUCT_DECL):
                return self.qualname(d)
        except Exception:  # noqa: BLE001
            pass
        for ch in _kids(var):
            if ch.kind == K.TYPE_REF and ch.referenced is not None:
                return self.qualname(ch.referenced)
        return None

    def scan_creator_list(self, var: Any, func: Optional[str], local_vars: Optional[dict[str, Any]] = None) -> None:
        """``static IPluginCreatorInterface* const kLIST[] = {&sCreator, ...}``: creators registered by list."""
        K = self.K
        tsp = var.type.spelling or ""
        if "IPluginCreator" not in tsp or "[" not in tsp:
            return
        for ch in _kids(var):
            if ch.kind != K.INIT_LIST_EXPR:
                continue
            for el in _kids(ch):
                txt = self.text_of(el)
                qn = None
                for sub in _preorder(el):
                    if sub.kind == K.DECL_REF_EXPR and sub.referenced is not None:
                        qn = self.var_class(sub.referenced)
                        break
                if qn is None:
                    m = re.search(r"[A-Za-z_]\w*", txt)
                    v = (local_vars or {}).get(m.group(0)) if m else None
                    if v is not None:
                        qn = self.var_class(v)
                span = self.span_of(el) or self.loc_span(var)
                if span is not None:
                    self.registrations.append(Registration(creator=_short(txt), qualname=qn, span=span, how="list"))

    def finish_registrations(self) -> None:
        K = self.K
        for m in self.register_macros:
            f = self.cursor_file(m)
            ext = m.extent
            args = self.macro_args(f, ext.start.offset, ext.end.offset, m.spelling) if f else ()
            creator = args[0] if args else ""
            rel = self.rel_of(f) or self.src.rel
            span = Span(rel, ext.start.line, ext.start.column, ext.end.line, ext.end.column)
            qn = None
            var = self.registrar_vars.get("pluginRegistrar" + creator.split("::")[-1].strip())
            if var is not None:
                try:
                    t = var.type.get_template_argument_type(0)
                    d = t.get_declaration()
                    if d is not None and d.kind != K.NO_DECL_FOUND:
                        qn = self.qualname(d)
                except Exception:  # noqa: BLE001
                    qn = None
                if qn is None:
                    for ch in _preorder(var):
                        if ch.kind == K.TYPE_REF and ch.referenced is not None and ch.referenced.spelling == creator.split("::")[-1]:
                            qn = self.qualname(ch.referenced)
                            break
            if qn is None:
                qn = self.class_by_name.get(creator.split("::")[-1].strip())
            if m.spelling != "REGISTER_TENSORRT_PLUGIN":
                # a project's own registration macro (Torch-TensorRT's REGISTER_TORCHTRT_PLUGIN_V3 wraps
                # registerCreator(instance, "torch_tensorrt")): a registration, in a namespace not known here
                if qn is None:
                    continue
                self.registrations.append(Registration(creator=creator, qualname=qn, span=span, how="project-macro"))
                continue
            self.registrations.append(Registration(creator=creator, qualname=qn, span=span, how="macro"))


class _FnBuild:
    """A function being built (calls are added by the macro pass before freezing)."""

    def __init__(self, usr: str, qualname: str, name: str, span: Span, cls: Optional[str], noexcept: bool,
                 walker: "_BodyWalker", file: str, start: int, end: int, gpu: bool = False) -> None:
        self.usr, self.qualname, self.name, self.span = usr, qualname, name, span
        self.cls, self.noexcept, self.walker = cls, noexcept, walker
        self.file, self.start, self.end = file, start, end
        self.gpu = gpu  # GPU-only: its body is neither walked nor searched for macro calls

    def build(self) -> CppFunction:
        w = self.walker
        calls = [c for _o, c in sorted(cpp_flow.finish(w, w.calls), key=lambda t: (t[0], t[1].kind != "macro"))]
        return CppFunction(
            usr=self.usr,
            qualname=self.qualname,
            name=self.name,
            span=self.span,
            cls=self.cls,
            noexcept=self.noexcept,
            calls=tuple(calls),
            returns=tuple(w.returns),
            field_decls=tuple(w.field_decls),
            field_reads=tuple(w.field_reads),
        )


class _BodyWalker:
    def __init__(self, ex: _Extractor, fn: Any, fname: str, fc_params: list[Any]) -> None:
        self.ex = ex
        self.K = ex.K
        self.fn = fn
        self.fname = fname
        self.fc_usrs = {p.get_usr() for p in fc_params if p.get_usr()}
        self.fc_names = {p.spelling for p in fc_params if p.spelling}
        self.calls: list[tuple[int, Call]] = []
        self.returns: list[ResolvedString] = []
        self.field_decls: list[PluginFieldDecl] = []
        self.field_reads: list[FieldRead] = []
        self._seen_reads: set[tuple[str, int]] = set()
        self._seen_calls: set[int] = set()
        self._seen_decls: set[tuple[str, int, int]] = set()
        self.local_vars: dict[str, Any] = {}
        self._guard: Optional[str] = None
        self.guard_ranges: list[tuple[str, int, int, str]] = []  # (file, start, end, guard)
        self.flow = cpp_flow.FlowState()
        self._lc_fields: list = []  # FieldData (cpp_lifecycle.on_field)
        self._lc_parents: tuple = ()

    def walk(self) -> None:
        K = self.K
        stack: list[tuple[Any, tuple[Any, ...], Optional[str]]] = []
        for ch in _kids(self.fn):
            if ch.kind == K.PARM_DECL:
                continue
            stack.append((ch, (), None))
        stack.reverse()
        leaves = _leaf_ids(K)
        flow = cpp_flow.flow_ids(K)
        CALL, NEW, UNEXP, RET, BINOP, VAR, IF, COMP = (
            K.CALL_EXPR.value, K.CXX_NEW_EXPR.value, K.UNEXPOSED_EXPR.value, K.RETURN_STMT.value,
            K.BINARY_OPERATOR.value, K.VAR_DECL.value, K.IF_STMT.value, K.COMPOUND_STMT.value)
        while stack:
            c, parents, guard = stack.pop()
            self._guard = guard
            k = c._kind_id
            if k in leaves:
                continue  # references and literals: nothing below them is a call, return or field use
            kids = _kids(c)
            if k in flow:
                cpp_flow.visit(self, c, k, kids)
            # guards of the children (None: inherit the parent's)
            kid_guards: Optional[list[Optional[str]]] = None
            if k == CALL:
                self.on_call(c, parents, kids)
                if c.spelling == "call_once":
                    kid_guards = [self.guard_range(ch, "static-init") if self._has_lambda(ch) else guard
                                  for ch in kids]
            elif k == NEW:
                self.on_new(c)
            elif k == UNEXP:
                self.on_unexposed(c, kids)
            elif k == RET:
                if self.fname in _STRING_GETTERS:
                    self.on_return(c)
            elif k == BINOP:
                if self.fc_usrs:
                    self.on_binop(c)
            elif k == VAR:
                self.local_vars[c.spelling] = c
                self.ex.scan_creator_list(c, self.fname, self.local_vars)
                if self._is_static_local(c):
                    kid_guards = [self.guard_range(ch, "static-init") for ch in kids]
            elif k == IF:
                kid_guards = self.if_guards(c, kids, guard)
            elif k == COMP:
                kid_guards = self.block_guards(c, kids, guard)
            np = parents + (c,) if len(parents) < 6 else parents[1:] + (c,)
            if kid_guards is None:
                for ch in reversed(kids):
                    stack.append((ch, np, guard))
            else:
                for ch, g in zip(reversed(kids), reversed(kid_guards)):
                    stack.append((ch, np, g))

    # -- one-time initialisation guards --

    def guard_range(self, c: Any, guard: str, start: Optional[int] = None, end: Optional[int] = None) -> str:
        """Record the source range a guard covers (macro calls are matched against it later); return it."""
        f, _l1, _c1, o1, _l2, _c2, o2 = self.ex.extent_info(c)
        if f is not None:
            self.guard_ranges.append((f, o1 if start is None else start, o2 if end is None else end, guard))
        return guard

    def _has_lambda(self, c: Any) -> bool:
        K = self.K
        cur = c
        for _ in range(4):
            if cur.kind == K.LAMBDA_EXPR:
                return True
            if cur.kind not in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CALL_EXPR):
                return False
            sub = _kids(cur)
            if len(sub) != 1:
                return False
            cur = sub[0]
        return False

    def _is_static_local(self, c: Any) -> bool:
        try:
            if c.storage_class != self.ex.ci.StorageClass.STATIC:
                return False
        except Exception:  # noqa: BLE001
            return False
        p = c.semantic_parent
        return p is not None and p.kind in _FUNC_KINDS(self.K)

    def if_parts(self, c: Any, kids: list[Any]) -> tuple[Optional[int], Optional[int], Optional[int]]:
        """Indexes of (condition, then-branch, else-branch) among an IF_STMT's children."""
        n = len(kids)
        if n < 2:
            return None, None, None
        if n == 2:
            return 0, 1, None
        if n >= 4:
            return n - 3, n - 2, n - 1
        # three children: (cond, then, else) or (init/condvar, cond, then)
        f1, *_r1, e1 = self.ex.extent_info(kids[1])
        f2, _l, _c, s2, *_r2 = self.ex.extent_info(kids[2])
        if f1 is not None and f1 == f2 and s2 >= e1:
            between = self.ex.file_bytes(f1)[e1:s2]
            if re.search(rb"\belse\b", between):
                return 0, 1, 2
        return 1, 2, None

    def if_guards(self, c: Any, kids: list[Any], guard: Optional[str]) -> Optional[list[Optional[str]]]:
        ci, ti, _ei = self.if_parts(c, kids)
        if ci is None or ti is None:
            return None
        cond = kids[ci]
        if not self.is_unset_test(cond, negate=False):
            return None
        g = self.guard_range(kids[ti], "null-check:" + _short(self.ex.text_of(cond), 60))
        out: list[Optional[str]] = [guard] * len(kids)
        out[ti] = g
        return out

    def block_guards(self, c: Any, kids: list[Any], guard: Optional[str]) -> Optional[list[Optional[str]]]:
        """``if (mX) return ...;`` in a block: the statements after it run only while mX is unset."""
        K = self.K
        out: Optional[list[Optional[str]]] = None
        cur = guard
        for i, ch in enumerate(kids):
            if out is not None:
                out[i] = cur
            if ch.kind != K.IF_STMT:
                continue
            sub = _kids(ch)
            ci, ti, ei = self.if_parts(ch, sub)
            if ci is None or ti is None or ei is not None or not self._is_return(sub[ti]):
                continue
            cond = sub[ci]
            if not self.is_unset_test(cond, negate=True):
                continue
            if i + 1 >= len(kids):
                break
            f, *_a, o2 = self.ex.extent_info(ch)
            bf, *_b, bo2 = self.ex.extent_info(c)
            cur = "null-check:" + _short(self.ex.text_of(cond), 60)
            if f is not None and f == bf:
                self.guard_ranges.append((f, o2, bo2, cur))
            if out is None:
                out = [guard] * len(kids)
        return out

    def guard_at(self, f: str, start: int, end: int) -> Optional[str]:
        """The innermost recorded guard range holding [start, end) of file ``f``."""
        best: Optional[tuple[int, str]] = None
        for gf, s, e, g in self.guard_ranges:
            if gf == f and s <= start and end <= e and (best is None or e - s < best[0]):
                best = (e - s, g)
        return best[1] if best is not None else None

    def _is_return(self, c: Any) -> bool:
        K = self.K
        if c.kind == K.RETURN_STMT:
            return True
        if c.kind == K.COMPOUND_STMT:
            sub = _kids(c)
            return bool(sub) and sub[-1].kind == K.RETURN_STMT
        return False

    def is_unset_test(self, cond: Any, negate: bool) -> bool:
        """Whether ``cond`` tests that a member / static / global is unset (``negate``: that it is set; then
        the early-return form). A conjunct of ``&&`` (``||`` when negated) is enough."""
        text = self.ex.text_of(cond).strip()
        if not text:
            return False
        terms = _split_logical(_strip_parens(text), "||" if negate else "&&")
        for t in terms:
            ident = _unset_ident(_strip_parens(t), negate)
            if ident is not None and self._is_state_var(cond, ident):
                return True
        return False

    def _is_state_var(self, cond: Any, ident: str) -> bool:
        """``ident`` (``this->x`` or a name) is a data member, a static or a global, not a local/parameter."""
        K = self.K
        name = ident[6:] if ident.startswith("this->") else ident
        if ident.startswith("this->"):
            return True
        for sub in _preorder(cond):
            if sub.kind in (K.MEMBER_REF_EXPR, K.DECL_REF_EXPR) and sub.spelling == name:
                d = sub.referenced
                if d is None:
                    break
                if d.kind == K.FIELD_DECL:
                    return True
                if d.kind == K.VAR_DECL:
                    p = d.semantic_parent
                    if p is None or p.kind not in _FUNC_KINDS(K):
                        return True  # global, namespace-scope or static data member
                    return self._is_static_local(d)
                return False
        # unresolved (missing headers): naming conventions for members / statics / globals
        return bool(re.match(r"(?:m|s|g)[A-Z_]|m_|s_|g_", name))

    # -- helpers --

    def span(self, c: Any) -> Span:
        return self.ex.span_of(c) or self.ex.loc_span(c) or Span(self.ex.src.rel, 1)

    def arg_texts(self, args: Iterable[Any]) -> tuple[str, ...]:
        out = []
        for a in args:
            t = self.ex.text_of(a)
            out.append(_short(t))
        while out and not out[-1]:
            out.pop()  # defaulted trailing arguments have no source text
        return tuple(out)

    def add_call(self, c: Any, call: Call) -> None:
        off = self.ex.extent_info(c)[3]
        if self._guard is not None:
            call = dataclasses.replace(call, guard=self._guard)
        self.calls.append((off, call))

    # -- calls --

    def on_call(self, c: Any, parents: tuple[Any, ...], kids: Optional[list[Any]] = None) -> None:
        K = self.K
        ex = self.ex
        ref = c.referenced
        name = c.spelling or ""
        self._lc_parents = parents
        if kids is None:
            kids = _kids(c)
        # CUDA launch: k<<<...>>>(args) has a __cudaPushCallConfiguration child call.
        if len(kids) >= 2 and kids[1].kind == K.CALL_EXPR and kids[1].spelling == "__cudaPushCallConfiguration":
            text = ex.text_of(c)
            cfg: list[str] = []
            i, j = text.find("<<<"), text.find(">>>")
            if i >= 0 and j > i:
                cfg = _split_top_level(text[i + 3 : j])
            stream = cfg[3] if len(cfg) >= 4 and cfg[3] else None
            callee = ex.qualname(ref) if ref is not None and ref.kind != K.NO_DECL_FOUND else name
            args = tuple(_short(a) for a in _split_top_level(text[text.rfind("(", j) + 1 : text.rfind(")")])) if j > 0 else ()
            if not callee:
                callee = text[:i].strip() if i > 0 else name
            self.add_call(c, cpp_flow.launch_extras(text, cfg, Call(
                callee=callee, span=self.span(c), usr=(ref.get_usr() or None) if ref is not None else None,
                kind="launch", stream=stream, args=tuple(a for a in args if a))))
            return
        if name == "__cudaPushCallConfiguration":
            return
        if name in _LIST_REGISTER_FUNCS:
            self.on_list_register(c, kids)
        if ref is not None and ref.kind == K.CONSTRUCTOR:
            if ref.is_copy_constructor() or ref.is_move_constructor():
                return
            cls_name = ref.spelling
            if cls_name == "PluginField":
                self.on_plugin_field(c, list(c.get_arguments()), c)
            text = ex.text_of(c)
            real = [t for t in (ex.text_of(a) for a in c.get_arguments()) if t]
            if len(real) == 1 and text == real[0]:
                return  # implicit conversion
            if not real and "(" not in text and "{" not in text:
                return  # implicit default construction
            if not text or text[0] in "\"'0123456789":
                return
        if ref is not None and ref.kind == K.CONVERSION_FUNCTION:
            return
        args = list(c.get_arguments())
        lambda_call = False
        if ref is not None and ref.kind == K.CXX_METHOD and name == "operator()":
            par = ref.semantic_parent
            lambda_call = par is not None and (par.spelling or "").startswith("(lambda")
        if lambda_call:
            callee = self.spelled_callee(c, kids) or "lambda"
            usr = None
            args = args[1:]
        elif ref is not None and ref.kind != K.NO_DECL_FOUND:
            callee = ex.qualname(ref)
            usr = ref.get_usr() or None
        else:
            callee = self.spelled_callee(c, kids) or name
            usr = None
        if not callee:
            return
        arg_texts = self.arg_texts(args)
        if name in ("emplace_back", "push_back", "emplace") and len(args) >= 3:
            t3 = args[2].type.spelling or ""
            if "PluginFieldType" in t3 or (len(arg_texts) > 2 and "PluginFieldType" in arg_texts[2]):
                self.on_plugin_field(c, args, c)
        stream = None
        if name.endswith("Async") and arg_texts:
            stream = arg_texts[-1]
        call = Call(callee=callee, span=self.span(c), usr=usr, kind="call", stream=stream, args=arg_texts)
        self.add_call(c, cpp_flow.call_extras(self, c, ref, name, args, arg_texts, call))
        if self.fc_usrs:
            self.on_call_reads(c, name, args, parents)

    def on_list_register(self, c: Any, kids: list[Any]) -> None:
        """``initializePlugin<ns::XCreator>(...)``: a creator registered by a library list."""
        K = self.K
        text = self.ex.text_of(c)
        m = re.match(r"[^<(]*<\s*([^()]+?)\s*>\s*\(", text)
        if not m:
            return
        creator = re.sub(r"\s+", "", m.group(1))
        qn = None
        if kids:
            for sub in _preorder(kids[0]):
                if sub.kind == K.TYPE_REF and sub.referenced is not None:
                    d = sub.referenced
                    if d.kind in (K.CLASS_DECL, K.STRUCT_DECL):
                        qn = self.ex.qualname(d)
                        break
                    if d.kind in (K.TYPEDEF_DECL, K.TYPE_ALIAS_DECL):
                        u = d.underlying_typedef_type.get_declaration()
                        if u is not None and u.kind in (K.CLASS_DECL, K.STRUCT_DECL):
                            qn = self.ex.qualname(u)
                            break
        if qn is None:
            qn = self.ex.class_by_name.get(creator.split("::")[-1])
        self.ex.registrations.append(Registration(creator=creator, qualname=qn, span=self.span(c), how="list"))

    def spelled_callee(self, c: Any, kids: list[Any]) -> Optional[str]:
        text = self.ex.text_of(c)
        m = re.match(r"\s*((?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_~]\w*)*)", text)
        if kids and kids[0].kind == self.K.MEMBER_REF_EXPR:
            return kids[0].spelling or None
        return re.sub(r"\s+", "", m.group(1)) if m else None

    def on_unexposed(self, c: Any, kids: Optional[list[Any]] = None) -> None:
        """Calls clang could not resolve (undeclared function): UNEXPOSED_EXPR(callee-ref, args...)."""
        K = self.K
        if kids is None:
            kids = _kids(c)
        if not kids:
            return
        first = kids[0]
        if first.kind not in (K.DECL_REF_EXPR, K.OVERLOADED_DECL_REF, K.MEMBER_REF_EXPR, K.UNEXPOSED_EXPR):
            return
        if len(kids) == 1 and c.extent == first.extent:
            return  # an implicit conversion of its only child, not a call
        ex = self.ex
        f, _l1, _c1, o1, _l2, _c2, o2 = ex.extent_info(c)
        ff, _a, _b, fo1, _d, _e, fo2 = ex.extent_info(first)
        if f is None or ff != f or fo1 != o1:
            return
        b = ex.file_bytes(f)
        rest = b[fo2:o2].decode("utf-8", "replace").lstrip()
        if rest.startswith("<"):
            depth = 0
            for i, ch in enumerate(rest):
                if ch == "<":
                    depth += 1
                elif ch == ">":
                    depth -= 1
                    if depth == 0:
                        rest = rest[i + 1 :].lstrip()
                        break
        if not rest.startswith("(") or not rest.rstrip().endswith(")"):
            return
        callee_text = b[fo1:fo2].decode("utf-8", "replace")
        name = first.spelling or ""
        if not name:
            for sub in _kids(first):
                if sub.kind == K.OVERLOADED_DECL_REF:
                    name = sub.spelling
        m = re.match(r"\s*((?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_~]\w*)*)", callee_text)
        callee = re.sub(r"\s+", "", m.group(1)) if m and "." not in callee_text and "->" not in callee_text else name
        if not callee or callee in _CPP_KEYWORDS:
            return
        if o1 in self._seen_calls:
            return
        self._seen_calls.add(o1)
        args = tuple(_short(a) for a in _split_top_level(rest.rstrip()[1:-1])) if rest.strip() != "()" else ()
        self.calls.append((o1, Call(callee=callee, span=self.span(c), usr=None, kind="call", args=args,
                                    guard=self._guard, discarded=cpp_flow.unexposed_discarded(self, c))))

    def on_new(self, c: Any) -> None:
        text = self.ex.text_of(c)
        m = re.match(r"\s*(?:::)?new\s*(?:\([^)]*\)\s*)?([A-Za-z_:][\w:<>, ]*)", text)
        arg = (m.group(1).strip() if m else "")
        self.add_call(c, Call(callee="operator new", span=self.span(c), kind="new", args=(arg,) if arg else ()))

    def on_return(self, c: Any) -> None:
        kids = _kids(c)
        if not kids:
            return
        e = kids[0]
        r = self.ex.resolve_str(e)
        expr = _short(self.ex.text_of(e))
        if r is None:
            self.returns.append(ResolvedString(value=None, span=self.span(e), expr=expr))
        else:
            self.returns.append(ResolvedString(value=r[0], span=self.span(e), expr=expr, via=r[1], def_span=r[2]))

    # -- plugin fields --

    def on_plugin_field(self, c: Any, args: list[Any], whole: Any) -> None:
        ex = self.ex
        if not args:
            return
        key = (ex.text_of(whole)[:40], *ex.extent_info(args[0])[2:4])
        if key in self._seen_decls:
            return
        self._seen_decls.add(key)
        r = ex.resolve_str(args[0])
        if r is None or r[0] is None:
            return
        texts = self.arg_texts(args)
        ftype = None
        if len(texts) >= 3:
            m = re.search(r"\b(k[A-Z][A-Z0-9_]*)\b", texts[2])
            ftype = m.group(1) if m else None
        length = texts[3] if len(texts) >= 4 and texts[3] else None
        data = texts[1] if len(texts) >= 2 and texts[1] else None
        self.field_decls.append(PluginFieldDecl(name=r[0], type=ftype, length=length, span=self.span(args[0]), data=data))
        _lc.on_field(self, c, args, self.field_decls[-1], self._lc_parents)

    # -- field reads --

    def refs_fc(self, c: Any) -> bool:
        K = self.K
        for sub in _preorder(c):
            if sub.kind == K.DECL_REF_EXPR:
                ref = sub.referenced
                if ref is not None and ref.get_usr() in self.fc_usrs:
                    return True
        return False

    def add_read(self, lit: Any, parents: tuple[Any, ...] = (), call: Any = None, style: str = "compare") -> None:
        r = self.ex.resolve_str(lit)
        if r is None or r[0] is None:
            return
        sp = self.span(lit)
        key = (r[0], sp.line * 10000 + sp.col)
        if key in self._seen_reads:
            return
        self._seen_reads.add(key)
        has_default, default = False, None
        if call is not None and parents:
            d = self.value_or(parents)
            if d is not None:
                has_default, default = True, d
        self.field_reads.append(FieldRead(name=r[0], span=sp, method=self.fname, has_default=has_default, default=default,
                                          style=style))

    def value_or(self, parents: tuple[Any, ...]) -> Optional[str]:
        K = self.K
        for p in reversed(parents[-4:]):
            if p.kind == K.MEMBER_REF_EXPR and p.spelling == "value_or":
                continue
            if p.kind == K.CALL_EXPR and p.spelling == "value_or":
                args = list(p.get_arguments())
                return _short(self.ex.text_of(args[0])) if args else ""
            if p.kind not in (K.UNEXPOSED_EXPR, K.MEMBER_REF_EXPR, K.PAREN_EXPR):
                return None
        return None

    def string_operands(self, c: Any) -> list[Any]:
        out = []
        for ch in _kids(c):
            if self.ex.resolve_str(ch) is not None:
                out.append(ch)
        return out

    def on_binop(self, c: Any) -> None:
        op = None
        if _binop_fn is not None:
            try:
                code = _binop_fn(c)
                op = {15: "==", 16: "!="}.get(code)
            except Exception:  # noqa: BLE001
                op = None
        if op is None:
            kids = _kids(c)
            if len(kids) != 2:
                return
            a, b = self.ex.extent_info(kids[0]), self.ex.extent_info(kids[1])
            if a[0] is None or a[0] != b[0]:
                return
            between = self.ex.file_bytes(a[0])[a[6]:b[3]].decode("utf-8", "replace").strip()
            if between not in ("==", "!="):
                return
        for lit in self.string_operands(c):
            self.add_read(lit)

    def on_call_reads(self, c: Any, name: str, args: list[Any], parents: tuple[Any, ...]) -> None:
        K = self.K
        if name in ("operator==", "operator!="):
            kids = _kids(c)
            for lit in self.string_operands(c):
                self.add_read(lit)
            del kids
            return
        if name in _STRCMP_FUNCS:
            for a in args:
                if self.ex.resolve_str(a) is not None:
                    self.add_read(a)
            return
        if args and any(self.refs_fc(a) for a in args):
            for a in args:
                if self.refs_fc(a):
                    continue
                if self.ex.resolve_str(a) is not None:
                    self.add_read(a, parents, c, style="call")
                else:
                    for sub in _preorder(a):
                        if sub.kind == K.STRING_LITERAL:
                            self.add_read(sub, parents, c, style="call")


# Arguments and entry point ---------------------------------------------------------------------------------

_ANCESTOR_NAMES = {"cpp", "include", "src", "plugin", "plugins"}


def _compile_args(src: SourceFile, ctx: ExtractContext) -> list[str]:
    path = Path(src.path)
    suffix = path.suffix.lower()
    cuda = src.kind == "cuda" or suffix in (".cu", ".cuh")
    args: list[str] = []
    if cuda:
        args += ["-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-D__CUDACC__"]
    else:
        args += ["-x", "c++"]
    args += ["-std=c++17", "-fsyntax-only", "-Wno-everything", "-ferror-limit=0", "-fno-spell-checking"]
    cc_flags = _compile_command_flags(ctx.compile_commands, path) if ctx.compile_commands else None
    if cc_flags:
        std = [a for a in cc_flags if a.startswith("-std=")]
        if std:
            args = [a for a in args if not a.startswith("-std=")] + std[-1:]
        args += [a for a in cc_flags if not a.startswith("-std=")]
    if cuda:
        args += ["-I", str(_CUDA_PRELUDE)]
    root = Path(ctx.root).resolve()
    seen: set[str] = set()

    def inc(d: str) -> None:
        if d not in seen:
            seen.add(d)
            args.extend(["-I", d])

    inc(str(path.parent))
    inc(str(root))
    if (root / "include").is_dir():
        inc(str(root / "include"))
    for d in ctx.include_dirs:
        inc(str(d))
    try:
        rp = path.resolve()
        for anc in rp.parents:
            if anc == root or not str(anc).startswith(str(root)):
                break
            if anc.name in _ANCESTOR_NAMES:
                inc(str(anc))
            # a sibling "include" directory of an ancestor is a common layout too
            if (anc / "include").is_dir() and anc != rp.parent:
                inc(str(anc / "include"))
    except OSError:
        pass
    for d in ctx.defines:
        args.append("-D" + d)
    builtin = _builtin_include_dir()
    if builtin:
        args += ["-isystem", builtin]
    args += ["-idirafter", str(_TRT_PRELUDE)]
    if not cuda:
        args += ["-idirafter", str(_CUDA_PRELUDE)]
    else:
        args += ["-include", str(_CUDA_PRELUDE / "__trtlint_cuda.h")]
    return args


# Shared precompiled header -------------------------------------------------------------------------------
#
# About 3/4 of a plugin TU's parse time is the standard library and the SDK headers. They are parsed once into
# a PCH (per language mode, flags, prelude contents and SDK headers), stored in a per-user cache directory and
# passed to every TU with -include-pch. The SDK headers in it are the real TensorRT / CUDA headers when the TU's
# include path resolves them (the PCH is then also keyed by their paths, mtimes and sizes), else the stand-ins.
# A PCH holds only headers that resolve the same for the TU: every header the PCH found through the include path
# is recorded when it is built (<key>.json), and a TU whose own include path would find a different file for one
# of them, or whose flags force-include other files, is parsed without it. The real headers guard themselves
# (#ifndef NV_INFER_H...), so the TU's own #include of them is skipped after -include-pch.

_PCH_STD_HEADERS = (
    "vector", "string", "memory", "optional", "cstdint", "cstring", "mutex", "unordered_map", "map", "algorithm",
    "functional", "sstream", "iostream", "stdexcept", "cassert", "cmath", "numeric", "array", "tuple", "utility",
    "type_traits", "limits",
    # the rest of what plugin and runtime sources commonly include (counted over Edge-LLM and TensorRT OSS):
    # each one outside the PCH is re-parsed by every unit that includes it (<filesystem>, <chrono>, <iomanip>
    # and the locale facets they pull in were about half of an Edge-LLM plugin unit's parse)
    "string_view", "cstddef", "cstdlib", "cstdio", "filesystem", "fstream", "unordered_set", "set", "iterator",
    "chrono", "atomic", "cfloat", "climits", "cerrno", "exception", "variant", "iomanip", "cstdarg", "cctype",
    "random", "deque", "list", "queue", "stack", "ctime", "condition_variable", "cinttypes", "ostream", "new",
    "thread", "bitset", "initializer_list",
)
_PCH_TRT_HEADERS = ("NvInfer.h", "NvInferRuntime.h", "NvInferPlugin.h")
_PCH_CUDA_HEADERS = ("cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h")
_PCH_MAX = 8  # distinct PCHs one process builds or loads (per-file defines could otherwise make many)
_pch_paths: dict[str, Optional[str]] = {}  # key -> PCH file (None: failed / disabled for that key)
_pch_records: dict[str, tuple[tuple[str, str], ...]] = {}  # key -> (spelling, file) the PCH found by search
_pch_files: dict[str, frozenset[str]] = {}  # PCH path -> real paths of the project-side headers it holds
_pch_fit: dict[tuple[str, tuple[str, ...]], bool] = {}  # (key, TU search dirs) -> the TU resolves them alike
_PCH_STATS = {"pch_built": 0, "pch_loaded": 0, "pch_used": 0, "pch_skipped": 0, "pch_fallback": 0}
_PATH_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter")


def _files_of(includes: list, stamps: list) -> frozenset[str]:
    """The real paths of the headers a PCH records (found by search, and read from the SDK directories)."""
    return frozenset(os.path.realpath(f) for _s, f in includes) | frozenset(p for p, _m, _z in stamps)


@lru_cache(maxsize=1)
def _prelude_digest() -> str:
    import hashlib

    h = hashlib.sha256()
    for f in sorted(PRELUDE_DIR.rglob("*")):
        if f.is_file():
            h.update(str(f.relative_to(PRELUDE_DIR)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


@lru_cache(maxsize=1)
def _libclang_version() -> str:
    try:
        lib = _ci.conf.lib
        fn = lib.clang_getClangVersion
        fn.restype = _ci._CXString
        fn.errcheck = _ci._CXString.from_result
        return str(fn())
    except Exception:  # noqa: BLE001
        try:
            from importlib.metadata import version

            return "libclang-wheel " + version("libclang")
        except Exception:  # noqa: BLE001
            return "unknown"


def pch_dir_candidates() -> list[Path]:
    """Where the shared PCHs are kept, in order of preference (the first writable one is used):
    ``$TRTLINT_PCH_DIR``, ``$XDG_CACHE_HOME/trtlint/pch`` (default ``~/.cache/trtlint/pch``), then a per-user
    directory in the system temp dir. ``trtlint clean --all`` empties them."""
    env = os.environ.get("TRTLINT_PCH_DIR")
    cands = [Path(env)] if env else []
    xdg = os.environ.get("XDG_CACHE_HOME")
    cands.append(Path(xdg) / "trtlint" / "pch" if xdg else Path.home() / ".cache" / "trtlint" / "pch")
    import tempfile

    uid = os.getuid() if hasattr(os, "getuid") else 0
    cands.append(Path(tempfile.gettempdir()) / f"trtlint-pch-{uid}")
    return cands


def _pch_dir() -> Optional[Path]:
    for d in pch_dir_candidates():
        try:
            d.mkdir(parents=True, exist_ok=True)
            if os.access(d, os.W_OK):
                return d
        except OSError:
            continue
    return None


def _search_dirs(args: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(-I dirs, the TU's dirs in clang's search order before the system dirs (-iquote, -I, -isystem) plus user
    -idirafter dirs, -idirafter dirs), each in command-line order."""
    quote: list[str] = []
    inc: list[str] = []
    sysd: list[str] = []
    after: list[str] = []
    for i, a in enumerate(args[:-1]):
        if a == "-iquote":
            quote.append(args[i + 1])
        elif a == "-I":
            inc.append(args[i + 1])
        elif a == "-isystem":
            sysd.append(args[i + 1])
        elif a == "-idirafter":
            after.append(args[i + 1])
    user_after = [d for d in after if not d.startswith(str(PRELUDE_DIR))]
    return inc, quote + inc + sysd + user_after, after


@lru_cache(maxsize=4096)
def _listing(d: str) -> frozenset[str]:
    try:
        return frozenset(os.listdir(d))
    except OSError:
        return frozenset()


def _exists(d: str, rel: str) -> bool:
    """Whether ``d/rel`` is a file (a directory listing is read once per process)."""
    if rel.split("/", 1)[0] not in _listing(d):
        return False
    return _isfile(os.path.join(d, rel))


@lru_cache(maxsize=8192)
def _isfile(p: str) -> bool:
    return os.path.isfile(p)


def _resolve(dirs: list[str], header: str) -> Optional[str]:
    """The first of ``dirs`` holding ``header``."""
    for d in dirs:
        if _exists(d, header):
            return d
    return None


def _sdk_group(search: list[str], cuda_mode: bool, group: str, top: tuple[str, ...]) -> Optional[tuple[list[str], list[str]]]:
    """(headers to precompile, real directories they come from) for the TensorRT or CUDA headers, or None when
    the include path mixes real and stand-in headers in a way the PCH cannot reproduce."""
    prelude = str(PRELUDE_DIR / group)
    # the CUDA stand-ins come first in CUDA mode (-I); otherwise the prelude is searched last (-idirafter)
    order = [d for d in search if d != prelude]
    if cuda_mode and group == "cuda":
        order = [prelude] + order
    real: dict[str, str] = {}
    for h in top:
        d = _resolve(order, h)
        if d is not None and not d.startswith(str(PRELUDE_DIR)) and d != _builtin_include_dir():
            real[h] = d
    if real:
        return [h for h in top if h in real], list(dict.fromkeys(real.values()))
    for f in _prelude_files(group):
        d = _resolve(order, f.name)
        if d is not None and not d.startswith(str(PRELUDE_DIR)) and d != _builtin_include_dir():
            return None  # part of the stand-ins is shadowed: leave the group out
    return list(top), []


def _file_stamp(p: str) -> list:
    try:
        st = os.stat(p)
        return [p, st.st_mtime_ns, st.st_size]
    except OSError:
        return [p, 0, -1]


def _pch_plan(args: list[str], cuda: bool) -> Optional[tuple[list[str], str, list[str], list, list]]:
    """(PCH build args, prelude header text, the TU's args without what the PCH replaces, stamps of the real SDK
    headers it names, (spelling, file) of the SDK headers it names), or None when this TU cannot share a PCH."""
    if os.environ.get("TRTLINT_NO_PCH"):
        return None
    force = str(_CUDA_PRELUDE / "__trtlint_cuda.h")
    dirs: list[str] = []
    lang: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in _PATH_FLAGS and i + 1 < len(args):
            dirs.append(args[i + 1])
            i += 2
            continue
        if a == "-include" and i + 1 < len(args):
            if args[i + 1] != force:
                return None  # other forced includes would come after the PCH's headers
            i += 2
            continue
        if a in ("-D", "-U") and i + 1 < len(args):
            lang += [a, args[i + 1]]
            i += 2
            continue
        lang.append(a)
        i += 1
    user_dirs = [d for d in dirs if not d.startswith(str(PRELUDE_DIR)) and d != _builtin_include_dir()]
    if any(_dir_has(d, h) for d in user_dirs for h in _PCH_STD_HEADERS):
        return None
    inc_dirs, search, _after = _search_dirs(args)
    search = [d for d in search if d != _builtin_include_dir()]
    trt = _sdk_group(search, cuda, "trt", _PCH_TRT_HEADERS)
    cud = _sdk_group(search, cuda, "cuda", _PCH_CUDA_HEADERS)
    lines = ["// trtlint shared precompiled prelude (generated)"]
    if cuda:
        lines.append(f'#include "{force}"')
    lines += [f"#include <{h}>" for h in _PCH_STD_HEADERS]
    real_dirs: set[str] = set()
    stamps: list = []
    tops: list[list[str]] = []  # (spelling, file) of the SDK headers the prelude names itself
    for grp, name in ((trt, "trt"), (cud, "cuda")):
        if grp is None:
            continue
        heads, rdirs = grp
        lines += [f"#include <{h}>" for h in heads]
        real_dirs.update(rdirs)
        for h in heads:
            d = _resolve(rdirs, h) if rdirs else str(PRELUDE_DIR / name)
            if d is not None and _exists(d, h):
                tops.append([h, os.path.realpath(os.path.join(d, h))])
                if rdirs:
                    stamps.append(_file_stamp(os.path.join(d, h)))
    pch_args = list(lang)
    # the real SDK directories (and the CUDA stand-ins in CUDA mode), in the TU's own -I order
    keep = real_dirs | ({str(_CUDA_PRELUDE)} if cuda else set())
    for d in dict.fromkeys(inc_dirs):
        if d in keep:
            pch_args += ["-I", d]
    builtin = _builtin_include_dir()
    if builtin:
        pch_args += ["-isystem", builtin]
    pch_args += ["-idirafter", str(_TRT_PRELUDE), "-idirafter", str(_CUDA_PRELUDE)]
    tu_args = [a for j, a in enumerate(args) if not (a == "-include" or (j > 0 and args[j - 1] == "-include"))]
    return pch_args, "\n".join(lines) + "\n", tu_args, stamps, tops


@lru_cache(maxsize=2)
def _prelude_files(group: str) -> tuple[Path, ...]:
    return tuple(sorted(p for p in (PRELUDE_DIR / group).iterdir() if p.suffix == ".h"))


def _pch_fits(key: str, args: list[str]) -> bool:
    """Whether the TU's include path finds, for every header the PCH found by searching, the same file."""
    search = tuple(_search_dirs(args)[1])
    ck = (key, search)
    v = _pch_fit.get(ck)
    if v is None:
        v = True
        for spelling, target in _pch_records.get(key, ()):
            d = _resolve(list(search), spelling)
            if d is not None and os.path.realpath(os.path.join(d, spelling)) != target:
                v = False
                break
        _pch_fit[ck] = v
    return v


def _pch_for(args: list[str], cuda: bool) -> Optional[tuple[str, list[str]]]:
    """(PCH path, TU args to use with it) or None."""
    plan = _pch_plan(args, cuda)
    if plan is None:
        with _lock:
            _PCH_STATS["pch_skipped"] += 1
        return None
    pch_args, header, tu_args, stamps, tops = plan
    import hashlib

    key = hashlib.sha256(
        json.dumps([_libclang_version(), _prelude_digest(), pch_args, header, stamps]).encode()
    ).hexdigest()[:32]
    with _lock:
        if key in _pch_paths:
            path = _pch_paths[key]
        elif len(_pch_paths) >= _PCH_MAX:
            _PCH_STATS["pch_skipped"] += 1
            return None
        else:
            path = _build_pch(key, pch_args, header, tops)
            _pch_paths[key] = path
        if path and not _pch_fits(key, args):
            _PCH_STATS["pch_skipped"] += 1
            return None
    return (path, tu_args) if path else None


_INCLUDE_LINE = re.compile(rb'^\s*#\s*(include|import|include_next)\s*([<"])([^>"]+)[>"]')


def _pch_inclusions(tu: Any, pch_dirs: list[str]) -> tuple[list[list[str]], list[list]]:
    """(spelling, file) of every header the PCH's parse found by searching the include path (not next to its
    includer, not #include_next), and the stamps of the headers it read from ``pch_dirs`` (the real SDKs)."""
    lines_of: dict[str, list[bytes]] = {}
    found: dict[tuple[str, str], None] = {}
    stamps: dict[str, list] = {}
    for inc in tu.get_includes():
        src = inc.source.name if inc.source is not None else None
        tgt = inc.include.name if inc.include is not None else None
        if not src or not tgt:
            continue
        real = os.path.realpath(tgt)
        if any(real.startswith(os.path.realpath(d) + os.sep) for d in pch_dirs):
            stamps[real] = _file_stamp(real)
        lines = lines_of.get(src)
        if lines is None:
            try:
                lines = lines_of[src] = Path(src).read_bytes().splitlines()
            except OSError:
                lines = lines_of[src] = []
        n = inc.location.line
        m = _INCLUDE_LINE.match(lines[n - 1]) if 0 < n <= len(lines) else None
        if m is None or m.group(1) == b"include_next":
            continue
        spelling = m.group(3).decode("utf-8", "replace")
        if os.path.isabs(spelling):
            continue
        if m.group(2) == b'"' and os.path.isfile(os.path.join(os.path.dirname(src), spelling)):
            continue  # found next to its includer, for the TU too
        found[(spelling, real)] = None
    return [list(k) for k in found], sorted(stamps.values())


def _build_pch(key: str, pch_args: list[str], header: str, tops: list[list[str]]) -> Optional[str]:
    """Load the PCH for ``key`` from the cache directory, building it there first when missing or when a header
    it read changed since (under a file lock, so parallel workers build it once). Called with ``_lock`` held."""
    d = _pch_dir()
    if d is None:
        return None
    target = d / f"{key}.pch"
    meta = d / f"{key}.json"
    lock_f = None
    try:
        lock_f = open(d / f"{key}.lock", "a+")  # noqa: SIM115
        try:
            import fcntl

            fcntl.flock(lock_f.fileno(), fcntl.LOCK_EX)
        except (ImportError, OSError):
            pass
        if target.is_file() and target.stat().st_size > 0:
            try:
                rec = json.loads(meta.read_text(encoding="utf-8"))
                if all(_file_stamp(p) == [p, m, z] for p, m, z in rec["stamps"]):
                    _pch_records[key] = tuple((s, f) for s, f in rec["includes"])
                    _pch_files[str(target)] = _files_of(rec["includes"], rec["stamps"])
                    _PCH_STATS["pch_loaded"] += 1
                    return str(target)
            except (OSError, ValueError, KeyError, TypeError):
                pass
        hdr = d / f"{key}.h"
        hdr.write_text(header, encoding="utf-8")
        ci = _ci
        opts = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD | ci.TranslationUnit.PARSE_INCOMPLETE
        tu = _index.parse(str(hdr), args=pch_args, options=opts)
        if any(dg.severity >= 3 for dg in tu.diagnostics):
            return None
        real_dirs = [pch_args[i + 1] for i, a in enumerate(pch_args[:-1])
                     if a == "-I" and not pch_args[i + 1].startswith(str(PRELUDE_DIR))]
        includes, stamps = _pch_inclusions(tu, real_dirs)
        # a guarded header named twice leaves no second inclusion record: name the prelude's SDK headers here
        includes += [t for t in tops if t not in includes]
        tmp = d / f"{key}.{os.getpid()}.tmp"
        tu.save(str(tmp))
        del tu
        mtmp = d / f"{key}.{os.getpid()}.json.tmp"
        mtmp.write_text(json.dumps({"includes": includes, "stamps": stamps}), encoding="utf-8")
        os.replace(mtmp, meta)
        os.replace(tmp, target)
        _pch_records[key] = tuple((s, f) for s, f in includes)
        _pch_files[str(target)] = _files_of(includes, stamps)
        _PCH_STATS["pch_built"] += 1
        _prune_pch_dir(d)
        return str(target)
    except Exception:  # noqa: BLE001 - a PCH is an optimisation only
        return None
    finally:
        if lock_f is not None:
            lock_f.close()  # releases the lock


def _prune_pch_dir(d: Path, max_age_days: float = 30.0) -> None:
    import time

    cutoff = time.time() - max_age_days * 86400
    for f in d.glob("*.pch"):
        try:
            if f.stat().st_mtime < cutoff and f.stat().st_atime < cutoff:
                f.unlink()
                for side in (f.with_suffix(".json"), f.with_suffix(".h"), f.with_suffix(".lock")):
                    side.unlink(missing_ok=True)
        except OSError:
            pass


def _drop_pch(path: str) -> None:
    """A PCH libclang refused (headers changed since it was built...): forget it and delete the file."""
    with _lock:
        for k, v in list(_pch_paths.items()):
            if v == path:
                _pch_paths[k] = None
        _PCH_STATS["pch_fallback"] += 1
    try:
        os.unlink(path)
    except OSError:
        pass


_PCH_ERROR = re.compile(r"precompiled header|PCH file|AST file|has been modified since|was built with", re.I)


_TRT_ARTIFACT = re.compile(r"nvinfer1|abstract class")
_CUDA_ARTIFACT = re.compile(
    r"'(?:cu|CU|__nv_|__half|half|nv_bfloat|cub::|cutlass|nccl|cudnn|float[1-4]'|int[1-4]'|uint[1-4]'|make_)"
    r"|undeclared identifier '(?:min|max|__[a-z]\w*|atomic\w*|rsqrtf|__ldg)'"
)


@lru_cache(maxsize=1024)
def _dir_has(d: str, header: str) -> bool:
    return not d.startswith(str(PRELUDE_DIR)) and os.path.isfile(os.path.join(d, header))


def _has_real(args: list[str], header: str) -> bool:
    """Whether a real (non-prelude) copy of ``header`` is on the include path."""
    dirs = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-I", "-isystem", "-idirafter")]
    return any(_dir_has(d, header) for d in dirs)


_MISSING_RE = re.compile(r"'([^']+)' file not found")


def _facts(src: SourceFile, kind: str, problems: tuple[ParseProblem, ...] = (), **kw: Any) -> FileFacts:
    return FileFacts(path=src.rel, kind=kind, digest=src.digest, problems=problems, **kw)


def _inc_dirs(args: list[str]) -> list[str]:
    """The directories a unit's #include lines are searched in, from its compile arguments."""
    return [
        b if a in ("-I", "-isystem", "-iquote") else a[2:] for a, b in zip(args, args[1:] + [""])
        if a in ("-I", "-isystem", "-iquote") or (a.startswith("-I") and len(a) > 2)
    ]


def reached_headers(units: list[SourceFile], ctx: ExtractContext) -> list[tuple[str, ...]]:
    """For each unit, the project headers it pulls in, directly or through other headers, by a text walk of
    the ``#include`` lines resolved on its include path (every branch of an ``#if`` counts, so this can name
    more than a parse includes). Project-relative, sorted; never raises (a unit that cannot be read gets ())."""
    from .cpp_guard import forget_listings, project_headers

    forget_listings()
    root = os.path.realpath(ctx.root)
    res = []
    for src in units:
        out: set[str] = set()
        try:
            text = src.text if src.text is not None else src.path.read_bytes().decode("utf-8", "replace")
            for h in project_headers(text, str(src.path), _inc_dirs(_compile_args(src, ctx)), str(ctx.root), UNSAVED):
                real = os.path.realpath(h)
                if real.startswith(root + os.sep):
                    out.add(os.path.relpath(real, root).replace(os.sep, "/"))
        except Exception:  # noqa: BLE001 - a plan input only: no headers means nothing is left to another unit
            out = set()
        out.discard(src.rel)
        res.append(tuple(sorted(out)))
    return res


def prepare(src: SourceFile, ctx: ExtractContext) -> None:
    """Build (or load) the shared PCH this unit will use, before its own time limit starts: the PCH is built
    once per machine and set of flags, and that build is not the file's time. Never raises."""
    try:
        _load()
        args = _compile_args(src, ctx)
        _pch_for(args, "cuda" in args[:2])
    except Exception:  # noqa: BLE001 - extract() reports whatever goes wrong
        pass


def extract(src: SourceFile, ctx: ExtractContext) -> FileFacts:
    kind = src.kind if src.kind in KIND_NAMES else "cpp"
    try:
        return _extract(src, ctx, kind)
    except Exception as e:  # noqa: BLE001 - the contract: never raise
        return _facts(src, kind, (ParseProblem(f"internal error in C++ frontend: {type(e).__name__}: {e}",
                                               Span(src.rel, 1), partial=False),))


def _shown(path: str, root: Path) -> str:
    """A header's path as a message shows it: project-relative when inside the root."""
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return path


# GPU-only bodies are blanked before a CUDA-mode parse (cpp_device); TRTLINT_BLANK_DEVICE=0 turns that off
# (the facts are the same either way: bench/cpp_facts_dump.py compares them).
_BLANK_DEVICE = os.environ.get("TRTLINT_BLANK_DEVICE", "1") != "0"
_BLANK_MEMO: dict[tuple[str, str, int, int], tuple[Optional[str], tuple[int, ...]]] = {}


def _blanked_file(path: str, text: Optional[str], blank: Any = None) -> tuple[Optional[str], tuple[int, ...]]:
    """(the file's text with the bodies ``blank`` finds blanked, their offsets), or (None, ()) when nothing is
    blanked. ``blank``: cpp_device.blank_device_bodies (GPU-only bodies, the default) or blank_function_bodies.
    ``text``: the file's text when it is not the one on disk (an open buffer, a guarded header); from the disk
    it is read once per process, version of the file and ``blank``."""
    from .cpp_device import blank_device_bodies

    blank = blank or blank_device_bodies
    if text is not None:
        out, opened = blank(text)
        return (out, tuple(opened)) if opened else (None, ())
    try:
        st = os.stat(path)
    except OSError:
        return None, ()
    key = (blank.__name__, path, st.st_mtime_ns, st.st_size)
    got = _BLANK_MEMO.get(key)
    if got is None:
        if len(_BLANK_MEMO) > 20_000:
            _BLANK_MEMO.clear()
        got = (None, ())
        try:
            with open(path, "rb") as fh:
                disk = fh.read().decode("utf-8")  # byte for byte: libclang's offsets are the disk's
        except (OSError, UnicodeDecodeError):
            disk = None
        if disk is not None:
            out, opened = blank(disk)
            if opened:
                got = (out, tuple(opened))
        _BLANK_MEMO[key] = got
    return got


# The function bodies of the headers a unit leaves to another unit (SourceFile.skip) are blanked before its
# parse (cpp_device.blank_function_bodies); TRTLINT_BLANK_SKIPPED=0 turns that off (the facts are the same
# either way: the unit never walks those headers).
_BLANK_SKIPPED = os.environ.get("TRTLINT_BLANK_SKIPPED", "1") != "0"


def _blank_skipped(unsaved: list[tuple[str, str]], reached: list[str], root: str, skip: frozenset[str],
                   in_pch: frozenset[str]) -> list[tuple[str, str]]:
    """The unsaved files for a parse with the function bodies of the unit's skipped headers blanked (never a
    header the shared PCH holds, nor one open in the editor under another spelling of its path)."""
    from .cpp_device import blank_function_bodies

    given = dict(unsaved)
    out = dict(given)
    open_elsewhere = {os.path.realpath(p) for p in given}
    prefix = root + os.sep
    for h in dict.fromkeys(reached):
        # by the path as spelled first (a realpath per header the unit reaches is most of this function's time);
        # a header reached through a symlinked directory only misses the blanking
        if not h.startswith(prefix) or h[len(prefix):].replace(os.sep, "/") not in skip:
            continue
        real = os.path.realpath(h)
        if real in in_pch or os.path.relpath(real, root).replace(os.sep, "/") not in skip:
            continue
        if h not in given and real in open_elsewhere:
            continue
        t = _blanked_file(h, given.get(h), blank_function_bodies)[0]
        if t is not None:
            out[h] = t
    return list(out.items())


def _blank_unit(path: str, text: str, unsaved: list[tuple[str, str]], reached: list[str], root: str,
                in_pch: frozenset[str]) -> tuple[list[tuple[str, str]], dict[str, frozenset[int]]]:
    """The unsaved files for a CUDA-mode parse with GPU-only bodies blanked in the unit and in the project
    headers it reaches (never in a header the shared PCH holds: libclang would refuse the PCH), and the
    blanked opening-brace offsets by real path."""
    given = dict(unsaved)
    blanked: dict[str, frozenset[int]] = {}
    out = dict(given)
    t, opened = _blanked_file(path, text)
    if t is not None:
        out[path] = t
        blanked[os.path.realpath(path)] = frozenset(opened)
    prefix = root + os.sep
    prelude = str(PRELUDE_DIR) + os.sep
    # a header open in the editor under another spelling of its path keeps its buffer: never the disk's text
    open_elsewhere = {os.path.realpath(p) for p in given}
    for h in dict.fromkeys(reached):
        real = os.path.realpath(h)
        if not real.startswith(prefix) or real.startswith(prelude) or real in in_pch or real in blanked:
            continue
        if h not in given and real in open_elsewhere:
            continue
        t, opened = _blanked_file(h, given.get(h))
        if t is not None:
            out[h] = t
            blanked[real] = frozenset(opened)
    return list(out.items()), blanked


def _extract(src: SourceFile, ctx: ExtractContext, kind: str, blank: bool = True) -> FileFacts:
    text, problem = read_text(src)
    if text is None:
        return _facts(src, kind, (ParseProblem(problem or "cannot read file", Span(src.rel, 1)),))
    ci = _load()
    args = _compile_args(src, ctx)
    from .cpp_guard import guard_headers, guard_includes  # devices/FIFOs named by #include are never opened

    inc_dirs = _inc_dirs(args)
    text, blocked = guard_includes(text, str(src.path.parent), inc_dirs)
    cuda_mode = "cuda" in args[:2]
    skipped = blank and _BLANK_SKIPPED and bool(src.skip)  # (``blank`` is off in a retry: nothing is blanked)
    blank = blank and cuda_mode and _BLANK_DEVICE
    reached: list[str] = []
    guarded_headers, blocked_in_headers = guard_headers(text, str(src.path), inc_dirs, UNSAVED,
                                                        reached if blank or skipped else None)
    # KeepGoing (0x200): a missing header is not fatal, so template instantiation (std::string ==, emplace_back,
    # function templates) keeps working after it.
    opts = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD | ci.TranslationUnit.PARSE_INCOMPLETE | 0x200
    path = str(src.path)
    unsaved = [u for u in unsaved_files(path, text) if u[0] not in dict(guarded_headers)] + guarded_headers
    with _lock:
        _STATS["files"] += 1
    pch = _pch_for(args, cuda_mode)
    blanked: dict[str, frozenset[int]] = {}
    in_pch = _pch_files.get(pch[0], frozenset()) if pch is not None else frozenset()
    if skipped:
        unsaved = _blank_skipped(unsaved, reached, str(Path(ctx.root).resolve()), frozenset(src.skip), in_pch)
    if blank:
        unsaved, blanked = _blank_unit(path, text, unsaved, reached, str(Path(ctx.root).resolve()), in_pch)
    tu = None
    if pch is not None:
        try:
            tu = _index.parse(path, args=pch[1] + ["-include-pch", pch[0]], unsaved_files=unsaved,
                              options=opts)
        except Exception:  # noqa: BLE001
            tu = None
        if tu is None or any(d.severity >= 3 and _PCH_ERROR.search(d.spelling or "") for d in tu.diagnostics):
            _drop_pch(pch[0])
            tu = None
        else:
            with _lock:
                _PCH_STATS["pch_used"] += 1
    if tu is None:
        try:
            tu = _index.parse(path, args=args, unsaved_files=unsaved, options=opts)
        except Exception as e:  # noqa: BLE001 (TranslationUnitLoadError)
            return _facts(src, kind, (ParseProblem(f"libclang could not parse the file: {e}", Span(src.rel, 1)),))

    problems: list[ParseProblem] = [
        ParseProblem(f"#include \"{name}\" names a device or special file; not read", Span(src.rel, line), partial=True)
        for line, name in blocked
    ] + [
        ParseProblem(f"#include \"{name}\" in {_shown(hpath, ctx.root)}:{hline} names a device or special file; "
                     "not read", Span(src.rel, line), partial=True)
        for line, hpath, hline, name in blocked_in_headers
    ]
    missing = 0
    errors = []
    for d in tu.diagnostics:
        if d.severity < 3:
            continue
        msg = d.spelling or ""
        if _MISSING_RE.search(msg):
            missing += 1
            continue
        errors.append(d)
    with _lock:
        _STATS["missing_includes"] += missing
        _STATS["errors"] += len(errors)
    # Errors that name TensorRT / CUDA entities while the stand-in prelude headers are in use are artifacts of
    # the prelude (it declares only what plugin code commonly touches), not problems of the file.
    if not _has_real(args, "NvInferRuntime.h"):
        errors = [d for d in errors if not _TRT_ARTIFACT.search(d.spelling or "")]
    if not _has_real(args, "cuda_runtime_api.h"):
        errors = [d for d in errors if not _CUDA_ARTIFACT.search(d.spelling or "")]
    # Semantic errors (undeclared names, no matching overload, abstract types) come from parsing without the
    # project's real build flags and SDK headers: they are the environment's, not the file's. Only syntax
    # errors ("Parse Issue") in the file itself, with no header missing, make its analysis partial.
    errors = [
        d for d in errors
        if (d.category_name or "") == "Parse Issue" and d.location.file is not None and d.location.file.name == path
    ]
    if errors and not (_has_real(args, "NvInferRuntime.h") and _has_real(args, "cuda_runtime_api.h")):
        # a syntax error on a line that names an SDK entity the stand-in prelude lacks is the prelude's gap
        lines = text.splitlines()

        def _sdk_line(d) -> bool:
            n = d.location.line
            line = lines[n - 1] if 0 < n <= len(lines) else ""
            return bool(re.search(r"nvinfer1|\bI[A-Z]\w+|\bcu[A-Za-z]|cuda|__\w+", line))

        errors = [d for d in errors if not _sdk_line(d)]
    if errors and missing == 0:
        d = errors[0]
        loc = d.location
        fname = loc.file.name if loc.file else None
        ex0 = _Extractor(ci, src, ctx, text)
        rel = ex0.rel_of(fname) or src.rel
        where = f"{rel}:{loc.line}:{loc.column}" if fname else src.rel
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        problems.append(ParseProblem(f"{d.spelling} at {where}{more}",
                                     Span(rel, max(loc.line, 1), max(loc.column, 1)), partial=True))

    ex = _Extractor(ci, src, ctx, text)
    if blanked:
        ex.blanked = blanked
        ex._blanked_offsets = frozenset().union(*blanked.values())
    ex.run(tu)
    if ex.blank_violation:  # a blanked body was not GPU-only after all: parse the unit as it is
        with _lock:
            _STATS["blank_retries"] += 1
        return _extract(src, ctx, kind, blank=False)
    if blanked:
        with _lock:
            _STATS["blanked_bodies"] += sum(len(v) for v in blanked.values())
    from . import cpp_contract

    try:
        contracts = cpp_contract.scan(ex)
        ex.registrations.extend(cpp_contract.registrations(ex))
    except Exception as e:  # noqa: BLE001 - the contract: never raise
        contracts = ()
        problems.append(ParseProblem(f"internal error in C++ contract scan: {type(e).__name__}: {e}", Span(src.rel, 1), partial=True))
    return _facts(
        src,
        kind,
        tuple(problems),
        classes=tuple(ex.classes),
        functions=tuple(ex.functions),
        registrations=tuple(ex.registrations),
        includes=tuple(sorted(ex.includes)),
        lifecycle=tuple(ex.lifecycle),
        fn_contracts=contracts,
        skipped_defs=tuple(sorted(ex.skipped_defs)),
    )
