// A license header, then the includes the cache serves.
#include <torch/torch.h>

struct AImpl : torch::nn::Module {
  AImpl() { w = torch::ones({2}); }
  torch::Tensor w;
};
