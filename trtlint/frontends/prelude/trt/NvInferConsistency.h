#pragma once
// trtlint prelude: the consistency checker's plugin interface (TensorRT's safety runtime). A plugin checker is a
// plugin creator that also validates a serialized plugin, registered like any creator.
#include "NvInferRuntime.h"

namespace nvinfer1
{
namespace consistency
{
class IPluginChecker : public IPluginCreator
{
public:
    virtual bool validate(char const* name, void const* serialData, size_t serialLength, PluginTensorDesc const* in,
                          size_t nbInputs, PluginTensorDesc const* out, size_t nbOutputs,
                          int64_t workspaceSize) const noexcept
    {
        return true;
    }
    IPluginChecker() = default;
    ~IPluginChecker() override = default;
};
} // namespace consistency
} // namespace nvinfer1
