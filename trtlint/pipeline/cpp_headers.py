"""The shared-header plan and its repairs. A project header that several C++ units include is parsed with each
of them, but its declarations need walking once: the plan gives every unit the headers it leaves to another
(``SourceFile.skip``); the repairs extract a unit again where the plan's guess from the ``#include`` lines
missed (a header nobody walked, definitions only one unit's macros enable). The units the call-graph
expansion parses get their skip sets from the facts of the units parsed before them (:func:`lazy_plan`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Optional

from trtlint.store.cache import load_json_dict, write_json
from trtlint.base.facts import FileFacts
from ..frontends import ExtractContext, SourceFile


def shared_header_plan(units: list[SourceFile], ctx: ExtractContext, candidate,
                        owners: Optional[dict] = None, reached_headers=None) -> list[SourceFile]:
    """Which unit walks which project header. A header that several units include is parsed with each of them
    (that is what a translation unit is), but its declarations need walking only once: the first unit (in
    the units' order, the order the index takes facts in) that pulls the header in walks it, and the others
    get it in ``SourceFile.skip``. Only headers ``candidate`` accepts (those without a plugin marker: their
    declarations never feed a unit's own plugin classes) are shared. Who pulls what in is read from the
    ``#include`` lines (frontends.cpp.reached_headers); :func:`walk_unwalked` repairs where a parse did not
    include what the text named. ``owners``, when given, gets header -> the unit meant to walk it;
    ``reached_headers``: frontends.cpp.reached_headers or a memo of it (:class:`ReachMemo`)."""
    from ..frontends import cpp

    owner: dict[str, str] = {} if owners is None else owners
    reached = (reached_headers or cpp.reached_headers)(units, ctx)
    for f, r in zip(units, reached):
        for h in r:
            if h not in owner and candidate(h):
                owner[h] = f.rel
    out = []
    for f, r in zip(units, reached):
        skip = tuple(h for h in r if owner.get(h, f.rel) != f.rel)
        out.append(dataclasses.replace(f, skip=skip) if skip else f)
    return out


def walk_unwalked(units: list[SourceFile], facts: list[FileFacts], extract_cached) -> list[FileFacts]:
    """A header some units left to another (``SourceFile.skip``) that no unit walked after all (the unit meant
    to walk it did not include it: an ``#if`` branch, a failed parse) is walked by the first unit that did
    include it, extracted again without skipping it. Deterministic: the same plan and facts give the same
    repair."""
    if not any(f.skip for f in units) or len(facts) != len(units):
        return units, facts
    walked = walked_headers(units, facts, [], lambda h: True)
    redo: dict[int, set[str]] = {}
    claimed: set[str] = set()
    for i, (f, ff) in enumerate(zip(units, facts)):
        for h in f.skip:
            if h not in walked and h not in claimed and h in ff.includes:
                claimed.add(h)
                redo.setdefault(i, set()).add(h)
    return _extract_again(units, facts, redo, extract_cached)


def _extract_again(units: list[SourceFile], facts: list[FileFacts], redo: dict[int, set[str]], extract_cached):
    """(units, facts) with each unit ``i`` in ``redo`` extracted again without skipping the headers ``redo[i]``."""
    if not redo:
        return units, facts
    order = sorted(redo)
    units = list(units)
    for i in order:
        units[i] = dataclasses.replace(units[i], skip=tuple(h for h in units[i].skip if h not in redo[i]))
    out = list(facts)
    for i, ff in zip(order, extract_cached([units[i] for i in order])):
        out[i] = ff
    return units, out


class ReachMemo:
    """frontends.cpp.reached_headers, remembered across runs (``reach.json`` in the cache): a unit's entry is
    used while the unit, every header it reached and the set of the project's C/C++ files are as they were,
    with the same C++ context (a header that could now be found first would be a new file)."""

    def __init__(self, path: Optional[Path], ctx_key: str, files: list[SourceFile]) -> None:
        import hashlib

        self.path = path
        self.digests = {f.rel: f.digest for f in files}
        cfiles = sorted(f.rel for f in files if f.kind in ("cpp", "cuda", "header"))
        self.key = hashlib.sha256(("\0".join([ctx_key, *cfiles])).encode()).hexdigest()[:24]
        self.data = load_json_dict(path) if path is not None else {}
        self.dirty = False

    def __call__(self, units: list[SourceFile], ctx: ExtractContext) -> list[tuple[str, ...]]:
        from ..frontends import cpp

        out: list = [None] * len(units)
        miss = []
        for i, f in enumerate(units):
            e = self.data.get(f.rel)
            if (f.text is None and isinstance(e, list) and len(e) == 3 and e[0] == f.digest and e[1] == self.key
                    and isinstance(e[2], list)
                    and all(isinstance(x, list) and len(x) == 2 and self.digests.get(x[0]) == x[1] for x in e[2])):
                out[i] = tuple(x[0] for x in e[2])
            else:
                miss.append(i)
        if miss:
            for i, r in zip(miss, cpp.reached_headers([units[i] for i in miss], ctx)):
                out[i] = r
                f = units[i]
                if f.text is None and all(h in self.digests for h in r):
                    self.data[f.rel] = [f.digest, self.key, [[h, self.digests[h]] for h in r]]
                    self.dirty = True
        return out

    def save(self) -> None:
        if self.dirty and self.path is not None:
            live = {k: v for k, v in self.data.items() if k in self.digests}
            write_json(self.path, live)


def walk_missing(units: list[SourceFile], facts: list[FileFacts], extract_cached, known: set[str]):
    """A unit that skipped a header may hold definitions of it that the unit walking it does not (``#if`` on
    macros only this unit defines, another language mode): each such unit is extracted again without skipping
    the headers whose definitions the facts lack (``known``: USRs from elsewhere). Returns (units, facts)."""
    have = set(known)
    for ff in facts:
        have.update(fn.usr for fn in ff.functions)
    redo: dict[int, set[str]] = {}
    for i, (f, ff) in enumerate(zip(units, facts)):
        for h, usr in getattr(ff, "skipped_defs", ()):
            if usr and usr not in have and h in f.skip:
                redo.setdefault(i, set()).add(h)
    return _extract_again(units, facts, redo, extract_cached)


def walked_headers(units: list[SourceFile], facts: list[FileFacts], lone: list[FileFacts], candidate) -> set[str]:
    """The shareable headers these units (with their skip sets) and lone headers walked."""
    walked: set[str] = set()
    for f, ff in zip(units, facts):
        skip = set(f.skip)
        walked.update(h for h in ff.includes if h not in skip)
    for ff in lone:
        walked.add(ff.path)
        walked.update(ff.includes)
    return {h for h in walked if candidate(h)}


def lazy_plan(units: list[SourceFile], facts: list[FileFacts], lone: list[FileFacts], ctx: ExtractContext,
               candidate, extract_cached, reached_headers=None):
    """(an extract function for the units the call-graph expansion parses, the skip set it gave each unit by
    path). Such a unit leaves alone every shareable header it pulls in that the eagerly parsed units (or a lone
    header) walked: their facts are there already, and come first in the index. Which headers those are is
    read from their facts, so no repair is needed; the expansion's units do not share among themselves (the
    set of units a round parses depends on the rounds before it)."""
    from ..frontends import cpp

    walked = walked_headers(units, facts, lone, candidate)
    skips: dict[str, tuple[str, ...]] = {}
    known = {fn.usr for ff in (*facts, *lone) for fn in ff.functions}

    def extract(files: list[SourceFile]) -> list[FileFacts]:
        planned = []
        for f, r in zip(files, (reached_headers or cpp.reached_headers)(files, ctx)):
            skip = tuple(h for h in r if h in walked) if f.kind in ("cpp", "cuda") else ()
            planned.append(dataclasses.replace(f, skip=skip) if skip else f)
        planned, got = walk_missing(planned, extract_cached(planned), extract_cached, known)
        for f, ff in zip(planned, got):
            skips[f.rel] = f.skip
            known.update(fn.usr for fn in ff.functions)
        return got

    return extract, skips


