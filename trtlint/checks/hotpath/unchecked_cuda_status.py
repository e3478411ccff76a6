from __future__ import annotations

from typing import Iterable

from ...diagnostics import Diagnostic, Severity
from ..base import Rule
from ..examples.hotpath import plugin_cpp
from ._walk import is_error_path, reach_diag, reachable, where

_CHECK = """#define PLUGIN_CHECK_CUDA(call) do { cudaError_t status = call; if (status != cudaSuccess) { return status; } } while (0)"""


def _tears_down(packs, fn) -> bool:
    """A destructor, or a plugin method of the pack's ``teardown_methods`` (``terminate``, ``destroy``, ...)."""
    return fn.name.startswith("~") or (fn.cls is not None and fn.name in packs.teardown_methods)

_TEARDOWN = """#include <NvInfer.h>
#include <cuda_runtime.h>
using namespace nvinfer1;
struct Scratch
{
    void* p{nullptr};
    cudaStream_t s{nullptr};
    void release()
    {
        cudaFree(p);
        cudaStreamDestroy(s);
    }
};
class BarPlugin : public IPluginV2DynamicExt
{
public:
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        return 0;
    }
    void terminate() noexcept override
    {
        mScratch.release();
    }
    ~BarPlugin() override
    {
        cudaEventDestroy(mEvent);
    }

private:
    Scratch mScratch;
    cudaEvent_t mEvent{nullptr};
};
"""


class UncheckedCudaStatus(Rule):
    """A CUDA / cuBLAS / cuDNN / NCCL status discarded in a plugin method.

    ## What it does
    Follows the call graph from every plugin and creator method and reports calls whose status result is
    thrown away (the call is a whole expression statement): `cudaMemcpyAsync(...);`, `cublasSgemm(...);`.
    Which calls return a status is the `status_apis` table of the rules/ packs (`cuda*`, `cu*`, `cublas*`,
    `cudnn*`, `nccl*`, ...; `status_except` lists the ones that need no check, such as `cudaGetLastError`).
    A call wrapped in a checking macro (`CUDA_CHECK`, `PLUGIN_CUASSERT`, `PLUGIN_CHECK_CUDA`, ...), assigned,
    compared or cast to `void` is checked. The severity follows the method's temperature: error in hot
    methods (`enqueue`), warning in warm ones (`onShapeChange`, V2DynExt `configurePlugin`,
    `getWorkspaceSize`), info elsewhere. Cleanup on an error path that ends in a failure `return` is not
    reported. Two kinds of call are not reported, by the `status_queries` and `status_teardown` tables: queries
    (`cudaGetDevice`, `cudaGetDeviceProperties`, `cudaDeviceGetAttribute`, `cudaOccupancy*`,
    `cudaFuncGetAttributes`, `cudaPointerGetAttributes`, ...), which change nothing and fail only when every
    other call would; and releases (`cudaFree`, `cudaStreamDestroy`, `cudaEventDestroy`, `cublasDestroy`,
    `cudnnDestroy*`, ...) in a destructor or a teardown method (`teardown_methods`: `terminate`, `destroy`,
    `detachFromContext`) or in a function reached through one, where nothing could act on a failure.

    ## Why it matters
    CUDA errors are sticky and asynchronous: an unchecked failure in `enqueue` surfaces later, in an
    unrelated call, or becomes silently wrong output. TensorRT can only report a failure that the plugin
    returns.

    ## Example
    ```cpp
    cudaMemsetAsync(outputs[0], 0, bytes, stream);      // status dropped
    ```

    ## Fix
    Check it: return it as the method's status, wrap it in the project's check macro, or at least
    `(void)` it where a failure truly does not matter.
    """

    code = "TRT304"
    name = "unchecked-cuda-status"
    family = "hotpath"
    severity = Severity.WARNING  # a discarded status is a risk (a failure goes unnoticed), not itself a broken result

    VALID = [
        {"files": {"plugins/foo.cpp": plugin_cpp("    PLUGIN_CHECK_CUDA(cudaMemsetAsync(outputs[0], 0, 16, stream));", _CHECK)}},
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    if (cudaMemsetAsync(outputs[0], 0, 16, stream) != cudaSuccess)\n    {\n        cudaFree(workspace);\n        return -1;\n    }")}},
        # queries: they change nothing, and fail only when every other call would
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    int dev = 0;\n    cudaGetDevice(&dev);\n    int sms = 0;\n"
            "    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);")}},
        # a release in teardown (a V2 plugin's terminate, and a destructor it reaches): nothing can act on a failure
        {"files": {"plugins/bar.cpp": _TEARDOWN}},
    ]
    INVALID = [
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    cudaMemsetAsync(outputs[0], 0, 16, stream);")},
            "expect": [("plugins/foo.cpp", 15, "the status of cudaMemsetAsync (CUDA runtime) is discarded on the hot path of FooPlugin::enqueue")],
        },
        {
            # a release on the hot path is not teardown
            "files": {"plugins/foo.cpp": plugin_cpp("    cudaFree(workspace);")},
            "expect": [("plugins/foo.cpp", 15, "the status of cudaFree (CUDA runtime) is discarded on the hot path of FooPlugin::enqueue")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        packs = index.packs
        for e, call, chain in reachable(index, ("hot", "warm", "cold"), creators=True):
            if not call.discarded or call.kind != "call" or is_error_path(call):
                continue
            api = packs.lookup("status_apis", call.callee)
            if api is None or packs.lookup("status_except", call.callee) or packs.lookup("status_queries", call.callee):
                continue
            if packs.lookup("status_teardown", call.callee) and any(_tears_down(packs, f) for f in chain):
                continue
            yield reach_diag(self, index, e, call, chain, f"the status of {call.callee} ({api.what}) is discarded",
                             f" {where(e.plugin, e.fn, e.temperature)}")
