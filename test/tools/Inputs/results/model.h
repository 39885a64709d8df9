#pragma once
#include <torch/torch.h>

struct TowerImpl : torch::nn::Module {
  TowerImpl();
  torch::Tensor scale;
};
