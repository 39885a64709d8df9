// A fake CUDA runtime for the host side of the raw-pointer index check
// (src/cuda/index_check.cpp), linked instead of libcudart: every call
// succeeds on host memory unless a test injects an error into the n-th call
// of one function, and the fake counts the device and pinned allocations
// that are still live, so a test can see what a failure leaves behind.
// The launch layer (index_check_dispatch.cu) is faked too: it "launches"
// nothing and returns the error a test sets.
#include "fake_cudart.h"

#include "cuda/error_site.h"
#include "cuda/index_check_dispatch.h"

#include <cstdlib>
#include <cstring>
#include <set>

namespace fake_cudart {

namespace {
std::set<void *> &deviceBlocks() {
  static std::set<void *> blocks;
  return blocks;
}
std::set<void *> &pinnedBlocks() {
  static std::set<void *> blocks;
  return blocks;
}
} // namespace

Fault fault;
int currentDevice = 0;
cudaError_t launchError = cudaSuccess;

void reset() {
  fault = Fault{};
  launchError = cudaSuccess;
}

std::size_t liveDeviceAllocations() { return deviceBlocks().size(); }
std::size_t livePinnedAllocations() { return pinnedBlocks().size(); }

/// The error a call of `function` returns: the injected one on its n-th call.
cudaError_t next(const char *function) {
  if (!fault.function || std::strcmp(fault.function, function) != 0)
    return cudaSuccess;
  return ++fault.seen == fault.onCall ? fault.error : cudaSuccess;
}

} // namespace fake_cudart

using fake_cudart::next;

extern "C" {

cudaError_t cudaMalloc(void **ptr, size_t size) {
  if (cudaError_t err = next("cudaMalloc"))
    return err;
  *ptr = std::malloc(size);
  fake_cudart::deviceBlocks().insert(*ptr);
  return cudaSuccess;
}

cudaError_t cudaFree(void *ptr) {
  fake_cudart::deviceBlocks().erase(ptr);
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int) {
  if (cudaError_t err = next("cudaHostAlloc"))
    return err;
  *ptr = std::malloc(size);
  fake_cudart::pinnedBlocks().insert(*ptr);
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void *ptr) {
  fake_cudart::pinnedBlocks().erase(ptr);
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                       enum cudaMemcpyKind) {
  if (cudaError_t err = next("cudaMemcpy"))
    return err;
  std::memcpy(dst, src, count);
  return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **device, void *host, unsigned int) {
  if (cudaError_t err = next("cudaHostGetDevicePointer"))
    return err;
  *device = host; // mapped memory: the same address on both sides here
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr, int) {
  if (cudaError_t err = next("cudaDeviceGetAttribute"))
    return err;
  *value = 4;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device) {
  if (cudaError_t err = next("cudaGetDevice"))
    return err;
  *device = fake_cudart::currentDevice;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (cudaError_t err = next("cudaSetDevice"))
    return err;
  fake_cudart::currentDevice = device;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int *count) {
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetLastError(void) { return cudaSuccess; }

cudaError_t cudaStreamSynchronize(cudaStream_t) {
  return next("cudaStreamSynchronize");
}

cudaError_t cudaDeviceSynchronize(void) {
  return next("cudaDeviceSynchronize");
}

const char *cudaGetErrorString(cudaError_t err) {
  switch (err) {
  case cudaSuccess:
    return "no error";
  case cudaErrorMemoryAllocation:
    return "out of memory";
  case cudaErrorInvalidValue:
    return "invalid argument";
  case cudaErrorInvalidDevice:
    return "invalid device ordinal";
  case cudaErrorIllegalAddress:
    return "an illegal memory access was encountered";
  default:
    return "unknown error";
  }
}

} // extern "C"

namespace torchtidy::cuda::detail {

cudaError_t dispatchIndexRangeCheck(KernelParams params, IndexType, int,
                                    cudaStream_t, bool *launched) {
  *launched = false;
  if (params.count == 0)
    return cudaSuccess;
  if (fake_cudart::launchError != cudaSuccess)
    return noteError(fake_cudart::launchError, "index_check_dispatch.cu", 0,
                     "indexRangeKernel<<<...>>>");
  *launched = true;
  return cudaSuccess;
}

int residentBlocksPerMultiprocessor(IndexType) { return 4; }

} // namespace torchtidy::cuda::detail
