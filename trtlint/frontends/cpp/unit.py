"""The C++ frontend's entry points for one unit: its compile arguments, the shared PCH, the guarded and blanked
texts handed to libclang, the parse, what its diagnostics mean for the analysis, the declaration walk and the
contract scan. ``extract`` never raises: unreadable input, libclang failures and internal errors become
``ParseProblem``s."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Optional

from trtlint.base import safeio
from trtlint.base import envvars
from trtlint.base.facts import FileFacts, GuessedInclude, MissingInclude, ParseProblem, Span
from .. import UNSAVED, ExtractContext, SourceFile, read_text, unsaved_files
from .base import CUDA_PRELUDE, PRELUDE_DIR, libclang, load, lock
from .decls import Extractor
from .flags import compile_args, has_real, include_dirs_of
from .pch import PCH_ERROR, PCH_STATS, drop_pch, headers_in, pch_for
from .reach import reached_headers  # noqa: F401 - the package exports it from here too

KIND_NAMES = ("cpp", "cuda", "header")

_STATS = {"files": 0, "missing_includes": 0, "errors": 0, "blanked_bodies": 0, "blank_retries": 0}


def stats() -> dict[str, int]:
    """Counters for this process (files parsed, missing includes seen, libclang errors, PCH use, functions walked and
    taken from the per-function memo)."""
    from .fnmemo import STATS as MEMO_STATS

    return {**_STATS, **PCH_STATS, **{f"fn_{k}": v for k, v in MEMO_STATS.items()}}


_TRT_ARTIFACT = re.compile(r"nvinfer1|abstract class")
_CUDA_ARTIFACT = re.compile(
    r"'(?:cu|CU|__nv_|__half|half|nv_bfloat|cub::|cutlass|nccl|cudnn|float[1-4]'|int[1-4]'|uint[1-4]'|make_)"
    r"|undeclared identifier '(?:min|max|__[a-z]\w*|atomic\w*|rsqrtf|__ldg)'"
)
# the CUDA-style token a syntax error's line names, for the stand-in gaps (an SDK macro or name the stand-ins lack)
_GAP_TOKEN = re.compile(r"\b(?:__[A-Za-z]\w*__|__nv_\w+|cu[A-Z]\w+|CU[A-Z_]+\w*|cuda[A-Z]\w+)")


def _stand_in_words() -> frozenset[str]:
    """Every word of the CUDA stand-in headers (what they declare or define, and more): a token of a syntax error's
    line that is not among them is a name they lack."""
    global _WORDS
    if _WORDS is None:
        words: set[str] = set()
        for f in sorted(CUDA_PRELUDE.glob("*.h")):
            try:
                words.update(re.findall(r"\w+", f.read_text(encoding="utf-8", errors="replace")))
            except OSError:
                pass
        _WORDS = frozenset(words)
    return _WORDS


_WORDS: Optional[frozenset[str]] = None
_MISSING_RE = re.compile(r"'([^']+)' file not found")
# the CUDA name a stand-in artifact error is about: an undeclared identifier or type, a member a stand-in struct lacks
_GAP_NAME = re.compile(r"^(?:use of undeclared identifier|unknown type name|no type named|no member named) '([^']+)'"
                       r"(?: in '([^']+)')?")


def _facts(src: SourceFile, kind: str, problems: tuple[ParseProblem, ...] = (), **kw: Any) -> FileFacts:
    return FileFacts(path=src.rel, kind=kind, digest=src.digest, problems=problems, **kw)


def warm() -> None:
    """Load libclang now (a worker started before its first C++ file: ``Pool.warm``). Never raises."""
    try:
        load()
    except Exception:  # noqa: BLE001 - extract() reports whatever goes wrong
        pass


def prepare(src: SourceFile, ctx: ExtractContext) -> None:
    """Build (or load) the shared PCH this unit will use, before its own time limit starts: the PCH is built
    once per machine and set of flags, and that build is not the file's time. Never raises."""
    try:
        load()
        args = compile_args(src, ctx)
        pch_for(args, "cuda" in args[:2])
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


# GPU-only bodies are blanked before a CUDA-mode parse (device.py); TRTLINT_BLANK_DEVICE=0 turns that off
# (the facts are the same either way: bench/cpp_facts_dump.py compares them).
_BLANK_DEVICE = envvars.flag("TRTLINT_BLANK_DEVICE")
_BLANK_MEMO: dict[tuple[str, str, int, int], tuple[Optional[str], tuple[int, ...]]] = {}


def _blanked_file(path: str, text: Optional[str], blank: Any = None) -> tuple[Optional[str], tuple[int, ...]]:
    """(the file's text with the bodies ``blank`` finds blanked, their offsets), or (None, ()) when nothing is
    blanked. ``blank``: device.blank_device_bodies (GPU-only bodies, the default) or blank_function_bodies.
    ``text``: the file's text when it is not the one on disk (an open buffer, a guarded header); from the disk
    it is read once per process, version of the file and ``blank``."""
    from .device import blank_device_bodies

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
            # byte for byte: libclang's offsets are the disk's
            disk = safeio.read_bytes(path, limit=safeio.SOURCE_LIMIT, follow=True).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            disk = None
        if disk is not None:
            out, opened = blank(disk)
            if opened:
                got = (out, tuple(opened))
        _BLANK_MEMO[key] = got
    return got


# The function bodies of the headers a unit leaves to another unit (SourceFile.skip) are blanked before its
# parse (device.blank_function_bodies); TRTLINT_BLANK_SKIPPED=0 turns that off (the facts are the same
# either way: the unit never walks those headers).
_BLANK_SKIPPED = envvars.flag("TRTLINT_BLANK_SKIPPED")


def _blank_skipped(unsaved: list[tuple[str, str]], reached: list[str], root: str, skip: frozenset[str],
                   in_pch: frozenset[str]) -> list[tuple[str, str]]:
    """The unsaved files for a parse with the function bodies of the unit's skipped headers blanked (never a
    header the shared PCH holds, nor one open in the editor under another spelling of its path)."""
    from .device import blank_function_bodies

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


def _with_version_floors(classes, root_dir: str, rel: str, text: str) -> tuple:
    """Each class with the release the ``#if`` version-test branch around its declaration is for (its file's text:
    this unit's, or a header's read through safeio)."""
    import dataclasses

    from ..trtversion import branch_floors, floor_at

    memo: dict[str, list] = {}
    out = []
    for c in classes:
        p = c.span.path
        if p not in memo:
            data = text.encode("utf-8", "surrogateescape") if p == rel else safeio.try_read_bytes(
                os.path.join(root_dir, p), root=root_dir, limit=safeio.SOURCE_LIMIT)
            memo[p] = branch_floors(data) if data and b"NV_TENSORRT_MAJOR" in data else []
        fl = floor_at(memo[p], c.span.line) if memo[p] else None
        out.append(dataclasses.replace(c, version_floor=fl) if fl else c)
    return tuple(out)


# a run's re-extraction of an edited unit takes its headers' part from the unit's cache entry (kept.record);
# TRTLINT_KEPT_HEADERS=0 turns that off (the facts are the same either way)
_KEPT_HEADERS = envvars.flag("TRTLINT_KEPT_HEADERS")


def _blank_unmarked(unsaved: list[tuple[str, str]], reached: list[str], root: str, in_pch: frozenset[str],
                    keep: frozenset[str]) -> list[tuple[str, str]]:
    """The unsaved files for the parse of a kept walk from the cache entry: the function bodies of the project headers
    the unit reaches that hold no plugin marker blanked, as those of the headers a unit leaves to another unit are
    (never one of ``keep``, the headers declaring a class of the last facts; never a header the shared PCH holds or
    the stand-ins, nor one open in the editor)."""
    from ..markers import has_plugin_marker
    from .device import blank_function_bodies

    given = dict(unsaved)
    out = dict(given)
    open_elsewhere = {os.path.realpath(p) for p in given}
    prefix, prelude = root + os.sep, str(PRELUDE_DIR) + os.sep
    for h in dict.fromkeys(reached):
        real = os.path.realpath(h)
        if (not real.startswith(prefix) or real.startswith(prelude) or real in in_pch or real in open_elsewhere
                or os.path.relpath(real, root).replace(os.sep, "/") in keep):
            continue
        try:
            if has_plugin_marker(safeio.read_bytes(h, limit=safeio.SOURCE_LIMIT, follow=True)):
                continue
        except OSError:
            continue
        t = _blanked_file(h, given.get(h), blank_function_bodies)[0]
        if t is not None:
            out[h] = t
    return list(out.items())


def _stored_kept(keptmod: Any, memo: Any, path: str, region: bytes, root_dir: str, src: SourceFile,
                 ctx: ExtractContext, kind: str, unsaved: list, opts: int, want: list) -> Any:
    """The :class:`kept.Kept` (no translation unit) of the unit's cache entry when this extraction may take the
    headers' part from it, else None."""
    rec = memo.kept
    why = ("context or buffers" if rec.get("key") != keptmod.key_of(want, opts, src, ctx, kind, path, unsaved)
           else "preamble text" if rec.get("region") != region
           else "header text" if _heads(root_dir, memo.ff.includes) != memo.heads else None)
    if why is not None:
        keptmod.count("entry fresh: " + why)
        return None
    k = keptmod.from_record(rec, memo.ff, memo.heads)
    if k is None:
        keptmod.count("entry fresh: not a record")
    return k


def _extract(src: SourceFile, ctx: ExtractContext, kind: str, blank: bool = True, reuse: bool = True) -> FileFacts:
    first = blank  # (a retry without blanking uses no memo: fnmemo)
    text, problem = read_text(src, legacy=True)  # a GBK comment is bytes to the compiler: read, offsets kept
    if text is None:
        return _facts(src, kind, (ParseProblem(problem or "cannot read file", Span(src.rel, 1)),))
    from .templated import TEMPLATE_NOTE, placeholder_line

    at = placeholder_line(text)
    if at is not None:  # a code generator's template text: not C++, never parsed (a note, not a parse error)
        return _facts(src, kind, (ParseProblem(TEMPLATE_NOTE, Span(src.rel, at), note=True),))
    ci = load()
    refused_flags: list[tuple[str, str]] = []
    args = compile_args(src, ctx, refused_flags)
    from .guard import guard_headers, guard_includes  # devices/FIFOs named by #include are never opened

    inc_dirs = include_dirs_of(args)
    from .guess import guess_include_dirs, shown_dir

    root_dir = str(Path(ctx.root).resolve())
    guessed = guess_include_dirs(text, str(src.path), inc_dirs, root_dir)
    for d, _name, _line in guessed:
        args += ["-I", d]
        inc_dirs.append(d)
    text, blocked = guard_includes(text, str(src.path.parent), inc_dirs)
    cuda_mode = "cuda" in args[:2]
    if cuda_mode:  # nvcc's spaced launch chevrons (``k<< <g, b>> >(x)``) joined, every offset kept
        from .device import join_launch_chevrons

        text = join_launch_chevrons(text)
    skipped = blank and _BLANK_SKIPPED and bool(src.skip)  # (``blank`` is off in a retry: nothing is blanked)
    blank = blank and cuda_mode and _BLANK_DEVICE
    reached: list[str] = []
    from . import kept as keptmod

    # a run's worker (not the editor's, which keeps the translation unit itself): the unit's cache entry may hold the
    # headers' part of its last complete extraction (kept.record), and a complete extraction leaves one there
    entry = first and _KEPT_HEADERS and not keptmod.ENABLED and kind != "header"
    stored = None
    if entry and reuse:
        from . import fnmemo

        stored = fnmemo.stored(src.rel, src.kind)
        if stored is not None and stored.kept is None:
            stored = None
    guarded_headers, blocked_in_headers = guard_headers(text, str(src.path), inc_dirs, UNSAVED,
                                                        reached if blank or skipped or stored is not None else None)
    # KeepGoing (0x200): a missing header is not fatal, so template instantiation (std::string ==, emplace_back,
    # function templates) keeps working after it.
    opts = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD | ci.TranslationUnit.PARSE_INCOMPLETE | 0x200
    path = str(src.path)
    unsaved = [u for u in unsaved_files(path, text) if u[0] not in dict(guarded_headers)] + guarded_headers
    with lock:
        _STATS["files"] += 1
    pch = pch_for(args, cuda_mode)
    blanked: dict[str, frozenset[int]] = {}
    in_pch = headers_in(pch[0]) if pch is not None else frozenset()
    if skipped:
        unsaved = _blank_skipped(unsaved, reached, str(Path(ctx.root).resolve()), frozenset(src.skip), in_pch)
    if blank:
        unsaved, blanked = _blank_unit(path, text, unsaved, reached, str(Path(ctx.root).resolve()), in_pch)

    # the editor's kept translation unit (kept.py: the extraction worker only; never a retry's parse)
    keeping = first and keptmod.ENABLED
    k = None
    region_end = 0
    main_bytes = b""
    if entry:
        main_bytes = dict(unsaved)[path].encode("utf-8", "surrogateescape")
        region_end = keptmod.region_end(main_bytes)
    from_entry = None
    if stored is not None and pch is not None:
        want = pch[1] + ["-include-pch", pch[0]]
        from_entry = _stored_kept(keptmod, stored, path, main_bytes[:region_end], root_dir, src, ctx, kind, unsaved,
                                  opts, want)
    if keeping:
        opts |= ci.TranslationUnit.PARSE_PRECOMPILED_PREAMBLE
        main_bytes = dict(unsaved)[path].encode("utf-8", "surrogateescape")
        region_end = keptmod.region_end(main_bytes)
        want = pch[1] + ["-include-pch", pch[0]] if pch is not None else args
        k = _kept_unit(keptmod, path, main_bytes[:region_end], root_dir, src, ctx, kind, unsaved, opts, want)
    tu = None
    used_args = args
    if from_entry is not None:
        try:
            # (a header a diagnostic of the complete parse is in keeps its bodies too: blanked, the diagnostic would go)
            keep = frozenset(c.span.path for c in from_entry.ff.classes) | frozenset(
                os.path.relpath(os.path.realpath(d[2]), root_dir).replace(os.sep, "/") for d in from_entry.diags if d[2])
            tu = libclang.index.parse(path, args=want, unsaved_files=_blank_unmarked(unsaved, reached, root_dir, in_pch, keep),
                                      options=opts)
        except Exception:  # noqa: BLE001
            tu = None
        why = ("parse failed" if tu is None
               else "diagnostics differ" if keptmod.diag_signature(tu, path, region_end) != from_entry.diags
               else "defaulted member" if not keptmod.check_defaults(ci, tu, from_entry) else None)
        if why is not None:
            keptmod.count("entry fresh: " + why)
            tu, from_entry = None, None
        else:
            k, used_args = from_entry, want
    elif k is not None:
        try:
            k.tu.reparse(unsaved_files=unsaved, options=opts)
            tu = k.tu
        except Exception:  # noqa: BLE001
            tu = None
        why = ("reparse failed" if tu is None else "diagnostics differ" if keptmod.diag_signature(tu, path, region_end) != k.diags
               else "defaulted member" if not keptmod.check_defaults(ci, tu, k) else None)
        if why is not None:
            keptmod.count("fresh: " + why)
            keptmod.drop(path)
            k, tu = None, None
    if tu is None and pch is not None:
        try:
            tu = libclang.index.parse(path, args=pch[1] + ["-include-pch", pch[0]], unsaved_files=unsaved,
                              options=opts)
            used_args = pch[1] + ["-include-pch", pch[0]]
        except Exception:  # noqa: BLE001
            tu = None
        if tu is None or any(d.severity >= 3 and PCH_ERROR.search(d.spelling or "") for d in tu.diagnostics):
            drop_pch(pch[0])
            tu = None
        else:
            with lock:
                PCH_STATS["pch_used"] += 1
    if tu is None:
        try:
            tu = libclang.index.parse(path, args=args, unsaved_files=unsaved, options=opts)
            used_args = args
        except Exception as e:  # noqa: BLE001 (TranslationUnitLoadError)
            return _facts(src, kind, (ParseProblem(f"libclang could not parse the file: {e}", Span(src.rel, 1)),))

    problems: list[ParseProblem] = [
        ParseProblem(f"#include \"{name}\" names a device or special file; not read", Span(src.rel, line), partial=True)
        for line, name in blocked
    ] + [
        ParseProblem(f"#include \"{name}\" in {_shown(hpath, ctx.root)}:{hline} names a device or special file; "
                     "not read", Span(src.rel, line), partial=True)
        for line, hpath, hline, name in blocked_in_headers
    ] + [
        ParseProblem(f"compile flag {flag} {path} names a device or special file; left out (never read)",
                     Span(src.rel, 1), partial=True)
        for flag, path in dict.fromkeys(refused_flags)
    ]
    missing = 0
    errors = []
    not_found: list[tuple[Optional[str], int, int, str]] = []  # (file, line, column, name as written)
    for d in tu.diagnostics:
        if d.severity < 3:
            continue
        msg = d.spelling or ""
        m = _MISSING_RE.search(msg)
        if m:
            missing += 1
            loc = d.location
            not_found.append((loc.file.name if loc.file else None, loc.line, loc.column, m.group(1)))
            continue
        errors.append(d)
    with lock:
        _STATS["missing_includes"] += missing
        _STATS["errors"] += len(errors)
    # Errors that name TensorRT / CUDA entities while the stand-in prelude headers are in use are artifacts of
    # the prelude (it declares only what plugin code commonly touches), not problems of the file.
    if not has_real(args, "NvInferRuntime.h"):
        errors = [d for d in errors if not _TRT_ARTIFACT.search(d.spelling or "")]
    gaps: list[str] = []
    if not has_real(args, "cuda_runtime_api.h"):
        gaps = [f"{m.group(2)}::{m.group(1)}" if m.group(2) and not m.group(2).startswith("namespace") else m.group(1)
                for d in errors if _CUDA_ARTIFACT.search(d.spelling or "")
                and (m := _GAP_NAME.search(d.spelling or "")) is not None] if not not_found else []
        errors = [d for d in errors if not _CUDA_ARTIFACT.search(d.spelling or "")]
    # Semantic errors (undeclared names, no matching overload, abstract types) come from parsing without the
    # project's real build flags and SDK headers: they are the environment's, not the file's. Only syntax
    # errors ("Parse Issue") in the file itself, with no header missing, make its analysis partial.
    errors = [
        d for d in errors
        if (d.category_name or "") == "Parse Issue" and d.location.file is not None and d.location.file.name == path
    ]
    if errors and not (has_real(args, "NvInferRuntime.h") and has_real(args, "cuda_runtime_api.h")):
        # a syntax error on a line that names an SDK entity the stand-in prelude lacks is the prelude's gap
        lines = text.splitlines()

        def _sdk_line(d) -> bool:
            n = d.location.line
            line = lines[n - 1] if 0 < n <= len(lines) else ""
            return bool(re.search(r"nvinfer1|\bI[A-Z]\w+|\bcu[A-Za-z]|cuda|__\w+", line))

        if not has_real(args, "cuda_runtime_api.h") and not not_found:
            # never silent: a CUDA-style name on such a line (an attribute macro like `__CUDA_ALIGN__(8)` the
            # stand-ins lacked made a typedef a syntax error, the type undeclared, the calls using it invalid)
            for d in errors:
                n = d.location.line
                line = lines[n - 1] if _sdk_line(d) and 0 < n <= len(lines) else ""
                name = next((t for t in _GAP_TOKEN.findall(line) if t not in _stand_in_words()), None)
                if name is not None:
                    gaps.append(name)
        errors = [d for d in errors if not _sdk_line(d)]
    if errors and missing == 0:
        d = errors[0]
        loc = d.location
        fname = loc.file.name if loc.file else None
        ex0 = Extractor(ci, src, ctx, text)
        rel = ex0.rel_of(fname) or src.rel
        where = f"{rel}:{loc.line}:{loc.column}" if fname else src.rel
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        problems.append(ParseProblem(f"{d.spelling} at {where}{more}",
                                     Span(rel, max(loc.line, 1), max(loc.column, 1)), partial=True))

    ex = Extractor(ci, src, ctx, text)
    if k is not None:
        ex.preload(k, tu, region_end)
    elif keeping or entry:
        ex.capture = True
    if blanked:
        ex.blanked = blanked
        ex._blanked_offsets = frozenset().union(*blanked.values())
    # the per-function memo of the body walk: not after a syntax error in the unit (clang's recovery is not local)
    memo_key = None
    if first and not any(d.severity >= 3 and (d.category_name or "") == "Parse Issue" and d.location.file is not None
                         and d.location.file.name == path for d in tu.diagnostics):
        from . import fnmemo

        memo_key = fnmemo.context_key(args, src, ctx, kind)
        ex.memo = fnmemo.begin(ex, memo_key)
    ex.run(tu)
    missing_includes = []
    for fname, line, col, name in not_found:
        rel = ex.rel_of(fname)
        if rel is not None:
            missing_includes.append(MissingInclude(name, Span(rel, max(line, 1), max(col, 1))))
    if k is not None and ex.kept_doubt is not None:  # the kept walk cannot give a fresh parse's facts: parse afresh
        keptmod.count(("entry fresh: " if from_entry is not None else "fresh: ") + ex.kept_doubt)
        keptmod.drop(path)
        return _extract(src, ctx, kind, reuse=False)
    if ex.blank_violation:  # a blanked body was not GPU-only after all: parse the unit as it is
        if keeping:
            keptmod.drop(path)
        with lock:
            _STATS["blank_retries"] += 1
        return _extract(src, ctx, kind, blank=False)
    if blanked:
        with lock:
            _STATS["blanked_bodies"] += sum(len(v) for v in blanked.values())
    from . import contract
    from .skipped import inactive_plugin_code

    try:
        contracts = contract.scan(ex, tu, only=src.rel if k is not None else None)
        if k is not None:
            contracts = k.ff.fn_contracts[:k.counts["fn_contracts"]] + contracts
        typed = {(r.span.path, r.span.line) for r in ex.registrations if r.how == "call"}
        ex.registrations.extend(r for r in contract.registrations(ex) if (r.span.path, r.span.line) not in typed)
    except Exception as e:  # noqa: BLE001 - the contract: never raise
        contracts = ()
        problems.append(ParseProblem(f"internal error in C++ contract scan: {type(e).__name__}: {e}", Span(src.rel, 1), partial=True))
    ff = _facts(
        src,
        kind,
        tuple(problems),
        classes=_with_version_floors(ex.classes, root_dir, src.rel, text),
        functions=tuple(ex.functions),
        registrations=tuple(ex.registrations),
        lookups=tuple(ex.lookups),
        includes=tuple(sorted(ex.includes)),
        lifecycle=tuple(ex.lifecycle),
        fn_contracts=contracts,
        skipped_defs=tuple(sorted(ex.skipped_defs)),
        missing_includes=tuple(dict.fromkeys(missing_includes)),
        unresolved_classes=tuple(dict.fromkeys(ex.unresolved_classes)),
        ort_ops=tuple(dict.fromkeys(ex.ort_ops)),
        inactive=inactive_plugin_code(ci, tu, path, src.rel, text) if kind != "header" else (),
        guessed_includes=tuple(GuessedInclude(name, shown_dir(d, root_dir), Span(src.rel, line)) for d, name, line in guessed),
        stand_in_gaps=tuple(dict.fromkeys(gaps))[:20],
    )
    if k is not None:
        ff = keptmod.compose(k, ff)
        keptmod.count("kept" if from_entry is None else "kept from the entry")
        if from_entry is not None:
            ex.kept_record = stored.kept  # (the headers' part is the same: the next run may take it again)
    elif entry:
        if _unkeepable(keptmod, ex, ff, src.rel) is None:
            r = region_end
            ex.kept_record = keptmod.record(keptmod.Kept(
                None, keptmod.key_of(used_args, opts, src, ctx, kind, path, unsaved), main_bytes[:r], (), ff,
                keptmod.prefix_counts(ff, src.rel), [m for m in ex.cap_macros if m[1] != path or m[2] < r],
                ex.cap_defaults, keptmod.diag_signature(tu, path, r), tuple(sl for sl in ex.memo_slots if sl[0] != path)))
    elif keeping:
        _keep(keptmod, ex, tu, ff, path, region_end, main_bytes[:region_end], root_dir, src, ctx, kind, unsaved, opts,
              used_args)
    if memo_key is not None:
        fnmemo.finish(ex, memo_key, ff)
    return ff


def _heads(root_dir: str, includes: Any) -> tuple:
    """Digests of the unit's project headers as libclang reads them (open buffers first)."""
    from types import SimpleNamespace

    from . import fnmemo

    def read(p: str) -> bytes:
        try:
            return safeio.read_bytes(p, limit=safeio.SOURCE_LIMIT, follow=True)
        except OSError:
            return b""

    return fnmemo.head_stamps(SimpleNamespace(root=root_dir, file_bytes=read), includes)


def _kept_unit(keptmod: Any, path: str, region: bytes, root_dir: str, src: SourceFile, ctx: ExtractContext, kind: str,
               unsaved: list, opts: int, want: list) -> Any:
    """The unit's kept translation unit when its next extraction may reparse it (kept.py), else None (dropped)."""
    k = keptmod.get(path)
    if k is None:
        keptmod.count("fresh: none kept")
        return None
    key = keptmod.key_of(want, opts, src, ctx, kind, path, unsaved)
    why = ("context or buffers" if key != k.key else "preamble text" if region != k.region
           else "header text" if _heads(root_dir, k.ff.includes) != k.heads else None)
    if why is not None:
        keptmod.count("fresh: " + why)
        keptmod.drop(path)
        return None
    return k


def _unkeepable(keptmod: Any, ex: Extractor, ff: FileFacts, rel: str) -> Optional[str]:
    """Why a complete extraction's headers' part cannot serve a later kept walk, or None."""
    why = ("not analysed" if any(not p.partial and not p.note for p in ff.problems)
           else "a header's registration or creator list" if ex.cap_unkeepable
           else "header items after the unit's" if keptmod.prefix_counts(ff, rel) is None else None)
    if why is not None:
        keptmod.count("not kept: " + why)
    return why


def _keep(keptmod: Any, ex: Extractor, tu: Any, ff: FileFacts, path: str, region_end: int, region: bytes, root_dir: str,
          src: SourceFile, ctx: ExtractContext, kind: str, unsaved: list, opts: int, used_args: list) -> None:
    """Keep a complete extraction's translation unit for the unit's next extraction, when it can be (kept.py)."""
    keptmod.drop(path)
    if _unkeepable(keptmod, ex, ff, src.rel) is not None:
        return
    counts = keptmod.prefix_counts(ff, src.rel)
    r = region_end
    keptmod.put(path, keptmod.Kept(
        tu, keptmod.key_of(used_args, opts, src, ctx, kind, path, unsaved), region, _heads(root_dir, ff.includes), ff,
        counts, [m for m in ex.cap_macros if m[1] != path or m[2] < r], ex.cap_defaults,
        keptmod.diag_signature(tu, path, r), tuple(sl for sl in ex.memo_slots if sl[0] != path)))

