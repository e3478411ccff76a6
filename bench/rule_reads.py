"""The fact kinds each rule touches (trtlint.checks.reads.traced_reads), over the fixture projects and every rule's
VALID/INVALID examples, beside what the rule declares (``Rule.reads``).

    python3 bench/rule_reads.py [--only TRT301,TRT302] [TREE ...]

Prints one line per rule: its code, the kinds it touched, and MISSING (touched, not declared) when there are
any. A dry run of ``tests/test_rule_reads.py`` over more projects (real trees given as TREE are read, never
written: the check runs without cache).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from trtlint.checks.reads import traced_reads  # noqa: E402
from trtlint.checks.registry import all_rules  # noqa: E402
from trtlint.config.settings import Settings, apply_table  # noqa: E402
from trtlint.index.project_index import ProjectIndex  # noqa: E402
from trtlint.pipeline.run import run  # noqa: E402


def projects():
    fx = REPO / "tests" / "fixtures"
    for d in sorted(fx.iterdir()):
        if d.is_dir():
            yield d.name, d, None, None
    for rule in all_rules():
        for i, ex in enumerate(list(rule.VALID) + list(rule.INVALID)):
            yield f"{rule.code}-{i}", None, ex["files"], ex.get("config")


def trace(root: Path, config, rules, out: dict) -> None:
    s = Settings(root=root.resolve())
    if config:
        apply_table(s, config, "example config")
    s.select = ["ALL"]
    res = run(s, jobs=1, use_cache=False)
    st = res.state
    for rule in rules:
        idx = ProjectIndex.build(st.root, st.profile, st.packs, list(st.facts.values()), st.settings,
                                 inputs=st.check_inputs())
        touched, _ = traced_reads(rule, idx)
        out.setdefault(rule.code, set()).update(touched)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", nargs="*", type=Path)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    rules = [r for r in all_rules() if not only or r.code in only]
    out: dict[str, set] = {}
    from tests.helpers import write_project

    for name, root, files, config in projects():
        if root is None:
            with tempfile.TemporaryDirectory() as tmp:
                write_project(Path(tmp), files)
                trace(Path(tmp), config, rules, out)
        else:
            trace(root, config, rules, out)
    for t in a.trees:
        trace(t, None, rules, out)
    for rule in rules:
        got = out.get(rule.code, set())
        declared = getattr(rule, "reads", None)
        missing = sorted(got - declared) if declared is not None else None
        print(f"{rule.code} {sorted(got)}" + (f"  MISSING {missing}" if missing else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
