#include "model.h"

DecoderImpl::DecoderImpl(const Settings &settings) : settings_(settings) {
  where = register_module(
      "where", torch::nn::Embedding(settings.window, settings.width));
}

torch::Tensor DecoderImpl::forward(torch::Tensor tokens) {
  const int64_t n = tokens.size(1);
  return where(torch::arange(n));
}

TaggerImpl::TaggerImpl(int64_t tags, int64_t span) : span_(span) {
  where = register_module("where", torch::nn::Embedding(span_, 8));
}

torch::Tensor TaggerImpl::forward(torch::Tensor tokens) {
  return where(torch::arange(tokens.size(1)));
}

ShortImpl::ShortImpl() {
  where = register_module("where", torch::nn::Embedding(32, 8));
}

torch::Tensor ShortImpl::forward(torch::Tensor tokens) {
  return where(torch::arange(tokens.size(1)));
}

SafeImpl::SafeImpl() {
  where = register_module("where", torch::nn::Embedding(32, 8));
}

torch::Tensor SafeImpl::forward(torch::Tensor tokens) {
  TORCH_CHECK(tokens.size(1) <= 32, "too long");
  return where(torch::arange(tokens.size(1)));
}
