#include "model.h"

// Methods of the class in another file: the rows are its members.
torch::Tensor DecoderImpl::extend(torch::Tensor tokens, int64_t steps) {
  for (int64_t i = 0; i < steps; ++i) {
    if (tokens.size(1) > settings_.window)
      tokens = tokens.slice(1, -settings_.window);
    auto out = forward(tokens);
    tokens = torch::cat({tokens, out.argmax(-1)}, 1);
  }
  return tokens;
}

torch::Tensor DecoderImpl::extend_unbounded(torch::Tensor tokens,
                                            int64_t steps) {
  for (int64_t i = 0; i < steps; ++i) {
    if (tokens.size(1) > settings_.width)
      tokens = tokens.slice(1, -settings_.width);
    auto out = forward(tokens);
    tokens = torch::cat({tokens, out.argmax(-1)}, 1);
  }
  return tokens;
}
