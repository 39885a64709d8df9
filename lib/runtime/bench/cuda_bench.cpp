// The CUDA index check against a device-to-device copy of the same buffer.
// Raw-pointer API only (no LibTorch). Every benchmark skips without a GPU.
#include <torchtidy/cuda/index_check.h>

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace {

using torchtidy::cuda::IndexType;

constexpr int64_t kBound = 50000;

/// Device buffers of n in-range indices and a copy destination.
struct Buffers {
  void *src = nullptr;
  void *dst = nullptr;
  std::size_t bytes = 0;
  bool ok = false;
  Buffers(int64_t n, std::size_t elementBytes) : bytes(n * elementBytes) {
    if (cudaMalloc(&src, bytes) != cudaSuccess ||
        cudaMalloc(&dst, bytes) != cudaSuccess)
      return;
    std::vector<int64_t> host(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      host[static_cast<std::size_t>(i)] = (i * 7919) % kBound;
    if (elementBytes == 4) {
      std::vector<int32_t> narrow(host.begin(), host.end());
      ok = cudaMemcpy(src, narrow.data(), bytes, cudaMemcpyHostToDevice) ==
           cudaSuccess;
    } else {
      ok = cudaMemcpy(src, host.data(), bytes, cudaMemcpyHostToDevice) ==
           cudaSuccess;
    }
  }
  ~Buffers() {
    cudaFree(src);
    cudaFree(dst);
  }
};

bool skipWithoutGpu(benchmark::State &state) {
  if (torchtidy::cuda::deviceAvailable())
    return false;
  state.SkipWithError("no CUDA device");
  return true;
}

/// Times `launch` with events on the default stream: device time only.
template <typename F>
void timeOnDevice(benchmark::State &state, std::size_t bytes, F &&launch) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (auto _ : state) {
    cudaEventRecord(start, nullptr);
    if (launch() != cudaSuccess) {
      state.SkipWithError("launch failed");
      break;
    }
    cudaEventRecord(stop, nullptr);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    state.SetIterationTime(ms / 1000.0);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

void BM_CudaDeviceCopy(benchmark::State &state) {
  if (skipWithoutGpu(state))
    return;
  Buffers b(state.range(0), 8);
  if (!b.ok)
    return state.SkipWithError("allocation failed");
  timeOnDevice(state, b.bytes, [&] {
    return cudaMemcpyAsync(b.dst, b.src, b.bytes, cudaMemcpyDeviceToDevice,
                           nullptr);
  });
}

/// The kernel alone: the deferred entry point launches without waiting.
template <IndexType Type> void BM_CudaCheckKernel(benchmark::State &state) {
  if (skipWithoutGpu(state))
    return;
  const std::size_t elementBytes = Type == IndexType::Int32 ? 4 : 8;
  Buffers b(state.range(0), elementBytes);
  if (!b.ok)
    return state.SkipWithError("allocation failed");
  timeOnDevice(state, b.bytes, [&] {
    return torchtidy::cuda::checkIndexRangeDeferred(b.src, Type, state.range(0),
                                                    kBound, 1, nullptr);
  });
}

/// What a sync-mode check costs the caller: launch, wait, read the record.
template <IndexType Type> void BM_CudaCheckSync(benchmark::State &state) {
  if (skipWithoutGpu(state))
    return;
  const std::size_t elementBytes = Type == IndexType::Int32 ? 4 : 8;
  Buffers b(state.range(0), elementBytes);
  if (!b.ok)
    return state.SkipWithError("allocation failed");
  torchtidy::cuda::IndexRangeResult r;
  for (auto _ : state) {
    if (torchtidy::cuda::checkIndexRange(b.src, Type, state.range(0), kBound,
                                         nullptr, &r) != cudaSuccess ||
        r.badCount != 0) {
      state.SkipWithError("check failed");
      break;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(b.bytes));
}

} // namespace

BENCHMARK(BM_CudaDeviceCopy)
    ->Arg(1 << 16)
    ->Arg(1 << 20)
    ->Arg(1 << 26)
    ->UseManualTime();
BENCHMARK_TEMPLATE(BM_CudaCheckKernel, IndexType::Int64)
    ->Arg(1 << 16)
    ->Arg(1 << 20)
    ->Arg(1 << 26)
    ->UseManualTime();
BENCHMARK_TEMPLATE(BM_CudaCheckKernel, IndexType::Int32)
    ->Arg(1 << 16)
    ->Arg(1 << 20)
    ->Arg(1 << 26)
    ->UseManualTime();
BENCHMARK_TEMPLATE(BM_CudaCheckSync, IndexType::Int64)
    ->Arg(1 << 16)
    ->Arg(1 << 20)
    ->Arg(1 << 26);

BENCHMARK_MAIN();
