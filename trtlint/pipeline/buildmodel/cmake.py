"""The build model's CMake evaluator: reads the list files (bounded, through :mod:`trtlint.base.safeio`) and
evaluates the commands the module docstring of :mod:`trtlint.pipeline.buildmodel` lists into targets and
per-unit flags, within the limits below."""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from dataclasses import dataclass, field
from typing import Optional

from trtlint.base import safeio
from trtlint.frontends.cmake import Command, glob_pattern_args, list_file_commands, decode_list_file
from trtlint.pipeline.buildmodel.model import Target, UnitFlags
from trtlint.pipeline.buildmodel import foreach as _loops
from trtlint.pipeline.buildmodel import gates as _gates
from trtlint.pipeline.buildmodel.walk import rel_path

# the units a target compiles (as before the split: ".c++" is not among them, the module-level name the
# evaluator read was the later of two definitions)
_UNIT_EXT = (".c", ".cc", ".cpp", ".cxx", ".cu")
_SOURCE_EXT = re.compile(r"\.(c|cc|cpp|cxx|c\+\+|cu|h|hh|hpp|hxx|cuh|inl)$", re.I)
_VIS = {"PRIVATE", "PUBLIC", "INTERFACE"}
_LIB_KEYWORDS = {
    "STATIC", "SHARED", "MODULE", "OBJECT", "INTERFACE", "UNKNOWN", "EXCLUDE_FROM_ALL", "WIN32", "MACOSX_BUNDLE",
    "IMPORTED", "GLOBAL", "OPTIONS",
}


# The limits of the build model (a hostile tree cannot make it hang or exhaust memory; real projects are far
# below each). The size of a value is its characters plus 64 per list item (about its memory in Python).
MAX_LIST_BYTES = 8 * 1024 * 1024  # all CMake list files read, together
MAX_DEPTH = 64  # include()/add_subdirectory() nesting
MAX_PER_CONTEXT = 8  # evaluations of one list file from one including list file (in one project)
MAX_COMMANDS = 1_000_000  # CMake commands evaluated, in all
MAX_VALUE = 16 * 1024 * 1024  # one command's expanded arguments
MAX_WORK = 512 * 1024 * 1024  # all expansions together
MAX_LINK_STEPS = 2_000_000  # targets visited while include dirs propagate along target_link_libraries, in all


class ListReader:
    """Reads and tokenizes the list files (each once), guarded (safeio: regular files inside the root, at most
    ``max_file_size`` bytes each) and within ``MAX_LIST_BYTES`` in all; says what it did not read."""

    def __init__(self, root: str, max_file_size: int) -> None:
        self.root = root
        self.limit = max_file_size
        self.total = 0
        self.problems: list[tuple[str, int, str]] = []
        self._cache: dict[str, Optional[tuple[Command, ...]]] = {}
        self._over = False

    def read(self, rel: str) -> Optional[tuple[Command, ...]]:
        if rel in self._cache:
            return self._cache[rel]
        cmds = None
        if self._over:
            pass
        else:
            try:
                data = safeio.read_bytes(os.path.join(self.root, rel), self.root, self.limit)
            except safeio.ReadRefused as e:
                self.problems.append((rel, 1, f"CMake list file not read: {e.reason}"))
                data = None
            if data is not None:
                self.total += len(data)
                if self.total > MAX_LIST_BYTES:
                    self._over = True
                    self.problems.append((rel, 1, f"CMake list file not read: the project's list files exceed "
                                                  f"{MAX_LIST_BYTES} bytes in all (the build model's limit); "
                                                  "neither this one nor the rest are read"))
                else:
                    cmds = list_file_commands(decode_list_file(data))
        self._cache[rel] = cmds
        return cmds


@dataclass
class _T:
    name: str
    dir: str
    root: str
    sources: list = field(default_factory=list)
    incs: list = field(default_factory=list)  # used to compile its own sources
    iface_incs: list = field(default_factory=list)  # handed to what links it
    defs: list = field(default_factory=list)
    iface_defs: list = field(default_factory=list)
    links: list = field(default_factory=list)  # (name, propagates)
    kind: str = "library"  # Target.kind
    source_set: set = field(default_factory=set)  # (sources, for a linear membership test)


_VAR = re.compile(r"\$\{([^${}]*)\}")


class _Stop(Exception):
    """A limit of the whole evaluation reached: nothing more is evaluated."""

    def __init__(self, file: str, line: int, msg: str) -> None:
        super().__init__(msg)
        self.file, self.line, self.msg = file, max(1, line), msg


class _FileStop(_Stop):
    """A limit of one list file reached: the rest of that file is not evaluated."""


class _Vars(dict):
    """A directory's variables; ``owned``: the names whose list this scope made (a child scope starts with its
    parent's lists shared, so it copies one before it appends to it)."""

    __slots__ = ("owned", "parent")

    def __init__(self, *a) -> None:
        super().__init__(*a)
        self.owned: set = set()
        self.parent: Optional[dict] = None  # the scope a set(... PARENT_SCOPE) writes


class Evaluator:
    def __init__(self, root: str, files: list[str], lists: dict[str, tuple[Command, ...]],
                 reader: Optional[ListReader] = None) -> None:
        self.root = root
        self.files = files
        self.lists = lists
        self.reader = reader or ListReader(root, safeio.DEFAULT_LIMIT)
        self.visited: set[str] = set()
        self.project_roots: list[str] = []
        self.targets: dict[tuple[str, str], _T] = {}  # (evaluation root, name)
        self.aliases: dict[tuple[str, str], str] = {}
        self._glob_cache: dict[tuple[str, bool], list[str]] = {}
        self.problems: list[tuple[str, int, str]] = []
        self._file = ""  # the list file whose command runs (root-relative)
        self._commands = 0
        self._work = 0
        self._contexts: dict[tuple[str, str, str], int] = {}  # (project, including file, list file) -> evaluations
        self._refused: dict[str, list] = {}  # limit -> [(file, line, message)], the first one reported
        # build options (:mod:`.gates`): name -> (default as written, where declared, description); the gates of the
        # branches being evaluated (None: a branch every configuration may take); each source path named inside a
        # gated branch -> its gate, and those named outside every one
        self.options: dict[str, tuple[str, str, str]] = {}
        self._gates: list = []
        self.gated: dict[str, _gates.Gate] = {}
        self.ungated: set[str] = set()

    # limits
    def _spend(self, n: int, line: int) -> None:
        self._work += n
        if self._work > MAX_WORK:
            raise _Stop(self._file, line, f"CMake evaluation stopped: its values reached {MAX_WORK} bytes in all (the build "
                              "model's limit); list files not evaluated by then give no targets")

    def _enter(self, kind: str, lf: str, line: int, top: str, target: str, stack: set) -> bool:
        """Whether ``target`` (a list file) may be evaluated from ``lf``: within the depth limit and the limit of
        evaluations per including file; a refusal is remembered (the first of each kind is reported)."""
        if len(stack) >= MAX_DEPTH:
            self._refuse("depth", lf, line, f"{kind}() of {target} not evaluated: list files nested {MAX_DEPTH} "
                                            "deep (the depth limit)")
            return False
        key = (top, lf, target)
        n = self._contexts.get(key, 0)
        if n >= MAX_PER_CONTEXT:
            self._refuse("context", lf, line, f"{kind}() of {target} not evaluated: this file evaluated it "
                                              f"{MAX_PER_CONTEXT} times already (the limit per including file)")
            return False
        self._contexts[key] = n + 1
        return True

    def _refuse(self, limit: str, lf: str, line: int, msg: str) -> None:
        self._refused.setdefault(limit, []).append((lf, line, msg))

    # paths
    def _abs(self, p: str, cur_abs: str) -> str:
        return os.path.normpath(p if os.path.isabs(p) else os.path.join(cur_abs, p))

    def _expand(self, arg: str, quoted: bool, vars: dict, line: int = 0) -> Optional[list[str]]:
        if "$<" in arg or "$ENV{" in arg or "$CACHE{" in arg:
            return None
        s = arg
        for _ in range(16):
            m = _VAR.search(s)
            if not m:
                break
            v = vars.get(m.group(1))
            if v is None:
                return None
            if len(v) > 1 or (v and len(v[0]) > 4096):  # a large value: its size before it is joined
                size = sum(map(len, v)) + 64 * len(v)
                self._spend(size, line)
                if len(s) + size > MAX_VALUE:
                    raise _FileStop(self._file, line, f"a value of over {MAX_VALUE} bytes (the limit of one CMake value); "
                                          "the rest of this list file was not evaluated")
            s = s[: m.start()] + ";".join(v) + s[m.end():]
        if "${" in s:
            return None
        # a quoted argument is one value, but a list of sources or dirs is split by the command anyway
        return [x for x in s.split(";") if x]

    def _values(self, args, vars, line: int = 0) -> list[str]:
        out: list[str] = []
        size = 0
        for a, q in args:
            v = self._expand(a, q, vars, line)
            if v:
                out.extend(v)
                size += len(a) if len(v) == 1 and "${" not in a else sum(map(len, v)) + 64 * len(v)
                if size > MAX_VALUE:
                    raise _FileStop(self._file, line, f"a value of over {MAX_VALUE} bytes (the limit of one CMake value); "
                                          "the rest of this list file was not evaluated")
        self._spend(size, line)
        return out

    # pass 1: which list files another one reaches
    def _reached(self) -> set[str]:
        reached: set[str] = set()
        for d, cmds in self.lists.items():
            cur = os.path.join(self.root, d) if d else self.root
            vars = {"CMAKE_CURRENT_SOURCE_DIR": [cur], "CMAKE_CURRENT_LIST_DIR": [cur]}
            self._file = posixpath.join(d, "CMakeLists.txt")
            try:
                for c in cmds:
                    self._count(c)
                    if c.name == "set" and c.args:
                        vals = self._values(c.args[1:], vars, c.line)
                        vars[c.args[0][0]] = [v for v in vals if v not in ("PARENT_SCOPE", "CACHE")]
                    elif c.name == "add_subdirectory" and c.args:
                        v = self._expand(c.args[0][0], c.args[0][1], vars, c.line)
                        if v:
                            rel = rel_path(self._abs(v[0], cur), self.root)
                            if rel is not None and rel != d and rel in self.lists:
                                reached.add(rel)
            except _FileStop:
                continue  # (said when the file is evaluated)
        return reached

    def _count(self, c: Command) -> None:
        self._commands += 1
        if self._commands > MAX_COMMANDS:
            raise _Stop(self._file, c.line, f"CMake evaluation stopped: {MAX_COMMANDS} commands evaluated (the build model's "
                                "limit); list files not evaluated by then give no targets")

    def run(self) -> None:
        try:
            self._run_all()
        except _Stop as e:
            self.problems.append((e.file, e.line, e.msg))
        except RecursionError:  # pragma: no cover - the depth limit keeps the nesting far below Python's
            pass
        for limit in ("depth", "context"):
            got = self._refused.get(limit)
            if got:
                lf, line, msg = got[0]
                more = len({(f, ln) for f, ln, _ in got}) - 1
                self.problems.append((lf, line, msg + (f"; {more} more calls over this limit" if more else "")))

    def _run_all(self) -> None:
        reached = self._reached()
        tops = sorted((d for d in self.lists if d not in reached), key=lambda d: (d.count("/"), d) if d else (-1, d))
        self.independent = []
        for d in tops:
            if d not in self.visited:
                self._eval_root(d)
        for d in sorted(self.lists, key=lambda d: (d.count("/"), d)):  # reached only through what did not resolve
            if d not in self.visited:
                self._eval_root(d)
        indep = [d for d in tops if d in self.project_roots]
        # the outermost ones: a project inside another's tree (bindings, a sample built on its own, or one
        # reached through an add_subdirectory this reading could not resolve) belongs to the enclosing one
        self.independent = [d for d in indep if not any(o != d and (o == "" or d.startswith(o + "/")) for o in indep)]

    def scopes(self) -> tuple[str, ...]:
        s = sorted(set(getattr(self, "independent", ())))
        return tuple(s) if len(s) >= 2 else ()

    def _eval_root(self, d: str) -> None:
        cur = os.path.join(self.root, d) if d else self.root
        vars = {"CMAKE_SOURCE_DIR": [cur], "PROJECT_SOURCE_DIR": [cur], "CMAKE_HOME_DIRECTORY": [cur]}
        self._eval_dir(d, d, vars, [], [], set())

    def _eval_dir(self, d: str, top: str, vars: dict, incs: list, defs: list, stack: set) -> None:
        cmds = self.lists.get(d)
        if cmds is None or d in stack:
            return
        self.visited.add(d)
        stack = stack | {d}
        cur = os.path.join(self.root, d) if d else self.root
        self._spend(64 * (len(vars) + len(incs) + len(defs)), 0)  # the copies below
        parent, vars = vars, _Vars(vars)
        vars.parent = parent
        vars["CMAKE_CURRENT_SOURCE_DIR"] = [cur]
        vars["CMAKE_CURRENT_LIST_DIR"] = [cur]
        self._run(cmds, posixpath.join(d, "CMakeLists.txt"), d, top, cur, vars, list(incs), list(defs), stack)

    def _run(self, cmds, lf: str, d: str, top: str, cur: str, vars: dict, incs: list, defs: list, stack: set) -> None:
        saved, self._file = self._file, lf
        try:
            self._run_cmds(cmds, d, top, cur, vars, incs, defs, stack)
        except _FileStop as e:
            self.problems.append((e.file, e.line, e.msg))
        finally:
            self._file = saved

    def _run_cmds(self, cmds, d: str, top: str, cur: str, vars: dict, incs: list, defs: list, stack: set) -> None:
        base = len(self._gates)
        try:
            self._run_block(cmds, d, top, cur, vars, incs, defs, stack, [])
        finally:
            del self._gates[base:]  # an if() this block left open ends with it

    def _run_block(self, cmds, d, top, cur, vars, incs, defs, stack, opened: list) -> None:
        skip_depth = 0
        i = -1
        while i + 1 < len(cmds):
            i += 1
            c = cmds[i]
            self._count(c)
            name = c.name
            if name in ("function", "macro"):
                skip_depth += 1
                continue
            if name in ("endfunction", "endmacro"):
                skip_depth = max(0, skip_depth - 1)
                continue
            if skip_depth:
                continue
            if name in ("if", "elseif", "else", "endif"):  # every branch is evaluated; its gate is noted
                self._branch(name, c, opened)
                continue
            if name == "foreach":  # its body once per value (trtlint.pipeline.buildmodel.foreach)
                end = _loops.block_end(cmds, i)
                loop = _loops.loop_items(c.args, lambda a, q: self._expand(a, q, vars, c.line), vars)
                if loop is not None:
                    old = vars.get(loop[0])
                    for item in loop[1]:
                        vars[loop[0]] = [item]
                        self._run_cmds(cmds[i + 1:end], d, top, cur, vars, incs, defs, stack)
                    if old is None:
                        vars.pop(loop[0], None)
                    else:
                        vars[loop[0]] = old
                    i = end
                continue
            try:
                self._command(c, d, top, cur, vars, incs, defs, stack)
            except (IndexError, ValueError, TypeError, KeyError):
                continue

    def _branch(self, name: str, c: Command, opened: list) -> None:
        """An ``if``/``elseif``/``else``/``endif``: the gate of the branch it opens (:mod:`.gates`)."""
        if name == "if":
            pair = self._decide(c)
            opened.append(pair)
            self._gates.append(pair[0])
        elif not opened:
            return
        elif name == "elseif":  # another condition: neither it nor the else after it is one option's value
            opened[-1] = (None, None)
            self._gates[-1] = None
        elif name == "else":
            self._gates[-1] = opened[-1][1]
        else:
            opened.pop()
            self._gates.pop()

    def _decide(self, c: Command) -> tuple:
        """(the gate of the if's first branch, that of its else): a branch only the option's non-default value takes."""
        cond = _gates.condition(c.args)
        opt = self.options.get(cond[0]) if cond else None
        default = _gates.truth(opt[0]) if opt else None
        if default is None:
            return None, None
        g = _gates.Gate(option=cond[0], needs="OFF" if default else "ON", where=f"{self._file}:{c.line}",
                        default=opt[0], decl=opt[1], doc=opt[2])
        return (None, g) if default != cond[1] else (g, None)

    def _note(self, rels, explicit: bool = True) -> None:
        """Where the source paths ``rels`` are named: inside a gated branch (the outermost gate), or outside every
        one (``explicit``: written or globbed here; not so, a value that may come from a gated glob)."""
        g = next((x for x in self._gates if x is not None), None)
        for rel in rels:
            if rel is None:
                continue
            if g is not None:
                self.gated.setdefault(rel, g)
            elif explicit or rel not in self.gated:
                self.ungated.add(rel)

    def _flag_defines(self, args, vars: dict, line: int) -> list:
        """The ``-D`` words written into the compile flags (``set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} -DX=${Y}")``),
        read from the arguments as written (the flags' own ``${CMAKE_CXX_FLAGS}`` may not expand): each unit the
        directory's targets compile gets them, as with ``add_definitions``. A value with a variable the model does
        not know leaves the name defined without one (``-DX``: 1), so code under ``#if X`` is seen. NDEBUG is the
        build type's (:func:`_ndebug`)."""
        out = []
        for a, _q in args:
            for m in _FLAG_DEFINE.finditer(a):
                name, val = m.group(1), m.group(2)
                if name == "NDEBUG":
                    continue
                if val is not None and "${" in val:
                    got = self._expand(val, True, vars, line)
                    val = got[0] if got and len(got) == 1 else None
                out.append(name if val is None else f"{name}={val}")
        return out

    def _literal_sources(self, args, cur: str) -> list:
        return [rel_path(self._abs(a, cur), self.root) for a, _q in args if "${" not in a and _SOURCE_EXT.search(a)]

    def _command(self, c: Command, d: str, top: str, cur: str, vars: dict, incs: list, defs: list, stack: set) -> None:
        name, args = c.name, c.args
        if name in ("option", "set") and args:
            decl = _gates.option_declared(name, args)
            if decl is not None:
                self.options[decl[0]] = (decl[1], f"{self._file}:{c.line}", decl[2])
            elif name == "set":
                self.options.pop(args[0][0], None)  # a plain variable now: its value is not the option's default
                self._note(self._literal_sources(args[1:], cur))
        if name == "project" and args:
            if d == top and d not in self.project_roots:
                self.project_roots.append(d)
            pname = self._expand(args[0][0], args[0][1], vars, c.line)
            vars["PROJECT_SOURCE_DIR"] = [cur]
            if pname:
                vars["PROJECT_NAME"] = [pname[0]]
                vars[pname[0] + "_SOURCE_DIR"] = [cur]
        elif name == "set" and args:
            if args[0][0] in ("CMAKE_CXX_FLAGS", "CMAKE_CUDA_FLAGS", "CMAKE_CXX_FLAGS_RELEASE") and any(
                    re.search(r"(?:^|\s)[-/]DNDEBUG\b", a) for a, _q in args[1:]):
                vars["_TRTLINT_NDEBUG_FLAG"] = ["1"]  # (the rest of the flags, `${CMAKE_CXX_FLAGS}`, may not expand)
            if args[0][0] in ("CMAKE_CXX_FLAGS", "CMAKE_CUDA_FLAGS"):
                defs.extend(self._flag_defines(args[1:], vars, c.line))
            m = _TYPE_FLAGS.fullmatch(args[0][0])
            if m and not any(re.search(r"(?:^|\s)[-/]DNDEBUG\b|\$\{" + re.escape(args[0][0]) + r"\}", a)
                             for a, _q in args[1:]):
                # a build type's flags replaced by a value without -DNDEBUG (nor the default's ${...}): CMake's
                # default "-O3 -DNDEBUG" for that type is gone, so that build type does not define NDEBUG
                vars["_TRTLINT_NO_NDEBUG_" + m.group(2).upper()] = ["1"]
            vals = self._values(args[1:], vars, c.line)
            if "CACHE" in vals:
                vals = vals[: vals.index("CACHE")]
            if "PARENT_SCOPE" in vals:  # the directory that add_subdirectory()'d this one (not this one's)
                vars = getattr(vars, "parent", None)
                if vars is None:
                    return
                vals = [v for v in vals if v != "PARENT_SCOPE"]
            vars[args[0][0]] = vals
            getattr(vars, "owned", set()).add(args[0][0])
        elif name == "string" and len(args) >= 3 and args[0][0].upper() == "APPEND" and args[1][0] in (
                "CMAKE_CXX_FLAGS", "CMAKE_CUDA_FLAGS"):
            defs.extend(self._flag_defines(args[2:], vars, c.line))
        elif name == "unset" and args:
            vars.pop(args[0][0], None)
        elif name == "list" and len(args) >= 2 and args[0][0].upper() in ("APPEND", "PREPEND"):
            var = args[1][0]
            self._note(self._literal_sources(args[2:], cur))
            vals = self._values(args[2:], vars, c.line)
            old = vars.get(var, [])
            owned = getattr(vars, "owned", None)
            if args[0][0].upper() == "APPEND" and owned is not None and var in owned:
                old.extend(vals)  # this scope's own list (a copy for each append would be quadratic)
            else:
                self._spend(64 * len(old), c.line)
                vars[var] = old + vals if args[0][0].upper() == "APPEND" else vals + old
                if owned is not None:
                    owned.add(var)
        elif name == "file" and len(args) >= 2 and args[0][0].upper() in ("GLOB", "GLOB_RECURSE"):
            recurse = args[0][0].upper() == "GLOB_RECURSE"
            var = args[1][0]
            vals = self._values(args[2:], vars, c.line)
            out: list[str] = []
            for a in glob_pattern_args(vals):
                out.extend(self._glob(self._abs(a, cur), recurse))
            vars[var] = out
            self._note(rel_path(p, self.root) for p in out)
        elif name == "add_subdirectory" and args:
            v = self._expand(args[0][0], args[0][1], vars, c.line)
            if v:
                rel = rel_path(self._abs(v[0], cur), self.root)
                if (rel is not None and rel in self.lists and rel not in stack
                        and self._enter("add_subdirectory", self._file, c.line, top, posixpath.join(rel, "CMakeLists.txt"), stack)):
                    self._eval_dir(rel, top, vars, incs, defs, stack)
        elif name == "include" and args:
            # a project .cmake file: its commands run here (CMAKE_CURRENT_LIST_DIR is its own directory)
            v = self._expand(args[0][0], args[0][1], vars, c.line)
            path = self._abs(v[0], cur) if v and v[0].endswith(".cmake") else None
            rel = rel_path(path, self.root) if path else None
            # a cycle is not followed (as include_guard() would stop it)
            if rel is not None and rel not in stack and os.path.isfile(path) and self._enter(
                    "include", self._file, c.line, top, rel, stack):
                cmds = self.reader.read(rel) or ()
                saved = vars.get("CMAKE_CURRENT_LIST_DIR")
                vars["CMAKE_CURRENT_LIST_DIR"] = [os.path.dirname(path)]
                self._run(cmds, rel, d, top, cur, vars, incs, defs, stack | {rel})
                vars["CMAKE_CURRENT_LIST_DIR"] = saved or [cur]
        elif name in ("include_directories", "cuda_include_directories"):
            before = any(a == "BEFORE" for a, _ in args)
            new = [self._abs(v, cur) for v in self._values(args, vars, c.line) if v not in ("AFTER", "BEFORE", "SYSTEM")]
            if before:
                incs[:0] = new
            else:
                incs.extend(new)
        elif name == "add_definitions":
            defs.extend(v[2:] for v in self._values(args, vars, c.line) if v.startswith(("-D", "/D")) and len(v) > 2)
        elif name == "add_compile_definitions":
            defs.extend(v[2:] if v.startswith("-D") else v for v in self._values(args, vars, c.line))
        elif name in ("add_library", "add_executable", "cuda_add_library", "cuda_add_executable") and args:
            tn = self._expand(args[0][0], args[0][1], vars, c.line)
            if not tn:
                return
            vals = self._values(args[1:], vars, c.line)
            if vals and vals[0] == "ALIAS":
                if len(vals) > 1:
                    self.aliases[(top, tn[0])] = vals[1]
                return
            t = self.targets.get((top, tn[0]))
            if t is None:
                self._spend(64 * (len(incs) + len(defs)), c.line)
                t = self.targets[(top, tn[0])] = _T(tn[0], d, top, incs=list(incs), defs=list(defs) + _ndebug(vars))
            if "IMPORTED" in vals:
                return
            t.kind = "executable" if name.endswith("executable") else next(
                (v.lower() for v in vals if v in ("SHARED", "MODULE", "STATIC", "OBJECT", "INTERFACE")), t.kind)
            self._add_sources(t, vals, cur, self._literal_sources(args[1:], cur))
        elif name in ("target_sources", "target_include_directories", "target_compile_definitions",
                      "target_link_libraries") and args:
            tn = self._expand(args[0][0], args[0][1], vars, c.line)
            t = self._target(top, tn[0]) if tn else None
            if t is None:
                return
            vals = self._values(args[1:], vars, c.line)
            if name == "target_sources":
                self._add_sources(t, vals, cur, self._literal_sources(args[1:], cur))
            elif name == "target_include_directories":
                self._visibility(vals, cur, t.incs, t.iface_incs, path=True)
            elif name == "target_compile_definitions":
                self._visibility(vals, cur, t.defs, t.iface_defs, path=False)
            else:
                vis = "PUBLIC"
                for v in vals:
                    u = v.upper()
                    if u in _VIS:
                        vis = u
                    elif u in ("LINK_PUBLIC", "LINK_INTERFACE_LIBRARIES"):
                        vis = "PUBLIC"
                    elif u == "LINK_PRIVATE":
                        vis = "PRIVATE"
                    elif u in ("DEBUG", "OPTIMIZED", "GENERAL"):
                        continue
                    else:
                        t.links.append((v, vis))

    def _target(self, top: str, name: str) -> Optional[_T]:
        for _ in range(8):
            t = self.targets.get((top, name))
            if t is not None:
                return t
            if (top, name) not in self.aliases:
                return None
            name = self.aliases[(top, name)]
        return None

    def _add_sources(self, t: _T, vals: list[str], cur: str, literal=()) -> None:
        added = []
        for v in vals:
            if v.upper() in _LIB_KEYWORDS or v.upper() in _VIS or not _SOURCE_EXT.search(v):
                continue
            rel = rel_path(self._abs(v, cur), self.root)
            added.append(rel)
            if rel is not None and rel not in t.source_set:
                t.source_set.add(rel)
                t.sources.append(rel)
        self._note(literal)
        self._note(added, explicit=False)

    def _visibility(self, vals: list[str], cur: str, own: list, iface: list, path: bool) -> None:
        vis = "PRIVATE" if not path else None
        before = False
        for v in vals:
            u = v.upper()
            if u in _VIS:
                vis = u
                continue
            if path and u in ("SYSTEM", "AFTER", "BEFORE"):
                before = before or u == "BEFORE"
                continue
            if vis is None:
                continue
            item = self._abs(v, cur) if path else (v[2:] if v.startswith("-D") else v)
            if vis in ("PRIVATE", "PUBLIC"):
                (own.insert(0, item) if before else own.append(item))
            if vis in ("PUBLIC", "INTERFACE"):
                iface.append(item)

    def _glob(self, pattern: str, recurse: bool) -> list[str]:
        key = (pattern, recurse)
        hit = self._glob_cache.get(key)
        if hit is not None:
            return hit
        rel = rel_path(pattern, self.root)
        out: list[str] = []
        if rel is not None:
            lit = re.split(r"[*?\[]", rel, maxsplit=1)[0]
            if recurse:
                d, base = posixpath.split(rel)
                rx = re.compile(fnmatch.translate(base))
                prefix = d + "/" if d else ""
                # GLOB_RECURSE: the last component's pattern, in the directory and every one below it
                dre = re.compile(fnmatch.translate(d)) if d else None
                for f in self.files:
                    if not f.startswith(lit):
                        continue
                    fd, fb = posixpath.split(f)
                    if not rx.match(fb):
                        continue
                    if dre is None or f.startswith(prefix) or any(dre.match(fd[: i]) for i in _slashes(fd)):
                        out.append(os.path.join(self.root, f))
            else:
                rx = re.compile(fnmatch.translate(rel).replace(".*", "[^/]*"))
                out = [os.path.join(self.root, f) for f in self.files if f.startswith(lit) and rx.match(f)]
        self._glob_cache[key] = out
        return out

    def result(self) -> tuple[tuple[Target, ...], dict[str, UnitFlags]]:
        def iface(key: tuple[str, str], seen: set) -> tuple[list, list]:
            """What the target at ``key`` hands what links it: its interface dirs and defines, then those of
            what it links publicly, depth first (iterative: a link chain of any length)."""
            incs: list = []
            defs: list = []
            todo = [key]
            while todo:
                steps[0] += 1
                if steps[0] > MAX_LINK_STEPS:
                    return incs, defs
                t = self._target(*todo.pop())
                if t is None or id(t) in seen:
                    continue
                seen.add(id(t))
                incs += t.iface_incs
                defs += t.iface_defs
                todo.extend((t.root, ln) for ln, vis in reversed(t.links) if vis in ("PUBLIC", "INTERFACE"))
            return incs, defs

        steps = [0]
        isdir: dict[str, bool] = {}
        targets = []
        units: dict[str, UnitFlags] = {}
        for (top, name), t in sorted(self.targets.items()):
            incs, defs = list(t.incs), list(t.defs)
            for ln, _vis in t.links:
                i2, d2 = iface((top, ln), {id(t)})
                incs += i2
                defs += d2
            incs = [i for i in dict.fromkeys(incs) if (isdir[i] if i in isdir else isdir.setdefault(i, os.path.isdir(i)))]
            defs = list(dict.fromkeys(defs))
            targets.append(Target(name=name, dir=t.dir, scope=top, sources=tuple(t.sources), include_dirs=tuple(incs),
                                  defines=tuple(defs), links=tuple(ln for ln, _ in t.links), kind=t.kind))
            for s in t.sources:
                if not s.lower().endswith(_UNIT_EXT):
                    continue
                old = units.get(s)
                if old is None:
                    units[s] = UnitFlags(tuple(incs), tuple(defs), (name,))
                else:
                    units[s] = UnitFlags(tuple(dict.fromkeys(old.include_dirs + tuple(incs))),
                                         tuple(dict.fromkeys(old.defines + tuple(defs))), old.origin + (name,))
        if steps[0] > MAX_LINK_STEPS:
            self.problems.append(("CMakeLists.txt" if "" in self.lists else (self._file or "."), 1,
                                  f"include dirs not propagated along every target_link_libraries(): over "
                                  f"{MAX_LINK_STEPS} steps (the build model's limit); some units miss include dirs"))
        return tuple(targets), units


_RELEASE = ("RELEASE", "MINSIZEREL", "RELWITHDEBINFO")
_FLAG_DEFINE = re.compile(r"(?:^|\s)[-/]D([A-Za-z_]\w*)(?:=([^\s\"']*))?")


_TYPE_FLAGS = re.compile(r"(CMAKE_CXX_FLAGS|CMAKE_CUDA_FLAGS|CUDA_NVCC_FLAGS)_(RELEASE|MINSIZEREL|RELWITHDEBINFO)", re.I)


def _ndebug(vars: dict) -> list[str]:
    """``["NDEBUG"]`` when the build the CMake files set up compiles with it: a release build type set in them
    (``set(CMAKE_BUILD_TYPE Release)``, whose flags CMake gives ``-DNDEBUG``) unless the CMake files replace that
    type's flags (``set(CMAKE_CXX_FLAGS_RELEASE "-O3")``) by a value without ``-DNDEBUG`` or the default's
    ``${CMAKE_CXX_FLAGS_RELEASE}``; or ``-DNDEBUG`` set in the flags."""
    bt = [v.upper() for v in vars.get("CMAKE_BUILD_TYPE", [])]
    release = bool(bt) and bt[0] in _RELEASE and not vars.get("_TRTLINT_NO_NDEBUG_" + bt[0])
    return ["NDEBUG"] if release or vars.get("_TRTLINT_NDEBUG_FLAG") else []


def _slashes(s: str):
    """The lengths of each prefix of ``s`` that ends before a '/' and of ``s`` itself."""
    return [i for i, c in enumerate(s) if c == "/"] + [len(s)]

