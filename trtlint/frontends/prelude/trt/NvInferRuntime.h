#pragma once
// trtlint prelude: runtime API and V3 plugin interfaces.
#include "NvInferRuntimeBase.h"
#include "NvInferRuntimePlugin.h"
#include "NvInferPluginBase.h"

namespace nvinfer1
{
class Weights
{
public:
    DataType type;
    void const* values;
    int64_t count;
};

class IHostMemory
{
public:
    virtual ~IHostMemory() noexcept = default;
    virtual void* data() const noexcept = 0;
    virtual std::size_t size() const noexcept = 0;
    virtual DataType type() const noexcept = 0;
};

enum class DimensionOperation : int32_t
{
    kSUM = 0, kPROD = 1, kMAX = 2, kMIN = 3, kSUB = 4, kEQUAL = 5, kLESS = 6, kFLOOR_DIV = 7, kCEIL_DIV = 8
};

class IDimensionExpr
{
public:
    virtual bool isConstant() const noexcept = 0;
    virtual int64_t getConstantValue() const noexcept = 0;
    virtual bool isSizeTensor() const noexcept = 0;
    virtual ~IDimensionExpr() noexcept = default;
};

class IExprBuilder
{
public:
    virtual IDimensionExpr const* constant(int64_t value) noexcept = 0;
    virtual IDimensionExpr const* operation(
        DimensionOperation op, IDimensionExpr const& first, IDimensionExpr const& second) noexcept = 0;
    virtual IDimensionExpr const* declareSizeTensor(
        int32_t outputIndex, IDimensionExpr const& opt, IDimensionExpr const& upper) noexcept = 0;
    virtual ~IExprBuilder() noexcept = default;
};

class DimsExprs
{
public:
    int32_t nbDims;
    IDimensionExpr const* d[Dims::MAX_DIMS];
};

struct DynamicPluginTensorDesc
{
    PluginTensorDesc desc;
    Dims min;
    Dims max;
    Dims opt;
};

class IPluginV2DynamicExt : public IPluginV2Ext
{
public:
    IPluginV2DynamicExt* clone() const noexcept override = 0;
    virtual DimsExprs getOutputDimensions(
        int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder) noexcept = 0;
    static constexpr int32_t kFORMAT_COMBINATION_LIMIT = 100;
    virtual bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept = 0;
    virtual void configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs,
        DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept = 0;
    virtual size_t getWorkspaceSize(PluginTensorDesc const* inputs, int32_t nbInputs, PluginTensorDesc const* outputs,
        int32_t nbOutputs) const noexcept = 0;
    virtual int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept = 0;

protected:
    int32_t getTensorRTVersion() const noexcept override
    {
        return (static_cast<int32_t>(PluginVersion::kV2_DYNAMICEXT) << 24 | (NV_TENSORRT_VERSION & 0xFFFFFF));
    }

private:
    // as in TensorRT 8-10: the implicit-batch methods of IPluginV2/IPluginV2Ext are final here, so a plugin
    // implementing the DynamicExt methods is not abstract (without these, clang drops every `new` of it)
    void configurePlugin(Dims const*, int32_t, Dims const*, int32_t, DataType const*, DataType const*, bool const*,
        bool const*, PluginFormat, int32_t) noexcept final {}
    bool supportsFormat(DataType, PluginFormat) const noexcept final { return false; }
    Dims getOutputDimensions(int32_t, Dims const*, int32_t) noexcept final { return Dims{-1, {}}; }
    bool isOutputBroadcastAcrossBatch(int32_t, bool const*, int32_t) const noexcept final { return false; }
    bool canBroadcastInputAcrossBatch(int32_t) const noexcept final { return false; }
    size_t getWorkspaceSize(int32_t) const noexcept final { return 0; }
    int32_t enqueue(int32_t, void const* const*, void* const*, void*, cudaStream_t) noexcept final { return 1; }
};

class IPluginResourceContext
{
public:
    virtual IGpuAllocator* getGpuAllocator() const noexcept = 0;
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
    virtual ~IPluginResourceContext() noexcept = default;
};

class IPluginV3OneCore : public IPluginCapability
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN_V3ONE_CORE", 1, 0}; }
    virtual AsciiChar const* getPluginName() const noexcept = 0;
    virtual AsciiChar const* getPluginVersion() const noexcept = 0;
    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;
};

class IPluginV3OneBuild : public IPluginCapability
{
public:
    static constexpr int32_t kDEFAULT_FORMAT_COMBINATION_LIMIT = 100;
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN_V3ONE_BUILD", 1, 0}; }
    virtual int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs,
        DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept = 0;
    virtual int32_t getOutputDataTypes(
        DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes, int32_t nbInputs) const noexcept = 0;
    virtual int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs, IExprBuilder& exprBuilder) noexcept = 0;
    virtual bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept = 0;
    virtual int32_t getNbOutputs() const noexcept = 0;
    virtual size_t getWorkspaceSize(DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
        DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept { return 0; }
    virtual int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept { return 0; }
    virtual int32_t getNbTactics() noexcept { return 0; }
    virtual char const* getTimingCacheID() noexcept { return nullptr; }
    virtual int32_t getFormatCombinationLimit() noexcept { return kDEFAULT_FORMAT_COMBINATION_LIMIT; }
    virtual char const* getMetadataString() noexcept { return nullptr; }
};

class IPluginV3OneRuntime : public IPluginCapability
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN_V3ONE_RUNTIME", 1, 0}; }
    virtual int32_t setTactic(int32_t tactic) noexcept { return 0; }
    virtual int32_t onShapeChange(
        PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out, int32_t nbOutputs) noexcept = 0;
    virtual int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept = 0;
    virtual IPluginV3* attachToContext(IPluginResourceContext* context) noexcept = 0;
    virtual PluginFieldCollection const* getFieldsToSerialize() noexcept = 0;
};

class IPluginV3OneBuildV2 : public IPluginV3OneBuild
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN_V3ONE_BUILD", 2, 0}; }
    virtual int32_t getAliasedInput(int32_t outputIndex) noexcept { return -1; }
};

// TensorRT 10 declares the build interfaces in versioned namespaces: IPluginV3OneBuildV2 is an alias of
// v_2_0::IPluginV3OneBuild, and code may name either spelling
namespace v_2_0
{
using IPluginV3OneBuild = nvinfer1::IPluginV3OneBuildV2;
} // namespace v_2_0

class IPluginCreatorV3One : public IPluginCreatorInterface
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN CREATOR_V3ONE", 1, 0}; }
    virtual IPluginV3* createPlugin(
        AsciiChar const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept = 0;
    virtual PluginFieldCollection const* getFieldNames() noexcept = 0;
    virtual AsciiChar const* getPluginName() const noexcept = 0;
    virtual AsciiChar const* getPluginVersion() const noexcept = 0;
    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;
};

class IRuntime;
class ICudaEngine;
class IExecutionContext;
} // namespace nvinfer1

extern "C" TENSORRTAPI nvinfer1::IPluginRegistry* getPluginRegistry() noexcept;
extern "C" TENSORRTAPI nvinfer1::ILogger* getLogger() noexcept;

namespace nvinfer1
{
template <typename T>
class PluginRegistrar
{
public:
    PluginRegistrar() { getPluginRegistry()->registerCreator(instance, ""); }

private:
    T instance{};
};
} // namespace nvinfer1

#define REGISTER_TENSORRT_PLUGIN(name) static nvinfer1::PluginRegistrar<name> pluginRegistrar##name {}
