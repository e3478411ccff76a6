"""Time `trtlint coverage` on a synthetic model of N nodes (default 10,000): a chain of built-in ops with
initializer inputs (Add, Mul, Relu, ReduceSum with constant axes, Resize) and every 50th node a TensorRT
library plugin, judged without a project (built-in importers, restrictions, TensorRT's plugin library).

    python bench/coverage_bench.py [N] [--repeat R]

Prints the model's size, the time to read and classify it (median of R runs, the packs already loaded),
and the time of a whole `trtlint coverage --no-project` process for comparison.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import onnx
from onnx import TensorProto, helper


def build(n: int, path: Path) -> None:
    F = TensorProto.FLOAT
    inits = [helper.make_tensor("b", F, [1], [1.0]), helper.make_tensor("axes", TensorProto.INT64, [1], [1])]
    nodes, prev = [], "x"
    kinds = ("Add", "Mul", "Relu", "Sigmoid")
    for i in range(n):
        out = f"t{i}"
        if i % 50 == 49:
            nodes.append(helper.make_node("EfficientNMS_TRT", [prev], [out], name=f"n{i}", domain="trt", score_threshold=0.5))
        elif i % 25 == 0:
            nodes.append(helper.make_node("ReduceSum", [prev, "axes"], [out], name=f"n{i}", keepdims=1))
        else:
            k = kinds[i % len(kinds)]
            ins = [prev, "b"] if k in ("Add", "Mul") else [prev]
            nodes.append(helper.make_node(k, ins, [out], name=f"n{i}"))
        prev = out
    g = helper.make_graph(nodes, "bench", [helper.make_tensor_value_info("x", F, [1, 64])],
                          [helper.make_tensor_value_info(prev, F, None)], initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("trt", 1)])
    onnx.save(m, str(path))


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("nodes", nargs="?", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    from trtlint.coverage.runner import coverage

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "bench.onnx"
        build(a.nodes, path)
        coverage([path], no_project=True)  # warm: packs loaded, modules imported
        times, cpus = [], []
        for _ in range(a.repeat):
            c0 = _cpu()
            t0 = time.perf_counter()
            r = coverage([path], no_project=True)
            times.append(time.perf_counter() - t0)
            cpus.append(_cpu() - c0)
        t0 = time.perf_counter()
        rc = subprocess.run([sys.executable, "-m", "trtlint", "coverage", "--no-project", str(path), "--format", "json"],
                            stdout=subprocess.DEVNULL).returncode
        proc = time.perf_counter() - t0
        print(f"model: {a.nodes} nodes, {path.stat().st_size / 1e6:.2f} MB; classes: {r.totals()}")
        print(f"coverage (read + the ONNX and contract rules + classify), median of {a.repeat}: {statistics.median(times):.3f} s "
              f"(min {min(times):.3f}, max {max(times):.3f}); CPU time (this process and the child reading the model), "
              f"median {statistics.median(cpus):.3f} s (on a loaded machine the CPU time is the steadier figure)")
        print(f"whole process `trtlint coverage --no-project --format json`: {proc:.3f} s (exit {rc})")


if __name__ == "__main__":
    main()
