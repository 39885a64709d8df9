// CPU cost of the runtime shim, measured against what it is compared with in
// the same run:
//   BM_Memcpy vs BM_CheckIndex     bandwidth over the same index buffer
//   BM_Embedding{Unchecked,Checked} at::embedding forward with and without
//                                   TORCHTIDY_CHECK_INDEX in front
//   BM_Sum{NoMacro,ReleaseMacro,DebugMacro}  the per-call cost of the macro
//                                   under NDEBUG (zero) and in debug builds
// Speed goals are read from this output, never asserted in tests.
#undef NDEBUG
#undef TORCHTIDY_ENABLE_CHECKS
#include <torchtidy/check.h>

#include "release_macro.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/embedding.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

namespace {

constexpr int64_t kBound = 50000;

at::Tensor randomIds(int64_t n, at::ScalarType dtype) {
  return at::randint(0, kBound, {n}, at::TensorOptions().dtype(dtype));
}

void BM_Memcpy(benchmark::State &state) {
  const at::Tensor ids = randomIds(state.range(0), at::kLong);
  const std::size_t bytes = static_cast<std::size_t>(ids.nbytes());
  std::vector<char> dst(bytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), ids.data_ptr(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes));
}

template <at::ScalarType Type> void BM_CheckIndex(benchmark::State &state) {
  const at::Tensor ids = randomIds(state.range(0), Type);
  for (auto _ : state)
    torchtidy::checkIndex(ids, kBound);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(ids.nbytes()));
}

void BM_EmbeddingUnchecked(benchmark::State &state) {
  const at::Tensor weight = at::randn({kBound, 64});
  const at::Tensor ids = randomIds(state.range(0), at::kLong);
  for (auto _ : state)
    benchmark::DoNotOptimize(at::embedding(weight, ids));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          state.range(0));
}

void BM_EmbeddingChecked(benchmark::State &state) {
  const at::Tensor weight = at::randn({kBound, 64});
  const at::Tensor ids = randomIds(state.range(0), at::kLong);
  for (auto _ : state) {
    TORCHTIDY_CHECK_INDEX(ids, weight.size(0));
    benchmark::DoNotOptimize(at::embedding(weight, ids));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          state.range(0));
}

// Small buffers, so the per-call cost of the macro is what is measured.
template <int64_t (*Sum)(const at::Tensor &, int64_t)>
void runSum(benchmark::State &state) {
  const at::Tensor ids = randomIds(state.range(0), at::kLong);
  for (auto _ : state)
    benchmark::DoNotOptimize(Sum(ids, kBound));
}

int64_t sumWithDebugMacro(const at::Tensor &ids, int64_t bound) {
  TORCHTIDY_CHECK_INDEX(ids, bound);
  return torchtidy_bench::sumIds(ids);
}

// Plain named functions (no Name(std::string)), so the benchmark also links
// against a Google Benchmark built with another C++ ABI than LibTorch's.
void BM_SumNoMacro(benchmark::State &state) {
  runSum<torchtidy_bench::sumWithoutMacro>(state);
}
void BM_SumReleaseMacro(benchmark::State &state) {
  runSum<torchtidy_bench::sumWithReleaseMacro>(state);
}
void BM_SumDebugMacro(benchmark::State &state) {
  runSum<sumWithDebugMacro>(state);
}

} // namespace

BENCHMARK(BM_Memcpy)->Arg(1 << 16)->Arg(1 << 20)->Arg(1 << 24)->UseRealTime();
BENCHMARK_TEMPLATE(BM_CheckIndex, at::kLong)
    ->Arg(1 << 16)
    ->Arg(1 << 20)
    ->Arg(1 << 24)
    ->UseRealTime();
BENCHMARK_TEMPLATE(BM_CheckIndex, at::kInt)
    ->Arg(1 << 16)
    ->Arg(1 << 20)
    ->Arg(1 << 24)
    ->UseRealTime();
BENCHMARK(BM_EmbeddingUnchecked)->Arg(4096)->Arg(1 << 16)->UseRealTime();
BENCHMARK(BM_EmbeddingChecked)->Arg(4096)->Arg(1 << 16)->UseRealTime();
BENCHMARK(BM_SumNoMacro)->Arg(64);
BENCHMARK(BM_SumReleaseMacro)->Arg(64);
BENCHMARK(BM_SumDebugMacro)->Arg(64);

BENCHMARK_MAIN();
