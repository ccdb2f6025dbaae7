// The GPU runtime argus-runner is built against: CUDA (nvcc, an sm90
// artifact's kernels.cu), or HIP (hipcc with ARGUS_RUNNER_HIP, a gfx942
// artifact's kernels.hip built for the host only, its code object loaded
// through HIP's module API). The runner is written against the CUDA names it
// uses; under HIP they name HIP's equivalents, which take the same arguments.
#pragma once

#if defined(ARGUS_RUNNER_HIP)
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#define cudaDeviceProp hipDeviceProp_t
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaError_t hipError_t
#define cudaEventCreate hipEventCreate
#define cudaEventDestroy hipEventDestroy
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaEventRecord hipEventRecord
#define cudaEvent_t hipEvent_t
#define cudaFree hipFree
#define cudaGetDevice hipGetDevice
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaGetErrorString hipGetErrorString
#define cudaGetLastError hipGetLastError
#define cudaMalloc hipMalloc
#define cudaMemGetInfo hipMemGetInfo
#define cudaMemcpy hipMemcpy
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemset hipMemset
#define cudaSuccess hipSuccess
#define ARGUS_GPU_RUNTIME "HIP"
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#define ARGUS_GPU_RUNTIME "CUDA"
#endif
