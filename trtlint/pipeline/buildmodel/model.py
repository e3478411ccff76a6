"""The build model's types: a CMake target, one unit's compile flags, the model itself, and what a run takes from
it (each unit's flags on its SourceFile, each header's include dirs)."""

from __future__ import annotations

import dataclasses
import posixpath
from dataclasses import dataclass, field
from typing import Iterable, Optional

from trtlint.base import methodcache

_METHODS = methodcache.begin(__file__)  # the dataclasses' methods compiled once (until end())


@dataclass(frozen=True)
class Target:
    """A CMake target: ``dir`` the (root-relative) directory of the list file defining it, ``scope`` the
    directory of the project it belongs to, ``sources`` root-relative, ``include_dirs`` absolute (its own and
    those its links propagate), ``defines`` (``NAME`` or ``NAME=VALUE``), ``links`` the names it links; ``kind``
    "executable", or the library kind written ("shared", "module", "static", "object", "interface"; "library" when
    none is written: CMake's ``BUILD_SHARED_LIBS`` decides)."""

    name: str
    dir: str
    scope: str
    sources: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    kind: str = "library"


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
    # each program's directory -> how it was found ("CMake", "Makefile", "setup.py"); only with scopes
    programs: dict = field(default_factory=dict, compare=False)
    # with programs: the C++/CUDA units no program, target or compile_commands.json entry builds (said in the summary)
    uncovered: tuple = ()
    # the programs whose Makefile make cannot run (an ``include`` of a file the tree does not have:
    # makeprog.missing_include): ((makefile, line, include as written, its units), ...)
    unrunnable: tuple = ()
    # the code only a build option's non-default value builds, where the project marks that option experimental or
    # deprecated (:mod:`.gates`): ((option, value it needs, where the branch is, why marked, its units), ...)
    optional: tuple = ()
    compile_commands: Optional[str] = None
    from_compile_commands: frozenset = frozenset()  # the units whose flags come from compile_commands.json
    # what could not be read or evaluated within the limits: (path, line, message), reported as TRT001
    problems: tuple[tuple[str, int, str], ...] = ()

    def problem_items(self) -> list[tuple[str, str, int]]:
        """``problems`` as the run's list of skipped files takes them: (path, message, line), each a TRT001."""
        return [(p, m, ln) for p, ln, m in self.problems]

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


methodcache.end(_METHODS)


def executable_units(targets: Iterable[Target]) -> tuple[str, ...]:
    """The units (root-relative, sorted) that the tree's own executables hold: every target compiling the unit is an
    executable, or a library that an executable of the tree links (directly or through other libraries of the
    tree). A unit of a library no executable of the tree links (a plugin library for others to load), of a
    Makefile's program (its product is not known) or of no target at all is not one: nothing shows that only the
    tree's own programs run its code."""
    targets = list(targets)
    by_name: dict[tuple[str, str], Target] = {(t.scope, t.name): t for t in targets}
    by_bare: dict[str, list[Target]] = {}
    for t in targets:
        by_bare.setdefault(t.name, []).append(t)
    reached: set[int] = set()
    todo = [t for t in targets if t.kind == "executable"]
    while todo:
        t = todo.pop()
        if id(t) in reached:
            continue
        reached.add(id(t))
        for ln in t.links:
            hit = by_name.get((t.scope, ln))
            todo.extend([hit] if hit is not None else by_bare.get(ln, ()))
    holders: dict[str, list[bool]] = {}
    for t in targets:
        ok = id(t) in reached and t.kind != "makefile"
        for s in t.sources:
            holders.setdefault(s, []).append(ok)
    return tuple(sorted(s for s, oks in holders.items() if all(oks)))


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
