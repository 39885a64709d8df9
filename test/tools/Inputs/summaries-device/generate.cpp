#include "sampler.h"

// Leaves out the device: the header's default, a fixed CUDA device, whatever
// device the module was moved to.
torch::Tensor generate(Sampler &sampler, int64_t n) {
  return sampler->sample(n);
}
