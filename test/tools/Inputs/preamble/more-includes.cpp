#include <torch/torch.h>
#include <string>
#include <vector>

struct MImpl : torch::nn::Module {
  MImpl() { names = std::vector<std::string>{"a"}; w = torch::ones({2}); }
  std::vector<std::string> names;
  torch::Tensor w;
};
