"""The pipeline: discover -> extract (per file) -> index -> check -> filter.

The CLI, the pre-commit hook and the LSP server are thin shells over :func:`run`.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import os
import re
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from .baseline import attach_snippets
from .cache import cacheable
from .checks.base import Rule, find_rule
from .config import Settings
from .diagnostics import Diagnostic, Severity
from .discover import DIGEST_NAME, Discovery, discover
from .facts import FileFacts, ParseProblem, Span
from .frontends import ExtractContext, SourceFile
from .frontends.testlists import gtest_cases
from .index import ProjectIndex
from .packs import Profile, detect_profile, load_packs
from .suppress import PerFileIgnores, scan_suppressions, select_rules

FRONTENDS = {
    "cpp": "trtlint.frontends.cpp",
    "cuda": "trtlint.frontends.cpp",
    "header": "trtlint.frontends.cpp",
    "python": "trtlint.frontends.python",
    "cmake": "trtlint.frontends.cmake",
    "onnx": "trtlint.frontends.onnx",
    "yaml": "trtlint.frontends.yaml_kind",  # test lists (testlists.py) and TensorRT OSS plugin specs (plugin_spec.py)
}


@dataclass
class RunResult:
    diagnostics: list[Diagnostic]
    index: ProjectIndex
    files_checked: int
    elapsed: float
    rules: list[type[Rule]]
    discovery: Discovery
    profile: Profile
    timings: dict[str, float] = field(default_factory=dict)
    files_parsed: int = 0
    parsed_kinds: dict[str, int] = field(default_factory=dict)
    ctx: Optional[ExtractContext] = None  # the extraction context used (the LSP session re-extracts with it)
    # C++ units -> the project headers they left to another unit to walk (SourceFile.skip; only units with some)
    skips: dict[str, tuple[str, ...]] = field(default_factory=dict)


def frontend_for(kind: str):
    mod = FRONTENDS.get(kind)
    if mod is None:
        return None
    return importlib.import_module(mod)


_VERSIONS: dict[str, str] = {}
# the single-file frontends (frontends/cmake.py...), by path under frontends/: each counts for its own kind only
_FRONTEND_FILES = {m.rsplit(".", 1)[1] + ".py" for m in FRONTENDS.values()}


def frontend_versions() -> dict[str, str]:
    """A cache-key version per kind: a digest of the frontend's source and of the facts vocabulary, so any
    change to either invalidates cached facts (without importing the frontends on a warm run)."""
    if not _VERSIONS:
        import hashlib
        import importlib.util

        here = Path(__file__).parent
        base = (here / "facts.py").read_bytes()
        # every other source of the frontends (the modules of the frontends/cpp/ and frontends/python/ packages,
        # helper modules, prelude headers) counts for every kind
        fdir = here / "frontends"
        for extra in sorted(fdir.rglob("*")):
            if (extra.is_file() and extra.suffix in (".py", ".h", ".hpp", ".cuh")
                    and extra.relative_to(fdir).as_posix() not in _FRONTEND_FILES):
                base += extra.read_bytes()
        for kind, mod in FRONTENDS.items():
            try:
                spec = importlib.util.find_spec(mod)
                src = Path(spec.origin).read_bytes() if spec and spec.origin else b""
                # (a package's modules, e.g. frontends/cpp/flow.py, are already in `base`)
                if spec and spec.origin:
                    if kind == "python":  # the TensorRT Python API pack decides which uses are recorded
                        from .packs import shipped_dir

                        pack = shipped_dir() / "tensorrt_python.yaml"
                        src += pack.read_bytes() if pack.is_file() else b""
            except (ImportError, OSError, ValueError):
                src = b""
            _VERSIONS[kind] = hashlib.sha256(base + src).hexdigest()[:16]
    return _VERSIONS


def extract_one(src: SourceFile, ctx: ExtractContext) -> FileFacts:
    """Run the frontend for one file; never raises (an internal error becomes TRT001)."""
    try:
        fe = frontend_for(src.kind)
    except ImportError as e:
        msg = f"the {src.kind} frontend is unavailable: {e}"
        return FileFacts(path=src.rel, kind=src.kind, digest=src.digest, problems=(ParseProblem(msg, Span(src.rel, 1)),))
    if fe is None:
        return FileFacts(path=src.rel, kind=src.kind, digest=src.digest)
    try:
        return fe.extract(src, ctx)
    except RecursionError:
        msg = "internal error: nesting too deep to analyse"
    except Exception as e:  # pragma: no cover - defensive: a frontend bug must not stop the run
        tb = traceback.extract_tb(e.__traceback__)[-1]
        msg = f"internal error in the {src.kind} frontend: {type(e).__name__}: {e} ({Path(tb.filename).name}:{tb.lineno})"
    return FileFacts(path=src.rel, kind=src.kind, digest=src.digest, problems=(ParseProblem(msg, Span(src.rel, 1)),))


class _FileTimeout(BaseException):
    """Not an ``Exception``: the frontends' own catch-all handlers must not swallow it."""


_ALARM_ARMED = False  # whether a file's time limit is running (the handler raises only then)
# whether the running file's limit went off: the timeout is decided by this flag, not by the exception reaching
# extract_limited, because Python code that C calls back into can wrap it (ctypes turns an exception raised
# while converting a libclang call's arguments into ``ctypes.ArgumentError``, which a frontend's catch-all
# then reports as an internal error)
_ALARM_FIRED = False


def _on_alarm(signum, frame):  # pragma: no cover - runs in the signal handler
    global _ALARM_FIRED
    if _ALARM_ARMED:
        _ALARM_FIRED = True
        raise _FileTimeout()


def prepare(src: SourceFile, ctx: ExtractContext) -> None:
    """What a file's time limit does not count: importing its frontend (libclang, libcst) and building the
    shared C++ PCH it will use (once per machine and set of flags)."""
    try:
        fe = frontend_for(src.kind)
        if fe is not None and hasattr(fe, "prepare"):
            fe.prepare(src, ctx)
    except ImportError:
        pass  # extract_one reports it


def extract_limited(src: SourceFile, ctx: ExtractContext, timeout: float = 0, prepared: bool = False) -> FileFacts:
    """:func:`extract_one` within ``timeout`` seconds (0: no limit): a file that takes longer becomes TRT001
    "timed out after N s" and the run goes on. The limit is a SIGALRM timer, so it applies where extraction runs
    in a process's main thread (the CLI, the pool's workers); a parser busy inside C code (libclang) is
    interrupted when it returns to Python."""
    import signal
    import threading

    if os.environ.get("TRTLINT_TEST_SLOW_FILE"):  # test-only hook: a file this slow, to test the limit
        name, _, secs = os.environ["TRTLINT_TEST_SLOW_FILE"].partition("=")
        secs, _, where = secs.partition(":")
        slow = float(secs or 30) if src.rel.endswith(name) else 0.0
        slow_in_ctypes = where == "ctypes"
    else:
        slow, slow_in_ctypes = 0.0, False
    if timeout > 0 and not prepared:
        prepare(src, ctx)
    if timeout <= 0 or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        if slow:
            _test_slow(slow, in_ctypes=slow_in_ctypes)
        return extract_one(src, ctx)
    import sys

    old = signal.signal(signal.SIGALRM, _on_alarm)
    old_hook = sys.unraisablehook

    def unraisable(u) -> None:
        # the alarm went off inside a __del__ (e.g. a libclang object's), where Python cannot raise it: say
        # nothing and fire again right away, outside it
        if isinstance(u.exc_value, _FileTimeout):
            signal.setitimer(signal.ITIMER_REAL, 0.01)
        else:
            old_hook(u)

    global _ALARM_ARMED, _ALARM_FIRED
    sys.unraisablehook = unraisable
    _ALARM_FIRED = False
    _ALARM_ARMED = True
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        if slow:
            _test_slow(slow, in_ctypes=slow_in_ctypes)
        facts = extract_one(src, ctx)
        _ALARM_ARMED = False
        if not _ALARM_FIRED:
            return facts
    except _FileTimeout:
        pass
    finally:
        _ALARM_ARMED = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        sys.unraisablehook = old_hook
    # the limit went off, whether its exception reached here or was wrapped and caught on the way
    msg = f"timed out after {timeout:g} s (file-timeout); not analysed"
    return FileFacts(path=src.rel, kind=src.kind, digest=src.digest, problems=(ParseProblem(msg, Span(src.rel, 1)),))


def _test_slow(seconds: float, in_ctypes: bool) -> None:
    """The test-only slow file: sleep ``seconds``, either plainly or (``in_ctypes``) inside a ctypes call's
    argument conversion under a catch-all handler, as a frontend busy in a libclang call is."""
    if not in_ctypes:
        time.sleep(seconds)
        return
    import ctypes

    class _SlowArg:
        @classmethod
        def from_param(cls, value):
            time.sleep(seconds)
            return ctypes.c_int(value)

    labs = ctypes.CDLL(None).labs
    labs.argtypes = (_SlowArg,)
    try:
        labs(1)
    except Exception:  # noqa: BLE001 - what a frontend's catch-all does with ctypes.ArgumentError
        pass


# seconds one file may take to extract (0: no limit); set by run() from the file-timeout setting
FILE_TIMEOUT: float = 0.0
# MiB one extraction worker may hold (0: no limit); set by run() from the worker-memory setting
WORKER_MEMORY: float = 0.0


def make_context(settings: Settings, profile: Profile, root: Path) -> ExtractContext:
    inc = []
    for d in list(settings.include_dirs) + list(profile.include_dirs):
        p = Path(d)
        p = p if p.is_absolute() else root / p
        if p.is_dir() and str(p) not in inc:
            inc.append(str(p))
    cc = settings.compile_commands
    if cc:
        ccp = Path(cc)
        cc = str(ccp if ccp.is_absolute() else root / ccp)
    elif (root / "compile_commands.json").is_file():
        cc = str(root / "compile_commands.json")
    elif (root / "build" / "compile_commands.json").is_file():
        cc = str(root / "build" / "compile_commands.json")
    defines = tuple(dict.fromkeys(list(profile.defines) + list(settings.defines)))
    kwargs = dict(
        root=root, include_dirs=tuple(inc), compile_commands=cc, max_call_depth=settings.max_call_depth, defines=defines
    )
    dr = profile.direct_route or (settings.direct_route or {})
    # optional settings a frontend may declare on ExtractContext
    fields = getattr(ExtractContext, "__dataclass_fields__", {})
    if "route_call_names" in fields and dr.get("call_names"):
        kwargs["route_call_names"] = tuple(dr["call_names"])
    if "route_reserved_kwargs" in fields and dr.get("reserved_kwargs"):
        kwargs["route_reserved_kwargs"] = tuple(dr["reserved_kwargs"])
    return ExtractContext(**kwargs)


# The multiprocessing context of the extraction pool (None: the platform default). The LSP server sets
# "forkserver": it starts the pool from a worker thread, and forking a multi-threaded process can deadlock.
MP_CONTEXT = None


def _use_pool(files: list[SourceFile], jobs: int) -> bool:
    """Worker processes pay off for a few files; and any C++ parse runs in one (also with ``-j 1``), so the
    watchdog can stop a parse stuck inside libclang, which no signal handler can."""
    if not files or jobs < 1:
        return False
    return any(f.kind in ("cpp", "cuda", "header") for f in files) or (jobs > 1 and len(files) >= 4)


def _heavy_first(files: list[SourceFile]) -> tuple[list[SourceFile], list[int]]:
    """C++ units before other files, larger first (the longest parses start first); and the permutation."""
    def size(f: SourceFile) -> int:
        try:
            return f.path.stat().st_size
        except OSError:
            return 0

    order = sorted(range(len(files)), key=lambda i: (files[i].kind not in ("cpp", "cuda", "header"), -size(files[i]), i))
    return [files[i] for i in order], order


class _Handle:
    """Files submitted together (:meth:`_Extraction.submit`): their facts by position, the positions still to
    load from the cache, those being parsed, and the worker batches they are in."""

    __slots__ = ("files", "priority", "out", "cached", "todo", "batches")

    def __init__(self, files: list[SourceFile], priority: int) -> None:
        self.files = files
        self.priority = priority
        self.out: list[Optional[FileFacts]] = [None] * len(files)
        self.cached: list[int] = []
        self.todo: list[int] = []
        self.batches: list = []


class _Extraction:
    """Cached extraction with one worker pool, started when the first file needs parsing: ``submit`` looks
    files up in the fact cache and queues the rest; ``collect`` waits for them and stores them in the cache."""

    def __init__(self, ctx: ExtractContext, jobs: int, cache, digests: dict, done: list, tick) -> None:
        self.ctx, self.jobs, self.cache, self.digests, self.done, self.tick = ctx, jobs, cache, digests, done, tick
        self.pool = None
        self._serviced = 0.0
        self.parsed = 0
        self.parsed_kinds: dict[str, int] = {}

    def submit(self, files: list[SourceFile], priority: int, defer: bool = False) -> "_Handle":
        """Files without a cache entry are handed to the workers before the cached ones are loaded, so an
        edited file's parse overlaps the loading of the rest; with ``defer`` the cached ones are loaded only
        by :meth:`load` (or :meth:`collect`), so that more urgent files can be queued first."""
        h = _Handle(files, priority)
        for i, f in enumerate(files):
            if f.kind not in FRONTENDS:  # no frontend yet (e.g. ONNX models, YAML): nothing to extract
                h.out[i] = FileFacts(path=f.rel, kind=f.kind, digest=f.digest)
            elif self.cache and self.cache.has(f):
                h.cached.append(i)
            else:
                h.todo.append(i)
        if h.todo:
            h.batches.append(self._queue(files, list(h.todo), priority))
        if not defer:
            self.load(h)
        return h

    def load(self, h: "_Handle") -> None:
        """Load the handle's cached files; an entry that misses (a header it includes changed, an unreadable
        entry) is queued for parsing."""
        late = []
        for i in h.cached:
            hit = self.cache.get(h.files[i], self.digests)
            if hit is not None:
                h.out[i] = hit
            else:
                late.append(i)
        h.cached = []
        if late:
            h.todo += late
            h.batches.append(self._queue(h.files, late, h.priority))

    def _queue(self, files: list[SourceFile], todo: list[int], priority: int):
        """Hand ``files[i] for i in todo`` to the pool (started on first use); (batch, order), or (None, todo)
        for files extracted in this process at collect time."""
        self.done[1] += len(todo)
        if self.pool is not None or _use_pool([files[i] for i in todo], self.jobs):
            if self.pool is None:
                from .workers import Pool

                writer = self.cache.writer(self.digests) if self.cache else None
                self.pool = Pool(self.jobs, self.ctx, FILE_TIMEOUT, WORKER_MEMORY, MP_CONTEXT, self.tick, writer)
            heavy, perm = _heavy_first([files[i] for i in todo])
            return self.pool.submit(heavy, priority), [todo[k] for k in perm]
        return None, todo

    def set_context(self, ctx: ExtractContext) -> None:
        """Files queued from now on are extracted and cached with ``ctx`` (see Pool.set_context)."""
        self.ctx = ctx
        if self.cache:
            self.cache.set_context(ctx)
        if self.pool is not None:
            self.pool.set_context(ctx)

    def service(self) -> None:
        """Keep the workers fed while this process scans files: at most every few milliseconds, take their
        answers and hand out more files (see Pool.service)."""
        if self.pool is not None:
            now = time.perf_counter()
            if now - self._serviced > 0.005:
                self._serviced = now
                self.pool.service()

    def collect(self, handle: "_Handle") -> list[FileFacts]:
        self.load(handle)
        files, out, todo = handle.files, handle.out, handle.todo
        stored: set[int] = set()  # positions whose facts a worker already put in the cache
        for batch, order in handle.batches:
            if batch is not None:
                in_batch: set[int] = set()
                for i, ff in zip(order, self.pool.collect(batch, in_batch)):
                    out[i] = ff
                stored.update(order[k] for k in in_batch)
            else:
                for i in order:
                    out[i] = extract_limited(files[i], self.ctx, FILE_TIMEOUT)
                    if self.tick is not None:
                        self.tick(1)
        self.parsed += len(todo)
        for i in todo:
            f, ff = files[i], out[i]
            self.parsed_kinds[f.kind] = self.parsed_kinds.get(f.kind, 0) + 1
            if self.cache and i not in stored and cacheable(ff):
                self.cache.put(f, ff, self.digests)
        return [x for x in out if x is not None]

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None


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
) -> RunResult:
    """``progress``, when given, is told what the run is doing: ``progress(phase, done, total)`` with phase
    ``discover``, ``extract`` (files parsed so far, of those not in the cache), ``index`` or ``check``."""
    t0 = time.perf_counter()
    root = settings.root
    packs = load_packs([Path(p) if Path(p).is_absolute() else root / p for p in settings.rule_packs])
    profile = detect_profile(packs, root, settings.profile)
    exclude = list(profile.exclude) + list(settings.exclude) + list(settings.extend_exclude)
    stats_file = root / ".trtlint_cache" / "stats.json"
    known_stats, trust_before = (_load_stats(stats_file) if use_cache else ({}, 0))
    started_ns = time.time_ns()
    glob_memos = _load_json_dict(stats_file.parent / "globs.json") if use_cache else None
    glob_before = sum(len(v) for v in glob_memos.values() if isinstance(v, dict)) if glob_memos is not None else 0
    disc = discover(
        root,
        paths,
        include=settings.include,
        exclude=exclude,
        respect_gitignore=settings.respect_gitignore,
        max_file_size=settings.max_file_size,
        known_stats=known_stats,
        trust_before_ns=trust_before,
        glob_memos=glob_memos,
    )
    _save_glob_memos(stats_file.parent / "globs.json", glob_memos, glob_before)
    glob_before = sum(len(v) for v in glob_memos.values() if isinstance(v, dict)) if glob_memos is not None else 0
    if use_cache and (disc.hashed or set(disc.stats) != set(known_stats)):
        merged = {**known_stats, **disc.stats} if paths else disc.stats
        _write_json(stats_file, {"digest": DIGEST_NAME, "trust_before_ns": started_ns - 2_000_000_000, "files": merged})
        gi = stats_file.parent / ".gitignore"
        if stats_file.exists() and not gi.exists():
            try:
                gi.write_text("# created by trtlint\n*\n", encoding="utf-8")
            except OSError:
                pass
    timings = {"discover": time.perf_counter() - t0}
    if progress is not None:
        progress("discover", len(disc.files), len(disc.files))
    ctx = make_context(settings, profile, root)
    from .scancache import TextScans

    from .cache import CACHE_DIR
    from .facts import FACTS_SCHEMA_VERSION

    scans_dir = root / CACHE_DIR / f"v{FACTS_SCHEMA_VERSION}" if use_cache else None
    scans = TextScans(scans_dir, has_plugin_marker, gtest_cases)
    global FILE_TIMEOUT, WORKER_MEMORY
    FILE_TIMEOUT = float(getattr(settings, "file_timeout", 0) or 0)
    WORKER_MEMORY = float(getattr(settings, "worker_memory", 0) or 0)

    def with_feature_macros(ctx: ExtractContext, service=None) -> ExtractContext:
        """The context with the optional-feature macros the project's C++ tests for (a scan of every C++ file;
        they derive from the files' contents and the profile, so they need not be known for the run memo's
        key nor for the Python files, which are queued before the scan)."""
        if profile.feature_macros:
            found = _feature_macros(disc.files, profile.feature_macros, scans, service)
            if found:
                return dataclasses.replace(ctx, defines=tuple(dict.fromkeys(ctx.defines + found)))
        return ctx

    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    memo_key = None
    if memo and use_cache and report_only is None and scans_dir is not None:
        from . import runmemo
        from .cache import context_key

        memo_key = runmemo.key(settings, disc, paths, profile, context_key(ctx), frontend_versions(), ctx.compile_commands)
        hit = runmemo.load(scans_dir, memo_key)
        if hit is not None:
            timings["memo"] = time.perf_counter() - t0 - timings["discover"]
            return RunResult(
                diagnostics=hit["diagnostics"],
                index=None,  # type: ignore[arg-type] - not built: the findings come from the memo
                files_checked=len(disc.files),
                elapsed=time.perf_counter() - t0,
                rules=select_rules(settings.select, settings.ignore, settings.extend_select),
                discovery=disc,
                profile=profile,
                timings=timings,
                ctx=with_feature_macros(ctx),
            )

    tus = [f for f in disc.files if f.kind in ("cpp", "cuda")]
    others = [f for f in disc.files if f.kind not in ("cpp", "cuda", "header")]
    t1 = time.perf_counter()
    digests = {f.rel: f.digest for f in disc.files}
    cache = None
    if use_cache:
        from .cache import FactCache

        cache = FactCache(root, ctx, frontend_versions())
    done = [0, 0]  # files parsed, files planned (grows as the lazy call-graph expansion adds files)

    def tick(n: int) -> None:
        done[0] += n
        progress("extract", done[0], done[1])

    extraction = _Extraction(ctx, jobs, cache, digests, done, tick if progress is not None else None)

    def extract_cached(files: list[SourceFile]) -> list[FileFacts]:
        return extraction.collect(extraction.submit(files, 0))

    # C++: parse only translation units that can hold a plugin fact; the others are parsed lazily when
    # the hot-path call graph needs a function they may define (see _expand_call_graph).
    texts = _LazyTexts(scans)
    eager, lazy = [], []
    gtests: dict[str, tuple] = {}
    # one worker pool for the whole extraction. The Python, CMake and YAML files that need parsing are queued
    # first, so the workers start while the C++ units are scanned for plugin markers; the C++ units (the
    # call-graph expansion's critical path) then go ahead of them in the queue, and the other files' cached
    # facts are loaded once the edited units are on their way
    try:
        h_others = extraction.submit(others, 1, defer=True)
        final = with_feature_macros(ctx, extraction.service)  # the workers parse Python meanwhile
        if final is not ctx:
            ctx = final
            extraction.set_context(ctx)
        for f in tus:
            extraction.service()  # the scans below can take seconds (TensorRT OSS): the workers go on meanwhile
            marker, _sup, cases, _pp, _pv = scans.scan(f)  # googletest cases (TRT404): a text scan, every unit
            if cases:
                gtests[f.rel] = cases
            if marker:
                eager.append(f)
            else:
                lazy.append(f)
        share = os.environ.get("TRTLINT_SHARED_HEADERS", "1") != "0"  # 0: every unit walks all its headers (A/B)
        headers = {f.rel: f for f in disc.files if f.kind == "header"}

        def shareable(rel: str) -> bool:
            return rel in headers and not scans.scan(headers[rel])[0]

        from .cache import context_key

        reach = _ReachMemo(cache.dir / "reach.json" if cache is not None else None, context_key(ctx), disc.files)
        if share:
            eager = _shared_header_plan(eager, ctx, shareable, reached_headers=reach)
        h_eager = extraction.submit(eager, 0)
        extraction.load(h_others)
        if cache is not None and extraction.pool is not None:
            # while a worker parses what changed, load the units the last call-graph expansion parsed: an
            # edit seldom changes that list (the expansion below takes them from memory)
            by_rel = {f.rel: f for f in lazy}
            cache.prefetch([dataclasses.replace(by_rel[r], skip=skip) for r, skip in _last_expansion(cache)
                            if r in by_rel], digests)
        if extraction.pool is not None:  # import the rule modules while the workers parse, not after them
            from .checks.base import all_rules

            all_rules()
        eager, cfacts = _walk_unwalked(eager, extraction.collect(h_eager), extract_cached)
        eager, cfacts = _walk_missing(eager, cfacts, extract_cached, set())
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
                if scans.scan(f)[0]:
                    lone_headers.append(f)
        lone = extract_cached(lone_headers)
        extract_lazy, lazy_skips = extract_cached, {}
        if share:  # the units the expansion parses leave alone the shared headers the units above walked
            extract_lazy, lazy_skips = _lazy_plan(eager, cfacts, lone, ctx, shareable, extract_cached, reach)
        expanded = _expand_with_memo(cfacts + lone, lazy_facts, texts, extract_lazy, cache, tus, disc, root, profile,
                                     packs, settings, extraction.service, lazy_skips)
        facts = cfacts + extraction.collect(h_others) + lone + expanded
        reach.save()
        skips = {f.rel: f.skip for f in eager if f.skip}
        skips.update((rel, skip) for rel, skip in lazy_skips.items() if skip)
    finally:
        extraction.close()
    parsed, parsed_kinds = extraction.parsed, extraction.parsed_kinds
    # files that were never parsed still belong to the project (e.g. a .cu file for TRT401)
    seen = {ff.path for ff in facts}
    facts += [FileFacts(path=f.rel, kind=f.kind, digest=f.digest) for f in disc.files if f.rel not in seen]
    if gtests:
        facts = [dataclasses.replace(ff, test_cases=gtests[ff.path]) if ff.path in gtests else ff for ff in facts]
    timings["extract"] = time.perf_counter() - t1

    t2 = time.perf_counter()
    if progress is not None:
        progress("index", 0, 1)
    index = ProjectIndex.build(root, profile, packs, facts, settings)
    index.suppressions = scan_all_suppressions(disc.files, scans)
    index.preview_scan = {f.rel: scans.scan(f)[4] for f in disc.files if f.kind in ("cpp", "cuda", "header", "python")}
    index.glob_memos = glob_memos  # the rules' file patterns are remembered with discovery's
    scans.save(prune=not paths)
    index.config_selectors = config_selectors(settings)
    index.config_globs = config_globs(settings)
    timings["index"] = time.perf_counter() - t2

    t3 = time.perf_counter()
    if progress is not None:
        progress("check", 0, 1)
    rules = select_rules(settings.select, settings.ignore, settings.extend_select)
    diags = check_index(index, rules, settings, disc.skipped, report_only)
    timings["check"] = time.perf_counter() - t3
    _save_glob_memos(stats_file.parent / "globs.json", glob_memos, glob_before)
    if memo_key is not None:
        from . import runmemo

        runmemo.store(scans_dir, memo_key, {"diagnostics": diags})
    return RunResult(
        diagnostics=diags,
        index=index,
        files_checked=len(disc.files),
        elapsed=time.perf_counter() - t0,
        rules=rules,
        discovery=disc,
        profile=profile,
        timings=timings,
        files_parsed=parsed,
        parsed_kinds=parsed_kinds,
        ctx=ctx,
        skips=skips,
    )


def check_index(
    index: ProjectIndex,
    rules: list[type[Rule]],
    settings: Settings,
    skipped: list[tuple[str, str]] = (),
    report_only: Optional[set[str]] = None,
) -> list[Diagnostic]:
    """check -> filter: run ``rules`` over a built index, then selection, suppressions and severities; sorted,
    one finding per (rule, place, message), with snippets attached for line-independent fingerprints.
    Shared by :func:`run` and the LSP session."""
    root = index.root
    # rules that judge the filter itself (TRT002 unused-suppression) run after it; to know whether a
    # suppression is used, every rule runs then, and the findings of rules not selected are dropped
    late = [r for r in rules if getattr(r, "after_filter", False)]
    early = [r for r in rules if r not in late]
    judge_only: list[type[Rule]] = []
    if late and (index.suppressions or settings.per_file_ignores):
        from .checks.base import all_rules

        judge_only = [r for r in all_rules() if r not in rules and not getattr(r, "after_filter", False)]
    diags: list[Diagnostic] = _run_rules(early + judge_only, index, settings)
    for rel, reason in skipped:
        if "limit" in reason or "symbolic link" in reason or "regular file" in reason:  # said, never read
            sev = Severity.INFO if "symbolic link" in reason else Severity.WARNING
            diags.append(
                Diagnostic(code="TRT001", name="parse-error", severity=sev, message=f"skipped: {reason}", span=Span(rel, 1))
            )
    used: set = set()
    diags = filter_diagnostics(diags, settings, root, None, index.suppressions, used)
    if judge_only:
        dropped = {r.code for r in judge_only}
        diags = [d for d in diags if d.code not in dropped]
    if late:
        index.suppression_use = used
        diags += filter_diagnostics(_run_rules(late, index, settings), settings, root, None, index.suppressions, used)
    if report_only is not None:
        diags = filter_diagnostics(diags, settings, root, report_only, {})
    diags.sort(key=lambda d: d.sort_key())
    # one finding per (rule, place, message)
    uniq: dict[tuple, Diagnostic] = {}
    for d in diags:
        uniq.setdefault((d.code, d.span.path, d.span.line, d.span.col, d.message), d)
    return attach_snippets(list(uniq.values()), root)  # for line-independent fingerprints (baseline.py)


_MARKER_LITERALS = (
    b"IPluginV",
    b"IPluginCreator",
    b"REGISTER_TENSORRT_PLUGIN",
    b"PluginField",
    b"getPluginName",
    b"BaseCreator",
    b"initializePlugin",
    b"addPluginCreator",
    b"registerCreator",
)
_ENQUEUE_DEF = re.compile(rb"\w::enqueue\s*\(")


_MARKERS_PLUGIN = tuple(m for m in _MARKER_LITERALS if b"Plugin" in m)
_MARKERS_CREATOR = tuple(m for m in _MARKER_LITERALS if b"Creator" in m and b"Plugin" not in m)
_MARKERS_OTHER = tuple(m for m in _MARKER_LITERALS if m not in _MARKERS_PLUGIN and m not in _MARKERS_CREATOR)


def has_plugin_marker(data: bytes) -> bool:
    """The cheap text test that decides whether a C++ file can hold a plugin fact: literal searches, then one
    regex. The literals are grouped by a common part ("Plugin", "Creator"), looked for first: the generated
    cubin sources of TensorRT OSS (250 MB of C++ in all) hold neither, and are scanned 4 times instead of 10
    (1.1 -> 0.6 s)."""
    if b"Plugin" in data and any(lit in data for lit in _MARKERS_PLUGIN):
        return True
    if b"Creator" in data and any(lit in data for lit in _MARKERS_CREATOR):
        return True
    if any(lit in data for lit in _MARKERS_OTHER):
        return True
    return b"::enqueue" in data and _ENQUEUE_DEF.search(data) is not None


# callees that are never project functions: no need to look for their definitions
_EXTERNAL = re.compile(r"^(?:std::|thrust::|cub::|__|operator\b)|^(?:cuda[A-Z]|cu[A-Z]|cublas|cudnn|nccl|cusparse|curand)")


_TEST_PATH = re.compile(r"(^|/)(tests?|unittests?|testing)/|(^|/)[^/]*(_test|Tests?|_tests?)\.[^/]+$|(^|/)test_[^/]+$")


_PP_COND = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif)\b([^\n]*)", re.M)


def _feature_macros(files: list[SourceFile], patterns, scans=None, service=None) -> tuple[str, ...]:
    """Optional-feature macros (profile ``feature_macros`` patterns, e.g. ``CUTE_DSL_*_ENABLED``) tested in the
    project's C++ ``#if``/``#ifdef`` lines: the production build defines them, so trtlint does too and
    analyses the code that is compiled instead of the fallback stubs."""
    import fnmatch

    from .scancache import TextScans

    scans = scans if scans is not None else TextScans(None, has_plugin_marker, gtest_cases)
    rx = re.compile("|".join(fnmatch.translate(p) for p in patterns))
    out: set[str] = set()
    for f in files:
        if f.kind not in ("cpp", "cuda", "header"):
            continue
        if service is not None:
            service()
        for name in scans.scan(f)[3]:
            if rx.match(name):
                out.add(name)
    return tuple(sorted(out))


def _read_bytes(f: SourceFile) -> bytes:
    try:
        return f.path.read_bytes()
    except OSError:
        return b""


# a name starts where no word character precedes it (2.6x faster than letting the engine try every position
# inside identifiers, and digits of a literal such as 0xd480d480( are not a name). The quantifiers are
# possessive: what follows an identifier or a run of blanks is never part of one, so giving characters back
# cannot make a match; without the backtracking the scan is 4x faster (Edge-LLM's C++: 1.18 -> 0.28 s)
_CALLISH = re.compile(rb"\b([A-Za-z_]\w*+(?:\s*+::\s*+[A-Za-z_]\w*+)*+)\s*+\(")
_MAX_SEARCH_BYTES = 1 << 20  # larger C++ files are generated data (cubin arrays): never searched for definitions


def _callish_names(data: bytes) -> frozenset:
    """Every ``name(`` and ``Cls::name(`` written in a file: one linear scan, then set look-ups per round."""
    out = set()
    for name in set(_CALLISH.findall(data)):  # each spelling once
        parts = [p.strip() for p in name.decode("ascii", "replace").split("::")]
        out.add(parts[-1])
        if len(parts) >= 2:
            out.add(parts[-2] + "::" + parts[-1])
    return frozenset(out)


_PARAMS = rb"\((?:[^;{}()]|\((?:[^;{}()]|\([^;{}()]*\))*\))*\)"
# bumped when what the expansion searches for changes (its memo of files to parse is keyed on it)
_EXPANSION_VERSION = "6"


@functools.lru_cache(maxsize=4096)
def _definition_re(name: str) -> "re.Pattern[bytes]":
    """``name(...) {``: a definition; the parameter list (parentheses balanced to three levels) is followed by a
    body, not by ';'. Balancing keeps calls such as ``if (name(x))\n{`` and prose in comments out."""
    return re.compile(
        rb"\b" + re.escape(name).encode() + rb"\s*" + _PARAMS + rb"\s*"
        rb"(?:const\s*)?(?:noexcept\s*(?:\([^)]*\)\s*)?)?(?:->\s*[\w:<>,\s\*&]+)?\{"
    )


def _expansion_roots(idx) -> list:
    """The functions the call-graph rules start from: every method of every plugin and C++ creator class
    (hot-path rules start from enqueue and the warm methods, TRT204/TRT205/TRT304 from all of them)."""
    out, seen = [], set()
    classes = list(idx.plugins) + [c for c in idx.creators if c.cls.family.startswith("creator_")]
    for info in classes:
        for q in idx.ancestors(info.qualname):
            for fn in idx.methods.get(q, ()):
                if fn.usr not in seen:
                    seen.add(fn.usr)
                    out.append(fn)
    return out


def _expand_call_graph(
    facts, lazy: dict, texts: dict, extract_cached, root, profile, packs, settings, names_by_digest=None,
    service=None,
) -> list:
    """Parse, round by round, the lazily skipped C++ files that may define a function the hot path calls
    but no parsed file defines. Each round follows one more level of calls; at most max-call-depth rounds.
    ``service()`` is called between files searched, to keep the worker pool fed meanwhile."""
    added: list = []
    if not lazy:
        return added
    callish: dict[str, frozenset] = {}
    names_by_digest = names_by_digest if names_by_digest is not None else {}
    for _ in range(max(1, settings.max_call_depth)):
        idx = ProjectIndex.build(root, profile, packs, list(facts) + added, settings)
        methods: set[str] = set()
        free: set[str] = set()
        for root_fn in _expansion_roots(idx):
            for call, _chain in idx.walk_calls(root_fn):
                if call.kind not in ("call", "launch") or idx.resolve_call(call) is not None:
                    continue
                name = call.callee.split("<")[0]
                last = name.split("::")[-1]
                if not last or _EXTERNAL.match(name) or _EXTERNAL.match(last):
                    continue
                if packs.lookup("allocating", name) or packs.lookup("synchronizing", name):
                    continue
                if packs.lookup("functions", name) or packs.lookup("macros", name):
                    continue  # its behaviour is known (rules/cpp_behaviour.yaml)
                parts = name.split("::")
                # a method is defined out of line as Cls::name( ; a free function as name(...) {
                if len(parts) >= 2 and parts[-2][:1].isupper():
                    methods.add("::".join(parts[-2:]))
                else:
                    free.add(last)
        if not methods and not free:
            break
        cands = []
        for rel in sorted(lazy):
            # a plugin library never links a test's definitions: tests are not searched; nor is generated data
            if _TEST_PATH.search(rel):
                continue
            if service is not None:
                service()
            names = callish.get(rel)
            if names is None:
                data = texts.get(rel, b"")
                digest = lazy[rel].digest
                names = names_by_digest.get(digest)
                if names is None:
                    names = _callish_names(data) if len(data) <= _MAX_SEARCH_BYTES else frozenset()
                    names_by_digest[digest] = names
                callish[rel] = names
            if names.isdisjoint(methods) and names.isdisjoint(free):
                continue
            data = texts.get(rel, b"")
            if not names.isdisjoint(methods) or any(_definition_re(n).search(data) for n in free & names):
                cands.append(lazy.pop(rel))
        if not cands:
            break
        # every candidate of the round (a cap of 64 per round, with the rest pushed to later rounds, silently
        # left 1488 of a 2000-plugin project's kernel files unparsed once max-call-depth rounds were used up)
        added += extract_cached(cands)
    return added


def _call_structure(facts) -> bytes:
    """What the call-graph expansion reads of parsed files, without positions: classes, functions, calls."""
    import hashlib

    h = hashlib.sha256()
    for ff in sorted(facts, key=lambda x: x.path):
        if not ff.functions and not ff.classes:
            continue
        parts: list = [ff.path]
        parts += [(c.qualname, c.kind, c.family, c.bases, c.abstract) for c in ff.classes]
        for fn in ff.functions:
            parts.append((fn.usr, fn.qualname, fn.name, fn.cls))
            parts += [(c.callee, c.usr, c.kind) for c in fn.calls]
        h.update(repr(parts).encode())
    return h.digest()


def _shared_header_plan(units: list[SourceFile], ctx: ExtractContext, candidate,
                        owners: Optional[dict] = None, reached_headers=None) -> list[SourceFile]:
    """Which unit walks which project header. A header that several units include is parsed with each of them
    (that is what a translation unit is), but its declarations need walking only once: the first unit (in
    the units' order, the order the index takes facts in) that pulls the header in walks it, and the others
    get it in ``SourceFile.skip``. Only headers ``candidate`` accepts (those without a plugin marker: their
    declarations never feed a unit's own plugin classes) are shared. Who pulls what in is read from the
    ``#include`` lines (frontends.cpp.reached_headers); :func:`_walk_unwalked` repairs where a parse did not
    include what the text named. ``owners``, when given, gets header -> the unit meant to walk it;
    ``reached_headers``: frontends.cpp.reached_headers or a memo of it (:class:`_ReachMemo`)."""
    from .frontends import cpp

    owner: dict[str, str] = {} if owners is None else owners
    reached = (reached_headers or cpp.reached_headers)(units, ctx)
    for f, r in zip(units, reached):
        for h in r:
            if h not in owner and candidate(h):
                owner[h] = f.rel
    out = []
    for f, r in zip(units, reached):
        skip = tuple(h for h in r if owner.get(h, f.rel) != f.rel)
        out.append(dataclasses.replace(f, skip=skip) if skip else f)
    return out


def _walk_unwalked(units: list[SourceFile], facts: list[FileFacts], extract_cached) -> list[FileFacts]:
    """A header some units left to another (``SourceFile.skip``) that no unit walked after all (the unit meant
    to walk it did not include it: an ``#if`` branch, a failed parse) is walked by the first unit that did
    include it, extracted again without skipping it. Deterministic: the same plan and facts give the same
    repair."""
    if not any(f.skip for f in units) or len(facts) != len(units):
        return units, facts
    walked = _walked_headers(units, facts, [], lambda h: True)
    redo: dict[int, set[str]] = {}
    claimed: set[str] = set()
    for i, (f, ff) in enumerate(zip(units, facts)):
        for h in f.skip:
            if h not in walked and h not in claimed and h in ff.includes:
                claimed.add(h)
                redo.setdefault(i, set()).add(h)
    return _extract_again(units, facts, redo, extract_cached)


def _extract_again(units: list[SourceFile], facts: list[FileFacts], redo: dict[int, set[str]], extract_cached):
    """(units, facts) with each unit ``i`` in ``redo`` extracted again without skipping the headers ``redo[i]``."""
    if not redo:
        return units, facts
    order = sorted(redo)
    units = list(units)
    for i in order:
        units[i] = dataclasses.replace(units[i], skip=tuple(h for h in units[i].skip if h not in redo[i]))
    out = list(facts)
    for i, ff in zip(order, extract_cached([units[i] for i in order])):
        out[i] = ff
    return units, out


class _ReachMemo:
    """frontends.cpp.reached_headers, remembered across runs (``reach.json`` in the cache): a unit's entry is
    used while the unit, every header it reached and the set of the project's C/C++ files are as they were,
    with the same C++ context (a header that could now be found first would be a new file)."""

    def __init__(self, path: Optional[Path], ctx_key: str, files: list[SourceFile]) -> None:
        import hashlib

        self.path = path
        self.digests = {f.rel: f.digest for f in files}
        cfiles = sorted(f.rel for f in files if f.kind in ("cpp", "cuda", "header"))
        self.key = hashlib.sha256(("\0".join([ctx_key, *cfiles])).encode()).hexdigest()[:24]
        self.data = _load_json_dict(path) if path is not None else {}
        self.dirty = False

    def __call__(self, units: list[SourceFile], ctx: ExtractContext) -> list[tuple[str, ...]]:
        from .frontends import cpp

        out: list = [None] * len(units)
        miss = []
        for i, f in enumerate(units):
            e = self.data.get(f.rel)
            if (f.text is None and isinstance(e, list) and len(e) == 3 and e[0] == f.digest and e[1] == self.key
                    and isinstance(e[2], list)
                    and all(isinstance(x, list) and len(x) == 2 and self.digests.get(x[0]) == x[1] for x in e[2])):
                out[i] = tuple(x[0] for x in e[2])
            else:
                miss.append(i)
        if miss:
            for i, r in zip(miss, cpp.reached_headers([units[i] for i in miss], ctx)):
                out[i] = r
                f = units[i]
                if f.text is None and all(h in self.digests for h in r):
                    self.data[f.rel] = [f.digest, self.key, [[h, self.digests[h]] for h in r]]
                    self.dirty = True
        return out

    def save(self) -> None:
        if self.dirty and self.path is not None:
            live = {k: v for k, v in self.data.items() if k in self.digests}
            _write_json(self.path, live)


def _walk_missing(units: list[SourceFile], facts: list[FileFacts], extract_cached, known: set[str]):
    """A unit that skipped a header may hold definitions of it that the unit walking it does not (``#if`` on
    macros only this unit defines, another language mode): each such unit is extracted again without skipping
    the headers whose definitions the facts lack (``known``: USRs from elsewhere). Returns (units, facts)."""
    have = set(known)
    for ff in facts:
        have.update(fn.usr for fn in ff.functions)
    redo: dict[int, set[str]] = {}
    for i, (f, ff) in enumerate(zip(units, facts)):
        for h, usr in getattr(ff, "skipped_defs", ()):
            if usr and usr not in have and h in f.skip:
                redo.setdefault(i, set()).add(h)
    return _extract_again(units, facts, redo, extract_cached)


def _walked_headers(units: list[SourceFile], facts: list[FileFacts], lone: list[FileFacts], candidate) -> set[str]:
    """The shareable headers these units (with their skip sets) and lone headers walked."""
    walked: set[str] = set()
    for f, ff in zip(units, facts):
        skip = set(f.skip)
        walked.update(h for h in ff.includes if h not in skip)
    for ff in lone:
        walked.add(ff.path)
        walked.update(ff.includes)
    return {h for h in walked if candidate(h)}


def _lazy_plan(units: list[SourceFile], facts: list[FileFacts], lone: list[FileFacts], ctx: ExtractContext,
               candidate, extract_cached, reached_headers=None):
    """(an extract function for the units the call-graph expansion parses, the skip set it gave each unit by
    path). Such a unit leaves alone every shareable header it pulls in that the eagerly parsed units (or a lone
    header) walked: their facts are there already, and come first in the index. Which headers those are is
    read from their facts, so no repair is needed; the expansion's units do not share among themselves (the
    set of units a round parses depends on the rounds before it)."""
    from .frontends import cpp

    walked = _walked_headers(units, facts, lone, candidate)
    skips: dict[str, tuple[str, ...]] = {}
    known = {fn.usr for ff in (*facts, *lone) for fn in ff.functions}

    def extract(files: list[SourceFile]) -> list[FileFacts]:
        planned = []
        for f, r in zip(files, (reached_headers or cpp.reached_headers)(files, ctx)):
            skip = tuple(h for h in r if h in walked) if f.kind in ("cpp", "cuda") else ()
            planned.append(dataclasses.replace(f, skip=skip) if skip else f)
        planned, got = _walk_missing(planned, extract_cached(planned), extract_cached, known)
        for f, ff in zip(planned, got):
            skips[f.rel] = f.skip
            known.update(fn.usr for fn in ff.functions)
        return got

    return extract, skips


def _expand_with_memo(facts, lazy_facts, texts, extract_cached, cache, tus, disc, root, profile, packs, settings,
                      service=None, skips=None) -> list:
    """The files the call-graph expansion parses depend only on the C++ sources and the settings: a warm run
    with the same inputs reuses the last run's list (kept in the cache) instead of searching again. The memo
    also keeps the headers each of them left to another unit (``skips``, filled by ``extract_cached``), for
    the next run's prefetch."""
    if cache is None:
        return _expand_call_graph(facts, lazy_facts, texts, extract_cached, root, profile, packs, settings,
                                  service=service)
    import hashlib

    h = hashlib.sha256(cache.ctx_key.encode())
    # the eagerly parsed files count by what the expansion reads of them (classes, functions, calls: no
    # positions), so an edit inside a plugin unit that leaves its calls alone keeps the memo; every other C++
    # file and header counts by content (it may be searched, or parsed by a round)
    h.update(_call_structure(facts))
    eager = {ff.path for ff in facts}
    for f in tus + [f for f in disc.files if f.kind == "header"]:
        if f.rel not in eager:
            h.update(f"{f.rel}\0{f.digest}\0".encode())
    h.update(repr(sorted(frontend_versions().items())).encode())
    h.update(str(settings.max_call_depth).encode())
    h.update(_EXPANSION_VERSION.encode())
    memo = cache.dir / "expansion" / f"{h.hexdigest()[:32]}.json"
    try:
        known = json.loads(memo.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = None
    known = [k[0] for k in _memo_entries(known)] if isinstance(known, list) else None
    if known is not None and all(rel in lazy_facts for rel in known):
        got = extract_cached([lazy_facts[rel] for rel in known])
        if skips:
            _write_json(memo, [[rel, list(skips.get(rel, ()))] for rel in known])
        else:
            try:
                os.utime(memo)  # the newest memo is the one the next run prefetches (_last_expansion)
            except OSError:
                pass
        return got
    # the call-like names of each file, by content digest: a changed file is rescanned, the others are not
    names_path = cache.dir / "expansion" / f"names-{_EXPANSION_VERSION}.json"
    try:
        stored = json.loads(names_path.read_text(encoding="utf-8"))
        names_by_digest = {d: frozenset(v) for d, v in stored.items()} if isinstance(stored, dict) else {}
    except (OSError, ValueError, TypeError):
        names_by_digest = {}
    before = len(names_by_digest)
    added = _expand_call_graph(
        facts, lazy_facts, texts, extract_cached, root, profile, packs, settings, names_by_digest, service
    )
    if len(names_by_digest) != before:
        live = {f.digest for f in tus}  # files that changed or went away drop out
        _write_json(names_path, {d: sorted(v) for d, v in names_by_digest.items() if d in live})
    _write_json(memo, [[rel, list((skips or {}).get(rel, ()))] for rel in sorted(ff.path for ff in added)])
    # keep the few newest memos (the states a developer flips between), not one per edit forever
    try:
        olds = sorted((p for p in memo.parent.glob("*.json") if not p.name.startswith("names")), key=lambda p: p.stat().st_mtime)
        for p in olds[:-8]:
            p.unlink()
    except OSError:
        pass
    return added


def _memo_entries(got: list) -> list[tuple[str, tuple[str, ...]]]:
    """(path, headers it left to another unit) of an expansion memo's entries; malformed ones are dropped."""
    out = []
    for e in got:
        if (isinstance(e, list) and len(e) == 2 and isinstance(e[0], str) and isinstance(e[1], list)
                and all(isinstance(h, str) for h in e[1])):
            out.append((e[0], tuple(e[1])))
    return out


def _last_expansion(cache) -> list[tuple[str, tuple[str, ...]]]:
    """(path, skip set) of the files of the newest expansion memo (see :func:`_expand_with_memo`), or none."""
    try:
        memos = [p for p in (cache.dir / "expansion").glob("*.json") if not p.name.startswith("names")]
        newest = max(memos, key=lambda p: p.stat().st_mtime_ns) if memos else None
        got = json.loads(newest.read_text(encoding="utf-8")) if newest is not None else []
    except (OSError, ValueError):
        return []
    return _memo_entries(got) if isinstance(got, list) else []


def _load_stats(path: Path) -> tuple[dict, int]:
    """The last run's ``rel -> (size, mtime_ns, inode, digest)`` and the time before which they are trusted."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("digest") != DIGEST_NAME:  # made with another digest function: hash every file again
            return {}, 0
        files = {
            k: tuple(v)
            for k, v in data["files"].items()
            if isinstance(v, list) and len(v) == 4 and isinstance(v[3], str)
        }
        return files, int(data["trust_before_ns"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}, 0


def _load_json_dict(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_glob_memos(path: Path, memos: Optional[dict], before: int) -> None:
    """Keep the include/exclude pattern answers (discover.py) when new ones were added; at most a few
    pattern sets, and a pattern set's answers only for paths of a bounded count (the newest run's)."""
    if memos is None:
        return
    clean = {k: v for k, v in memos.items() if isinstance(v, dict) and all(isinstance(x, bool) for x in v.values())}
    if sum(len(v) for v in clean.values()) == before and len(clean) == len(memos):
        return
    if len(clean) > 8 or sum(len(v) for v in clean.values()) > 200_000:
        clean = {}
    _write_json(path, clean)


def _write_json(path: Path, data) -> None:
    """Atomic write of a cache side file; a read-only tree just goes without."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


def config_selectors(settings: Settings) -> list[tuple[str, Span]]:
    """Every rule selector the config file names, with the line it is written on."""
    if settings.config_file is None:
        return []
    try:
        rel = settings.config_file.resolve().relative_to(settings.root).as_posix()
    except ValueError:
        rel = str(settings.config_file)
    try:
        lines = settings.config_file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    sels = list(settings.select) + list(settings.ignore) + list(settings.extend_select)
    for rules in settings.per_file_ignores.values():
        sels.extend(rules)
    sels.extend(settings.severity.keys())
    out = []
    for sel in dict.fromkeys(sels):
        line = next((i for i, l in enumerate(lines, 1) if sel in l), 1)
        out.append((sel, Span(rel, line)))
    return out


def config_globs(settings: Settings) -> dict:
    """The line of each per-file-ignores glob in the config file (for TRT002)."""
    if settings.config_file is None or not settings.per_file_ignores:
        return {}
    try:
        rel = settings.config_file.resolve().relative_to(settings.root).as_posix()
    except ValueError:
        rel = str(settings.config_file)
    try:
        lines = settings.config_file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    out = {}
    for glob in settings.per_file_ignores:
        line = next((i for i, l in enumerate(lines, 1) if f'"{glob}"' in l or f"'{glob}'" in l), None)
        line = line or next((i for i, l in enumerate(lines, 1) if glob in l), 1)
        out[glob] = Span(rel, line)
    return out


def scan_all_suppressions(files: list[SourceFile], scans=None) -> dict[str, list]:
    """Inline suppression comments of every source file: whether a file holds a ``trtlint:`` comment at all
    is a text scan remembered by content digest (scancache.py); only the files that do are read again."""
    from .scancache import SUPPRESSIBLE, TextScans

    scans = scans if scans is not None else TextScans(None, has_plugin_marker, gtest_cases)
    out: dict[str, list] = {}
    for f in files:
        if f.kind not in SUPPRESSIBLE:
            continue
        if not scans.scan(f)[1]:  # no `trtlint:` in it, or generated data over 1 MB
            continue
        sups = scan_suppressions(scans.read(f).decode("utf-8", errors="replace"))
        if sups:
            out[f.rel] = sups
    return out


class _LazyTexts:
    """The bytes of the lazily skipped C++ files, read only when the call-graph expansion searches them
    (a memo miss); files over the search limit read as empty (they are never searched)."""

    def __init__(self, scans):
        self.scans = scans
        self.by_rel: dict[str, SourceFile] = {}
        self.data: dict[str, bytes] = {}

    def add(self, f: SourceFile) -> None:
        self.by_rel[f.rel] = f

    def get(self, rel: str, default: bytes = b"") -> bytes:
        if rel in self.data:
            return self.data[rel]
        f = self.by_rel.get(rel)
        if f is None:
            return default
        try:
            big = f.path.stat().st_size > _MAX_SEARCH_BYTES
        except OSError:
            big = True
        data = b"" if big else self.scans.read(f)
        self.data[rel] = data
        return data


def _run_rules(rules: list[type[Rule]], index: ProjectIndex, settings: Settings) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    for rule_cls in rules:
        rule = rule_cls()
        try:
            diags.extend(rule.check(index))
        except Exception as e:  # pragma: no cover - defensive
            tb = traceback.extract_tb(e.__traceback__)[-1]
            diags.append(
                Diagnostic(
                    code="TRT001",
                    name="parse-error",
                    severity=Severity.ERROR,
                    message=f"internal error in rule {rule_cls.code}: {type(e).__name__}: {e} ({Path(tb.filename).name}:{tb.lineno}); its findings are missing",
                    span=Span(settings.config_file.name if settings.config_file else ".", 1),
                )
            )
    return diags


def filter_diagnostics(
    diags: list[Diagnostic],
    settings: Settings,
    root: Path,
    report_only: Optional[set[str]] = None,
    suppressions: Optional[dict[str, list]] = None,
    used: Optional[set] = None,
) -> list[Diagnostic]:
    """Drop what per-file-ignores and inline suppressions hide (and, with ``report_only``, what lies outside
    those paths). ``used`` collects what did the hiding, for TRT002: ``("pfi", glob, selector)`` and
    ``("inline", path, line, code-or-*)``."""
    from .subconfig import NestedConfigs

    pfi = PerFileIgnores(settings.per_file_ignores)
    nested = NestedConfigs(settings)  # a config in a subdirectory governs the findings below it
    sup_cache: dict[str, list] = dict(suppressions or {})
    out = []
    for d in diags:
        rule = find_rule(d.code)
        sub = nested.for_path(d.span.path)
        if sub is not None and rule is not None:
            if not sub.selects(rule) or sub.pfi.ignored(sub.rel(d.span.path), rule):
                continue
        elif rule is not None:
            hits: Optional[set] = set() if used is not None else None
            if pfi.ignored(d.span.path, rule, hits):
                if used is not None and hits is not None:
                    used.update(("pfi",) + h for h in hits)
                continue
        if report_only is not None:
            paths = {d.span.path} | {r.span.path for r in d.related}
            if not (paths & report_only):
                continue
        sups = sup_cache.get(d.span.path)
        if sups is None and suppressions is not None:
            sups = []  # every file was scanned already
        if sups is None:
            try:
                text = (root / d.span.path).read_text(encoding="utf-8", errors="replace")
                sups = scan_suppressions(text)
            except (OSError, ValueError):
                sups = []
            sup_cache[d.span.path] = sups
        # a bare `trtlint: ignore` does not hide the finding that it is itself unused (TRT002)
        bare_ok = not (rule is not None and getattr(rule, "after_filter", False))
        hiding = [s for s in sups if d.span.line in s.covers and ((bare_ok and "*" in s.rules) or d.code in s.rules)]
        if hiding:
            if used is not None:
                for s in hiding:
                    used.add(("inline", d.span.path, s.line, d.code if d.code in s.rules else "*"))
            continue
        sevs = sub.settings.severity if sub is not None else settings.severity
        sev = sevs.get(d.code) or sevs.get(d.name)
        if sev:
            d = Diagnostic(**{**d.__dict__, "severity": Severity(sev)})
        out.append(d)
    return out
