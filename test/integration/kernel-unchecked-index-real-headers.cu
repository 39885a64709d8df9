// libtorch-kernel-unchecked-index on a .cu file with the real LibTorch and
// CUDA headers (clang's CUDA mode, host side): the real atomicAdd, __ldg,
// CUDA_KERNEL_ASSERT, AT_DISPATCH_FLOATING_TYPES, packed accessors and
// at::cuda::detail::TensorInfo, and a TORCH_CHECK on the index before the
// launch.
// REQUIRES: cuda-toolkit
// RUN: %check_clang_tidy %s libtorch-kernel-unchecked-index %t -- -- %cuda_host -std=c++17 %torch_includes -DTORCH_EXTENSION_NAME=ext
// RUN: %check_clang_tidy %s libtorch-kernel-unchecked-index %t -- -- %cuda_host -std=c++17 %torch_includes -DTORCH_EXTENSION_NAME=ext -DNDEBUG

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/detail/IndexUtils.cuh>
#include <ATen/cuda/detail/TensorInfo.cuh>
#include <torch/torch.h>

// A scatter-add through TensorInfo, as extensions write it.
template <typename scalar_t>
__global__ void scatter_add_kernel(
    const scalar_t *src, at::cuda::detail::TensorInfo<int64_t, int> index,
    scalar_t *out, int n, int k) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const int64_t row = index.data[i / k];
  atomicAdd(out + row * k + i % k, src[i]);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'out + row * k + i % k' indexes 'out' with 'row', a value read from 'index'{{.*}} [libtorch-kernel-unchecked-index]
  // CHECK-MESSAGES: :[[@LINE-3]]:23: note: the index value is read here from 'index', a parameter of the kernel that holds a pointer to them
  // CHECK-MESSAGES: :[[@LINE+11]]:39: note: the launch passes 'index_info' for it
}

torch::Tensor scatter_add(const torch::Tensor &src, const torch::Tensor &index,
                          int64_t rows) {
  auto out = torch::zeros({rows, src.size(1)}, src.options());
  auto index_info = at::cuda::detail::getTensorInfo<int64_t, int>(index);
  const int n = src.numel(), k = src.size(1);
  AT_DISPATCH_FLOATING_TYPES(src.scalar_type(), "scatter_add", [&] {
    scatter_add_kernel<scalar_t>
        <<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
            src.data_ptr<scalar_t>(), index_info, out.data_ptr<scalar_t>(), n,
            k);
  });
  return out;
}

// Guarded in the kernel, by CUDA_KERNEL_ASSERT (compiled out with NDEBUG on
// some platforms: its arguments still count) and by an early return.
__global__ void gather_kernel(const float *table, const int64_t *ids,
                              float *out, int64_t n, int64_t rows) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n)
    return;
  const int64_t id = __ldg(ids + i);
  CUDA_KERNEL_ASSERT(id >= 0 && id < rows);
  out[i] = table[id];
}

// Guarded on the host before the only launch.
__global__ void lookup_kernel(const float *table, const int64_t *ids,
                              float *out, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = table[ids[i]];
}

torch::Tensor lookup(const torch::Tensor &table, const torch::Tensor &ids) {
  TORCH_CHECK(ids.min().item<int64_t>() >= 0 &&
              ids.max().item<int64_t>() < table.numel());
  auto out = torch::empty({ids.numel()}, table.options());
  lookup_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      table.data_ptr<float>(), ids.data_ptr<int64_t>(),
      out.data_ptr<float>(), ids.numel());
  return out;
}

// The CPU twin through an accessor, inside AT_DISPATCH.
void scatter_add_cpu(const torch::Tensor &src, const torch::Tensor &index,
                     torch::Tensor &out) {
  auto idx = index.accessor<int64_t, 1>();
  AT_DISPATCH_FLOATING_TYPES(src.scalar_type(), "scatter_add_cpu", [&] {
    auto s = src.accessor<scalar_t, 2>();
    auto o = out.accessor<scalar_t, 2>();
    for (int64_t i = 0; i < s.size(0); ++i)
      for (int64_t c = 0; c < s.size(1); ++c)
        o[idx[i]][c] += s[i][c];
    // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'o[idx[i]]' indexes 'o' with 'idx[i]', a value read from 'idx', and nothing bounds it in a loop over raw storage{{.*}} [libtorch-kernel-unchecked-index]
    // CHECK-MESSAGES: :[[@LINE-2]]:11: note: the index value is read here from 'idx'
  });
}
