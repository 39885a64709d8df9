// NOLINT and NOLINTNEXTLINE silence a finding at the field, as with every
// clang-tidy check.
// RUN: %check_clang_tidy %s 'libtorch-unregistered-buffer,libtorch-unregistered-submodule' %t -- -- %mock_torch

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() {
    a = torch::zeros({1});
    b = torch::zeros({1});
    c = torch::zeros({1});
    fc = torch::nn::Linear(2, 2);
  }
  torch::Tensor a; // NOLINT(libtorch-unregistered-buffer)
  // NOLINTNEXTLINE(libtorch-*)
  torch::Tensor b;
  torch::Tensor c; // NOLINT(libtorch-unregistered-submodule): the wrong check
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'c' of module 'NetImpl' is never registered
  torch::nn::Linear fc{nullptr}; // NOLINT
};
