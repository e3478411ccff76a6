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
