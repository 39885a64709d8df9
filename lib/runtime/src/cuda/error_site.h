// Records where inside the library an error was seen, as CUB's CubDebug does
// (cub/util_debug.cuh), so that a failure the runtime reports names the CUDA
// call and the line that failed, not only the error's name.
#pragma once

#include <torchtidy/cuda/index_check.h>

namespace torchtidy::cuda::detail {

/// Returns `err`; when it is an error, also records it with its site as the
/// calling thread's lastErrorSite().
cudaError_t noteError(cudaError_t err, const char *file, int line,
                      const char *call);

/// The calling thread's last error site. Each entry point of the library
/// clears it first, so that a site is never that of an earlier call's error.
ErrorSite &currentErrorSite();

} // namespace torchtidy::cuda::detail

/// Evaluates a CUDA runtime call; on an error, records its site and returns
/// the error from the enclosing function.
#define TORCHTIDY_CUDA_TRY(call)                                               \
  do {                                                                         \
    const cudaError_t torchtidy_err_ = ::torchtidy::cuda::detail::noteError(   \
        (call), __FILE__, __LINE__, #call);                                    \
    if (torchtidy_err_ != cudaSuccess)                                         \
      return torchtidy_err_;                                                   \
  } while (0)

/// Records `err` with `what` (a call, or the argument that is wrong) at this
/// line and evaluates to `err`.
#define TORCHTIDY_CUDA_ERROR(err, what)                                        \
  ::torchtidy::cuda::detail::noteError((err), __FILE__, __LINE__, (what))
