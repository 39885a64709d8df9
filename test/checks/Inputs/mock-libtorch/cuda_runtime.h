// Stand-in for the CUDA runtime as clang's CUDA mode sees it on the host side
// (__clang_cuda_runtime_wrapper.h and cuda_runtime.h): what a `.cu` file of
// a LibTorch extension uses. Tests parse with -nocudainc, so no toolkit is
// needed: clang resolves `kernel<<<...>>>` through cudaConfigureCall (no
// CUDA version known) or __cudaPushCallConfiguration (CUDA 9.2 and later).
#pragma once
#include "cuda_runtime_api.h"

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __restrict__ __restrict

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1)
      : x(vx), y(vy), z(vz) {}
};
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;

extern "C" {
cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim,
                              size_t sharedMem = 0, cudaStream_t stream = 0);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                     size_t sharedMem = 0,
                                     cudaStream_t stream = 0);
}

#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
