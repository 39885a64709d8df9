// RUN: %check_clang_tidy %s libtorch-cuda-in-dataset-get %t -- \
// RUN:   -config="{CheckOptions: {libtorch-cuda-in-dataset-get.MaxCallDepth: 2}}" \
// RUN:   -- %mock_torch

#include <torch/torch.h>

// MaxCallDepth bounds how many calls deep the walk goes from get().
torch::Tensor level3(const torch::Tensor &t) { return t.cuda(); }
torch::Tensor level2(const torch::Tensor &t) { return t.cuda() + 1.0; }
torch::Tensor via3(const torch::Tensor &t) { return level3(t); }
torch::Tensor via2a(const torch::Tensor &t) { return via3(t); }
torch::Tensor via2b(const torch::Tensor &t) { return level2(t); }

struct Deep : torch::data::datasets::Dataset<Deep> {
  torch::data::Example<> get(size_t i) override {
    auto a = via2a(x_); // three calls deep: past the limit
    auto b = via2b(x_); // two calls deep
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'via2b' does CUDA work ('cuda' moves a tensor to the GPU) in 'Deep::get'
    return {a + b, x_};
  }
  c10::optional<size_t> size() const override { return 1; }
  torch::Tensor x_;
};
