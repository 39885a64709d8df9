// Raw-pointer CUDA API of the index check. It needs the CUDA runtime only,
// not LibTorch: the LibTorch adapter (torchtidy::checkIndex on a CUDA
// tensor) calls it with the tensor's pointer and the current stream.
//
// Every function returns a cudaError_t instead of throwing, and never calls
// into LibTorch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace torchtidy::cuda {

enum class IndexType : int { Int32 = 0, Int64 = 1 };

/// What one check found.
struct IndexRangeResult {
  uint64_t badCount = 0;      ///< values outside [0, bound)
  int64_t firstPosition = -1; ///< position of the first such value, or -1
  int64_t firstValue = 0;     ///< that value
};

/// Checks that indices[0, count) are in [0, bound): one kernel on `stream`,
/// then waits for `stream` only and fills *result. Returns without launching
/// for count == 0. cudaErrorInvalidValue for a null pointer with count > 0, a
/// negative count or bound, or a null result. Any error of the launch or of
/// the stream (including one left by earlier work on it) is returned.
cudaError_t checkIndexRange(const void *indices, IndexType type, int64_t count,
                            int64_t bound, cudaStream_t stream,
                            IndexRangeResult *result);

/// The same kernel without any host synchronisation: a failure is posted to
/// the mailbox with `siteId` and the caller goes on. The launch itself is
/// still checked.
cudaError_t checkIndexRangeDeferred(const void *indices, IndexType type,
                                    int64_t count, int64_t bound,
                                    uint32_t siteId, cudaStream_t stream);

/// One failure found by a deferred check.
struct DeferredFailure {
  uint32_t siteId = 0;
  int32_t device = 0;
  int64_t position = 0;
  int64_t value = 0;
  int64_t bound = 0;
  uint64_t badCount = 0;
};

/// Copies out the failures the kernels have posted so far, without waiting
/// for the GPU (the mailbox is mapped host memory). Returns how many were
/// written to out[0, capacity); *dropped (if not null) gets how many were
/// lost because the mailbox overflowed since the last call.
std::size_t drainDeferredFailures(DeferredFailure *out, std::size_t capacity,
                                  uint64_t *dropped);

/// Waits for every device that ran a deferred check, so that a following
/// drainDeferredFailures() sees all of their failures.
cudaError_t synchronizeDeferredDevices();

/// True when at least one CUDA device is usable.
bool deviceAvailable();

/// Where inside this library the last error returned to the calling thread
/// was seen: the CUDA runtime call (or the argument check) that failed, with
/// its file and line, as CUB's CubDebug reports them. `call` is null while
/// the thread has had no error.
struct ErrorSite {
  const char *file =
      nullptr; ///< the library's source file, without its directory
  int line = 0;
  const char *call =
      nullptr; ///< the failed call, or what was wrong with an argument
  cudaError_t error = cudaSuccess;
};
ErrorSite lastErrorSite();

/// `err` as a message that names its site: "out of memory (cudaMalloc at
/// index_check.cpp:61)"; the plain error string when this thread's last
/// error site is of another error.
std::string describeError(cudaError_t err);

} // namespace torchtidy::cuda
