#define BEFORE_ANY_INCLUDE 1
#include <torch/torch.h>
struct CImpl : torch::nn::Module {
  CImpl() { c = torch::ones({1}); }
  torch::Tensor c;
};
