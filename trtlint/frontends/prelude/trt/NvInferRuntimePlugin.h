#pragma once
// trtlint prelude: legacy (V2) plugin interfaces.
#include "NvInferRuntimeBase.h"
#include "NvInferPluginBase.h"

namespace nvinfer1
{
struct PluginTensorDesc
{
    Dims dims;
    DataType type;
    TensorFormat format;
    float scale;
};

enum class PluginVersion : uint8_t { kV2 = 0, kV2_EXT = 1, kV2_IOEXT = 2, kV2_DYNAMICEXT = 3, kV2_DYNAMICEXT_PYTHON = 4 };
enum class PluginCreatorVersion : int32_t { kV1 = 0, kV1_PYTHON = 1 };

class IGpuAllocator;

class IPluginV2
{
public:
    virtual int32_t getTensorRTVersion() const noexcept { return NV_TENSORRT_VERSION; }
    virtual AsciiChar const* getPluginType() const noexcept = 0;
    virtual AsciiChar const* getPluginVersion() const noexcept = 0;
    virtual int32_t getNbOutputs() const noexcept = 0;
    virtual Dims getOutputDimensions(int32_t index, Dims const* inputs, int32_t nbInputDims) noexcept = 0;
    virtual bool supportsFormat(DataType type, PluginFormat format) const noexcept = 0;
    virtual void configureWithFormat(Dims const* inputDims, int32_t nbInputs, Dims const* outputDims,
        int32_t nbOutputs, DataType type, PluginFormat format, int32_t maxBatchSize) noexcept = 0;
    virtual int32_t initialize() noexcept = 0;
    virtual void terminate() noexcept = 0;
    virtual size_t getWorkspaceSize(int32_t maxBatchSize) const noexcept = 0;
    virtual int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void* workspace,
        cudaStream_t stream) noexcept = 0;
    virtual size_t getSerializationSize() const noexcept = 0;
    virtual void serialize(void* buffer) const noexcept = 0;
    virtual void destroy() noexcept = 0;
    virtual IPluginV2* clone() const noexcept = 0;
    virtual void setPluginNamespace(AsciiChar const* pluginNamespace) noexcept = 0;
    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;
    virtual ~IPluginV2() noexcept = default;
};

class IPluginV2Ext : public IPluginV2
{
public:
    virtual DataType getOutputDataType(int32_t index, DataType const* inputTypes, int32_t nbInputs) const noexcept = 0;
    virtual bool isOutputBroadcastAcrossBatch(int32_t outputIndex, bool const* inputIsBroadcasted,
        int32_t nbInputs) const noexcept { return false; }
    virtual bool canBroadcastInputAcrossBatch(int32_t inputIndex) const noexcept { return false; }
    virtual void configurePlugin(Dims const* inputDims, int32_t nbInputs, Dims const* outputDims, int32_t nbOutputs,
        DataType const* inputTypes, DataType const* outputTypes, bool const* inputIsBroadcast,
        bool const* outputIsBroadcast, PluginFormat floatFormat, int32_t maxBatchSize) noexcept {}
    virtual void attachToContext(cudnnContext*, cublasContext*, IGpuAllocator*) noexcept {}
    virtual void detachFromContext() noexcept {}
    IPluginV2Ext* clone() const noexcept override = 0;
    // (TensorRT 8-10 declare the broadcast pair and the legacy configurePlugin pure; TensorRT 11 removes the
    // broadcast pair. Defaults here, so a plugin written for either release is not abstract under the prelude.)

protected:
    // as in TensorRT: IPluginV2Ext overrides these two of IPluginV2, so a plugin need not define them
    int32_t getTensorRTVersion() const noexcept override
    {
        return static_cast<int32_t>((static_cast<uint32_t>(PluginVersion::kV2_EXT) << 24U)
            | (static_cast<uint32_t>(NV_TENSORRT_VERSION) & 0xFFFFFFU));
    }
    void configureWithFormat(Dims const*, int32_t, Dims const*, int32_t, DataType, PluginFormat,
        int32_t) noexcept override {}
};

class IPluginV2IOExt : public IPluginV2Ext
{
public:
    virtual void configurePlugin(
        PluginTensorDesc const* in, int32_t nbInput, PluginTensorDesc const* out, int32_t nbOutput) noexcept = 0;
    virtual bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) const noexcept = 0;

protected:
    int32_t getTensorRTVersion() const noexcept override
    {
        return static_cast<int32_t>((static_cast<uint32_t>(PluginVersion::kV2_IOEXT) << 24U)
            | (static_cast<uint32_t>(NV_TENSORRT_VERSION) & 0xFFFFFFU));
    }

private:
    // as in TensorRT 8-10: the legacy methods this interface replaces are final here, so a plugin implementing
    // the IOExt methods is not abstract
    void configurePlugin(Dims const*, int32_t, Dims const*, int32_t, DataType const*, DataType const*, bool const*,
        bool const*, PluginFormat, int32_t) noexcept final {}
    bool supportsFormat(DataType, PluginFormat) const noexcept final { return false; }
};

class IPluginCreator : public IPluginCreatorInterface
{
public:
    virtual AsciiChar const* getPluginName() const noexcept = 0;
    virtual AsciiChar const* getPluginVersion() const noexcept = 0;
    virtual PluginFieldCollection const* getFieldNames() noexcept = 0;
    virtual IPluginV2* createPlugin(AsciiChar const* name, PluginFieldCollection const* fc) noexcept = 0;
    virtual IPluginV2* deserializePlugin(AsciiChar const* name, void const* serialData, size_t serialLength) noexcept = 0;
    virtual void setPluginNamespace(AsciiChar const* pluginNamespace) noexcept = 0;
    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN CREATOR_V1", 1, 0}; }
};

class IPluginRegistry
{
public:
    virtual bool registerCreator(IPluginCreator& creator, AsciiChar const* const pluginNamespace) noexcept = 0;
    virtual IPluginCreator* getPluginCreator(AsciiChar const* const pluginName, AsciiChar const* const pluginVersion,
        AsciiChar const* const pluginNamespace = "") noexcept = 0;
    virtual bool registerCreator(IPluginCreatorInterface& creator, AsciiChar const* const pluginNamespace) noexcept = 0;
    virtual IPluginCreatorInterface* getCreator(AsciiChar const* const pluginName, AsciiChar const* const pluginVersion,
        AsciiChar const* const pluginNamespace = "") noexcept = 0;
    virtual bool deregisterCreator(IPluginCreatorInterface const& creator) noexcept = 0;
};
} // namespace nvinfer1
