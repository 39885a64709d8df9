#include "model.h"

NetImpl::NetImpl(int64_t n) {
  build_layers();
  mask = torch::ones({n});
  table = register_buffer("table", torch::zeros({n}));
}

torch::Tensor NetImpl::forward(torch::Tensor x) {
  return out(fc(x * mask)) + table.sum();
}

CleanImpl::CleanImpl() {
  build_layers();
  bias = register_buffer("bias", torch::zeros({4}));
}

torch::Tensor MovedImpl::forward(torch::Tensor x) {
  return x + shift.to(x.device());
}
