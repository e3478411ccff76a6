"""One file through its frontend: the frontend table and the cache versions of its kinds, extraction that never
raises (an internal error becomes TRT001), the per-file time limit (a SIGALRM timer), and the extraction
context a run's settings and profile give.

The time limit is passed in (``timeout``), never read from a module setting.
"""

from __future__ import annotations

import importlib
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from trtlint.base import envvars
from trtlint.config.settings import Settings
from trtlint.base.span import Span
from ..frontends import ExtractContext, SourceFile
from trtlint.config.packs import Profile

if TYPE_CHECKING:  # pragma: no cover
    from trtlint.base.facts import FileFacts

FRONTENDS = {
    "cpp": "trtlint.frontends.cpp",
    "cuda": "trtlint.frontends.cpp",
    "header": "trtlint.frontends.cpp",
    "python": "trtlint.frontends.python",
    "cmake": "trtlint.frontends.cmake",
    "makefile": "trtlint.frontends.makefile",
    "onnx": "trtlint.frontends.onnx",
    "yaml": "trtlint.frontends.yaml_kind",  # test lists (testlists.py) and TensorRT OSS plugin specs (plugin_spec.py)
}

def frontend_for(kind: str):
    mod = FRONTENDS.get(kind)
    if mod is None:
        return None
    return importlib.import_module(mod)


_VERSIONS: dict[str, str] = {}
# the single-file frontends (frontends/cmake.py...), by path under frontends/: each counts for its own kind only
_FRONTEND_FILES = {m.rsplit(".", 1)[1] + ".py" for m in FRONTENDS.values()}
# frontends whose results are never cached as facts (the run reads them itself): not part of any kind's key
_FRONTEND_FILES.add("trtversion.py")


def frontend_versions() -> dict[str, str]:
    """A cache-key version per kind: a digest of the frontend's source and of the facts vocabulary, so any
    change to either invalidates cached facts (without importing the frontends on a warm run)."""
    if not _VERSIONS:
        import hashlib
        import importlib.util

        here = Path(__file__).parent.parent  # the trtlint package
        # (one digest of the common part, copied per kind: the same digests as of the concatenated bytes)
        common = hashlib.sha256((here / "base" / "facts.py").read_bytes())
        common.update((here / "base" / "span.py").read_bytes())
        for m in ("ortfacts.py", "buildfacts.py", "helperfacts.py", "pyclassfacts.py"):  # (the fact modules facts.py re-exports)
            common.update((here / "base" / m).read_bytes())
        # every other source of the frontends (the modules of the frontends/cpp/ and frontends/python/ packages,
        # helper modules, prelude headers) counts for every kind
        fdir = here / "frontends"
        for extra in sorted(fdir.rglob("*")):
            if (extra.is_file() and extra.suffix in (".py", ".h", ".hpp", ".cuh")
                    and extra.relative_to(fdir).as_posix() not in _FRONTEND_FILES):
                common.update(extra.read_bytes())
        for kind, mod in FRONTENDS.items():
            try:
                spec = importlib.util.find_spec(mod)
                src = Path(spec.origin).read_bytes() if spec and spec.origin else b""
                # (a package's modules, e.g. frontends/cpp/flow.py, are already in the common part)
                if spec and spec.origin:
                    if kind == "python":  # the TensorRT Python API pack decides which uses are recorded
                        from trtlint.config.packs import shipped_dir

                        pack = shipped_dir() / "tensorrt_python.yaml"
                        src += pack.read_bytes() if pack.is_file() else b""
            except (ImportError, OSError, ValueError):
                src = b""
            h = common.copy()
            h.update(src)
            _VERSIONS[kind] = h.hexdigest()[:16]
    return _VERSIONS


def _failed(src: SourceFile, msg: str = "") -> "FileFacts":
    """The facts of a file whose frontend failed (``msg``: the TRT001 message; "" none) or does not exist. The fact
    vocabulary is imported here, not with the module: a warm run that imports this module extracts nothing."""
    from trtlint.base.facts import FileFacts, ParseProblem

    return FileFacts(path=src.rel, kind=src.kind, digest=src.digest,
                     problems=(ParseProblem(msg, Span(src.rel, 1)),) if msg else ())


def extract_one(src: SourceFile, ctx: ExtractContext) -> FileFacts:
    """Run the frontend for one file; never raises (an internal error becomes TRT001)."""
    try:
        fe = frontend_for(src.kind)
    except ImportError as e:
        msg = f"the {src.kind} frontend is unavailable: {e}"
        return _failed(src, msg)
    if fe is None:
        return _failed(src)
    try:
        return fe.extract(src, ctx)
    except RecursionError:
        msg = "internal error: nesting too deep to analyse"
    except Exception as e:  # pragma: no cover - defensive: a frontend bug must not stop the run
        tb = traceback.extract_tb(e.__traceback__)[-1]
        msg = f"internal error in the {src.kind} frontend: {type(e).__name__}: {e} ({Path(tb.filename).name}:{tb.lineno})"
    return _failed(src, msg)


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


def warm(kind: str, src: Optional[SourceFile], ctx: ExtractContext) -> None:
    """Import the frontend of ``kind`` and let it get ready (a worker started before its first file: see
    ``Pool.warm``): with ``src``, :func:`prepare` for it; without, the frontend's own ``warm`` if it has one
    (C++: libclang loaded)."""
    fe = frontend_for(kind)
    if fe is None:
        return
    if src is not None:
        prepare(src, ctx)
    elif hasattr(fe, "warm"):
        fe.warm()


_WARM_UP = "import tensorrt as trt\nfields = [trt.PluginField('a')]\n"  # reaches the libcst extractors


def preload(kind: str, root: Path) -> None:
    """Import the Python-level frontend of ``kind`` and warm it up on a two-line snippet of trtlint's own (held
    in memory; for Python: libcst, the API packs, ~0.3 s), without parsing any project file, so that the
    workers forked afterwards inherit it instead of paying it each (``check -``: the load's worker and the
    buffer's). Not for the C++ kinds: libclang is loaded in the workers only (a process is not forked with it
    loaded)."""
    if kind != "python":
        return
    try:
        extract_one(SourceFile(path=root / "trtlint-warm-up.py", rel="trtlint-warm-up.py", kind="python",
                               digest="warm-up", text=_WARM_UP), ExtractContext(root=root))
    except Exception:  # noqa: BLE001 - the worker's extraction reports what is wrong
        pass


def extract_limited(src: SourceFile, ctx: ExtractContext, timeout: float = 0, prepared: bool = False) -> FileFacts:
    """:func:`extract_one` within ``timeout`` seconds (0: no limit): a file that takes longer becomes TRT001
    "timed out after N s" and the run goes on. The limit is a SIGALRM timer, so it applies where extraction runs
    in a process's main thread (the pool's workers; the parent only when no worker can be started); a parser
    busy inside C code (libclang) is interrupted when it returns to Python, and the pool's watchdog kills it."""
    import signal
    import threading

    if envvars.text("TRTLINT_TEST_SLOW_FILE"):  # test-only hook: a file this slow, to test the limit
        name, _, secs = envvars.text("TRTLINT_TEST_SLOW_FILE").partition("=")
        secs, _, where = secs.partition(":")
        slow = float(secs or 30) if src.rel.endswith(name) else 0.0
        slow_in_ctypes = where == "ctypes"
    else:
        slow, slow_in_ctypes = 0.0, False
    crash = envvars.text("TRTLINT_TEST_CRASH_FILE")  # test-only hook: a parse that kills its process
    if crash and src.rel.endswith(crash):
        import os

        os.kill(os.getpid(), signal.SIGSEGV)
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
    return _failed(src, msg)


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
