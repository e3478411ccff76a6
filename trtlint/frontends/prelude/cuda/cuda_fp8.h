#pragma once
#include "cuda_bf16.h"
struct __nv_fp8_e4m3 { unsigned char __x; __nv_fp8_e4m3() = default; __host__ __device__ __nv_fp8_e4m3(float); __host__ __device__ operator float() const; };
struct __nv_fp8_e5m2 { unsigned char __x; __nv_fp8_e5m2() = default; __host__ __device__ __nv_fp8_e5m2(float); __host__ __device__ operator float() const; };
