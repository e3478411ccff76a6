"""Coverage-guided fuzzing of the text frontends with atheris (libFuzzer), outside CI.

    pip install -e '.[fuzz]'        # atheris (CPython wheels for linux x86_64)
    PYTHONPATH=$PWD python3 bench/fuzz_atheris.py [--seconds 180] [--only python,cmake,...] [--out DIR]

bench/fuzz.py draws inputs with hypothesis; this harness lets libFuzzer *grow* them: the trtlint frontend
modules and the parser package each one drives (libcst, PyYAML, tomllib) are instrumented, and an input that
reaches new code is kept in the corpus and mutated further. The oracle is the same one (tests/robustness/
fuzzlib.py): ``extract`` returns FileFacts for the file, never raises, never reports an internal error, and
its facts pickle; the config loader raises nothing but a ConfigError naming the file.

Each frontend runs in its own process for ``--seconds`` (libFuzzer ``-max_total_time``), seeded with the
fuzzlib seeds and a dictionary of nasty tokens. A failing input is not a libFuzzer crash (the run would stop
at the first): it is kept in ``--out/<label>/`` with its exception and counted, and the run goes on. An input
slower than ``--timeout`` seconds *is* a libFuzzer crash (a hang): the run of that frontend stops and the
input is kept by libFuzzer as ``timeout-*`` in the same directory. C++ is not fuzzed here: libclang is native
code that atheris does not see, and bench/fuzz.py covers it.

Prints inputs tried (libFuzzer executions), coverage features reached, corpus size, failures and timeouts per
frontend; exit 1 when anything failed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# frontend label -> extra packages instrumented with it (its parser, when that parser is Python code)
LABELS = {
    "python": ["libcst"],
    "cmake": [],
    "testlist": ["yaml"],
    "plugin-spec": ["yaml"],
    "config": ["tomllib"],
    "onnx": [],  # onnx parses protobuf in native code: only the frontend's walk over the model is guided
}


def _dict_file(path: Path) -> None:
    """The fuzzlib nasty tokens as a libFuzzer dictionary."""
    from tests.robustness import fuzzlib

    lines = []
    for tok in fuzzlib._NASTY:
        lines.append('"' + "".join(f"\\x{b:02x}" for b in tok) + '"')
    path.write_text("\n".join(lines) + "\n", encoding="ascii")


def worker(label: str, out: Path, libfuzzer_args: list[str]) -> None:
    """Runs inside the child process: instrument, then hand control to libFuzzer (never returns)."""
    import atheris

    with atheris.instrument_imports(include=["trtlint", "tests.robustness"] + LABELS[label]):
        from tests.robustness import fuzzlib
        from trtlint.config import settings as config  # noqa: F401 - instrumented for the config label
        from trtlint.frontends import cmake, onnx, python, yaml_kind  # noqa: F401

        for pkg in LABELS[label]:  # frontends import their parser lazily: import it while instrumenting
            importlib.import_module(pkg)

    work = Path(tempfile.mkdtemp(prefix=f"fuzz-atheris-{label}-"))
    fail_dir = out / label
    stats_path = out / f"{label}.stats.json"
    stats = {"tried": 0, "failed": 0, "kinds": {}, "slowest": 0.0}
    last_flush = [time.monotonic()]

    def flush() -> None:
        stats_path.write_text(json.dumps(stats), encoding="utf-8")
        last_flush[0] = time.monotonic()

    def one(data: bytes) -> None:
        fuzzlib.run_oracle(label, data, work, stats, fail_dir)
        if time.monotonic() - last_flush[0] > 2.0:
            flush()

    import atexit

    atexit.register(flush)
    atheris.Setup([sys.argv[0]] + libfuzzer_args, one)
    atheris.Fuzz()


_DONE = re.compile(r"Done (\d+) runs in (\d+) second")
_STAT = re.compile(r"#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/")


def run_one(label: str, seconds: int, timeout: int, out: Path) -> dict:
    from tests.robustness import fuzzlib

    with tempfile.TemporaryDirectory(prefix=f"fuzz-atheris-{label}-corpus-") as d:
        corpus, seed_dir = Path(d) / "corpus", Path(d) / "seeds"
        corpus.mkdir()
        seed_dir.mkdir()
        for i, s in enumerate(fuzzlib.seeds(label)):
            (seed_dir / f"seed{i}").write_bytes(s)
        dict_path = Path(d) / "nasty.dict"
        _dict_file(dict_path)
        (out / label).mkdir(parents=True, exist_ok=True)
        stats_path = out / f"{label}.stats.json"
        stats_path.unlink(missing_ok=True)
        args = [
            f"-max_total_time={seconds}", f"-timeout={timeout}", "-rss_limit_mb=2048", "-max_len=8192",
            f"-dict={dict_path}", f"-artifact_prefix={out / label}/", "-print_final_stats=1",
            str(corpus), str(seed_dir),
        ]
        t = time.perf_counter()
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        p = subprocess.run(
            [sys.executable, __file__, "--worker", label, "--out", str(out), "--", *args],
            env=env, capture_output=True, text=True, errors="replace", timeout=seconds + 10 * timeout + 120,
        )
        wall = time.perf_counter() - t
        (out / f"{label}.libfuzzer.log").write_text(p.stderr, encoding="utf-8")
        st = json.loads(stats_path.read_text()) if stats_path.exists() else {"tried": 0, "failed": 0, "kinds": {}}
        m = _DONE.search(p.stderr)
        cov = _STAT.findall(p.stderr)
        timeouts = sorted(x.name for x in (out / label).glob("timeout-*"))
        crashes = sorted(x.name for x in (out / label).glob("crash-*"))
        return {
            "runs": int(m.group(1)) if m else st["tried"], "tried": st["tried"], "failed": st["failed"],
            "kinds": st["kinds"], "slowest": st.get("slowest", 0.0), "cov": int(cov[-1][1]) if cov else 0,
            "ft": int(cov[-1][2]) if cov else 0, "corpus": int(cov[-1][3]) if cov else 0,
            "timeouts": timeouts, "crashes": crashes, "rc": p.returncode, "wall": wall,
        }


def main() -> int:
    if "--worker" in sys.argv:
        i = sys.argv.index("--worker")
        label = sys.argv[i + 1]
        out = Path(sys.argv[sys.argv.index("--out") + 1])
        rest = sys.argv[sys.argv.index("--") + 1:]
        worker(label, out, rest)
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=180, help="fuzzing time per frontend")
    ap.add_argument("--timeout", type=int, default=10, help="an input slower than this is a hang (seconds)")
    ap.add_argument("--only", default="", help="comma-separated frontends (default: all)")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "fuzz_out" / "atheris")
    args = ap.parse_args()
    labels = list(LABELS)
    if args.only:
        labels = [x for x in labels if x in args.only.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    bad = 0
    print(f"{'frontend':12} {'inputs':>8} {'cov':>6} {'features':>8} {'corpus':>6} {'failed':>6} {'hangs':>5} "
          f"{'slowest s':>9} {'wall s':>7}")
    for label in labels:
        s = run_one(label, args.seconds, args.timeout, args.out)
        hangs = len(s["timeouts"]) + len(s["crashes"])
        bad += s["failed"] + hangs
        print(f"{label:12} {s['runs']:8d} {s['cov']:6d} {s['ft']:8d} {s['corpus']:6d} {s['failed']:6d} {hangs:5d} "
              f"{s['slowest']:9.2f} {s['wall']:7.1f}", flush=True)
        for k, c in sorted(s["kinds"].items()):
            print(f"    {c:6d} x {k}", flush=True)
        for x in s["timeouts"] + s["crashes"]:
            print(f"    kept {args.out / label / x}", flush=True)
        if s["rc"] not in (0,) and not hangs:
            print(f"    libFuzzer exited {s['rc']}: see {args.out / (label + '.libfuzzer.log')}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
