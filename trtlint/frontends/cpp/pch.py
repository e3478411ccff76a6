"""The C++ frontend's shared precompiled header (see the comment below for what it holds and when a unit uses it)."""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from trtlint.base import envvars
from .base import CUDA_PRELUDE, ORT_PRELUDE, PRELUDE_DIR, TRT_PRELUDE, libclang, lock
from .flags import builtin_include_dir, dir_has

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
PCH_STATS = {"pch_built": 0, "pch_loaded": 0, "pch_used": 0, "pch_skipped": 0, "pch_fallback": 0}
_PATH_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter")


def _files_of(includes: list, stamps: list) -> frozenset[str]:
    """The real paths of the headers a PCH records (found by search, and read from the SDK directories)."""
    return frozenset(os.path.realpath(f) for _s, f in includes) | frozenset(p for p, _m, _z in stamps)


@lru_cache(maxsize=1)
def _prelude_digest() -> str:
    import hashlib

    # (the stand-ins' own place too: a PCH holds the paths of the headers it read, and a unit parsed by another
    # install of the same release, which includes its own copies, would see each declaration twice)
    h = hashlib.sha256(str(PRELUDE_DIR).encode())
    for f in sorted(PRELUDE_DIR.rglob("*")):
        if f.is_file():
            h.update(str(f.relative_to(PRELUDE_DIR)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


@lru_cache(maxsize=1)
def _libclang_version() -> str:
    try:
        lib = libclang.ci.conf.lib
        fn = lib.clang_getClangVersion
        fn.restype = libclang.ci._CXString
        fn.errcheck = libclang.ci._CXString.from_result
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
    env = envvars.text("TRTLINT_PCH_DIR")
    cands = [Path(env)] if env else []
    xdg = envvars.text("XDG_CACHE_HOME")
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
        if d is not None and not d.startswith(str(PRELUDE_DIR)) and d != builtin_include_dir():
            real[h] = d
    if real:
        return [h for h in top if h in real], list(dict.fromkeys(real.values()))
    for f in _prelude_files(group):
        d = _resolve(order, f.name)
        if d is not None and not d.startswith(str(PRELUDE_DIR)) and d != builtin_include_dir():
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
    if envvars.flag("TRTLINT_NO_PCH"):
        return None
    force = str(CUDA_PRELUDE / "__trtlint_cuda.h")
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
    user_dirs = [d for d in dirs if not d.startswith(str(PRELUDE_DIR)) and d != builtin_include_dir()]
    if any(dir_has(d, h) for d in user_dirs for h in _PCH_STD_HEADERS):
        return None
    inc_dirs, search, _after = _search_dirs(args)
    search = [d for d in search if d != builtin_include_dir()]
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
    keep = real_dirs | ({str(CUDA_PRELUDE)} if cuda else set())
    for d in dict.fromkeys(inc_dirs):
        if d in keep:
            pch_args += ["-I", d]
    builtin = builtin_include_dir()
    if builtin:
        pch_args += ["-isystem", builtin]
    pch_args += ["-idirafter", str(TRT_PRELUDE), "-idirafter", str(ORT_PRELUDE), "-idirafter", str(CUDA_PRELUDE)]
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


def pch_for(args: list[str], cuda: bool) -> Optional[tuple[str, list[str]]]:
    """(PCH path, TU args to use with it) or None."""
    plan = _pch_plan(args, cuda)
    if plan is None:
        with lock:
            PCH_STATS["pch_skipped"] += 1
        return None
    pch_args, header, tu_args, stamps, tops = plan
    import hashlib

    key = hashlib.sha256(
        json.dumps([_libclang_version(), _prelude_digest(), pch_args, header, stamps]).encode()
    ).hexdigest()[:32]
    with lock:
        if key in _pch_paths:
            path = _pch_paths[key]
        elif len(_pch_paths) >= _PCH_MAX:
            PCH_STATS["pch_skipped"] += 1
            return None
        else:
            path = _build_pch(key, pch_args, header, tops)
            _pch_paths[key] = path
        if path and not _pch_fits(key, args):
            PCH_STATS["pch_skipped"] += 1
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
    it read changed since (under a file lock, so parallel workers build it once). Called with ``lock`` held."""
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
                    PCH_STATS["pch_loaded"] += 1
                    return str(target)
            except (OSError, ValueError, KeyError, TypeError):
                pass
        hdr = d / f"{key}.h"
        hdr.write_text(header, encoding="utf-8")
        ci = libclang.ci
        opts = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD | ci.TranslationUnit.PARSE_INCOMPLETE
        tu = libclang.index.parse(str(hdr), args=pch_args, options=opts)
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
        PCH_STATS["pch_built"] += 1
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


def drop_pch(path: str) -> None:
    """A PCH libclang refused (headers changed since it was built...): forget it and delete the file."""
    with lock:
        for k, v in list(_pch_paths.items()):
            if v == path:
                _pch_paths[k] = None
        PCH_STATS["pch_fallback"] += 1
    try:
        os.unlink(path)
    except OSError:
        pass


def headers_in(path: str) -> frozenset[str]:
    """The real paths of the project-side headers the PCH at ``path`` holds (a unit never blanks them)."""
    return _pch_files.get(path, frozenset())


# a diagnostic that says libclang refused the PCH (the unit is then parsed without it)
PCH_ERROR = re.compile(r"precompiled header|PCH file|AST file|has been modified since|was built with", re.I)
