"""trtlint's cold extraction of the given C++/CUDA units only, in its worker pool: the work a cold check does
on the units ``bench/run.py --clang-tidy`` times clang-tidy over, without the rest of the project.

    python bench/units_only.py [--phases] TREE JOBS REL [REL ...]

Prints one JSON line: units, headers left to another unit to walk, units with a parse problem, functions and
classes found. ``bench/run.py`` times the whole process (interpreter start, imports, discovery and the
feature-macro scan, the shared-header plan, the pool, every parse), as it times each clang-tidy process.

Each unit leaves alone the headers a check's plan gives another unit (``SourceFile.skip``): the units with a
plugin marker share the headers they include (the first walks each); the others, which a check parses for the
call graph, leave alone what those walked. By default all units go to the pool in one batch (a check of a
project with Python files keeps its workers busy between its phases); with ``--phases`` the others wait until
the plugin units are done, as in a check of a project without Python. No cache is read or written; the shared
precompiled header is used as in a check (it is built on a machine's first run, before the timed runs).
``unit_context`` gives both tools the same flags.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path


def unit_context(tree: Path, with_headers: bool = False):
    """The extraction context a cold ``trtlint check`` of ``tree`` parses C++ with: the profile's flags and
    the optional-feature macros found in its C++ files (``trtlint.pipeline.run`` adds them the same way). With
    ``with_headers``: (context, the discovered headers by path), for the check's shared-header plan."""
    from trtlint.config.settings import load_settings
    from trtlint.index.discover import discover
    from trtlint.pipeline.extract import make_context
    from trtlint.store.scancache import feature_macros
    from trtlint.config.packs import detect_profile, load_packs

    settings = load_settings(tree)
    profile = detect_profile(load_packs(), tree, settings.profile)
    ctx = make_context(settings, profile, tree)
    headers = {}
    if profile.feature_macros or with_headers:
        exclude = list(profile.exclude) + list(settings.exclude) + list(settings.extend_exclude)
        disc = discover(tree, None, include=settings.include, exclude=exclude,
                        respect_gitignore=settings.respect_gitignore, max_file_size=settings.max_file_size)
        headers = {f.rel: f for f in disc.files if f.kind == "header"}
        found = feature_macros(disc.files, profile.feature_macros) if profile.feature_macros else ()
        if found:
            ctx = dataclasses.replace(ctx, defines=tuple(dict.fromkeys(ctx.defines + found)))
    return (ctx, headers) if with_headers else ctx


def main(argv: list[str]) -> int:
    phases = argv[:1] == ["--phases"]
    if phases:
        argv = argv[1:]
    tree, jobs, rels = Path(argv[0]).resolve(), int(argv[1]), argv[2:]
    from trtlint.pipeline.cpp_headers import lazy_plan, shared_header_plan, walk_missing, walk_unwalked, walked_headers
    from trtlint.pipeline.extraction import heavy_first
    from trtlint.store.scancache import has_plugin_marker
    from trtlint.frontends import SourceFile, cpp
    from trtlint.pipeline.workers import Pool

    ctx, headers = unit_context(tree, with_headers=True)
    files = [SourceFile(path=tree / r, rel=r, kind="cuda" if r.endswith((".cu", ".cuh")) else "cpp", digest="")
             for r in rels]

    marked: dict = {}  # a check reads each header's marker once (its text scans)

    def shareable(h: str) -> bool:
        if h not in marked:
            marked[h] = h in headers and has_plugin_marker(headers[h].path.read_bytes())
        return h in headers and not marked[h]

    # the skip sets of a check: the units with a plugin marker share the headers they include (the first one
    # walks each), the others (a check parses those for the call graph) leave alone what those walked
    eager = [f for f in files if has_plugin_marker(f.path.read_bytes())]
    lazy = [f for f in files if f not in eager]
    owners: dict = {}
    eager = shared_header_plan(eager, ctx, shareable, owners)
    with Pool(jobs, ctx) as pool:
        def extract(fs):
            heavy, order = heavy_first(fs)  # as a check orders them: the longest parses start first
            out = [None] * len(fs)
            for k, ff in zip(order, pool.collect(pool.submit(heavy))):
                out[k] = ff
            return out

        if phases:  # as a check of a project without Python schedules them: the others once those are done
            eager, efacts = walk_unwalked(eager, extract(eager), extract)
            extract_lazy, lazy_skips = lazy_plan(eager, efacts, [], ctx, shareable, extract)
            lfacts = extract_lazy(lazy)
        else:  # in one batch, the others' skip sets read from the plan, then checked against the facts
            reached = cpp.reached_headers(lazy, ctx)
            planned = [dataclasses.replace(f, skip=tuple(h for h in r if h in owners)) for f, r in zip(lazy, reached)]
            got = extract(eager + planned)
            eager, efacts = walk_unwalked(eager, got[:len(eager)], extract)
            eager, efacts = walk_missing(eager, efacts, extract, set())
            lfacts = got[len(eager):]
            walked = walked_headers(eager, efacts, [], shareable)
            should = [dataclasses.replace(f, skip=tuple(h for h in r if h in walked)) for f, r in zip(lazy, reached)]
            redo = [i for i, (a, b) in enumerate(zip(planned, should)) if a.skip != b.skip]
            for i, ff in zip(redo, extract([should[i] for i in redo])):  # a check would have parsed these so
                lfacts[i] = ff
            known = {fn.usr for ff in efacts for fn in ff.functions}
            should, lfacts = walk_missing(should, lfacts, extract, known)
            lazy_skips = {f.rel: f.skip for f in should}
        facts = efacts + lfacts
    skips = sum(len(f.skip) for f in eager) + sum(len(v) for v in lazy_skips.values())
    print(json.dumps({
        "units": len(facts),
        "headers_left_to_another_unit": skips,
        "with_problems": sum(1 for f in facts if f.problems),
        "functions": sum(len(f.functions) for f in facts),
        "classes": sum(len(f.classes) for f in facts),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
