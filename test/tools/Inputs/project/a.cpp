#include <torch/torch.h>
struct AImpl : torch::nn::Module {
  AImpl() { mask = torch::ones({3}); }
  torch::Tensor mask;
};
