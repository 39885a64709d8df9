#include <torch/torch.h>

struct Settings {
  int64_t vocab = 100;
  int64_t window = 64;
  int64_t width = 16;
};

// Rows from a config struct the constructor keeps.
struct DecoderImpl : torch::nn::Module {
  explicit DecoderImpl(const Settings &settings);
  torch::Tensor forward(torch::Tensor tokens);
  torch::Tensor extend(torch::Tensor tokens, int64_t steps);
  torch::Tensor extend_unbounded(torch::Tensor tokens, int64_t steps);
  torch::nn::Embedding where{nullptr};
  Settings settings_;
};
TORCH_MODULE(Decoder);

// Rows from a member the constructor sets from a parameter.
struct TaggerImpl : torch::nn::Module {
  TaggerImpl(int64_t tags, int64_t span);
  torch::Tensor forward(torch::Tensor tokens);
  torch::nn::Embedding where{nullptr};
  int64_t span_;
};
TORCH_MODULE(Tagger);

// A constant number of rows.
struct ShortImpl : torch::nn::Module {
  ShortImpl();
  torch::Tensor forward(torch::Tensor tokens);
  torch::nn::Embedding where{nullptr};
};
TORCH_MODULE(Short);

// Relates the length to the rows itself: no caller's business.
struct SafeImpl : torch::nn::Module {
  SafeImpl();
  torch::Tensor forward(torch::Tensor tokens);
  torch::nn::Embedding where{nullptr};
};
TORCH_MODULE(Safe);
