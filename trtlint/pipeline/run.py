"""The run: discover -> build model -> extract (per file; cached; parallel) -> index -> check -> filter, as named phases over
one :class:`_RunState`. The CLI, the pre-commit hook and the LSP session are thin shells over :func:`run`.

Phases, in order: :func:`_discover` (files, with the stat and glob memos of the last run), :func:`_from_memo`
(a warm run with unchanged inputs takes its findings from the run memo), :func:`_model` (the build model, the
project state), :func:`_extract` (one worker pool for
the whole extraction: the non-C++ files first, the C++ units with a plugin marker with the shared-header plan,
lone headers, then the lazy call-graph expansion), :func:`_check` (:func:`trtlint.pipeline.check.check_project`)
and :func:`_store` (what the next run reuses).
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from trtlint.base import envvars
from trtlint.base.diagnostics import Diagnostic
from trtlint.base.span import FACTS_SCHEMA_VERSION
from trtlint.config.packs import Packs, Profile, detect_profile, load_packs, shipped_profiles
from trtlint.config.settings import Settings
from trtlint.index.discover import DIGEST_NAME, Discovery, discover
from trtlint.store.cache import CACHE_DIR, FactCache, context_key, load_json_dict, load_stats, save_glob_memos, write_json
from trtlint.store.scancache import CPP_KINDS, TextScans, feature_macros
from ..frontends import ExtractContext, SourceFile
from .extract import frontend_versions, make_context
from .extraction import ExtractLimits

if TYPE_CHECKING:  # pragma: no cover
    from trtlint.base.facts import FileFacts
    from trtlint.index.project_index import ProjectIndex
    from trtlint.pipeline.state import ProjectState
    from ..checks.base import Rule
    from .buildmodel import BuildModel

# A warm run the run memo answers imports none of what builds the project model, extracts, indexes and checks
# (the build model's readers, the fact vocabulary, the index, the rule modules): :func:`_model`, :func:`_extract` and
# :func:`_check` import them (tests/test_warm_imports.py)

@dataclass
class RunResult:
    """What a run produced: the findings, and what the shells (CLI, editor, confirm, coverage) read besides."""

    diagnostics: list[Diagnostic]
    index: ProjectIndex
    files_checked: int
    elapsed: float
    rules: Optional[list[type[Rule]]]  # None from the run memo (the codes are in rule_codes; rules_of() gives them)
    discovery: Discovery
    profile: Profile
    timings: dict[str, float] = field(default_factory=dict)
    files_parsed: int = 0
    parsed_kinds: dict[str, int] = field(default_factory=dict)
    ctx: Optional[ExtractContext] = None  # the extraction context used (the LSP session re-extracts with it)
    # C++ units -> the project headers they left to another unit to walk (SourceFile.skip; only units with some)
    skips: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # what the run analysed (report.context.Analysis.to_dict: plugins, creators, targets, partly analysed units);
    # kept in the run memo with the findings
    analysis: Optional[dict] = None
    build: Optional[BuildModel] = None  # targets, per-unit flags, scopes (the LSP session gives buffers their flags)
    # the project state the index was built from (the LSP session keeps it and updates it); None from the run memo
    state: Optional[ProjectState] = None
    rule_codes: tuple[str, ...] = ()  # the codes of the rules that ran (in the order of ``rules``)


@dataclass
class _RunState:
    """What the phases of one run hand each other."""

    settings: Settings
    paths: Optional[list[Path]]
    report_only: Optional[set[str]]
    jobs: int
    use_cache: bool
    progress: Any
    limits: ExtractLimits
    t0: float
    root: Path = None  # type: ignore[assignment]
    packs: Packs = None  # type: ignore[assignment]
    profile: Profile = None  # type: ignore[assignment]
    stats_file: Path = None  # type: ignore[assignment]
    glob_memos: Optional[dict] = None
    glob_before: int = 0
    disc: Discovery = None  # type: ignore[assignment]
    ctx: ExtractContext = None  # type: ignore[assignment]
    scans_dir: Optional[Path] = None
    scans: TextScans = None  # type: ignore[assignment]
    timings: dict = field(default_factory=dict)
    memo_key: Optional[str] = None
    facts: list[FileFacts] = field(default_factory=list)
    gtests: dict = field(default_factory=dict)
    skips: dict = field(default_factory=dict)
    parsed: int = 0
    parsed_kinds: dict = field(default_factory=dict)
    rules: list = field(default_factory=list)
    index: Optional[ProjectIndex] = None
    diagnostics: list = field(default_factory=list)
    analysis: Optional[dict] = None
    build: Optional[BuildModel] = None
    project: ProjectState = None  # type: ignore[assignment] - what the index is built from (set by _discover)
    # the files whose content differs from the last run's (by the digests in stats.json); None: no last run known
    changed: Optional[frozenset] = None
    cache: Optional[FactCache] = None  # the fact cache of the extraction (where each file's facts came from)
    # the extraction, when started before the build model (:func:`_start_early`: a C++ edit since the last run)
    extraction: Any = None
    done: list = field(default_factory=lambda: [0, 0])  # files parsed, files planned (the extraction's progress)
    lazy_rules: bool = False  # the rules are RuleStubs (a restored rule memo): RunResult.rules is None
    inputs_scanned: bool = False  # the check's inputs that need no fact are made (_fact_free_inputs)
    reach: Any = None  # what the units' #include lines reach (pipeline.unincluded.Reach; the facts are added after)
    memo_extras: Optional[tuple] = None  # the run memo's TensorRT evidence directories and their key (_store)
    # the rule memo's stable key, the stored memo and the last facts of the changed files (_preload_rule_memo)
    rule_memo_pre: Optional[tuple] = None


def run(*args, **kwargs) -> RunResult:
    """Run the pipeline (see :func:`_run`) with the cyclic garbage collector paused: a run allocates hundreds
    of thousands of long-lived fact objects and few cycles, and the collector's repeated passes over them
    cost about half of loading the cached facts. It is switched back on (if it was on) when the run ends."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        return _run(*args, **kwargs)
    finally:
        if enabled:
            gc.enable()


def _run(
    settings: Settings,
    paths: Optional[list[Path]] = None,
    *,
    report_only: Optional[set[str]] = None,
    jobs: Optional[int] = None,
    use_cache: bool = True,
    progress=None,
    memo: bool = False,
    mp_context=None,
) -> RunResult:
    """``progress``, when given, is told what the run is doing: ``progress(phase, done, total)`` with phase
    ``discover``, ``extract`` (files parsed so far, of those not in the cache), ``index`` or ``check``.
    ``mp_context``: the multiprocessing context of the extraction pool (None: the platform default)."""
    st = _RunState(
        settings=settings, paths=paths, report_only=report_only,
        jobs=jobs if jobs is not None else (os.cpu_count() or 1), use_cache=use_cache, progress=progress,
        limits=ExtractLimits.of(settings, mp_context), t0=time.perf_counter(),
    )
    _discover(st)
    hit = _from_memo(st) if memo else None
    if hit is not None:
        return hit
    _start_early(st)
    try:
        _model(st)
    except BaseException:
        if st.extraction is not None:
            st.extraction.close()
        raise
    _extract(st)
    _check(st)
    _store(st)
    return RunResult(
        diagnostics=st.diagnostics,
        index=st.index,  # type: ignore[arg-type]
        files_checked=len(st.disc.files),
        elapsed=time.perf_counter() - st.t0,
        # (None when the rules are known by the code table: rule_codes names them, registry.rules_of imports them)
        rules=None if st.lazy_rules else st.rules,
        discovery=st.disc,
        profile=st.profile,
        timings=st.timings,
        files_parsed=st.parsed,
        parsed_kinds=st.parsed_kinds,
        ctx=st.ctx,
        skips=st.skips,
        analysis=st.analysis,
        build=st.build,
        state=st.project,
        rule_codes=tuple(r.code for r in st.rules),
    )


def _glob_count(memos: Optional[dict]) -> int:
    return sum(len(v) for v in memos.values() if isinstance(v, dict)) if memos is not None else 0


def _discover(st: _RunState) -> None:
    """The files of the project (the last run's stats spare hashing unchanged ones), the packs and profile, the
    extraction context: what the run memo's key is made of."""
    settings = st.settings
    st.root = root = settings.root
    if settings.rule_packs:  # (a user pack may add a profile)
        st.packs = load_packs([Path(p) if Path(p).is_absolute() else root / p for p in settings.rule_packs], root=root)
    # else the shipped profiles alone: a warm run the memo answers reads no other table (_model loads the packs)
    st.profile = profile = detect_profile(st.packs or shipped_profiles(), root, settings.profile)
    exclude = list(profile.exclude) + list(settings.exclude) + list(settings.extend_exclude)
    st.stats_file = stats_file = root / ".trtlint_cache" / "stats.json"
    known_stats, trust_before = (load_stats(stats_file) if st.use_cache else ({}, 0))
    started_ns = time.time_ns()
    st.glob_memos = load_json_dict(stats_file.parent / "globs.json") if st.use_cache else None
    st.glob_before = _glob_count(st.glob_memos)
    disc = discover(
        root,
        st.paths,
        include=settings.include,
        exclude=exclude,
        respect_gitignore=settings.respect_gitignore,
        max_file_size=settings.max_file_size,
        known_stats=known_stats,
        trust_before_ns=trust_before,
        glob_memos=st.glob_memos,
        announce=profile.exclude,
    )
    save_glob_memos(stats_file.parent / "globs.json", st.glob_memos, st.glob_before)
    st.glob_before = _glob_count(st.glob_memos)
    if st.use_cache and (disc.hashed or set(disc.stats) != set(known_stats)):
        merged = {**known_stats, **disc.stats} if st.paths else disc.stats
        write_json(stats_file, {"digest": DIGEST_NAME, "trust_before_ns": started_ns - 2_000_000_000, "files": merged})
        gi = stats_file.parent / ".gitignore"
        if stats_file.exists() and not gi.exists():
            try:
                gi.write_text("# created by trtlint\n*\n", encoding="utf-8")
            except OSError:
                pass
    st.disc = disc
    if known_stats:
        st.changed = frozenset(f.rel for f in disc.files if (known_stats.get(f.rel) or (None,) * 4)[3] != f.digest)
    st.timings["discover"] = time.perf_counter() - st.t0
    if st.progress is not None:
        st.progress("discover", len(disc.files), len(disc.files))
    st.ctx = make_context(settings, profile, root)
    st.scans_dir = root / CACHE_DIR / f"v{FACTS_SCHEMA_VERSION}" if st.use_cache else None


def _model(st: _RunState) -> None:
    """The text scans and the build model (each C++/CUDA unit gets the include dirs and defines of the CMake target
    compiling it; a run over some paths reads the whole tree's list files: discovery has only the paths); the
    project state follows in :func:`_extract` (:func:`_project`, which imports it: after an edit the unit's worker
    waits for what this function does, not for that import). After the run memo: a warm run it answers reads no build
    file and loads no text scan."""
    from .buildmodel import build_model, with_unit_flags

    st.scans = TextScans(st.scans_dir)
    t = time.perf_counter()
    settings, disc = st.settings, st.disc
    st.build = build_model(st.root, [f.rel for f in disc.files] if st.paths is None else None, st.ctx.compile_commands,
                           max_file_size=settings.max_file_size)
    disc.files = with_unit_flags(disc.files, st.build)
    st.timings["build model"] = time.perf_counter() - t


def _project(st: _RunState) -> None:
    """The merged rule packs and the project state: made once the C++ units with plugin facts are on their way to the
    workers (:func:`_extract`), since nothing the extraction is handed needs them (after an edit the worker waited
    for the parent's import of the project state and the packs' load before its parse, ~10 ms on Edge-LLM)."""
    from trtlint.pipeline.state import ProjectState

    if st.packs is None:
        st.packs = load_packs(root=st.root)
    st.project = ProjectState(root=st.root, settings=st.settings, profile=st.profile, packs=st.packs, ctx=st.ctx,
                              skipped=_skipped(st), sources={f.rel: f for f in st.disc.files}, build=st.build)


def _with_feature_macros(st: _RunState, ctx: ExtractContext, service=None) -> ExtractContext:
    """The context with the optional-feature macros the project's C++ tests for (a scan of every C++ file;
    they derive from the files' contents and the profile, so they need not be known for the run memo's
    key nor for the Python files, which are queued before the scan)."""
    if st.profile.feature_macros:
        found = feature_macros(st.disc.files, st.profile.feature_macros, st.scans, service)
        if found:
            return dataclasses.replace(ctx, defines=tuple(dict.fromkeys(ctx.defines + found)))
    return ctx


def _from_memo(st: _RunState) -> Optional[RunResult]:
    """A warm run over the whole project whose inputs are those of a run the memo kept: its findings."""
    if not (st.use_cache and st.report_only is None and st.scans_dir is not None):
        return None
    from trtlint.store import runmemo
    from ..checks.registry import selected_codes
    from .trtversion import extras_key

    ctx = st.ctx
    st.memo_key = runmemo.key(st.settings, st.disc, st.paths, st.profile, context_key(ctx), ctx.compile_commands)
    # (the files outside discovery that may pin a TensorRT version count too, in the directories the memo kept:
    # pipeline.trtversion)
    hit = runmemo.load(st.scans_dir, st.memo_key, lambda dirs: extras_key(st.root, dirs))
    if hit is None:
        return None
    st.timings["memo"] = time.perf_counter() - st.t0 - st.timings["discover"]
    settings = st.settings
    return RunResult(
        diagnostics=hit["diagnostics"],
        index=None,  # type: ignore[arg-type] - not built: the findings come from the memo
        files_checked=len(st.disc.files),
        elapsed=time.perf_counter() - st.t0,
        rules=None,  # the rule modules are not imported (the code table says which rules the memo's run ran)
        rule_codes=tuple(selected_codes(settings.select, settings.ignore, settings.extend_select)),
        discovery=st.disc,
        profile=st.profile,
        timings=st.timings,
        ctx=ctx,  # (without the optional-feature macros: they come from the text scans, which a hit does not load)
        analysis=hit.get("analysis"),
    )


def _cpp_changed(st: _RunState) -> bool:
    """Whether a C++ unit or header differs from the last run's (by the digests in stats.json), with a cache."""
    changed = st.changed
    return changed is not None and st.use_cache and any(
        f.rel in changed for f in st.disc.files if f.kind in ("cpp", "cuda", "header"))


def _new_extraction(st: _RunState):
    """The run's extraction (one worker pool for the whole run), with its fact cache."""
    from .extraction import Extraction

    digests = {f.rel: f.digest for f in st.disc.files}
    cache = st.cache = FactCache(st.root, st.ctx, frontend_versions()) if st.use_cache else None
    done, progress = st.done, st.progress

    def tick(n: int) -> None:
        done[0] += n
        progress("extract", done[0], done[1])

    return Extraction(st.ctx, st.jobs, cache, digests, done, tick if progress is not None else None, st.limits)


def _start_early(st: _RunState) -> None:
    """A C++ unit or header changed since the last run (a re-run after an edit): start the worker that will parse
    it now, before the build model, the fact vocabulary and the plan are made here, so that its start, the C++
    frontend's import and libclang's loading (and a warm-up parse: ``frontends.cpp.unit.warm``) overlap them
    instead of following them. The shared PCH for the unit's flags is asked for in :func:`_extract`, once the
    build model and the feature macros give the flags."""
    if not _cpp_changed(st):
        return
    st.extraction = _new_extraction(st)
    st.extraction.warm("cpp")


def _extract(st: _RunState) -> None:
    """The facts of every file. C++: only translation units that can hold a plugin fact are parsed; the others
    are parsed lazily when the hot-path call graph needs a function they may define (cpp_expand.py)."""
    from trtlint.base.facts import FileFacts
    from .cpp_expand import LazyTexts, expand_with_memo, last_expansion
    from .cpp_headers import ReachMemo, lazy_plan, shared_header_plan, walk_missing, walk_unwalked

    disc, scans = st.disc, st.scans
    tus = [f for f in disc.files if f.kind in ("cpp", "cuda")]
    others = [f for f in disc.files if f.kind not in ("cpp", "cuda", "header")]
    t1 = time.perf_counter()
    extraction = st.extraction if st.extraction is not None else _new_extraction(st)
    cache, digests = st.cache, extraction.digests

    def extract_cached(files: list[SourceFile]) -> list[FileFacts]:
        return extraction.collect(extraction.submit(files, 0))

    texts = LazyTexts(scans)
    eager, lazy = [], []
    # an edit since the last run in a C++ unit (or a header: its includers are parsed again): a worker starts now and
    # loads libclang while this process plans, instead of after the plan (a cold run starts its pool as it did)
    changed = st.changed
    warm_cpp = st.extraction is not None  # (a worker was started for it: _start_early)
    # one worker pool for the whole extraction. The Python, CMake and YAML files that need parsing are queued
    # first, so the workers start while the C++ units are scanned for plugin markers; the C++ units (the
    # call-graph expansion's critical path) then go ahead of them in the queue, and the other files' cached
    # facts are loaded once the edited units are on their way
    try:
        h_others = extraction.submit(others, 1, defer=True)
        final = _with_feature_macros(st, st.ctx, extraction.service)  # the workers parse Python meanwhile
        if final is not st.ctx:
            st.ctx = final
            extraction.set_context(final)
        ctx = st.ctx
        if warm_cpp:  # ...and finds (or builds) the shared PCH for the flags of the first edited plugin unit
            first = next((f for f in tus if f.rel in changed and scans.scan(f).marker), None)  # type: ignore[operator]
            if first is not None:
                extraction.warm(first.kind, first)
        # a unit that only calls a project macro whose replacement holds a marker (one that writes a creator
        # class and its REGISTER_TENSORRT_PLUGIN) holds plugin facts too, and so does a file whose class derives a
        # project class on a plugin or creator interface (a plugin written on the project's own BasePlugin, its
        # methods in the class: no marker of its own). The editor's session keeps them and decides the same way
        markers = scans.project_markers(disc.files, extraction.service)

        def plugin_file(f: SourceFile) -> bool:
            return scans.plugin_file(f, markers)

        for f in tus:
            extraction.service()  # the scans below can take seconds (TensorRT OSS): the workers go on meanwhile
            scan = scans.scan(f)  # googletest cases (TRT404): a text scan, every unit
            if scan.gtest_cases:
                st.gtests[f.rel] = scan.gtest_cases
            if plugin_file(f):
                eager.append(f)
            else:
                lazy.append(f)
        share = envvars.flag("TRTLINT_SHARED_HEADERS")  # 0: every unit walks all its headers (A/B)
        headers = {f.rel: f for f in disc.files if f.kind == "header"}

        def shareable(rel: str) -> bool:
            return rel in headers and scans.shareable(headers[rel], markers)

        # (the units' CMake flags decide which headers they reach too)
        reach = ReachMemo(cache.dir / "reach.json" if cache is not None else None,
                          context_key(ctx) + st.build.digest(), disc.files)
        if share:
            eager = shared_header_plan(eager, ctx, shareable, reached_headers=reach)
        h_eager = extraction.submit(eager, 0)
        _project(st)
        extraction.load(h_others)
        if cache is not None and extraction.pool is not None:
            # while a worker parses what changed, load the units the last call-graph expansion parsed: an
            # edit seldom changes that list (the expansion below takes them from memory)
            by_rel = {f.rel: f for f in lazy}
            cache.prefetch([dataclasses.replace(by_rel[r], skip=skip) for r, skip in last_expansion(cache)
                            if r in by_rel], digests)
        if extraction.pool is not None:
            # import the rule modules while the workers parse, not after them, and the modules every check imports on
            # first use. With a rule memo of the last run, the rules whose fact kinds changed are known (and imported)
            # after the extraction (_check): only those that run again whatever changed are imported now
            from ..checks.registry import all_rules, selected_codes, stubs
            from .check import import_ahead

            settings = st.settings
            import_ahead(all_rules() if not _rule_memo_kept(st) else
                         stubs(selected_codes(settings.select, settings.ignore, settings.extend_select)))
        # what the check reads besides the facts, made while the workers parse (the parent waits for them otherwise)
        _fact_free_inputs(st, extraction.service)
        _preload_rule_memo(st)
        eager, cfacts = walk_unwalked(eager, extraction.collect(h_eager), extract_cached)
        eager, cfacts = walk_missing(eager, cfacts, extract_cached, set())
        lazy_facts = {f.rel: f for f in lazy}
        for f in lazy:
            texts.add(f)
        included = set()
        for ff in cfacts:
            included.update(ff.includes)
        lone_headers = []
        for f in disc.files:
            if f.kind == "header" and f.rel not in included:
                extraction.service()
                if plugin_file(f):
                    lone_headers.append(f)
        lone = extract_cached(lone_headers)
        extract_lazy, lazy_skips = extract_cached, {}
        if share:  # the units the expansion parses leave alone the shared headers the units above walked
            extract_lazy, lazy_skips = lazy_plan(eager, cfacts, lone, ctx, shareable, extract_cached, reach)
        expanded = expand_with_memo(cfacts + lone, lazy_facts, texts, extract_lazy, cache, tus, disc, st.root,
                                    st.profile, st.packs, st.settings, extraction.service, lazy_skips,
                                    tuple(st.build.scopes) if st.build is not None else ())
        facts = cfacts + extraction.collect(h_others) + lone + expanded
        reach.save()
        st.skips = {f.rel: f.skip for f in eager if f.skip}
        st.skips.update((rel, skip) for rel, skip in lazy_skips.items() if skip)
    finally:
        extraction.close()
    st.parsed, st.parsed_kinds = extraction.parsed, extraction.parsed_kinds
    # files that were never parsed still belong to the project (e.g. a .cu file for TRT401)
    seen = {ff.path for ff in facts}
    facts += [FileFacts(path=f.rel, kind=f.kind, digest=f.digest) for f in disc.files if f.rel not in seen]
    if st.gtests:
        origin = cache.origin if cache is not None else {}
        out = []
        for ff in facts:
            if ff.path in st.gtests:
                new = dataclasses.replace(ff, test_cases=st.gtests[ff.path])
                if id(ff) in origin:  # (the entry's facts with the cases of the text scan: pipeline.rulecache)
                    origin[id(new)] = origin[id(ff)][:2] + (new.test_cases,)
                ff = new
            out.append(ff)
        facts = out
    st.facts = facts
    st.project.facts = {ff.path: ff for ff in facts}
    st.project.skips = st.skips
    st.project.markers = markers
    st.project.marker_scans = {f.rel: (scan.marker_macros, scan.class_bases) for f in disc.files
                               if f.kind in CPP_KINDS for scan in (scans.scan(f),)
                               if scan.marker_macros or scan.class_bases}
    st.project.ctx = st.ctx  # (with the feature macros found)
    st.timings["extract"] = time.perf_counter() - t1


def _scan_inputs(st: _RunState) -> None:
    """What the index is handed besides the facts (:meth:`ProjectState.check_inputs`), from the text scans: the
    suppressions, the preview-feature switches, each program's TensorRT release, the headers no unit includes; and
    discovery's glob memos."""
    _fact_free_inputs(st)
    if st.reach is not None:  # code no program compiles (what the units' facts reach besides their #include lines)
        st.reach.add_facts(st.facts)
        st.project.unincluded = st.reach.unincluded()


def _fact_free_inputs(st: _RunState, service=None) -> None:
    """The part of :func:`_scan_inputs` that needs no fact, once per run: :func:`_extract` makes it while the workers
    parse (``service``: the pool's, called between the files' text scans so the workers are never left waiting)."""
    if st.inputs_scanned:
        return
    from .check import scan_all_suppressions
    from .buildmodel import executable_units
    from .trtversion import infer as infer_tensorrt

    files, scans, project = st.disc.files, st.scans, st.project
    if service is not None:  # (each file's scan is remembered: what follows reads them without scanning again)
        for f in files:
            scans.scan(f)
            service()
    scopes = st.build.scopes if st.build is not None else ()
    project.suppressions = scan_all_suppressions(files, scans)
    project.preview_scan = {f.rel: scans.scan(f).preview_switches for f in files
                            if f.kind in ("cpp", "cuda", "header", "python")}
    project.glob_memos = st.glob_memos  # the rules' file patterns are remembered with discovery's
    project.scopes = tuple(scopes)  # the independent programs the build model found (each checked on its own)
    project.tensorrt = infer_tensorrt(st.settings.root, files, tuple(scopes), scans)  # each program's TensorRT release
    if st.paths is None:  # (loose files: no tree to know the includers from)
        from .unincluded import Reach, include_map, optional_builds, unrunnable_programs

        project.include_names = include_map(files, scans)
        kinds = {f.rel: f.kind for f in files}
        st.reach = Reach(kinds, project.include_names, st.build)  # (facts: _scan_inputs)
        project.unrunnable = unrunnable_programs(kinds, project.include_names, st.build)
        project.optional = optional_builds(kinds, project.include_names, st.build)
    # what says a program takes plugin fields from outside its own code (TRT205's creator checks)
    project.model_io = {f.rel: m for f in files for m in (scans.scan(f).model_io,) if m}
    project.executable_units = executable_units(st.build.targets) if st.build is not None else ()
    if st.memo_key is not None:  # what the run memo keeps (_store): the directories a warm run looks for TensorRT
        # evidence outside discovery in (it builds no model), and the key of those files now
        from .trtversion import evidence_dirs, extras_key

        dirs = evidence_dirs(files, tuple(scopes))
        st.memo_extras = (dirs, extras_key(st.root, dirs))
    st.inputs_scanned = True


def _check(st: _RunState) -> None:
    """Index, rules, filter (:meth:`ProjectState.check`)."""
    from ..checks.registry import select_rules, selected_codes, stubs

    t0 = time.perf_counter()
    _scan_inputs(st)
    st.project.skipped = _skipped(st)
    st.scans.save(prune=not st.paths)
    gathered = time.perf_counter() - t0
    toks = _restore_rule_memo(st)
    st.lazy_rules = st.project.restored
    if st.lazy_rules:  # the memo gives the findings of the rules whose fact kinds did not change: the rules are
        # known by the code table, and only those run again are imported (RuleStub.load, pipeline.check.run_rules)
        st.rules = st.project.rules = stubs(selected_codes(st.settings.select, st.settings.ignore,
                                                           st.settings.extend_select))
    else:
        st.rules = st.project.rules = select_rules(st.settings.select, st.settings.ignore, st.settings.extend_select)
    checked = st.project.check(report_only=st.report_only, progress=st.progress)
    if toks is not None:
        from .rulecache import store

        memo = st.project.rule_memo
        if isinstance(memo.inputs, tuple) and len(memo.inputs) == 2 and all(isinstance(x, str) for x in memo.inputs):
            store(st.scans_dir, memo.inputs, toks, memo.results)  # type: ignore[arg-type]
    st.index, st.diagnostics = checked.index, checked.diagnostics
    from ..report.context import Analysis
    from .unincluded import IncludeReach

    st.analysis = Analysis.of_index(st.index, st.build, checked.scoped, checked.aside, checked.aside_builds,
                                  checked.aside_old, IncludeReach(st.project.include_names),
                                  checked.aside_optional).to_dict()
    st.timings.update(checked.timings)
    st.timings["index"] += gathered  # (the suppression and preview scans count as building the index)


def _memo_run(st: _RunState) -> bool:
    """Whether this run reads and writes the rule memo (:func:`_restore_rule_memo`)."""
    return (st.memo_key is not None and st.use_cache and st.paths is None and st.report_only is None
            and st.scans_dir is not None)


def _rule_memo_kept(st: _RunState) -> bool:
    """Whether the last run left a rule memo this run may restore (whether it can is known after the extraction)."""
    from .rulecache import stored

    return _memo_run(st) and stored(st.scans_dir)  # type: ignore[arg-type]


def _restore_rule_memo(st: _RunState) -> Optional[list]:
    """A ``trtlint check`` over the whole project with a cache (a run that asked for the run memo; the editor's
    session keeps its own state in memory): the rule memo of the last run, if its inputs besides the facts are the
    same, with the fact kinds changed since (:mod:`trtlint.pipeline.rulecache`), so the rules that read none of
    them give their findings of then; returns this run's file tokens (to store after the check), or None."""
    if not _memo_run(st):
        return None
    from trtlint.store import runmemo

    from .rulecache import changes, load, tokens

    project = st.project
    _preload_rule_memo(st)
    stable_key, data, old = st.rule_memo_pre
    project.stable_key = stable_key
    toks = tokens(project.facts, st.cache.origin if st.cache is not None else {})
    if data is not None and data["inputs"][:1] == (project.stable_key,):
        kinds = changes(data["tokens"], toks, project.facts, st.cache, old)
        if kinds is not None:
            project.rule_memo.restore(data["results"], data["inputs"], kinds)
            project.restored = True
    return toks


def _preload_rule_memo(st: _RunState) -> None:
    """The rule memo's side of :func:`_restore_rule_memo` that needs no fact of this run, once per run (:func:`_extract`
    makes it while the workers parse): the key of its other inputs, the stored memo, and the last facts of the files
    whose digest changed since the last run (their last tokens name fact-cache entries this run never writes: an
    entry's key holds the file's digest)."""
    if st.rule_memo_pre is not None or not _memo_run(st):
        return
    from trtlint.store import runmemo

    from .rulecache import last_facts, load

    stable_key = runmemo.key(st.settings, st.disc, st.paths, st.profile, context_key(st.ctx), st.ctx.compile_commands,
                             files=False)
    data = load(st.scans_dir)  # type: ignore[arg-type]
    old = {}
    if data is not None and data["inputs"][:1] == (stable_key,) and st.changed:
        old = last_facts(data["tokens"], st.changed, st.cache)
    st.rule_memo_pre = (stable_key, data, old)


def _skipped(st: _RunState) -> list[tuple]:
    """What discovery skipped ((path, reason)) and what the build model could not read or evaluate ((path,
    message, line)): each a TRT001."""
    return list(st.disc.skipped) + (st.build.problem_items() if st.build is not None else [])


def _store(st: _RunState) -> None:
    """What the next run reuses: the glob answers the rules added, the run memo."""
    save_glob_memos(st.stats_file.parent / "globs.json", st.glob_memos, st.glob_before)
    if st.memo_key is not None:
        from trtlint.store import runmemo

        _fact_free_inputs(st)
        runmemo.store(st.scans_dir, st.memo_key, {"diagnostics": st.diagnostics, "analysis": st.analysis,
                                                  "extras": st.memo_extras})
