#include <torch/torch.h>
struct BImpl : torch::nn::Module {
  BImpl() { w = register_parameter("w", torch::ones({3})); }
  torch::Tensor w;
};
