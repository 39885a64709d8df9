// RUN: %check_clang_tidy %s libtorch-unchecked-kernel-launch %t -- -- %mock_torch %mock_cuda -DTORCH_EXTENSION_NAME=example_ops

// A file that launches a kernel without the header that defines LibTorch's
// launch check: the fix-it that writes the check after the launch also
// includes c10/cuda/CUDAException.h, with the system includes (LibTorch's
// headers are a library's).
#include <torch/torch.h>
#include <cuda_runtime.h>
// CHECK-FIXES: {{^}}#include <c10/cuda/CUDAException.h>{{$}}

__global__ void shift_kernel(const float *in, float *out, int n) {}

at::Tensor shift(const at::Tensor &a, cudaStream_t stream) {
  TORCH_CHECK(a.is_cuda());
  at::Tensor in = a.contiguous();
  at::Tensor out = at::empty(in.sizes(), in.options());
  int numel = in.numel();
  shift_kernel<<<(numel + 255) / 256, 256, 0, stream>>>(
      in.data_ptr<float>(), out.data_ptr<float>(), numel);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: kernel launch of 'shift_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'in.numel()', which is 0 for an empty tensor{{.*}}
  // CHECK-FIXES: {{^}}      in.data_ptr<float>(), out.data_ptr<float>(), numel);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  C10_CUDA_KERNEL_LAUNCH_CHECK();{{$}}
  return out;
}
