"""The figures of ``bench/run.py`` (cold, warm, one file changed) for two trtlint checkouts side by side, alternating.

    python bench/sides.py TREE --base CHECKOUT [--head CHECKOUT] [--repeat N] [--jobs N] [--file REL]

Each revision gets its own copy of TREE (``.git`` kept: git decides what is ignored) and its own per-user cache
(the parsed rule packs; the precompiled headers stay shared where they are). Per round, each revision in turn
(the order swaps every round, so neither always runs first): a cold check (its cache removed), a warm check (nothing
changed), and a check after a comment was appended to one plugin ``.cpp`` (``--file``; default the first ``*.cpp``
under a folder named like ``plugin``). Prints per figure the median over the rounds for each revision, the ratio
head/base, and the CPU time (trtlint and its workers) and steal of the median run; the load average and a fixed
Python loop's time (the machine's speed then) before and after; and whether the two revisions' findings are the
same (code, path, line, message) cold, warm and after the edit. The machine is shared: only figures of one run are
comparable. Exit 1 when the findings differ.

``--figures "one file"`` times only that figure (the cache filled once, untimed); by default each revision's bytecode
is written once to a private ``PYTHONPYCACHEPREFIX`` and read afterwards, as from an installed wheel
(``--no-bytecode``: as the environment says, e.g. ``PYTHONDONTWRITEBYTECODE=1``, so every run compiles trtlint).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from run import Meter, _yardstick  # bench/ is on sys.path when this script runs

HERE = Path(__file__).resolve().parents[1]
FIGURES = ("cold", "warm", "one file")


def _env(checkout: Path, xdg: Path, bytecode: bool = True) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout), XDG_CACHE_HOME=str(xdg))
    if bytecode:  # as an installed wheel: each revision's bytecode written once (a private prefix), then read
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(xdg) + "-pyc"
    home_xdg = os.environ.get("XDG_CACHE_HOME")
    env.setdefault("TRTLINT_PCH_DIR", str(Path(home_xdg) / "trtlint" / "pch" if home_xdg
                                          else Path.home() / ".cache" / "trtlint" / "pch"))
    return env


def _check(tree: Path, env: dict, jobs: int) -> tuple[float, Counter, Meter]:
    cmd = [sys.executable, "-m", "trtlint", "check", str(tree), "--format", "json", "--no-progress"]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    with Meter() as m:
        t = time.perf_counter()
        p = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        dt = time.perf_counter() - t
    if p.returncode not in (0, 1):
        raise SystemExit(f"trtlint check failed ({p.returncode}): {p.stderr[-2000:]}")
    found = Counter((d["code"], d["location"]["path"], d["location"]["line"], d["message"])
                    for d in json.loads(p.stdout)["diagnostics"])
    return dt, found, m


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", type=Path)
    ap.add_argument("--base", type=Path, required=True, help="the trtlint checkout to compare with (e.g. /work/main)")
    ap.add_argument("--head", type=Path, default=HERE, help="default: this checkout")
    ap.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--file", help="project-relative file to change for the one-file figure")
    ap.add_argument("--figures", default=",".join(FIGURES),
                    help=f"comma-separated, of {', '.join(FIGURES)} (default all); without cold, each revision's cache "
                         "is filled by one untimed run first, and kept across rounds")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="PYTHONDONTWRITEBYTECODE as in the environment: every run compiles trtlint's modules "
                         "(default: each revision's bytecode in a private PYTHONPYCACHEPREFIX, as an installed wheel)")
    a = ap.parse_args()
    figures = [f.strip() for f in a.figures.split(",") if f.strip()]
    unknown = [f for f in figures if f not in FIGURES]
    if unknown:
        ap.error(f"unknown figure(s) {unknown}: choose from {FIGURES}")
    revs = {"base": a.base.resolve(), "head": a.head.resolve()}
    with tempfile.TemporaryDirectory(prefix="trtlint-sides-") as tmp:
        trees, envs = {}, {}
        for name, checkout in revs.items():
            trees[name] = Path(tmp) / name / a.tree.resolve().name
            shutil.copytree(a.tree, trees[name], symlinks=True, ignore=shutil.ignore_patterns(".trtlint_cache"))
            envs[name] = _env(checkout, Path(tmp) / f"xdg-{name}", bytecode=not a.no_bytecode)
            _check(trees[name], envs[name], a.jobs)  # untimed: the bytecode, the per-user packs (and the cache)
        rel = a.file
        if rel is None:
            cands = sorted(p for p in trees["head"].rglob("*.cpp") if "plugin" in p.as_posix().lower())
            rel = cands[0].relative_to(trees["head"]).as_posix() if cands else None
        load0, yard0 = os.getloadavg(), _yardstick()
        times: dict[tuple[str, str], list[tuple[float, Meter]]] = {}
        found: dict[tuple[str, str], Counter] = {}
        order = list(revs)
        for r in range(a.repeat):
            for name in (order if r % 2 == 0 else order[::-1]):
                tree, env = trees[name], envs[name]
                if "cold" in figures:
                    shutil.rmtree(tree / ".trtlint_cache", ignore_errors=True)
                for fig in FIGURES:
                    if fig not in figures:
                        continue
                    if fig == "one file":
                        if rel is None:
                            continue
                        with open(tree / rel, "a", encoding="utf-8") as fh:
                            fh.write(f"\n// bench: one file changed ({r})\n")
                    dt, f, m = _check(tree, env, a.jobs)
                    times.setdefault((name, fig), []).append((dt, m))
                    found[name, fig] = f
        load1, yard1 = os.getloadavg(), _yardstick()
    print(f"tree: {a.tree} ({a.repeat} rounds, base and head alternating; one file: {rel}; "
          f"{'no bytecode' if a.no_bytecode else 'bytecode'})")
    print(f"base: {revs['base']}\nhead: {revs['head']}")
    print(f"load average (1/5/15 min) {load0[0]:.1f}/{load0[1]:.1f}/{load0[2]:.1f} before, "
          f"{load1[0]:.1f}/{load1[1]:.1f}/{load1[2]:.1f} after; a 20-million-step Python loop took {yard0:.2f} s "
          f"before, {yard1:.2f} s after")
    print(f"| figure | base median | head median | head / base | base runs | head runs |")
    print("| --- | --- | --- | --- | --- | --- |")
    for fig in FIGURES:
        if ("head", fig) not in times:
            continue
        med = {n: statistics.median(t for t, _ in times[n, fig]) for n in revs}
        runs = {n: ", ".join(f"{t:.2f}" for t, _ in times[n, fig]) for n in revs}
        cpu = {n: statistics.median(m.cpu for _, m in times[n, fig]) for n in revs}
        print(f"| {fig} | {med['base']:.3f} s (cpu {cpu['base']:.2f} s) | {med['head']:.3f} s (cpu {cpu['head']:.2f} s) "
              f"| {med['head'] / med['base']:.2f} | {runs['base']} | {runs['head']} |")
    same = True
    for fig in FIGURES:
        if ("head", fig) in found:
            eq = found["base", fig] == found["head", fig]
            same &= eq
            print(f"findings {fig}: base {sum(found['base', fig].values())}, head {sum(found['head', fig].values())}, "
                  f"{'identical' if eq else 'DIFFERENT'}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
