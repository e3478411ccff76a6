"""The C++ frontend's compile arguments for one unit: ``compile_commands.json`` (include, define and standard
flags only), the profile's include dirs, the include dirs and defines of the CMake target compiling the unit
(``SourceFile.flags``, from trtlint.pipeline.buildmodel), the directories a plugin layout implies, the system compiler's
builtin headers and the stand-in SDK headers of ``prelude/``."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Optional

from .. import ExtractContext, SourceFile
from ..compdb import load_entries
from .base import CUDA_PRELUDE, ORT_PRELUDE, PRELUDE_DIR, TRT_PRELUDE
from .guard import refuse_special_flags


@lru_cache(maxsize=1)
def builtin_include_dir() -> Optional[str]:
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


def _compile_command_flags(cc_path: str, file: Path, root: Optional[str] = None) -> Optional[list[str]]:
    """Include/define flags from compile_commands.json for ``file`` (None when it has no entry, or when the file
    is refused: :func:`trtlint.frontends.compdb.load_entries`; the build model reports why)."""
    try:
        mtime = os.path.getmtime(cc_path)
        cached = _cc_cache.get(cc_path)
        if cached is None or cached[0] != mtime:
            entries, _why = load_entries(cc_path, root)
            table: dict[str, list[str]] = {}
            for e in entries or ():
                try:
                    d = e.get("directory", "") or ""
                    fpath = os.path.normpath(os.path.join(d, e.get("file", "")))
                    args = e.get("arguments") or shlex.split(e.get("command", ""))
                    table[fpath] = _filter_flags([str(a) for a in args], d, fpath)
                except (AttributeError, TypeError, ValueError):
                    continue
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


_ANCESTOR_NAMES = {"cpp", "include", "src", "plugin", "plugins"}


def compile_args(src: SourceFile, ctx: ExtractContext, refused: Optional[list] = None) -> list[str]:
    """The unit's compile arguments. Flags that would make libclang open a device, FIFO or socket (``-include
    /dev/zero``, ``-I /proc/self/fd``, from any source) are left out (guard.refuse_special_flags); ``refused``,
    when given, gets each as (flag, path)."""
    path = Path(src.path)
    suffix = path.suffix.lower()
    cuda = src.kind == "cuda" or suffix in (".cu", ".cuh")
    args: list[str] = []
    if cuda:
        args += ["-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-D__CUDACC__"]
    else:
        args += ["-x", "c++"]
    args += ["-std=c++17", "-fsyntax-only", "-Wno-everything", "-ferror-limit=0", "-fno-spell-checking"]
    cc_flags = _compile_command_flags(ctx.compile_commands, path, str(ctx.root)) if ctx.compile_commands else None
    if cc_flags:
        std = [a for a in cc_flags if a.startswith("-std=")]
        if std:
            args = [a for a in args if not a.startswith("-std=")] + std[-1:]
        args += [a for a in cc_flags if not a.startswith("-std=")]
    if cuda:
        args += ["-I", str(CUDA_PRELUDE)]
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
    unit_defines = []
    for a in src.flags:  # the include dirs and defines of the CMake target(s) compiling this unit
        if a.startswith("-I") and len(a) > 2:
            inc(a[2:])
        elif a.startswith("-D") and len(a) > 2:
            unit_defines.append(a)
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
    args += unit_defines
    builtin = builtin_include_dir()
    if builtin:
        args += ["-isystem", builtin]
    args += ["-idirafter", str(TRT_PRELUDE), "-idirafter", str(ORT_PRELUDE)]
    if not cuda:
        args += ["-idirafter", str(CUDA_PRELUDE)]
    else:
        args += ["-include", str(CUDA_PRELUDE / "__trtlint_cuda.h")]
    args, bad = refuse_special_flags(args)
    if refused is not None:
        refused.extend(bad)
    return args



@lru_cache(maxsize=1024)
def dir_has(d: str, header: str) -> bool:
    return not d.startswith(str(PRELUDE_DIR)) and os.path.isfile(os.path.join(d, header))


def has_real(args: list[str], header: str) -> bool:
    """Whether a real (non-prelude) copy of ``header`` is on the include path."""
    dirs = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-I", "-isystem", "-idirafter")]
    return any(dir_has(d, header) for d in dirs)


def include_dirs_of(args: list[str]) -> list[str]:
    """The directories a unit's #include lines are searched in, from its compile arguments."""
    return [
        b if a in ("-I", "-isystem", "-iquote") else a[2:] for a, b in zip(args, args[1:] + [""])
        if a in ("-I", "-isystem", "-iquote") or (a.startswith("-I") and len(a) > 2)
    ]
