// Stand-in for c10/cuda/CUDAException.h: the launch-check macros, as
// LibTorch 1.13 defines them.
#pragma once
#include <cuda_runtime_api.h>
#include <torch/torch.h>

#define C10_CUDA_CHECK(EXPR)                                                   \
  do {                                                                         \
    const cudaError_t __err = EXPR;                                            \
    TORCH_CHECK(__err == cudaSuccess, cudaGetErrorString(__err));              \
  } while (0)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
