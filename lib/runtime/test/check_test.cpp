// Behaviour of the runtime shim on the CPU (and on CUDA when a GPU and a
// CUDA LibTorch are present). Compiled three times (see CMakeLists.txt):
//   DEBUG          no NDEBUG: the macros check
//   RELEASE        NDEBUG: the macros vanish and never evaluate their arguments
//   ENABLE_CHECKS  NDEBUG + TORCHTIDY_ENABLE_CHECKS: the macros check again
// The function API (torchtidy::checkIndex, ...) checks in every variant.
#if defined(TORCHTIDY_TEST_VARIANT_DEBUG)
#undef NDEBUG
#undef TORCHTIDY_ENABLE_CHECKS
#define EXPECT_MACROS_CHECK 1
#elif defined(TORCHTIDY_TEST_VARIANT_RELEASE)
#ifndef NDEBUG
#define NDEBUG
#endif
#undef TORCHTIDY_ENABLE_CHECKS
#define EXPECT_MACROS_CHECK 0
#elif defined(TORCHTIDY_TEST_VARIANT_ENABLE_CHECKS)
#ifndef NDEBUG
#define NDEBUG
#endif
#define TORCHTIDY_ENABLE_CHECKS 1
#define EXPECT_MACROS_CHECK 1
#else
#error "define TORCHTIDY_TEST_VARIANT_DEBUG, _RELEASE or _ENABLE_CHECKS"
#endif

#include <torchtidy/check.h>

#include "internal.h"

#include <ATen/Context.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/remainder.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

// What TORCHTIDY_CHECK_LAUNCH() calls, faked (C++ linkage, so they do not
// clash with libcudart's): this file is no .cu file, and the tests decide
// what the "GPU" reports.
enum cudaError_t : int { cudaSuccess = 0 };
namespace fake_cuda {
int lastError = 0; // what cudaGetLastError() returns (then clears)
int syncError = 0; // what cudaDeviceSynchronize() returns
int lastErrorCalls = 0;
int syncCalls = 0;
} // namespace fake_cuda
cudaError_t cudaGetLastError() {
  ++fake_cuda::lastErrorCalls;
  const int e = fake_cuda::lastError;
  fake_cuda::lastError = 0;
  return static_cast<cudaError_t>(e);
}
cudaError_t cudaDeviceSynchronize() {
  ++fake_cuda::syncCalls;
  return static_cast<cudaError_t>(fake_cuda::syncError);
}
const char *cudaGetErrorString(cudaError_t e) {
  return e == 9     ? "invalid configuration argument"
         : e == 700 ? "an illegal memory access was encountered"
                    : "unknown";
}

using torchtidy::DeviceMismatchError;
using torchtidy::IndexOutOfRangeError;
using torchtidy::KernelArgError;
using torchtidy::LaunchError;
using torchtidy::Mode;
using torchtidy::Site;

static_assert(std::is_base_of<c10::IndexError, IndexOutOfRangeError>::value,
              "index failures are c10::IndexErrors");
static_assert(std::is_base_of<c10::Error, DeviceMismatchError>::value,
              "device failures are c10::Errors");
static_assert(std::is_base_of<c10::Error, KernelArgError>::value,
              "kernel argument failures are c10::Errors");
static_assert(std::is_base_of<c10::Error, LaunchError>::value,
              "launch failures are c10::Errors");
static_assert(TORCHTIDY_CHECKS_ENABLED == EXPECT_MACROS_CHECK,
              "NDEBUG / TORCHTIDY_ENABLE_CHECKS select the macros");

namespace {

/// Restores the mode a test changed.
class ModeGuard {
public:
  explicit ModeGuard(Mode m) : saved_(torchtidy::mode()) {
    torchtidy::setMode(m);
  }
  ~ModeGuard() { torchtidy::setMode(saved_); }

private:
  Mode saved_;
};

Site siteAt(int line, const char *first = "ids",
            const char *second = "table.size(0)") {
  Site s;
  s.file = __FILE__;
  s.line = line;
  s.function = "lookup";
  s.macro = "TORCHTIDY_CHECK_INDEX";
  s.firstArg = first;
  s.secondArg = second;
  return s;
}

at::Tensor ids64(std::vector<int64_t> v) {
  return at::tensor(v, at::TensorOptions().dtype(at::kLong));
}

/// Runs `f`, which must throw IndexOutOfRangeError, and returns the error.
template <typename F> IndexOutOfRangeError expectIndexError(F &&f) {
  try {
    f();
  } catch (const IndexOutOfRangeError &e) {
    return e;
  }
  ADD_FAILURE() << "no IndexOutOfRangeError";
  return IndexOutOfRangeError(Site{}, "", -1, 0, 0, 0, false);
}

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

// ---- the index check
// -----------------------------------------------------------

TEST(CheckIndex, InRangeIndicesPass) {
  EXPECT_NO_THROW(torchtidy::checkIndex(at::arange(10, at::kLong), 10));
  EXPECT_NO_THROW(torchtidy::checkIndex(at::arange(10, at::kInt), 10));
  EXPECT_NO_THROW(torchtidy::checkIndex(at::zeros({3, 4}, at::kLong), 1));
}

TEST(CheckIndex, ReportsSiteValueBoundAndCount) {
  const Site site = siteAt(4242);
  at::Tensor ids = at::arange(100, at::kLong);
  ids[17] = 150;
  ids[40] = -3;
  ids[99] = 100;
  const IndexOutOfRangeError e =
      expectIndexError([&] { torchtidy::checkIndex(ids, 100, site); });
  EXPECT_EQ(e.position(), 17);
  EXPECT_EQ(e.value(), 150);
  EXPECT_EQ(e.bound(), 100);
  EXPECT_EQ(e.badCount(), 3u);
  EXPECT_FALSE(e.deferred());
  const std::string msg = e.msg();
  EXPECT_TRUE(
      contains(msg, "TORCHTIDY_CHECK_INDEX(ids, table.size(0)) failed at "))
      << msg;
  EXPECT_TRUE(contains(msg, std::string(__FILE__) + ":4242 in lookup()"))
      << msg;
  EXPECT_TRUE(
      contains(msg, "index 150 is out of bounds for dimension 0 with size 100"))
      << msg;
  EXPECT_TRUE(contains(msg, "`ids` has 3 of 100 values outside [0, 100)"))
      << msg;
  EXPECT_TRUE(contains(msg, "the first is 150 at position 17")) << msg;
  // c10 records the user's site as where the error was raised.
  EXPECT_TRUE(contains(e.what(), std::string(__FILE__))) << e.what();
}

TEST(CheckIndex, IsCaughtAsC10IndexError) {
  EXPECT_THROW(torchtidy::checkIndex(ids64({0, 5}), 5), c10::IndexError);
}

TEST(CheckIndex, NegativeValueIsOutOfRange) {
  const IndexOutOfRangeError e =
      expectIndexError([&] { torchtidy::checkIndex(ids64({0, -1, 2}), 3); });
  EXPECT_EQ(e.position(), 1);
  EXPECT_EQ(e.value(), -1);
  EXPECT_EQ(e.badCount(), 1u);
}

TEST(CheckIndex, Int32IndicesAndHugeBound) {
  at::Tensor ids = at::arange(1000, at::kInt);
  EXPECT_NO_THROW(torchtidy::checkIndex(ids, int64_t{1} << 40));
  ids[999] = -7;
  const IndexOutOfRangeError e =
      expectIndexError([&] { torchtidy::checkIndex(ids, int64_t{1} << 40); });
  EXPECT_EQ(e.position(), 999);
  EXPECT_EQ(e.value(), -7);
}

TEST(CheckIndex, SizeExpressionWithoutDimensionIsDescribedPlainly) {
  const IndexOutOfRangeError e = expectIndexError(
      [&] { torchtidy::checkIndex(ids64({3}), 3, siteAt(7, "ids", "vocab")); });
  EXPECT_TRUE(
      contains(e.msg(), "index 3 is out of bounds for a dimension with size 3"))
      << e.msg();
}

TEST(CheckIndex, MultiDimensionalPositionGivesCoordinates) {
  at::Tensor ids = at::zeros({4, 8}, at::kLong);
  ids[2][3] = 9;
  const IndexOutOfRangeError e =
      expectIndexError([&] { torchtidy::checkIndex(ids, 5); });
  EXPECT_EQ(e.position(), 2 * 8 + 3);
  EXPECT_TRUE(contains(e.msg(), "(element [2, 3] of shape [4, 8])")) << e.msg();
}

TEST(CheckIndex, NonContiguousIndicesUseLogicalPositions) {
  at::Tensor base = at::zeros({6, 5}, at::kLong);
  base[3][1] = 77; // transposed, this is element [1, 3]
  at::Tensor t = base.t();
  ASSERT_FALSE(t.is_contiguous());
  const IndexOutOfRangeError e =
      expectIndexError([&] { torchtidy::checkIndex(t, 6); });
  EXPECT_EQ(e.position(), 1 * 6 + 3);
  EXPECT_EQ(e.value(), 77);

  at::Tensor strided = at::arange(20, at::kInt).slice(0, 0, 20, 3); // 0,3,..,18
  ASSERT_FALSE(strided.is_contiguous());
  EXPECT_NO_THROW(torchtidy::checkIndex(strided, 19));
  const IndexOutOfRangeError s =
      expectIndexError([&] { torchtidy::checkIndex(strided, 18); });
  EXPECT_EQ(s.position(), 6);
  EXPECT_EQ(s.value(), 18);
}

TEST(CheckIndex, EmptyAndZeroDimIndices) {
  EXPECT_NO_THROW(torchtidy::checkIndex(at::empty({0}, at::kLong), 5));
  EXPECT_NO_THROW(torchtidy::checkIndex(at::empty({3, 0}, at::kInt), 0));
  at::Tensor scalar = at::scalar_tensor(4, at::kLong);
  ASSERT_EQ(scalar.dim(), 0);
  EXPECT_NO_THROW(torchtidy::checkIndex(scalar, 5));
  const IndexOutOfRangeError e =
      expectIndexError([&] { torchtidy::checkIndex(scalar, 4); });
  EXPECT_EQ(e.position(), 0);
  EXPECT_EQ(e.value(), 4);
  EXPECT_EQ(e.badCount(), 1u);
}

TEST(CheckIndex, FindsFirstAcrossParallelChunks) {
  const int64_t n = int64_t{1} << 22;
  at::Tensor ids = at::zeros({n}, at::kLong);
  ids[3000000] = -1;
  ids[1000001] = n;
  ids[n - 1] = n + 5;
  const IndexOutOfRangeError e =
      expectIndexError([&] { torchtidy::checkIndex(ids, n); });
  EXPECT_EQ(e.position(), 1000001);
  EXPECT_EQ(e.value(), n);
  EXPECT_EQ(e.badCount(), 3u);
}

TEST(CheckIndex, ManyBadValuesAreAllCounted) {
  at::Tensor ids = at::full({200000}, 9, at::kInt);
  ids.slice(0, 1000, 200000, 2).fill_(10);
  const IndexOutOfRangeError e =
      expectIndexError([&] { torchtidy::checkIndex(ids, 10); });
  EXPECT_EQ(e.position(), 1000);
  EXPECT_EQ(e.badCount(), 99500u);
}

// ---- bad input
// ------------------------------------------------------------------

TEST(CheckIndexBadInput, FloatIndexIsATypeError) {
  try {
    torchtidy::checkIndex(at::zeros({3}, at::kFloat), 3, siteAt(11));
    FAIL() << "float index accepted";
  } catch (const c10::TypeError &e) {
    EXPECT_TRUE(contains(
        e.msg(), "must be an int32 or int64 tensor of indices, got Float"))
        << e.msg();
    EXPECT_TRUE(contains(e.msg(), ":11 in lookup()")) << e.msg();
  }
}

TEST(CheckIndexBadInput, BoolIndexIsATypeErrorThatMentionsMasks) {
  try {
    torchtidy::checkIndex(at::ones({3}, at::kBool), 3);
    FAIL() << "bool index accepted";
  } catch (const c10::TypeError &e) {
    EXPECT_TRUE(contains(e.msg(), "got Bool")) << e.msg();
    EXPECT_TRUE(contains(e.msg(), "nonzero()")) << e.msg();
  }
}

TEST(CheckIndexBadInput, UndefinedTensor) {
  try {
    torchtidy::checkIndex(at::Tensor(), 3, siteAt(12));
    FAIL() << "undefined tensor accepted";
  } catch (const c10::Error &e) {
    EXPECT_TRUE(contains(e.msg(), "`ids` is an undefined tensor")) << e.msg();
  }
}

TEST(CheckIndexBadInput, NegativeSize) {
  try {
    torchtidy::checkIndex(ids64({0}), -2, siteAt(13));
    FAIL() << "negative size accepted";
  } catch (const c10::ValueError &e) {
    EXPECT_TRUE(contains(e.msg(), "the size `table.size(0)` is -2")) << e.msg();
  }
}

TEST(CheckIndexBadInput, ZeroSizeWithIndices) {
  const IndexOutOfRangeError e =
      expectIndexError([&] { torchtidy::checkIndex(ids64({0, 0, 0}), 0); });
  EXPECT_EQ(e.badCount(), 3u);
  EXPECT_EQ(e.position(), 0);
  EXPECT_TRUE(contains(e.msg(), "The size is 0, so no index is valid"))
      << e.msg();
}

// ---- threads
// ----------------------------------------------------------------------

TEST(CheckIndexThreads, SixteenThreadsCheckConcurrently) {
  constexpr int kThreads = 16;
  constexpr int kRounds = 40;
  std::atomic<int> correct{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &correct] {
      for (int round = 0; round < kRounds; ++round) {
        const int64_t n = 50000 + 1000 * t;
        at::Tensor ids = at::remainder(at::arange(n, at::kLong), 100);
        const int64_t bad = (t * 7919 + round * 104729) % n;
        if (round % 2) {
          ids[bad] = 100 + t;
          try {
            torchtidy::checkIndex(ids, 100);
          } catch (const IndexOutOfRangeError &e) {
            if (e.position() == bad && e.value() == 100 + t &&
                e.badCount() == 1)
              ++correct;
          }
        } else {
          try {
            torchtidy::checkIndex(ids, 100);
            ++correct;
          } catch (...) {
          }
        }
      }
    });
  for (std::thread &th : threads)
    th.join();
  EXPECT_EQ(correct.load(), kThreads * kRounds);
}

// ---- modes
// ------------------------------------------------------------------------

TEST(Mode, ParseAcceptsTheThreeModes) {
  EXPECT_EQ(torchtidy::parseMode("sync"), Mode::Sync);
  EXPECT_EQ(torchtidy::parseMode("Deferred"), Mode::Deferred);
  EXPECT_EQ(torchtidy::parseMode("OFF"), Mode::Off);
  EXPECT_THROW(torchtidy::parseMode("later"), c10::ValueError);
  EXPECT_STREQ(torchtidy::modeName(Mode::Deferred), "deferred");
}

TEST(Mode, OffChecksNothing) {
  ModeGuard guard(Mode::Off);
  EXPECT_NO_THROW(torchtidy::checkIndex(ids64({5}), 1));
  EXPECT_NO_THROW(torchtidy::checkIndex(at::zeros({2}, at::kFloat), 1));
}

TEST(Mode, DeferredStillReportsCpuChecksAtTheCheck) {
  ModeGuard guard(Mode::Deferred);
  EXPECT_THROW(torchtidy::checkIndex(ids64({5}), 1), IndexOutOfRangeError);
}

// Run by ctest with TORCHTIDY_MODE set (see CMakeLists.txt); skipped otherwise.
TEST(ModeFromEnvironment, MatchesTheVariable) {
  const char *expected = std::getenv("TORCHTIDY_EXPECTED_MODE");
  if (!expected)
    GTEST_SKIP() << "TORCHTIDY_EXPECTED_MODE not set";
  EXPECT_STREQ(torchtidy::modeName(torchtidy::mode()), expected);
}

TEST(Deferred, QueuedFailureIsReportedAtTheNextCheckWithItsSite) {
  const Site original = siteAt(501, "token_ids", "vocab_size");
  torchtidy::detail::PendingFailure f;
  f.siteId = torchtidy::detail::siteId(original);
  f.device = 1;
  f.position = 7;
  f.value = 42;
  f.bound = 10;
  f.badCount = 3;
  torchtidy::detail::enqueueDeferredFailure(f);

  const Site next = siteAt(777);
  const IndexOutOfRangeError e =
      expectIndexError([&] { torchtidy::checkIndex(ids64({0, 1}), 10, next); });
  EXPECT_TRUE(e.deferred());
  EXPECT_EQ(e.site().line, 501);
  EXPECT_EQ(e.position(), 7);
  EXPECT_EQ(e.value(), 42);
  EXPECT_EQ(e.badCount(), 3u);
  const std::string msg = e.msg();
  EXPECT_TRUE(
      contains(msg, "TORCHTIDY_CHECK_INDEX(token_ids, vocab_size) failed at "))
      << msg;
  EXPECT_TRUE(contains(msg, ":501 in lookup()")) << msg;
  EXPECT_TRUE(contains(msg, "index 42 is out of bounds")) << msg;
  EXPECT_TRUE(contains(msg, "found by the kernel on cuda:1")) << msg;
  EXPECT_TRUE(
      contains(msg, std::string("reported at TORCHTIDY_CHECK_INDEX at ") +
                        __FILE__ + ":777"))
      << msg;
  // Reported once: the next check passes.
  EXPECT_NO_THROW(torchtidy::checkIndex(ids64({0, 1}), 10, next));
}

TEST(Deferred, FlushThrowsTheFirstAndListsTheRest) {
  EXPECT_NO_THROW(torchtidy::flush());
  torchtidy::detail::PendingFailure a;
  a.siteId = torchtidy::detail::siteId(siteAt(601));
  a.value = 11;
  a.bound = 10;
  a.badCount = 1;
  torchtidy::detail::PendingFailure b = a;
  b.siteId = torchtidy::detail::siteId(siteAt(602));
  b.value = -4;
  torchtidy::detail::enqueueDeferredFailure(a);
  torchtidy::detail::enqueueDeferredFailure(b);
  const IndexOutOfRangeError e = expectIndexError([] { torchtidy::flush(); });
  EXPECT_EQ(e.site().line, 601);
  EXPECT_TRUE(contains(e.msg(), "reported at torchtidy::flush()")) << e.msg();
  EXPECT_TRUE(contains(e.msg(), "1 more deferred failure(s)")) << e.msg();
  EXPECT_TRUE(contains(e.msg(), ":602 in lookup(): index -4")) << e.msg();
  EXPECT_NO_THROW(torchtidy::flush());
}

TEST(Deferred, SiteIdsAreStable) {
  const Site s = siteAt(901);
  const uint32_t id = torchtidy::detail::siteId(s);
  EXPECT_NE(id, 0u);
  EXPECT_EQ(torchtidy::detail::siteId(s), id);
  EXPECT_NE(torchtidy::detail::siteId(siteAt(902)), id);
  EXPECT_EQ(torchtidy::detail::siteById(id).line, 901);
}

// The process-wide state of the shim (the site registry, the deferred queue)
// shared by 16 threads that register sites, queue failures and check at once:
// every failure is reported exactly once, under the site it was queued with.
TEST(DeferredThreads, SixteenThreadsQueueAndReportEachFailureOnce) {
  constexpr int kThreads = 16;
  constexpr int kPerThread = 40;
  constexpr int64_t kBound = 10;
  EXPECT_NO_THROW(torchtidy::flush());
  // "...:<line> in lookup(): index <value> is out of bounds", once per failure.
  const std::regex failure(
      ":([0-9]+) in lookup\\(\\): index ([0-9]+) is out of bounds");
  std::mutex mutex;
  std::map<int64_t, std::vector<int>> linesByValue;
  auto collect = [&](const std::string &message) {
    std::lock_guard<std::mutex> lock(mutex);
    for (std::sregex_iterator it(message.begin(), message.end(), failure), end;
         it != end; ++it)
      linesByValue[std::stoll((*it)[2])].push_back(std::stoi((*it)[1]));
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &collect] {
      for (int i = 0; i < kPerThread; ++i) {
        const Site site = siteAt(10000 + t * kPerThread + i);
        torchtidy::detail::PendingFailure f;
        f.siteId = torchtidy::detail::siteId(site);
        f.value = kBound + t * kPerThread + i;
        f.bound = kBound;
        f.badCount = 1;
        torchtidy::detail::enqueueDeferredFailure(f);
        try {
          // Reports whatever is queued, this thread's failures or others'.
          torchtidy::checkIndex(ids64({0, kBound - 1}), kBound, site);
        } catch (const IndexOutOfRangeError &e) {
          collect(e.msg());
        }
      }
    });
  for (std::thread &th : threads)
    th.join();
  try {
    torchtidy::flush();
  } catch (const IndexOutOfRangeError &e) {
    collect(e.msg());
  }
  ASSERT_EQ(linesByValue.size(),
            static_cast<std::size_t>(kThreads * kPerThread));
  for (const auto &[value, lines] : linesByValue) {
    ASSERT_EQ(lines.size(), 1u)
        << "index " << value << " reported " << lines.size() << " times";
    EXPECT_EQ(lines.front(), 10000 + value - kBound) << "index " << value;
  }
  EXPECT_NO_THROW(torchtidy::flush());
}

// ---- device checks
// --------------------------------------------------------------------

TEST(CheckSameDevice, SameDevicePassesDifferentDevicesFail) {
  const at::Tensor cpu = at::zeros({2});
  const at::Tensor meta = at::empty({2}, at::TensorOptions().device(at::kMeta));
  EXPECT_NO_THROW(torchtidy::checkSameDevice(cpu, at::ones({3})));
  Site s = siteAt(31, "x", "weight");
  s.macro = "TORCHTIDY_CHECK_SAME_DEVICE";
  try {
    torchtidy::checkSameDevice(cpu, meta, s);
    FAIL() << "devices differ";
  } catch (const DeviceMismatchError &e) {
    EXPECT_TRUE(
        contains(e.msg(), "TORCHTIDY_CHECK_SAME_DEVICE(x, weight) failed at "))
        << e.msg();
    EXPECT_TRUE(contains(e.msg(), "`x` is on cpu but `weight` is on meta"))
        << e.msg();
    EXPECT_EQ(e.site().line, 31);
  }
  EXPECT_THROW(torchtidy::checkSameDevice(cpu, at::Tensor()), c10::Error);
}

struct FakeExample {
  at::Tensor data;
  at::Tensor target;
};
struct FakeTensorExample {
  at::Tensor data;
};

TEST(CheckOnCpu, TensorsAndExamples) {
  const at::Tensor meta = at::empty({2}, at::TensorOptions().device(at::kMeta));
  EXPECT_NO_THROW(torchtidy::checkOnCpu(at::zeros({2})));
  EXPECT_THROW(torchtidy::checkOnCpu(meta), DeviceMismatchError);
  Site s = siteAt(41, "example", "");
  s.macro = "TORCHTIDY_CHECK_ON_CPU";
  using torchtidy::detail::Priority;
  EXPECT_NO_THROW(torchtidy::detail::checkOnCpuAny(
      FakeExample{at::zeros({1}), at::zeros({1})}, s, Priority<2>{}));
  try {
    torchtidy::detail::checkOnCpuAny(FakeExample{at::zeros({1}), meta}, s,
                                     Priority<2>{});
    FAIL() << "target on meta accepted";
  } catch (const DeviceMismatchError &e) {
    EXPECT_TRUE(contains(e.msg(), "TORCHTIDY_CHECK_ON_CPU(example) failed at"))
        << e.msg();
    EXPECT_TRUE(
        contains(e.msg(), "`example.target` is on meta but must be on the CPU"))
        << e.msg();
  }
  EXPECT_THROW(torchtidy::detail::checkOnCpuAny(FakeTensorExample{meta}, s,
                                                Priority<2>{}),
               DeviceMismatchError);
}

// ---- the macros
// ---------------------------------------------------------------------------

at::Tensor counted(const at::Tensor &t, int *evaluations) {
  ++*evaluations;
  return t;
}

#if EXPECT_MACROS_CHECK
TEST(Macros, CheckIndexNamesTheCallSite) {
  const at::Tensor table = at::zeros({10, 4});
  const at::Tensor ids = ids64({1, 12, 3});
  int line = 0;
  try {
    line = __LINE__ + 1;
    TORCHTIDY_CHECK_INDEX(ids, table.size(0));
    FAIL() << "out-of-range id accepted";
  } catch (const IndexOutOfRangeError &e) {
    EXPECT_EQ(e.site().line, line);
    EXPECT_STREQ(e.site().file, __FILE__);
    EXPECT_TRUE(contains(
        e.msg(), "TORCHTIDY_CHECK_INDEX(ids, table.size(0)) failed at " +
                     std::string(__FILE__) + ":" + std::to_string(line) +
                     " in TestBody()"))
        << e.msg();
    EXPECT_TRUE(contains(
        e.msg(), "index 12 is out of bounds for dimension 0 with size 10"))
        << e.msg();
    EXPECT_EQ(e.position(), 1);
  }
}

TEST(Macros, EvaluateEachArgumentOnce) {
  int evaluations = 0;
  const at::Tensor ids = ids64({0, 1});
  TORCHTIDY_CHECK_INDEX(counted(ids, &evaluations), 2);
  TORCHTIDY_CHECK_SAME_DEVICE(counted(ids, &evaluations), ids);
  TORCHTIDY_CHECK_ON_CPU(counted(ids, &evaluations));
  EXPECT_EQ(evaluations, 3);
}

TEST(Macros, AcceptUnsignedSizes) {
  const std::vector<float> table(3);
  TORCHTIDY_CHECK_INDEX(ids64({0, 2}), table.size());
  EXPECT_THROW(TORCHTIDY_CHECK_INDEX(ids64({3}), table.size()),
               IndexOutOfRangeError);
}

TEST(Macros, DeviceMacrosCheck) {
  const at::Tensor meta = at::empty({2}, at::TensorOptions().device(at::kMeta));
  const at::Tensor x = at::zeros({2});
  EXPECT_THROW(TORCHTIDY_CHECK_SAME_DEVICE(x, meta), DeviceMismatchError);
  EXPECT_THROW(TORCHTIDY_CHECK_ON_CPU(meta), DeviceMismatchError);
  EXPECT_THROW(TORCHTIDY_CHECK_ON_CPU((FakeExample{x, meta})),
               DeviceMismatchError);
  TORCHTIDY_CHECK_ON_CPU((FakeExample{x, x}));
}
#else
TEST(Macros, ReleaseMacrosDoNotEvaluateTheirArguments) {
  int evaluations = 0;
  const at::Tensor bad = ids64({5});
  const at::Tensor meta = at::empty({2}, at::TensorOptions().device(at::kMeta));
  TORCHTIDY_CHECK_INDEX(counted(bad, &evaluations), 1);
  TORCHTIDY_CHECK_SAME_DEVICE(counted(bad, &evaluations), meta);
  TORCHTIDY_CHECK_ON_CPU(counted(meta, &evaluations));
  EXPECT_EQ(evaluations, 0);
}

TEST(Macros, ReleaseMacrosDoNotThrow) {
  const at::Tensor meta = at::empty({2}, at::TensorOptions().device(at::kMeta));
  EXPECT_NO_THROW(TORCHTIDY_CHECK_INDEX(ids64({5}), 1));
  EXPECT_NO_THROW(TORCHTIDY_CHECK_SAME_DEVICE(at::zeros({1}), meta));
  EXPECT_NO_THROW(TORCHTIDY_CHECK_ON_CPU(meta));
}
#endif

// ---- CUDA tensors (skipped without a GPU and a CUDA LibTorch)
// -------------------------------

#define SKIP_WITHOUT_CUDA_TENSORS()                                            \
  do {                                                                         \
    if (!at::hasCUDA())                                                        \
      GTEST_SKIP() << "no CUDA device visible to LibTorch";                    \
    if (!torchtidy::builtWithTorchCuda())                                      \
      GTEST_SKIP() << "built without CUDA LibTorch support";                   \
  } while (0)

TEST(CudaTensors, SyncReportsAtTheCheck) {
  SKIP_WITHOUT_CUDA_TENSORS();
  at::Tensor ids = at::arange(
      1 << 20, at::TensorOptions().dtype(at::kLong).device(at::kCUDA));
  EXPECT_NO_THROW(torchtidy::checkIndex(ids, 1 << 20));
  ids[123457] = -5;
  ids[900000] = 1 << 20;
  const IndexOutOfRangeError e = expectIndexError(
      [&] { torchtidy::checkIndex(ids, 1 << 20, siteAt(55)); });
  EXPECT_EQ(e.position(), 123457);
  EXPECT_EQ(e.value(), -5);
  EXPECT_EQ(e.badCount(), 2u);
  EXPECT_FALSE(e.deferred());
  at::Tensor ids32 =
      ids.to(at::kInt).slice(0, 1, 1 << 20, 3); // misaligned, strided
  EXPECT_THROW(torchtidy::checkIndex(ids32, 1 << 20), IndexOutOfRangeError);
  EXPECT_NO_THROW(torchtidy::checkIndex(ids32.clamp(0, 10), 11));
}

TEST(CudaTensors, DeferredReportsAtFlushWithTheOriginalSite) {
  SKIP_WITHOUT_CUDA_TENSORS();
  ModeGuard guard(Mode::Deferred);
  at::Tensor ids = at::zeros(
      {1 << 16}, at::TensorOptions().dtype(at::kInt).device(at::kCUDA));
  ids[4000] = 99;
  const Site original = siteAt(66, "batch_ids", "emb.size(0)");
  EXPECT_NO_THROW(torchtidy::checkIndex(ids, 50, original));
  const IndexOutOfRangeError e = expectIndexError([] { torchtidy::flush(); });
  EXPECT_TRUE(e.deferred());
  EXPECT_EQ(e.site().line, 66);
  EXPECT_EQ(e.position(), 4000);
  EXPECT_EQ(e.value(), 99);
  EXPECT_TRUE(
      contains(e.msg(), "TORCHTIDY_CHECK_INDEX(batch_ids, emb.size(0))"))
      << e.msg();
  EXPECT_NO_THROW(torchtidy::flush());
}

TEST(CudaTensors, DeferredReportsAtTheNextCheck) {
  SKIP_WITHOUT_CUDA_TENSORS();
  ModeGuard guard(Mode::Deferred);
  at::Tensor ids = at::full(
      {1000}, 3, at::TensorOptions().dtype(at::kLong).device(at::kCUDA));
  ids[10] = 8;
  EXPECT_NO_THROW(torchtidy::checkIndex(ids, 5, siteAt(71)));
  // A copy to the host waits for the stream, so the kernel has posted by now.
  (void)ids.sum().item<int64_t>();
  const IndexOutOfRangeError e = expectIndexError(
      [&] { torchtidy::checkIndex(ids64({0}), 5, siteAt(72)); });
  EXPECT_TRUE(e.deferred());
  EXPECT_EQ(e.site().line, 71);
  EXPECT_EQ(e.position(), 10);
  EXPECT_EQ(e.value(), 8);
  EXPECT_EQ(e.badCount(), 1u);
  EXPECT_TRUE(contains(e.msg(), ":72]")) << e.msg();
}

// ---- kernel arguments and launches ------------------------------------------

Site kernelSite(int line, const char *first = "x",
                const char *second = "torch::kFloat") {
  Site s;
  s.file = "ext.cu";
  s.line = line;
  s.function = "launch";
  s.macro = "TORCHTIDY_CHECK_KERNEL_ARG";
  s.firstArg = first;
  s.secondArg = second;
  return s;
}

template <typename E, typename F> E expectError(F &&f) {
  try {
    f();
  } catch (const E &e) {
    return e;
  }
  ADD_FAILURE() << "no error thrown";
  throw std::runtime_error("no error thrown");
}

/// What TORCHTIDY_CHECK_LAUNCH() does, on the fake CUDA runtime above.
void fakeCheckLaunch(const Site &site) {
  torchtidy::detail::checkLaunchWith(
      site, [] { return static_cast<int>(cudaGetLastError()); },
      [] { return static_cast<int>(cudaDeviceSynchronize()); },
      [](int c) { return cudaGetErrorString(static_cast<cudaError_t>(c)); });
}

/// Resets the fake CUDA runtime and the sync setting around a test.
class FakeCudaGuard {
public:
  explicit FakeCudaGuard(bool sync) : saved_(torchtidy::syncAfterLaunches()) {
    torchtidy::setSyncAfterLaunches(sync);
    fake_cuda::lastError = fake_cuda::syncError = 0;
    fake_cuda::lastErrorCalls = fake_cuda::syncCalls = 0;
  }
  ~FakeCudaGuard() { torchtidy::setSyncAfterLaunches(saved_); }

private:
  bool saved_;
};

// These run on the CPU, where every tensor fails "on CUDA": the other
// properties are reported with it, in the same message.
TEST(CheckKernelArg, CpuTensorIsNotOnCuda) {
  const KernelArgError e = expectError<KernelArgError>([] {
    torchtidy::checkKernelArg(at::zeros({4}), at::kFloat, kernelSite(12));
  });
  EXPECT_EQ(e.site().line, 12);
  EXPECT_TRUE(contains(e.msg(), "TORCHTIDY_CHECK_KERNEL_ARG(x, torch::kFloat) "
                                "failed at ext.cu:12 in launch(): `x` is on "
                                "cpu, not on a CUDA device"))
      << e.msg();
  EXPECT_FALSE(contains(e.msg(), "contiguous (")) << e.msg();
  EXPECT_FALSE(contains(e.msg(), "holds")) << e.msg();
}

TEST(CheckKernelArg, StridedAndMistypedAreNamed) {
  const at::Tensor xt = at::zeros({2, 3}).t();
  const KernelArgError strided = expectError<KernelArgError>(
      [&] { torchtidy::checkKernelArg(xt, at::kFloat, kernelSite(20)); });
  EXPECT_TRUE(contains(strided.msg(), "is not contiguous (sizes [3, 2], "
                                      "strides [1, 3])"))
      << strided.msg();
  EXPECT_FALSE(contains(strided.msg(), "holds")) << strided.msg();
  const KernelArgError mistyped = expectError<KernelArgError>([] {
    torchtidy::checkKernelArg(ids64({1, 2}), at::kFloat, kernelSite(21));
  });
  EXPECT_TRUE(contains(mistyped.msg(), "holds Long, not Float"))
      << mistyped.msg();
  EXPECT_FALSE(contains(mistyped.msg(), "not contiguous")) << mistyped.msg();
}

TEST(CheckKernelArg, UndefinedTensor) {
  const KernelArgError e = expectError<KernelArgError>([] {
    torchtidy::checkKernelArg(at::Tensor(), at::kFloat, kernelSite(30));
  });
  EXPECT_TRUE(contains(e.msg(), "`x` is an undefined tensor")) << e.msg();
}

TEST(CheckKernelArg, OffModeChecksNothing) {
  ModeGuard guard(Mode::Off);
  EXPECT_NO_THROW(
      torchtidy::checkKernelArg(at::zeros({4}), at::kLong, kernelSite(40)));
}

TEST(CheckLaunch, ReportsTheLaunchErrorAtItsSite) {
  FakeCudaGuard fake(false);
  Site site = kernelSite(50, "", "");
  site.macro = "TORCHTIDY_CHECK_LAUNCH";
  auto check = [&] { fakeCheckLaunch(site); };
  EXPECT_NO_THROW(check());
  fake_cuda::lastError = 9;
  const LaunchError e = expectError<LaunchError>(check);
  EXPECT_EQ(e.code(), 9);
  EXPECT_FALSE(e.whileRunning());
  EXPECT_EQ(e.site().line, 50);
  EXPECT_TRUE(contains(e.msg(), "TORCHTIDY_CHECK_LAUNCH() failed at ext.cu:50 "
                                "in launch(): the kernel launch before it "
                                "failed: CUDA error 9 (invalid configuration "
                                "argument)"))
      << e.msg();
  // Without TORCHTIDY_SYNC the device is never waited for.
  fake_cuda::syncError = 700;
  EXPECT_NO_THROW(check());
  EXPECT_EQ(fake_cuda::syncCalls, 0);
}

TEST(CheckLaunch, SyncReportsWhatTheKernelDidAtItsSite) {
  FakeCudaGuard fake(true);
  Site site = kernelSite(60, "", "");
  site.macro = "TORCHTIDY_CHECK_LAUNCH";
  auto check = [&] { fakeCheckLaunch(site); };
  EXPECT_NO_THROW(check());
  EXPECT_EQ(fake_cuda::syncCalls, 1);
  fake_cuda::syncError = 700;
  const LaunchError e = expectError<LaunchError>(check);
  EXPECT_EQ(e.code(), 700);
  EXPECT_TRUE(e.whileRunning());
  EXPECT_TRUE(contains(e.msg(), "the device failed while running the kernel "
                                "launched before it (or earlier work): CUDA "
                                "error 700 (an illegal memory access was "
                                "encountered)"))
      << e.msg();
  // A failed launch is reported as such, before any wait.
  fake_cuda::lastError = 9;
  const int syncsBefore = fake_cuda::syncCalls;
  EXPECT_FALSE(expectError<LaunchError>(check).whileRunning());
  EXPECT_EQ(fake_cuda::syncCalls, syncsBefore);
}

TEST(CheckLaunch, OffModeReadsNothing) {
  FakeCudaGuard fake(true);
  ModeGuard guard(Mode::Off);
  fake_cuda::lastError = 9;
  Site site;
  fakeCheckLaunch(site);
  EXPECT_EQ(fake_cuda::lastErrorCalls, 0);
}

TEST(SyncFromEnvironment, MatchesTheVariable) {
  const char *expected = std::getenv("TORCHTIDY_EXPECTED_SYNC");
  if (!expected)
    GTEST_SKIP() << "TORCHTIDY_EXPECTED_SYNC not set";
  EXPECT_EQ(torchtidy::syncAfterLaunches(), std::string(expected) == "1");
}

TEST(KernelMacros, CheckOrVanish) {
  FakeCudaGuard fake(false);
  int evaluated = 0;
  auto cpu = [&] {
    ++evaluated;
    return at::zeros({4});
  };
  fake_cuda::lastError = 9;
#if EXPECT_MACROS_CHECK
  int line = __LINE__ + 2;
  const KernelArgError arg = expectError<KernelArgError>(
      [&] { TORCHTIDY_CHECK_KERNEL_ARG(cpu(), at::kFloat); });
  EXPECT_EQ(arg.site().line, line);
  EXPECT_STREQ(arg.site().file, __FILE__);
  EXPECT_TRUE(contains(arg.msg(), "TORCHTIDY_CHECK_KERNEL_ARG(cpu(), "
                                  "at::kFloat) failed at"))
      << arg.msg();
  EXPECT_EQ(evaluated, 1);
  line = __LINE__ + 2;
  const LaunchError launch =
      expectError<LaunchError>([] { TORCHTIDY_CHECK_LAUNCH(); });
  EXPECT_EQ(launch.site().line, line);
  EXPECT_EQ(launch.code(), 9);
  EXPECT_TRUE(contains(launch.msg(), "TORCHTIDY_CHECK_LAUNCH() failed at"))
      << launch.msg();
  EXPECT_EQ(fake_cuda::lastErrorCalls, 1);
#else
  TORCHTIDY_CHECK_KERNEL_ARG(cpu(), at::kFloat);
  TORCHTIDY_CHECK_LAUNCH();
  EXPECT_EQ(evaluated, 0);
  EXPECT_EQ(fake_cuda::lastErrorCalls, 0);
#endif
}

} // namespace
