#pragma once
#include "cuda_fp8.h"
struct __nv_fp4_e2m1 { unsigned char __x; };
