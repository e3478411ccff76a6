#pragma once
// trtlint prelude: half precision type (host view).
#include "cuda_runtime_api.h"
struct __half
{
    unsigned short __x;
    __half() = default;
    __host__ __device__ __half(float f);
    __host__ __device__ __half(double f);
    __host__ __device__ __half(int i);
    __host__ __device__ operator float() const;
    __host__ __device__ __half& operator+=(const __half&);
    __host__ __device__ __half& operator*=(const __half&);
};
struct __half2 { __half x, y; };
typedef __half half;
typedef __half2 half2;
__host__ __device__ __half __float2half(float);
__host__ __device__ __half __float2half_rn(float);
__host__ __device__ float __half2float(__half);
// (cuda_fp16.hpp's own conversion of a half's bits, called directly by some host code)
__host__ __device__ float __internal_half2float(const unsigned short h);
__host__ __device__ __half2 __float2half2_rn(float);
__host__ __device__ __half2 __floats2half2_rn(float, float);
__host__ __device__ float2 __half22float2(__half2);
__host__ __device__ __half __hadd(__half, __half);
__host__ __device__ __half __hmul(__half, __half);
__host__ __device__ __half2 __hadd2(__half2, __half2);
__host__ __device__ __half2 __hmul2(__half2, __half2);
__host__ __device__ __half operator+(const __half&, const __half&);
__host__ __device__ __half operator-(const __half&, const __half&);
__host__ __device__ __half operator*(const __half&, const __half&);
__host__ __device__ __half operator/(const __half&, const __half&);
struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x, y; };
