#include "loading.h"

torch::Tensor on_gpu(torch::Tensor t) {
  return t.to(torch::kCUDA);
}
