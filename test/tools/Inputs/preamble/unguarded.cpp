#include <helpers.h>

struct UImpl : torch::nn::Module {
  UImpl() { w = torch::ones({twice(1)}); }
  torch::Tensor w;
};
