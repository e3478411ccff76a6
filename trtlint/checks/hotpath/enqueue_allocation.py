from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic
from ..base import Rule
from ..examples.hotpath import (RUN_SCALE, WS_HELPERS, debug_switch_helper, ns_template_helpers, plugin_cpp,
                                plugin_ws_cpp, ws_call)
from ._walk import hot_diag, hot_hits, once_note

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

_SCAN = """static size_t scan(void* temp, size_t& bytes, cudaStream_t stream)
{
    if (temp == nullptr)
    {
        bytes = 512;
        return bytes;
    }
    std::vector<char> staging(bytes);
    return bytes;
}
"""

_SETUP = """static bool mReady = false;
static void setup()
{
    void* p = nullptr;
    cudaMalloc(&p, 64);
}
"""

_HELPER = """static void launchFoo(void* out, cudaStream_t s)
{
    void* tmp = nullptr;
    cudaMalloc(&tmp, 1024);
}
"""


# enqueue -> a member template -> another member template called with the first one's parameter (`impl<T, int>(...)`,
# a dependent call inside a template, resolved through its overload set) -> cudaMalloc
_MEMBER_TEMPLATES = """#include <NvInferRuntime.h>
#include <cuda_runtime.h>
using namespace nvinfer1;
class FooPlugin : public IPluginV2DynamicExt
{
public:
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        return dispatch<float>(inputDesc, stream);
    }
    template <typename T>
    int dispatch(PluginTensorDesc const* d, cudaStream_t stream);
    template <typename T, typename K>
    int impl(PluginTensorDesc const* d, cudaStream_t stream);
};
template <typename T>
int FooPlugin::dispatch(PluginTensorDesc const* d, cudaStream_t stream)
{
    return impl<T, int>(d, stream);
}
template <typename T, typename K>
int FooPlugin::impl(PluginTensorDesc const* d, cudaStream_t stream)
{
    void* p;
    cudaMalloc(&p, 16);
    return 0;
}
class FooPluginCreator : public IPluginCreator
{
public:
    char const* getPluginName() const noexcept override { return "FooPlugin"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
};
REGISTER_TENSORRT_PLUGIN(FooPluginCreator);
"""


class EnqueueAllocation(Rule):
    """Memory allocation, container growth or handle creation reachable from `enqueue`.

    ## What it does
    Follows the call graph from every plugin's `enqueue` into project functions (same file, headers, other
    files, `.cu` launchers) up to `max-call-depth`, and reports calls listed as allocating in the
    `allocating` table of the rules/ packs: device and pinned memory (`cudaMalloc*`, `cudaMallocHost`,
    `thrust::device_vector`), handle creation (`cublasCreate`, `cudaStreamCreate`, ...). Host heap
    allocation and containers (`new`, `malloc`, `std::vector` growth and construction) are the opt-in
    TRT306 enqueue-host-allocation. The message
    shows the chain, e.g. `FooPlugin::enqueue -> launchFoo -> cudaMalloc`; a helper several plugins'
    `enqueue`s reach is one finding naming every one of them. An allocation or handle creation is an error (it
    fails under CUDA-graph capture); stream-ordered allocation (`cudaMallocAsync`) is a warning; the pack entry's
    `severity` says which. One-time guarded initialisation (in a function-local static's
    initializer, a `std::call_once` body, or under `if (!mX)` / `if (mX == nullptr)` / `if (!mX.get())` /
    `if (mX.empty())` on a member, static or global, or after `if (mX) return;`) is not reported: it runs
    once, not per inference (the lazy initialisation plugins are advised to use). It is one-time only when the
    guarded statements set what the condition tests (`mX = ...`, `cudaMalloc(&mX, n)`, `mX.reset(...)`), directly
    or in a function they call; a flag they never set is a configuration switch, and what it guards runs on
    every call (reported). The guard is carried
    into callees: a helper or constructor reached only under it (`if (!mRunner) mRunner = new Runner();`) is
    one-time too; reached on another way without it, it is not. A test on a local variable is no such guard.
    Nor is an allocation only a debug build compiles (an arm of `#ifndef NDEBUG` or `#ifdef _DEBUG`, as for TRT302),
    nor one in the branch of an `if` on a run-time debug switch (`if (level == "DEBUG")`, `if (mDebug)`, as for TRT302).
    Only `enqueue` (the hot path) is judged: a warm method (`configurePlugin`, `onShapeChange`) is where an
    allocation belongs.
    Size-query mode: a helper that returns early when its pointer parameter is null (`if (!workspace) {
    size = ...; return; }`) and is called with a null pointer there (a literal, a local initialised to null, or
    the caller's own parameter passed on from such a call) does none of the work after that return on that
    call: it is not reported, unless some other way calls it with a real buffer.
    Given workspace: TensorRT hands `enqueue` a non-null workspace when the plugin's `getWorkspaceSize` asks for
    one (none of its returns may be 0: not a literal 0, no conditional with a 0 arm). A call in a branch taken
    only when a pointer parameter is null (`if (!ws)`, `if (ws == nullptr)`, a conjunct of `&&`, the `else` of
    `if (ws)`, after `if (ws) return ...;`) is not reported when every way to it passes that parameter a pointer
    from the workspace: `workspace` itself, cast (`static_cast<T*>(workspace)`), advanced (`(char*)workspace +
    off`, `&ws[off]`, `ws = (char*)ws + n;`, a helper every return of which does so, a `T*&` helper that only
    advances it), or a local carved from it.
    Anything else (a null, a member, a pointer not traced, a plugin that may ask for 0 bytes) keeps the finding.
    When the same call's status is also discarded (TRT304), one finding is reported, this one, with a note
    "also TRT304": moving the allocation out of `enqueue` removes both.

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
    reads = frozenset({"classes", "files", "functions", "lifecycle", "py_creators", "registrations"})
    name = "enqueue-allocation"
    family = "hotpath"
    supersedes = ("TRT304",)
    confirm = "graph-capture"

    VALID = [
        {"files": {"plugins/foo.cpp": plugin_cpp("    cudaMemsetAsync(outputs[0], 0, 16, stream);")}},
        # a host container is TRT306's (opt-in), not this rule's
        {"files": {"plugins/foo.cpp": plugin_cpp("    std::vector<int> v;\n    v.push_back(1);")}},
        # size-query mode: scan is only asked for its size (a null temp buffer); the vector after the return never
        # allocates on this call
        {"files": {"plugins/foo.cpp": plugin_cpp("    size_t bytes = 0;\n    scan(nullptr, bytes, stream);", _SCAN)}},
        # one-time initialisation under a guard on a member, static or global: once, not per inference
        {"files": {"plugins/foo.cpp": plugin_cpp("    if (mScratch == nullptr)\n    {\n        cudaMalloc(&mScratch, 1024);\n    }",
                                                 "static void* mScratch = nullptr;")}},
        # the guard in enqueue is carried into setup(), reached only under it
        {"files": {"plugins/foo.cpp": plugin_cpp("    if (!mReady)\n    {\n        setup();\n        mReady = true;\n    }", _SETUP)}},
    ]
    VALID += [
        # onShapeChange (warm: runs when input shapes change) is where the Fix says to allocate
        {"files": {"plugins/foo.cpp": plugin_cpp("    launchFoo(outputs[0], stream);").replace(
            "public:\n", "public:\n    int32_t onShapeChange(PluginTensorDesc const* in, int32_t nbInputs, "
            "PluginTensorDesc const* out, int32_t nbOutputs) noexcept override\n    {\n"
            "        cudaMalloc(&mScratch, 1024);\n        return 0;\n    }\n    void* mScratch{nullptr};\n", 1).replace(
            "    launchFoo(outputs[0], stream);", "    cudaMemsetAsync(mScratch, 0, 1024, stream);")}},
    ]
    INVALID = [
        {
            "files": {"plugins/foo.cpp": plugin_cpp("    launchFoo(outputs[0], stream);", _HELPER)},
            "expect": [("plugins/foo.cpp", 8, "FooPlugin::enqueue -> launchFoo -> cudaMalloc")],
        },
        {
            "files": {"plugins/foo.cpp": _MEMBER_TEMPLATES},
            "expect": [("plugins/foo.cpp", 26, "FooPlugin::enqueue -> FooPlugin::dispatch -> FooPlugin::impl -> cudaMalloc")],
        },
        {
            # the `else` of a data-type test that does the work for the other accepted type is no failure branch
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    void* p = nullptr;\n    if (inputDesc[0].type == DataType::kFLOAT)\n    {\n        p = workspace;\n    }\n"
                "    else\n    {\n        cudaMalloc(&p, 16);\n    }")},
            "expect": [("plugins/foo.cpp", 22, "cudaMalloc (device allocation) allocates on the hot path of FooPlugin::enqueue")],
        },
        {
            # code still on TensorRT 7: an IPluginV2IOExt plugin, a helper taking a DimsCHW (removed in TensorRT 8;
            # the stand-in headers declare it, else the call would be dropped and its callee never followed)
            "files": {"plugins/old.cu": _TRT7_PLUGIN},
            "expect": [("plugins/old.cu", 7, "OldPlugin::enqueue -> prepare -> cudaMalloc")],
        },
        {
            # a null test on a local variable is no one-time guard: the allocation runs on every call
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    void* tmp = nullptr;\n    if (tmp == nullptr)\n    {\n        cudaMalloc(&tmp, 64);\n    }")},
            "expect": [("plugins/foo.cpp", 18, "cudaMalloc (device allocation) allocates on the hot path of FooPlugin::enqueue")],
        },
    ]

    VALID += [
        # the guarded block sets what its condition tests in a helper it calls: one-time set-up
        {"files": {"plugins/foo.cpp": plugin_cpp("    if (!gScratch)\n    {\n        setupScratch();\n    }",
                                                 "static void* gScratch = nullptr;\nstatic void setupScratch()\n{\n"
                                                 "    cudaMalloc(&gScratch, 1024);\n}")}},
        # ... or may set it: a project function defined in another file (not known, counted as setting a global flag)
        {"files": {"plugins/foo.cpp": plugin_cpp(
            "    if (!gReady)\n    {\n        initRuntime();\n        void* p = nullptr;\n        cudaMalloc(&p, 64);\n    }",
            "extern bool gReady;\nvoid initRuntime();")}},
    ]
    INVALID += [
        {
            # a test of a flag the block never sets is a configuration switch, not a one-time guard: the allocation
            # runs on every call
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    if (!gUseWorkspace)\n    {\n        void* p = nullptr;\n        cudaMalloc(&p, 16);\n    }",
                "static bool gUseWorkspace = false;")},
            "expect": [("plugins/foo.cpp", 18, "cudaMalloc (device allocation) allocates on the hot path of FooPlugin::enqueue: "
                                               "FooPlugin::enqueue -> cudaMalloc")],
        },
        {
            # a data-type dispatch written as an if-chain: each branch does the work for its type and returns its
            # status (`return status;`, `return 0;`): neither is a failure branch, so the allocations in both (and
            # in the launcher one of them calls) run on every call
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    if (inputDesc[0].type == DataType::kHALF)\n    {\n        int32_t status = launchHalf(outputs[0], stream);\n"
                "        return status;\n    }\n    else\n    {\n        void* p = nullptr;\n        cudaMalloc(&p, 16);\n"
                "        return 0;\n    }",
                "static int32_t launchHalf(void* out, cudaStream_t s)\n{\n    void* tmp = nullptr;\n"
                "    cudaError_t err = cudaMalloc(&tmp, 1024);\n    return err == cudaSuccess ? 0 : 1;\n}\n")},
            "expect": [
                ("plugins/foo.cpp", 8, "cudaMalloc (device allocation) allocates on the hot path of FooPlugin::enqueue: "
                                       "FooPlugin::enqueue -> launchHalf -> cudaMalloc"),
                ("plugins/foo.cpp", 29, "cudaMalloc (device allocation) allocates on the hot path of FooPlugin::enqueue: "
                                        "FooPlugin::enqueue -> cudaMalloc"),
            ],
        },
    ]

    INVALID += [
        {
            # a function template in a namespace, called from another with a dependent argument (the call names it
            # unqualified, as does a call whose declaration did not resolve), and explicitly instantiated
            "files": {"plugins/foo.cu": plugin_cpp(RUN_SCALE, ns_template_helpers("    void* p = nullptr; cudaMalloc(&p, 64);"))},
            "expect": [("plugins/foo.cu", 14, "FooPlugin::enqueue -> runScale -> launchScale -> cudaMalloc")],
        },
    ]

    INVALID += [
        {
            # a data-type dispatch written as a ternary, and one handed to a dispatch helper as a lambda: the walk
            # enters both branches of the one and the lambda's body of the other
            "files": {"plugins/foo.cpp": plugin_cpp(
                "    int32_t st = inputDesc[0].type == DataType::kHALF ? launchHalf(outputs[0]) : launchFloat(outputs[0]);\n"
                "    dispatchType(inputDesc[0].type, [&](int size) {\n        void* q = nullptr;\n        cudaMalloc(&q, size);\n    });",
                "static int32_t launchHalf(void* out)\n{\n    return 0;\n}\nstatic int32_t launchFloat(void* out)\n{\n"
                "    void* tmp = nullptr;\n    cudaMalloc(&tmp, 64);\n    return 0;\n}\ntemplate <typename F>\n"
                "void dispatchType(DataType t, F&& f)\n{\n    f(t == DataType::kHALF ? 2 : 4);\n}")},
            "expect": [
                ("plugins/foo.cpp", 12, "cudaMalloc (device allocation) allocates on the hot path of FooPlugin::enqueue: "
                                        "FooPlugin::enqueue -> launchFloat -> cudaMalloc"),
                ("plugins/foo.cpp", 32, "cudaMalloc (device allocation) allocates on the hot path of FooPlugin::enqueue: "
                                        "FooPlugin::enqueue -> cudaMalloc"),
            ],
        },
    ]

    VALID += [
        # the helper allocates only when it is given no workspace (the else of `if (workspace)`); it is given
        # enqueue's, carved and advanced by an offset helper, and the plugin asks for one: never null there
        {"files": {"plugins/foo.cpp": plugin_ws_cpp(ws_call(), WS_HELPERS)}},
    ]
    INVALID += [
        {
            # the same helper handed a null workspace: it allocates on every call
            "files": {"plugins/foo.cpp": plugin_ws_cpp(ws_call("nullptr"), WS_HELPERS)},
            "expect": [("plugins/foo.cpp", 18, "cudaMalloc (device allocation) allocates on the hot path of FooPlugin::enqueue: "
                                               "FooPlugin::enqueue -> groupNorm -> meanVar -> cudaMalloc")],
        },
        {
            # ... or a pointer that does not come from enqueue's workspace (a global, null here)
            "files": {"plugins/foo.cpp": plugin_ws_cpp(ws_call("gScratch"), WS_HELPERS)},
            "expect": [("plugins/foo.cpp", 18, "FooPlugin::enqueue -> groupNorm -> meanVar -> cudaMalloc")],
        },
        {
            # ... or enqueue's workspace, but the plugin asks for none (getWorkspaceSize returns 0): TensorRT may
            # hand it a null one
            "files": {"plugins/foo.cpp": plugin_ws_cpp(ws_call(), WS_HELPERS, "return 0;")},
            "expect": [("plugins/foo.cpp", 18, "FooPlugin::enqueue -> groupNorm -> meanVar -> cudaMalloc")],
        },
    ]

    VALID += [
        # a buffer to dump a tensor into only when a run-time debug switch is on (as for TRT302)
        {"files": {"plugins/foo.cpp": plugin_cpp("    syncAndCheck();", debug_switch_helper(
            "void* dump = nullptr; cudaMalloc(&dump, 16);"))}},
    ]
    INVALID += [
        {
            # ... but not one after the if: it runs on every call
            "files": {"plugins/foo.cpp": plugin_cpp("    syncAndCheck();", debug_switch_helper(
                after="void* dump = nullptr; cudaMalloc(&dump, 16);"))},
            "expect": [("plugins/foo.cpp", 22, "FooPlugin::enqueue -> syncAndCheck -> cudaMalloc")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for hit in hot_hits(index, "allocating"):
            if hit.temperature != "hot" or once_note(hit.call, hit.chain)[0] is not None:
                continue  # a warm method is where the Fix says to allocate; once, or only on release: not per inference
            yield hot_diag(self, hit, "allocates", index)
