// The raw-pointer CUDA API. Argument checks and the empty-input early return
// run everywhere; everything that launches skips without a GPU.
#include <torchtidy/cuda/index_check.h>

#include "index_range.h"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <random>
#include <thread>
#include <vector>

using namespace torchtidy::cuda;

namespace {

#define SKIP_WITHOUT_GPU()                                                     \
  do {                                                                         \
    if (!deviceAvailable())                                                    \
      GTEST_SKIP() << "no CUDA device";                                        \
  } while (0)

/// A device copy of `host`, starting `offset` elements into the allocation
/// (offset 1 leaves the data unaligned for 16-byte loads).
template <typename T> class DeviceBuffer {
public:
  explicit DeviceBuffer(const std::vector<T> &host, std::size_t offset = 0)
      : count_(host.size()) {
    EXPECT_EQ(cudaMalloc(&base_, (host.size() + offset + 1) * sizeof(T)),
              cudaSuccess);
    data_ = static_cast<T *>(base_) + offset;
    EXPECT_EQ(cudaMemcpy(data_, host.data(), host.size() * sizeof(T),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  ~DeviceBuffer() { cudaFree(base_); }
  const T *data() const { return data_; }
  int64_t count() const { return static_cast<int64_t>(count_); }

private:
  void *base_ = nullptr;
  T *data_ = nullptr;
  std::size_t count_;
};

template <typename T> IndexType typeOf();
template <> IndexType typeOf<int32_t>() { return IndexType::Int32; }
template <> IndexType typeOf<int64_t>() { return IndexType::Int64; }

template <typename T>
IndexRangeResult check(const std::vector<T> &host, int64_t bound,
                       std::size_t offset = 0, cudaStream_t stream = nullptr) {
  DeviceBuffer<T> d(host, offset);
  IndexRangeResult r;
  EXPECT_EQ(
      checkIndexRange(d.data(), typeOf<T>(), d.count(), bound, stream, &r),
      cudaSuccess);
  return r;
}

/// The CPU reference: the same shared range logic, run on the host.
template <typename T>
IndexRangeResult reference(const std::vector<T> &host, int64_t bound) {
  const torchtidy::range::Summary s = torchtidy::range::scan(
      host.data(), static_cast<int64_t>(host.size()), 0, bound);
  IndexRangeResult r;
  r.badCount = s.badCount;
  if (s.badCount) {
    r.firstPosition = s.firstPosition;
    r.firstValue = host[s.firstPosition];
  }
  return r;
}

// ---- without a GPU
// ------------------------------------------------------------

TEST(CudaIndexCheck, EmptyInputReturnsWithoutLaunching) {
  IndexRangeResult r;
  r.badCount = 7;
  EXPECT_EQ(checkIndexRange(nullptr, IndexType::Int64, 0, 10, nullptr, &r),
            cudaSuccess);
  EXPECT_EQ(r.badCount, 0u);
  EXPECT_EQ(r.firstPosition, -1);
  EXPECT_EQ(
      checkIndexRangeDeferred(nullptr, IndexType::Int32, 0, 0, 1, nullptr),
      cudaSuccess);
}

TEST(CudaIndexCheck, InvalidArgumentsAreRejectedBeforeAnyLaunch) {
  IndexRangeResult r;
  const int64_t dummy = 0;
  EXPECT_EQ(checkIndexRange(nullptr, IndexType::Int64, 3, 10, nullptr, &r),
            cudaErrorInvalidValue);
  EXPECT_EQ(checkIndexRange(&dummy, IndexType::Int64, -1, 10, nullptr, &r),
            cudaErrorInvalidValue);
  EXPECT_EQ(checkIndexRange(&dummy, IndexType::Int64, 1, -10, nullptr, &r),
            cudaErrorInvalidValue);
  EXPECT_EQ(checkIndexRange(&dummy, IndexType::Int64, 1, 10, nullptr, nullptr),
            cudaErrorInvalidValue);
  EXPECT_EQ(
      checkIndexRange(&dummy, static_cast<IndexType>(7), 1, 10, nullptr, &r),
      cudaErrorInvalidValue);
  EXPECT_EQ(
      checkIndexRangeDeferred(nullptr, IndexType::Int64, 3, 10, 1, nullptr),
      cudaErrorInvalidValue);
}

TEST(CudaIndexCheck, DrainWithNothingLaunchedIsEmpty) {
  DeferredFailure out[4];
  uint64_t dropped = 99;
  EXPECT_EQ(drainDeferredFailures(out, 4, &dropped), 0u);
  EXPECT_EQ(dropped, 0u);
}

// ---- on a GPU
// -------------------------------------------------------------------------

TEST(CudaIndexCheck, InRangeBuffersPass) {
  SKIP_WITHOUT_GPU();
  for (int64_t n : {1, 3, 4, 5, 1000, 1 << 20}) {
    std::vector<int64_t> v(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      v[static_cast<std::size_t>(i)] = i;
    EXPECT_EQ(check(v, n).badCount, 0u) << n;
    std::vector<int32_t> w(v.begin(), v.end());
    EXPECT_EQ(check(w, n).badCount, 0u) << n;
  }
}

TEST(CudaIndexCheck, FindsFirstPositionValueAndCount) {
  SKIP_WITHOUT_GPU();
  std::vector<int64_t> v(1 << 20, 0);
  v[700001] = 1000;
  v[123457] = -2;
  v.back() = 1 << 30;
  const IndexRangeResult r = check(v, 1000);
  EXPECT_EQ(r.badCount, 3u);
  EXPECT_EQ(r.firstPosition, 123457);
  EXPECT_EQ(r.firstValue, -2);
}

TEST(CudaIndexCheck, MisalignedHeadAndTailAreChecked) {
  SKIP_WITHOUT_GPU();
  for (std::size_t offset = 0; offset < 4; ++offset)
    for (std::size_t n : {1u, 2u, 5u, 17u, 1027u}) {
      std::vector<int32_t> first(n, 1);
      first.front() = 9;
      const IndexRangeResult a = check(first, 5, offset);
      EXPECT_EQ(a.badCount, 1u) << offset << " " << n;
      EXPECT_EQ(a.firstPosition, 0) << offset << " " << n;
      std::vector<int32_t> last(n, 1);
      last.back() = -1;
      const IndexRangeResult b = check(last, 5, offset);
      EXPECT_EQ(b.badCount, 1u) << offset << " " << n;
      EXPECT_EQ(b.firstPosition, static_cast<int64_t>(n) - 1)
          << offset << " " << n;
    }
}

TEST(CudaIndexCheck, AgreesWithTheCpuReferenceOnRandomData) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 gen(42);
  for (int round = 0; round < 20; ++round) {
    const std::size_t n = 1 + gen() % 300000;
    std::uniform_int_distribution<int64_t> value(-3, 100000 + round);
    std::vector<int64_t> v(n);
    for (int64_t &x : v)
      x = value(gen);
    const int64_t bound = 100000;
    const IndexRangeResult want = reference(v, bound);
    const IndexRangeResult got = check(v, bound, round % 2);
    EXPECT_EQ(got.badCount, want.badCount);
    EXPECT_EQ(got.firstPosition, want.firstPosition);
    EXPECT_EQ(got.firstValue, want.firstValue);
  }
}

TEST(CudaIndexCheck, ReusedSlotsStartClean) {
  SKIP_WITHOUT_GPU();
  std::vector<int64_t> bad(5000, 0);
  bad[4321] = 7;
  const std::vector<int64_t> good(5000, 0);
  // More launches than slots, alternating, so every slot is reused after a
  // failure.
  for (int i = 0; i < 600; ++i) {
    const IndexRangeResult r = check(i % 2 ? bad : good, 7);
    ASSERT_EQ(r.badCount, i % 2 ? 1u : 0u) << i;
  }
}

TEST(CudaIndexCheck, RunsOnTheGivenStream) {
  SKIP_WITHOUT_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
            cudaSuccess);
  std::vector<int32_t> v(100000, 3);
  v[99999] = 4;
  const IndexRangeResult r = check(v, 4, 0, stream);
  EXPECT_EQ(r.firstPosition, 99999);
  cudaStreamDestroy(stream);
}

TEST(CudaIndexCheck, SixteenThreadsWithTheirOwnStreams) {
  SKIP_WITHOUT_GPU();
  std::vector<std::thread> threads;
  std::vector<int> ok(16, 0);
  for (int t = 0; t < 16; ++t)
    threads.emplace_back([t, &ok] {
      cudaStream_t stream = nullptr;
      if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) !=
          cudaSuccess)
        return;
      std::vector<int64_t> v(20000 + t * 100, 1);
      for (int round = 0; round < 20; ++round) {
        const std::size_t bad = (t * 31 + round * 17) % v.size();
        v[bad] = 50;
        DeviceBuffer<int64_t> d(v);
        IndexRangeResult r;
        if (checkIndexRange(d.data(), IndexType::Int64, d.count(), 50, stream,
                            &r) == cudaSuccess &&
            r.badCount == 1 && r.firstPosition == static_cast<int64_t>(bad) &&
            r.firstValue == 50)
          ++ok[t];
        v[bad] = 1;
      }
      cudaStreamDestroy(stream);
    });
  for (std::thread &th : threads)
    th.join();
  for (int t = 0; t < 16; ++t)
    EXPECT_EQ(ok[t], 20) << "thread " << t;
}

TEST(CudaIndexCheck, DeferredFailuresReachTheMailbox) {
  SKIP_WITHOUT_GPU();
  DeferredFailure out[32];
  drainDeferredFailures(out, 32, nullptr); // start empty
  std::vector<int32_t> v(3000, 0);
  v[2500] = -9;
  DeviceBuffer<int32_t> bad(v);
  DeviceBuffer<int32_t> good(std::vector<int32_t>(3000, 1));
  ASSERT_EQ(checkIndexRangeDeferred(good.data(), IndexType::Int32, good.count(),
                                    2, 5, nullptr),
            cudaSuccess);
  ASSERT_EQ(checkIndexRangeDeferred(bad.data(), IndexType::Int32, bad.count(),
                                    2, 6, nullptr),
            cudaSuccess);
  ASSERT_EQ(synchronizeDeferredDevices(), cudaSuccess);
  uint64_t dropped = 1;
  ASSERT_EQ(drainDeferredFailures(out, 32, &dropped), 1u);
  EXPECT_EQ(dropped, 0u);
  EXPECT_EQ(out[0].siteId, 6u);
  EXPECT_EQ(out[0].position, 2500);
  EXPECT_EQ(out[0].value, -9);
  EXPECT_EQ(out[0].bound, 2);
  EXPECT_EQ(out[0].badCount, 1u);
  EXPECT_EQ(drainDeferredFailures(out, 32, &dropped), 0u);
}

TEST(CudaIndexCheck, MailboxOverflowIsCounted) {
  SKIP_WITHOUT_GPU();
  DeferredFailure out[64];
  drainDeferredFailures(out, 64, nullptr);
  DeviceBuffer<int64_t> bad(std::vector<int64_t>(10, 11));
  for (uint32_t site = 1; site <= 20; ++site)
    ASSERT_EQ(checkIndexRangeDeferred(bad.data(), IndexType::Int64, 10, 11,
                                      site, nullptr),
              cudaSuccess);
  ASSERT_EQ(synchronizeDeferredDevices(), cudaSuccess);
  uint64_t dropped = 0;
  const std::size_t n = drainDeferredFailures(out, 64, &dropped);
  EXPECT_EQ(n + dropped, 20u);
  EXPECT_EQ(dropped, 4u);
  // The newest records survive.
  EXPECT_EQ(out[n - 1].siteId, 20u);
}

} // namespace
