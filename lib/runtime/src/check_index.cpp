// TORCHTIDY_CHECK_INDEX: argument checks, the CPU pass, and the hand-off of
// CUDA tensors to the kernel (check_index_cuda.cpp).
#include "index_range.h"
#include "internal.h"

#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>

namespace torchtidy {

namespace {

/// Elements counted per branch-free pass; a block with a bad value is scanned
/// a second time for its first position, so only a failing check rereads.
constexpr int64_t kCountBlock = 4096;
/// Elements per at::parallel_for chunk at least: below this, threads cost
/// more than they save.
constexpr int64_t kGrainSize = 1 << 15;

// The counting loop is the whole cost of a passing check. Where the compiler
// can, it is built twice, for AVX2 and for the baseline, and the loader picks
// one for the CPU (GCC/Clang function multiversioning on x86-64). Not under
// a sanitizer: the loader runs the picking function (an ifunc resolver)
// before the sanitizer's runtime is set up, and instrumented (TSan enters
// every function through its runtime) it crashes the program at load. GCC
// says so with __SANITIZE_*__, Clang 19 only with __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TORCHTIDY_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||     \
    __has_feature(memory_sanitizer)
#define TORCHTIDY_SANITIZED 1
#endif
#endif
#if defined(__x86_64__) && defined(__has_attribute) &&                         \
    !defined(TORCHTIDY_SANITIZED)
#if __has_attribute(target_clones)
#define TORCHTIDY_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef TORCHTIDY_CLONES
#define TORCHTIDY_CLONES
#endif

TORCHTIDY_CLONES uint32_t countBlock(const int32_t *data, int64_t n,
                                     int64_t bound) {
  return range::countOutOfRange(data, n, bound);
}
TORCHTIDY_CLONES uint32_t countBlock(const int64_t *data, int64_t n,
                                     int64_t bound) {
  return range::countOutOfRange(data, n, bound);
}

template <typename T>
range::Summary scanChunk(const T *data, int64_t begin, int64_t end,
                         int64_t bound) {
  range::Summary s;
  for (int64_t block = begin; block < end; block += kCountBlock) {
    const int64_t n = std::min(kCountBlock, end - block);
    const uint32_t bad = countBlock(data + block, n, bound);
    if (bad == 0)
      continue;
    if (s.firstPosition == range::kNoPosition)
      s.firstPosition =
          range::scan(data + block, n, block, bound).firstPosition;
    s.badCount += bad;
  }
  return s;
}

/// One pass over data[0, count), parallel over chunks.
template <typename T>
range::Summary scanOnCpu(const T *data, int64_t count, int64_t bound) {
  if (count <= kGrainSize)
    return scanChunk(data, 0, count, bound);
  std::atomic<uint64_t> bad{0};
  std::atomic<int64_t> first{range::kNoPosition};
  at::parallel_for(0, count, kGrainSize, [&](int64_t begin, int64_t end) {
    const range::Summary s = scanChunk(data, begin, end, bound);
    if (s.badCount == 0)
      return;
    bad.fetch_add(s.badCount, std::memory_order_relaxed);
    int64_t seen = first.load(std::memory_order_relaxed);
    while (s.firstPosition < seen &&
           !first.compare_exchange_weak(seen, s.firstPosition,
                                        std::memory_order_relaxed)) {
    }
  });
  range::Summary out;
  out.badCount = bad.load();
  out.firstPosition = first.load();
  return out;
}

std::string argName(const Site &site) {
  return std::string("`") + site.firstArg + "`";
}

void warnCopiedToCpu(const at::Tensor &index) {
  static std::once_flag once;
  std::call_once(once, [&] {
    std::fprintf(
        stderr,
        "torchtidy: TORCHTIDY_CHECK_INDEX copies %s indices to the CPU "
        "(this build has no kernel for that device)\n",
        index.device().str().c_str());
  });
}

} // namespace

void checkIndex(const at::Tensor &index, int64_t size, const Site &site) {
  if (!detail::beginCheck(site))
    return;
  const c10::SourceLocation where = detail::sourceLocation(site);
  if (!index.defined())
    throw c10::Error(where, detail::describeSite(site) + ": " + argName(site) +
                                " is an undefined tensor, not a tensor of "
                                "indices");
  if (index.layout() != at::kStrided)
    throw c10::TypeError(where, detail::describeSite(site) + ": " +
                                    argName(site) +
                                    " must be a dense (strided) tensor");
  const at::ScalarType dtype = index.scalar_type();
  if (dtype != at::kLong && dtype != at::kInt) {
    std::string message = detail::describeSite(site) + ": " + argName(site) +
                          " must be an int32 or int64 tensor of indices, got " +
                          c10::toString(dtype);
    if (dtype == at::kBool)
      message += " (a bool tensor is a mask: turn it into indices with "
                 "nonzero(), or use masked_select)";
    else if (at::isFloatingType(dtype))
      message += " (round and convert it with .to(torch::kLong) after "
                 "checking it holds whole numbers)";
    throw c10::TypeError(where, message);
  }
  if (size < 0)
    throw c10::ValueError(where, detail::describeSite(site) + ": the size `" +
                                     site.secondArg + "` is " +
                                     std::to_string(size) +
                                     ", but a size cannot be negative");
  const int64_t count = index.numel();
  if (count == 0)
    return;

  // Logical (row-major) order, so positions match what the user indexes.
  at::Tensor values = index.contiguous();
  if (values.is_cuda() && builtWithTorchCuda()) {
    detail::checkIndexOnCuda(values, size, site);
    return;
  }
  if (!values.is_cpu()) {
    warnCopiedToCpu(values);
    values = values.to(at::kCPU);
  }
  range::Summary found;
  int64_t firstValue = 0;
  if (dtype == at::kInt) {
    const int32_t *data = values.data_ptr<int32_t>();
    found = scanOnCpu(data, count, size);
    if (found.badCount)
      firstValue = data[found.firstPosition];
  } else {
    const int64_t *data = values.data_ptr<int64_t>();
    found = scanOnCpu(data, count, size);
    if (found.badCount)
      firstValue = data[found.firstPosition];
  }
  if (found.badCount)
    detail::throwIndexError(site, index.sizes(), found.firstPosition,
                            firstValue, size, found.badCount, count);
}

#if !TORCHTIDY_TORCH_CUDA
void detail::checkIndexOnCuda(const at::Tensor &, int64_t, const Site &site) {
  // builtWithTorchCuda() is false, so checkIndex never gets here.
  throw c10::Error(detail::sourceLocation(site),
                   "torchtidy: this build has no CUDA support for LibTorch");
}
#endif

} // namespace torchtidy
