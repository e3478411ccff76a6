#pragma once
// trtlint prelude: CUDA runtime.
#include "cuda_runtime_api.h"
#include "driver_types.h"
#include "vector_types.h"
#include "device_launch_parameters.h"

#if defined(__CUDA__)
extern "C" unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0, cudaStream_t stream = 0);
extern "C" cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream);
#endif

#if defined(__CUDA__)
__device__ void __syncthreads();
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ void __threadfence();
__device__ unsigned __activemask();
template <class T> __device__ T __shfl_sync(unsigned mask, T var, int srcLane, int width = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = 32);
template <class T> __device__ T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32);
template <class T> __device__ T __ldg(const T* ptr);
template <class T> __device__ T atomicAdd(T* address, T val);
template <class T> __device__ T atomicMax(T* address, T val);
template <class T> __device__ T atomicMin(T* address, T val);
template <class T> __device__ T atomicCAS(T* address, T compare, T val);
template <class T> __device__ T atomicExch(T* address, T val);
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float rsqrtf(float);
__device__ float __fdividef(float, float);
__device__ int __float2int_rn(float);
__device__ float __int2float_rn(int);
#endif
