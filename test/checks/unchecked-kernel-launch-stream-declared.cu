// RUN: %check_clang_tidy %s libtorch-unchecked-kernel-launch %t -- -- %mock_torch %mock_cuda -DTORCH_EXTENSION_NAME=example_ops

// An extension whose headers declare c10::cuda's current stream, which
// at::cuda names through the using-directive of c10/macros/Macros.h (as
// c10/cuda/CUDAStream.h leaves it): at::cuda::getCurrentCUDAStream() is
// declared, so the fix-it that passes it to a launch includes nothing.
#include <cstdlib>
#include <cuda_runtime.h>
// CHECK-FIXES: {{^}}#include <cstdlib>{{$}}
// CHECK-FIXES-NEXT: {{^}}#include <cuda_runtime.h>{{$}}
// CHECK-FIXES-NEXT: {{^}}//{{$}}

namespace c10 {
namespace cuda {
class CUDAStream {
public:
  operator cudaStream_t() const;
};
CUDAStream getCurrentCUDAStream(signed char device_index = -1);
} // namespace cuda
} // namespace c10
namespace at {
namespace cuda {
using namespace c10::cuda;
} // namespace cuda
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
