"""CMake frontend (text): ``file(GLOB|GLOB_RECURSE VAR ...)`` patterns and the targets they feed; targets
with their explicit sources and whether the file registers them as tests.

CMake is read as text with a small tokenizer of its command syntax (comments, quoted and bracket arguments);
nothing is configured or executed. Paths in patterns are resolved against the list file's directory, with
``${CMAKE_CURRENT_SOURCE_DIR}``/``${CMAKE_CURRENT_LIST_DIR}`` as that directory and
``${CMAKE_SOURCE_DIR}``/``${PROJECT_SOURCE_DIR}`` as the project root (an approximation: the checked root).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Optional

from trtlint.base.facts import CMakeFunction, CMakeGlob, CMakeTarget, FileFacts, ParseProblem, Span
from . import ExtractContext, SourceFile, read_text

VERSION = "4"
KIND_NAMES = ("cmake",)

_CMD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_GLOB_FLAGS = {"LIST_DIRECTORIES", "RELATIVE", "CONFIGURE_DEPENDS", "FOLLOW_SYMLINKS"}
_TARGET_CMDS = {"add_library", "add_executable", "target_sources", "cuda_add_library", "cuda_add_executable"}
_TARGET_KEYWORDS = {
    "STATIC", "SHARED", "MODULE", "OBJECT", "INTERFACE", "UNKNOWN", "EXCLUDE_FROM_ALL", "WIN32", "MACOSX_BUNDLE",
    "IMPORTED", "GLOBAL", "PRIVATE", "PUBLIC", "FILE_SET", "TYPE", "BASE_DIRS", "FILES", "HEADERS", "CXX_MODULES",
}
# googletest linked by name, by imported target, or by FindGTest's result variables (${GTEST_LIBRARIES}, ...)
_GTEST_LIBS = re.compile(r"^(gtest|gtest_main|gmock|gmock_main|GTest::\w+|\$\{G(?:TEST|MOCK)_\w*LIBRARIES\})$")
# a build system's command that makes a googletest executable of its sources and registers it as a test in one
# (catkin_add_gtest, ament_add_gtest, catkin_add_gmock, ...): a target and a test
# (ROS 2's ament_cmake_ros adds ament_add_ros_isolated_gtest/_gmock: any word between add_ and the g)
_TEST_TARGET_CMD = re.compile(r"\w*add_(?:\w*_)?g(?:test|mock)", re.I)
_INTERESTING = re.compile(r"GLOB|add_executable|add_library|add_test|gtest_|add_(?:\w*_)?g(?:test|mock)", re.I)
_SOURCE_EXT = re.compile(r"\.(c|cc|cpp|cxx|cu|h|hh|hpp|cuh|inl)$", re.I)



def glob_pattern_args(args: list[str]) -> list[str]:
    """The patterns among the arguments of ``file(GLOB[_RECURSE] VAR ...)`` after the variable: the options
    (``LIST_DIRECTORIES x``, ``RELATIVE dir``, ``CONFIGURE_DEPENDS``, ``FOLLOW_SYMLINKS``) left out."""
    out: list[str] = []
    k = 0
    while k < len(args):
        a = args[k].upper()
        if a in ("LIST_DIRECTORIES", "RELATIVE"):
            k += 2
            continue
        if a not in _GLOB_FLAGS:
            out.append(args[k])
        k += 1
    return out


# what _args_end and _strip_comments step over: a quoted string (to its closing quote, or to the end of an
# unterminated one; a backslash escapes the next character)
_STR = r'"(?:[^"\\]|\\.)*(?:"|\\?\Z)'
_PAREN = re.compile(_STR + r"|[()]", re.S)
_SKIP = re.compile(_STR + r"|#\[(=*)\[|#[^\n]*", re.S)  # ... a bracket comment's opening, a line comment
_NOT_NL = re.compile(r"[^\n]")
_PLAIN_ARGS = re.compile(r'[^()"]*\)')


def _args_end(text: str, j: int) -> int:
    """Where a command's arguments that start at ``j`` (just after its ``(``) end: the index of the matching
    ``)``, skipping quoted strings and nested parentheses; the end of the text when it never closes."""
    m = _PLAIN_ARGS.match(text, j)  # the common case: no parenthesis or quote before the closing one
    if m is not None:
        return m.end() - 1
    depth = 1
    for m in _PAREN.finditer(text, j):
        c = text[m.start()]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return m.start()
    return len(text)


def _strip_comments(text: str) -> str:
    """``text`` with every comment blanked (line comments to spaces, bracket comments to spaces with their
    newlines kept), so offsets and lines stay; ``#`` in a quoted string is no comment. Linear in the text."""
    if "#" not in text:
        return text
    out = []
    last = pos = 0
    n = len(text)
    while pos < n:
        m = _SKIP.search(text, pos)
        if m is None:
            break
        s, e = m.span()
        if text[s] == '"':
            pos = max(e, s + 1)
            continue
        if m.group(1) is not None:  # #[==[ ... ]==]: to its close, or to the end of the text
            close = "]" + m.group(1) + "]"
            e = text.find(close, e)
            e = n if e < 0 else e + len(close)
            out.append(text[last:s])
            out.append(_NOT_NL.sub(" ", text[s:e]))
        else:
            out.append(text[last:s])
            out.append(" " * (e - s))
        last = pos = e
    out.append(text[last:])
    return "".join(out)


def _scan(text: str):
    """Yield (name, body start, body end, line, col, end_line, end_col) for each command invocation that starts
    a line (after optional whitespace); ``text`` has its comments stripped. Linear in the text: lines are
    counted forward from the last position, never from the start."""
    i = 0
    n = len(text)
    pos, line, ls = 0, 1, 0  # a position, its line and the start of that line, advanced forward only

    def advance(to: int) -> None:
        nonlocal pos, line, ls
        if to > pos:
            line += text.count("\n", pos, to)
            k = text.rfind("\n", pos, to)
            if k >= 0:
                ls = k + 1
            pos = to

    while True:
        m = _CMD.search(text, i)
        if not m:
            return
        advance(m.start())
        if text[ls : m.start()].strip():  # not the first thing on its line: nor is what follows on it
            nl = text.find("\n", m.end())
            if nl < 0:
                return
            i = nl + 1
            continue
        line0, col = line, m.start() - ls + 1
        end = _args_end(text, m.end())
        j = min(end + 1, n)  # just after the closing parenthesis
        advance(j)
        yield m.group(1).lower(), m.end(), end, line0, col, line, j - ls + 1
        i = j


def _commands(text: str):
    """Yield (name, args, line, col, end_line, end_col) for each command invocation."""
    for name, b0, b1, line, col, el, ec in _scan(text):
        args = re.findall(r'"((?:[^"\\]|\\.)*)"|([^\s()"]+)', text[b0:b1])
        yield name, [a or b for a, b in args], line, col, el, ec


def _resolve(pattern: str, list_dir: str, own_project: bool = False) -> Optional[str]:
    """``pattern`` as a project-relative path; ``own_project`` when the list file calls ``project()`` itself,
    so that its ``${PROJECT_SOURCE_DIR}`` is its own directory (a sample's own project), not the tree's top."""
    p = pattern
    here = "/" + list_dir if list_dir else "/"
    for var in ("CMAKE_CURRENT_SOURCE_DIR", "CMAKE_CURRENT_LIST_DIR") + (("PROJECT_SOURCE_DIR",) if own_project else ()):
        p = p.replace("${%s}" % var, here)
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


_REF = re.compile(r"\$\{([A-Za-z0-9_]+)\}")


def _test_wrappers(commands) -> dict[str, tuple[str, int]]:
    """The functions and macros a list file defines that make or register a googletest target of what the caller
    passes, name -> (kind, line of the definition):

    - "makes": the body makes a target of the caller's arguments (a test-making command such as
      ``ament_add_gmock(${name} ${filepath})``, or ``add_executable`` of them) and registers a test (that command,
      ``add_test``/``gtest_discover_tests``, a link with googletest, or a call of such a function defined above);
    - "registers": the body registers as a test (``add_test``, ``gtest_discover_tests``) a target the caller names
      (``macro(nvcv_add_test TESTCMD GROUP) ... add_test(NAME ${N} COMMAND ${TESTCMD})``).

    What the caller passed: a parameter, ``${ARGN}``/``${ARGV...}``, or a variable set from one in the body (``set``,
    ``list(APPEND)``, ``get_filename_component``, ``cmake_parse_arguments``' prefixed results)."""
    out: dict[str, tuple[str, int]] = {}
    cur: Optional[str] = None
    carried: set[str] = set()
    prefixes: list[str] = []
    makes = registers = names = False
    start = 0
    for name, args, line, *_ in commands:
        if name in ("function", "macro") and args:
            cur, carried, prefixes, makes, registers, names, start = args[0].lower(), set(args[1:]), [], False, False, False, line
            continue
        if cur is None:
            continue
        if name in ("endfunction", "endmacro"):
            if makes and registers:
                out[cur] = ("makes", start)
            elif names:
                out[cur] = ("registers", start)
            cur = None
            continue
        refs = {v for a in args for v in _REF.findall(a)}
        from_caller = any(
            v in carried or v == "ARGN" or v.startswith("ARGV") or any(v.startswith(p) for p in prefixes) for v in refs
        )
        if name in ("set", "list", "get_filename_component") and args and from_caller:
            carried.add(args[1] if name == "list" and len(args) > 1 else args[0])
        elif name == "cmake_parse_arguments" and args and from_caller:
            prefixes.append(args[0] + "_")
        elif name in out and out[name][0] == "makes":  # a wrapper defined above, called with what the caller passed
            makes = makes or from_caller
            registers = True
        elif _TEST_TARGET_CMD.fullmatch(name):
            makes = makes or from_caller
            registers = True
        elif name in ("add_executable", "cuda_add_executable"):
            makes = makes or from_caller
        elif name in ("add_test", "gtest_discover_tests", "gtest_add_tests") or (name in out and out[name][0] == "registers"):
            registers = True
            names = names or from_caller
        elif name == "target_link_libraries" and any(_GTEST_LIBS.match(a) for a in args[1:]):
            registers = True
    return out


# commands a call of which is never a project's test function (CMake's own, and those handled above)
_KNOWN = frozenset({"set_tests_properties", "add_test", "gtest_discover_tests", "gtest_add_tests", "enable_testing",
                    "include", "find_package", "add_subdirectory"})


def extract(src: SourceFile, ctx: ExtractContext) -> FileFacts:
    text, problem = read_text(src, legacy=True)  # CMake reads a GBK or Latin-1 comment as bytes
    if text is None:
        return FileFacts(path=src.rel, kind=src.kind, digest=src.digest, problems=(ParseProblem(problem or "unreadable", Span(src.rel, 1)),))
    if not _INTERESTING.search(text):
        return FileFacts(path=src.rel, kind=src.kind, digest=src.digest)
    list_dir = posixpath.dirname(src.rel)
    clean = _strip_comments(text)
    globs: list[tuple[str, bool, tuple[str, ...], Span]] = []
    uses: dict[str, set[str]] = {}
    alias: dict[str, set[str]] = {}  # set(X ${A} ${B}) / list(APPEND X ${A})
    tinfo: dict[str, dict] = {}  # target -> span, explicit sources, variables
    set_sources: dict[str, list[str]] = {}  # set(X a.cpp b.cpp): literal sources of X
    tested: set[str] = set()  # targets this file registers as tests (or links with googletest)
    commands = list(_commands(clean))
    project = next((args[0] for name, args, *_ in commands if name == "project" and args and "$" not in args[0]), None)
    if project is not None:  # ${PROJECT_NAME} in a target's name or sources (ROS packages: test/test_${PROJECT_NAME}.cpp)
        commands = [(n, [a.replace("${PROJECT_NAME}", project) for a in args], *rest) for n, args, *rest in commands]
    own = project is not None
    wrappers = _test_wrappers(commands)
    foreign: list[tuple[str, list[str], Span]] = []
    for name, args, line, col, el, ec in commands:
        if name in wrappers and args and wrappers[name][0] == "registers":
            tested.add(args[0])  # this file's own function registering the target its caller names as a test
            continue
        if name not in wrappers and args and "test" in name and name not in _KNOWN and not _TEST_TARGET_CMD.fullmatch(name) \
                and name not in _TARGET_CMDS and name not in ("function", "macro"):
            # a call of a function another list file may define (a parent's): what it does is decided there
            foreign.append((name, args, Span(src.rel, line, col, el, ec)))
            for v in {v for a in args for v in _REF.findall(a)}:
                uses.setdefault(v, set()).add(args[0])
            continue
        if name in wrappers and args:
            # a call of this file's own function that makes a googletest of its arguments: a test target of them
            tgt = f"{name}({args[0]})"
            tested.add(tgt)
            t = tinfo.setdefault(tgt, {"span": Span(src.rel, line, col, el, ec), "sources": [], "vars": []})
            for a in args:
                for v in re.findall(r"\$\{([A-Za-z0-9_]+)\}", a):
                    uses.setdefault(v, set()).add(tgt)
                    t["vars"].append(v)
                r = _resolve(a, list_dir, own) if _SOURCE_EXT.search(a) else None
                if r is not None:
                    t["sources"].append(r)
            continue
        if name == "file" and args and args[0].upper() in ("GLOB", "GLOB_RECURSE") and len(args) >= 2:
            recurse = args[0].upper() == "GLOB_RECURSE"
            var = args[1]
            pats = [r for r in (_resolve(a, list_dir, own) for a in glob_pattern_args(args[2:])) if r is not None]
            globs.append((var, recurse, tuple(pats), Span(src.rel, line, col, el, ec)))
        elif (name in _TARGET_CMDS or _TEST_TARGET_CMD.fullmatch(name)) and args:
            tgt = args[0]
            if name not in _TARGET_CMDS:
                tested.add(tgt)
            if name != "target_sources" and len(args) > 1 and args[1].upper() == "ALIAS":
                continue
            t = tinfo.setdefault(tgt, {"span": None, "sources": [], "vars": []})
            if name != "target_sources" and t["span"] is None:
                t["span"] = Span(src.rel, line, col, el, ec)
            for a in args[1:]:
                refs = re.findall(r"\$\{([A-Za-z0-9_]+)\}", a)
                for v in refs:
                    uses.setdefault(v, set()).add(tgt)
                    t["vars"].append(v)
                if a.upper() in _TARGET_KEYWORDS or a.startswith("$<"):
                    continue
                r = _resolve(a, list_dir, own) if _SOURCE_EXT.search(a) else None
                if r is not None:
                    t["sources"].append(r)
        elif name == "set" and args:
            for a in args[1:]:
                for v in re.findall(r"\$\{([A-Za-z0-9_]+)\}", a):
                    alias.setdefault(v, set()).add(args[0])
                r = _resolve(a, list_dir, own) if _SOURCE_EXT.search(a) else None
                if r is not None:
                    set_sources.setdefault(args[0], []).append(r)
        elif name == "list" and len(args) >= 2 and args[0].upper() in ("APPEND", "PREPEND", "INSERT"):
            for a in args[2:]:
                for v in re.findall(r"\$\{([A-Za-z0-9_]+)\}", a):
                    alias.setdefault(v, set()).add(args[1])
                r = _resolve(a, list_dir, own) if _SOURCE_EXT.search(a) else None
                if r is not None:
                    set_sources.setdefault(args[1], []).append(r)
        elif name == "foreach" and len(args) >= 2:
            # foreach(F ${SRCS}) / foreach(F IN LISTS SRCS ITEMS ...): F is built from SRCS
            lists = args[2:] if len(args) > 2 and args[1].upper() == "IN" else args[1:]
            for a in lists:
                for v in _REF.findall(a) or ([a] if re.fullmatch(r"[A-Za-z0-9_]+", a) and a.upper() not in ("LISTS", "ITEMS", "ZIP_LISTS", "RANGE") else []):
                    alias.setdefault(v, set()).add(args[0])
        elif name == "add_test" and args:
            if args[0].upper() == "NAME":
                up = [a.upper() for a in args]
                if "COMMAND" in up and up.index("COMMAND") + 1 < len(args):
                    tested.add(args[up.index("COMMAND") + 1])
                if len(args) > 1:
                    tested.add(args[1])
            elif len(args) > 1:
                tested.add(args[1])
        elif name in ("gtest_discover_tests", "gtest_add_tests") and args:
            tested.add(args[1] if args[0].upper() == "TARGET" and len(args) > 1 else args[0])
        elif name == "target_link_libraries" and len(args) > 1:
            if any(_GTEST_LIBS.match(a) for a in args[1:]):
                tested.add(args[0])

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
    inverse: dict[str, set[str]] = {}  # X -> the variables X is built from
    for v, outs in alias.items():
        for o in outs:
            inverse.setdefault(o, set()).add(v)

    def feeding(var: str) -> list[str]:
        seen: list[str] = []
        todo = [var]
        while todo:
            v = todo.pop()
            if v in seen:
                continue
            seen.append(v)
            todo.extend(sorted(inverse.get(v, ())))
        return seen

    targets = []
    for tgt, t in tinfo.items():
        if t["span"] is None:  # target_sources on a target defined elsewhere
            t["span"] = Span(src.rel, 1)
        vars_ = list(dict.fromkeys(v for var in t["vars"] for v in feeding(var)))
        sources = list(t["sources"]) + [p for v in vars_ for p in set_sources.get(v, ())]
        targets.append(
            CMakeTarget(
                name=tgt,
                span=t["span"],
                sources=tuple(dict.fromkeys(sources)),
                vars=tuple(vars_),
                test=tgt in tested,
            )
        )
    for tgt in sorted(tested - set(tinfo)):  # registered here, defined in another list file
        targets.append(CMakeTarget(name=tgt, span=Span(src.rel, 1), test=True))
    for name, args, span in foreign:
        refs = [v for a in args for v in _REF.findall(a)]
        srcs = [r for r in (_resolve(a, list_dir, own) for a in args if _SOURCE_EXT.search(a)) if r is not None]
        vars_ = list(dict.fromkeys(v for var in refs for v in feeding(var)))
        srcs += [p for v in vars_ for p in set_sources.get(v, ())]
        targets.append(CMakeTarget(name=args[0], span=span, sources=tuple(dict.fromkeys(srcs)), vars=tuple(vars_), via=name))
    functions = tuple(CMakeFunction(name=n, kind=k, span=Span(src.rel, ln)) for n, (k, ln) in sorted(wrappers.items()))
    return FileFacts(path=src.rel, kind=src.kind, digest=src.digest, globs=facts, targets=tuple(targets),
                     cmake_functions=functions)


# -- the commands of a list file, for the build model (trtlint.pipeline.buildmodel) --------------------------
@dataclass(frozen=True)
class Command:
    """One command invocation of a CMake list file: its lower-case name, its arguments as written (each with
    whether it was quoted: a quoted argument is never split into a list) and its line."""

    name: str
    args: tuple[tuple[str, bool], ...]
    line: int


_ARG = re.compile(r'"((?:[^"\\]|\\.)*)"|([^\s()"]+)')


def decode_list_file(data: bytes) -> str:
    """A list file's text: UTF-8, else Latin-1 (a legacy encoding never fails to decode)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def list_file_commands(text: str) -> tuple[Command, ...]:
    """Every command invocation of a list file, in order (comments dropped; an unbalanced parenthesis ends the
    file's last command at the end of the text). Never raises; linear in the text."""
    try:
        clean = _strip_comments(text)
        return tuple(
            Command(name, tuple((m.group(1), True) if m.group(1) is not None else (m.group(2), False)
                                for m in _ARG.finditer(clean, b0, b1)), line)
            for name, b0, b1, line, _c, _el, _ec in _scan(clean)
        )
    except Exception:  # noqa: BLE001 - a list file the tokenizer cannot read gives no commands
        return ()
