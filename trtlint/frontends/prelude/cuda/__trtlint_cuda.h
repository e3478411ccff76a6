// trtlint prelude: force-included into every .cu translation unit (parsed with -nocudainc).
#pragma once
#include "cuda_runtime.h"
