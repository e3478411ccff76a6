#pragma once
#include "NvInfer.h"
