"""Facts identity of a run's kept walk from the unit's cache entry (issue 36; ``kept.record``, ``unit._stored_kept``).

    python bench/entry_facts.py TREE [--units 15] [--rel REL ...]

Loads TREE as the editor does (``Session``, for its sources and context; use a copy: it writes its
``.trtlint_cache``), then, per C++/CUDA unit (those with an ``enqueue`` first), runs the edit sequence of
``bench/kept_facts.py`` as a run's extraction worker would meet it, one run per step: the unit's facts and memo are
stored in a fact-cache entry (a private directory, ``EntryWriter``) after each extraction, and the next step's
extraction reads that entry (``frontends.MEMO_LOAD``), so it takes the headers' part from it when it may. After EACH
step the facts are compared with a complete extraction's (no entry, no memo, ``TRTLINT_KEPT_HEADERS`` off): every
FileFacts field, dataclass equality. Prints per unit the differing fields and how each extraction went (``kept from the
entry``, or why it was complete), and the totals.
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from kept_facts import edits  # noqa: E402 - the same edit sequence


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tree")
    ap.add_argument("--units", type=int, default=15)
    ap.add_argument("--rel", action="append", default=[])
    a = ap.parse_args()
    sys.setrecursionlimit(10000)
    import tempfile

    from trtlint import frontends
    from trtlint.editor.session import Session
    from trtlint.frontends.cpp import fnmemo, kept, unit
    from trtlint.pipeline.extract import extract_one
    from trtlint.store.cache import EntryWriter

    store = tempfile.mkdtemp(prefix="trtlint-entry-facts-")
    writer = EntryWriter(Path(store), ("ctx", "py"), {"cpp": "v", "cuda": "v"}, {})

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
        fnmemo.forget()
        steps = [("original", text)] + seq
        bad = []
        for name, t in steps:
            e = dataclasses.replace(src, text=t, digest=hashlib.sha1(t.encode("utf-8", "surrogateescape")).hexdigest())
            # a run's worker: the unit's last entry read, this extraction's stored
            fnmemo.forget()
            frontends.MEMO_LOAD, frontends.MEMO_OUT = writer.load_memo, {}
            unit._KEPT_HEADERS = True
            before = dict(kept.STATS)
            t0 = time.perf_counter()
            ffk = extract_one(e, s.ctx)
            tk.append(time.perf_counter() - t0)
            writer.put(e, ffk, frontends.MEMO_OUT.pop(rel, None))
            step_how = [w for w in kept.STATS if kept.STATS[w] != before.get(w, 0)] or ["complete"]
            # a complete extraction
            frontends.MEMO_LOAD, frontends.MEMO_OUT = None, None
            unit._KEPT_HEADERS = False
            fnmemo.forget()
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
    print(f"TOTAL {total} extractions, {diffs} differ from a fresh parse; how: {how}")
    if tk:
        import statistics
        print(f"median extraction: from the entry {statistics.median(tk) * 1000:.0f} ms, complete {statistics.median(tf) * 1000:.0f} ms")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
