#pragma once
#include <torch/torch.h>

struct BImplFromHeader : torch::nn::Module {
  BImplFromHeader();
  torch::Tensor v;
};
