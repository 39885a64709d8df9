// RUN: %check_clang_tidy %s libtorch-unregistered-buffer %t -- -- %mock_torch -I %S

#include <torch/torch.h>

// Each write of an unregistered member gets a note, so the user sees where
// the tensor is made.
struct TwoWritesImpl : torch::nn::Module {
  explicit TwoWritesImpl(bool wide) : scale(torch::ones({1})) {
    if (wide)
      scale = torch::ones({4});
  }
  torch::Tensor scale;
  // CHECK-NOTES: :[[@LINE-1]]:17: warning: tensor member 'scale' of module 'TwoWritesImpl' is never registered; module->to(device) leaves it behind and parameters(), buffers() and torch::save miss it; assign it from register_buffer() or register_parameter() [libtorch-unregistered-buffer]
  // CHECK-NOTES: :[[@LINE-6]]:45: note: 'scale' is initialised here, without registration
  // CHECK-NOTES: :[[@LINE-5]]:7: note: 'scale' is assigned here, without registration
};

struct FillImpl : torch::nn::Module {
  FillImpl() { parts.push_back(torch::zeros({2})); }
  std::vector<torch::Tensor> parts;
  // CHECK-NOTES: :[[@LINE-1]]:30: warning: member 'parts' of module 'FillImpl' holds tensors that are never registered
  // CHECK-NOTES: :[[@LINE-3]]:16: note: 'parts' is filled here, without registration
};

// A member declared in a header is reported at the constructor's write in
// the file analysed (editors show only the open file's diagnostics), with a
// note at the member.
#include "Inputs/unregistered-header-member.h"
HeaderImpl::HeaderImpl() {
  table = torch::zeros({4});
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: tensor member 'table' of module 'HeaderImpl' is never registered
  // CHECK-NOTES: unregistered-header-member.h:6:17: note: 'table' is declared here
}
// CHECK-FIXES: table = register_buffer("table", torch::zeros({4}));
