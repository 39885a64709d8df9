/* Another comment: the preamble is the same #include line, so b.cpp shares
   a.cpp's entry. */
#include <torch/torch.h>

struct BImpl : torch::nn::Module {
  BImpl() { fc = torch::nn::Linear(2, 2); }
  torch::nn::Linear fc{nullptr};
};
