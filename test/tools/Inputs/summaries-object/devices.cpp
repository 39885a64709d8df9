#include "devices.h"

// The GPU when there is one.
torch::Device pick_device() {
  return torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
}
