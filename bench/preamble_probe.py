"""What libclang's precompiled preamble does to a unit's facts (issue 36: a kept translation unit, re-parsed).

    python bench/preamble_probe.py TREE REL [--edits 3]

Loads TREE as the editor does (``Session``; use a copy: it writes its ``.trtlint_cache``), then extracts the unit
REL once as it is and after each of ``--edits`` edits (``cudaMalloc`` typed into its ``enqueue``, else a comment
appended), twice: as trtlint parses (a fresh ``index.parse`` per extraction) and through one kept translation
unit (the first parse with ``PARSE_PRECOMPILED_PREAMBLE``, every later one ``tu.reparse(...)`` with the same
arguments and the edited text), the way an editor worker would keep it. For each extraction it prints the time,
what the top-level walk sees (cursors, ``#include`` directives, macro expansions: trtlint's index walks only the
unit's own declarations, ``Index.create(excludeDecls=True)``) and the FileFacts fields that differ from the fresh
parse's (the per-function memo is emptied before each extraction). Last, the same reparse through an index that
does not exclude a PCH's declarations: how many top-level cursors its walk would pass over, and how long that takes.
No trtlint code is changed: the kept unit is a wrapper around ``libclang.index.parse`` in this process.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tree")
    ap.add_argument("rel")
    ap.add_argument("--edits", type=int, default=3)
    a = ap.parse_args()
    sys.setrecursionlimit(10000)
    from trtlint.editor.session import Session
    from trtlint.frontends.cpp import fnmemo
    from trtlint.frontends.cpp.base import children, libclang, load
    from trtlint.pipeline.extract import extract_one

    s = Session(Path(a.tree).resolve(), jobs=2)
    s.load()
    src = s.sources[a.rel]
    text = src.path.read_text(encoding="utf-8", errors="surrogateescape")
    at = text.find("::enqueue(")
    brace = text.find("{", at) + 1 if at >= 0 else len(text)

    def edited(k: int):
        t = text if k == 0 else (text[:brace] + f"\n    cudaMalloc(nullptr, {k});" + text[brace:] if at >= 0
                                 else text + f"\n// edit {k}\n")
        return dataclasses.replace(src, text=t, digest=hashlib.sha1(t.encode("utf-8", "surrogateescape")).hexdigest())

    ci = load()
    K = ci.CursorKind
    index = libclang.index
    fresh_parse = index.parse
    kept: dict[str, tuple] = {}
    seen: list = []
    last: list = []

    def counted_parse(path, args=None, unsaved_files=None, options=0):
        tu = fresh_parse(path, args=args, unsaved_files=unsaved_files, options=options)
        seen.append(tu)
        return tu

    def kept_parse(path, args=None, unsaved_files=None, options=0):
        opts = options | ci.TranslationUnit.PARSE_PRECOMPILED_PREAMBLE
        got = kept.get(path)
        if got is not None and got[0] == list(args or []):
            got[1].reparse(unsaved_files=unsaved_files, options=opts)
            tu = got[1]
        else:
            tu = fresh_parse(path, args=args, unsaved_files=unsaved_files, options=opts)
            kept[path] = (list(args or []), tu)
        seen.append(tu)
        last[:] = [path, list(args or []), list(unsaved_files or []), opts]
        return tu

    def walk(tu) -> str:
        ch = children(tu.cursor)
        inc = sum(c.kind == K.INCLUSION_DIRECTIVE for c in ch)
        mac = sum(c.kind == K.MACRO_INSTANTIATION for c in ch)
        return f"top-level cursors {len(ch)}, #include directives {inc}, macro expansions {mac}"

    def extract(k: int, how: str):
        seen.clear()
        fnmemo._MEMO.clear()  # every function walked, in both ways (the memo would carry facts across)
        index.parse = counted_parse if how == "fresh" else kept_parse
        try:
            t0 = time.perf_counter()
            ff = extract_one(edited(k), s.ctx)
            dt = time.perf_counter() - t0
        finally:
            index.parse = fresh_parse
        return ff, dt, walk(seen[-1]) if seen else "(no parse)"

    edits = [0] + list(range(1, a.edits + 1)) + [0]
    fresh = {k: extract(k, "fresh") for k in sorted(set(edits))}
    for n, k in enumerate(edits):
        ff, dt, w = extract(k, "kept")
        f0, dt0, w0 = fresh[k]
        diff = []
        for f in dataclasses.fields(ff):
            x, y = getattr(f0, f.name), getattr(ff, f.name)
            if x != y:
                diff.append(f"{f.name} {len(x)} -> {len(y)}" if isinstance(x, tuple) else f.name)
        step = "first parse (preamble option)" if n == 0 else f"reparse {n}"
        print(f"edit {k}, {step}: {dt * 1000:.0f} ms (fresh {dt0 * 1000:.0f} ms)")
        print(f"    fresh: {w0}")
        print(f"    kept:  {w}")
        print(f"    facts: {'identical' if not diff else 'differ: ' + '; '.join(diff)}")
    # the other way to see the preamble's declarations: an index that does not exclude a PCH's declarations
    # (the shared PCH's too, which the walk then has to pass over in Python)
    path, args, unsaved, opts = last
    idx = ci.Index.create(excludeDecls=False)
    tu = idx.parse(path, args=args, unsaved_files=unsaved, options=opts)
    for n in range(3):
        tu.reparse(unsaved_files=unsaved, options=opts)
        t0 = time.perf_counter()
        ch = children(tu.cursor)
        t1 = time.perf_counter()
        own = [c for c in ch if (c.location.file is not None and not c.location.is_in_system_header)]
        t2 = time.perf_counter()
        print(f"excludeDecls=False, reparse {n + 1}: top-level cursors {len(ch)} "
              f"(visited in {(t1 - t0) * 1000:.0f} ms), {len(own)} outside system headers "
              f"(sorted out in {(t2 - t1) * 1000:.0f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
