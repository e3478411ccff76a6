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
// precision flags as of TensorRT 10 (TensorRT 11 removed kFP16/kINT8/kBF16/kFP8: networks are strongly typed)
enum class BuilderFlag : int32_t
{
    kFP16 = 0, kINT8 = 1, kDEBUG = 2, kGPU_FALLBACK = 3, kREFIT = 4, kDISABLE_TIMING_CACHE = 5, kTF32 = 6,
    kSPARSE_WEIGHTS = 7, kOBEY_PRECISION_CONSTRAINTS = 9, kPREFER_PRECISION_CONSTRAINTS = 10, kFP8 = 15,
    kBF16 = 17, kINT4 = 21, kMONITOR_MEMORY = 24
};
using BuilderFlags = uint32_t;
enum class PreviewFeature : int32_t { kALIASED_PLUGIN_IO_10_03 = 0, kRUNTIME_ACTIVATION_RESIZE_10_10 = 1 };
class IBuilderConfig
{
public:
    virtual void setFlag(BuilderFlag builderFlag) noexcept = 0;
    virtual bool getFlag(BuilderFlag builderFlag) const noexcept = 0;
    virtual void setFlags(BuilderFlags builderFlags) noexcept = 0;
    virtual BuilderFlags getFlags() const noexcept = 0;
    virtual void setPreviewFeature(PreviewFeature feature, bool enable) noexcept = 0;
    virtual bool getPreviewFeature(PreviewFeature feature) const noexcept = 0;
    virtual ~IBuilderConfig() noexcept = default;
};
class ITensor;
class ILayer;
} // namespace nvinfer1
