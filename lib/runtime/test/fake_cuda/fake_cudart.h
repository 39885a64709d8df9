// The fake CUDA runtime's controls (fake_cudart.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace fake_cudart {

/// Makes the onCall-th call (from 1) of `function` return `error`.
struct Fault {
  const char *function = nullptr;
  int onCall = 1;
  cudaError_t error = cudaSuccess;
  int seen = 0;
};
extern Fault fault;
/// What cudaGetDevice returns: each test takes a device of its own, since
/// the library keeps a device's state for the whole process once made.
extern int currentDevice;
/// What the fake launch returns.
extern cudaError_t launchError;

void reset();
std::size_t liveDeviceAllocations();
std::size_t livePinnedAllocations();

} // namespace fake_cudart
