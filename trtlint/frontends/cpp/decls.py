"""The C++ frontend's declaration walk of one translation unit: the plugin and creator classes (by the
TensorRT interfaces they reach), every function defined in a project file (its body walked by
:class:`~trtlint.frontends.cpp.body.BodyWalker`), the macro calls in those bodies (:mod:`.macros`), string
constants and the creator registrations (``REGISTER_TENSORRT_PLUGIN``, a project's own registration macro,
creator lists: :mod:`.registrations`)."""

from __future__ import annotations

import ctypes
import os
import re
from pathlib import Path
from typing import Any, Optional

from trtlint.base import safeio
from trtlint.base.facts import CppClass, CppFunction, OrtCustomOp, Registration, Span, UnresolvedClass
from .. import ExtractContext, SourceFile
from . import fnmemo, lifecycle
from .base import PRELUDE_DIR, Cursor, children, libclang, preorder, split_top_level
from .body import BodyWalker
from .macros import FnBuild, MacroUses
from .registrations import Registrations

# a project's own plugin registration macro, e.g. REGISTER_TORCHTRT_PLUGIN_V3(Creator)
_PROJECT_REGISTER = re.compile(r"^REGISTER_\w*PLUGIN\w*$")

# Interfaces -----------------------------------------------------------------------------------------------

PLUGIN_IFACES = {
    "IPluginV3": "v3",
    "IPluginV3OneCore": "v3",
    "IPluginV3OneBuild": "v3",
    "IPluginV3OneBuildV2": "v3",
    "IPluginV3OneRuntime": "v3",
    # the capabilities of TensorRT's quickly deployable (Python, `tensorrt.plugin`) plugins, 10.6+
    # (impl/NvInferPythonPlugin.h): the same IPluginV3 family, served through getCapabilityInterface
    "IPluginV3QuickCore": "v3",
    "IPluginV3QuickBuild": "v3",
    "IPluginV3QuickAOTBuild": "v3",
    "IPluginV3QuickRuntime": "v3",
    "IPluginV2DynamicExt": "v2dynext",
    "IPluginV2IOExt": "v2iox",
    "IPluginV2Ext": "v2ext",
    "IPluginV2": "v2",
}
CREATOR_IFACES = {
    "IPluginCreatorV3One": "creator_v3",
    "IPluginCreatorV3Quick": "creator_v3",
    "IPluginCreator": "creator_v2",
    "IPluginCreatorInterface": "creator_v3",
}
_ALL_IFACES = set(PLUGIN_IFACES) | set(CREATOR_IFACES)
_PLUGIN_FAMILY_ORDER = ("v3", "v2dynext", "v2iox", "v2ext", "v2")
# methods that make a class that reaches no interface look like a creator (one of the first set and one of
# the second) or a plugin (two of the third): TRT004's "a plugin or creator class that did not resolve"
_CREATOR_MAKERS = frozenset({"createPlugin", "deserializePlugin"})
_CREATOR_OTHERS = frozenset({"getPluginName", "getFieldNames"})
_PLUGIN_METHODS = frozenset({
    "getPluginType", "getPluginName", "getOutputDimensions", "getOutputShapes", "getNbOutputs",
    "supportsFormatCombination", "getSerializationSize", "getFieldsToSerialize", "getCapabilityInterface",
    "getOutputDataType", "getOutputDataTypes", "enqueue",
})
# the plugin interfaces of TensorRT 5-7 (removed in 8.0; trtlint analyses IPluginV2 and later): a class reaching one
# through project bases is a plugin of those releases (UnresolvedClass.legacy_via)
_LEGACY_IFACES = frozenset({"IPlugin", "IPluginExt"})
_BASE_ACCESS = re.compile(r"^(?:(?:public|protected|private|virtual)\s+)*")
_UNNAMED_AT = re.compile(r"^(\((?:lambda|unnamed \w+|anonymous \w+) at )(.+)(:\d+:\d+\))$")


# ONNX Runtime's custom-op base as written in a class head (``Ort::CustomOpBase<Self, Kernel>``, ``::Ort::...``, or
# unqualified after a using-directive): its header is seldom there, so the base is read from the head's text
_ORT_OP_BASE = re.compile(r"(?:^|::)\s*CustomOpBase\s*<")

# the spelling libclang gives a type that did not resolve (`const int *` for `PluginFieldCollection const*`)
_UNRESOLVED_INT = re.compile(r"\bint\b")

class Extractor(MacroUses, Registrations):
    """The declaration walk of one unit (``run``), then its facts in ``classes``, ``functions``, ``registrations``,
    ``includes``, ``lifecycle`` and ``skipped_defs``; the body walks and the helpers read it as a
    :class:`~.base.Unit`."""

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
        self.unresolved_classes: list[UnresolvedClass] = []
        self.ort_ops: list[OrtCustomOp] = []  # ONNX Runtime custom ops (note_ort_op)
        self.functions: list[CppFunction] = []
        self.registrations: list[Registration] = []
        self.lookups: list = []  # CreatorLookup: registry lookups in C++ model code (BodyWalker.join_lookups)
        self.includes: set[str] = set()
        self.macro_insts: list[tuple[str, int, int, str, Cursor]] = []  # (file, start, end, name, cursor)
        self._macro_defs: dict[str, Cursor] = {}  # macro name -> its definition (nested_spellings)
        self.macro_at: dict[tuple[str, int], Cursor] = {}
        self.registrar_vars: dict[str, Cursor] = {}
        # creator lists declared outside functions, by name -> USR -> their elements (registrations.scan_creator_list),
        # and the (list, function) pairs already recorded (registrations.read_creator_list)
        self.pending_lists: dict[str, dict[str, list]] = {}
        self.read_lists: set = set()
        self.register_macros: list[Cursor] = []
        self.class_by_name: dict[str, str] = {}
        self.lifecycle: list = []  # MethodDetail (lifecycle.detail)
        self._assert_out: dict[int, bool] = {}  # the C library's assert definition -> compiled out (NDEBUG)
        self.families: dict[str, str] = {}  # plugin/creator class -> family
        self.stream_params: dict = {}  # callee -> index of its stream parameter (flow)
        self.derive_returns: dict = {}  # helper -> the parameter every return derives from, or None (nonnull)
        # GPU-only bodies handed to libclang blanked (device.py): real path -> opening-brace offsets
        self.blanked: dict[str, frozenset[int]] = {}
        self._blanked_offsets: frozenset[int] = frozenset()
        self.blank_violation = False  # a blanked body belongs to a function libclang does not see as GPU-only
        # project headers another unit of the run walks (SourceFile.skip): their declarations are not visited here
        self.skip = frozenset(src.skip)
        self.skipped_defs: set[tuple[str, str]] = set()  # (header, usr) of definitions seen in skipped headers
        # the per-function memo of the body walk (fnmemo.Active, set by unit._extract) and this walk's slots for the
        # next one (fnmemo.UnitMemo.slots)
        self.memo: Any = None
        self.memo_slots: list[tuple] = []
        # the editor's kept translation unit (kept.py): ``kept`` (a kept.Kept) walks only the unit's own declarations
        # after its preamble, the headers' part preloaded (preload); ``capture`` notes what a later kept walk needs
        self.kept: Any = None
        self.kept_region = 0  # where the unit's leading block ends (a kept walk's)
        self.kept_doubt: Optional[str] = None  # why this kept walk cannot give a fresh parse's facts
        self.capture = False
        self.cap_macros: list[tuple[str, str, int]] = []  # (name, file, offset) of each macro definition
        # defaulted members of header classes: (file, class offset) -> [(member offset, defined)]
        self.cap_defaults: dict[tuple[str, int], list[tuple[int, bool]]] = {}
        self.cap_unkeepable = False  # a header made state the unit's walk reads after it (registrar, list, macro)

    def doubt(self, why: str) -> None:
        if self.kept_doubt is None:
            self.kept_doubt = why

    def preload(self, k: Any, tu: Any, r: int) -> None:
        """The headers' part of the unit's last complete extraction (kept.Kept), before a kept walk."""
        from .kept import LazyMacros

        ff, n = k.ff, k.counts
        self.classes = list(ff.classes[:n["classes"]])
        for c in self.classes:
            self.class_by_name.setdefault(c.name, c.qualname)
            self.families[c.qualname] = c.family
        self.functions = list(ff.functions[:n["functions"]])
        self.lifecycle = list(ff.lifecycle[:n["lifecycle"]])
        self.registrations = list(ff.registrations[:n["registrations"]])
        self.lookups = list(ff.lookups[:n["lookups"]])
        self.unresolved_classes = list(ff.unresolved_classes[:n["unresolved_classes"]])
        self.ort_ops = list(ff.ort_ops[:n["ort_ops"]])
        self.skipped_defs = set(ff.skipped_defs)
        self.includes = set(ff.includes)
        self._macro_defs = LazyMacros(self.ci, tu, k, [m for m in k.macros if m[1] != self.main or m[2] < r], self.doubt)
        self.memo_slots = list(k.slots)
        self.kept = k
        self.kept_region = r

    def _note_default(self, ch: Cursor) -> None:
        """A defaulted special member of a header class (clang defines it only in a unit that uses it): noted by its
        class, for the kept walk's check (kept.check_defaults)."""
        K = self.K
        if ch.kind in (K.CONSTRUCTOR, K.DESTRUCTOR, K.CXX_METHOD) and ch.is_default_method():
            f = self.cursor_file(ch)
            cls = ch.semantic_parent
            if f is not None and f != self.main and cls is not None and self.cursor_file(cls) == f:
                self.cap_defaults.setdefault((f, cls.location.offset), []).append(
                    (ch.location.offset, bool(ch.is_definition())))
            elif f is not None and f != self.main:
                self.cap_unkeepable = True  # (a member outside its class's file: not checked, never kept)

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
        libclang.file_location(loc, *self._floc_refs)
        h = fi.value
        if not h:
            return None, ln.value, col.value, off.value
        name = self._file_names.get(h)  # CXFile handles are stable for the TU's lifetime
        if name is None:
            name = self._file_names[h] = self.ci.File(ctypes.cast(h, self.ci.c_object_p)).name
        return name, ln.value, col.value, off.value

    def cursor_file(self, c: Cursor) -> Optional[str]:
        f = c.location.file
        return f.name if f is not None else None

    def extent_info(self, c: Cursor) -> tuple[Optional[str], int, int, int, int, int, int]:
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

    def span_of(self, c: Cursor) -> Optional[Span]:
        f, l1, c1, _o1, l2, c2, _o2 = self.extent_info(c)
        rel = self.rel_of(f)
        if rel is None:
            loc = c.location
            rel = self.rel_of(loc.file.name if loc.file else None)
            if rel is None:
                return None
            return Span(rel, loc.line, loc.column, loc.line, loc.column)
        return Span(rel, l1, c1, l2, c2)

    def loc_span(self, c: Cursor) -> Optional[Span]:
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
                b = safeio.read_bytes(fname, limit=safeio.SOURCE_LIMIT, follow=True)
            except OSError:
                b = b""
            self._file_bytes[fname] = b
        return b

    def text_of(self, c: Cursor) -> str:
        f, _l1, _c1, o1, _l2, _c2, o2 = self.extent_info(c)
        if f is None:
            return ""
        return self.file_bytes(f)[o1:o2].decode("utf-8", "replace")

    # -- names --------------------------------------------------------------------------------------------

    def qualname(self, c: Cursor) -> str:
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
                if name and not (libclang.inline_namespace is not None and libclang.inline_namespace(cur)):
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

    def run(self, tu: Cursor) -> None:
        K = self.K
        kept, capture, main = self.kept is not None, self.capture, self.main
        region = self.kept_region
        for c in children(tu.cursor):
            k = c.kind
            if kept:
                f = self.cursor_file(c)
                if f != main or c.location.offset < region:
                    # the preamble's (listed once, after the reparse that builds it; a fresh parse lists them all)
                    continue
                if k == K.INCLUSION_DIRECTIVE:
                    self.doubt("an #include after the preamble")
                    continue
            elif capture:
                if k == K.MACRO_DEFINITION:
                    f = self.cursor_file(c)
                    if f is not None:
                        self.cap_macros.append((c.spelling, f, c.location.offset))
                # a header's cursor that made state the unit's walk reads later (its file looked up only then)
                before = (len(self.registrar_vars), len(self.pending_lists), len(self.register_macros))
                self._run_one(c, k)
                if (len(self.registrar_vars), len(self.pending_lists), len(self.register_macros)) != before \
                        and self.cursor_file(c) != main:
                    self.cap_unkeepable = True
                continue
            self._run_one(c, k)
        self.macro_insts.sort(key=lambda t: (t[0], t[1]))
        self.attach_macros()
        self.finish_registrations()

    def _run_one(self, c: Cursor, k: Any) -> None:
        """One top-level cursor of the unit."""
        K = self.K
        if k == K.MACRO_DEFINITION:
            self._macro_defs[c.spelling] = c  # (the last definition of a name: nested macros' bodies)
            return
        if k == K.INCLUSION_DIRECTIVE:
            if self.rel_of(self.cursor_file(c)) is None:
                return
            try:
                inc = c.get_included_file()
            except Exception:  # noqa: BLE001
                inc = None
            if inc is not None:
                rel = self.rel_of(inc.name)
                if rel is not None and rel != self.src.rel:
                    self.includes.add(rel)
            return
        if k == K.MACRO_INSTANTIATION:
            if c.location.is_in_system_header:
                return
            f = self.cursor_file(c)
            rel = self.rel_of(f)
            if rel is None or rel in self.skip:
                return
            ext = c.extent
            o1, o2 = ext.start.offset, ext.end.offset
            self.macro_insts.append((f, o1, o2, c.spelling, c))
            self.macro_at.setdefault((f, o1), c)
            if c.spelling == "REGISTER_TENSORRT_PLUGIN" or _PROJECT_REGISTER.match(c.spelling):
                self.register_macros.append(c)
            return
        if k == K.MACRO_DEFINITION:
            return
        loc = c.location
        if loc.is_in_system_header:
            return
        rel = self.rel_of(self.cursor_file(c))
        if rel is None:
            return
        if rel in self.skip and k not in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
            self.visit_skipped(c)
            return
        self.visit_decl(c)

    def visit_decl(self, c: Cursor) -> None:
        K = self.K
        k = c.kind
        if k in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
            for ch in children(c):
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

    def visit_skipped(self, c: Cursor, nested: bool = False) -> None:
        """A declaration of a header another unit walks (``SourceFile.skip``): its functions are not walked,
        only noted (``skipped_defs``: the engine checks the walking unit has them). A defaulted special member
        is a definition only in a unit that uses it (clang defines it there), so it is taken here."""
        K = self.K
        k = c.kind
        # the same declarations visit_decl and visit_class reach
        if k in (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE) or (
                k == K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION and not nested):
            if c.is_definition():
                for ch in children(c):
                    self.visit_skipped(ch, nested=True)
        elif k in (K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.CONVERSION_FUNCTION,
                   K.FUNCTION_TEMPLATE):
            if self.capture:
                self._note_default(c)
            if not c.is_definition():
                return
            if k in (K.CONSTRUCTOR, K.DESTRUCTOR, K.CXX_METHOD) and c.is_default_method():
                self.visit_function(c)
                return
            rel = self.rel_of(self.extent_info(c)[0])
            if rel is not None:
                self.skipped_defs.add((rel, c.get_usr() or ""))

    # -- classes ------------------------------------------------------------------------------------------

    def visit_class(self, c: Cursor) -> None:
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
                    ch.kind == K.CXX_METHOD and ch.is_pure_virtual_method() for ch in children(c)
                )
                span = self.loc_span(c) or Span(self.src.rel, 1)
                q = self.qualname(c)
                self.classes.append(
                    CppClass(qualname=q, name=c.spelling, kind=kind, family=family, bases=bases, span=span,
                             abstract=abstract)
                )
                self.class_by_name.setdefault(c.spelling, q)
                self.families[q] = family
        else:
            self.note_unresolved(c)
            self.note_ort_op(c)
        capture = self.capture
        for ch in children(c):
            kk = ch.kind
            if kk in (K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.CONVERSION_FUNCTION, K.FUNCTION_TEMPLATE,
                      K.FUNCTION_DECL):
                if capture:
                    self._note_default(ch)
                if ch.is_definition():
                    self.visit_function(ch)
            elif kk in (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE):
                if ch.is_definition():
                    self.visit_class(ch)
            elif kk == K.VAR_DECL:
                self.scan_creator_list(ch, None)

    def note_unresolved(self, c: Cursor) -> None:
        """A class that reaches no TensorRT interface but declares a creator's or a plugin's methods: its
        bases did not resolve (a header not found drops them). Noted with its bases as written."""
        K = self.K
        names = {ch.spelling for ch in children(c) if ch.kind in (K.CXX_METHOD, K.FUNCTION_TEMPLATE)}
        if names & _CREATOR_MAKERS and names & _CREATOR_OTHERS:
            kind = "creator"
        elif len(names & _PLUGIN_METHODS) >= 2:
            kind = "plugin"
        else:
            return
        if any(ch.kind == K.CXX_METHOD and ch.is_pure_virtual_method() for ch in children(c)):
            return  # an abstract class: a base, whatever its own bases are
        span = self.loc_span(c)
        if span is None or self.rel_of(self.cursor_file(c)) is None:
            return
        bases = self.written_bases(c)
        params = {ch.spelling for ch in children(c) if ch.kind == K.TEMPLATE_TYPE_PARAMETER}
        if params.intersection(bases):
            return  # ``template <class T> class X : public T``: the interface is the instantiation's
        via, at = self.legacy_chain(c)
        self.unresolved_classes.append(UnresolvedClass(qualname=self.qualname(c), name=c.spelling, kind=kind,
                                                       bases=tuple(bases), span=span, legacy_via=via,
                                                       legacy_span=at))

    def note_ort_op(self, c: Cursor) -> None:
        """An ONNX Runtime custom op (a class deriving ``Ort::CustomOpBase<...>`` as written, with a ``GetName()``
        returning a string constant: the op type it implements): noted in ``ort_ops``, its op is another runtime's."""
        K = self.K
        decl = next((ch for ch in children(c) if ch.kind == K.CXX_METHOD and ch.spelling == "GetName"), None)
        if decl is None or not any(_ORT_OP_BASE.search(b) for b in self.written_bases(c)):
            return
        defn = decl if decl.is_definition() else decl.get_definition()
        span = self.loc_span(c)
        if defn is None or span is None or self.rel_of(self.cursor_file(c)) is None:
            return
        for node in preorder(defn):
            if node.kind != K.RETURN_STMT:
                continue
            kids = children(node)
            r = self.resolve_str(kids[0]) if kids else None
            at = self.span_of(kids[0]) if kids else None
            if r is not None and r[0] and at is not None:
                self.ort_ops.append(OrtCustomOp(qualname=self.qualname(c), name=c.spelling, op_name=r[0], span=span,
                                                name_span=r[2] or at))
            return  # the first return names the op

    def written_bases(self, c: Cursor) -> list[str]:
        """A class's bases as written in its head (a base whose declaration was not found is in no
        CXX_BASE_SPECIFIER: libclang drops it), access and ``virtual`` left out."""
        head = self.text_of(c).split("{", 1)[0]
        bases: list[str] = []
        m = re.search(r"\b" + re.escape(c.spelling or "") + r"\b(?:\s+final)?\s*:(?!:)(.*)$", head, re.S)
        if m:
            for part in split_top_level(m.group(1), ","):
                b = _BASE_ACCESS.sub("", " ".join(part.split())).strip()
                if b:
                    bases.append(b)
        return bases

    def legacy_chain(self, c: Cursor, depth: int = 0,
                     seen: Optional[set] = None) -> tuple[tuple[str, ...], Optional[Span]]:
        """When a base of ``c`` that the project defines derives a plugin interface of TensorRT 5-7 (``IPlugin``,
        ``IPluginExt``: no stand-in declares them, so the base specifier is gone and only the head's text names
        it; real TensorRT 5-7 headers declare them in the SDK's folder), itself or through further project bases: (the project bases by qualified name then the interface as
        written, the span of the head of the class deriving it). ``((), None)`` otherwise, and for ``c``'s own
        direct interface (TRT004 reads that from the bases as written)."""
        K = self.K
        seen = set() if seen is None else seen
        key = c.get_usr() or str(c.hash)
        if key in seen or depth > 16:
            return (), None
        seen.add(key)
        resolved: dict[str, Cursor] = {}  # a base's name -> its definition, for the bases libclang resolved
        for b in children(c):
            if b.kind != K.CXX_BASE_SPECIFIER:
                continue
            try:
                decl = b.type.get_declaration()
            except Exception:  # noqa: BLE001
                decl = None
            if decl is None or decl.kind == K.NO_DECL_FOUND:
                decl = next((ch.referenced for ch in children(b)
                             if ch.kind in (K.TYPE_REF, K.TEMPLATE_REF) and ch.referenced is not None), None)
            if decl is not None and decl.kind == K.TYPE_ALIAS_DECL:
                decl = decl.underlying_typedef_type.get_declaration()
            if decl is None or decl.kind == K.NO_DECL_FOUND:
                continue
            defn = decl.get_definition()
            if defn is None:
                continue
            if defn.kind in (K.CLASS_DECL, K.STRUCT_DECL):
                defn = self._template_of(defn)
            if defn.kind not in (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE,
                                 K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION):
                continue
            name = re.sub(r"<.*$", "", b.type.spelling or b.spelling or "", flags=re.S)
            name = name.replace("class ", "").replace("struct ", "").split("::")[-1].strip()
            resolved.setdefault(name, defn)
            resolved.setdefault(defn.spelling or "", defn)
        for w in self.written_bases(c):
            bare = re.sub(r"<.*$", "", w, flags=re.S).strip()
            last = bare.split("::")[-1].strip()
            defn = resolved.get(last)
            if defn is not None and self.rel_of(self.cursor_file(defn)) is not None \
                    and not self.qualname(defn).startswith("nvinfer1::"):
                # a project class (not TensorRT's own: real TensorRT 5-7 headers declare IPluginExt)
                via, at = self.legacy_chain(defn, depth + 1, seen)
                if via:
                    return (self.qualname(defn), *via), at
                continue
            if depth and last in _LEGACY_IFACES and bare.split("::")[0].strip() in ("nvinfer1", last):
                return (w,), self.loc_span(c)
        return (), None

    def class_ifaces(self, c: Cursor, depth: int = 0) -> tuple[tuple[str, ...], frozenset[str]]:
        """(ordered base names: interfaces + intermediates leading to one, set of interfaces reached)."""
        K = self.K
        key = c.get_usr() or str(c.hash)
        if key in self._iface_cache:
            return self._iface_cache[key]
        self._iface_cache[key] = ((), frozenset())  # cycle guard
        names: list[str] = []
        ifaces: set[str] = set()
        if depth < 16:
            for b in children(c):
                if b.kind != K.CXX_BASE_SPECIFIER:
                    continue
                decl = None
                try:
                    decl = b.type.get_declaration()
                except Exception:  # noqa: BLE001
                    decl = None
                if decl is None or decl.kind == K.NO_DECL_FOUND:
                    for ch in children(b):
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
                    if spelled == "IPluginV3OneBuild" and "v_2_0" in (b.type.spelling or b.spelling or ""):
                        iface = "IPluginV3OneBuildV2"  # TensorRT 10's versioned name of the V2 build interface
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
                if defn.kind in (K.CLASS_DECL, K.STRUCT_DECL):
                    defn = self._template_of(defn)
                if defn.kind in (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE, K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION) \
                        or defn.kind == K.TYPEDEF_DECL:
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

    def _template_of(self, c: Cursor) -> Cursor:
        """The class template an implicit instantiation (``CreatorBase<FooPlugin>``, a base) comes from: libclang
        gives the instantiation no children, so its bases are read from the template. Else ``c``."""
        if "<" not in (c.displayname or "") or any(ch.kind == self.K.CXX_BASE_SPECIFIER for ch in children(c)):
            return c
        try:
            t = self.ci.conf.lib.clang_getSpecializedCursorTemplate(c)
        except Exception:  # noqa: BLE001 - a library without it
            return c
        if t is None or t.kind not in (self.K.CLASS_TEMPLATE, self.K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION):
            return c
        return t

    def _raw_qual(self, c: Cursor) -> str:
        parts = []
        cur = c
        while cur is not None and cur.kind != self.K.TRANSLATION_UNIT:
            parts.append(cur.spelling or "")
            cur = cur.semantic_parent
        return "::".join(reversed(parts))

    # -- functions ----------------------------------------------------------------------------------------

    def visit_function(self, fn: Cursor) -> None:
        K = self.K
        f, l1, c1, o1, l2, c2, o2 = self.extent_info(fn)
        rel = self.rel_of(f)
        if rel is None:
            return
        got = self.memo.reuse(f, o1, o2) if self.memo is not None else None
        if got is not None:  # its facts from the unit's last extraction (fnmemo): not walked again
            self._reused(fn, f, o1, o2, got)
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
        for ch in children(fn):
            ck = ch.kind
            if ck == K.PARM_DECL:
                typ = ch.type.spelling or ""
                # as written too when the type did not resolve (a header missing: libclang spells it `int`)
                if "PluginFieldCollection" in typ or (_UNRESOLVED_INT.search(typ)
                                                      and "PluginFieldCollection" in self.text_of(ch)):
                    fc_params.append(ch)
            elif ck in libclang.cuda_fn_attrs:
                cuda_attrs.add(libclang.cuda_fn_attrs[ck])
        # a __global__ or __device__ (not also __host__) function runs on the GPU: it cannot throw, exit,
        # allocate with the host API or touch a stream, so no rule reads its body; the function is still
        # recorded (a launch resolves to it). Template kernels are often most of a .cu unit's walk.
        gpu = "global" in cuda_attrs or ("device" in cuda_attrs and "host" not in cuda_attrs)
        n_regs, n_lks = len(self.registrations), len(self.lookups)
        # one walk of the body: the lifecycle walk (returns, serialization) rides on it as a hook, as flow does
        lw = lifecycle.plan(self, fn, name, cls)
        w = BodyWalker(self, fn, name, fc_params, hook=None if gpu else lw)
        if not gpu:
            w.walk()
        md = lifecycle.detail(self, fn, name, cls, rel, Span(rel, l1, c1, l2, c2), w, None if gpu else lw)
        if md is not None:
            self.lifecycle.append(md)
        body_start = self._body_start(fn, f, o1, gpu)
        if not gpu:
            self.memo_slots.append((f, o1, o2, body_start, name, fnmemo.called_unnamed(fn, K, name), len(self.functions),
                                    len(self.lifecycle) - 1 if md is not None else -1, n_regs, len(self.registrations),
                                    n_lks, len(self.lookups)))
            fnmemo.STATS["walked"] += 1
        self.functions.append(
            FnBuild(
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

    def _body_start(self, fn: Cursor, f: Optional[str], o1: int, gpu: bool) -> int:
        """Where the function's body (or a constructor's initialiser list) starts; notes a blanked body of a function
        libclang does not see as GPU-only (``blank_violation``)."""
        K = self.K
        for ch in children(fn):
            if ch.kind in (K.COMPOUND_STMT, K.MEMBER_REF, K.CXX_TRY_STMT):
                bf, _a, _b, bo, _d, _e, _g = self.extent_info(ch)
                if bf == f:
                    if not gpu and bo in self._blanked_offsets and bo in self.blanked.get(os.path.realpath(f), ()):
                        self.blank_violation = True
                    return bo
                break
        return o1

    def _reused(self, fn: Cursor, f: str, o1: int, o2: int, got: tuple) -> None:
        """A function whose facts the memo gave (``fnmemo.Active.reuse``: function, lifecycle detail, registrations,
        lookups): recorded as its walk would have, with its slot for the next memo."""
        fact, md, regs, lks = got
        n_regs, n_lks = len(self.registrations), len(self.lookups)
        self.registrations.extend(regs)
        self.lookups.extend(lks)
        if md is not None:
            self.lifecycle.append(md)
        name = fn.spelling or ""
        self.memo_slots.append((f, o1, o2, self._body_start(fn, f, o1, False), name, fnmemo.called_unnamed(fn, self.K, name),
                                len(self.functions), len(self.lifecycle) - 1 if md is not None else -1, n_regs,
                                len(self.registrations), n_lks, len(self.lookups)))
        fnmemo.STATS["reused"] += 1
        self.functions.append(fact)
