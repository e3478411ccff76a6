#pragma once
// trtlint prelude: plugin base types.
#include "NvInferRuntimeBase.h"

namespace nvinfer1
{
enum class PluginFieldType : int32_t
{
    kFLOAT16 = 0, kFLOAT32 = 1, kFLOAT64 = 2, kINT8 = 3, kINT16 = 4, kINT32 = 5, kCHAR = 6, kDIMS = 7,
    kUNKNOWN = 8, kBF16 = 9, kINT64 = 10, kFP8 = 11, kINT4 = 12, kFP4 = 13
};

class PluginField
{
public:
    AsciiChar const* name;
    void const* data;
    PluginFieldType type;
    int32_t length;
    PluginField(AsciiChar const* const name_ = nullptr, void const* const data_ = nullptr,
        PluginFieldType const type_ = PluginFieldType::kUNKNOWN, int32_t const length_ = 0) noexcept
        : name(name_), data(data_), type(type_), length(length_)
    {
    }
};

struct PluginFieldCollection
{
    int32_t nbFields{};
    PluginField const* fields{};
};

enum class TensorRTPhase : int32_t { kBUILD = 0, kRUNTIME = 1 };
enum class PluginCapabilityType : int32_t { kCORE = 0, kBUILD = 1, kRUNTIME = 2 };

class IPluginCapability : public IVersionedInterface
{
};

class IPluginResource : public IVersionedInterface
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"IPluginResource", 1, 0}; }
    virtual int32_t release() noexcept = 0;
    virtual IPluginResource* clone() noexcept = 0;
};

class IPluginCreatorInterface : public IVersionedInterface
{
};

class IPluginV3 : public IVersionedInterface
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN", 1, 0}; }
    virtual IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept = 0;
    virtual IPluginV3* clone() noexcept = 0;
};
} // namespace nvinfer1
