#include <ATen/cuda/CUDAContext.h>
#include <torch/extension.h>

__global__ void copy_kernel(const float *a, float *r, int n) {}

template <typename T> __global__ void fill_kernel(T *x, T v, int n) {}

// 'operator<< <T>' names a template's specialization: not a launch.
struct Log {};
template <typename T> int operator<<(Log l, T v) { return 0; }
int logged() { return operator<< <int>(Log{}, 2); }

void copy(torch::Tensor a, torch::Tensor result) {
  int numel = a.numel();
  copy_kernel << <(numel + 255) / 256, 256 >> > (a.data_ptr<float>(), result.data_ptr<float>(), numel);
}

// Spaced '< <<' and '> > >', the configuration over two lines with a
// template's brackets in it: on the current stream and checked, so nothing
// is reported.
void fill(torch::Tensor a) {
  int numel = a.numel();
  fill_kernel<float> < << dim3(1), std::min<int>(numel, 256),
      0, at::cuda::getCurrentCUDAStream() > > > (a.data_ptr<float>(), 1.f, numel);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
