#include <torch/torch.h>
struct CImpl : torch::nn::Module {
  CImpl() {
    first = register_module("first", torch::nn::Linear(2, 2));
    second = torch::nn::Linear(2, 2);
  }
  torch::nn::Linear first{nullptr}, second{nullptr};
};
