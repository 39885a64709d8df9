// Custom kernels behind ops.h, with one mistake of each kind.
#include "ops.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

__global__ void scale_kernel(const float *in, float *out, float factor,
                             int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = in[i] * factor;
}

__global__ void row_sums_kernel(const float *in, float *out, int64_t rows,
                                int64_t cols) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows)
    return;
  float s = 0;
  for (int64_t c = 0; c < cols; ++c)
    s += in[r * cols + c];
  out[r] = s;
}

__global__ void gather_rows_kernel(const float *in, const int64_t *ids,
                                   float *out, int64_t n, int64_t cols) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n * cols)
    out[i] = in[ids[i / cols] * cols + i % cols];
}

// An empty input gives a grid of 0 blocks: the launch fails, nothing reads
// the error, and the kernel runs on the legacy default stream.
torch::Tensor scale(const torch::Tensor &x, float factor) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous() &&
              x.scalar_type() == torch::kFloat);
  auto out = torch::empty_like(x);
  const int64_t n = x.numel();
  scale_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(),
                                         out.data_ptr<float>(), factor, n);
  return out;
}

// The output is made on the CPU, and the input is read through a transposed
// view as if it were dense.
torch::Tensor row_sums(const torch::Tensor &x) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 2);
  auto xt = x.t();
  auto out = torch::zeros({xt.size(0)});
  auto stream = at::cuda::getCurrentCUDAStream();
  row_sums_kernel<<<1, 256, 0, stream>>>(xt.data_ptr<float>(),
                                         out.data_ptr<float>(), xt.size(0),
                                         xt.size(1));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// The ids are made as 32-bit integers and read as 64-bit ones, and nothing
// checks that they are rows of x before the kernel reads in[ids[...]].
torch::Tensor gather_rows(const torch::Tensor &x, const torch::Tensor &ids) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous() && ids.is_cuda());
  auto ids32 = ids.to(torch::kInt).contiguous();
  auto out = torch::empty({ids32.numel(), x.size(1)}, x.options());
  auto stream = at::cuda::getCurrentCUDAStream();
  gather_rows_kernel<<<1, 256, 0, stream>>>(
      x.data_ptr<float>(), static_cast<const int64_t *>(ids32.data_ptr()),
      out.data_ptr<float>(), ids32.numel(), x.size(1));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// scale() on a stream of the caller's own, made LibTorch's current stream:
// from here on LibTorch's work and the legacy default stream are not ordered
// (what makes a launch on the default stream a race).
torch::Tensor scale_on_side_stream(const torch::Tensor &x, float factor) {
  cudaStream_t side;
  C10_CUDA_CHECK(cudaStreamCreate(&side));
  torch::Tensor out;
  {
    c10::cuda::CUDAStreamGuard guard(
        c10::cuda::getStreamFromExternal(side, x.device().index()));
    out = scale(x, factor);
  }
  C10_CUDA_CHECK(cudaStreamSynchronize(side));
  C10_CUDA_CHECK(cudaStreamDestroy(side));
  return out;
}
