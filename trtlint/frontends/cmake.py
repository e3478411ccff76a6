"""CMake frontend (text): ``file(GLOB|GLOB_RECURSE VAR ...)`` patterns and the targets they feed.

CMake is read as text with a small tokenizer of its command syntax (comments, quoted and bracket arguments);
nothing is configured or executed. Paths in patterns are resolved against the list file's directory, with
``${CMAKE_CURRENT_SOURCE_DIR}``/``${CMAKE_CURRENT_LIST_DIR}`` as that directory and
``${CMAKE_SOURCE_DIR}``/``${PROJECT_SOURCE_DIR}`` as the project root (an approximation: the checked root).
"""

from __future__ import annotations

import posixpath
import re
from typing import Optional

from ..facts import CMakeGlob, FileFacts, ParseProblem, Span
from . import ExtractContext, SourceFile, read_text

VERSION = "1"
KIND_NAMES = ("cmake",)

_CMD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_GLOB_FLAGS = {"LIST_DIRECTORIES", "RELATIVE", "CONFIGURE_DEPENDS", "FOLLOW_SYMLINKS"}
_TARGET_CMDS = {"add_library", "add_executable", "target_sources", "cuda_add_library", "cuda_add_executable"}


def _strip_comments(text: str) -> str:
    out = []
    i, n = 0, len(text)
    in_str = False
    while i < n:
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == '"':
                in_str = False
            i += 1
            continue
        if c == '"':
            in_str = True
            out.append(c)
            i += 1
            continue
        if c == "#":
            m = re.match(r"#\[(=*)\[", text[i:])
            if m:
                end = text.find("]" + m.group(1) + "]", i)
                end = n if end < 0 else end + len(m.group(1)) + 2
                out.append(re.sub(r"[^\n]", " ", text[i:end]))
                i = end
                continue
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _commands(text: str):
    """Yield (name, args, line, col, end_line, end_col) for each command invocation."""
    i = 0
    n = len(text)
    while True:
        m = _CMD.search(text, i)
        if not m:
            return
        # must start a line (after optional whitespace)
        ls = text.rfind("\n", 0, m.start()) + 1
        if text[ls : m.start()].strip():
            i = m.end()
            continue
        depth = 1
        j = m.end()
        in_str = False
        while j < n and depth:
            c = text[j]
            if in_str:
                if c == "\\":
                    j += 2
                    continue
                if c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            j += 1
        body = text[m.end() : j - 1] if depth == 0 else text[m.end() :]
        args = re.findall(r'"((?:[^"\\]|\\.)*)"|([^\s()"]+)', body)
        line = text.count("\n", 0, m.start()) + 1
        col = m.start() - ls + 1
        end_line = text.count("\n", 0, j) + 1
        end_col = j - (text.rfind("\n", 0, j) + 1) + 1
        yield m.group(1).lower(), [a or b for a, b in args], line, col, end_line, end_col
        i = j


def _resolve(pattern: str, list_dir: str) -> Optional[str]:
    p = pattern
    for var in ("CMAKE_CURRENT_SOURCE_DIR", "CMAKE_CURRENT_LIST_DIR"):
        p = p.replace("${%s}" % var, "/" + list_dir if list_dir else "/")
    for var in ("CMAKE_SOURCE_DIR", "PROJECT_SOURCE_DIR", "CMAKE_HOME_DIRECTORY"):
        p = p.replace("${%s}" % var, "/")
    if "${" in p:
        return None
    if p.startswith("/"):
        p = p.lstrip("/")
    else:
        p = posixpath.join(list_dir, p) if list_dir else p
    p = posixpath.normpath(p)
    if p.startswith(".."):
        return None
    return p


def extract(src: SourceFile, ctx: ExtractContext) -> FileFacts:
    text, problem = read_text(src)
    if text is None:
        return FileFacts(path=src.rel, kind=src.kind, digest=src.digest, problems=(ParseProblem(problem or "unreadable", Span(src.rel, 1)),))
    if "GLOB" not in text:
        return FileFacts(path=src.rel, kind=src.kind, digest=src.digest)
    list_dir = posixpath.dirname(src.rel)
    clean = _strip_comments(text)
    globs: list[tuple[str, bool, tuple[str, ...], Span]] = []
    uses: dict[str, set[str]] = {}
    alias: dict[str, set[str]] = {}  # set(X ${A} ${B}) / list(APPEND X ${A})
    for name, args, line, col, el, ec in _commands(clean):
        if name == "file" and args and args[0].upper() in ("GLOB", "GLOB_RECURSE") and len(args) >= 2:
            recurse = args[0].upper() == "GLOB_RECURSE"
            var = args[1]
            pats = []
            k = 2
            while k < len(args):
                a = args[k]
                if a.upper() in ("LIST_DIRECTORIES", "RELATIVE"):
                    k += 2
                    continue
                if a.upper() in _GLOB_FLAGS:
                    k += 1
                    continue
                r = _resolve(a, list_dir)
                if r is not None:
                    pats.append(r)
                k += 1
            globs.append((var, recurse, tuple(pats), Span(src.rel, line, col, el, ec)))
        elif name in _TARGET_CMDS and args:
            tgt = args[0]
            for a in args[1:]:
                for v in re.findall(r"\$\{([A-Za-z0-9_]+)\}", a):
                    uses.setdefault(v, set()).add(tgt)
        elif name == "set" and args:
            for a in args[1:]:
                for v in re.findall(r"\$\{([A-Za-z0-9_]+)\}", a):
                    alias.setdefault(v, set()).add(args[0])
        elif name == "list" and len(args) >= 2 and args[0].upper() in ("APPEND", "PREPEND", "INSERT"):
            for a in args[2:]:
                for v in re.findall(r"\$\{([A-Za-z0-9_]+)\}", a):
                    alias.setdefault(v, set()).add(args[1])

    def targets_of(var: str, seen: Optional[set] = None) -> set[str]:
        seen = seen or set()
        if var in seen:
            return set()
        seen.add(var)
        out = set(uses.get(var, ()))
        for a in alias.get(var, ()):
            out |= targets_of(a, seen)
        return out

    facts = tuple(
        CMakeGlob(var=v, recurse=r, patterns=p, span=s, targets=tuple(sorted(targets_of(v))))
        for v, r, p, s in globs
    )
    return FileFacts(path=src.rel, kind=src.kind, digest=src.digest, globs=facts)
