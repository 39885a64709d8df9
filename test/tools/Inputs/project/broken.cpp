#include <torch/torch.h>
struct BrokenImpl : torch::nn::Module {
  BrokenImpl() { mask = torch::ones({3}) }
  torch::Tensor mask;
};
