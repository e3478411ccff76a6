"""Cold extraction time per frontend, in one process (no pool, no cache): where a cold run's seconds go.

    python bench/frontend_times.py TREE [--kinds cpp,cuda,python,...]

Extracts every file a cold ``trtlint check`` extracts eagerly (C++/CUDA units with a plugin marker, every
Python/CMake/ONNX/YAML file; headers and lazily parsed units are left out), timing each, and prints the sum,
count and slowest files per kind. The tree is only read.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tree", type=Path)
    ap.add_argument("--kinds", default="")
    a = ap.parse_args()
    from trtlint.config.settings import load_settings
    from trtlint.index.discover import discover
    from trtlint.pipeline.extract import extract_one, make_context
    from trtlint.store.scancache import has_plugin_marker
    from trtlint.config.packs import detect_profile, load_packs

    root = a.tree.resolve()
    settings = load_settings(root)
    packs = load_packs()
    profile = detect_profile(packs, root, settings.profile)
    exclude = list(profile.exclude) + list(settings.exclude) + list(settings.extend_exclude)
    disc = discover(root, None, include=settings.include, exclude=exclude, respect_gitignore=settings.respect_gitignore,
                    max_file_size=settings.max_file_size)
    ctx = make_context(settings, profile, root)
    kinds = set(a.kinds.split(",")) if a.kinds else None
    per: dict[str, list] = defaultdict(list)
    for f in disc.files:
        if f.kind == "header" or (kinds and f.kind not in kinds):
            continue
        if f.kind in ("cpp", "cuda") and not has_plugin_marker(f.path.read_bytes()):
            continue
        t = time.perf_counter()
        extract_one(f, ctx)
        per[f.kind].append((time.perf_counter() - t, f.rel))
    for kind, xs in sorted(per.items(), key=lambda kv: -sum(x for x, _ in kv[1])):
        xs.sort(reverse=True)
        total = sum(x for x, _ in xs)
        top = ", ".join(f"{rel} {x:.2f}s" for x, rel in xs[:3])
        print(f"{kind:7s} {len(xs):4d} files {total:7.2f} s  (mean {total / len(xs):.3f} s; slowest: {top})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
