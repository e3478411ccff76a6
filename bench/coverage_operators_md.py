"""Does `trtlint coverage` agree with onnx-tensorrt's operator list for the TensorRT release it names?

    python3 bench/coverage_operators_md.py --mirror ONNX_TENSORRT_GIT_DIR [--release 10.1 ...] [--list X.Y=FILE ...]

The models: the onnx package's node test models (``onnx/backend/test/data/node/*/model.onnx``); when the installed
wheel ships no test data (onnx 1.23 does not), the same models are written from the package's own test cases
(``onnx.backend.test.case.node.collect_testcases``: the models ``onnx``'s ``generate-data`` writes there) to a
temporary folder. The operator list of a release: the ops its ``docs/operators.md`` marks ``Y``, read from the
release branch of a git directory of onnx/onnx-tensorrt (the branches and commits of
``bench/onnx_importers_gen.py``), or from FILE (whitespace-separated op names) for a release without a branch.

Per op type of the models (every node, subgraphs included): coverage says *supported* when the node is built-in
(or built-in, restricted: the importer exists, the node breaks a restriction), the list when it marks the op ``Y``;
an op of another domain (``ai.onnx.ml``, ``ai.onnx.preview.training``) is not in the list. The first release is
run through ``coverage()`` itself (a child process per model, the rules included); the others through the same
``classify`` on the models read once (the first run's classes are checked to be identical to it), since only the
release differs. Prints the agreement per release and every difference, and the same for the release-blind list
(every op any release imports: what coverage said before the list was per release).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def node_models(out: Path) -> list[Path]:
    import onnx

    data = Path(onnx.__file__).parent / "backend" / "test" / "data" / "node"
    if data.is_dir():
        return sorted(data.glob("*/model.onnx"))
    from onnx.backend.test.case.node import collect_testcases

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = collect_testcases(None)
    for c in cases:
        (out / c.name).mkdir(parents=True, exist_ok=True)
        onnx.save(c.model, str(out / c.name / "model.onnx"))
    return sorted(out.glob("*/model.onnx"))


def _gen():
    spec = importlib.util.spec_from_file_location("gen", ROOT / "bench" / "onnx_importers_gen.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen


def listed(gitdir: str, release: str) -> set:
    gen = _gen()
    branch, commit = gen.RELEASES[release]
    return gen.release_ops(gitdir, branch, commit)[1]


def verdicts(models) -> dict:
    """(domain, op_type) -> set of classes over every node of every model."""
    out: dict = {}
    for m in models:
        for n in m.nodes:
            out.setdefault(("" if n.domain == "ai.onnx" else n.domain, n.op_type), set()).add(n.cls)
    return out


def compare(ops: dict, supported: set) -> tuple[int, list]:
    diffs = []
    for (dom, op), classes in sorted(ops.items()):
        says = bool(classes & {"builtin", "restricted"})
        lists = dom == "" and op in supported
        if says != lists:
            diffs.append(f"{dom + '::' if dom else ''}{op}: coverage {'/'.join(sorted(classes))}, list {'Y' if lists else 'not Y'}")
    return len(ops) - len(diffs), diffs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", help="git directory of onnx/onnx-tensorrt with its release branches")
    ap.add_argument("--release", action="append", default=[], help="a release with a branch (default: all of them)")
    ap.add_argument("--list", action="append", default=[], metavar="X.Y=FILE", help="a release's supported ops, one file")
    a = ap.parse_args()
    from trtlint.coverage.model import classify, knowledge_of
    from trtlint.coverage.runner import coverage, project_index
    from trtlint.frontends.onnx_detail import read_model

    lists: dict[str, set] = {}
    if a.mirror:
        for rel in a.release or list(_gen().RELEASES):
            lists[rel] = listed(a.mirror, rel)
    for spec_ in a.list:
        rel, _, path = spec_.partition("=")
        lists[rel] = set(Path(path).read_text(encoding="utf-8").split())
    if not lists:
        ap.error("name the operator lists: --mirror and/or --list")
    import onnx

    with tempfile.TemporaryDirectory() as tmp:
        paths = node_models(Path(tmp))
        print(f"onnx {onnx.__version__}: {len(paths)} node test models")
        rels = list(lists)
        t0 = time.perf_counter()
        first = coverage(paths, tensorrt=rels[0], no_project=True)
        took = time.perf_counter() - t0
        index = project_index(paths, no_project=True)[0]
        know = knowledge_of(index)
        details = [read_model(p, str(p)) for p in paths]
        again = [classify(d, know, None, rels[0]) for d in details]
        assert [[n.cls for n in m.nodes] for m in first.models] == [[n.cls for n in m.nodes] for m in again], \
            "in-process classify differs from coverage()"
        print(f"coverage() on them, TensorRT {rels[0]}: {took:.1f} s; totals {first.totals()}")
        for rel in rels:
            ops = verdicts(again if rel == rels[0] else [classify(d, know, None, rel) for d in details])
            agree, diffs = compare(ops, lists[rel])
            print(f"TensorRT {rel}: coverage agrees with operators.md on {agree} of {len(ops)} op types"
                  + ("" if not diffs else ":\n  " + "\n  ".join(diffs)))
        newest = know.importers.newest
        for rel in rels:
            ops = verdicts([classify(d, know, None, newest) for d in details])
            agree, diffs = compare(ops, lists[rel])
            print(f"release-blind list (every op of {newest}) against TensorRT {rel}'s operators.md: {agree} of {len(ops)}"
                  + ("" if not diffs else ": " + ", ".join(x.split(":")[0] for x in diffs)))


if __name__ == "__main__":
    main()
