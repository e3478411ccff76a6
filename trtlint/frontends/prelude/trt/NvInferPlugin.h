#pragma once
// trtlint prelude: plugin library entry points.
#include "NvInfer.h"
#include "NvInferPluginUtils.h"

extern "C" TENSORRTAPI bool initLibNvInferPlugins(void* logger, char const* libNamespace);
