"""The build model: which targets compile which C++/CUDA units, with which include dirs and defines, and which
independent CMake projects (scopes) the tree holds. Read from ``compile_commands.json`` when present and from
the CMake list files themselves (tokenized by :mod:`trtlint.frontends.cmake`; evaluated here); CMake is never
run.

What is evaluated: ``project()``, ``add_subdirectory``, ``add_library``/``add_executable``/``cuda_add_*``
(``ALIAS`` too), ``target_sources``, ``file(GLOB|GLOB_RECURSE)`` (matched against the project's files),
``include_directories``/``cuda_include_directories``, ``target_include_directories`` with PUBLIC/INTERFACE
propagation through ``target_link_libraries``, ``add_definitions``/``add_compile_definitions``/
``target_compile_definitions``, ``-D`` words written into ``CMAKE_CXX_FLAGS``/``CMAKE_CUDA_FLAGS`` (``set``,
``string(APPEND)``; a value with a variable not known leaves the name defined), ``set()`` (``PARENT_SCOPE`` too)/``list(APPEND|PREPEND)``/``unset()`` variables,
``foreach()`` (its body once per value: :mod:`.foreach`),
``${CMAKE_CURRENT_SOURCE_DIR}``, ``${CMAKE_CURRENT_LIST_DIR}``, ``${PROJECT_SOURCE_DIR}``,
``${<name>_SOURCE_DIR}``, ``${CMAKE_SOURCE_DIR}``. Both branches of an ``if()`` are taken (a branch only a
build option's non-default value takes is noted: :mod:`.gates`, ``BuildModel.optional``); function and macro
bodies are skipped; an argument with a generator expression or a variable not known is skipped; an unknown
command is ignored. Never raises on a list file's content.

A *scope* is the directory (relative to the root, "" for the root) of an independent CMake project: a list
file with ``project()`` that no other list file reaches through ``add_subdirectory`` and that lies in no
other such project's directory (a sample or bindings project inside a project's tree belongs to it).
``scopes`` lists them only when there are at least two (a single-project tree has none).

Where no CMake project compiles a tree's C++/CUDA units, a directory that holds its own build file is a program
too (``programs``: directory -> how it was found): a ``Makefile`` (``makefile``, ``GNUmakefile``) or a
``setup.py`` beside or above the units, the nearest one. A tree of samples each built by its own Makefile is so
one program per sample: their same-named plugin classes never merge, and a route in one sample resolves
against that sample's creators (and those of files in no program).

Every build file is project input (a pull request can hold any): each is read through :mod:`trtlint.base.safeio`
and the evaluation is bounded (the limits below, in docs/robustness.md). A file or evaluation over a limit is
a problem of the model (``BuildModel.problems``: path, line, message), which the run reports as TRT001; the
model is what could be read within the limits.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Iterable, Optional, Union

from trtlint.base import safeio
from trtlint.frontends.cmake import Command
from trtlint.pipeline.buildmodel.cmake import (  # noqa: F401 - the limits, re-exported
    MAX_COMMANDS,
    MAX_DEPTH,
    MAX_LINK_STEPS,
    MAX_LIST_BYTES,
    MAX_PER_CONTEXT,
    MAX_VALUE,
    MAX_WORK,
    Evaluator,
    ListReader,
)
from trtlint.pipeline.buildmodel.compile_commands import MAX_SPLIT, read_compile_commands  # noqa: F401
from trtlint.pipeline.buildmodel.model import (BuildModel, Target, UnitFlags, executable_units, header_include_dirs,
                                              with_unit_flags)
from trtlint.pipeline.buildmodel import gates, makeprog
from trtlint.pipeline.buildmodel.makeprog import UNIT_EXT
from trtlint.pipeline.buildmodel.walk import find_programs, walk_tree

__all__ = ["BuildModel", "Target", "UnitFlags", "build_model", "executable_units", "header_include_dirs", "with_unit_flags"]


def build_model(
    root: Union[str, Path],
    files: Optional[Iterable[str]] = None,
    compile_commands: Optional[Union[str, Path]] = None,
    max_file_size: int = safeio.DEFAULT_LIMIT,
) -> BuildModel:
    """The build model of the project at ``root``. ``files``: the project's files as root-relative POSIX paths
    (discovery's; globs are matched against them and the ``CMakeLists.txt`` among them are read); None walks
    the tree. ``compile_commands``: the path of a ``compile_commands.json`` (its per-file ``-I``/``-isystem``/
    ``-iquote``/``-D`` win over what the CMake files say). ``max_file_size``: the largest list file read.
    Never raises; what a limit stopped is in ``problems``."""
    root_s = os.path.normpath(str(Path(root).resolve()))
    rels = sorted(set(files)) if files is not None else walk_tree(root_s)
    reader = ListReader(root_s, max_file_size)
    lists: dict[str, tuple[Command, ...]] = {}
    for rel in rels:
        if posixpath.basename(rel) == "CMakeLists.txt":
            cmds = reader.read(rel)
            if cmds is not None:
                lists[posixpath.dirname(rel)] = cmds
    ev = Evaluator(root_s, rels, lists, reader)
    ev.run()
    targets, units = ev.result()
    problems = reader.problems + ev.problems
    cc_units: dict[str, UnitFlags] = {}
    if compile_commands:
        cc_units, cc_problems = read_compile_commands(str(compile_commands), root_s)
        problems += cc_problems
    units.update(cc_units)
    owner: dict[str, str] = {}
    programs = find_programs(root_s, rels, ev, targets, cc_units, owner)
    root_how = makeprog.build_file_kind(root_s, "", set(rels)) if "" in owner.values() else None
    made, make_problems, unrunnable = makeprog.programs_flags(root_s, rels, dict(programs, **({"": root_how} if root_how else {})),
                                                  owner, max_file_size)
    for mk, d, srcs, incs, defs, owned in made:  # a program built by its Makefile or setup.py: a target, its units' flags
        targets += (Target(name=mk, dir=d, scope=d, sources=srcs, include_dirs=incs, defines=defs, kind="makefile"),)
        for rel in owned:
            units.setdefault(rel, UnitFlags(include_dirs=incs, defines=defs, origin=(mk,)))
    problems += tuple(make_problems)
    programs = programs if len(programs) >= 2 else {}
    uncovered: tuple = ()
    if programs:
        built = set(units) | set(owner) | {src for t in targets for src in t.sources}
        in_cmake = [d for d, how in programs.items() if how == "CMake"]
        uncovered = tuple(r for r in rels if r.endswith(UNIT_EXT) and r not in built
                          and not any(d == "" or r.startswith(d + "/") for d in in_cmake))
    optional = {rel: g for rel, g in ev.gated.items() if rel not in ev.ungated}
    for rel, g in gates.setup_flag_gates(root_s, rels, max_file_size).items():
        if rel not in ev.ungated:
            optional.setdefault(rel, g)
    return BuildModel(root=root_s, targets=targets, units=units, scopes=tuple(sorted(programs)), programs=programs,
                      uncovered=uncovered, unrunnable=tuple(unrunnable),
                      optional=gates.marked_builds(optional, cc_units),
                      compile_commands=str(compile_commands) if compile_commands else None,
                      from_compile_commands=frozenset(cc_units), problems=tuple(dict.fromkeys(problems)))
