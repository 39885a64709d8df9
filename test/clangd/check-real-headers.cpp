// `torch-clangd --check` on a file that includes the real <torch/torch.h>:
// the libtorch checks report through clangd as they do through clang-tidy.
// REQUIRES: libtorch
// RUN: rm -rf %t && mkdir -p %t/xdg
// RUN: cp %s %t/model.cpp
// RUN: cp %S/Inputs/libtorch.clangd %t/.clangd
// RUN: %python %S/Inputs/compile_db.py %t %t/model.cpp %torch_includes
// RUN: env XDG_CONFIG_HOME=%t/xdg timeout 600 %torch_clangd --check=%t/model.cpp \
// RUN:   --check-warnings --check-locations=false 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='] Line'

#include <torch/torch.h>

struct TowerImpl : torch::nn::Module {
  TowerImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(16, 8));
    fc2 = torch::nn::Linear(8, 1);
    prior = torch::zeros({8});
  }
  torch::Tensor forward(torch::Tensor x) { return fc2(fc1(x) + prior); }

  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::Tensor prior;
};
TORCH_MODULE(Tower);

// CHECK: [libtorch-unregistered-submodule] Line 22: submodule 'fc2' of module 'TowerImpl' is never registered; {{.*}}; assign it from register_module()
// CHECK: [libtorch-unregistered-buffer] Line 23: tensor member 'prior' of module 'TowerImpl' is never registered; {{.*}}; assign it from register_buffer() or register_parameter()
// CHECK: All checks completed, 0 errors
