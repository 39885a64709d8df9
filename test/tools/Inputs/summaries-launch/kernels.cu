#include <ATen/cuda/CUDAContext.h>
#include <torch/extension.h>

#include "kernels.h"

__global__ void scale_kernel(float *x, int64_t n) {}
__global__ void gather_kernel(const float *table, const int64_t *ids,
                              float *out, int64_t n) {}

void scale_launcher(float *x, int64_t n) {
  scale_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void gather_launcher(const float *table, const int64_t *ids, float *out,
                     int64_t n) {
  gather_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(table, ids,
                                                                  out, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void fill_host(float *x, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    x[i] = 0;
}
