"""Facts identity of the editor's kept translation unit (issue 36; trtlint/frontends/cpp/kept.py).

    python bench/kept_facts.py TREE [--units 15] [--rel REL ...]

Loads TREE as the editor does (``Session``; use a copy: it writes its ``.trtlint_cache``), then, per C++/CUDA unit
(those with an ``enqueue`` first), runs a sequence of edits (``cudaMalloc`` typed into a function body, a line of a
body deleted, a comment added, a function added at the end, a ``#define`` added to the include block, the body edit
undone, the text restored) and after EACH compares the facts of the kept-unit extraction (as the editor's worker
makes them: ``kept.ENABLED``, the per-function memo carried from one edit to the next) with a fresh parse's (the
memo emptied, nothing kept): every FileFacts field, dataclass equality. Prints per unit the differing fields and how
each kept extraction went (``kept``, or why it parsed afresh), and the totals.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def edits(text: str) -> list[tuple[str, str]]:
    """(name, text) for each step of the sequence (each builds on the one before)."""
    out = []
    at = text.find("::enqueue(")
    m = re.search(r"\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?\{\n", text[at:] if at >= 0 else "")
    if at < 0 or m is None:
        m2 = re.search(r"^[A-Za-z][^;\n]*\)\s*(?:const\s*)?(?:noexcept\s*)?\{\n", text, re.M)
        if m2 is None:
            return []
        brace = m2.end()
    else:
        brace = at + m.end()
    t1 = text[:brace] + "    cudaMalloc(nullptr, 64);\n" + text[brace:]
    out.append(("cudaMalloc typed", t1))
    # delete the second line of that body, if it is a plain statement line
    nl = t1.find("\n", brace + len("    cudaMalloc(nullptr, 64);\n"))
    line = t1[brace + len("    cudaMalloc(nullptr, 64);\n"):nl + 1]
    t2 = t1[:brace + len("    cudaMalloc(nullptr, 64);\n")] + t1[nl + 1:] if line.strip().endswith(";") and "{" not in line \
        and "}" not in line else t1.replace("    cudaMalloc(nullptr, 64);\n", "    cudaMalloc(nullptr, 65);\n", 1)
    out.append(("a body line deleted", t2))
    t3 = t2[:brace] + "    // a comment typed here\n" + t2[brace:]
    out.append(("a comment added", t3))
    t4 = t3 + "\nstatic int trtlintAddedFunction(int x)\n{\n    return x + 1;\n}\n"
    out.append(("a function added at the end", t4))
    inc = [mm.end() for mm in re.finditer(r"^#\s*include[^\n]*\n", t4, re.M)]
    t5 = t4[:inc[0]] + "#define TRTLINT_KEPT_PROBE 1\n" + t4[inc[0]:] if inc else t4
    out.append(("an edit in the include block", t5))
    t6 = t5.replace("    cudaMalloc(nullptr, 64);\n", "", 1).replace("    cudaMalloc(nullptr, 65);\n", "", 1)
    out.append(("the body edit undone", t6))
    out.append(("a second comment", t6[:brace] + "    // again\n" + t6[brace:]))
    out.append(("restored", text))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tree")
    ap.add_argument("--units", type=int, default=15)
    ap.add_argument("--rel", action="append", default=[])
    a = ap.parse_args()
    sys.setrecursionlimit(10000)
    from trtlint.editor.session import Session
    from trtlint.frontends.cpp import fnmemo, kept
    from trtlint.pipeline.extract import extract_one

    s = Session(Path(a.tree).resolve(), jobs=1)
    s.load()
    rels = a.rel or sorted((r for r, src in s.sources.items() if src.kind in ("cpp", "cuda") and edits(
        src.path.read_text(encoding="utf-8", errors="surrogateescape"))),
                           key=lambda r: (b"::enqueue(" not in s.sources[r].path.read_bytes(), r))[:a.units]
    total = diffs = 0
    how: dict[str, int] = {}
    tk, tf = [], []
    for rel in rels:
        src = s.sources[rel]
        text = src.path.read_text(encoding="utf-8", errors="surrogateescape")
        seq = edits(text)
        if not seq:
            print(f"{rel}: no function body to edit; skipped")
            continue
        kept.clear()
        fnmemo.forget()
        memo_kept: dict = {}
        steps = [("original", text)] + seq
        bad = []
        for name, t in steps:
            e = dataclasses.replace(src, text=t, digest=hashlib.sha1(t.encode("utf-8", "surrogateescape")).hexdigest())
            # the kept way: as the worker (the memo carried along)
            fnmemo._MEMO.clear()
            fnmemo._MEMO.update(memo_kept)
            kept.ENABLED = True
            before = dict(kept.STATS)
            t0 = time.perf_counter()
            ffk = extract_one(e, s.ctx)
            tk.append(time.perf_counter() - t0)
            memo_kept = dict(fnmemo._MEMO)
            step_how = [w for w in kept.STATS if kept.STATS[w] != before.get(w, 0)]
            # the fresh way
            kept.ENABLED = False
            fnmemo._MEMO.clear()
            t0 = time.perf_counter()
            fff = extract_one(e, s.ctx)
            tf.append(time.perf_counter() - t0)
            total += 1
            for w in step_how:
                how[w] = how.get(w, 0) + 1
            if ffk != fff:
                diffs += 1
                fields = [f.name for f in dataclasses.fields(fff) if getattr(fff, f.name) != getattr(ffk, f.name)]
                bad.append(f"{name}: {', '.join(fields)} ({'/'.join(step_how)})")
            else:
                bad.append(f"ok {name} ({'/'.join(step_how)})")
        print(f"{rel}:\n    " + "\n    ".join(bad))
    kept.ENABLED = False
    kept.clear()
    print(f"TOTAL {total} extractions, {diffs} differ from a fresh parse; how: {how}")
    if tk:
        import statistics
        print(f"median extraction: kept way {statistics.median(tk) * 1000:.0f} ms, fresh {statistics.median(tf) * 1000:.0f} ms")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
