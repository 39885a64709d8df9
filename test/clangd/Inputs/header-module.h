#pragma once
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl();
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::Tensor mask;
};
TORCH_MODULE(Net);
