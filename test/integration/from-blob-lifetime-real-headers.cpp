// libtorch-from-blob-lifetime on the real LibTorch headers: at::from_blob
// and its deleter overload, torch::data::Example, Tensor::to(Device) and
// to(ScalarType), register_buffer of torch::nn::Module.
// RUN: %check_clang_tidy %s libtorch-from-blob-lifetime %t -- -- %torch_includes

#include <torch/torch.h>

#include <vector>

class Samples : public torch::data::datasets::Dataset<Samples> {
public:
  torch::data::Example<> get(size_t index) override {
    std::vector<float> pixels(3 * 4 * 4, static_cast<float>(index));
    return {torch::from_blob(pixels.data(), {3, 4, 4}), torch::tensor(1)};
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: tensor from 'from_blob' over 'pixels' (a local 'std::vector<float>') is returned (inside a {{.*}}) without a copy
    // CHECK-FIXES: return {torch::from_blob(pixels.data(), {3, 4, 4}).clone(), torch::tensor(1)};
  }
  c10::optional<size_t> size() const override { return 4; }
};

struct Net : torch::nn::Module {
  Net(torch::Device d) {
    float init[4] = {0, 1, 2, 3};
    table_ = register_buffer("table", torch::from_blob(init, {4}).to(d));
    // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: tensor from 'from_blob' over 'init' (a local array) is {{.*}} without a copy
  }
  torch::Tensor table_;
};

// Not reported.
torch::Tensor copied() {
  std::vector<float> v(4);
  return torch::from_blob(v.data(), {4}).clone();
}
torch::Tensor owned(int64_t n) {
  auto *p = new float[n];
  return torch::from_blob(p, {n}, [](void *q) { delete[] static_cast<float *>(q); });
}
torch::Tensor onGpu() {
  std::vector<float> v(4);
  return torch::from_blob(v.data(), {4}).to(torch::kCUDA);
}
