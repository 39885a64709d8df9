#pragma once
#include <torch/torch.h>

struct HeaderImpl : torch::nn::Module {
  HeaderImpl();
  torch::Tensor table;
};
