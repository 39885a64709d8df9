// libtorch-unchecked-kernel-launch on a .cu file with the real LibTorch and
// CUDA headers (clang's CUDA mode, host side, lib/cuda-compat's stand-ins):
// the real C10_CUDA_KERNEL_LAUNCH_CHECK, AT_DISPATCH_FLOATING_TYPES,
// packed accessors and getCurrentCUDAStream, and the runtime shim's
// TORCHTIDY_CHECK_KERNEL_ARG / TORCHTIDY_CHECK_LAUNCH both as the calls they
// expand to in debug builds and as what they become under NDEBUG.
// REQUIRES: cuda-toolkit
// RUN: %check_clang_tidy %s libtorch-unchecked-kernel-launch %t -- -- %cuda_host -std=c++17 %torch_includes -isystem %runtime_include
// RUN: %check_clang_tidy %s libtorch-unchecked-kernel-launch %t -- -- %cuda_host -std=c++17 %torch_includes -isystem %runtime_include -DNDEBUG
// The evidence of another stream from LibTorch's own c10::cuda (a stream of
// its pool made current with a guard) instead of cudaStreamCreate: the same
// findings, with the note at the guard's pool stream.
// RUN: %check_clang_tidy %s libtorch-unchecked-kernel-launch %t -- -- %cuda_host -std=c++17 %torch_includes -isystem %runtime_include -DPOOL_STREAM
// RUN: %torch_tidy --checks='-*,libtorch-unchecked-kernel-launch' %s -- %cuda_host -std=c++17 %torch_includes -isystem %runtime_include -DPOOL_STREAM 2>&1 | FileCheck %s --check-prefix=POOL-NOTE

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <torch/torch.h>
#include <torchtidy/check.h>

template <typename scalar_t>
__global__ void scale_kernel(scalar_t *x, int64_t n) {}
template <typename scalar_t>
__global__ void rows_kernel(
    torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> x) {}

// The tutorial pattern: the grid from the input's size, no stream, no check.
torch::Tensor rows(torch::Tensor x) {
  const int N = x.size(0);
  const dim3 threads(256);
  const dim3 blocks((N + threads.x - 1) / threads.x);
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "rows", ([&] {
    rows_kernel<scalar_t><<<blocks, threads>>>(
        x.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>());
  }));
  // CHECK-MESSAGES: :[[@LINE-3]]:5: warning: kernel launch of 'rows_kernel' has no stream argument: it runs on the legacy default stream{{.*}}
  // CHECK-MESSAGES: :[[@LINE-4]]:5: warning: kernel launch of 'rows_kernel' is not checked: {{.*}}the grid's x dimension is computed from 'x.size(0)', which is 0 for an empty tensor{{.*}}
  return x;
}

// A CPU tensor's pointer in a kernel.
void to_host(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous());
  auto host = torch::zeros({8});
  auto stream = at::cuda::getCurrentCUDAStream();
  scale_kernel<float><<<1, 8, 0, stream>>>(host.data_ptr<float>(), 8);
  // CHECK-MESSAGES: :[[@LINE-1]]:44: warning: 'host.data_ptr<float>()' passes the storage of 'host' to kernel 'scale_kernel', but 'host' is a CPU tensor{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// A view with the dispatch's scalar_t over a tensor of a fixed dtype, given
// by the legacy type object or by the real options setter (which takes an
// optional dtype): every copy of the lambda for another dtype throws.
void fixed_dtype_in_dispatch(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous());
  at::Tensor y = at::zeros({8}, torch::CUDA(at::kFloat));
  auto z = torch::zeros({8}, x.options().dtype(torch::kFloat));
  auto same = torch::zeros({8}, x.options());
  auto stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_ALL_TYPES(x.scalar_type(), "fill", [&] {
    scale_kernel<scalar_t><<<1, 8, 0, stream>>>(y.data<scalar_t>(), 8);
    // CHECK-MESSAGES: :[[@LINE-1]]:49: warning: 'y.data<scalar_t>()' asks for elements of the type that the dispatch on 'x' picks, but 'y' holds Float values: whenever 'x' is not Float it throws 'expected scalar type' before the launch{{.*}}
    scale_kernel<scalar_t><<<1, 8, 0, stream>>>(z.data_ptr<scalar_t>(), 8);
    // CHECK-MESSAGES: :[[@LINE-1]]:49: warning: 'z.data_ptr<scalar_t>()' asks for elements of the type that the dispatch on 'x' picks, but 'z' holds Float values{{.*}}
    scale_kernel<scalar_t><<<1, 8, 0, stream>>>(same.data_ptr<scalar_t>(), 8);
    scale_kernel<scalar_t><<<1, 8, 0, stream>>>(x.data_ptr<scalar_t>(), 8);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  // Checked to be float: only the float copy runs.
  TORCH_CHECK(x.scalar_type() == at::kFloat);
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "fill", [&] {
    scale_kernel<scalar_t><<<1, 8, 0, stream>>>(y.data_ptr<scalar_t>(), 8);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// Checked with the real macros and the shim's twins: silent in both builds.
void checked(torch::Tensor x) {
  TORCHTIDY_CHECK_KERNEL_ARG(x, torch::kFloat);
  const int64_t n = x.numel();
  auto stream = at::cuda::getCurrentCUDAStream();
  scale_kernel<float><<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  scale_kernel<float><<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  TORCHTIDY_CHECK_LAUNCH();
  auto y = torch::zeros({8}).cuda();
  scale_kernel<float><<<(n + 255) / 256, 256, 0, stream>>>(y.data_ptr<float>(), n);
  AT_CUDA_CHECK(cudaGetLastError());
}

// The shim's check proves what the factory does not: no CPU finding.
void checked_host(torch::Tensor x) {
  auto host = torch::zeros({8});
  TORCHTIDY_CHECK_KERNEL_ARG(host, torch::kFloat);
  scale_kernel<float><<<1, 8, 0, at::cuda::getCurrentCUDAStream()>>>(
      host.data_ptr<float>(), 8);
  TORCHTIDY_CHECK_LAUNCH();
}

// The evidence that LibTorch's current stream can be another one (a stream
// the program creates), without which the default-stream launches above
// race with nothing and are not reported.
#ifdef POOL_STREAM
#include <c10/cuda/CUDAGuard.h>
void side_stream(torch::Tensor x) {
  c10::cuda::CUDAStreamGuard guard(at::cuda::getStreamFromPool());
  // POOL-NOTE: unchecked-kernel-launch-real-headers.cu:[[@LINE-1]]:{{[0-9]+}}: note: LibTorch may run on another stream when this file's kernels run: it uses another stream here ('c10::cuda::CUDAStreamGuard'): work on it and on the default stream is not ordered
  x.mul_(2);
}
#else
void side_stream() {
  cudaStream_t side;
  C10_CUDA_CHECK(cudaStreamCreate(&side));
  C10_CUDA_CHECK(cudaStreamDestroy(side));
}
#endif
