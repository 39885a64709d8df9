#include "model.h"

TowerImpl::TowerImpl() { scale = torch::ones({3}); }

struct HeadImpl : torch::nn::Module {
  HeadImpl() { fc = torch::nn::Linear(4, 2); }
  torch::nn::Linear fc{nullptr};
};
