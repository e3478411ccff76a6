"""Time trtlint on a tree: cold (no cache), warm (cache), and one file changed.

    python bench/run.py TREE [--file REL] [--jobs N]

The tree is copied to a temporary directory first (the original is never written); a changed file is
simulated by appending a comment to REL (default: the first plugin .cpp found). Prints wall times, peak
memory of the trtlint process (ru_maxrss of children), files, and findings per rule.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


def run_check(tree: Path, *extra: str) -> tuple[float, dict, str]:
    t = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", "trtlint", "check", str(tree), "--format", "json", "--statistics", *extra],
        capture_output=True,
        text=True,
    )
    dt = time.perf_counter() - t
    if r.returncode not in (0, 1):
        raise SystemExit(f"trtlint failed ({r.returncode}): {r.stderr[-2000:]}")
    return dt, json.loads(r.stdout), r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tree", type=Path)
    ap.add_argument("--file", help="project-relative file to change for the one-file run")
    ap.add_argument("--jobs", type=int)
    a = ap.parse_args()
    extra = ["--jobs", str(a.jobs)] if a.jobs else []
    with tempfile.TemporaryDirectory(prefix="trtlint-bench-") as tmp:
        tree = Path(tmp) / a.tree.resolve().name
        shutil.copytree(a.tree, tree, symlinks=True, ignore=shutil.ignore_patterns(".trtlint_cache"))  # keep .git: git decides what is ignored
        rel = a.file
        if rel is None:
            cands = sorted(p for p in tree.rglob("*.cpp") if "plugin" in p.as_posix().lower())
            rel = cands[0].relative_to(tree).as_posix() if cands else None
        cold, data, stats_cold = run_check(tree, *extra)
        warm, data_w, stats_warm = run_check(tree, *extra)
        one = None
        stats_one = ""
        if rel:
            with open(tree / rel, "a", encoding="utf-8") as fh:
                fh.write("\n// bench: one file changed\n")
            one, _, stats_one = run_check(tree, *extra)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    by_rule = Counter(d["code"] for d in data["diagnostics"])
    print(f"tree: {a.tree} ({data['summary']['files_checked']} files)")
    print(f"cold (no cache):      {cold:7.2f} s   [{stats_cold}]")
    print(f"warm (cache):         {warm:7.2f} s   [{stats_warm}]")
    if one is not None:
        print(f"one file changed:     {one:7.2f} s   ({rel})   [{stats_one}]")
    print(f"peak memory (max RSS of one trtlint process): {peak:.0f} MiB")
    print(f"findings: {sum(by_rule.values())}  " + "  ".join(f"{k}={v}" for k, v in sorted(by_rule.items())))
    same = data["diagnostics"] == data_w["diagnostics"]
    print(f"warm findings identical to cold: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
