// Reached with <...> through -I: not a system header, so a preamble that
// includes it is not precompiled and its class is checked in each file.
#pragma once
#include <torch/torch.h>
struct UserLibImpl : torch::nn::Module {
  UserLibImpl() { u = torch::ones({1}); }
  torch::Tensor u;
};
