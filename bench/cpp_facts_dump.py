"""Dump the C++ frontend's facts of every C++/CUDA file of some trees, and compare two dumps (identity check
for speed work on the C++ frontend).

    python bench/cpp_facts_dump.py OUT.json TREE [TREE ...] [--kinds cuda,cpp,header] [--against BEFORE.json]

Each file is extracted with its tree's own settings/profile context (as ``trtlint check`` does), in this
process, without the cache; the tree is only read. Prints the CPU time per tree. With ``--against``, prints
every file whose facts differ (first differing path inside the JSON) and exits 1 when any does.
Example: the facts with and without the blanking of GPU-only bodies (trtlint/frontends/cpp/device.py):

    TRTLINT_BLANK_DEVICE=0 python bench/cpp_facts_dump.py /tmp/off.json /tmp/el --kinds cuda
    python bench/cpp_facts_dump.py /tmp/on.json /tmp/el --kinds cuda --against /tmp/off.json
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from python_facts_dump import write_and_compare


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("trees", nargs="+")
    ap.add_argument("--kinds", default="cpp,cuda")
    ap.add_argument("--against", type=Path)
    a = ap.parse_args()
    from trtlint.config.settings import load_settings
    from trtlint.index.discover import discover
    from trtlint.pipeline.extract import make_context
    from trtlint.base.facts import to_json
    from trtlint.frontends import cpp
    from trtlint.config.packs import detect_profile, load_packs

    kinds = set(a.kinds.split(","))
    packs = load_packs()
    out: dict = {}
    for tree in a.trees:
        root = Path(tree).resolve()
        settings = load_settings(root)
        profile = detect_profile(packs, root, settings.profile)
        exclude = list(profile.exclude) + list(settings.exclude) + list(settings.extend_exclude)
        disc = discover(root, None, include=settings.include, exclude=exclude,
                        respect_gitignore=settings.respect_gitignore, max_file_size=settings.max_file_size)
        ctx = make_context(settings, profile, root)
        files = [f for f in disc.files if f.kind in kinds]
        t0 = time.process_time()
        for f in files:
            out[f"{root.name}:{f.rel}"] = to_json(cpp.extract(f, ctx))
        print(f"{root.name}: {len(files)} files, {time.process_time() - t0:.2f} s CPU; {cpp.stats()}", file=sys.stderr)
    return write_and_compare(out, a.out, a.against)

if __name__ == "__main__":
    raise SystemExit(main())
