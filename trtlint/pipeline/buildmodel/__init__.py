"""The build model: which targets compile which C++/CUDA units, with which include dirs and defines, and which
independent CMake projects (scopes) the tree holds. Read from ``compile_commands.json`` when present and from
the CMake list files themselves (tokenized by :mod:`trtlint.frontends.cmake`; evaluated here); CMake is never
run.

What is evaluated: ``project()``, ``add_subdirectory``, ``add_library``/``add_executable``/``cuda_add_*``
(``ALIAS`` too), ``target_sources``, ``file(GLOB|GLOB_RECURSE)`` (matched against the project's files),
``include_directories``/``cuda_include_directories``, ``target_include_directories`` with PUBLIC/INTERFACE
propagation through ``target_link_libraries``, ``add_definitions``/``add_compile_definitions``/
``target_compile_definitions``, ``set()``/``list(APPEND|PREPEND)``/``unset()`` variables,
``${CMAKE_CURRENT_SOURCE_DIR}``, ``${CMAKE_CURRENT_LIST_DIR}``, ``${PROJECT_SOURCE_DIR}``,
``${<name>_SOURCE_DIR}``, ``${CMAKE_SOURCE_DIR}``. Both branches of an ``if()`` are taken; function and macro
bodies are skipped; an argument with a generator expression or a variable not known is skipped; an unknown
command is ignored. Never raises on a list file's content.

A *scope* is the directory (relative to the root, "" for the root) of an independent CMake project: a list
file with ``project()`` that no other list file reaches through ``add_subdirectory`` and that lies in no
other such project's directory (a sample or bindings project inside a project's tree belongs to it).
``scopes`` lists them only when there are at least two (a single-project tree has none).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import os
import posixpath
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Union

from ...frontends.cmake import Command, decode_list_file, glob_pattern_args, list_file_commands

_UNIT_EXT = (".c", ".cc", ".cpp", ".cxx", ".c++", ".cu")
_SOURCE_EXT = re.compile(r"\.(c|cc|cpp|cxx|c\+\+|cu|h|hh|hpp|hxx|cuh|inl)$", re.I)
_VIS = {"PRIVATE", "PUBLIC", "INTERFACE"}
_LIB_KEYWORDS = {
    "STATIC", "SHARED", "MODULE", "OBJECT", "INTERFACE", "UNKNOWN", "EXCLUDE_FROM_ALL", "WIN32", "MACOSX_BUNDLE",
    "IMPORTED", "GLOBAL", "OPTIONS",
}
_SKIP_DIRS = {".git", ".trtlint_cache", "node_modules", "__pycache__", ".hg", ".svn"}


@dataclass(frozen=True)
class Target:
    """A CMake target: ``dir`` the (root-relative) directory of the list file defining it, ``scope`` the
    directory of the project it belongs to, ``sources`` root-relative, ``include_dirs`` absolute (its own and
    those its links propagate), ``defines`` (``NAME`` or ``NAME=VALUE``), ``links`` the names it links."""

    name: str
    dir: str
    scope: str
    sources: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    links: tuple[str, ...] = ()


@dataclass(frozen=True)
class UnitFlags:
    """What one unit is compiled with: absolute include dirs, defines, and where they came from (target names,
    or ``compile_commands.json``)."""

    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    origin: tuple[str, ...] = ()

    def args(self) -> tuple[str, ...]:
        """The compile arguments: ``-I<dir>`` then ``-D<define>``."""
        return tuple("-I" + d for d in self.include_dirs) + tuple("-D" + d for d in self.defines)


@dataclass(frozen=True)
class BuildModel:
    root: str
    targets: tuple[Target, ...] = ()
    # root-relative unit path -> its flags (from compile_commands.json when it has the unit, else from CMake)
    units: dict = field(default_factory=dict, compare=False)
    scopes: tuple[str, ...] = ()
    compile_commands: Optional[str] = None
    from_compile_commands: frozenset = frozenset()  # the units whose flags come from compile_commands.json

    def scope_of(self, rel_path: str) -> str:
        """The deepest scope directory containing ``rel_path`` ("" for none, or the root's own scope)."""
        best = ""
        for s in self.scopes:
            if s and (rel_path == s or rel_path.startswith(s + "/")) and len(s) > len(best):
                best = s
        return best

    def digest(self) -> str:
        """A digest of every unit's CMake flags (what a memo of include resolution must be keyed by)."""
        import hashlib

        h = hashlib.sha256()
        for rel in sorted(self.units):
            h.update(("\0".join((rel,) + self.cmake_args(rel)) + "\n").encode())
        return h.hexdigest()[:16]

    def flags_for(self, rel_path: str) -> Optional[UnitFlags]:
        return self.units.get(rel_path)

    def cmake_args(self, rel_path: str) -> tuple[str, ...]:
        """The extra compile arguments the CMake targets give a unit; () for a unit in no target, and for one
        whose flags come from compile_commands.json (the C++ frontend reads that file itself)."""
        f = self.units.get(rel_path)
        if f is None or rel_path in self.from_compile_commands:
            return ()
        return f.args()


def build_model(
    root: Union[str, Path],
    files: Optional[Iterable[str]] = None,
    compile_commands: Optional[Union[str, Path]] = None,
) -> BuildModel:
    """The build model of the project at ``root``. ``files``: the project's files as root-relative POSIX paths
    (discovery's; globs are matched against them and the ``CMakeLists.txt`` among them are read); None walks
    the tree. ``compile_commands``: the path of a ``compile_commands.json`` (its per-file ``-I``/``-isystem``/
    ``-iquote``/``-D`` win over what the CMake files say). Never raises."""
    root_s = os.path.normpath(str(Path(root).resolve()))
    rels = sorted(set(files)) if files is not None else _walk(root_s)
    lists: dict[str, tuple[Command, ...]] = {}
    for rel in rels:
        if posixpath.basename(rel) == "CMakeLists.txt":
            try:
                data = (Path(root_s) / rel).read_bytes()
            except OSError:
                continue
            lists[posixpath.dirname(rel)] = list_file_commands(decode_list_file(data))
    ev = _Evaluator(root_s, rels, lists)
    try:
        ev.run()
    except RecursionError:  # pragma: no cover - a pathological nesting of add_subdirectory
        pass
    targets, units = ev.result()
    cc_units: dict[str, UnitFlags] = {}
    if compile_commands:
        cc_units = _read_compile_commands(str(compile_commands), root_s)
    units.update(cc_units)
    return BuildModel(root=root_s, targets=targets, units=units, scopes=ev.scopes(),
                      compile_commands=str(compile_commands) if compile_commands else None,
                      from_compile_commands=frozenset(cc_units))


def with_unit_flags(files: list, model: BuildModel) -> list:
    """``files`` (SourceFiles) with each C++/CUDA unit's CMake flags set (``SourceFile.flags``), and each header's
    include dirs (:func:`header_include_dirs`: what it is parsed with when no unit of the run reaches it)."""
    headers = header_include_dirs(model, [f.rel for f in files if f.kind == "header"])
    out = []
    for f in files:
        if f.kind in ("cpp", "cuda"):
            a = model.cmake_args(f.rel)
        elif f.kind == "header":
            a = tuple("-I" + d for d in headers.get(f.rel, ()))
        else:
            a = ()
        if a and a != f.flags:
            f = dataclasses.replace(f, flags=a)
        out.append(f)
    return out


def header_include_dirs(model: BuildModel, headers: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The include dirs of the program each header belongs to: those of the units in the header's own directory
    (their CMake targets or ``compile_commands.json`` entries), else those of the targets whose list file's
    directory tree holds it (the deepest such directory). A header the run parses on its own (no unit reaches
    it: its only includer includes it under an ``#if`` that is off) then finds what its program's units find
    (mmdeploy's ``target_include_directories(... ${CMAKE_CURRENT_SOURCE_DIR}/common)`` for the plugin headers in
    the directories below). Only include dirs: defines belong to a unit's compile."""
    by_dir: dict[str, list[str]] = {}
    for rel, uf in model.units.items():
        by_dir.setdefault(posixpath.dirname(rel), []).extend(uf.include_dirs)
    by_target_dir: dict[str, list[str]] = {}
    for t in model.targets:
        if t.sources:
            by_target_dir.setdefault(t.dir, []).extend(t.include_dirs)
    out: dict[str, tuple[str, ...]] = {}
    for h in headers:
        d = posixpath.dirname(h)
        dirs = by_dir.get(d)
        while dirs is None:
            dirs = by_target_dir.get(d)
            if d == "":
                break
            d = posixpath.dirname(d)
        if dirs:
            out[h] = tuple(dict.fromkeys(dirs))
    return out


# -- compile_commands.json --------------------------------------------------------------------------------
def _read_compile_commands(path: str, root: str) -> dict[str, UnitFlags]:
    try:
        entries = json.loads(Path(path).read_bytes().decode("utf-8", errors="replace"))
    except (OSError, ValueError):
        return {}
    out: dict[str, UnitFlags] = {}
    if not isinstance(entries, list):
        return out
    for e in entries:
        try:
            d = e.get("directory", "") or ""
            fpath = os.path.normpath(os.path.join(d, e.get("file", "")))
            args = e.get("arguments") or shlex.split(e.get("command", ""))
        except (AttributeError, TypeError, ValueError):
            continue
        rel = _rel(fpath, root)
        if rel is None:
            continue
        incs: list[str] = []
        defs: list[str] = []
        i = 1
        while i < len(args):
            a = str(args[i])
            nxt = str(args[i + 1]) if i + 1 < len(args) else None
            if a in ("-I", "-isystem", "-iquote", "-idirafter") and nxt is not None:
                incs.append(os.path.normpath(os.path.join(d, nxt)))
                i += 2
                continue
            if a == "-D" and nxt is not None:
                defs.append(nxt)
                i += 2
                continue
            for p in ("-isystem", "-iquote", "-idirafter", "-I"):
                if a.startswith(p) and len(a) > len(p):
                    incs.append(os.path.normpath(os.path.join(d, a[len(p):])))
                    break
            else:
                if a.startswith("-D") and len(a) > 2:
                    defs.append(a[2:])
            i += 1
        out[rel] = UnitFlags(tuple(dict.fromkeys(incs)), tuple(dict.fromkeys(defs)), ("compile_commands.json",))
    return out


# -- the CMake files ----------------------------------------------------------------------------------------
def _walk(root: str) -> list[str]:
    out = []
    for dp, dns, fns in os.walk(root):
        if "CMakeCache.txt" in fns:  # a build tree (its _deps hold other projects' list files)
            dns[:] = []
            continue
        dns[:] = sorted(d for d in dns if d not in _SKIP_DIRS and not d.startswith("."))
        rd = os.path.relpath(dp, root)
        rd = "" if rd == "." else rd.replace(os.sep, "/")
        out.extend(posixpath.join(rd, f) if rd else f for f in fns)
    return sorted(out)


def _rel(abs_path: str, root: str) -> Optional[str]:
    if abs_path == root:
        return ""
    if abs_path.startswith(root + os.sep):
        return abs_path[len(root) + 1 :].replace(os.sep, "/")
    return None


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


_VAR = re.compile(r"\$\{([^${}]*)\}")


class _Evaluator:
    def __init__(self, root: str, files: list[str], lists: dict[str, tuple[Command, ...]]) -> None:
        self.root = root
        self.files = files
        self.lists = lists
        self.visited: set[str] = set()
        self.project_roots: list[str] = []
        self.targets: dict[tuple[str, str], _T] = {}  # (evaluation root, name)
        self.aliases: dict[tuple[str, str], str] = {}
        self._glob_cache: dict[tuple[str, bool], list[str]] = {}

    # paths
    def _abs(self, p: str, cur_abs: str) -> str:
        return os.path.normpath(p if os.path.isabs(p) else os.path.join(cur_abs, p))

    def _expand(self, arg: str, quoted: bool, vars: dict) -> Optional[list[str]]:
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
            s = s[: m.start()] + ";".join(v) + s[m.end():]
        if "${" in s:
            return None
        # a quoted argument is one value, but a list of sources or dirs is split by the command anyway
        return [x for x in s.split(";") if x]

    def _values(self, args, vars) -> list[str]:
        out: list[str] = []
        for a, q in args:
            v = self._expand(a, q, vars)
            if v:
                out.extend(v)
        return out

    # pass 1: which list files another one reaches
    def _reached(self) -> set[str]:
        reached: set[str] = set()
        for d, cmds in self.lists.items():
            cur = os.path.join(self.root, d) if d else self.root
            vars = {"CMAKE_CURRENT_SOURCE_DIR": [cur], "CMAKE_CURRENT_LIST_DIR": [cur]}
            for c in cmds:
                if c.name == "set" and c.args:
                    vals = self._values(c.args[1:], vars)
                    vars[c.args[0][0]] = [v for v in vals if v not in ("PARENT_SCOPE", "CACHE")]
                elif c.name == "add_subdirectory" and c.args:
                    v = self._expand(c.args[0][0], c.args[0][1], vars)
                    if v:
                        rel = _rel(self._abs(v[0], cur), self.root)
                        if rel is not None and rel != d and rel in self.lists:
                            reached.add(rel)
        return reached

    def run(self) -> None:
        reached = self._reached()
        tops = sorted((d for d in self.lists if d not in reached), key=lambda d: (d.count("/"), d) if d else (-1, d))
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
        vars = dict(vars)
        vars["CMAKE_CURRENT_SOURCE_DIR"] = [cur]
        vars["CMAKE_CURRENT_LIST_DIR"] = [cur]
        self._run(cmds, d, top, cur, vars, list(incs), list(defs), stack)

    def _run(self, cmds, d: str, top: str, cur: str, vars: dict, incs: list, defs: list, stack: set) -> None:
        skip_depth = 0
        for c in cmds:
            name = c.name
            if name in ("function", "macro"):
                skip_depth += 1
                continue
            if name in ("endfunction", "endmacro"):
                skip_depth = max(0, skip_depth - 1)
                continue
            if skip_depth:
                continue
            try:
                self._command(c, d, top, cur, vars, incs, defs, stack)
            except (IndexError, ValueError, TypeError, KeyError):
                continue

    def _command(self, c: Command, d: str, top: str, cur: str, vars: dict, incs: list, defs: list, stack: set) -> None:
        name, args = c.name, c.args
        if name == "project" and args:
            if d == top and d not in self.project_roots:
                self.project_roots.append(d)
            pname = self._expand(args[0][0], args[0][1], vars)
            vars["PROJECT_SOURCE_DIR"] = [cur]
            if pname:
                vars["PROJECT_NAME"] = [pname[0]]
                vars[pname[0] + "_SOURCE_DIR"] = [cur]
        elif name == "set" and args:
            if args[0][0] in ("CMAKE_CXX_FLAGS", "CMAKE_CUDA_FLAGS", "CMAKE_CXX_FLAGS_RELEASE") and any(
                    re.search(r"(?:^|\s)[-/]DNDEBUG\b", a) for a, _q in args[1:]):
                vars["_TRTLINT_NDEBUG_FLAG"] = ["1"]  # (the rest of the flags, `${CMAKE_CXX_FLAGS}`, may not expand)
            vals = self._values(args[1:], vars)
            if "CACHE" in vals:
                vals = vals[: vals.index("CACHE")]
            vals = [v for v in vals if v != "PARENT_SCOPE"]
            vars[args[0][0]] = vals
        elif name == "unset" and args:
            vars.pop(args[0][0], None)
        elif name == "list" and len(args) >= 2 and args[0][0].upper() in ("APPEND", "PREPEND"):
            var = args[1][0]
            vals = self._values(args[2:], vars)
            old = vars.get(var, [])
            vars[var] = old + vals if args[0][0].upper() == "APPEND" else vals + old
        elif name == "file" and len(args) >= 2 and args[0][0].upper() in ("GLOB", "GLOB_RECURSE"):
            recurse = args[0][0].upper() == "GLOB_RECURSE"
            var = args[1][0]
            vals = self._values(args[2:], vars)
            out: list[str] = []
            for a in glob_pattern_args(vals):
                out.extend(self._glob(self._abs(a, cur), recurse))
            vars[var] = out
        elif name == "add_subdirectory" and args:
            v = self._expand(args[0][0], args[0][1], vars)
            if v:
                rel = _rel(self._abs(v[0], cur), self.root)
                if rel is not None:
                    self._eval_dir(rel, top, vars, incs, defs, stack)
        elif name == "include" and args and len(stack) < 64:
            # a project .cmake file: its commands run here (CMAKE_CURRENT_LIST_DIR is its own directory)
            v = self._expand(args[0][0], args[0][1], vars)
            path = self._abs(v[0], cur) if v and v[0].endswith(".cmake") else None
            rel = _rel(path, self.root) if path else None
            if rel is not None and rel not in stack and os.path.isfile(path):
                try:
                    cmds = list_file_commands(decode_list_file(Path(path).read_bytes()))
                except OSError:
                    cmds = ()
                saved = vars.get("CMAKE_CURRENT_LIST_DIR")
                vars["CMAKE_CURRENT_LIST_DIR"] = [os.path.dirname(path)]
                self._run(cmds, d, top, cur, vars, incs, defs, stack | {rel})
                vars["CMAKE_CURRENT_LIST_DIR"] = saved or [cur]
        elif name in ("include_directories", "cuda_include_directories"):
            before = any(a == "BEFORE" for a, _ in args)
            new = [self._abs(v, cur) for v in self._values(args, vars) if v not in ("AFTER", "BEFORE", "SYSTEM")]
            if before:
                incs[:0] = new
            else:
                incs.extend(new)
        elif name == "add_definitions":
            defs.extend(v[2:] for v in self._values(args, vars) if v.startswith(("-D", "/D")) and len(v) > 2)
        elif name == "add_compile_definitions":
            defs.extend(v[2:] if v.startswith("-D") else v for v in self._values(args, vars))
        elif name in ("add_library", "add_executable", "cuda_add_library", "cuda_add_executable") and args:
            tn = self._expand(args[0][0], args[0][1], vars)
            if not tn:
                return
            vals = self._values(args[1:], vars)
            if vals and vals[0] == "ALIAS":
                if len(vals) > 1:
                    self.aliases[(top, tn[0])] = vals[1]
                return
            t = self.targets.get((top, tn[0]))
            if t is None:
                t = self.targets[(top, tn[0])] = _T(tn[0], d, top, incs=list(incs), defs=list(defs) + _ndebug(vars))
            if "IMPORTED" in vals:
                return
            self._add_sources(t, vals, cur)
        elif name in ("target_sources", "target_include_directories", "target_compile_definitions",
                      "target_link_libraries") and args:
            tn = self._expand(args[0][0], args[0][1], vars)
            t = self._target(top, tn[0]) if tn else None
            if t is None:
                return
            vals = self._values(args[1:], vars)
            if name == "target_sources":
                self._add_sources(t, vals, cur)
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

    def _add_sources(self, t: _T, vals: list[str], cur: str) -> None:
        for v in vals:
            if v.upper() in _LIB_KEYWORDS or v.upper() in _VIS or not _SOURCE_EXT.search(v):
                continue
            rel = _rel(self._abs(v, cur), self.root)
            if rel is not None and rel not in t.sources:
                t.sources.append(rel)

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
        rel = _rel(pattern, self.root)
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
            t = self._target(*key)
            if t is None or id(t) in seen:
                return [], []
            seen.add(id(t))
            incs, defs = list(t.iface_incs), list(t.iface_defs)
            for ln, vis in t.links:
                if vis in ("PUBLIC", "INTERFACE"):
                    i2, d2 = iface((t.root, ln), seen)
                    incs += i2
                    defs += d2
            return incs, defs

        targets = []
        units: dict[str, UnitFlags] = {}
        for (top, name), t in sorted(self.targets.items()):
            incs, defs = list(t.incs), list(t.defs)
            for ln, _vis in t.links:
                i2, d2 = iface((top, ln), {id(t)})
                incs += i2
                defs += d2
            incs = [i for i in dict.fromkeys(incs) if os.path.isdir(i)]
            defs = list(dict.fromkeys(defs))
            targets.append(Target(name=name, dir=t.dir, scope=top, sources=tuple(t.sources), include_dirs=tuple(incs),
                                  defines=tuple(defs), links=tuple(ln for ln, _ in t.links)))
            for s in t.sources:
                if not s.lower().endswith(_UNIT_EXT):
                    continue
                old = units.get(s)
                if old is None:
                    units[s] = UnitFlags(tuple(incs), tuple(defs), (name,))
                else:
                    units[s] = UnitFlags(tuple(dict.fromkeys(old.include_dirs + tuple(incs))),
                                         tuple(dict.fromkeys(old.defines + tuple(defs))), old.origin + (name,))
        return tuple(targets), units


_RELEASE = ("RELEASE", "MINSIZEREL", "RELWITHDEBINFO")


def _ndebug(vars: dict) -> list[str]:
    """``["NDEBUG"]`` when the build the CMake files set up compiles with it: a release build type set in them
    (``set(CMAKE_BUILD_TYPE Release)``, whose flags CMake gives ``-DNDEBUG``) or ``-DNDEBUG`` set in the flags."""
    bt = [v.upper() for v in vars.get("CMAKE_BUILD_TYPE", [])]
    return ["NDEBUG"] if (bt and bt[0] in _RELEASE) or vars.get("_TRTLINT_NDEBUG_FLAG") else []


def _slashes(s: str):
    """The lengths of each prefix of ``s`` that ends before a '/' and of ``s`` itself."""
    return [i for i, c in enumerate(s) if c == "/"] + [len(s)]
