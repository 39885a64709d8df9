#pragma once
#include <torch/torch.h>

// A submodule assigned in the constructor and never registered.
struct BlockImpl : torch::nn::Module {
  BlockImpl() { fc = torch::nn::Linear(4, 4); }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Block);
