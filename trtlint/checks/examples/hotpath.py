"""Example building blocks for the hot-path rules (TRT3xx): a plugin with a given enqueue body."""

from __future__ import annotations


def plugin_cpp(enqueue_body: str, helpers: str = "") -> str:
    """A V3 plugin whose enqueue calls ``enqueue_body``; line 1 is the include."""
    return f"""#include <NvInferRuntime.h>
#include <cuda_runtime.h>
#include <vector>
using namespace nvinfer1;
{helpers}
class FooPlugin : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime
{{
public:
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
}};
int32_t FooPlugin::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{{
{enqueue_body}
    return 0;
}}
"""


def ns_template_helpers(top: str, stream: str = ", 0, stream") -> str:
    """Launch helpers that are function templates in a namespace: ``ops::runScale`` calls ``launchScale`` (explicitly
    instantiated) with a dependent argument, so the call names it unqualified; ``top`` is the first statement of
    ``launchScale`` (line 14 of :func:`plugin_cpp`'s file), whose launch (line 15) passes ``stream``."""
    return f"""namespace ops
{{
template <typename T>
__global__ void scaleKernel(T* x)
{{
}}
template <typename T>
void launchScale(T* x, cudaStream_t stream)
{{
{top}
    scaleKernel<T><<<1, 256{stream}>>>(x);
}}
template void launchScale<float>(float* x, cudaStream_t stream);
template <typename T>
void runScale(T* x, cudaStream_t stream)
{{
    launchScale(x, stream);
}}
}} // namespace ops"""


RUN_SCALE = "    ops::runScale(static_cast<float*>(outputs[0]), stream);"


def plugin_ws_cpp(enqueue_body: str, helpers: str = "", workspace: str = "return 2 * 1024 + 128;") -> str:
    """:func:`plugin_cpp` with a ``getWorkspaceSize`` whose body is ``workspace`` (the plugin asks for a workspace,
    so TensorRT hands ``enqueue`` a non-null one)."""
    return plugin_cpp(enqueue_body, helpers).replace(
        "public:\n", "public:\n    size_t getWorkspaceSize(DynamicPluginTensorDesc const* inputs, int32_t nbInputs,\n"
        "        DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override\n    {\n"
        f"        {workspace}\n    }}\n", 1)


# a helper that allocates its own buffer when it is given no workspace (`if (workspace) ... else cudaMalloc`, and
# frees it after under `workspace == nullptr`), reached through one that carves enqueue's workspace and advances it
# with an offset helper: with a workspace from enqueue the allocation and the free never run
WS_HELPERS = """static void* nextWorkspace(void* ptr, size_t bytes)
{
    return static_cast<char*>(ptr) + (bytes + 255) / 256 * 256;
}
static void meanVar(float* dst, int n, void* workspace, cudaStream_t stream)
{
    float* tmp = nullptr;
    if (workspace)
    {
        tmp = static_cast<float*>(workspace);
    }
    else
    {
        cudaMalloc(&tmp, n * sizeof(float));
    }
    if (n > 1 && workspace == nullptr)
    {
        cudaFree(tmp);
    }
}
static void groupNorm(float* out, int n, void* workspace, cudaStream_t stream)
{
    float* mean = static_cast<float*>(workspace);
    workspace = nextWorkspace(workspace, n * sizeof(float));
    meanVar(mean, n, workspace, stream);
}
static void* gScratch = nullptr;"""


def ws_call(arg: str = "workspace") -> str:
    """The enqueue body handing ``arg`` to :data:`WS_HELPERS`' ``groupNorm`` as its workspace."""
    return f"    groupNorm(static_cast<float*>(outputs[0]), 64, {arg}, stream);"


def debug_switch_helper(branch: str = "cudaDeviceSynchronize();", other: str = "", after: str = "") -> str:
    """A ``syncAndCheck`` helper whose ``branch`` runs only when the environment variable ``APP_DEBUG_LEVEL`` is
    ``DEBUG`` (a run-time debug switch: frontends/cpp/debugswitch.py); ``other`` is its ``else`` branch, ``after``
    what follows the ``if``. The helper is lines 5-23 of :func:`plugin_cpp`'s file: ``branch`` on line 15, ``other``
    on line 19, ``after`` on line 22; enqueue's body starts on line 33."""
    return f"""#include <cstdlib>
#include <string>
inline void syncAndCheck()
{{
    static char const* levelName = std::getenv("APP_DEBUG_LEVEL");
    if (levelName != nullptr)
    {{
        static std::string level = std::string(levelName);
        if (level == "DEBUG")
        {{
            {branch}
        }}
        else
        {{
            {other}
        }}
    }}
    {after}
}}"""


# the local under `#ifndef NDEBUG` (helper DS): a debug build compiles `checkError = true`, a release build the `#else`
_DEBUG_ARM_LOCAL = """#ifndef NDEBUG
    bool const checkError = true;
#else
    bool const checkError = {release};
#endif"""


def debug_arm_local_helper(release: str = "isLaunchBlocking()", decl: str = "",
                           branch: str = "cudaDeviceSynchronize();") -> str:
    """A ``syncAndCheck`` helper whose ``branch`` runs under ``if (checkError)``: ``checkError`` a local
    declared ``true`` in the arm of ``#ifndef NDEBUG`` and ``release`` in its ``#else`` (or, given, the declaration
    ``decl`` instead, outside any arm); frontends/cpp/debugvalues.py. ``isLaunchBlocking()`` reads
    CUDA_LAUNCH_BLOCKING (CUDA's debugging switch), ``isSyncAll()`` the same way APP_SYNC_ALL (a configuration
    switch), ``isFlagSet()`` returns a global flag. With :func:`plugin_cpp`, ``branch`` is on line 38."""
    head = decl or _DEBUG_ARM_LOCAL.format(release=release)
    pad = "\n" * (_DEBUG_ARM_LOCAL.count("\n") - decl.count("\n")) if decl else ""  # (the sync's line stays)
    return f"""#include <cstdlib>
#include <string>
inline bool isLaunchBlocking()
{{
    static bool firstCall = true;
    static bool result = false;
    if (firstCall)
    {{
        char const* env = std::getenv("CUDA_LAUNCH_BLOCKING");
        result = env != nullptr && std::string(env) == "1";
        firstCall = false;
    }}
    return result;
}}
inline bool isSyncAll()
{{
    char const* env = std::getenv("APP_SYNC_ALL");
    return env != nullptr && std::string(env) == "1";
}}
static bool gFlag = false;
inline bool isFlagSet()
{{
    return gFlag;
}}
inline void syncAndCheck()
{{
{head}{pad}
    if (checkError)
    {{
        {branch}
    }}
}}"""
