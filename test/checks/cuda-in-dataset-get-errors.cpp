// A translation unit that does not compile is not analysed: the code the
// check would follow may be missing.
// RUN: %python %S/../tools/Inputs/exit_status.py 1 %clang_tidy --checks='-*,libtorch-cuda-in-dataset-get' %s -- -std=c++17 %mock_torch 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='warning:'
// CHECK: error: use of undeclared identifier 'undeclared'

#include <torch/torch.h>

struct Broken : torch::data::datasets::Dataset<Broken> {
  torch::data::Example<> get(size_t i) override {
    undeclared(i);
    return {x_.cuda(), x_};
  }
  c10::optional<size_t> size() const override { return 1; }
  torch::Tensor x_;
};
