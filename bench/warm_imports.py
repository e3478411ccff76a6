"""What a warm ``trtlint check`` (nothing changed: the run memo answers) costs and imports; with ``--one-file``,
what a check after one C++ file changed imports, in the parent and in the extraction worker.

    python bench/warm_imports.py [TREE] [--repeat N] [--base CHECKOUT] [--budget SECONDS] [--import-budget MS]
                                 [--no-bytecode] [--one-file [REL]] [--one-file-budget MS]

TREE (default: tests/fixtures/edgellm_mini) is copied to a temporary directory (the original is never written)
and checked once to fill its cache. Then, alternating when ``--base`` names another trtlint checkout (e.g. the
main one, as the "before" of a change; it gets its own copy of the tree), each revision's warm check runs N times
(default 11) and the median and minimum wall times are printed. Last, for each revision, one warm run in a child
process lists the modules it imported (``sys.modules`` at exit): their count, the parser libraries among them
(:data:`PARSERS`: none should be there when nothing needs extracting), the trtlint modules, and the sum of the
``-X importtime`` self times with the ten largest (the least of 5 runs per module: the machine is shared), and
the same sum over trtlint's own modules. ``--budget`` makes the exit status 1 when the head's median is above it,
``--import-budget`` when the head's trtlint modules' import self time is above that many milliseconds (budgets
of a benchmark, not tests: no test depends on the machine's speed).

``--one-file [REL]`` (default: the first ``*.cpp`` under a folder named like ``plugin``) measures the other path users
wait on, a re-run after an edit (issue 36): per revision, a comment is appended to REL and the check runs under ``-X
importtime`` with the worker's standard error sent to a file of its own (``os.register_at_fork``), N times (default
5); printed per process (the parent, each extraction worker): the modules imported, the parser libraries among them,
the sum of the import self times (least per module over the runs) and trtlint's share, and the ten largest.
``--one-file-budget MS``: exit 1 when the head's parent imports more than that (trtlint's modules, self times).

Bytecode is written to a private ``PYTHONPYCACHEPREFIX`` so that a ``PYTHONDONTWRITEBYTECODE`` environment does
not make every run compile trtlint again (an installed wheel has its bytecode). ``--no-bytecode`` measures the
other case: ``PYTHONDONTWRITEBYTECODE=1`` and no prefix, so a checkout without ``__pycache__`` compiles every
trtlint module it imports on every run (the standard library keeps its installed bytecode). The machine is shared: read the wall times of one
run side by side, not across runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
# the libraries that parse project files (C++, Python, ONNX, YAML, JSON schemas) or draw or serve (rich, pygls)
PARSERS = ("clang", "clang.cindex", "libcst", "onnx", "yaml", "jsonschema", "numpy", "rich", "pygls")

# run trtlint's main in this process and print the modules imported at exit (as the last stdout line)
_PROBE = r"""
import runpy, sys
sys.argv = ["trtlint"] + sys.argv[1:]
try:
    runpy.run_module("trtlint", run_name="__main__")
except SystemExit:
    pass
sys.stdout.flush()
print("\nMODULES " + " ".join(sorted(sys.modules)))
"""


NO_BYTECODE = [False]  # --no-bytecode


def _env(checkout: Path, pyc: Path) -> dict:
    # each revision its own per-user cache: two revisions whose rule packs differ would otherwise remove each
    # other's parsed copy of the packs, and every run would parse the YAML again
    env = dict(os.environ, PYTHONPATH=str(checkout), PYTHONPYCACHEPREFIX=str(pyc), XDG_CACHE_HOME=str(pyc) + "-xdg")
    # (the precompiled headers stay shared: where they were)
    xdg = os.environ.get("XDG_CACHE_HOME")
    env.setdefault("TRTLINT_PCH_DIR", str(Path(xdg) / "trtlint" / "pch" if xdg else Path.home() / ".cache" / "trtlint" / "pch"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if NO_BYTECODE[0]:  # trtlint's modules compile on every import (the standard library keeps its bytecode)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX")
    return env


def _check(checkout: Path, tree: Path, pyc: Path, extra=()) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, *extra, "-m", "trtlint", "check", str(tree), "--no-progress"],
                   env=_env(checkout, pyc), cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def modules(checkout: Path, tree: Path, pyc: Path) -> list[str]:
    out = subprocess.run([sys.executable, "-c", _PROBE, "check", str(tree), "--no-progress"],
                         env=_env(checkout, pyc), cwd=tree, capture_output=True, text=True).stdout
    line = [ln for ln in out.splitlines() if ln.startswith("MODULES ")]
    return line[-1].split()[1:] if line else []


def import_times(checkout: Path, tree: Path, pyc: Path, runs: int = 5) -> list[tuple[int, str]]:
    """(microseconds, module) of each module's ``-X importtime`` self time: the least over ``runs`` runs."""
    best: dict[str, int] = {}
    for _ in range(runs):
        err = subprocess.run([sys.executable, "-X", "importtime", "-m", "trtlint", "check", str(tree), "--no-progress"],
                             env=_env(checkout, pyc), cwd=tree, capture_output=True, text=True).stderr
        for ln in err.splitlines():
            if ln.startswith("import time:") and "|" in ln:
                parts = ln[len("import time:"):].split("|")
                if parts[0].strip().isdigit():
                    m = parts[2].strip()
                    best[m] = min(best.get(m, 1 << 62), int(parts[0]))
    return [(t, m) for m, t in best.items()]


# run trtlint's main with -X importtime; a forked worker writes its import times to a file of its own
_FORK_PROBE = r"""
import os, runpy, sys
out = sys.argv[1]

def _child():
    fd = os.open(os.path.join(out, f"worker-{os.getpid()}.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 2)
    os.close(fd)

os.register_at_fork(after_in_child=_child)
sys.argv = ["trtlint"] + sys.argv[2:]
try:
    runpy.run_module("trtlint", run_name="__main__")
except SystemExit:
    pass
"""


def _parse_importtime(text: str) -> dict[str, int]:
    """module -> its -X importtime self time (microseconds)."""
    out: dict[str, int] = {}
    for ln in text.splitlines():
        if ln.startswith("import time:") and "|" in ln:
            parts = ln[len("import time:"):].split("|")
            if parts[0].strip().isdigit():
                out[parts[2].strip()] = int(parts[0])
    return out


def one_file_imports(checkout: Path, tree: Path, pyc: Path, rel: str, runs: int) -> dict[str, dict[str, int]]:
    """process ("parent", "worker 1", ...) -> module imported in the last of ``runs`` one-file checks -> its least
    self time (µs) over them."""
    best: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory(prefix="trtlint-onefile-") as out:
        for r in range(runs):
            with open(tree / rel, "a", encoding="utf-8") as fh:
                fh.write(f"\n// warm_imports: one file changed ({r})\n")
            for f in Path(out).iterdir():
                f.unlink()
            p = subprocess.run([sys.executable, "-X", "importtime", "-c", _FORK_PROBE, out, "check", str(tree),
                                "--no-progress"], env=_env(checkout, pyc), cwd=tree, capture_output=True, text=True)
            procs = {"parent": _parse_importtime(p.stderr)}
            workers = sorted(Path(out).iterdir(), key=lambda f: f.stat().st_mtime)
            for i, f in enumerate(workers, 1):
                procs[f"worker {i}"] = _parse_importtime(f.read_text(encoding="utf-8", errors="replace"))
            for proc, times in procs.items():
                b = best.setdefault(proc, {})
                for m, t in times.items():
                    b[m] = min(b.get(m, 1 << 62), t)
    # the modules of the last run (the first may differ: e.g. a rule memo the run before could not leave)
    return {proc: {m: t for m, t in b.items() if m in procs.get(proc, {})} for proc, b in best.items()}


def _own(m: str) -> bool:
    return m == "trtlint" or m.startswith("trtlint.")


def print_one_file(name: str, procs: dict[str, dict[str, int]]) -> float:
    """Print one revision's one-file import budget; return its parent's trtlint import self time (ms)."""
    print(f"\n{name}, one file changed:")
    for proc, times in procs.items():
        parsers = [m for m in PARSERS if m in times]
        own = sum(t for m, t in times.items() if _own(m)) / 1000
        print(f"  {proc}: {len(times)} modules imported ({sum(1 for m in times if _own(m))} of trtlint); parser "
              f"libraries: {', '.join(parsers) or 'none'}; -X importtime self total {sum(times.values()) / 1000:.1f} ms, "
              f"trtlint's {own:.1f} ms; largest: "
              + ", ".join(f"{m} {t / 1000:.1f}" for m, t in sorted(times.items(), key=lambda x: -x[1])[:10]))
    return sum(t for m, t in procs.get("parent", {}).items() if _own(m)) / 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", nargs="?", type=Path, default=HERE / "tests" / "fixtures" / "edgellm_mini")
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--base", type=Path, help="another trtlint checkout to time alongside (e.g. /work/main)")
    ap.add_argument("--budget", type=float, help="exit 1 when the head's median warm time is above this (seconds)")
    ap.add_argument("--import-budget", type=float,
                    help="exit 1 when the head's trtlint modules take more than this to import (ms, -X importtime self)")
    ap.add_argument("--no-bytecode", action="store_true", help="no bytecode read or written: every import compiles")
    ap.add_argument("--one-file", nargs="?", const="", metavar="REL",
                    help="also the imports of a check after REL (a C++ file) changed, parent and worker "
                         "(default REL: the first *.cpp under a folder named like plugin)")
    ap.add_argument("--one-file-budget", type=float,
                    help="exit 1 when, one file changed, the head's parent imports more than this (ms, trtlint's "
                         "modules, -X importtime self)")
    a = ap.parse_args()
    NO_BYTECODE[0] = a.no_bytecode
    revs = {"head": HERE} | ({"base": a.base.resolve()} if a.base else {})
    with tempfile.TemporaryDirectory(prefix="trtlint-warm-") as tmp:
        trees, pycs = {}, {}
        for name, checkout in revs.items():
            trees[name] = Path(tmp) / name / a.tree.name
            shutil.copytree(a.tree, trees[name], ignore=shutil.ignore_patterns(".trtlint_cache", ".git"))
            pycs[name] = Path(tmp) / f"pyc-{name}"
            _check(checkout, trees[name], pycs[name])  # cold: fills the cache (and the bytecode)
            _check(checkout, trees[name], pycs[name])  # the first warm run stores the run memo's reads
        times: dict[str, list[float]] = {n: [] for n in revs}
        for _ in range(a.repeat):
            for name, checkout in revs.items():
                times[name].append(_check(checkout, trees[name], pycs[name]))
        bare = statistics.median(
            [_check(HERE, trees["head"], pycs["head"], extra=("-c", "pass", "--")) for _ in range(a.repeat)])
        print(f"tree: {a.tree}  ({a.repeat} warm runs each, alternating; "
              f"{'no bytecode: every import compiles' if a.no_bytecode else 'bytecode available'}; "
              f"load average {os.getloadavg()[0]:.1f})")
        print(f"python -c pass: median {bare:.3f} s")
        for name, ts in times.items():
            print(f"{name:5} {revs[name]}: warm check median {statistics.median(ts):.3f} s, min {min(ts):.3f} s")
        own_ms: dict[str, float] = {}
        for name, checkout in revs.items():
            mods = modules(checkout, trees[name], pycs[name])
            imp = import_times(checkout, trees[name], pycs[name])
            own_ms[name] = sum(t for t, m in imp if m == "trtlint" or m.startswith("trtlint.")) / 1000
            parsers = [m for m in PARSERS if m in mods]
            own = [m for m in mods if m == "trtlint" or m.startswith("trtlint.")]
            print(f"\n{name}: {len(mods)} modules imported, {len(own)} of trtlint; "
                  f"parser libraries: {', '.join(parsers) or 'none'}")
            print(f"  -X importtime self total {sum(t for t, _ in imp) / 1e6:.3f} s, trtlint's {own_ms[name]:.1f} ms "
                  f"(least of 5 runs per module); largest: "
                  + ", ".join(f"{m} {t / 1000:.1f} ms" for t, m in sorted(imp, reverse=True)[:10]))
            folders: dict[str, int] = {}
            for m in own:
                folders[".".join(m.split(".")[:2])] = folders.get(".".join(m.split(".")[:2]), 0) + 1
            print("  trtlint modules per folder: " + ", ".join(f"{k} {v}" for k, v in sorted(folders.items())))
        one_ms: dict[str, float] = {}
        if a.one_file is not None:
            rel = a.one_file
            if not rel:
                cands = sorted(p for p in trees["head"].rglob("*.cpp") if "plugin" in p.as_posix().lower())
                rel = cands[0].relative_to(trees["head"]).as_posix() if cands else ""
            if not rel:
                print("\nno C++ file to change (give --one-file REL)")
            else:
                print(f"\none file changed: {rel} ({min(a.repeat, 5)} runs per revision, least self time per module)")
                for name, checkout in revs.items():
                    one_ms[name] = print_one_file(name, one_file_imports(checkout, trees[name], pycs[name], rel,
                                                                         min(a.repeat, 5)))
        med = statistics.median(times["head"])
        over = False
        if a.one_file_budget is not None and one_ms.get("head", 0.0) > a.one_file_budget:
            print(f"\nover the one-file import budget: head's parent imports {one_ms['head']:.1f} ms of trtlint > "
                  f"{a.one_file_budget:.1f} ms")
            over = True
        if a.budget is not None and med > a.budget:
            print(f"\nover budget: head median {med:.3f} s > {a.budget:.3f} s")
            over = True
        if a.import_budget is not None and own_ms["head"] > a.import_budget:
            print(f"\nover the import budget: head's trtlint modules {own_ms['head']:.1f} ms > {a.import_budget:.1f} ms")
            over = True
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
