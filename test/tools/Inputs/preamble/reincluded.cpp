#include <reincluded.h>
#include <torch/torch.h>

struct RImpl : torch::nn::Module {
  RImpl() { w = torch::ones({TWICE(1)}); }
  torch::Tensor w;
};
