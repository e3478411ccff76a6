"""Compare the findings of two revisions of trtlint on some trees, cold and warm (identity check for refactors).

    python3 bench/compare_revisions.py [--base REV] [--head REV] [--jobs N] TREE [TREE ...]

Each revision is exported with ``git archive`` into a temporary directory (``--head WORKTREE``: the work tree as
it is, tracked and untracked files that are not ignored) and runs ``python3 -m trtlint check TREE --format
json`` with ``PYTHONPATH`` at that export, from a neutral directory. Each tree is first copied (hard links where
the file system allows; ``.git`` and ``.trtlint_cache`` left out) so the run's cache starts empty and the tree
itself is only read. Per revision and tree: a cold run (empty cache, which fills it) and a warm run (the same
command again, from that cache).

Prints per tree the number of findings of each run and every finding present in one revision and not the other
(by code, path, line and message; cold against cold, warm against warm), and notes a revision whose warm run
differs from its cold run. Exit 1 when the revisions differ, 2 when a run fails, else 0.
Defaults: ``--base HEAD~1 --head HEAD``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORKTREE = "WORKTREE"
SKIP = {".git", ".trtlint_cache"}


def export(rev: str, dest: Path) -> str:
    """Write revision ``rev`` of the repository (or the work tree) to ``dest``; return a label for it."""
    dest.mkdir(parents=True)
    if rev == WORKTREE:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                             check=True, capture_output=True).stdout
        for rel in filter(None, out.decode().split("\0")):
            src = REPO / rel
            if src.is_symlink():  # a tracked link (trtlint/rules_data -> ../rules): as git archive writes it
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                os.symlink(os.readlink(src), dest / rel)
            elif src.is_file():
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / rel)
        return "work tree"
    sha = subprocess.run(["git", "rev-parse", "--short", rev], cwd=REPO, check=True, capture_output=True,
                         text=True).stdout.strip()
    data = subprocess.run(["git", "archive", "--format=tar", rev], cwd=REPO, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        if hasattr(tarfile, "data_filter"):
            tf.extractall(dest, filter="data")
        else:  # pragma: no cover - Python without extraction filters
            tf.extractall(dest)
    return f"{rev} ({sha})"


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def copy_tree(tree: Path, dest: Path) -> None:
    """The tree without ``.git`` and caches, hard-linked where possible (trtlint check only reads it)."""
    shutil.copytree(tree, dest, symlinks=True, ignore=lambda _d, names: [n for n in names if n in SKIP],
                    copy_function=_link_or_copy)


def check(code: Path, tree: Path, out: Path, jobs: int, scratch: Path) -> tuple[dict, float]:
    """``trtlint check`` of ``tree`` with trtlint from ``code``: (the JSON report, seconds)."""
    env = dict(os.environ, PYTHONPATH=str(code))
    cmd = [sys.executable, "-m", "trtlint", "check", str(tree), "--format", "json", "--output", str(out),
           "--no-progress"]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode not in (0, 1) or not out.is_file():
        raise RuntimeError(f"trtlint check {tree} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return json.loads(out.read_text(encoding="utf-8")), dt


def keys(report: dict) -> Counter:
    """The findings of a report as (code, path, line, message), with their multiplicity."""
    return Counter((d["code"], d["location"]["path"], d["location"]["line"], d["message"])
                   for d in report["diagnostics"])


def show(k: tuple) -> str:
    code, path, line, msg = k
    return f"{code} {path}:{line} {msg}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trees", nargs="+", type=Path)
    ap.add_argument("--base", default="HEAD~1", help="a git revision (default HEAD~1)")
    ap.add_argument("--head", default="HEAD", help=f"a git revision, or {WORKTREE} (default HEAD)")
    ap.add_argument("--jobs", "-j", type=int, default=0, help="trtlint check --jobs (default: trtlint's)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory (reports, exports, copies)")
    a = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="trtlint-compare-"))
    status = 0
    try:
        revs = {}
        for side, rev in (("base", a.base), ("head", a.head)):
            revs[side] = (tmp / side, export(rev, tmp / side / "code"))
        print(f"base: {revs['base'][1]}\nhead: {revs['head'][1]}")
        for tree in a.trees:
            tree = tree.resolve()
            reports: dict[tuple[str, str], Counter] = {}
            times: dict[tuple[str, str], float] = {}
            copy = tmp / "trees" / tree.name
            copy_tree(tree, copy)
            for side, (d, _label) in revs.items():
                shutil.rmtree(copy / ".trtlint_cache", ignore_errors=True)  # a fresh cache per revision
                for mode in ("cold", "warm"):
                    rep, dt = check(d / "code", copy, d / f"{tree.name}-{mode}.json", a.jobs, tmp)
                    reports[side, mode] = keys(rep)
                    times[side, mode] = dt
            shutil.rmtree(copy, ignore_errors=True)
            counts = ", ".join(f"{side} {mode} {sum(reports[side, mode].values())} ({times[side, mode]:.1f} s)"
                               for side in revs for mode in ("cold", "warm"))
            same = True
            lines = []
            for mode in ("cold", "warm"):
                b, h = reports["base", mode], reports["head", mode]
                for k in sorted((b - h).elements()):
                    lines.append(f"  only in base ({mode}): {show(k)}")
                for k in sorted((h - b).elements()):
                    lines.append(f"  only in head ({mode}): {show(k)}")
                same = same and b == h
            for side in revs:
                if reports[side, "cold"] != reports[side, "warm"]:
                    lines.append(f"  note: {side}'s warm run differs from its cold run")
            print(f"{tree.name}: {'identical' if same else 'DIFFERENT'}: {counts}")
            for line in lines:
                print(line)
            if not same:
                status = 1
    except (RuntimeError, subprocess.CalledProcessError) as e:
        print(f"error: {e}", file=sys.stderr)
        status = 2
    finally:
        if a.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
