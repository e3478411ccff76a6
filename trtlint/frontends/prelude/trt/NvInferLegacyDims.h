#pragma once
#include "NvInferRuntimeBase.h"
