"""Never silent about a data-type branch (issue 34, deliverable 1): a callee with no body read, reached from enqueue
inside a data-type dispatch (an if-chain, a ternary, a switch on a DataType, a lambda handed to a dispatch helper,
and the launchers those branches call), is named in the run's "partly analysed" summary (text and JSON) with the
plugin, method and callee. A call with a known contract (CUDA runtime, cuBLAS, the C++ library), a callee whose
body is read, a call outside a dispatch and a call in the branch for no accepted type are not."""

from __future__ import annotations

import json
from pathlib import Path

from trtlint.checks.examples.hotpath import plugin_cpp

from .test_cli import trtlint

_DECLS = """#include <algorithm>
#include <cublas_v2.h>
int32_t extPre(void* out);
int32_t extA(void* out, cudaStream_t s);
int32_t extB(void* out, cudaStream_t s);
int32_t extC(void* out, cudaStream_t s);
int32_t extD(void* out, cudaStream_t s);
int32_t extE(void* out, cudaStream_t s);
int32_t extErr(void* out);
int32_t extF(void* out, cudaStream_t s);
int32_t extG(void* out, cudaStream_t s);
int32_t readH(void* out, cudaStream_t s);
template <typename F>
void dispatchType(DataType t, F&& f)
{
    f(t == DataType::kHALF ? 2 : 4);
}
static int32_t launchG(void* out, cudaStream_t s)
{
    cudaMemsetAsync(out, 0, std::max(16, 8), s);
    cublasSgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, nullptr, nullptr, 1, nullptr, 1, nullptr, nullptr, 1);
    return extG(out, s);
}
"""

_PLUGINS = {
    # an if-chain: both branches; a body-less call before the dispatch is not in a branch
    "IfPlugin": """    extPre(outputs[0]);
    if (inputDesc[0].type == DataType::kHALF)
    {
        return extA(outputs[0], stream);
    }
    else
    {
        extB(outputs[0], stream);
    }""",
    # a ternary
    "TernaryPlugin": "    int32_t st = inputDesc[0].type == DataType::kHALF ? extC(outputs[0], stream) : extD(outputs[0], stream);",
    # a switch on the DataType: its default is the branch for no accepted type (an error path)
    "SwitchPlugin": """    switch (inputDesc[0].type)
    {
    case DataType::kFLOAT: extE(outputs[0], stream); break;
    default: extErr(outputs[0]); return -1;
    }""",
    # a dispatch helper taking a lambda
    "LambdaPlugin": "    dispatchType(inputDesc[0].type, [&](int size) { extF(outputs[0], stream); });",
    # a launcher a branch calls: its own body-less callee (its CUDA, cuBLAS and std calls have known contracts)
    "LauncherPlugin": """    if (inputDesc[0].type == DataType::kFLOAT)
    {
        launchG(outputs[0], stream);
    }""",
    # the callee's body is in another file of the project: read
    "ReadPlugin": """    if (inputDesc[0].type == DataType::kFLOAT)
    {
        readH(outputs[0], stream);
    }""",
}


def _project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / "plugins").mkdir(parents=True)
    (proj / "plugins" / "decls.h").write_text("#pragma once\n#include <NvInferRuntime.h>\n#include <cuda_runtime.h>\n"
                                              "using namespace nvinfer1;\n" + _DECLS, encoding="utf-8")
    for name, body in _PLUGINS.items():
        (proj / "plugins" / f"{name}.cu").write_text(
            plugin_cpp(body, '#include "decls.h"').replace("FooPlugin", name), encoding="utf-8")
    (proj / "plugins" / "read.cpp").write_text(
        '#include "decls.h"\nint32_t readH(void* out, cudaStream_t s)\n{\n    return 0;\n}\n', encoding="utf-8")
    # an #include that did not resolve: the launcher's declaration is not seen, the call not resolved
    (proj / "plugins" / "MissingPlugin.cu").write_text(plugin_cpp(
        "    if (inputDesc[0].type == DataType::kHALF)\n    {\n        launchMissing(outputs[0], stream);\n    }",
        '#include "kernels/missing_launchers.h"').replace("FooPlugin", "MissingPlugin"), encoding="utf-8")
    # ... and in a template launcher a branch calls: its functional cast to the type parameter is no call
    (proj / "plugins" / "CastPlugin.cu").write_text(plugin_cpp(
        "    if (inputDesc[0].type == DataType::kHALF)\n    {\n        castHelper<float>(outputs[0], 4, gH);\n    }",
        '#include "kernels/missing_gemm.h"\ntemplate <typename scalar_t>\nvoid castHelper(void* out, int E, MissingHandle h)\n'
        "{\n    const auto alpha = scalar_t(1.0f / sqrt(float(E)));\n    missingGemm(h, &alpha, out);\n}\n"
        "extern MissingHandle gH;").replace("FooPlugin", "CastPlugin"), encoding="utf-8")
    return proj


def test_callees_without_body_in_dispatch_branches_are_named(tmp_path):
    proj = _project(tmp_path)
    r = trtlint("check", str(proj), "--no-cache", "--format", "json")
    assert r.returncode in (0, 1), r.stderr
    got = json.loads(r.stdout)["summary"]["analysis"]["unentered_branch_calls"]
    assert sorted((u["plugin"], u["method"], u["callee"], u["why"]) for u in got) == sorted([
        ("IfPlugin", "enqueue", "extA", "declared in plugins/decls.h, defined in no analysed file"),
        ("IfPlugin", "enqueue", "extB", "declared in plugins/decls.h, defined in no analysed file"),
        ("TernaryPlugin", "enqueue", "extC", "declared in plugins/decls.h, defined in no analysed file"),
        ("TernaryPlugin", "enqueue", "extD", "declared in plugins/decls.h, defined in no analysed file"),
        ("SwitchPlugin", "enqueue", "extE", "declared in plugins/decls.h, defined in no analysed file"),
        ("LambdaPlugin", "enqueue", "extF", "declared in plugins/decls.h, defined in no analysed file"),
        ("LauncherPlugin", "enqueue", "extG", "declared in plugins/decls.h, defined in no analysed file"),
        ("MissingPlugin", "enqueue", "launchMissing", "not resolved: an #include of plugins/MissingPlugin.cu was not found"),
        ("CastPlugin", "enqueue", "missingGemm", "not resolved: an #include of plugins/CastPlugin.cu was not found"),
    ])
    where = {u["callee"]: (u["path"], u["line"]) for u in got}
    assert where["extG"] == ("plugins/decls.h", 26) and where["extA"] == ("plugins/IfPlugin.cu", 18)


def test_the_text_summary_names_them(tmp_path):
    proj = _project(tmp_path)
    r = trtlint("check", str(proj), "--no-cache", "--no-source")
    line = next(x for x in r.stdout.splitlines() if x.startswith("analysed "))
    assert "9 calls in data-type branches not followed (no body read: " in line and ", +4 more)" in line, line
