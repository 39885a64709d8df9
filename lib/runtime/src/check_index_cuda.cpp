// The LibTorch adapter of the CUDA index check: takes the tensor's pointer
// and the current stream of its device and calls the raw-pointer API.
// Compiled only when LibTorch has CUDA (TORCHTIDY_TORCH_CUDA).
#include "internal.h"

#include <torchtidy/cuda/index_check.h>

#include <ATen/core/Tensor.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

namespace torchtidy {

void detail::checkIndexOnCuda(const at::Tensor &index, int64_t size,
                              const Site &site) {
  const c10::cuda::CUDAGuard guard(index.device());
  const cudaStream_t stream =
      c10::cuda::getCurrentCUDAStream(index.device().index()).stream();
  const cuda::IndexType type = index.scalar_type() == at::kInt
                                   ? cuda::IndexType::Int32
                                   : cuda::IndexType::Int64;
  const int64_t count = index.numel();
  // A stream being captured into a CUDA graph cannot be waited for: the check
  // is captured as a deferred one, and reports when the graph replays.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess)
    capture = cudaStreamCaptureStatusNone;
  if (mode() == Mode::Deferred || capture != cudaStreamCaptureStatusNone) {
    noteDeferredLaunch();
    const cudaError_t err = cuda::checkIndexRangeDeferred(
        index.data_ptr(), type, count, size, siteId(site), stream);
    if (err != cudaSuccess)
      throw c10::Error(sourceLocation(site),
                       describeSite(site) + ": launching the check failed: " +
                           cuda::describeError(err));
    return;
  }
  cuda::IndexRangeResult result;
  const cudaError_t err = cuda::checkIndexRange(index.data_ptr(), type, count,
                                                size, stream, &result);
  if (err != cudaSuccess)
    throw c10::Error(sourceLocation(site),
                     describeSite(site) + ": the CUDA check failed: " +
                         cuda::describeError(err) +
                         " (the error may come from earlier work on the "
                         "stream)");
  if (result.badCount)
    throwIndexError(site, index.sizes(), result.firstPosition,
                    result.firstValue, size, result.badCount, count);
}

} // namespace torchtidy
