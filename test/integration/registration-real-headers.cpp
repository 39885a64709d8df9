// The registration checks on the real LibTorch headers: real holders,
// Cloneable, TORCH_MODULE, Sequential and ModuleList, and the fix-its.
// RUN: %check_clang_tidy %s 'libtorch-unregistered-buffer,libtorch-unregistered-submodule' %t -- -- %torch_includes

#include <torch/torch.h>

struct EncoderImpl : torch::nn::Cloneable<EncoderImpl> {
  explicit EncoderImpl(int64_t vocab) : vocab(vocab) { reset(); }
  void reset() override {
    embed = register_module("embed", torch::nn::Embedding(vocab, 16));
    proj = torch::nn::Linear(16, 16);
    positions = torch::arange(512);
    scale = register_parameter("scale", torch::ones({1}));
    layers = register_module("layers", torch::nn::ModuleList());
  }
  torch::Tensor forward(torch::Tensor ids) { return proj(embed(ids)) * scale; }

  int64_t vocab;
  torch::nn::Embedding embed{nullptr};
  torch::nn::Linear proj{nullptr};
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: submodule 'proj' of module 'EncoderImpl' is never registered; the optimizer, module->to(device), torch::save and eval() do not reach its parameters and state; assign it from register_module() [libtorch-unregistered-submodule]
  torch::Tensor positions;
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'positions' of module 'EncoderImpl' is never registered; module->to(device) leaves it behind and parameters(), buffers() and torch::save miss it; assign it from register_buffer() or register_parameter() [libtorch-unregistered-buffer]
  torch::Tensor scale;
  torch::nn::ModuleList layers{nullptr};
  torch::Tensor last_ids; // written by forward() callers: a cache
};
TORCH_MODULE(Encoder);
// CHECK-FIXES: proj = register_module("proj", torch::nn::Linear(16, 16));
// CHECK-FIXES: positions = register_buffer("positions", torch::arange(512));

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl() {
    encoder = register_module("encoder", Encoder(1000));
    head = torch::nn::Sequential(torch::nn::Linear(16, 8), torch::nn::ReLU(),
                                 torch::nn::Linear(8, 2));
    act = torch::nn::ReLU();
  }
  Encoder encoder{nullptr};
  torch::nn::Sequential head{nullptr};
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: submodule 'head' of module 'ClassifierImpl' is never registered
  torch::nn::ReLU act{nullptr}; // stateless: not reported by default
};
// CHECK-FIXES: head = register_module("head", torch::nn::Sequential(torch::nn::Linear(16, 8), torch::nn::ReLU(),
