"""Time each rule over a project's index: where the ``check`` phase of a run goes.

    python bench/rule_times.py TREE [--repeat N]

Runs ``trtlint check TREE`` in this process (facts from the tree's cache when it has one) and times each rule
as the run calls it (the first rule to need a shared walk pays for it), then runs every rule ``N`` more times
over the same index (default 3; shared walks are memoized by then) and prints both, slowest first.
The tree is only read (its ``.trtlint_cache`` is used and may be written, as by a check).
"""

from __future__ import annotations

import argparse
import gc
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tree", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    from trtlint.pipeline import check as checking
    from trtlint.pipeline.run import run
    from trtlint.config.settings import load_settings

    first: dict[str, float] = {}
    orig = checking.run_rules

    def timed(rules, index, settings):
        out = []
        for r in rules:
            t = time.perf_counter()
            out += orig([r], index, settings)
            first[r.code] = first.get(r.code, 0.0) + time.perf_counter() - t
        return out

    checking.run_rules = timed
    settings = load_settings(a.tree.resolve())
    t = time.perf_counter()
    res = run(settings, [a.tree.resolve()])
    print(f"run {time.perf_counter() - t:.2f} s: " + ", ".join(f"{k} {v:.2f}s" for k, v in res.timings.items()))
    gc.disable()
    best: dict[str, float] = {}
    found: dict[str, int] = {}
    for _ in range(max(1, a.repeat)):
        for rule_cls in res.rules:
            rule = rule_cls()
            t = time.perf_counter()
            n = len(list(rule.check(res.index)))
            dt = time.perf_counter() - t
            best[rule_cls.code] = min(best.get(rule_cls.code, dt), dt)
            found[rule_cls.code] = n
    print("rule     in the run    again (best)  raw findings")
    for code, dt in sorted(best.items(), key=lambda kv: -first.get(kv[0], 0.0)):
        print(f"{code}  {first.get(code, 0.0) * 1000:8.1f} ms  {dt * 1000:8.1f} ms  {found[code]:5d}")
    print(f"sum      {sum(first.values()) * 1000:8.1f} ms  {sum(best.values()) * 1000:8.1f} ms  over {len(best)} rules")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
