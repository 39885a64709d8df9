// RUN: %check_clang_tidy %s libtorch-unregistered-submodule,libtorch-unregistered-buffer %t -- -- %mock_torch

// A member registered and then replaced by a new value in the same building
// code: the module's children or buffers keep the registered one, the
// member holds another (pytorch-cpp-rl's ObservationNormalizer did this).

#include <torch/torch.h>

#include <vector>

struct StatsImpl : torch::nn::Module {
  explicit StatsImpl(int64_t n) { mean = register_buffer("mean", torch::zeros({n})); }
  torch::Tensor forward(torch::Tensor x) { return x - mean; }
  torch::Tensor mean;
};
TORCH_MODULE(Stats);

struct NormalizerImpl : torch::nn::Module {
  NormalizerImpl(int64_t n, bool merged)
      : clip(register_buffer("clip", torch::ones({1}))),
        rms(register_module("rms", Stats(1))) {
    rms = Stats(n);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: submodule 'rms' of module 'NormalizerImpl' is registered, then replaced here by a module that is not: children(), parameters(), module->to(device) and torch::save reach the registered one, and the member holds another; register the new one with replace_module() [libtorch-unregistered-submodule]
    // CHECK-FIXES: {{^}}    rms = replace_module("rms", Stats(n));{{$}}
    clip = torch::full({1}, 5.0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor member 'clip' of module 'NormalizerImpl' is registered, then replaced here by a tensor that is not: buffers(), module->to(device) and torch::save reach the registered one, and the member holds another; write into it in place (copy_) or register the new one [libtorch-unregistered-buffer]
  }
  torch::Tensor forward(torch::Tensor x) { return rms(x) * clip; }
  torch::Tensor clip;
  Stats rms{nullptr};
};

// Replaced outside the building code: in any member function (an update
// step, forward), not only after the registration in the constructor.
struct RunningImpl : torch::nn::Module {
  RunningImpl() {
    mean = register_buffer("mean", torch::zeros({4}));
    head = register_module("head", torch::nn::Linear(4, 4));
  }
  void update(torch::Tensor x) {
    mean = mean * 0.9 + x * 0.1;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor member 'mean' of module 'RunningImpl' is registered, then replaced here by a tensor that is not: buffers(), module->to(device) and torch::save reach the registered one, and the member holds another; write into it in place (copy_) [libtorch-unregistered-buffer]
  }
  void grow() {
    head = torch::nn::Linear(4, 8);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: submodule 'head' of module 'RunningImpl' is registered, then replaced here by a module that is not: children(), parameters(), module->to(device) and torch::save reach the registered one, and the member holds another; register the new one with replace_module() [libtorch-unregistered-submodule]
  }
  torch::Tensor forward(torch::Tensor x) { return head(x - mean); }
  torch::Tensor mean;
  torch::nn::Linear head{nullptr};
};

// Not replaced: written before it is registered, an alias of what is
// registered, an in-place update, a conversion of the member itself in
// another function (its values stay the registered ones).
struct FineImpl : torch::nn::Module {
  FineImpl() {
    head = torch::nn::Linear(4, 2);
    head = register_module("head", head);
    auto layer = torch::nn::Linear(4, 4);
    body = register_module("body", torch::nn::Linear(2, 2));
    register_module("layer", layer);
    body = layer;
    scale = register_buffer("scale", torch::ones({1}));
    scale.masked_fill_(scale > 1, 1);
    scale.fill_(2);
  }
  void reload(torch::Tensor x) {
    scale.copy_(torch::ones({1}));
    scale = scale.to(x.device());
    head = nullptr;
  }
  torch::nn::Linear head{nullptr}, body{nullptr};
  torch::Tensor scale;
};
