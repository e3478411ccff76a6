"""Time trtlint on a tree: cold (no cache), warm (cache), and one file changed.

    python bench/run.py TREE [--file REL] [--jobs N] [--clang-tidy] [--repeat N]

The tree is copied to a temporary directory first (the original is never written); a changed file is
simulated by appending a comment to REL (default: the first plugin .cpp found). Prints wall times, peak
memory (trtlint and its worker processes together, sampled; and the largest single process), files, and findings per rule.

The timed runs are not sampled: reading every process's /proc entry every 50 ms costs this 2-core machine
about a tenth of a core, which slowed the cold run it measured by up to a second. Peak memory comes from one
more cold run (cache removed again), sampled every 50 ms.

With ``--clang-tidy`` (``pip install clang-tidy``, the bench extra) it also times clang-tidy running one
cheap check (readability-braces-around-statements) over the same C++/CUDA translation units trtlint parsed
in its cold run, with the same flags (trtlint's own compile arguments, with the optional-feature macros a check
finds), in a pool of --jobs processes; and, alternating with it, trtlint extracting only those units in its own
pool (``bench/units_only.py``: no Python, CMake or YAML files, no index, no rules), so the two tools are
compared over the same work as well as against the whole cold check.

Each timed figure also gives the CPU time of trtlint and its workers (user + system) and the time the
hypervisor took the machine's cores away while it ran ("steal", from /proc/stat): on a shared virtual machine
the wall time moves with the steal, the CPU time much less. ``--repeat N`` runs the cold check (and
clang-tidy) N times, alternating, and compares the medians. The CPU time moves too: the speed a core gives
changes through the day (the same cold check took 14.5 s and 19.9 s of CPU hours apart), so the first line
times a fixed pure-Python loop (20 million steps) as a yardstick of the machine at that moment.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from units_only import unit_context  # bench/ is on sys.path when this script runs


def _tree_rss_mib(pid: int) -> float:
    """Resident memory of a process and all its descendants (the extraction workers), from /proc."""
    kids: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            kids.setdefault(int(fields[1]), []).append(int(d.name))
            rss[int(d.name)] = int(fields[21])
        except (OSError, ValueError, IndexError):
            pass
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo += kids.get(p, [])
    return total * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


PEAK = [0.0]  # the highest process-tree RSS seen over all runs


def _yardstick() -> float:
    """Seconds a fixed pure-Python loop (20 million steps) takes: how fast a core is right now."""
    t = time.perf_counter()
    x = 0
    for i in range(20_000_000):
        x += i
    return time.perf_counter() - t


def _steal() -> float:
    """Seconds of steal time so far, summed over the cores (the 8th value of /proc/stat's cpu line)."""
    try:
        with open("/proc/stat") as fh:
            return int(fh.readline().split()[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


class Meter:
    """CPU time of the child processes (user + system) and the machine's steal time over a ``with`` block."""

    def __enter__(self) -> "Meter":
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        self._cpu, self._steal = ru.ru_utime + ru.ru_stime, _steal()
        return self

    def __exit__(self, *exc) -> None:
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpu = ru.ru_utime + ru.ru_stime - self._cpu
        self.steal = _steal() - self._steal

    def __str__(self) -> str:
        return f"cpu {self.cpu:.2f} s, steal {self.steal:.2f} s"


def run_check(tree: Path, *extra: str, sample: bool = False) -> tuple[float, dict, str]:
    with Meter() as m:
        dt, data, stats = _run_check(tree, *extra, sample=sample)
    return dt, data, f"{m}; {stats}"


def _run_check(tree: Path, *extra: str, sample: bool = False) -> tuple[float, dict, str]:
    t = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(
            [sys.executable, "-m", "trtlint", "check", str(tree), "--format", "json", "--statistics", *extra],
            stdout=out, stderr=err,
        )
        while sample and p.poll() is None:  # sample parent + workers together every 50 ms
            PEAK[0] = max(PEAK[0], _tree_rss_mib(p.pid))
            time.sleep(0.05)
        p.wait()
        dt = time.perf_counter() - t
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if p.returncode not in (0, 1):
        raise SystemExit(f"trtlint failed ({p.returncode}): {stderr[-2000:]}")
    return dt, json.loads(stdout), stderr.strip().splitlines()[-1] if stderr.strip() else ""


def clang_tidy_time(tree: Path, rels: list[str], jobs: int) -> tuple[float, int, int, Meter]:
    """Wall time of clang-tidy over ``rels``; returns (seconds, units, units that failed, cpu/steal meter)."""
    import shutil as sh
    from concurrent.futures import ThreadPoolExecutor

    from trtlint.frontends import SourceFile
    from trtlint.frontends.cpp.flags import compile_args

    exe = sh.which("clang-tidy")
    if exe is None:
        raise SystemExit("clang-tidy not found: pip install clang-tidy")
    ctx = unit_context(tree)
    cmds = []
    for rel in rels:
        kind = "cuda" if rel.endswith((".cu", ".cuh")) else "cpp"
        args = [a for a in compile_args(SourceFile(tree / rel, rel, kind, ""), ctx) if a != "-fsyntax-only"]
        cmds.append([exe, "-quiet", "-checks=-*,readability-braces-around-statements", str(tree / rel), "--", *args])

    def one(cmd: list[str]) -> int:
        return subprocess.run(cmd, capture_output=True).returncode

    t = time.perf_counter()
    with Meter() as m, ThreadPoolExecutor(max_workers=jobs) as ex:
        codes = list(ex.map(one, cmds))
    return time.perf_counter() - t, len(cmds), sum(1 for c in codes if c not in (0, 1)), m


def units_only_time(tree: Path, rels: list[str], jobs: int) -> tuple[float, dict, Meter]:
    """Wall time of trtlint extracting only ``rels`` (bench/units_only.py, a fresh process, no cache)."""
    t = time.perf_counter()
    with Meter() as m:
        p = subprocess.run([sys.executable, str(Path(__file__).with_name("units_only.py")), str(tree), str(jobs), *rels],
                           capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"units_only.py failed ({p.returncode}): {p.stderr[-2000:]}")
    return dt, json.loads(p.stdout.strip().splitlines()[-1]), m


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tree", type=Path)
    ap.add_argument("--file", help="project-relative file to change for the one-file run")
    ap.add_argument("--jobs", type=int)
    ap.add_argument("--clang-tidy", action="store_true", help="also time clang-tidy over the same units")
    ap.add_argument("--repeat", type=int, default=1, help="cold runs (and clang-tidy runs) to take the median of")
    a = ap.parse_args()
    extra = ["--jobs", str(a.jobs)] if a.jobs else []
    with tempfile.TemporaryDirectory(prefix="trtlint-bench-") as tmp:
        tree = Path(tmp) / a.tree.resolve().name
        shutil.copytree(a.tree, tree, symlinks=True, ignore=shutil.ignore_patterns(".trtlint_cache"))  # keep .git: git decides what is ignored
        rel = a.file
        if rel is None:
            cands = sorted(p for p in tree.rglob("*.cpp") if "plugin" in p.as_posix().lower())
            rel = cands[0].relative_to(tree).as_posix() if cands else None
        yard_before = _yardstick()
        cold, data, stats_cold = run_check(tree, *extra)
        warm, data_w, stats_warm = run_check(tree, *extra)
        one = None
        stats_one = ""
        if rel:
            with open(tree / rel, "a", encoding="utf-8") as fh:
                fh.write("\n// bench: one file changed\n")
            one, _, stats_one = run_check(tree, *extra)
        shutil.rmtree(tree / ".trtlint_cache", ignore_errors=True)
        run_check(tree, *extra, sample=True)  # the memory run: cold again, sampled
        peak_one = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        tidy = None
        colds = [(cold, stats_cold)]
        for _ in range(a.repeat - 1):
            shutil.rmtree(tree / ".trtlint_cache", ignore_errors=True)
            secs, _, st = run_check(tree, *extra)
            colds.append((secs, st))
        if a.clang_tidy:
            from trtlint.config.settings import load_settings
            from trtlint.pipeline.run import run as trtlint_run

            # the units trtlint parsed: read from its (warm) cache of this copy, in process
            res = trtlint_run(load_settings(tree), use_cache=True)
            units = sorted(
                p for p, f in res.index.files.items() if f.kind in ("cpp", "cuda") and (f.functions or f.classes or f.problems)
            )
            jobs = a.jobs or os.cpu_count() or 1
            tidy, only = [], []
            for _ in range(a.repeat):  # alternating, so both see the same machine
                tidy.append(clang_tidy_time(tree, units, jobs))
                only.append(units_only_time(tree, units, jobs))
        yard_after = _yardstick()
    by_rule = Counter(d["code"] for d in data["diagnostics"])
    print(f"tree: {a.tree} ({data['summary']['files_checked']} files)")
    print(f"machine: a 20-million-step Python loop took {yard_before:.2f} s before the runs, {yard_after:.2f} s after")
    for secs, st in colds:
        print(f"cold (no cache):      {secs:7.2f} s   [{st}]")
    cold = statistics.median(secs for secs, _ in colds)
    if len(colds) > 1:
        print(f"cold, median of {len(colds)}: {cold:7.2f} s")
    print(f"warm (cache):         {warm:7.2f} s   [{stats_warm}]")
    if one is not None:
        print(f"one file changed:     {one:7.2f} s   ({rel})   [{stats_one}]")
    print(f"peak memory: {PEAK[0]:.0f} MiB (trtlint and its workers together, sampled every 50 ms in a second cold run); "
          f"largest single process {peak_one:.0f} MiB")
    print(f"findings: {sum(by_rule.values())}  " + "  ".join(f"{k}={v}" for k, v in sorted(by_rule.items())))
    if tidy is not None:
        for secs, n, failed, m in tidy:
            print(f"clang-tidy (1 check, same {n} units, {failed} failed): {secs:7.2f} s   [{m}]")
        secs = statistics.median(t[0] for t in tidy)
        print(f"clang-tidy median {secs:.2f} s -> trtlint cold (median {cold:.2f} s) is {secs / cold:.1f}x faster")
        for osecs, info, m in only:
            print(f"trtlint, the same {info['units']} units only ({info['with_problems']} with a parse problem, "
                  f"{info['functions']} functions): {osecs:7.2f} s   [{m}]")
        osecs = statistics.median(o[0] for o in only)
        tcpu = statistics.median(t[3].cpu for t in tidy)
        ocpu = statistics.median(o[2].cpu for o in only)
        print(f"same units only: clang-tidy {secs:.2f} s / trtlint {osecs:.2f} s = {secs / osecs:.1f}x by wall time, "
              f"{tcpu / ocpu:.1f}x by CPU time (medians)")
    same = data["diagnostics"] == data_w["diagnostics"]
    print(f"warm findings identical to cold: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
