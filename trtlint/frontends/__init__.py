"""Frontends: the only code that touches a parser library.

Each frontend (a module such as ``cmake.py``, or a package: ``cpp/``, ``python/``) exposes ``KIND_NAMES`` (the
discovered kinds it handles) and ``extract(src: SourceFile, ctx: ExtractContext) -> FileFacts``. Cached facts are
keyed by ``pipeline.extract.frontend_versions()``: a digest of every source file and prelude header under
``frontends/`` and of ``base/facts.py`` and ``base/span.py`` (for Python also the TensorRT Python API pack), so any change to them
invalidates the cache with no version to bump (the modules' ``VERSION`` constants are not part of that key).
``extract`` must never raise for bad input: it returns a FileFacts with ``problems`` instead (:func:`empty_facts`
when that is all).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from trtlint.base import safeio

if TYPE_CHECKING:  # pragma: no cover - imported where facts are made (a warm run reads none)
    from trtlint.base.facts import FileFacts, ParseProblem


@dataclass(frozen=True)
class SourceFile:
    path: Path  # absolute
    rel: str  # project-relative POSIX path
    kind: str  # "cpp" | "cuda" | "header" | "python" | "cmake" | "makefile" | "onnx" | "yaml"
    digest: str
    # the unsaved text of an editor buffer (the LSP server): extracted instead of the file on disk
    text: Optional[str] = field(default=None, repr=False, compare=False)
    # C++ units only: project headers whose declarations this unit does not walk, because an earlier unit of the
    # same run walks them (the engine's shared-header plan, engine._shared_header_plan); the unit still records
    # that it includes them. Part of the cache key.
    skip: tuple[str, ...] = ()
    # C++/CUDA units: the extra compile arguments (``-I<abs dir>``, ``-D<define>``) of the CMake target(s)
    # that compile the unit (trtlint.pipeline.buildmodel); () for a unit in no target. Headers: the include
    # dirs of their program (buildmodel.header_include_dirs), used when one is parsed on its own. Part of the
    # cache key.
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExtractContext:
    root: Path
    include_dirs: tuple[str, ...] = ()  # absolute include dirs for C++ (config + profile)
    compile_commands: Optional[str] = None  # absolute path to compile_commands.json
    defines: tuple[str, ...] = ()
    max_call_depth: int = 8
    onnx_load_external: bool = False
    # Python direct-route builders: ``operation("name", inputs, **attrs)``
    route_call_names: tuple[str, ...] = ("operation",)
    route_reserved_kwargs: tuple[str, ...] = ("output_count",)


def empty_facts(src: SourceFile, problems: tuple[ParseProblem, ...] = (), kind: str = "") -> FileFacts:
    """The facts of a file in which a frontend found nothing, or only ``problems`` (``kind``: the kind recorded
    when ``src`` has none)."""
    from trtlint.base.facts import FileFacts

    return FileFacts(path=src.rel, kind=src.kind or kind, digest=src.digest, problems=problems)


def read_text(src: SourceFile, legacy: bool = False) -> tuple[Optional[str], Optional[str]]:
    """Read a source file as UTF-8 (or its unsaved buffer text, when it has one). Returns (text, problem).

    A file that is not UTF-8 is read in the encoding its PEP 263 cookie (``# -*- coding: gbk -*-`` on one of
    its first two lines) names, when that decodes it. With ``legacy`` (C++, CUDA and CMake, whose compilers
    read a GBK comment or a Latin-1 string as bytes), every byte that is not part of valid UTF-8 is read as
    ``?``: the text keeps the file's length in UTF-8 bytes, so libclang's byte offsets stay the file's; the
    cookie is not used there (it would move them)."""
    if src.text is not None:
        try:
            src.text.encode("utf-8")
            return src.text, None
        except UnicodeEncodeError:
            # ``check -`` keeps the bytes of stdin that are not UTF-8 as surrogate escapes: judged as the file's
            # bytes are, so the same text gives the same finding through stdin and from disk
            data = src.text.encode("utf-8", "surrogateescape")
    else:
        try:
            data = safeio.read_bytes(src.path, limit=safeio.SOURCE_LIMIT)
        except OSError as e:
            return None, f"cannot read file: {e.strerror or e}"
    if b"\x00" in data[:8192]:
        return None, "binary file (contains NUL bytes)"
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as e:
        if legacy:
            return data.decode("utf-8-sig", "trtlint-bytes"), None
        cookie = _CODING.search(b"\n".join(data.split(b"\n", 2)[:2]))
        if cookie is not None:
            try:
                return data.decode(cookie.group(1).decode("ascii")), None
            except (LookupError, UnicodeDecodeError):
                pass
        return None, f"not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start})"


# PEP 263: ``coding[:=]`` on a comment line among a file's first two lines
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.M)


def _one_mark_per_byte(e: UnicodeDecodeError) -> tuple[str, int]:
    return "?" * (e.end - e.start), e.end


codecs.register_error("trtlint-bytes", _one_mark_per_byte)


# -- heavy imports in a worker pool --------------------------------------------------------------------------
# A frontend that is about to import a costly parser library for one file (libcst: ~0.3 s) calls
# ``need("libcst")`` first. In a pool worker, when another worker has already paid for that import, the worker
# sets ``DECLINE`` and ``need`` raises HandBack instead: the pool gives the file to that worker rather than
# importing the library a second time (see trtlint.workers). ``ON_LOAD(module, seconds)`` tells the pool that
# this process is importing it (seconds None) and how long the import took. Outside a pool (the CLI with -j 1
# for Python, the LSP's in-process path) both stay unset and ``need`` only imports the module.
DECLINE: frozenset = frozenset()
ON_LOAD = None


class HandBack(BaseException):
    """Raised by :func:`need` in a worker that should not import ``module``; never escapes the worker."""

    def __init__(self, module: str) -> None:
        super().__init__(module)
        self.module = module


def need(module: str) -> None:
    """Import ``module`` (a costly one, e.g. libcst) for the file being extracted, or hand the file back."""
    import importlib
    import sys
    import time

    if module in sys.modules:
        return
    if module in DECLINE:
        raise HandBack(module)
    if ON_LOAD is not None:
        ON_LOAD(module, None)
    t = time.perf_counter()
    importlib.import_module(module)
    if ON_LOAD is not None:
        ON_LOAD(module, time.perf_counter() - t)


# The C++ frontend's per-function memo of the body walk kept in a run's cache (frontends/cpp/fnmemo.py), set by a
# pool worker that stores facts: ``MEMO_LOAD(rel)`` -> (the unit's last facts, their memo) or None, and
# ``MEMO_OUT`` (rel -> memo) where the frontend leaves the memo of a unit it extracted, for the entry it goes in.
MEMO_LOAD = None
MEMO_OUT: Optional[dict] = None

# Absolute path -> unsaved editor text of C++ files, set by the LSP session in its own process: the C++
# frontend hands them to libclang, so a translation unit sees the edited (unsaved) header it includes.
UNSAVED: dict[str, str] = {}


def unsaved_files(path: str, text: str) -> list[tuple[str, str]]:
    """libclang's ``unsaved_files`` for parsing ``path`` with contents ``text``, plus the open C++ buffers."""
    return [(path, text)] + [(p, t) for p, t in UNSAVED.items() if p != path]


def split_top_level(text: str, opens: str = "(", closes: str = ")", sep: str = ",") -> list[str]:
    """``text`` split at each ``sep`` outside brackets (``opens``/``closes``, any nesting): ``a, f(b, c)`` ->
    ``["a", " f(b, c)"]``. The parts keep their spaces."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in opens:
            depth += 1
        elif ch in closes:
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def continued_lines(text: str) -> list[tuple[int, str]]:
    """The logical lines of a Makefile or shell script: a backslash at the end of a line joins the next one (with
    a space), each with the number of its first physical line."""
    out = []
    buf, start = "", 0
    for n, raw in enumerate(text.splitlines(), 1):
        if not buf:
            start = n
        if raw.endswith("\\"):
            buf += raw[:-1] + " "
            continue
        out.append((start, buf + raw))
        buf = ""
    if buf:
        out.append((start, buf))
    return out
