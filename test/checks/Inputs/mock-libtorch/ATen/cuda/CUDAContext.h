// Stand-in for ATen/cuda/CUDAContext.h: the current stream (declared with
// c10::cuda in torch/torch.h's stand-in) and the launch checks.
#pragma once
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>
#include <torch/torch.h>

#define AT_CUDA_CHECK(EXPR) C10_CUDA_CHECK(EXPR)
