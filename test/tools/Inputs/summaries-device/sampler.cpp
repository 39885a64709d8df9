#include "sampler.h"

SamplerImpl::SamplerImpl() {
  scale = register_buffer("scale", torch::ones({1}));
}

torch::Tensor SamplerImpl::sample(int64_t n, torch::Device device) {
  return torch::randn({n}, device) * scale.to(device);
}
