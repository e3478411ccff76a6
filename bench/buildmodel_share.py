"""The build model's share of a cold check (issue 33: it stays under 5 %).

    python3 bench/buildmodel_share.py TREE [TREE ...] [-j N]

Each TREE is checked cold (``--no-cache``; nothing is written to it) with ``--statistics``, whose timing line
gives the build model's own time and the run's total; prints both and the share per tree, and the largest share.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_T = re.compile(r"build model ([\d.]+)s.*total ([\d.]+)s")


def measure(tree: Path, jobs: int) -> tuple[float, float] | None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.run([sys.executable, "-m", "trtlint", "check", str(tree), "--root", str(tree), "--no-cache",
                        "--no-progress", "--statistics", "--exit-zero", "-j", str(jobs)],
                       capture_output=True, text=True, env=env, cwd=str(tree))
    m = _T.search(p.stderr)
    return (float(m.group(1)), float(m.group(2))) if m else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="bench/buildmodel_share.py")
    ap.add_argument("trees", nargs="+", type=Path)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    worst = 0.0
    print(f"{'tree':50} {'build model (s)':>16} {'cold total (s)':>15} {'share':>7}")
    for t in args.trees:
        got = measure(t.resolve(), args.jobs)
        if got is None:
            print(f"{t.name[:50]:50} {'no timing line':>16}")
            continue
        bm, total = got
        share = bm / total if total else 0.0
        worst = max(worst, share)
        print(f"{t.name[:50]:50} {bm:16.2f} {total:15.2f} {100 * share:6.1f}%")
    print(f"largest share: {100 * worst:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
