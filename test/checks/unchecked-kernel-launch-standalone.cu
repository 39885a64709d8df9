// RUN: %check_clang_tidy %s libtorch-unchecked-kernel-launch %t -- -- %mock_torch %mock_cuda
// RUN: %check_clang_tidy -check-suffixes=,STREAM,CREATE %s libtorch-unchecked-kernel-launch %t -- -- %mock_torch %mock_cuda -DCREATES_STREAM
// RUN: %check_clang_tidy -check-suffixes=,STREAM,POOL %s libtorch-unchecked-kernel-launch %t -- -- %mock_torch %mock_cuda -DPOOL_STREAM
// RUN: %check_clang_tidy -check-suffixes=,STREAM,GUARD %s libtorch-unchecked-kernel-launch %t -- -- %mock_torch %mock_cuda -DSTREAM_GUARD

// A LibTorch program of its own (not built as a PyTorch extension, no op
// registration) that never runs work on a stream other than the default
// one: its launches on the default stream race with nothing, and are not
// reported, also when it includes <torch/extension.h> by habit
// (SchNet_LibTorch_CUDA's kernels). Once it creates a stream, takes one from
// LibTorch's pool or makes one current, they are, with a note there.

#include <ATen/cuda/CUDAContext.h>
#include <torch/extension.h>

__global__ void scale_kernel(float *x, int n) {}

void scale(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous());
  scale_kernel<<<1, 256>>>(x.data_ptr<float>(), 1);
  // CHECK-MESSAGES-STREAM: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' has no stream argument: it runs on the legacy default stream{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  scale_kernel<<<1, 256, 0, nullptr>>>(x.data_ptr<float>(), 1);
  // CHECK-MESSAGES-STREAM: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' passes a default stream{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

#ifdef CREATES_STREAM
void overlap(torch::Tensor x) {
  cudaStream_t side;
  cudaStreamCreate(&side);
  // CHECK-MESSAGES-CREATE: :[[@LINE-1]]:3: note: LibTorch may run on another stream when this file's kernels run: it creates a stream here: work on it and on the default stream is not ordered
  scale_kernel<<<1, 256, 0, side>>>(x.data_ptr<float>(), 1);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
#endif

#ifdef POOL_STREAM
void side_work(torch::Tensor x) {
  c10::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  // CHECK-MESSAGES-POOL: :[[@LINE-1]]:32: note: LibTorch may run on another stream when this file's kernels run: it uses another stream here ('c10::cuda::getStreamFromPool'): work on it and on the default stream is not ordered
  scale_kernel<<<1, 256, 0, side>>>(x.data_ptr<float>(), 1);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
#endif

#ifdef STREAM_GUARD
void guarded(torch::Tensor x, c10::cuda::CUDAStream s) {
  at::cuda::CUDAStreamGuard guard(s);
  // CHECK-MESSAGES-GUARD: :[[@LINE-1]]:29: note: LibTorch may run on another stream when this file's kernels run: it uses another stream here ('c10::cuda::CUDAStreamGuard'): work on it and on the default stream is not ordered
  scale_kernel<<<1, 256, 0, s>>>(x.data_ptr<float>(), 1);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
#endif
