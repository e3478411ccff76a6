#pragma once
#include "NvInferRuntimeBase.h"
#include "NvInferRuntimePlugin.h"
