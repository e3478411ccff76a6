"""The build model's tree walk: the project's files when discovery gave none, root-relative paths, and the
programs a tree of separately built samples holds (a directory with its own Makefile or ``setup.py``)."""

from __future__ import annotations

import os
import posixpath
from typing import Optional

_SKIP_DIRS = {".git", ".trtlint_cache", "node_modules", "__pycache__", ".hg", ".svn"}


def walk_tree(root: str) -> list[str]:
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


def rel_path(abs_path: str, root: str) -> Optional[str]:
    if abs_path == root:
        return ""
    if abs_path.startswith(root + os.sep):
        return abs_path[len(root) + 1 :].replace(os.sep, "/")
    return None


_MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
_UNIT_EXT = (".c", ".cc", ".cpp", ".cxx", ".cu")


def find_programs(root: str, rels: list[str], ev, targets, compiled: dict, owner: dict) -> dict[str, str]:
    """The project's programs, directory -> how it was found: the independent CMake projects, and for the
    C++/CUDA units that no CMake target or ``compile_commands.json`` entry compiles, the nearest directory at or
    above each that holds a Makefile, a ``setup.py`` or a shell script running a C++/CUDA compiler (below the root, and in no CMake project's tree: such a
    file there is an alternative build of the same sources). ``owner`` gets each such unit's program directory
    ("" when only the root's own build file builds it). The caller keeps the programs only when there are two."""
    out = {d: "CMake" for d in getattr(ev, "independent", ())}
    built = set(compiled)
    for t in targets:
        built.update(t.sources)
    present = set(rels)
    has_build: dict[str, Optional[str]] = {}

    def build_file(d: str) -> Optional[str]:
        if d not in has_build:
            how = None
            if posixpath.join(d, "setup.py") in present:
                how = "setup.py"
            else:
                for m in _MAKEFILES:
                    rel = posixpath.join(d, m) if d else m
                    if rel in present or os.path.isfile(os.path.join(root, rel)):
                        how = "Makefile"
                        break
                if how is None and d:
                    from trtlint.pipeline.buildmodel.makeprog import script_of

                    if script_of(root, d, present) is not None:
                        how = "script"  # a shell script that runs nvcc/g++ on the directory's sources
            has_build[d] = how
        return has_build[d]

    cmake_dirs = [d for d in out]
    for rel in rels:
        if not rel.endswith(_UNIT_EXT) or rel in built:
            continue
        d = posixpath.dirname(rel)
        while True:
            if any(c == "" or d == c or d.startswith(c + "/") for c in cmake_dirs):
                break
            how = build_file(d) if d else None
            if how is not None:
                out.setdefault(d, how)
                owner[rel] = d
                break
            if not d:
                # the root's own build file builds it (its flags count; the root is not a program of its own)
                if build_file("") is not None:
                    owner[rel] = ""
                break
            d = posixpath.dirname(d)
    return out
