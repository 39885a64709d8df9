#include <torch/torch.h>
#include "not_written_yet.h"

struct BImpl : torch::nn::Module {
  BImpl() { w = torch::ones({2}); }
  torch::Tensor w;
};
