// RUN: %check_clang_tidy -check-suffixes=,DEFAULT %s libtorch-unregistered-buffer %t -- -- %mock_torch
// RUN: %check_clang_tidy -check-suffixes=,MOVED %s libtorch-unregistered-buffer %t -- -config="{CheckOptions: {libtorch-unregistered-buffer.IncludeMovedToInputDevice: true}}" -- %mock_torch

// A tensor member that every use moves to another tensor's device first
// cannot mix devices, whatever device the module is on: silent by default,
// reported with IncludeMovedToInputDevice (it is still missing from
// buffers() and torch::save).

#include <torch/torch.h>

struct MovedImpl : torch::nn::Module {
  MovedImpl() { P = torch::ones({4}); }
  torch::Tensor forward(torch::Tensor x) {
    return x * P.to(x.device()) + P.index({0}).to(x.options()) + P.to(x);
  }
  torch::Tensor P;
  // CHECK-MESSAGES-MOVED: :[[@LINE-1]]:17: warning: tensor member 'P' of module 'MovedImpl' is never registered
};

// One use on the module's own device is enough to mix them.
struct MixedImpl : torch::nn::Module {
  MixedImpl() { P = torch::ones({4}); }
  torch::Tensor forward(torch::Tensor x) { return x * P.to(x.device()) + P; }
  torch::Tensor P;
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'P' of module 'MixedImpl' is never registered
};
