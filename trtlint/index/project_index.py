"""ProjectIndex: joins the facts of all files, across files and languages.

Plugins and creators keyed by (name, version, namespace), ONNX emissions, direct-route entries, creator
lookups, CMake globs, and the call graph below each function. Rules read this, never a parser object.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Optional

from trtlint.base.facts import (
    SURGERY_FORMS,
    Call,
    CMakeGlob,
    CppClass,
    CppFunction,
    CreatorLookup,
    DirectRouteCall,
    DirectRouteTable,
    FileFacts,
    OnnxEmission,
    PluginApiUse,
    PluginFieldDecl,
    Registration,
    ResolvedString,
    Span,
)
from trtlint.base import methodcache
from trtlint.config.packs import Packs, Profile
from trtlint.index import creatorfields


_METHODS = methodcache.begin(__file__)  # the dataclasses' methods compiled once (until end())


@dataclass
class ClassInfo:
    """A plugin or creator class with what its methods say."""

    cls: CppClass
    name: Optional[ResolvedString] = None
    version: Optional[ResolvedString] = None
    namespace: Optional[ResolvedString] = None
    fields: tuple[PluginFieldDecl, ...] = ()
    serialized: tuple[PluginFieldDecl, ...] = ()
    registrations: list[Registration] = field(default_factory=list)
    reads: tuple = ()  # FieldRead: field names createPlugin (or what it hands the collection to) reads
    # every name the naming method can return (each return statement, each branch of a conditional), in order;
    # ``name`` is the first
    names: tuple[str, ...] = ()

    @property
    def qualname(self) -> str:
        return self.cls.qualname

    @property
    def plugin_name(self) -> Optional[str]:
        return self.name.value if self.name else None

    @property
    def plugin_version(self) -> Optional[str]:
        return self.version.value if self.version else None

    @property
    def plugin_namespace(self) -> str:
        """The namespace it registers under: a literal if it returns one, else "" (REGISTER_TENSORRT_PLUGIN)."""
        if self.namespace and self.namespace.value is not None:
            return self.namespace.value
        return ""

    @property
    def name_span(self) -> Span:
        if self.name is not None:
            return self.name.def_span or self.name.span
        return self.cls.span


_PY_PLUGIN_FACTS = (
    "converters",
    "py_signatures",
    "unnamed_layers",
    "qdp_defs",
    "torch_op_uses",
    "py_enqueues",
    "py_plugin_fields",
    "trt_api_uses",
    "py_classes",
    "py_reexports",
)


def scope_of(path: str, scopes: Iterable[str]) -> str:
    """The deepest of ``scopes`` (the project's independent programs, CheckInputs.scopes) that holds ``path``;
    "" when none does."""
    best = ""
    for s in scopes:
        if (path == s or path.startswith(s + "/")) and len(s) > len(best):
            best = s
    return best



def scope_fact_sets(facts: Iterable[FileFacts], scopes: tuple,
                    sources: Optional[dict] = None) -> dict[str, tuple[list, list]]:
    """Per scope of ``scopes`` (an independent program of the project) that holds files: (the facts of its files
    plus those of the files in no scope: shared sources, Python, models; the functions defined in another scope's
    headers that the scope's units include, as header facts of their own, and the facts of the units under
    another scope's directory its build compiles, ``sources``: scope -> units). Never another scope's other
    files: two programs that define the same plugin class or function do not collapse into one."""
    by_scope: dict[str, list[FileFacts]] = {s: [] for s in scopes}
    shared: list[FileFacts] = []
    facts = list(facts)
    for ff in facts:
        s = scope_of(ff.path, scopes)
        (by_scope[s] if s else shared).append(ff)
    # a header a program's units include is compiled into that program, wherever it lives (a helper header under
    # the directory of an enclosing program, `-I$(ROOT)/include`): the functions it defines are that program's
    # too. They are kept in the facts of the unit that walked the header (maybe another program's).
    by_path = {ff.path: ff for ff in facts}
    in_header: dict[str, list] = {}
    for ff in facts:
        for fn in ff.functions:
            if fn.span.path != ff.path or ff.kind == "header":
                in_header.setdefault(fn.span.path, []).append(fn)
    out: dict[str, tuple[list, list]] = {}
    for s, own in by_scope.items():
        if not own:
            continue
        seen: set[str] = set()
        extra: list[FileFacts] = []
        for inc in sorted({inc for ff in own for inc in ff.includes}):
            other = scope_of(inc, scopes)
            if inc in seen or not other or other == s or inc not in in_header:
                continue
            seen.add(inc)
            extra.append(FileFacts(path=inc, kind="header", digest="", functions=tuple(dict.fromkeys(in_header[inc]))))
        for rel in (sources or {}).get(s, ()):
            if rel in by_path and rel not in seen and scope_of(rel, scopes) not in ("", s):
                seen.add(rel)
                extra.append(by_path[rel])
        out[s] = (own + shared, extra)
    return out

@dataclass(frozen=True)
class TensorRTTarget:
    """The TensorRT release a program is judged against, and why: ``source`` "configured" (the
    ``tensorrt-version`` setting), "inferred" (``reason`` names the evidence, e.g. "find_package(TensorRT 8.6) in
    CMakeLists.txt:12"; ``others`` the other versions the tree names, by evidence) or "" (none known: ``version``
    is None). Inference: :mod:`trtlint.pipeline.trtversion`."""

    version: Optional[str] = None
    source: str = ""
    reason: str = ""
    others: tuple = ()  # ("7.2 (TensorRT-7.2.3.4 in a/CMakeLists.txt:3)", ...)
    # the releases older than ``version`` that the build pins too (tier 0 and 1 evidence: requirement pins,
    # find_package, a TensorRT-X.Y build path; never prose), oldest first, as ``others``: the project supports them;
    # and "releases before 10.0 (#if NV_TENSORRT_MAJOR >= 10 in a.h:3)": the older side of the code's own version
    # tests, which it is written to build on too (:func:`supported_release` reads either)
    pinned: tuple = ()

    def why(self) -> str:
        """How the version is known, as messages quote it: "inferred from CMakeLists.txt:12"."""
        if self.source == "configured":
            return "configured"
        return f"inferred from {self.reason.rsplit(' in ', 1)[-1]}" if self.source == "inferred" else "none known"

    def to_dict(self) -> dict:
        return {"version": self.version, "source": self.source, "reason": self.reason, "others": list(self.others),
                **({"pinned": list(self.pinned)} if self.pinned else {})}

    @classmethod
    def from_dict(cls, d: dict) -> "TensorRTTarget":
        return cls(d.get("version"), d.get("source", ""), d.get("reason", ""), tuple(d.get("others", ())),
                   tuple(d.get("pinned", ())))


BEFORE = "releases before "  # a ``pinned`` entry for the older side of a version test


def supported_release(entry: str) -> str:
    """The release a ``TensorRTTarget.pinned`` entry stands for, as a version: "8.6 (...)" is 8.6; "releases before
    10.0 (...)" the newest release before 10.0 (9.99: every release before it lacks what 10.0 added), "releases
    before 8.5 (...)" 8.4."""
    if not entry.startswith(BEFORE):
        return entry.split(" ", 1)[0]
    v = entry[len(BEFORE):].split(" ", 1)[0]
    major, _, minor = v.partition(".")
    try:
        ma, mi = int(major), int(minor or 0)
    except ValueError:
        return v
    return f"{ma}.{mi - 1}" if mi else f"{ma - 1}.99"


@dataclass(frozen=True)
class CheckInputs:
    """What the index is handed besides the facts, the same way by every caller (the run, the LSP session):
    read by the rules, never set on an index after it is built (:func:`trtlint.pipeline.check.check_project`)."""

    suppressions: dict = field(default_factory=dict)  # path -> [Suppression] (inline comments)
    config_selectors: tuple = ()  # (selector, Span) named in the config file (TRT003)
    config_globs: dict = field(default_factory=dict)  # per-file-ignores glob -> Span in the config file (TRT002)
    # path -> ((feature, line, col, end_col), ...) of every preview-feature switch in the file
    # (scancache.preview_switches); None, or a path missing: the index reads the file itself
    preview_scan: Optional[dict] = None
    # pattern set -> {path: matched}, kept in .trtlint_cache (globs.json) and filled by the rules; None: no memo
    glob_memos: Optional[dict] = None
    # the directories (relative to the root) of the independent programs in the project (the build model's
    # scopes: CMake projects no other project adds); empty when the project is one program. Each is checked
    # with its own index (pipeline.check.check_project)
    scopes: tuple = ()
    # scope -> the units its build files compile that lie under another program's directory (a helper a Makefile's
    # rule compiles from an enclosing program's folder): part of the scope's own index too (scope_fact_sets)
    scope_sources: dict = field(default_factory=dict)
    # scope ("" the project, or one of ``scopes``) -> the TensorRT release inferred from the tree for it
    # (pipeline.trtversion.infer); a scope missing: none was found. The tensorrt-version setting wins over it
    tensorrt: dict = field(default_factory=dict)
    # the project headers no C++/CUDA unit includes, with the build known (pipeline.unincluded): the findings
    # about code defined only there are set aside after the filter (pipeline.check.check_project)
    unincluded: tuple = ()
    # the programs whose Makefile make cannot run, with the files only they compile (pipeline.unincluded.
    # unrunnable_programs): ((makefile, line, include as written, files), ...); their findings are set aside too
    unrunnable: tuple = ()
    # the code only a build option the project marks experimental or deprecated builds (pipeline.unincluded.
    # optional_builds): ((option, value it needs, where, why marked, files), ...); their findings are set aside too
    optional: tuple = ()
    # path -> ((kind, line, text), ...): the files' evidence that their program parses models ("parser") or loads
    # a plugin library at run time ("loader") (store.scancache.model_io); only files with some
    model_io: dict = field(default_factory=dict)
    # the units the tree's own executables hold, sorted (pipeline.buildmodel.executable_units)
    executable_units: tuple = ()


@dataclass
class ProjectIndex:
    root: Path
    profile: Profile
    packs: Packs
    files: dict[str, FileFacts] = field(default_factory=dict)
    classes: dict[str, CppClass] = field(default_factory=dict)
    functions: dict[str, CppFunction] = field(default_factory=dict)
    functions_by_qualname: dict[str, list[CppFunction]] = field(default_factory=lambda: defaultdict(list))
    methods: dict[str, list[CppFunction]] = field(default_factory=lambda: defaultdict(list))
    creators: list[ClassInfo] = field(default_factory=list)
    plugins: list[ClassInfo] = field(default_factory=list)
    scopes: tuple = ()  # the independent programs of the project (CheckInputs.scopes)
    registrations: list[Registration] = field(default_factory=list)
    # creator lists that nothing registers nor exports (:mod:`.creatorlists`): not in ``registrations``
    unregistered_lists: list[Registration] = field(default_factory=list)
    emissions: list[OnnxEmission] = field(default_factory=list)
    route_tables: list[DirectRouteTable] = field(default_factory=list)
    route_calls: list[DirectRouteCall] = field(default_factory=list)
    lookups: list[CreatorLookup] = field(default_factory=list)
    # Python calls handing a function a PluginField collection that no helper of the project completes:
    # (path, line, function, why) (:mod:`.paramhelpers`), named by the run's summary
    unfollowed_helper_calls: list = field(default_factory=list)
    api_uses: list[PluginApiUse] = field(default_factory=list)
    py_creators: list = field(default_factory=list)
    globs: list[CMakeGlob] = field(default_factory=list)
    settings: object = None  # trtlint.config.settings.Settings
    suppressions: dict = field(default_factory=dict)  # path -> [Suppression] (inline comments)
    config_selectors: list = field(default_factory=list)  # (selector, Span) named in the config file
    models: list = field(default_factory=list)  # OnnxModel: ONNX model files
    plugin_specs: list = field(default_factory=list)  # PluginSpec: TensorRT OSS *_PluginConfig.yaml
    ort_ops: list = field(default_factory=list)  # OrtCustomOp: the ONNX Runtime custom ops the project defines
    # Python converters, plugin generation, Python plugins and QDP (frontends/python/torchtrt.py)
    converters: list = field(default_factory=list)
    py_signatures: list = field(default_factory=list)
    unnamed_layers: list = field(default_factory=list)
    qdp_defs: list = field(default_factory=list)
    torch_op_uses: list = field(default_factory=list)
    py_enqueues: list = field(default_factory=list)
    py_plugin_fields: list = field(default_factory=list)
    trt_api_uses: list = field(default_factory=list)
    py_classes: list = field(default_factory=list)  # PyClassDecl: project classes declaring a pack API name (TRT610)
    py_reexports: list = field(default_factory=list)  # PyReexport: a package's names imported from its modules (TRT610)
    # what the filter used to hide findings (in the copy of the index the rules with after_filter are given, see
    # with_suppression_use): ("inline", path, line, start, code-or-*) and ("pfi", glob, selector)
    suppression_use: set = field(default_factory=set)
    config_globs: dict = field(default_factory=dict)  # per-file-ignores glob -> Span in the config file
    lifecycle: dict = field(default_factory=dict)  # usr -> MethodDetail (plugin method bodies, frontends/cpp/lifecycle.py)
    lifecycle_by_cls: dict = field(default_factory=lambda: defaultdict(list))  # class qualname -> [MethodDetail]
    preview_gates: list = field(default_factory=list)  # (feature, Span): builder preview features turned on
    preview_scan: Optional[dict] = None  # CheckInputs.preview_scan
    glob_memos: Optional[dict] = None  # CheckInputs.glob_memos
    tensorrt_targets: dict = field(default_factory=dict)  # CheckInputs.tensorrt (every scope's)
    tensorrt_inferred: Optional[TensorRTTarget] = None  # this index's scope's, from tensorrt_targets
    tensorrt_scope: str = ""  # this index's scope (the program it is of; "" the project)
    model_io: dict = field(default_factory=dict)  # CheckInputs.model_io
    executable_units: frozenset = frozenset()  # CheckInputs.executable_units

    # ------------------------------------------------------------------------------------------------
    @classmethod
    def build(cls, root: Path, profile: Profile, packs: Packs, facts: Iterable[FileFacts], settings=None,
              inputs: Optional[CheckInputs] = None, scope: str = "", helpers: Iterable = ()) -> "ProjectIndex":
        """``scope``: the program (one of ``inputs.scopes``) the facts are of, "" for the whole project. ``helpers``:
        the Python plugin helpers' lookups of the whole project (``CreatorLookup.dict_param``/``param_helper``), for a
        program's calls of a helper outside it (:mod:`.dicthelpers`, :mod:`.paramhelpers`)."""
        idx = cls(root=root, profile=profile, packs=packs, settings=settings)
        if inputs is not None:
            idx.suppressions = inputs.suppressions
            idx.config_selectors = list(inputs.config_selectors)
            idx.config_globs = inputs.config_globs
            idx.preview_scan = inputs.preview_scan
            idx.glob_memos = inputs.glob_memos
            idx.scopes = tuple(inputs.scopes)
            idx.tensorrt_targets = dict(inputs.tensorrt)
            idx.tensorrt_inferred = inputs.tensorrt.get(scope)
            idx.tensorrt_scope = scope
            idx.model_io = inputs.model_io
            idx.executable_units = frozenset(inputs.executable_units)
        for ff in facts:
            idx.files[ff.path] = ff
            for c in ff.classes:
                idx.classes.setdefault(c.qualname, c)
            for fn in ff.functions:
                if fn.usr in idx.functions:
                    continue
                idx.functions[fn.usr] = fn
                idx.functions_by_qualname[fn.qualname].append(fn)
                if fn.cls:
                    idx.methods[fn.cls].append(fn)
            idx.registrations.extend(ff.registrations)
            idx.emissions.extend(ff.emissions)
            idx.route_tables.extend(ff.route_tables)
            idx.route_calls.extend(ff.route_calls)
            idx.lookups.extend(ff.lookups)
            idx.api_uses.extend(ff.api_uses)
            idx.py_creators.extend(getattr(ff, "py_creators", ()))
            idx.globs.extend(ff.globs)
            idx.models.extend(getattr(ff, "models", ()))
            idx.plugin_specs.extend(getattr(ff, "plugin_specs", ()))
            idx.ort_ops.extend(getattr(ff, "ort_ops", ()))
            for name in _PY_PLUGIN_FACTS:
                getattr(idx, name).extend(getattr(ff, name, ()))
            for md in getattr(ff, "lifecycle", ()):
                if md.usr and md.usr not in idx.lifecycle:
                    idx.lifecycle[md.usr] = md
                    if md.cls:
                        idx.lifecycle_by_cls[md.cls].append(md)
        if any(lk.dict_arg is not None for lk in idx.lookups):
            from .dicthelpers import join

            idx.lookups = join(idx.lookups, helpers)  # Python helpers of one module completed at their callers in others
        if any(lk.helper_call is not None for lk in idx.lookups):
            from .paramhelpers import join as join_params

            # helpers handed a plugin's name and fields as parameters, completed at their callers (or named)
            idx.lookups, idx.unfollowed_helper_calls = join_params(idx.lookups, helpers)
        from .creatorlists import split

        idx.registrations, idx.unregistered_lists = split(idx.registrations, idx.functions)
        idx._join_classes()
        return idx

    def with_suppression_use(self, used: set) -> "ProjectIndex":
        """A shallow copy of this index that also says what the filter used to hide findings (for the rules
        that judge the filter, ``Rule.after_filter``); this index is left as it was."""
        import copy

        out = copy.copy(self)
        out.suppression_use = set(used)
        return out

    def _join_classes(self) -> None:
        regs_by_class: dict[str, list[Registration]] = defaultdict(list)
        for r in self.registrations:
            key = r.qualname or self._resolve_class_name(r.creator)
            if key:
                regs_by_class[key].append(r)
        # a project base class of other plugin/creator classes (e.g. TensorRT OSS BaseCreator) is not itself
        # a plugin or creator unless it names one
        bases_of_others = {q for other in self.classes.values() for b in other.bases for q in [self._resolve_class_name(b)] if q}
        with_reads = [fn for fn in self.functions.values() if fn.field_reads]  # same order as self.functions
        reads_at: dict[str, list[int]] = defaultdict(list)  # path -> positions in with_reads
        for i, fn in enumerate(with_reads):
            reads_at[fn.span.path].append(i)
        for qn, c in sorted(self.classes.items()):
            if c.abstract:
                continue
            if qn in bases_of_others and self._first_return(qn, "getPluginName") is None and self._first_return(qn, "getPluginType") is None:
                continue
            info = ClassInfo(cls=c)
            info.name = self._first_return(qn, "getPluginName") or self._first_return(qn, "getPluginType")
            info.names = self._all_returns(qn, "getPluginName") or self._all_returns(qn, "getPluginType")
            info.version = self._first_return(qn, "getPluginVersion")
            info.namespace = self._first_return(qn, "getPluginNamespace")
            if info.name is not None and info.name.value is None and info.name.member:
                info.name = self._member_string(qn, info.name)
                info.names = (info.name.value,) if info.name.value is not None else info.names
            if info.version is not None and info.version.value is None and info.version.member:
                info.version = self._member_string(qn, info.version)
            if c.kind == "creator":
                info.fields = _dedupe_fields(creatorfields.declared_fields(self, qn))
                info.registrations = regs_by_class.get(qn, [])
                # reads: in the files that define the creator's methods (createPlugin, and the plugin
                # constructor it hands the field collection to)
                paths = {fn.span.path for fn in self.class_methods(qn)}
                at = sorted(i for p in paths for i in reads_at.get(p, ()))  # in with_reads order, as before
                info.reads = tuple(r for i in at for r in with_reads[i].field_reads)
                self.creators.append(info)
            else:
                ser: list[PluginFieldDecl] = []
                for fn in self.class_methods(qn):
                    if fn.name == "getFieldsToSerialize":
                        ser.extend(fn.field_decls)
                info.serialized = _dedupe_fields(ser)
                self.plugins.append(info)
        for pc in self.py_creators:
            cls = CppClass(
                qualname=f"{pc.span.path}::{pc.cls}",
                name=pc.cls,
                kind="creator",
                family="python" if pc.how == "class" else "qdp",
                bases=(),
                span=pc.span,
            )
            info = ClassInfo(
                cls=cls,
                name=ResolvedString(pc.name, pc.span),
                version=ResolvedString(pc.version, pc.version_span or pc.span) if pc.version is not None else None,
                namespace=ResolvedString(pc.namespace, pc.span) if pc.namespace is not None else None,
                fields=pc.fields,
            )
            self.creators.append(info)

    def _resolve_class_name(self, written: str) -> Optional[str]:
        # memoised per index (classes do not change after build): with hundreds of plugins the linear suffix
        # search per base-class lookup made every rebuild quadratic (the LSP rebuilds the index per edit)
        memo = self.__dict__.setdefault("_resolve_memo", {})
        if written in memo and memo.get("\0n") == len(self.classes):
            return memo[written]
        if memo.get("\0n") != len(self.classes):
            memo.clear()
            memo["\0n"] = len(self.classes)
        w = written.strip().lstrip(":")
        if w in self.classes:
            out: Optional[str] = w
        else:
            # a class that is ``w`` or ends in ``::w`` has w's last name component as its own: look only at
            # those (a linear search per name was quadratic with thousands of classes)
            by_last = memo.get("\0last")
            if by_last is None:
                by_last = memo["\0last"] = {}
                for q in self.classes:
                    by_last.setdefault(q.rsplit("::", 1)[-1], []).append(q)
            cands = [q for q in by_last.get(w.rsplit("::", 1)[-1], ()) if q == w or q.endswith("::" + w)]
            out = cands[0] if len(cands) == 1 else None
        memo[written] = out
        return out

    # ------------------------------------------------------------------------------------------------
    def ancestors(self, qualname: str) -> list[str]:
        """The class and its project base classes (qualified), nearest first."""
        out = [qualname]
        c = self.classes.get(qualname)
        if c is None:
            return out
        for b in c.bases:
            q = self._resolve_class_name(b)
            if q and q not in out:
                out.append(q)
        return out

    def class_methods(self, qualname: str) -> list[CppFunction]:
        return list(self.methods.get(qualname, ()))

    def find_method(self, qualname: str, name: str) -> list[CppFunction]:
        for q in self.ancestors(qualname):
            found = [f for f in self.methods.get(q, ()) if f.name == name]
            if found:
                return found
        return []

    def forwards_to_python(self, qualname: str) -> bool:
        """A pybind11 trampoline: a method of the class, or of a project class derived from it, calls into Python
        (``get_override``, a ``PYBIND11_OVERRIDE*`` / ``PYBIND11_OVERLOAD*`` macro, directly or through a
        project function that does, as TensorRT's ``utils::getOverride``). Such a class binds its interface for
        Python plugins on purpose: what it implements is what the bindings expose."""
        memo = self.__dict__.setdefault("_py_trampolines", {})
        if "\0" not in memo:
            def to_python(call: Call) -> bool:
                last = call.callee.rsplit("::", 1)[-1]
                return last == "get_override" or last.startswith(("PYBIND11_OVERRIDE", "PYBIND11_OVERLOAD"))

            # project functions that call into Python (a call to one is matched as written: ``utils::getOverride``
            # names ``tensorrt::utils::getOverride``, and a call of a template often has no declaration to resolve)
            forwarders: dict[str, set[str]] = defaultdict(set)  # last name component -> qualnames
            for fn in self.functions.values():
                if fn.cls is None and any(to_python(c) for c in fn.calls):
                    forwarders[fn.qualname.rsplit("::", 1)[-1]].add(fn.qualname)

            def forwards(call: Call) -> bool:
                if to_python(call):
                    return True
                qns = forwarders.get(call.callee.rsplit("::", 1)[-1])
                return bool(qns) and any(q == call.callee or q.endswith("::" + call.callee) for q in qns)

            direct = {q for q, fns in self.methods.items() if any(forwards(c) for fn in fns for c in fn.calls)}
            # and the project classes of the same file they derive from (an empty trampoline base declared for the
            # bindings), not the interfaces of an in-tree TensorRT header
            out = set(direct)
            for q in direct:
                path = self.classes[q].span.path if q in self.classes else None
                out.update(a for a in self.ancestors(q) if a in self.classes and self.classes[a].span.path == path)
            memo["\0"] = out
        return qualname in memo["\0"]

    def method_details(self, qualname: str, name: str) -> list:
        """The lifecycle details (MethodDetail) of a method, from the class or its nearest project base."""
        for q in self.ancestors(qualname):
            found = [m for m in self.lifecycle_by_cls.get(q, ()) if m.name == name]
            if found:
                return found
        return []

    def preview_features(self) -> list:
        """(feature, Span) of every builder preview feature the project turns on: C++
        ``setPreviewFeature(PreviewFeature::kX, true)`` or Python ``set_preview_feature(trt.PreviewFeature.X,
        True)``: the text scan of the project's C++ and Python sources the run (or the editor's session) made
        (``CheckInputs.preview_scan``; most files are never parsed: builder code holds no plugin fact). The
        index reads no file itself: a file the scan does not cover turns on nothing."""
        if self.preview_gates:
            return self.preview_gates
        found: list = []
        for rel, ff in sorted(self.files.items()):
            if ff.kind not in ("cpp", "cuda", "header", "python"):
                continue
            hits = self.preview_scan.get(rel, ()) if self.preview_scan is not None else ()
            for feat, line, col, end_col in hits:
                found.append((feat, Span(rel, line, col, line, end_col)))
        self.preview_gates = found or [("", Span(".", 1))]  # a sentinel: searched, none found
        return self.preview_gates

    def glob_matcher(self, patterns):
        """A matcher (``match_file(path)``) for gitignore-style patterns, or None when there are none; its
        answers are remembered across runs when the engine keeps glob memos (no pattern compiled on a re-run)."""
        from trtlint.base.globs import globspec_memo

        return globspec_memo(patterns, self.glob_memos)

    def tensorrt_target(self, path: Optional[str] = None) -> TensorRTTarget:
        """The TensorRT release the code targets: the ``tensorrt-version`` setting, else the one inferred from the
        tree for the innermost directory holding ``path`` that is a Python package of its own or named for a
        release (a ``"package:<dir>"`` or ``"release:<dir>"`` entry of the inferred targets) and not this index's
        program or above it (the program's own target already accounts for a release folder around it), or this
        index's program, else none (``version`` None)."""
        v = getattr(self.settings, "tensorrt_version", None)
        if v:
            return TensorRTTarget(v, "configured", "tensorrt-version")
        if path is not None:
            best = None
            own = self.tensorrt_scope
            for key, t in self.tensorrt_targets.items():
                d = next((key[len(p):] for p in ("package:", "release:") if key.startswith(p)), None)
                if not d or not path.startswith(d + "/") or (own and (own == d or own.startswith(d + "/"))):
                    continue
                if best is None or len(d) > len(best[0]):
                    best = (d, t)
            if best is not None:
                return best[1]
        return self.tensorrt_inferred or TensorRTTarget()

    def deprecated_mark(self, path: str) -> Optional[str]:
        """The directory or file holding ``path`` whose name marks its code deprecated (``"deprecated:<path>"``
        entries of the inferred targets: :func:`trtlint.pipeline.trtversion.deprecated_marks`), unless the
        ``judge-deprecated-code`` setting asks to judge it or a folder inside the mark names the release its code is
        for (a pin, or a folder named for a release: that release is judged); None otherwise. TRT207 and TRT610 do
        not judge such code against the tree's release; the run's summary names the paths."""
        if getattr(self.settings, "judge_deprecated_code", False):
            return None
        mark = None
        for key in self.tensorrt_targets:
            if key.startswith("deprecated:"):
                d = key[len("deprecated:"):]
                if path == d or path.startswith(d + "/"):
                    mark = d
                    break
        if mark is None:
            from .marked_names import names_marked

            return names_marked(self, path)
        for key, t in self.tensorrt_targets.items():
            d = next((key[len(p):] for p in ("package:", "release:") if key.startswith(p)), None)
            if d and t is not None and t.version and d.startswith(mark + "/") and path.startswith(d + "/"):
                return None  # the code names its release inside the mark: judged against it
        return mark

    def tensorrt_version(self, path: Optional[str] = None) -> str:
        """The TensorRT release to judge against: :meth:`tensorrt_target`, else the rules/ pack's default (the
        newest release; a rule says when it judged against it for want of a known version)."""
        return self.tensorrt_target(path).version or self.packs.trt_default_version

    def _all_returns(self, qualname: str, method: str) -> tuple[str, ...]:
        """Every string the nearest definition of ``method`` returns (resolved ones, in order, each once)."""
        for fn in self.find_method(qualname, method):
            return tuple(dict.fromkeys(r.value for r in fn.returns if r.value is not None))
        return ()

    def field_contract(self, qualname: str) -> tuple[set, dict, dict]:
        """What a creator's ``createPlugin`` says of each field beyond its declaration: (the names it asserts present,
        name -> the default it falls back to, name -> the one length it accepts)."""
        contracts = {c.usr: c for ff in self.files.values() for c in getattr(ff, "fn_contracts", ())}
        required: set = set()
        defaults: dict = {}
        lengths: dict = {}
        for fn in self.find_method(qualname, "createPlugin"):
            fc = contracts.get(fn.usr)
            if fc is None:
                continue
            required.update(fc.required)
            for d in fc.defaults:
                defaults.setdefault(d.field, d.default)
            for name, n in fc.lengths:
                lengths.setdefault(name, n)
        return required, defaults, lengths

    def _member_string(self, qualname: str, got: ResolvedString) -> ResolvedString:
        """A getter returning a data member (``return mPluginName.c_str();``): the string constant the nearest
        constructor of the class or a base class puts in that member (``mPluginName = kNAMES[1];``), else ``got``."""
        for q in self.ancestors(qualname):
            short_name = q.rsplit("::", 1)[-1]
            for fn in self.methods.get(q, ()):
                if fn.name == short_name:
                    hit = next((rs for m, rs in fn.member_strings if m == got.member), None)
                    if hit is not None:
                        return hit
        return got

    def _first_return(self, qualname: str, method: str) -> Optional[ResolvedString]:
        for fn in self.find_method(qualname, method):
            for r in fn.returns:
                return r
        return None

    # ------------------------------------------------------------------------------------------------
    @property
    def has_creators(self) -> bool:
        return any(c.plugin_name for c in self.creators)

    def creators_named(self, name: str) -> list[ClassInfo]:
        # by name, built on first use (rules ask once per route, emission and spec: a scan of every creator
        # each time was quadratic, ~40 s of a 2000-plugin project's check)
        memo = self.__dict__.get("_creators_by_name")
        if memo is None or memo[0] != len(self.creators):
            table: dict = {}
            for c in self.creators:
                table.setdefault(c.plugin_name, []).append(c)
            memo = self.__dict__["_creators_by_name"] = (len(self.creators), table)
        return list(memo[1].get(name, ()))

    def specs_named(self, name: str) -> list:
        """The ``*_PluginConfig.yaml`` specs (one per version) of a plugin name."""
        return [s for s in self.plugin_specs if s.name == name]

    def registered_names(self) -> list[str]:
        return sorted({c.plugin_name for c in self.creators if c.plugin_name})

    def near_miss(self, name: str) -> bool:
        """Whether ``name`` reads as a misspelling of a project creator's name (difflib ratio >= 0.85, or equal
        ignoring case): zero-config, the evidence that an unknown node is meant for the project's plugins."""
        own = sorted({c.plugin_name for c in self.creators if c.plugin_name})
        if not name or not own:
            return False
        return bool(difflib.get_close_matches(name, own, n=1, cutoff=_NEAR_MISS)
                    or name.lower() in {x.lower() for x in own})

    def ort_op(self, name: str):
        """The ONNX Runtime custom op of the project (:class:`~trtlint.base.facts.OrtCustomOp`) whose ``GetName()``
        returns ``name``, or None: a node of that op type is implemented by ONNX Runtime, not by a TensorRT plugin."""
        return next((op for op in self.ort_ops if op.op_name == name), None)

    def unanalysed_creator_names(self) -> frozenset:
        """The names that creator classes trtlint could not analyse (their bases did not resolve: TRT004 names
        them) return from ``getPluginName()``, where that resolves: a route to one of these has a creator in the
        project, only not a checked one."""
        memo = self.__dict__.get("_unanalysed_names")
        if memo is None:
            names = set()
            for ff in self.files.values():
                for uc in getattr(ff, "unresolved_classes", ()):
                    if uc.kind == "creator":
                        names.update(self._all_returns(uc.qualname, "getPluginName"))
            memo = self.__dict__["_unanalysed_names"] = frozenset(names)
        return memo

    def external_near_miss(self, name: str) -> Optional[str]:
        """The creator of a library the rules/ packs list (TensorRT's own plugins) that ``name``, itself none of
        them nor a project creator's, reads as a misspelling of (difflib ratio >= 0.85, or equal ignoring case) or as
        an extension of (the whole name, 6 characters or more, with something appended): zero-config, the evidence that
        a node or lookup is meant for TensorRT's plugin library."""
        ext = self.packs.externals
        if not name or name in ext or self.creators_named(name):
            return None
        # (a pure function of the name and the packs' creators: remembered on the packs, which the editor's session
        # keeps across edits, so the difflib search over the library's ~100 names runs once per name, not per check)
        memo = self.packs.__dict__.setdefault("_trtlint_close_externals", {})
        close = memo.get((name, len(ext)))
        if close is None:
            close = memo[(name, len(ext))] = tuple(difflib.get_close_matches(name, list(ext), n=3, cutoff=_NEAR_MISS))
        for cand in close:
            if cand in name and not name.startswith(cand):
                continue  # the whole name with a prefix: another library's own variant (mmcv's MMCVModulatedDeformConv2d)
            return cand
        low = name.lower()
        for n in sorted(ext, key=len, reverse=True):
            # a name with a suffix added (EfficientNMS_TRT2); not a prefix: MMCVModulatedDeformConv2d is mmcv's own
            if n.lower() == low or (len(n) >= 6 and name.startswith(n)):
                return n
        return None

    def closest_names(self, name: str, n: int = 3) -> list[str]:
        names = self.registered_names()
        close = difflib.get_close_matches(name, names, n=n, cutoff=0.6)
        if not close:
            low = {x.lower(): x for x in names}
            close = [low[m] for m in difflib.get_close_matches(name.lower(), list(low), n=n, cutoff=0.6)]
        return close

    def is_plugin_domain(self, domain: Optional[str]) -> bool:
        """Whether ONNX nodes of ``domain`` are routes to TensorRT plugins. With domains configured
        (``onnx-plugin-domains``, or the profile's): those, and the default domain (the Python frontend keeps only
        non-standard op types there, and the ONNX parser falls back to the plugin registry for an op type it does
        not import). Without (the generic profile): a domain that is not built in and where at least one node,
        emitted or in a model, outside the test files and not registered for another backend, names a creator of
        the project or of TensorRT's plugin library; a multi-backend exporter's other domains (``ncnn``) are not."""
        if domain is None:
            return False
        configured = self.configured_plugin_domains()
        if configured:
            return domain in ("", "ai.onnx") or domain in configured
        if domain not in ("", "ai.onnx") and domain in self.profile.builtin_domains:
            return False
        return _default_domain(domain) in self._resolving_domains()

    def is_model_plugin_domain(self, domain: str) -> bool:
        """For a node of an ONNX model: with domains configured, every domain (the model is read by TensorRT's
        parser); without, ``trt`` (where exporters put TensorRT plugin nodes) and :meth:`is_plugin_domain`'s."""
        return bool(self.configured_plugin_domains()) or domain == "trt" or self.is_plugin_domain(domain)

    def configured_plugin_domains(self) -> tuple:
        """The ONNX plugin domains the config (``onnx-plugin-domains``) or else the profile names; () for none."""
        return tuple(getattr(self.settings, "onnx_plugin_domains", None) or self.profile.onnx_plugin_domains)

    def _resolving_domains(self) -> frozenset:
        """The ONNX domains where a node (emitted outside the test files, not for another backend, or in a model
        outside the test files) names a creator TensorRT can find: the project's or its plugin library's."""
        memo = self.__dict__.get("_resolving")
        if memo is None:
            names = {c.plugin_name for c in self.creators if c.plugin_name} | {s.name for s in self.plugin_specs}

            def known(op: str) -> bool:
                # a near miss of the project's own creator names counts too: a misspelled route in a domain where
                # nothing else resolves is still meant for the project's plugins (else the typo would silence it)
                return (op in names or self.packs.external_creator(op) is not None or self.near_miss(op)
                        or self.external_near_miss(op) is not None)

            doms = {_default_domain(e.domain) for e in self.emissions if e.domain is not None and known(e.op_type)
                    and not other_backend(e) and not is_test_path(e.span.path)}
            doms |= {_default_domain(n.domain) for m in self.models if not is_test_path(m.span.path)
                     for n in m.nodes if known(n.op_type)}
            memo = self.__dict__["_resolving"] = frozenset(doms)
        return memo

    def onnx_routes(self) -> list[OnnxEmission]:
        """The emitted ONNX nodes that are routes to TensorRT plugins: in a plugin domain
        (:meth:`is_plugin_domain`) and not inside a function registered for another backend (:func:`other_backend`)."""
        return [e for e in self.emissions if (self.is_plugin_domain(e.domain) or self.surgery_route(e)) and not other_backend(e)]

    def surgery_route(self, e: OnnxEmission) -> bool:
        """An onnx-graphsurgeon node (``gs.Node``, ``graph.layer``) whose op the ONNX parser does not import (the
        frontend keeps only non-standard ops of the default domain): graph surgery edits a model for TensorRT, so
        such a node can only run as a plugin, whatever its domain's other nodes name."""
        if e.form not in SURGERY_FORMS or e.domain is None:
            return False
        return e.domain in ("", "ai.onnx") or e.domain not in self.profile.builtin_domains

    # ------------------------------------------------------------------------------------------------
    def resolve_call(self, call: Call, caller: Optional[CppFunction] = None) -> Optional[CppFunction]:
        """The project function a call runs: by the callee's USR, else by its name. A name spelled unqualified
        (a call clang left unresolved, `torch_cum<float>(...)` whose declaration names a type of a header the
        unit could not include) is looked up as C++ does, from the caller's namespace outwards (not its class:
        an unresolved `obj->run()` is spelled `run` too, and is no call of the caller's own `run`). Several
        definitions of one name resolve when they are one body (a function template and its explicit
        instantiations: the template is taken), to the template when the others are its explicit specializations
        (the call names none that is known), else when one of them is in the caller's file; overloads with bodies
        of their own do not."""
        if call.usr and call.usr in self.functions:
            return self.functions[call.usr]
        name = call.callee
        scopes = [""]
        if caller is not None and call.usr is None and not name.startswith("::"):
            parts = (caller.cls or caller.qualname).split("::")[:-1]
            scopes = ["::".join(parts[:i]) for i in range(len(parts), -1, -1)]
        for scope in scopes:
            cands = self.functions_by_qualname.get(f"{scope}::{name}" if scope else name.lstrip(":"))
            if cands:
                return _one_body(cands, caller)
        return None

    def walk_calls(self, start: CppFunction, max_depth: Optional[int] = None) -> Iterator[tuple[Call, tuple[CppFunction, ...]]]:
        """Every call reachable from ``start`` through project functions, breadth first, with the chain of
        functions that leads to it (``start`` first). Each function is entered once."""
        depth_limit = max_depth if max_depth is not None else getattr(self.settings, "max_call_depth", 8)
        seen = {start.usr}
        frontier: list[tuple[CppFunction, tuple[CppFunction, ...]]] = [(start, (start,))]
        depth = 0
        while frontier and depth <= depth_limit:
            nxt = []
            for fn, chain in frontier:
                for call in fn.calls:
                    yield call, chain
                    target = self.resolve_call(call, fn)
                    if target is not None and target.usr not in seen:
                        seen.add(target.usr)
                        nxt.append((target, chain + (target,)))
            frontier = nxt
            depth += 1


methodcache.end(_METHODS)


def _one_body(cands: list[CppFunction], caller: Optional[CppFunction]) -> Optional[CppFunction]:
    """:meth:`ProjectIndex.resolve_call`'s choice among the definitions of one qualified name."""
    if len(cands) == 1:
        return cands[0]
    # a function template and its explicit instantiations (`template void f<float>(...);`) are recorded with the
    # template's own body: one file, one end of the body
    ends = {(f.span.path, f.span.end_line, f.span.end_col) for f in cands}
    if len(ends) == 1:
        return next((f for f in cands if "@FT@" in f.usr), cands[0])
    # a function template and explicit specializations of it with bodies of their own (`template <> void
    # f<__half2>(...) { ... }`): a call that names no specialization (its template arguments are not known here)
    # runs the template's body for every other type
    templates = [f for f in cands if "@FT@" in f.usr]
    if len(templates) == 1 and all(f is templates[0] or f"@F@{f.name}<" in f.usr for f in cands):
        return templates[0]
    if caller is not None:
        here = [f for f in cands if f.span.path == caller.span.path]
        if len(here) == 1:
            return here[0]
    return None


_NEAR_MISS = 0.85  # difflib ratio at which an op name is read as a misspelling of a creator name (FooPlugn: 0.94)


def _default_domain(domain: str) -> str:
    return "" if domain == "ai.onnx" else domain


#: the values of a registration decorator's ``backend=`` argument that include TensorRT ("default": every backend)
TENSORRT_BACKENDS = ("tensorrt", "default", "")


def other_backend(e: OnnxEmission) -> bool:
    """An emission inside a function registered for another backend than TensorRT (a decorator's ``backend=``
    argument, e.g. ``@SYMBOLIC_REWRITER.register_symbolic('gelu', backend='ncnn')``): a node for that backend's
    runtime, not a route to a TensorRT plugin."""
    b = getattr(e, "backend", None)
    return b is not None and b.lower() not in TENSORRT_BACKENDS


_TEST_DIRS = ("tests", "test")


def is_test_path(path: str) -> bool:
    """A test file: under a directory named ``tests`` or ``test``, or a ``test_*.py``, ``*_test.py`` or
    ``conftest.py``. Only the rules meant for tests judge them (``Rule.applies_to_tests``)."""
    parts = path.split("/")
    name = parts[-1]
    if any(p in _TEST_DIRS for p in parts[:-1]):
        return True
    return name == "conftest.py" or (name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")))


def _dedupe_fields(decls: Iterable[PluginFieldDecl]) -> tuple[PluginFieldDecl, ...]:
    seen = {}
    for d in decls:
        seen.setdefault(d.name, d)
    return tuple(seen.values())
