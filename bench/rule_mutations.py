"""Mutation testing of the rules: does a rule's own example suite catch a deliberate breakage of the rule?

    python bench/rule_mutations.py [--only TRT301 ...] [--list] [-j N]

Each entry of ``MUTATIONS`` is one deliberate breakage of a rule's source: a (file, old text, new text) edit that
drops a condition the rule's docstring promises (an exemption, a severity, a guard). The runner copies this
checkout (its working tree, without ``.git`` and caches) to a scratch directory once, and for each breakage in
turn applies the edit there, runs ``tests/test_rule_examples.py -k <code>`` for the rules it names against the
scratch copy, and restores the file. A breakage is *caught* when that run fails; one that *survives* is a
promise with no example behind it: add a VALID or INVALID example to the rule that fails with it.

It prints one line per breakage and a summary, and exits 1 when any breakage survives (or an edit no longer
applies: the rule was rewritten, so update the entry). A benchmark, not part of CI: each entry costs one pytest
run of the rule's examples (10-30 s). This checkout is only read.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutation:
    codes: tuple[str, ...]  # the rules whose examples must catch it
    path: str  # the file edited, relative to the checkout
    old: str  # text that occurs exactly once in the file
    new: str
    what: str  # the promise it breaks


MUTATIONS: list[Mutation] = [
    Mutation(
        ("TRT101",), "trtlint/checks/contract/plugin_name_mismatch.py",
        'registered = set(index.registered_names()) | {sp.name for sp in getattr(index, "plugin_specs", ())}',
        "registered = set(index.registered_names())",
        "names from TensorRT OSS plugin specs (*_PluginConfig.yaml) no longer count as registered",
    ),
    Mutation(
        ("TRT202",), "trtlint/checks/plugin/serialization_incomplete.py",
        "runtime_hidden = bool(build_only) and all(in_build(r) for r in reads.values())",
        "runtime_hidden = bool(build_only) and any(in_build(r) for r in reads.values())",
        "one build-phase read (not all of them) hides the runtime branch's reads",
    ),
    Mutation(
        ("TRT204",), "trtlint/checks/plugin/throw_across_boundary.py",
        "return Severity(esc.behaviour.severity) if esc.behaviour is not None and esc.behaviour.severity else self.severity",
        "return self.severity",
        "a pack's per-macro severity is ignored",
    ),
    Mutation(
        ("TRT301",), "trtlint/checks/hotpath/enqueue_allocation.py",
        'if hit.temperature != "hot" or once_note(hit.call, hit.chain)[0] is not None:',
        "if once_note(hit.call, hit.chain)[0] is not None:",
        "warm methods (onShapeChange, where the Fix says to allocate) are judged too",
    ),
    Mutation(
        ("TRT303",), "trtlint/checks/hotpath/enqueue_default_stream.py",
        'if packs.lookup("size_queries", call.callee) and call.args and default_stream(call.args[0]) not in (None, "omitted"):',
        "if False:",
        "a CUB temp-storage size query (null buffer) on the default stream is reported",
    ),
    Mutation(
        ("TRT401",), "trtlint/checks/wiring/cuda_source_in_plugins_dir.py",
        'if ff.kind != "cuda" or ff.test_cases:\n                continue  # a googletest source is TRT404',
        'if ff.kind != "cuda":\n                continue  # a googletest source is TRT404',
        "a googletest .cu (TRT404's) is reported here too",
    ),
    # issue 34's walks: each condition added there, dropped again
    Mutation(
        ("TRT301", "TRT302", "TRT303"), "trtlint/frontends/cpp/flow.py",
        "if _dtype_test(cond_text) and not _FAILURE_CONSTANT.fullmatch(text):",
        "if False:",
        "a data-type branch that returns its status is taken for an error path",
    ),
    Mutation(
        ("TRT301",), "trtlint/frontends/cpp/flow.py",
        "return _only_checks(K, branch, last)",
        "return True",
        "the last else of a data-type if-chain that returns a success is taken for the branch for no accepted type",
    ),
    Mutation(
        ("TRT301", "TRT302", "TRT304"), "trtlint/frontends/cpp/bodyguards.py",
        "if not flags or not self.sets_any([kids[ti]], flags):",
        "if not flags:",
        "`if (!mX)` is a one-time guard even when its block never sets mX",
    ),
    Mutation(
        ("TRT301", "TRT302"), "trtlint/frontends/cpp/bodyguards.py",
        "if not self.sets_any(kids[i + 1:], flags):",
        "if False:",
        "`if (mX) return;` is a one-time guard even when nothing after it sets mX",
    ),
    Mutation(
        ("TRT205", "TRT215"), "trtlint/checks/plugin/_exits.py",
        "for rx, what in _RUNTIME_CONDITIONS:",
        "for rx, what in ():",
        "a check on a device property, a run-time shape or data type is taken for an invariant",
    ),
    Mutation(
        ("TRT205",), "trtlint/checks/plugin/_exits.py",
        "if from_enqueue and _ALWAYS_FALSE.fullmatch(checked):",
        "if False:",
        "an assert(false) in a dispatch's fall-through on enqueue's path is taken for an invariant",
    ),
    Mutation(
        ("TRT202",), "trtlint/checks/plugin/serialization_incomplete.py",
        "if total == g.size_value:",
        "if True:",
        "getSerializationSize() is not compared with the bytes serialize() writes",
    ),
    Mutation(
        ("TRT202",), "trtlint/frontends/cpp/lifecycle.py",
        "elif k == K.BINARY_OPERATOR and self.want_serial and raw_store(self.ex, c, kids):",
        "elif False:",
        "a store through a pointer in serialize() is skipped (the next write is taken for its item)",
    ),
    Mutation(
        ("TRT205",), "trtlint/checks/plugin/process_exit_in_plugin.py",
        "            if macro is None:\n",
        "            if True:\n",
        "every site of one macro in one plugin is a finding of its own",
    ),
    Mutation(
        ("TRT204", "TRT205"), "trtlint/checks/plugin/_escape.py",
        "                seen |= _reaches(index, t, behaviour)\n",
        "                pass\n",
        "a check macro's expansion is judged without the project helpers it calls (an exit in another file)",
    ),
    Mutation(
        ("TRT202",), "trtlint/frontends/cpp/lifecycle.py",
        "            bound = counting_loop_bound(self.ex.text_of(c))\n",
        "            bound = None\n",
        "serialization in a counting loop is conditional again (the comparison stops at the first loop)",
    ),
    Mutation(
        ("TRT202",), "trtlint/frontends/cpp/serialvalues.py",
        '(lhs.endswith("]") and "(" not in rhs)',
        'lhs.endswith("]")',
        "an array element filled from a read call is taken for a raw load",
    ),
    Mutation(
        ("TRT205",), "trtlint/pipeline/buildmodel/cmake.py",
        'return ["NDEBUG"] if release or vars.get("_TRTLINT_NDEBUG_FLAG") else []',
        "return []",
        "a release build type set in the CMake files does not define NDEBUG (an assert there is said to end the process)",
    ),
    Mutation(
        ("TRT208",), "trtlint/frontends/cpp/body.py",
        "        if field == \"data\" and key in self._pf_vars:\n",
        "        if False:\n",
        "a PluginField's data set by assignment after construction is not judged",
    ),
]


def _copy(dst: Path) -> None:
    ignore = shutil.ignore_patterns(".git", ".trtlint_cache", "__pycache__", ".pytest_cache", "*.pyc", ".mypy_cache")
    shutil.copytree(ROOT, dst, ignore=ignore, symlinks=True)


def run_one(scratch: Path, m: Mutation, jobs: int) -> tuple[str, float, str]:
    """('caught' | 'survived' | 'stale', seconds, the failing tests' ids or why stale)."""
    f = scratch / m.path
    text = f.read_text(encoding="utf-8")
    n = text.count(m.old)
    if n != 1:
        return "stale", 0.0, f"the old text occurs {n} times in {m.path}"
    f.write_text(text.replace(m.old, m.new), encoding="utf-8")
    try:
        env = dict(os.environ, PYTHONPATH=str(scratch), PYTHONDONTWRITEBYTECODE="1")
        cmd = [sys.executable, "-m", "pytest", "tests/test_rule_examples.py", "-q", "-p", "no:cacheprovider",
               "-k", " or ".join(m.codes)]
        if jobs > 1:
            cmd += ["-n", str(jobs)]
        t = time.perf_counter()
        p = subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, text=True)
        dt = time.perf_counter() - t
    finally:
        f.write_text(text, encoding="utf-8")
    failed = [ln.split(" ", 1)[1].split(" - ")[0] for ln in p.stdout.splitlines() if ln.startswith("FAILED ")]
    if p.returncode == 0:
        return "survived", dt, ""
    if p.returncode == 1 and failed:
        return "caught", dt, ", ".join(x.split("::")[-1] for x in failed)
    tail = (p.stdout + p.stderr).strip().splitlines()
    return "stale", dt, f"pytest exited {p.returncode}" + (f": {tail[-1]}" if tail else "")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", default=[], help="rule codes: run only the breakages of these rules")
    ap.add_argument("--list", action="store_true", help="list the breakages and exit")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="pytest-xdist workers per run (when installed)")
    a = ap.parse_args(argv)
    todo = [m for m in MUTATIONS if not a.only or set(m.codes) & set(a.only)]
    if a.list:
        for m in todo:
            print(f"{'/'.join(m.codes)}  {m.path}: {m.what}")
        return 0
    counts = {"caught": 0, "survived": 0, "stale": 0}
    with tempfile.TemporaryDirectory(prefix="trtlint-mutations-") as tmp:
        scratch = Path(tmp) / "repo"
        _copy(scratch)
        for m in todo:
            verdict, dt, detail = run_one(scratch, m, a.jobs)
            counts[verdict] += 1
            codes = "/".join(m.codes)
            print(f"{verdict:8} {codes:7} {dt:5.1f}s  {m.what}" + (f"  [{detail}]" if detail else ""), flush=True)
    print(f"{counts['caught']} of {len(todo)} breakages caught, {counts['survived']} survived, {counts['stale']} stale")
    return 0 if counts["survived"] == counts["stale"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
