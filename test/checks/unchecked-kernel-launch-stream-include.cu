// RUN: %check_clang_tidy %s libtorch-unchecked-kernel-launch %t -- -- %mock_torch %mock_cuda -DTORCH_EXTENSION_NAME=example_ops

// An extension whose headers declare LibTorch's tensor but not at::cuda's
// streams (the real <torch/extension.h> declares no
// at::cuda::getCurrentCUDAStream): the fix-it that passes the current stream
// to a launch also includes ATen/cuda/CUDAContext.h, with the system
// includes.
#include <cstdlib>
#include <cuda_runtime.h>
// CHECK-FIXES: {{^}}#include <ATen/cuda/CUDAContext.h>{{$}}

namespace at {
class Tensor {
public:
  template <typename T> T *data_ptr() const;
};
} // namespace at

__global__ void fill_kernel(float *x, int n) {}

void fill(const at::Tensor &x, int n) {
  fill_kernel<<<1, 256>>>(x.data_ptr<float>(), n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'fill_kernel' has no stream argument: it runs on the legacy default stream{{.*}}
  // CHECK-MESSAGES: note: LibTorch may run on another stream when this file's kernels run: TORCH_EXTENSION_NAME is defined on the command line{{.*}}
  // CHECK-FIXES: {{^}}  fill_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), n);{{$}}
  cudaGetLastError();
}
