// The range logic shared by the CPU loop and the CUDA kernels, on the CPU.
#include "index_range.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace torchtidy::range;

namespace {

TEST(InRange, Int64Boundaries) {
  EXPECT_TRUE(inRange<int64_t>(0, 10));
  EXPECT_TRUE(inRange<int64_t>(9, 10));
  EXPECT_FALSE(inRange<int64_t>(10, 10));
  EXPECT_FALSE(inRange<int64_t>(-1, 10));
  EXPECT_FALSE(inRange<int64_t>(std::numeric_limits<int64_t>::min(), 10));
  EXPECT_FALSE(inRange<int64_t>(std::numeric_limits<int64_t>::max(), 10));
  EXPECT_TRUE(inRange<int64_t>(std::numeric_limits<int64_t>::max() - 1,
                               std::numeric_limits<int64_t>::max()));
}

TEST(InRange, Int32Boundaries) {
  EXPECT_TRUE(inRange<int32_t>(0, 1));
  EXPECT_FALSE(inRange<int32_t>(1, 1));
  EXPECT_FALSE(inRange<int32_t>(-1, 1));
  EXPECT_FALSE(inRange<int32_t>(std::numeric_limits<int32_t>::min(), 5));
}

TEST(InRange, Int32WithBoundBeyondItsRangeAcceptsAllNonNegative) {
  const int64_t huge = int64_t{1} << 40;
  EXPECT_TRUE(inRange<int32_t>(std::numeric_limits<int32_t>::max(), huge));
  EXPECT_TRUE(inRange<int32_t>(0, huge));
  EXPECT_FALSE(inRange<int32_t>(-1, huge));
  EXPECT_FALSE(inRange<int32_t>(std::numeric_limits<int32_t>::min(), huge));
  // Exactly 2^31: every non-negative int32 is below it.
  EXPECT_TRUE(
      inRange<int32_t>(std::numeric_limits<int32_t>::max(), int64_t{1} << 31));
  EXPECT_FALSE(inRange<int32_t>(std::numeric_limits<int32_t>::max(),
                                std::numeric_limits<int32_t>::max()));
}

TEST(InRange, ZeroBoundAdmitsNothing) {
  EXPECT_FALSE(inRange<int64_t>(0, 0));
  EXPECT_FALSE(inRange<int32_t>(0, 0));
}

template <typename T> std::vector<T> randomValues(std::size_t n, T lo, T hi) {
  std::mt19937_64 gen(1234);
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  std::vector<T> v(n);
  for (T &x : v)
    x = static_cast<T>(dist(gen));
  return v;
}

template <typename T> void expectCountMatchesNaive(int64_t bound) {
  const std::vector<T> v =
      randomValues<T>(1000, static_cast<T>(-20), static_cast<T>(120));
  uint32_t naive = 0;
  for (T x : v)
    naive += (x >= 0 && static_cast<int64_t>(x) < bound) ? 0 : 1;
  EXPECT_EQ(countOutOfRange(v.data(), static_cast<int64_t>(v.size()), bound),
            naive);
  EXPECT_GT(naive, 0u);
}

TEST(CountOutOfRange, MatchesNaiveCount) {
  expectCountMatchesNaive<int32_t>(100);
  expectCountMatchesNaive<int64_t>(100);
  expectCountMatchesNaive<int64_t>(1);
}

TEST(Scan, FindsFirstPositionAndCountWithBase) {
  const std::vector<int64_t> v = {0, 1, 5, 2, -1, 7, 3};
  const Summary s = scan(v.data(), static_cast<int64_t>(v.size()), 100, 5);
  EXPECT_EQ(s.badCount, 3u);
  EXPECT_EQ(s.firstPosition, 102);
}

TEST(Scan, NothingBadLeavesNoPosition) {
  const std::vector<int32_t> v = {0, 1, 2};
  const Summary s = scan(v.data(), 3, 0, 3);
  EXPECT_EQ(s.badCount, 0u);
  EXPECT_EQ(s.firstPosition, kNoPosition);
}

TEST(Merge, SumsCountsAndKeepsEarliestPosition) {
  Summary a;
  a.badCount = 2;
  a.firstPosition = 40;
  Summary b;
  b.badCount = 5;
  b.firstPosition = 7;
  const Summary empty;
  EXPECT_EQ(merge(a, b).badCount, 7u);
  EXPECT_EQ(merge(a, b).firstPosition, 7);
  EXPECT_EQ(merge(b, a).firstPosition, 7);
  EXPECT_EQ(merge(a, empty).firstPosition, 40);
  EXPECT_EQ(merge(empty, empty).firstPosition, kNoPosition);
}

TEST(SplitForVectors, AlignedBufferIsAllBodyPlusTail) {
  const VectorSplit s = splitForVectors(0x1000, 10, 8, 16);
  EXPECT_EQ(s.perVector, 2);
  EXPECT_EQ(s.head, 0);
  EXPECT_EQ(s.vectors, 5);
  EXPECT_EQ(s.tail, 0);
  const VectorSplit t = splitForVectors(0x1000, 11, 4, 16);
  EXPECT_EQ(t.perVector, 4);
  EXPECT_EQ(t.vectors, 2);
  EXPECT_EQ(t.tailBegin, 8);
  EXPECT_EQ(t.tail, 3);
}

TEST(SplitForVectors, MisalignedStartGetsScalarHead) {
  // int32 at 0x1004: three scalars reach the 16-byte boundary at 0x1010.
  const VectorSplit s = splitForVectors(0x1004, 20, 4, 16);
  EXPECT_EQ(s.head, 3);
  EXPECT_EQ(s.vectors, 4);
  EXPECT_EQ(s.tailBegin, 19);
  EXPECT_EQ(s.tail, 1);
  EXPECT_EQ(s.head + s.vectors * s.perVector + s.tail, 20);
}

TEST(SplitForVectors, ShortBufferIsAllHead) {
  const VectorSplit s = splitForVectors(0x1008, 1, 8, 16);
  EXPECT_EQ(s.head, 1);
  EXPECT_EQ(s.vectors, 0);
  EXPECT_EQ(s.tail, 0);
}

TEST(SplitForVectors, AddressNotAMultipleOfTheElementIsAllScalar) {
  const VectorSplit s = splitForVectors(0x1002, 9, 4, 16);
  EXPECT_EQ(s.head, 9);
  EXPECT_EQ(s.vectors, 0);
  EXPECT_EQ(s.tail, 0);
}

TEST(SplitForVectors, CoversEveryElementOnce) {
  for (uint64_t address = 0x2000; address < 0x2010; address += 4)
    for (int64_t count = 0; count < 40; ++count) {
      const VectorSplit s = splitForVectors(address, count, 4, 16);
      EXPECT_EQ(s.head + s.vectors * s.perVector + s.tail, count);
      EXPECT_EQ(s.tailBegin, s.head + s.vectors * s.perVector);
      if (s.vectors > 0)
        EXPECT_EQ((address + static_cast<uint64_t>(s.head) * 4) % 16, 0u);
    }
}

TEST(GridBlocks, CoversWorkUpToResidentLimit) {
  EXPECT_EQ(gridBlocks(1, 256, 100), 1);
  EXPECT_EQ(gridBlocks(0, 256, 100), 1);
  EXPECT_EQ(gridBlocks(257, 256, 100), 2);
  EXPECT_EQ(gridBlocks(int64_t{1} << 30, 256, 528), 528);
}

} // namespace
