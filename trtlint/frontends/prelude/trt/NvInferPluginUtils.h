#pragma once
// trtlint prelude: parameter structs of the standard plugins are not modelled.
#include "NvInferRuntimeBase.h"
