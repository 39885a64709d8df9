#include "model.h"

torch::Tensor next_of(const torch::Tensor &out) { return out.argmax(-1); }

// The object is a parameter: its rows cannot be named here, and nothing
// bounds the length at all.
torch::Tensor sample(Decoder &decoder, torch::Tensor tokens, int64_t steps) {
  for (int64_t i = 0; i < steps; ++i) {
    auto out = decoder->forward(tokens);
    tokens = torch::cat({tokens, next_of(out)}, 1);
  }
  return tokens;
}

// A window of the tokens is passed, never the growing tensor: silent.
torch::Tensor sample_window(Decoder &decoder, torch::Tensor tokens,
                            int64_t window) {
  for (int64_t i = 0; i < 100; ++i) {
    auto last = tokens.size(1) <= window ? tokens : tokens.slice(1, -window);
    auto out = decoder->forward(last);
    tokens = torch::cat({tokens, next_of(out)}, 1);
  }
  return tokens;
}

int main() {
  Settings settings;
  Decoder decoder(settings);
  sample(decoder, torch::zeros({1, 1}, torch::kLong), 100);

  // The rows are the constructor's argument, 24: a bound by 24 protects.
  Tagger tagger(10, 24);
  auto a = torch::zeros({1, 1}, torch::kLong);
  for (int64_t i = 0; i < 100; ++i) {
    TORCH_CHECK(a.size(1) <= 24, "too long");
    auto out = tagger(a);
    a = torch::cat({a, next_of(out)}, 1);
  }
  // A bound by anything else does not.
  auto b = torch::zeros({1, 1}, torch::kLong);
  for (int64_t i = 0; i < 100; ++i) {
    TORCH_CHECK(b.size(1) <= 48, "too long");
    auto out = tagger(b);
    b = torch::cat({b, next_of(out)}, 1);
  }
  // The settings the decoder was built with: their window protects.
  auto c = torch::zeros({1, 1}, torch::kLong);
  for (int64_t i = 0; i < 100; ++i) {
    if (c.size(1) > settings.window)
      c = c.slice(1, -settings.window);
    auto out = decoder->forward(c);
    c = torch::cat({c, next_of(out)}, 1);
  }
  // A loop that stops at the rows.
  Short brief;
  auto d = torch::zeros({1, 1}, torch::kLong);
  while (d.size(1) < 32) {
    auto out = brief->forward(d);
    d = torch::cat({d, next_of(out)}, 1);
  }
  // A crop past the rows.
  auto e = torch::zeros({1, 1}, torch::kLong);
  for (int64_t i = 0; i < 100; ++i) {
    if (e.size(1) > 40)
      e = e.slice(1, -40);
    auto out = brief->forward(e);
    e = torch::cat({e, next_of(out)}, 1);
  }
  // Grows along another dim than the length: silent.
  auto f = torch::zeros({1, 1}, torch::kLong);
  for (int64_t i = 0; i < 100; ++i) {
    auto out = brief->forward(f);
    f = torch::cat({f, next_of(out)}, 0);
  }
  // The function relates the two itself: silent.
  Safe safe;
  auto g = torch::zeros({1, 1}, torch::kLong);
  for (int64_t i = 0; i < 100; ++i) {
    auto out = safe->forward(g);
    g = torch::cat({g, next_of(out)}, 1);
  }
}
