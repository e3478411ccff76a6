#pragma once
// trtlint prelude: builder-side API (only what plugin code touches).
#include "NvInferRuntime.h"

namespace nvinfer1
{
enum class OptProfileSelector : int32_t { kMIN = 0, kOPT = 1, kMAX = 2 };
class IOptimizationProfile
{
public:
    virtual bool setDimensions(char const* inputName, OptProfileSelector select, Dims const& dims) noexcept = 0;
    virtual Dims getDimensions(char const* inputName, OptProfileSelector select) const noexcept = 0;
    virtual ~IOptimizationProfile() noexcept = default;
};
class INetworkDefinition;
class IBuilder;
class IBuilderConfig;
class ITensor;
class ILayer;
} // namespace nvinfer1
