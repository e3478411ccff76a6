#pragma once
#include "cuda_bf16.h"
struct __nv_fp8_e4m3 { unsigned char __x; __nv_fp8_e4m3() = default; __host__ __device__ __nv_fp8_e4m3(float); __host__ __device__ operator float() const; };
struct __nv_fp8_e5m2 { unsigned char __x; __nv_fp8_e5m2() = default; __host__ __device__ __nv_fp8_e5m2(float); __host__ __device__ operator float() const; };
struct __nv_fp8x2_e4m3 { unsigned short __x; };
struct __nv_fp8x4_e4m3 { unsigned int __x; };
struct __nv_fp8x2_e5m2 { unsigned short __x; };
struct __nv_fp8x4_e5m2 { unsigned int __x; };
typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;
