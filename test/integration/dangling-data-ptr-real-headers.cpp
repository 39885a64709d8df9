// libtorch-dangling-data-ptr on the real LibTorch headers: data_ptr<T>() of
// TensorBase, to(ScalarType/Device) through TensorOptions, operator+ of
// at::Tensor, accessors of named locals (those of a temporary are deleted).
// RUN: %check_clang_tidy %s libtorch-dangling-data-ptr %t -- -- %torch_includes

#include <torch/torch.h>

#include <fstream>
#include <string>

// The known bug of koba-jon/pytorch_cpp's DAGMM save_params.
void save_params(const std::string &path, torch::Tensor mu, torch::Tensor phi) {
  long int nk = mu.size(0);
  float *mu_array, *phi_array;
  mu_array = mu.to(torch::kCPU).data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'data_ptr' of a temporary tensor that 'to' may have freshly allocated is kept in 'mu_array', but the temporary is freed at the end of the statement: 'mu_array' then reads freed memory (on CUDA an illegal memory access, or silently another tensor's data); bind the tensor to a named torch::Tensor first [libtorch-dangling-data-ptr]
  // CHECK-FIXES: torch::Tensor mu_cpu = mu.to(torch::kCPU);
  // CHECK-FIXES-NEXT: mu_array = mu_cpu.data_ptr<float>();
  phi_array = (phi + 1).data_ptr<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'data_ptr' of a temporary tensor that 'add' allocated is kept in 'phi_array'
  std::ofstream ofs(path, std::ios::binary | std::ios::out);
  for (long int i = 0; i < nk; i++) {
    ofs.write((char *)&mu_array[i], sizeof(mu_array[i]));
    ofs.write((char *)&phi_array[i], sizeof(phi_array[i]));
  }
}

float sumOfScope(torch::Tensor x) {
  float s = 0;
  float *p;
  {
    torch::Tensor c = x.contiguous().to(torch::kFloat);
    auto a = c.accessor<float, 1>();
    s += a[0];
    p = c.data_ptr<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'data_ptr' of 'c' is kept in 'p', which is used after 'c' goes out of scope and frees its storage
  }
  return s + p[1];
}

// Not reported.
float firstValue(torch::Tensor x) { return x.cpu().data_ptr<float>()[0]; }
float named(torch::Tensor x) {
  torch::Tensor c = x.cpu();
  float *p = c.data_ptr<float>();
  auto a = c.accessor<float, 1>();
  return p[0] + a[1];
}
