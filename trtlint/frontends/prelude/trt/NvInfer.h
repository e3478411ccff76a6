#pragma once
// trtlint prelude: builder-side API (only what plugin code touches).
#include "NvInferRuntime.h"

namespace nvinfer1
{
class INetworkDefinition;
class IBuilder;
class IBuilderConfig;
class ITensor;
class ILayer;
} // namespace nvinfer1
