// RUN: %check_clang_tidy %s libtorch-unregistered-submodule %t -- \
// RUN:   -config="{CheckOptions: {libtorch-unregistered-submodule.IncludeStateless: true}}" \
// RUN:   -- %mock_torch

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() { pool = torch::nn::MaxPool2d(2); }
  torch::nn::ReLU relu;
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: submodule 'relu' of module 'NetImpl' is never registered
  torch::nn::MaxPool2d pool{nullptr};
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: submodule 'pool' of module 'NetImpl' is never registered
  torch::nn::ReLU registered = register_module("registered", torch::nn::ReLU());
  torch::Tensor forward(torch::Tensor x) { return relu(x); }
};
// CHECK-FIXES: NetImpl() { pool = register_module("pool", torch::nn::MaxPool2d(2)); }
