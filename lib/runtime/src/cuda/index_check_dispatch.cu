#include "index_check_dispatch.h"

#include "error_site.h"

#include "index_check_kernels.cuh"

namespace torchtidy {
namespace cuda {
namespace detail {

namespace {

template <typename T>
cudaError_t launchTyped(KernelParams params, int maxResidentBlocks,
                        cudaStream_t stream, bool *launched) {
  params.split =
      range::splitForVectors(reinterpret_cast<uintptr_t>(params.indices),
                             params.count, sizeof(T), kVectorBytes);
  const int64_t work =
      params.split.vectors > params.split.head + params.split.tail
          ? params.split.vectors
          : params.split.head + params.split.tail;
  const int64_t blocks =
      range::gridBlocks(work, kThreadsPerBlock, maxResidentBlocks);
  indexRangeKernel<T>
      <<<static_cast<unsigned int>(blocks), kThreadsPerBlock, 0, stream>>>(
          params);
  // Checked right after the launch, as C10_CUDA_KERNEL_LAUNCH_CHECK does.
  const cudaError_t err =
      TORCHTIDY_CUDA_ERROR(cudaGetLastError(), "indexRangeKernel<<<...>>>");
  *launched = err == cudaSuccess;
  return err;
}

} // namespace

cudaError_t dispatchIndexRangeCheck(KernelParams params, IndexType type,
                                    int maxResidentBlocks, cudaStream_t stream,
                                    bool *launched) {
  *launched = false;
  if (params.count == 0)
    return cudaSuccess;
  switch (type) {
  case IndexType::Int32:
    return launchTyped<int32_t>(params, maxResidentBlocks, stream, launched);
  case IndexType::Int64:
    return launchTyped<int64_t>(params, maxResidentBlocks, stream, launched);
  }
  return TORCHTIDY_CUDA_ERROR(cudaErrorInvalidValue,
                              "an index type other than Int32 or Int64");
}

int residentBlocksPerMultiprocessor(IndexType type) {
  int blocks = 0;
  const cudaError_t err =
      type == IndexType::Int32
          ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &blocks, indexRangeKernel<int32_t>, kThreadsPerBlock, 0)
          : cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &blocks, indexRangeKernel<int64_t>, kThreadsPerBlock, 0);
  if (err != cudaSuccess || blocks < 1) {
    (void)cudaGetLastError();
    return 4;
  }
  return blocks;
}

} // namespace detail
} // namespace cuda
} // namespace torchtidy
