"""The headers the build does not compile: a project header that no C++/CUDA unit of the tree includes, directly or
through other headers, is code no program builds (a plugin left behind when its ``.cpp`` was deleted, a header
nothing includes any more). Findings about code defined only there are set aside, and the run's summary names
the headers (:func:`set_aside`; ``judge-unincluded-headers = true`` judges them like the rest).

What counts as including, generously (a header wrongly called unincluded would hide true findings; one wrongly
called included is only judged as before):

- every C++/CUDA file of the tree is a root, whether a build file names it or not (tests, samples, a Python
  extension's sources, programs of another build system all include what they use);
- an ``#include`` name (from the text scan: every branch of an ``#if`` counts) reaches the header at the path
  relative to the including file, and every header whose path ends with the name (an ``-I`` directory, wherever
  it is), ``../`` parts dropped; the includes the C++ frontend resolved in the units it parsed count too;
- it is known only where the build is: with no build file giving a unit its flags (no CMake target, Makefile,
  ``setup.py`` or ``compile_commands.json`` entry), nothing is set aside;
- a computed ``#include MACRO`` in a reached file could name any header: nothing is set aside;
- a header is set aside only when another header of its own directory is reached: a family of headers some
  file outside discovery includes (an extension-less umbrella header such as Eigen's ``Eigen/Core``) is not
  mistaken for dead code, and neither is a directory of header-only code shipped for others to include.
"""

from __future__ import annotations

import posixpath
from typing import Iterable

_UNIT_KINDS = ("cpp", "cuda")


_CPP_KINDS = ("cpp", "cuda", "header")


def include_map(files, scans) -> dict[str, tuple[str, ...]]:
    """rel -> the names the ``#include`` lines of each C++ file of ``files`` (SourceFiles) write, from ``scans``
    (the run's TextScans: remembered by content digest). The project state keeps it (an editor's buffer
    replaces its file's entry: :func:`trtlint.store.scancache.include_names`)."""
    return {f.rel: scans.scan(f).includes for f in files if f.kind in _CPP_KINDS}


def unincluded_headers(kinds: dict, includes: dict, build, facts: Iterable = ()) -> tuple[str, ...]:
    """The project headers no C++/CUDA unit includes, by the rules of the module docstring; () when the build is
    not known. ``kinds``: rel -> discovery's kind of every project file; ``includes``: :func:`include_map`;
    ``build``: the BuildModel; ``facts``: FileFacts whose resolved ``includes`` count for the units."""
    r = Reach(kinds, includes, build)
    r.add_facts(facts)
    return r.unincluded()


class Reach:
    """:func:`unincluded_headers` in two steps: what the ``#include`` names reach from every unit (made with the
    object: it needs no fact, so a run makes it while its workers parse), then :meth:`add_facts` (the includes the
    C++ frontend resolved reach more). What is reached from both is what is reached from the two kinds of roots
    together, and a computed include in any file reached says nothing is known, as in one walk from all of them."""

    def __init__(self, kinds: dict, includes: dict, build) -> None:
        self.includes = includes
        self.known = build is not None and bool(getattr(build, "units", None))
        self.headers = {rel for rel, k in kinds.items() if k == "header"} if self.known else set()
        self.by_tail = _tails(self.headers)
        self.reached: set[str] = set()
        self.done: set[str] = set()
        self.computed = False  # a reached file has a computed include
        self.todo: list[str] = [rel for rel, k in kinds.items() if k in _UNIT_KINDS] if self.headers else []
        self._walk()

    def _reach(self, h: str) -> None:
        if h in self.headers and h not in self.reached:
            self.reached.add(h)
            self.todo.append(h)

    def _walk(self) -> None:
        todo, done = self.todo, self.done
        while todo and not self.computed:
            rel = todo.pop()
            if rel in done:
                continue
            done.add(rel)
            for name in self.includes.get(rel, ()):
                if name.startswith("#"):
                    self.computed = True  # a computed include: what it names is not known
                    return
                for h in _resolve(rel, name, self.headers, self.by_tail):
                    self._reach(h)

    def add_facts(self, facts: Iterable) -> None:
        if not self.headers:
            return
        for ff in facts:
            if getattr(ff, "kind", None) in _UNIT_KINDS:
                for h in getattr(ff, "includes", ()):
                    self._reach(h)
        self._walk()

    def unincluded(self) -> tuple[str, ...]:
        if not self.headers or self.computed:
            return ()
        dead = self.headers - self.reached
        reached_dirs = {posixpath.dirname(h) for h in self.reached}
        return tuple(sorted(h for h in dead if posixpath.dirname(h) in reached_dirs))


def unrunnable_programs(kinds: dict, includes: dict, build) -> tuple:
    """The programs whose Makefile make cannot run (``BuildModel.unrunnable``: an ``include`` of a file the tree
    does not have), each with the files only it compiles: ``((makefile, line, include as written, files), ...)``.
    Its files are its units and the project headers those units reach through their ``#include`` lines that no
    other C++/CUDA file of the tree reaches (every other unit is a root, built or not, as for
    :func:`unincluded_headers`; the ``#include`` names only: a run finds them while its workers parse, before any
    fact). A computed ``#include MACRO`` anywhere leaves the headers out (only the units count)."""
    progs = tuple(getattr(build, "unrunnable", ()) or ()) if build is not None else ()
    if not progs:
        return ()
    dead_units = {u for *_x, units in progs for u in units}
    headers = {rel for rel, k in kinds.items() if k == "header"}
    by_tail = _tails(headers)
    live = _reached_from([rel for rel, k in kinds.items() if k in _UNIT_KINDS and rel not in dead_units],
                         includes, headers, by_tail)
    out = []
    for mk, line, inc, units in progs:
        mine = _reached_from(units, includes, headers, by_tail) if live is not None else None
        extra = sorted(mine - live) if mine is not None and live is not None else []
        out.append((mk, line, inc, tuple(sorted(set(units) | set(extra)))))
    return tuple(out)


def optional_builds(kinds: dict, includes: dict, build) -> tuple:
    """The code only a build option the project marks experimental or deprecated builds (``BuildModel.optional``:
    :mod:`trtlint.pipeline.buildmodel.gates`), each with the files only it compiles: ``((option, value it needs,
    where the branch is, why marked, files), ...)``. Its files are its units and the C++ files those reach through
    their ``#include`` names (a ``.cpp`` an extension's unit includes counts: ``#include "group_norm.cpp"``) that no
    other unit reaches; a unit that such a unit includes and no build compiles on its own is no other unit. A
    computed ``#include MACRO`` anywhere leaves the included files out (only the units count)."""
    entries = tuple(getattr(build, "optional", ()) or ()) if build is not None else ()
    if not entries:
        return ()
    dead = {u for *_x, units in entries for u in units if u in kinds}
    files = {rel for rel, k in kinds.items() if k in _CPP_KINDS}
    by_tail = _tails(files)
    built = set(getattr(build, "units", {}) or {}) | {s for t in getattr(build, "targets", ()) for s in t.sources}
    from_dead = _reached_from(sorted(dead), includes, files, by_tail) or set()
    roots = [rel for rel, k in kinds.items() if k in _UNIT_KINDS and rel not in dead
             and not (rel in from_dead and rel not in built)]
    live = _reached_from(roots, includes, files, by_tail)
    out = []
    for option, needs, where, why, units in entries:
        units = tuple(u for u in units if u in kinds)
        mine = _reached_from(units, includes, files, by_tail) if live is not None else None
        got = sorted(mine - live) if mine is not None and live is not None else sorted(units)
        if got:
            out.append((option, needs, where, why, tuple(got)))
    return tuple(out)


class IncludeReach:
    """What a set of C++ files reaches through their ``#include`` names (:func:`include_map`), every C++ file a target
    (an ``#include "x.cpp"`` counts): a name resolves beside the including file, else to every file whose path ends
    with it. For the summary's count of the targets holding a header-defined plugin (``report.context.Analysis``)."""

    def __init__(self, includes: dict) -> None:
        self.includes = includes or {}
        self.files = set(self.includes)
        self._tails: "dict[str, list[str]] | None" = None

    def reached(self, roots) -> "set[str] | None":
        """The files ``roots`` reach (the roots among them); None when one reached has a computed include."""
        roots = [r for r in roots if r in self.files]
        if not roots:
            return set()
        if self._tails is None:
            self._tails = _tails(self.files)
        return _reached_from(roots, self.includes, self.files, self._tails)


def _tails(headers: set[str]) -> dict[str, list[str]]:
    """Every tail of each header's path (``a/b/c.h``, ``b/c.h``, ``c.h``) -> the headers ending with it."""
    by_tail: dict[str, list[str]] = {}
    for h in headers:
        parts = h.split("/")
        for i in range(len(parts)):
            by_tail.setdefault("/".join(parts[i:]), []).append(h)
    return by_tail


def _reached_from(roots, includes: dict, headers: set[str], by_tail: dict) -> "set[str] | None":
    """The headers (and the header roots themselves) ``roots`` reach through their ``#include`` names; None when a
    file reached has a computed include (what it names is not known)."""
    seen: set[str] = {r for r in roots if r in headers}
    todo = list(roots)
    while todo:
        rel = todo.pop()
        for name in includes.get(rel, ()):
            if name.startswith("#"):
                return None
            for h in _resolve(rel, name, headers, by_tail):
                if h not in seen:
                    seen.add(h)
                    todo.append(h)
    return seen


def _resolve(rel: str, name: str, headers: set[str], by_tail: dict[str, list[str]]) -> list[str]:
    """The headers an ``#include`` of ``name`` in ``rel`` can reach: the one beside ``rel``, else every header whose
    path ends with the name (``../`` parts dropped)."""
    here = posixpath.normpath(posixpath.join(posixpath.dirname(rel), name))
    if here in headers:
        return [here]
    n = posixpath.normpath(name.replace("\\", "/"))
    while n.startswith("../"):
        n = n[3:]
    return by_tail.get(n.lstrip("/"), [])


def set_aside(diags: list, unincluded: Iterable[str]) -> tuple[list, dict]:
    """(the findings to report, {header: how many findings set aside}): a finding is set aside when it and every
    related location lie in headers of ``unincluded`` (it is about code defined only there; one that names a
    compiled file is kept)."""
    dead = set(unincluded)
    if not dead:
        return diags, {}
    kept, aside = [], {}
    for d in diags:
        paths = {d.span.path, *(r.span.path for r in d.related)}
        if d.span.path in dead and paths <= dead:
            aside[d.span.path] = aside.get(d.span.path, 0) + 1
        else:
            kept.append(d)
    return kept, dict(sorted(aside.items()))

