"""The TensorRT release a tree says it builds against, read from text (no parser library, no cached facts).

:func:`evidence` turns one file's bytes into :class:`Evidence` items; the pipeline
(:mod:`trtlint.pipeline.trtversion`) chooses one version per program from them. What is read, by strength
(``tier``, lower is stronger):

0. an in-tree ``NvInferVersion.h``: ``#define NV_TENSORRT_MAJOR 10`` / ``NV_TENSORRT_MINOR 1`` (a value that is
   another macro of the same file, as ``TRT_MAJOR_ENTERPRISE``, is followed): the headers the code compiles with;
1. build pins: CMake ``find_package(TensorRT 8.6 ...)``, a ``TensorRT-8.6.1.6`` directory named in a CMake file,
   a ``tensorrt`` requirement (``tensorrt==8.6.1``, ``tensorrt>=10,<11``, ``tensorrt-cu12~=10.3``) in
   ``requirement*.txt`` or ``requirements/*.txt``, ``pyproject.toml``, ``setup.py`` or ``setup.cfg``;
2. what scripts and documents name: ``TensorRT-10.9.0.34`` in a ``Dockerfile``, a shell script or a README, and
   the releases their prose names, spaced or hyphenated (``Update to TensorRT 10.16``, ``TensorRT v8.6``;
   major.minor, not ``TensorRT 10.x`` nor ``TensorRT-LLM``), also in a requirement file's comments
   (``numpy  # 1.26.4 for TensorRT-10.16``): of them the newest counts, as in every tier (a README's changelog
   names each release the project went through, "From branch TensorRT-10.0" among them; the latest is the
   one it builds with now);
3. version tests in C++ (``#if NV_TENSORRT_MAJOR >= 8``, ``NV_TENSORRT_MAJOR > 10 || (... MINOR > 3)``). A test
   pins nothing: it says the code is written to build on both sides of a release, so that release is one the
   code claims to support: a floor (``>= 8``, ``> 7``, ``== 8``, ``< 8`` all name 8.0; ``MAJOR >= 10 && MINOR >=
   6`` names 10.6). Of an ``||`` the lowest alternative is the floor: ``MAJOR > 10 || (MAJOR == 10 && MINOR >
   3)`` names 10.4 and ``(MAJOR >= 10 && MINOR >= 6) || MAJOR >= 11`` 10.6 (the code builds with 10.6 and up),
   not 11.0 (:func:`_floor`). The newest floor is taken, and only when nothing above is found.

Besides the files: a directory named for a release (``TRT-8-version/``, ``CCLPlugin-TRT7/``, ``TensorRT-8.6/``,
``tensorrt7/``: :func:`release_named`) holds code kept for that release (a major alone: its first release, 8.0);
the pipeline judges its subtree against it unless a pin (tiers 0 and 1) inside the subtree says otherwise.

A requirement's bounds: ``==``/``~=``/``>=`` give that release; ``<11`` (with or without a lower bound) gives
``10.x``, the newest release below it; ``<=10.3`` gives 10.3.

The files of tiers 1 and 2 that discovery does not list (``requirement*.txt``, ``requirements/*.txt``, ``pyproject.toml``,
``setup.cfg``, ``Dockerfile*``, ``*.sh``, ``README*``) are read only in the project root and each program's
directory (:data:`EXTRA_NAMES`), never searched for.
"""

from __future__ import annotations

import fnmatch
import re
from typing import NamedTuple

__all__ = ["DEPRECATED_WORDS", "branch_chains", "chain_at", "chain_truth", "EXTRA_NAMES", "Evidence", "evidence", "is_extra_name", "marked_deprecated",
           "may_hold_evidence", "release_named"]


class Evidence(NamedTuple):
    version: str  # "8.6", "10.x": major.minor, or major.x (the newest release of that major)
    tier: int  # 0 in-tree headers, 1 build pin, 2 scripts and documents, 3 C++ version tests (a floor)
    what: str  # "find_package(TensorRT 8.6)", as the summary quotes it
    path: str  # project-relative
    line: int


# files outside discovery's kinds that can pin a version, read where a program's root is (never searched for)
EXTRA_NAMES = ("requirement*.txt", "pyproject.toml", "setup.cfg", "Dockerfile*", "*.dockerfile", "*.sh", "README*")

_NUM = rb"(\d+(?:\.\d+)*)"
_FIND_PACKAGE = re.compile(rb"find_package\s*\(\s*TensorRT\s+" + _NUM, re.I)
_TARBALL = re.compile(rb"(?<![\w.])TensorRT-(\d+\.\d+(?:\.\d+)*)")
# a release named in prose (documents, scripts, requirement comments): "TensorRT 10.16", "TensorRT-10.0",
# "TensorRT v8.6.1": spaced and hyphenated alike, major.minor (a major alone, "TensorRT 10", or any release of one,
# "TensorRT 10.x API", "TensorRT 7.x+", says too little: READMEs name them for what they do not recommend or for
# another branch), not part of a longer name ("TensorRT-LLM 0.9", "torch_tensorrt 2.1", "tensorrt_cookbook")
_PROSE = re.compile(rb"(?<![\w.\-/])TensorRT(?:[ \t]+|-)v?(\d{1,2}\.\d+(?:\.\d+)*)(?![\w.]*-?LLM)", re.I)
# a tensorrt requirement: the package, then one or two comparisons (torch-tensorrt and tensorrt_llm are other
# packages: no word character, '-' or '.' before it, and after it only the CUDA-flavour suffixes)
_REQ = re.compile(
    rb"(?<![\w.\-/])(?:nvidia-)?tensorrt(?:[-_]cu\d+)?(?:[-_](?:libs|bindings))?\s*(?:\[[^\]]*\])?\s*"
    rb"(==|~=|>=|<=|<|>)\s*(\d+(?:\.(?:\d+|\*))*)(?:\s*,\s*(<=|<|>=|>|!=)\s*(\d+(?:\.\d+)*))?",
    re.I,
)
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+(\w+)", re.M)
_PP_LINE = re.compile(rb"^[ \t]*#[ \t]*(?:if|elif)\b((?:\\\n|[^\n])*)", re.M)  # with its continuation lines
_COMMENT = re.compile(rb"//[^\n]*|/\*.*?\*/", re.S)
_MAJOR_TEST = re.compile(rb"NV_TENSORRT_MAJOR\s*(>=|>|==|<=|<|!=)\s*(\d+)")
_MINOR_TEST = re.compile(rb"NV_TENSORRT_MINOR\s*(>=|>|==|<=|<|!=)\s*(\d+)")


# a folder named for a TensorRT release: "TRT-8-version", "CCLPlugin-TRT7", "LayerNormPlugin-TRT8", "TensorRT-8.6",
# "tensorrt7", "trt_10": TRT or TensorRT at the start of the name or after a separator, the major (and minor), then
# the end of the name or a separator ("trt2onnx", "TensorRT-For-YOLO", "tensorrtx" name none)
_RELEASE_DIR = re.compile(r"(?:^|[-_.\s])(?:trt|tensorrt)[-_]?v?(\d{1,2})(?:[._](\d{1,2}))?(?=$|[-_.\s])", re.I)
_MAJORS = range(4, 16)  # the releases a folder can plausibly be named for (TensorRT 4 .. 15)


def release_named(component: str):
    """The release a directory name says its code is for ("8.6" for ``TensorRT-8.6``; a major alone, "8", for
    ``TRT8``), or None (:data:`_RELEASE_DIR`)."""
    m = _RELEASE_DIR.search(component)
    if m is None or int(m.group(1)) not in _MAJORS:
        return None
    return f"{int(m.group(1))}.{int(m.group(2))}" if m.group(2) is not None else str(int(m.group(1)))


# a file or folder whose name marks its code deprecated: one of these words as a whole word of the name
# ("DeprecatedLayers", "add_scalar-V2-deprecated.py", "obsolete/", "archived_samples"). Not "legacy" (a
# compatibility layer a project still builds and ships), "old" ("run_old.py", "threshold") nor "archive" (a
# serialization archive: "json_archive.h")
DEPRECATED_WORDS = ("deprecated", "obsolete", "archived")
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def marked_deprecated(component: str):
    """The word of :data:`DEPRECATED_WORDS` a directory name or file name (its extension dropped) holds as a
    word of its own, split at separators, digits and case changes ("MatrixMultiplyDeprecated": "deprecated";
    "nondeprecated", "archive_reader": None), or None."""
    stem = component.rsplit(".", 1)[0] if "." in component[1:] else component
    words = {w.lower() for w in _WORDS.findall(stem)}
    return next((w for w in DEPRECATED_WORDS if w in words), None)


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def is_extra_name(name: str) -> bool:
    """A file discovery does not list that may pin a version (:data:`EXTRA_NAMES`)."""
    return any(fnmatch.fnmatch(name, p) for p in EXTRA_NAMES)


def _requirements(path: str) -> bool:
    """A pip requirements file: ``requirement*.txt`` (``requirements.txt``, ``requirements-dev.txt``, the singular
    ``requirement.txt``) or any ``.txt`` in a ``requirements/`` directory (``requirements/runtime.txt``)."""
    name = _name(path)
    parent = path.replace("\\", "/").rsplit("/", 2)[-2] if "/" in path.replace("\\", "/") else ""
    return fnmatch.fnmatch(name, "requirement*.txt") or (parent == "requirements" and name.endswith(".txt"))


def may_hold_evidence(path: str, kind: str) -> bool:
    """Whether a discovered file is read for evidence: CMake files, ``NvInferVersion.h``, ``setup.py``. (C++
    files are read for version tests only when their ``#if`` identifiers name ``NV_TENSORRT_MAJOR``.)"""
    name = _name(path)
    return kind == "cmake" or name == "NvInferVersion.h" or name == "setup.py"


def _mm(v: str) -> str:
    """major.minor of a release number ("8.6.1.6" -> "8.6", "10" -> "10.0")."""
    parts = v.split(".")
    return f"{int(parts[0])}.{int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0}"


def _line(data: bytes, at: int) -> int:
    return data.count(b"\n", 0, at) + 1


def _commented(data: bytes, at: int, marks: tuple[bytes, ...], quotes: bytes = b"\"'") -> bool:
    """Whether ``at`` is inside a comment: after one of ``marks`` earlier on its line, outside a string quoted
    with one of ``quotes`` (``torch  # works with tensorrt>=10`` pins nothing; ``"tensorrt>=10"  # note`` does)."""
    start = data.rfind(b"\n", 0, at) + 1
    head = data[start:at]
    quote = None
    i = 0
    while i < len(head):
        ch = head[i : i + 1]
        if quote is not None:
            if ch == b"\\":
                i += 1
            elif ch == quote:
                quote = None
        elif quotes and ch in quotes:
            quote = ch
        elif any(head.startswith(m, i) for m in marks):
            return True
        i += 1
    return False


def _below(v: str) -> str:
    """The newest release below ``v`` ("11" -> "10.x", "10.4" -> "10.3")."""
    parts = [int(x) for x in v.split(".") if x.isdigit()]
    if len(parts) > 1 and parts[1] > 0:
        return f"{parts[0]}.{parts[1] - 1}"
    return f"{parts[0] - 1}.x"


def _requirement(op: str, v: str, op2: str, v2: str) -> str:
    bounds = [(op, v)] + ([(op2, v2)] if op2 else [])
    for o, x in bounds:  # an upper bound says the newest release allowed
        if o == "<":
            return _below(x)
        if o == "<=":
            return _mm(x)
    x = bounds[0][1]
    if x.endswith(".*"):
        x = x[:-2]
        if "." not in x:
            return f"{int(x)}.x"
    return _mm(x)


def _version_header(path: str, data: bytes) -> list[Evidence]:
    defs = {m.group(1).decode(): (m.group(2).decode(), m.start()) for m in _DEFINE.finditer(data)}

    def value(name: str):
        v = defs.get(name)
        if v is not None and not v[0].isdigit():
            v = defs.get(v[0], (None, v[1]))[0], v[1]  # one macro further (TRT_MAJOR_ENTERPRISE)
        return v if v is not None and v[0] is not None and v[0].isdigit() else None

    major, minor = value("NV_TENSORRT_MAJOR"), value("NV_TENSORRT_MINOR")
    if major is None:
        return []
    version = f"{int(major[0])}.{int(minor[0]) if minor else 0}"
    return [Evidence(version, 0, f"NV_TENSORRT_MAJOR {version.split('.')[0]}"
                     + (f", NV_TENSORRT_MINOR {version.split('.')[1]}" if minor else ""),
                     path, _line(data, major[1]))]


def _threshold(op: bytes, n: int) -> int:
    """The release a comparison with ``n`` turns at: ``>= 8``, ``< 8``, ``== 8`` at 8; ``> 7``, ``<= 7`` at 8."""
    return n + 1 if op in (b">", b"<=") else n


_TOKEN = re.compile(rb"\|\||&&|[()!]|NV_TENSORRT_(?:MAJOR|MINOR)\s*(?:>=|>|==|<=|<|!=)\s*\d+|[^\s()|&!]+|[|&]")


def _floor(text: bytes):
    """(major, minor) of the release a version test claims to support, or None when it tests no major.
    A comparison names the release it turns at (:func:`_threshold`); in an ``&&`` the newest of each part
    (``MAJOR == 10 && MINOR >= 6``: 10.6); of an ``||`` the lowest alternative with a major (``(MAJOR >= 10 &&
    MINOR >= 6) || MAJOR >= 11``: 10.6, the code builds with 10.6 and up). Other operands (``defined(X)``,
    other macros) say nothing."""
    toks = _TOKEN.findall(text)
    pos = 0

    def leaf(t: bytes):
        m = _MAJOR_TEST.fullmatch(t) or _MINOR_TEST.fullmatch(t)
        if m is None:
            return None, None
        n = _threshold(m.group(1), int(m.group(2)))
        return (n, None) if t.startswith(b"NV_TENSORRT_MAJOR") else (None, n)

    def primary():
        nonlocal pos
        if pos < len(toks) and toks[pos] == b"!":
            pos += 1
            return primary()  # a negated test turns at the same release
        if pos < len(toks) and toks[pos] == b"(":
            pos += 1
            v = disjunction()
            if pos < len(toks) and toks[pos] == b")":
                pos += 1
            return v
        if pos < len(toks) and toks[pos] not in (b")", b"||", b"&&"):
            t = toks[pos]
            pos += 1
            if pos < len(toks) and toks[pos] == b"(":  # defined(X), a function-like macro: skip its arguments
                depth = 0
                while pos < len(toks):
                    depth += {b"(": 1, b")": -1}.get(toks[pos], 0)
                    pos += 1
                    if depth == 0:
                        break
                return None, None
            return leaf(t)
        return None, None

    def conjunction():
        nonlocal pos
        parts = [primary()]
        while pos < len(toks) and toks[pos] == b"&&":
            pos += 1
            parts.append(primary())
        majors = [a for a, _ in parts if a is not None]
        minors = [b for _, b in parts if b is not None]
        return (max(majors) if majors else None), (max(minors) if minors else None)

    def disjunction():
        nonlocal pos
        alts = [conjunction()]
        while pos < len(toks) and toks[pos] == b"||":
            pos += 1
            alts.append(conjunction())
        with_major = [a for a in alts if a[0] is not None]
        if with_major:
            return min(with_major, key=lambda a: (a[0], a[1] or 0))
        minors = [b for _, b in alts if b is not None]  # MINOR == 13 || MINOR == 14, under a major test
        return None, (min(minors) if minors else None)

    major, minor = disjunction()
    return None if major is None else (major, minor or 0)


def _version_tests(path: str, data: bytes) -> list[Evidence]:
    out = []
    for m in _PP_LINE.finditer(data):
        text = _COMMENT.sub(b" ", m.group(1).replace(b"\\\n", b" "))
        if b"NV_TENSORRT_MAJOR" not in text:
            continue
        floor = _floor(text)
        if floor is None:
            continue
        cond = b" ".join(m.group(0).replace(b"\\\n", b" ").split()).decode("utf-8", "replace")
        out.append(Evidence(f"{floor[0]}.{floor[1]}", 3, cond, path, _line(data, m.start())))
    return out


_COND_TOKEN = re.compile(rb"\|\||&&|!=|==|>=|<=|[()<>!]|NV_TENSORRT_MAJOR|NV_TENSORRT_MINOR|\d+|\s+")
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")


def _truth(text: bytes, major: int, minor: int) -> Optional[bool]:
    """The value of a version test at release ``major.minor``; None when it tests anything else (a define,
    another macro) or does not parse."""
    out, pos = [], 0
    for m in _COND_TOKEN.finditer(text):
        if m.start() != pos:
            return None  # a token the test should not hold (defined(X), another macro)
        pos = m.end()
        t = m.group(0)
        if t.isspace():
            continue
        out.append({b"||": " or ", b"&&": " and ", b"!": " not ", b"NV_TENSORRT_MAJOR": str(major),
                    b"NV_TENSORRT_MINOR": str(minor)}.get(t, t.decode()))
    if pos != len(text) or not out:
        return None
    try:
        v = eval("".join(out), {"__builtins__": {}}, {})  # noqa: S307 - digits, comparisons, and/or/not only
    except Exception:  # noqa: BLE001 - a test that does not parse says nothing
        return None
    return bool(v)


def branch_floors(data: bytes) -> list[tuple[int, int, str]]:
    """``(first line, last line, release)`` of each preprocessor branch that only a TensorRT of at least
    ``release`` compiles: the ``#if`` branch of a version test that holds from a release on (``#if
    NV_TENSORRT_MAJOR >= 10``), or the ``#else`` branch of one that holds up to it (``#if NV_TENSORRT_MAJOR < 10``).
    Such code is written for that release and newer: judging it against an older target says nothing."""
    out: list[tuple[int, int, str]] = []
    stack: list[list] = []  # [floor of the current branch or None, its first line, floor of the #else or None]
    lines = data.split(b"\n")
    i = 0
    while i < len(lines):
        line_no = i + 1
        raw = lines[i]
        while raw.endswith(b"\\") and i + 1 < len(lines):
            i += 1
            raw = raw[:-1] + b" " + lines[i]
        m = _DIRECTIVE.match(raw)
        i += 1
        if m is None:
            continue
        kind, rest = m.group(1), _COMMENT.sub(b" ", m.group(2)).strip()
        if kind in (b"if", b"ifdef", b"ifndef"):
            then_floor = else_floor = None
            if kind == b"if" and b"NV_TENSORRT_MAJOR" in rest:
                fl = _floor(rest)
                if fl is not None:
                    prev = (fl[0], fl[1] - 1) if fl[1] else (fl[0] - 1, 99)
                    at, before = _truth(rest, *fl), _truth(rest, *prev)
                    if at is True and before is False:
                        then_floor = f"{fl[0]}.{fl[1]}"
                    elif at is False and before is True:
                        else_floor = f"{fl[0]}.{fl[1]}"
            stack.append([then_floor, line_no + 1, else_floor])
        elif kind == b"elif" and stack:
            top = stack[-1]
            if top[0]:
                out.append((top[1], line_no - 1, top[0]))
            top[0], top[1], top[2] = None, line_no + 1, None  # later branches: not judged
        elif kind == b"else" and stack:
            top = stack[-1]
            if top[0]:
                out.append((top[1], line_no - 1, top[0]))
            top[0], top[1], top[2] = top[2], line_no + 1, None
        elif kind == b"endif" and stack:
            top = stack.pop()
            if top[0]:
                out.append((top[1], line_no - 1, top[0]))
    return sorted(out)


def branch_chains(data: bytes) -> list[tuple[int, tuple]]:
    """The preprocessor conditions around each stretch of lines: ``(first line, chain)`` in line order, a stretch
    running to the next one's first line; ``chain`` holds, innermost last, one ``(earlier, own)`` per enclosing
    branch: the conditions of the branches before it in its ``#if`` chain and its own (``#else``: None), each the
    test as written without comments, or None for an ``#ifdef``/``#ifndef`` (:func:`chain_truth` evaluates them)."""
    out: list[tuple[int, tuple]] = [(1, ())]
    stack: list[tuple[tuple, object]] = []
    lines = data.split(b"\n")
    i = 0
    while i < len(lines):
        raw = lines[i]
        while raw.endswith(b"\\") and i + 1 < len(lines):
            i += 1
            raw = raw[:-1] + b" " + lines[i]
        i += 1
        m = _DIRECTIVE.match(raw)
        if m is None:
            continue
        kind, rest = m.group(1), _COMMENT.sub(b" ", m.group(2)).strip()
        if kind in (b"if", b"ifdef", b"ifndef"):
            stack.append(((), rest if kind == b"if" else _UNKNOWN))
        elif kind in (b"elif", b"else") and stack:
            earlier, own = stack[-1]
            stack[-1] = (earlier + (own,), rest if kind == b"elif" else None)
        elif kind == b"endif" and stack:
            stack.pop()
        else:
            continue
        out.append((i + 1, tuple(stack)))
    return out


_UNKNOWN = b"\x00"  # the condition of an #ifdef / #ifndef: not a version test


def chain_truth(chain: tuple, major: int, minor: int) -> Optional[bool]:
    """Whether code under ``chain`` (:func:`branch_chains`) is compiled at TensorRT ``major.minor``: False when a
    branch around it is not (its version test fails, or one of an earlier branch of its chain holds), True when
    every test around it is a version test that holds, None when one tests anything else (a define, a macro)."""
    known = True
    for earlier, own in chain:
        before = [_truth(c, major, minor) if c != _UNKNOWN else None for c in earlier]
        if any(b is True for b in before):
            return False
        this = True if own is None else (_truth(own, major, minor) if own != _UNKNOWN else None)
        if this is False:
            return False
        if this is None or any(b is None for b in before):
            known = False
    return True if known else None


def chain_at(chains: list[tuple[int, tuple]], line: int) -> tuple:
    """The chain of conditions around ``line`` (:func:`branch_chains`)."""
    import bisect

    k = bisect.bisect_right([a for a, _c in chains], line) - 1
    return chains[k][1] if k >= 0 else ()


def floor_at(branches: list[tuple[int, int, str]], line: int) -> Optional[str]:
    """The newest release a branch enclosing ``line`` is written for (:func:`branch_floors`), or None."""
    best = None
    for a, b, rel in branches:
        if a <= line <= b and (best is None or tuple(map(int, rel.split("."))) > tuple(map(int, best.split(".")))):
            best = rel
    return best


def evidence(path: str, data: bytes) -> list[Evidence]:
    """The version evidence in one file's bytes (``path`` is project-relative; its name chooses what is looked
    for). C++ files give their version tests; other kinds as the module docstring lists."""
    name = _name(path)
    out: list[Evidence] = []
    if name == "NvInferVersion.h":
        return _version_header(path, data)
    low = name.lower()
    if low.endswith((".h", ".hpp", ".cuh", ".cpp", ".cc", ".cxx", ".cu", ".c", ".inl", ".hh", ".hxx")):
        if b"NV_TENSORRT_MAJOR" not in data:
            return []
        if b"$" in data:  # a code generator's template is no code that builds (frontends/cpp/templated.py)
            from .cpp.templated import placeholder_line

            if placeholder_line(data.decode("utf-8", "replace")) is not None:
                return []
        return _version_tests(path, data)
    if name == "CMakeLists.txt" or low.endswith(".cmake"):
        for m in _FIND_PACKAGE.finditer(data):
            if not _commented(data, m.start(), (b"#",), b'"'):
                out.append(Evidence(_mm(m.group(1).decode()), 1, f"find_package(TensorRT {m.group(1).decode()})",
                                    path, _line(data, m.start())))
        hints = _message_spans(data)
        for m in _TARBALL.finditer(data):
            # a path inside message(...) is an example for the reader ("like -DTensorRT_ROOT=.../TensorRT-6.0.1.5/"
            # in a FATAL_ERROR hint), not a directory the build uses
            if not _commented(data, m.start(), (b"#",), b'"') and not any(a <= m.start() < b for a, b in hints):
                out.append(Evidence(_mm(m.group(1).decode()), 1, f"TensorRT-{m.group(1).decode()}", path,
                                    _line(data, m.start())))
        return out
    if _requirements(path) or name in ("pyproject.toml", "setup.py", "setup.cfg"):
        # a requirement file has no strings (pip: a '#' after whitespace starts a comment); the others quote theirs
        quotes = b"" if _requirements(path) else b"\"'"
        if _requirements(path):  # its comments are the project's prose ("numpy==1.26.4 for TensorRT-10.16")
            out.extend(_prose(path, data, lambda at: _commented(data, at, (b"#",), quotes)))
        for m in _REQ.finditer(data):
            if _commented(data, m.start(), (b"#",), quotes):
                continue
            op, v, op2, v2 = (g.decode() if g else "" for g in m.groups())
            if v.startswith("*"):
                continue
            shown = " ".join(m.group(0).decode("utf-8", "replace").split())
            out.append(Evidence(_requirement(op, v, op2, v2), 1, shown, path, _line(data, m.start())))
        return out
    if is_extra_name(name):
        out.extend(_prose(path, data))
    return out


_MESSAGE = re.compile(rb"(?<![\w$])message\s*\(", re.I)


def _message_spans(data: bytes) -> list[tuple[int, int]]:
    """The byte ranges of the CMake ``message(...)`` calls: to the parenthesis that closes the call, quoted
    arguments skipped (a quote's ``\\"`` escapes); an unclosed call runs to the end of the file."""
    out = []
    for m in _MESSAGE.finditer(data):
        if _commented(data, m.start(), (b"#",), b'"'):
            continue
        i, depth, n = m.end(), 1, len(data)
        while i < n and depth:
            c = data[i]
            if c == 0x22:  # '"': a quoted argument
                i += 1
                while i < n and data[i] != 0x22:
                    i += 2 if data[i] == 0x5C else 1
            elif c == 0x28:
                depth += 1
            elif c == 0x29:
                depth -= 1
            i += 1
        out.append((m.start(), i))
    return out


def _prose(path: str, data: bytes, keep=None) -> list[Evidence]:
    """The releases a document or script names (:data:`_PROSE`), each with its line, as tier 2 evidence: of them
    the newest counts (a README's changelog names every release the project went through; its latest "Update to
    TensorRT 10.16" is the one it builds with now, not the "TensorRT-10.0" of an older branch)."""
    out = []
    tarballs = {m.start(): m for m in _TARBALL.finditer(data)}  # (also in a path: /opt/TensorRT-8.4.2.4/lib)
    for m in sorted((*tarballs.values(), *(m for m in _PROSE.finditer(data) if m.start() not in tarballs)),
                    key=lambda m: m.start()):
        if keep is not None and not keep(m.start()):
            continue  # (a requirement file: only its comments are prose)
        v = m.group(1).decode()
        out.append(Evidence(_mm(v), 2, " ".join(m.group(0).decode("utf-8", "replace").split()), path,
                            _line(data, m.start())))
    return out
