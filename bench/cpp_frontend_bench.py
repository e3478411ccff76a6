"""Time the C++ frontend per file (parse vs traversal) and dump facts for before/after comparison.

usage: python bench/cpp_frontend_bench.py OUT.json [files...]
Without files: the 20 Edge-LLM plugin TUs + common/tensor.cpp + a few TensorRT OSS plugin files.
Files under the TensorRT OSS tree get its profile's include dirs (include, plugin, plugin/common: the real
NvInfer*.h headers); other files get their Edge-LLM include dir when under it, else none.
TRTLINT_NO_PCH=1 parses without the shared precompiled header.
"""
from __future__ import annotations

import glob
import json
import sys
import time
from pathlib import Path

from trtlint.base.facts import to_json
from trtlint.frontends import ExtractContext, SourceFile
from trtlint.frontends import cpp
from trtlint.frontends.cpp import base as cpp_base

EDGE = Path("/work/repos/edgellm")
TRT = Path("/work/repos/trt")
TRT_INC = tuple(str(TRT / d) for d in ("include", "plugin", "plugin/common"))


def files_from_args(args: list[str]) -> list[tuple[Path, Path, tuple[str, ...]]]:
    out = []
    for a in args:
        p = Path(a).resolve()
        if str(p).startswith(str(TRT) + "/"):
            out.append((p, TRT, TRT_INC))
        elif str(p).startswith(str(EDGE) + "/"):
            out.append((p, EDGE, (str(EDGE / "cpp"),)))
        else:
            out.append((p, p.parent, ()))
    return out


def default_files() -> list[tuple[Path, Path, tuple[str, ...]]]:
    out = []
    edge_inc = (str(EDGE / "cpp"),)
    for p in sorted(glob.glob(str(EDGE / "cpp/plugins/**/*.cpp"), recursive=True)
                    + glob.glob(str(EDGE / "cpp/plugins/**/*.cu"), recursive=True)):
        out.append((Path(p), EDGE, edge_inc))
    out.append((EDGE / "cpp/common/tensor.cpp", EDGE, edge_inc))
    for rel in ("cpp/kernels/contextAttentionKernels/utilKernels.cu", "cpp/kernels/gdnKernels/gdnKernelUtils.cu"):
        out.append((EDGE / rel, EDGE, edge_inc))
    trt_inc = TRT_INC
    for pat in ("plugin/bertQKVToContextPlugin/*.cpp", "plugin/instanceNormalizationPlugin/*.cu",
                "plugin/scatterPlugin/*.cu", "plugin/common/*.cpp"):
        for p in sorted(glob.glob(str(TRT / pat)))[:3]:
            out.append((Path(p), TRT, trt_inc))
    return out


def main() -> None:
    out_path = sys.argv[1]
    files = files_from_args(sys.argv[2:]) if len(sys.argv) > 2 else default_files()
    # time parse separately by wrapping Index.parse
    cpp_base.load()
    parse_t: dict[str, float] = {}
    orig = cpp_base.libclang.index.parse

    def timed_parse(path, *a, **k):
        t = time.perf_counter()
        try:
            return orig(path, *a, **k)
        finally:
            parse_t[path] = parse_t.get(path, 0.0) + time.perf_counter() - t

    cpp_base.libclang.index.parse = timed_parse
    res = {}
    tot_p = tot_a = 0.0
    t_all = time.perf_counter()
    for p, root, inc in files:
        rel = str(p.relative_to(root))
        kind = "cuda" if p.suffix in (".cu", ".cuh") else "cpp"
        ctx = ExtractContext(root=root, include_dirs=inc)
        t = time.perf_counter()
        facts = cpp.extract(SourceFile(path=p, rel=rel, kind=kind, digest="d"), ctx)
        dt = time.perf_counter() - t
        pt = parse_t.get(str(p), 0.0)
        tot_p += pt
        tot_a += dt
        print(f"{dt:6.2f}s  parse {pt:5.2f}s  walk {dt - pt:5.2f}s  {root.name}/{rel}", file=sys.stderr)
        res[f"{root.name}/{rel}"] = to_json(facts)
    print(f"total {tot_a:.2f}s (parse {tot_p:.2f}s, walk {tot_a - tot_p:.2f}s); wall {time.perf_counter() - t_all:.2f}s",
          file=sys.stderr)
    print(cpp.stats(), file=sys.stderr)
    Path(out_path).write_text(json.dumps(res, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
