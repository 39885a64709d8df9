#include "devices.h"

// The GPU when there is one.
torch::Device training_device() {
  return torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
}

// Always the CPU: exported tensors are read on machines without a GPU.
torch::Device export_device() { return torch::Device(torch::kCPU); }
