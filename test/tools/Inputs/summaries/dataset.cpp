#include "loading.h"

namespace data = torch::data;

// CUDA work two files away: load_row (loading.cpp) calls on_gpu (device.cpp).
struct Rows : data::datasets::Dataset<Rows> {
  data::Example<> get(size_t i) override {
    auto x = load_row(table_, static_cast<int64_t>(i));
    return {x, labels_[i]};
  }
  c10::optional<size_t> size() const override { return 10; }
  torch::Tensor table_, labels_;
};

// scale (loading.cpp) stays on the CPU: nothing to say.
struct Scaled : data::datasets::Dataset<Scaled> {
  data::Example<> get(size_t i) override {
    return {scale(table_[i], 2.0), labels_[i]};
  }
  c10::optional<size_t> size() const override { return 10; }
  torch::Tensor table_, labels_;
};

// Not a data hook: the training loop may move data to the GPU.
torch::Tensor batch_for_training(const torch::Tensor &t) { return on_gpu(t); }
