#pragma once
#include <torch/torch.h>

// A module whose sample() defaults to a fixed device; defined in sampler.cpp.
struct SamplerImpl : torch::nn::Module {
  SamplerImpl();
  torch::Tensor sample(int64_t n, torch::Device device = torch::kCUDA);
  torch::Tensor scale;
};
TORCH_MODULE(Sampler);
