from __future__ import annotations

from typing import Iterable

from ...diagnostics import Diagnostic
from ..base import Rule
from ..examples.hotpath import plugin_cpp
from ._walk import hot_diag, hot_hits

_TRT7_PLUGIN = """#include <NvInfer.h>
#include <cuda_runtime.h>
using namespace nvinfer1;
static void prepare(DimsCHW dims, void* out, cudaStream_t stream)
{
    void* scratch = nullptr;
    cudaMalloc(&scratch, dims.c() * dims.h() * dims.w() * sizeof(float));
    cudaMemsetAsync(out, 0, 16, stream);
}
class OldPlugin : public IPluginV2IOExt
{
public:
    int enqueue(int batchSize, void const* const* inputs, void* const* outputs, void* workspace,
        cudaStream_t stream) noexcept override
    {
        prepare(mDims, outputs[0], stream);
        return 0;
    }
    bool supportsFormat(DataType type, PluginFormat format) const noexcept override
    {
        return type == DataType::kFLOAT && format == PluginFormat::kNCHW;
    }

private:
    DimsCHW mDims;
};
"""

_HELPER = """static void launchFoo(void* out, cudaStream_t s)
{
    void* tmp = nullptr;
    cudaMalloc(&tmp, 1024);
}
"""


class EnqueueAllocation(Rule):
    """Memory allocation, container growth or handle creation reachable from `enqueue`.

    ## What it does
    Follows the call graph from every plugin's `enqueue` into project functions (same file, headers, other
    files, `.cu` launchers) up to `max-call-depth`, and reports calls listed as allocating in the
    `allocating` table of the rules/ packs: `cudaMalloc*`, `cudaMallocHost`, `malloc`, `new`,
    `std::vector::push_back`/`resize`, allocation by construction (`std::vector<float> v(n)`,
    `thrust::device_vector`), handle creation (`cublasCreate`, `cudaStreamCreate`, ...). The message
    shows the chain, e.g. `FooPlugin::enqueue -> launchFoo -> cudaMalloc`; a helper several plugins'
    `enqueue`s reach is one finding naming every one of them. Stream-ordered allocation
    (`cudaMallocAsync`) is a warning. One-time guarded initialisation (in a function-local static's
    initializer, a `std::call_once` body, or under `if (mX == nullptr)` on a member) is reported as info,
    saying so: it still runs inside the first `enqueue`, which may be under CUDA-graph capture.

    ## Why it matters
    `enqueue` runs for every inference. An allocation there costs latency on every call, can fail at run
    time, and breaks CUDA-graph capture (`cudaMalloc` is not capturable), which production runtimes use.

    ## Example
    ```cpp
    int32_t FooPlugin::enqueue(...) noexcept { void* tmp; cudaMalloc(&tmp, n); ... }
    ```

    ## Fix
    Ask for the memory as workspace (`getWorkspaceSize`) and carve it in `enqueue`, or allocate once in
    `configurePlugin`/`onShapeChange`/`initialize`.
    """

    code = "TRT301"
    name = "enqueue-allocation"
    family = "hotpath"
    confirm = "graph-capture"

    VALID = [
        {"files": {"plugins/foo.cpp": plugin_cpp("    cudaMemsetAsync(outputs[0], 0, 16, stream);")}},
    ]
    INVALID = [
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    launchFoo(outputs[0], stream);", _HELPER)},
            "expect": [("plugins/foo.cpp", 8, "FooPlugin::enqueue -> launchFoo -> cudaMalloc")],
        },
        {
            # code still on TensorRT 7: an IPluginV2IOExt plugin, a helper taking a DimsCHW (removed in TensorRT 8;
            # the stand-in headers declare it, else the call would be dropped and its callee never followed)
            "files": {"plugins/old.cu": _TRT7_PLUGIN},
            "expect": [("plugins/old.cu", 7, "OldPlugin::enqueue -> prepare -> cudaMalloc")],
        },
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    std::vector<int> v;\n    v.push_back(1);")},
            "expect": [("plugins/foo.cpp", 16, "container growth")],
        },
        {
            "files": {
                "plugins/foo.cpp": plugin_cpp(
                    "    if (mScratch == nullptr)\n    {\n        cudaMalloc(&mScratch, 1024);\n    }",
                    "static void* mScratch = nullptr;",
                )
            },
            "expect": [("plugins/foo.cpp", 17, "allocates once (one-time initialisation: guarded by `mScratch == nullptr`)")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for hit in hot_hits(index, "allocating"):
            yield hot_diag(self, hit, "allocates", index)
