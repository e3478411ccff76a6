"""The long fuzz run of the frontends (outside CI): many more inputs than tests/robustness/ tries.

    PYTHONPATH=$PWD python3 bench/fuzz.py [--examples N] [--only cpp,python,...] [--out DIR]

For each frontend (C++/CUDA/header, Python, CMake, ONNX, YAML test lists, plugin specs, the config loader)
hypothesis draws random bytes, random text and mutated real-looking inputs (tests/robustness/fuzzlib.py) and
each is extracted with the CI oracle: no exception, no internal error, picklable facts. Failures are not
shrunk: every failing input is kept in ``--out`` (default bench/fuzz_out/, not committed) and counted, and the
run goes on. Prints inputs tried, failures and the slowest input per frontend; exit 1 when anything failed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from tests.robustness import fuzzlib  # noqa: E402

# C++ inputs pay a libclang parse each: fewer of them for the same wall time
_SCALE = {"cpp": 0.3, "cuda": 0.15, "header": 0.15}


def fuzz(label: str, n: int, out: Path) -> dict:
    stats = {"tried": 0, "failed": 0, "slowest": 0.0, "kinds": {}}
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)

        @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(data=fuzzlib.inputs("config" if label == "config" else label))
        def one(data):
            fuzzlib.run_oracle(label, data, work, stats, out, prefix=f"{label}-")

        one()
    return stats


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=5000, help="inputs per frontend (C++ kinds get a fraction)")
    ap.add_argument("--only", default="", help="comma-separated frontends (default: all)")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "fuzz_out")
    args = ap.parse_args()
    labels = list(fuzzlib.FRONTENDS) + ["config"]
    if args.only:
        labels = [x for x in labels if x in args.only.split(",")]
    total_failed = 0
    print(f"{'frontend':12} {'inputs':>7} {'failed':>6} {'slowest s':>9} {'wall s':>7}")
    for label in labels:
        n = max(10, int(args.examples * _SCALE.get(label, 1.0)))
        t = time.perf_counter()
        s = fuzz(label, n, args.out)
        total_failed += s["failed"]
        print(f"{label:12} {s['tried']:7d} {s['failed']:6d} {s['slowest']:9.2f} {time.perf_counter() - t:7.1f}", flush=True)
        for k, c in sorted(s["kinds"].items()):
            print(f"    {c:5d} x {k}", flush=True)
    return 1 if total_failed else 0


if __name__ == "__main__":
    sys.exit(main())
